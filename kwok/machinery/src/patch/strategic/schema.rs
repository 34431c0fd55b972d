//! Patch metadata (`patchStrategy` / `patchMergeKey` struct tags) of the served kinds.
//!
//! The API server looks these up by reflection on the Go types (`strategicpatch.PatchMetaFromStruct`).
//! Only the paths that lead to a tagged field are spelled out here; every other field behaves as an
//! untagged one would (maps merge recursively, lists are replaced), which is what the Go lookup
//! yields for untagged fields. Tags are those of k8s.io/api `core/v1/types.go`, `apps/v1/types.go`,
//! `policy/v1/types.go`, `storage/v1/types.go` and k8s.io/apimachinery `meta/v1/types.go`.

/// The non-`retainKeys` part of a field's `patchStrategy` tag. `retainKeys` itself only matters
/// when a client builds a patch; the server just obeys the `$retainKeys` directive it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// No tag: maps merge, lists are replaced.
    Default,
    /// `patchStrategy:"merge"`: lists merge (by `patchMergeKey` for lists of objects).
    Merge,
    /// `patchStrategy:"replace"`: the patch value replaces the field. No served field is tagged
    /// this way; the engine honours it like upstream (the upstream tests use it).
    #[cfg_attr(not(test), allow(dead_code))]
    Replace,
}

/// The type of a value, as far as patch metadata goes.
#[derive(Debug)]
pub enum Schema {
    /// A Go struct with some tagged (or leading-to-tagged) fields; others are untagged.
    Struct(&'static [Field]),
    /// Any value whose fields carry no patch metadata (untagged structs, and Go maps such as
    /// `labels`, whose lookups yield the untagged element type).
    Untagged,
    /// A Go struct with no JSON fields at all (`runtime.RawExtension`): any lookup fails, as it
    /// does upstream (`unable to find api field in struct RawExtension ...`).
    Opaque(&'static str),
}

/// One JSON field of a struct.
#[derive(Debug)]
pub struct Field {
    pub name: &'static str,
    pub strategy: Strategy,
    pub merge_key: &'static str,
    /// The field's value type; for lists, the element type.
    pub schema: &'static Schema,
}

/// What a lookup of one key yields: the sub-schema, the strategy and the merge key.
#[derive(Debug, Clone, Copy)]
pub struct PatchMeta {
    pub schema: &'static Schema,
    pub strategy: Strategy,
    pub merge_key: &'static str,
}

impl Schema {
    /// `LookupPatchMetadataForStruct` / `ForSlice`: the metadata of `key` inside this type.
    pub fn lookup(&'static self, key: &str) -> Result<PatchMeta, String> {
        let untagged = PatchMeta {
            schema: &UNTAGGED,
            strategy: Strategy::Default,
            merge_key: "",
        };
        match self {
            Schema::Struct(fields) => Ok(fields
                .iter()
                .find(|f| f.name == key)
                .map(|f| PatchMeta {
                    schema: f.schema,
                    strategy: f.strategy,
                    merge_key: f.merge_key,
                })
                .unwrap_or(untagged)),
            Schema::Untagged => Ok(untagged),
            Schema::Opaque(name) => Err(format!(
                "unable to find api field in struct {name} for the json field {}",
                crate::error::go_quote(key)
            )),
        }
    }
}

pub static UNTAGGED: Schema = Schema::Untagged;

const fn plain(name: &'static str, schema: &'static Schema) -> Field {
    Field {
        name,
        strategy: Strategy::Default,
        merge_key: "",
        schema,
    }
}

const fn merge(name: &'static str, merge_key: &'static str, schema: &'static Schema) -> Field {
    Field {
        name,
        strategy: Strategy::Merge,
        merge_key,
        schema,
    }
}

// --- meta/v1 ---------------------------------------------------------------------------------

/// `metav1.ObjectMeta`: `ownerReferences` merge by `uid`, `finalizers` merge as a set.
static OBJECT_META: Schema = Schema::Struct(&[
    merge("ownerReferences", "uid", &UNTAGGED),
    merge("finalizers", "", &UNTAGGED),
]);

/// `status.conditions` merged by `type` (PodStatus, NodeStatus, NamespaceStatus, DeploymentStatus,
/// ReplicaSetStatus, DaemonSetStatus, PodDisruptionBudgetStatus all tag it this way).
static CONDITIONS_BY_TYPE: Schema = Schema::Struct(&[merge("conditions", "type", &UNTAGGED)]);

// --- core/v1 ---------------------------------------------------------------------------------

/// `Container` (and `EphemeralContainer`, which inlines the same fields).
static CONTAINER: Schema = Schema::Struct(&[
    merge("ports", "containerPort", &UNTAGGED),
    merge("env", "name", &UNTAGGED),
    merge("volumeMounts", "mountPath", &UNTAGGED),
    merge("volumeDevices", "devicePath", &UNTAGGED),
]);

/// `PodSpec`. `tolerations`, `readinessGates` and the container statuses carry no tag and are
/// replaced; `volumes` and `resourceClaims` are `merge,retainKeys`.
static POD_SPEC: Schema = Schema::Struct(&[
    merge("volumes", "name", &UNTAGGED),
    merge("initContainers", "name", &CONTAINER),
    merge("containers", "name", &CONTAINER),
    merge("ephemeralContainers", "name", &CONTAINER),
    merge("imagePullSecrets", "name", &UNTAGGED),
    merge("hostAliases", "ip", &UNTAGGED),
    merge("topologySpreadConstraints", "topologyKey", &UNTAGGED),
    merge("schedulingGates", "name", &UNTAGGED),
    merge("resourceClaims", "name", &UNTAGGED),
]);

/// `PodStatus`: `containerStatuses` and friends have no tag (replaced as a whole).
static POD_STATUS: Schema = Schema::Struct(&[
    merge("conditions", "type", &UNTAGGED),
    merge("podIPs", "ip", &UNTAGGED),
    merge("hostIPs", "ip", &UNTAGGED),
    merge("resourceClaimStatuses", "name", &UNTAGGED),
]);

static POD_TEMPLATE_SPEC: Schema =
    Schema::Struct(&[plain("metadata", &OBJECT_META), plain("spec", &POD_SPEC)]);

pub static POD: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("spec", &POD_SPEC),
    plain("status", &POD_STATUS),
]);

/// `NodeSpec`: `podCIDRs` merge as a set; `taints` carry no tag.
static NODE_SPEC: Schema = Schema::Struct(&[merge("podCIDRs", "", &UNTAGGED)]);

/// `NodeStatus`: `conditions` and `addresses` merge by `type`; `images`, `volumesAttached` have
/// no tag.
static NODE_STATUS: Schema = Schema::Struct(&[
    merge("conditions", "type", &UNTAGGED),
    merge("addresses", "type", &UNTAGGED),
]);

pub static NODE: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("spec", &NODE_SPEC),
    plain("status", &NODE_STATUS),
]);

/// `NamespaceSpec.finalizers` has no tag; `NamespaceStatus.conditions` merge by `type`.
pub static NAMESPACE: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("status", &CONDITIONS_BY_TYPE),
]);

/// `ServiceAccount.secrets` merge by `name`; `imagePullSecrets` has no tag here (unlike PodSpec).
pub static SERVICE_ACCOUNT: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    merge("secrets", "name", &UNTAGGED),
]);

/// `ServiceSpec.ports` merge by `port`; `ServiceStatus.conditions` by `type`.
static SERVICE_SPEC: Schema = Schema::Struct(&[merge("ports", "port", &UNTAGGED)]);

pub static SERVICE: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("spec", &SERVICE_SPEC),
    plain("status", &CONDITIONS_BY_TYPE),
]);

/// `APIServiceStatus.conditions` merge by `type`.
pub static API_SERVICE: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("status", &CONDITIONS_BY_TYPE),
]);

// --- storage.k8s.io/v1 -----------------------------------------------------------------------

static CSI_NODE_SPEC: Schema = Schema::Struct(&[merge("drivers", "name", &UNTAGGED)]);

/// `CSINodeSpec.drivers` merge by `name`.
pub static CSI_NODE: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("spec", &CSI_NODE_SPEC),
]);

/// Kinds whose only tagged fields are in their metadata (ConfigMap, Secret, Event, Lease, ...).
pub static META_ONLY: Schema = Schema::Struct(&[plain("metadata", &OBJECT_META)]);

// --- apps/v1, policy/v1 ----------------------------------------------------------------------

/// `DeploymentSpec`, `ReplicaSetSpec`, `DaemonSetSpec`, `JobSpec`: the pod template. (`strategy` is tagged
/// `retainKeys`, which only the client side acts on.)
static WORKLOAD_SPEC: Schema = Schema::Struct(&[plain("template", &POD_TEMPLATE_SPEC)]);

/// A PodTemplate: its template at the top.
pub static POD_TEMPLATE: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("template", &POD_TEMPLATE_SPEC),
]);

pub static WORKLOAD: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("spec", &WORKLOAD_SPEC),
    plain("status", &CONDITIONS_BY_TYPE),
]);

/// `JobTemplateSpec`: metadata and a `JobSpec`.
static JOB_TEMPLATE_SPEC: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("spec", &WORKLOAD_SPEC),
]);

/// `CronJobSpec`: the job template.
static CRON_JOB_SPEC: Schema = Schema::Struct(&[plain("jobTemplate", &JOB_TEMPLATE_SPEC)]);

/// A CronJob (`CronJobStatus.active` is atomic).
pub static CRON_JOB: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("spec", &CRON_JOB_SPEC),
]);

static RAW_EXTENSION: Schema = Schema::Opaque("RawExtension");

/// `ControllerRevision.data` is a `runtime.RawExtension`.
pub static CONTROLLER_REVISION: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("data", &RAW_EXTENSION),
]);

/// `PodDisruptionBudgetStatus.conditions` merge by `type`.
pub static POD_DISRUPTION_BUDGET: Schema = Schema::Struct(&[
    plain("metadata", &OBJECT_META),
    plain("status", &CONDITIONS_BY_TYPE),
]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_lists_follow_the_go_tags() {
        let spec = POD.lookup("spec").unwrap().schema;
        let containers = spec.lookup("containers").unwrap();
        assert_eq!(containers.strategy, Strategy::Merge);
        assert_eq!(containers.merge_key, "name");
        let ports = containers.schema.lookup("ports").unwrap();
        assert_eq!(
            (ports.strategy, ports.merge_key),
            (Strategy::Merge, "containerPort")
        );
        let tolerations = spec.lookup("tolerations").unwrap();
        assert_eq!(tolerations.strategy, Strategy::Default);
    }

    #[test]
    fn raw_extension_has_no_fields() {
        let data = CONTROLLER_REVISION.lookup("data").unwrap().schema;
        assert_eq!(
            data.lookup("spec").unwrap_err(),
            "unable to find api field in struct RawExtension for the json field \"spec\""
        );
    }
}
