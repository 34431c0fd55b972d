//! When an object counts as changed: its content without what the server or a controller writes,
//! and the changes that must make it again rather than replace it.

use serde_json::Value;

use super::objects::{text, CLAIMS};

/// The claim a volume is bound or pre-bound to, as (namespace, name); empty when none.
pub(super) fn claim_of(volume: &Value) -> (&str, &str) {
    (
        text(volume, "/spec/claimRef/namespace"),
        text(volume, "/spec/claimRef/name"),
    )
}

/// A volume to put back in place of `now` that stays bound to the same claim keeps that claim's
/// uid: without it the claim, bound already, would count its volume lost (`syncBoundClaim`).
pub(super) fn keeping_binding(mut body: Value, now: Option<&Value>) -> Value {
    let Some(now) = now else {
        return body;
    };
    if claim_of(now) == claim_of(&body) && claim_of(&body) != ("", "") {
        if let Some(uid) = now.pointer("/spec/claimRef/uid") {
            body["spec"]["claimRef"]["uid"] = uid.clone();
        }
    }
    body
}

/// The top-level fields that are not the object's content: its type, its metadata (compared by
/// labels and annotations) and the status the server and controllers write.
const NOT_CONTENT: &[&str] = &["apiVersion", "kind", "metadata", "status"];

/// What is compared to decide whether an object changed: what a learner can change — labels,
/// annotations and every top-level field of content (a spec, a ConfigMap's data, a role's rules,
/// a custom resource's own fields), and a node's capacity, which a lab may have the learner
/// patch as a device plugin would.
pub(super) fn comparable(object: &Value) -> Value {
    let mut own = object.clone();
    without_allocated(&mut own);
    let object = &own;
    // Content keeps its field names (`spec`, `roleRef`); what is read from elsewhere is named
    // by its path, which no top-level field is.
    let mut fields = serde_json::json!({
        "metadata.labels": object.pointer("/metadata/labels"),
        "metadata.annotations": object.pointer("/metadata/annotations"),
        "status.capacity": object.pointer("/status/capacity"),
        "status.allocatable": object.pointer("/status/allocatable"),
    });
    for (field, value) in object.as_object().into_iter().flatten() {
        if !NOT_CONTENT.contains(&field.as_str()) {
            fields[field] = value.clone();
        }
    }
    fields
}

/// The object as it can be sent back: server-set metadata removed.
pub(super) fn sanitized(resource: &str, object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for key in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "generation",
            "managedFields",
            "selfLink",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        ] {
            metadata.remove(key);
        }
    }
    // Node status is what a kubelet posted (Ready); everything else gets fresh status.
    if resource != "nodes" {
        if let Some(fields) = object.as_object_mut() {
            fields.remove("status");
        }
    }
    without_allocated(&mut object);
    object
}

/// Drops what the server allocated for this very object, which a copy made again gets anew: a
/// Job's generated selector (it names the Job's uid; a Job sent with it is refused, `selector`
/// not auto-generated), a Service's cluster IPs (an update without them keeps the old ones), and
/// the uid of the claim a volume is bound to: a claim made again has a new uid, and a volume
/// still naming the old one is released, never bound to it. Without it the volume is pre-bound
/// to the claim of that name, which the volume controller binds (`syncVolume`,
/// `syncBoundClaim`), as the claim names its volume.
fn without_allocated(object: &mut Value) {
    if object["kind"] == "PersistentVolume" {
        if let Some(claim) = object
            .pointer_mut("/spec/claimRef")
            .and_then(Value::as_object_mut)
        {
            claim.remove("uid");
            claim.remove("resourceVersion");
        }
    }
    // The binder's marks: a claim made again with `bind-completed` would be judged as bound
    // already, and lost, before the volume is bound to it. The binder sets them again.
    if matches!(
        object["kind"].as_str(),
        Some("PersistentVolume" | "PersistentVolumeClaim")
    ) {
        if let Some(annotations) = object
            .pointer_mut("/metadata/annotations")
            .and_then(Value::as_object_mut)
        {
            annotations.remove("pv.kubernetes.io/bind-completed");
            annotations.remove("pv.kubernetes.io/bound-by-controller");
        }
    }
    let manual = object.pointer("/spec/manualSelector") == Some(&Value::Bool(true));
    if object["kind"] == "Job" && !manual {
        if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
            spec.remove("selector");
        }
        if let Some(labels) = object
            .pointer_mut("/spec/template/metadata/labels")
            .and_then(Value::as_object_mut)
        {
            labels.remove("controller-uid");
            labels.remove("batch.kubernetes.io/controller-uid");
        }
    }
    if object["kind"] == "Service" {
        if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
            spec.remove("clusterIP");
            spec.remove("clusterIPs");
        }
    }
}

/// Workloads whose pods follow their template: a Deployment, DaemonSet or StatefulSet rolls
/// them, a ReplicaSet keeps the old ones.
const WORKLOADS: &[&str] = &[
    "daemonsets.apps",
    "deployments.apps",
    "statefulsets.apps",
    "replicasets.apps",
];

/// Whether an object whose [`comparable`] form is `now` can only become `old` by being deleted
/// and made again. A pod's spec, a Job's template, a claim's spec (its requests may only grow,
/// which a restore would undo) and a binding's roleRef cannot be updated. A workload whose spec changed beyond its
/// replica count would roll its pods: a rolling update
/// surges a new pod before an old one goes (`rolloutRolling` in
/// pkg/controller/deployment/rolling.go), so pods that fill a scarce resource (one GPU per node)
/// never make room for it and the rollout never ends; a ReplicaSet would keep its pods from the
/// old template; and most of a StatefulSet's spec is immutable.
pub(super) fn must_recreate(resource: &str, now: &Value, old: &Value) -> bool {
    if resource == "pods" || resource == "jobs.batch" {
        return true;
    }
    if resource == CLAIMS {
        return now["spec"] != old["spec"];
    }
    if resource.ends_with("rolebindings.rbac.authorization.k8s.io") {
        return now["roleRef"] != old["roleRef"];
    }
    let spec_but_replicas = |comparable: &Value| {
        let mut spec = comparable["spec"].clone();
        if let Some(fields) = spec.as_object_mut() {
            fields.remove("replicas");
        }
        spec
    };
    WORKLOADS.contains(&resource) && spec_but_replicas(now) != spec_but_replicas(old)
}
