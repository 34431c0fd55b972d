//! The resources the embedded API server serves, as discovery describes them.
//!
//! One static table: discovery, routing, error messages and printing all read it, so a resource is
//! added in exactly one place.

/// Verbs of a full read-write resource.
pub const FULL_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];
const STATUS_VERBS: &[&str] = &["get", "patch", "update"];

/// A subresource served under `<resource>/<name>/<sub>`.
#[derive(Debug)]
pub struct SubresourceDef {
    pub name: &'static str,
    pub kind: &'static str,
    /// Group and version of the subresource kind when it differs from the parent (eviction, scale).
    pub group: &'static str,
    pub version: &'static str,
    pub verbs: &'static [&'static str],
}

/// Static description of one served resource.
#[derive(Debug)]
pub struct ResourceDef {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    pub namespaced: bool,
    pub short_names: &'static [&'static str],
    pub categories: &'static [&'static str],
    pub verbs: &'static [&'static str],
    pub subresources: &'static [SubresourceDef],
}

/// Resource definitions are statics: two are the same resource when they are the same static.
impl PartialEq for ResourceDef {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for ResourceDef {}

impl ResourceDef {
    /// `apps/v1`, or `v1` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `daemonsets.apps`, or `pods` for the core group (the NotFound message prefix).
    pub fn group_resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// `DaemonSet.apps`, or `Pod` for the core group (the Invalid message prefix).
    pub fn group_kind(&self) -> String {
        if self.group.is_empty() {
            self.kind.to_string()
        } else {
            format!("{}.{}", self.kind, self.group)
        }
    }

    pub fn has_verb(&self, verb: &str) -> bool {
        self.verbs.contains(&verb)
    }

    pub fn subresource(&self, name: &str) -> Option<&'static SubresourceDef> {
        self.subresources.iter().find(|s| s.name == name)
    }

    /// URL prefix of the group version (`/api/v1`, `/apis/apps/v1`).
    pub fn gv_path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// Is this the Kind (and apiVersion) a request body for this resource may carry?
    pub fn is(&self, group: &str, kind: &str) -> bool {
        self.group == group && self.kind == kind
    }
}

const fn status(kind: &'static str) -> SubresourceDef {
    SubresourceDef {
        name: "status",
        kind,
        group: "",
        version: "",
        verbs: STATUS_VERBS,
    }
}

const fn scale() -> SubresourceDef {
    SubresourceDef {
        name: "scale",
        kind: "Scale",
        group: "autoscaling",
        version: "v1",
        verbs: STATUS_VERBS,
    }
}

macro_rules! res {
    ($group:expr, $version:expr, $kind:expr, $plural:expr, $singular:expr, $namespaced:expr,
     short: [$($short:expr),*], cat: [$($cat:expr),*], verbs: $verbs:expr, sub: [$($sub:expr),*]) => {
        ResourceDef {
            group: $group,
            version: $version,
            kind: $kind,
            plural: $plural,
            singular: $singular,
            namespaced: $namespaced,
            short_names: &[$($short),*],
            categories: &[$($cat),*],
            verbs: $verbs,
            subresources: &[$($sub),*],
        }
    };
}

pub static NAMESPACES: ResourceDef = res!("", "v1", "Namespace", "namespaces", "namespace", false,
    short: ["ns"], cat: [], verbs: &["create", "delete", "get", "list", "patch", "update", "watch"],
    sub: [status("Namespace"), SubresourceDef { name: "finalize", kind: "Namespace", group: "", version: "", verbs: &["update"] }]);
pub static NODES: ResourceDef = res!("", "v1", "Node", "nodes", "node", false,
    short: ["no"], cat: [], verbs: FULL_VERBS, sub: [status("Node")]);
pub static PODS: ResourceDef = res!("", "v1", "Pod", "pods", "pod", true,
short: ["po"], cat: ["all"], verbs: FULL_VERBS,
sub: [
    status("Pod"),
    SubresourceDef { name: "binding", kind: "Binding", group: "", version: "", verbs: &["create"] },
    SubresourceDef { name: "eviction", kind: "Eviction", group: "policy", version: "v1", verbs: &["create"] },
    SubresourceDef { name: "log", kind: "Pod", group: "", version: "", verbs: &["get"] }
]);
pub static BINDINGS: ResourceDef = res!("", "v1", "Binding", "bindings", "binding", true,
    short: [], cat: [], verbs: &["create"], sub: []);
pub static EVENTS: ResourceDef = res!("", "v1", "Event", "events", "event", true,
    short: ["ev"], cat: [], verbs: FULL_VERBS, sub: []);
pub static CONFIGMAPS: ResourceDef = res!("", "v1", "ConfigMap", "configmaps", "configmap", true,
    short: ["cm"], cat: [], verbs: FULL_VERBS, sub: []);
pub static SECRETS: ResourceDef = res!("", "v1", "Secret", "secrets", "secret", true,
    short: [], cat: [], verbs: FULL_VERBS, sub: []);
pub static SERVICEACCOUNTS: ResourceDef = res!("", "v1", "ServiceAccount", "serviceaccounts", "serviceaccount", true,
    short: ["sa"], cat: [], verbs: FULL_VERBS, sub: []);
pub static DEPLOYMENTS: ResourceDef = res!("apps", "v1", "Deployment", "deployments", "deployment", true,
    short: ["deploy"], cat: ["all"], verbs: FULL_VERBS, sub: [status("Deployment"), scale()]);
pub static REPLICASETS: ResourceDef = res!("apps", "v1", "ReplicaSet", "replicasets", "replicaset", true,
    short: ["rs"], cat: ["all"], verbs: FULL_VERBS, sub: [status("ReplicaSet"), scale()]);
pub static DAEMONSETS: ResourceDef = res!("apps", "v1", "DaemonSet", "daemonsets", "daemonset", true,
    short: ["ds"], cat: ["all"], verbs: FULL_VERBS, sub: [status("DaemonSet")]);
pub static CONTROLLERREVISIONS: ResourceDef = res!("apps", "v1", "ControllerRevision", "controllerrevisions", "controllerrevision", true,
    short: [], cat: [], verbs: FULL_VERBS, sub: []);
pub static PODDISRUPTIONBUDGETS: ResourceDef = res!("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget", true,
    short: ["pdb"], cat: [], verbs: FULL_VERBS, sub: [status("PodDisruptionBudget")]);
pub static LEASES: ResourceDef = res!("coordination.k8s.io", "v1", "Lease", "leases", "lease", true,
    short: [], cat: [], verbs: FULL_VERBS, sub: []);
pub static EVENTS_V1: ResourceDef = res!("events.k8s.io", "v1", "Event", "events", "event", true,
    short: ["ev"], cat: [], verbs: FULL_VERBS, sub: []);

/// Every served resource, in discovery order.
pub static RESOURCES: &[&ResourceDef] = &[
    &BINDINGS,
    &CONFIGMAPS,
    &EVENTS,
    &NAMESPACES,
    &NODES,
    &PODS,
    &SECRETS,
    &SERVICEACCOUNTS,
    &CONTROLLERREVISIONS,
    &DAEMONSETS,
    &DEPLOYMENTS,
    &REPLICASETS,
    &PODDISRUPTIONBUDGETS,
    &LEASES,
    &EVENTS_V1,
];

/// API groups in discovery order, with their single served version.
pub static GROUPS: &[(&str, &str)] = &[
    ("apps", "v1"),
    ("events.k8s.io", "v1"),
    ("policy", "v1"),
    ("coordination.k8s.io", "v1"),
];

/// Look a resource up by group, version and plural name.
pub fn find(group: &str, version: &str, plural: &str) -> Option<&'static ResourceDef> {
    RESOURCES
        .iter()
        .copied()
        .find(|r| r.group == group && r.version == version && r.plural == plural)
}

/// Look a resource up by group and Kind (for bodies and owner references).
pub fn by_kind(group: &str, kind: &str) -> Option<&'static ResourceDef> {
    RESOURCES
        .iter()
        .copied()
        .find(|r| r.group == group && r.kind == kind && !std::ptr::eq(*r, &BINDINGS))
}

/// Resources of one group version.
pub fn in_group_version<'a>(
    group: &'a str,
    version: &'a str,
) -> impl Iterator<Item = &'static ResourceDef> + 'a {
    RESOURCES
        .iter()
        .copied()
        .filter(move |r| r.group == group && r.version == version)
}

/// The resource a kubectl resource argument names (`pods`, `po`, `pod`, `Pod`, `ds.apps`,
/// `daemonsets.v1.apps`), as kubectl's REST mapper resolves it: plural, singular, short name
/// or kind, case-insensitive, optionally qualified by `group` or `version.group`; the core group
/// wins a tie (`events`). Subresources and served-elsewhere resources give `None`.
pub fn resolve(arg: &str) -> Option<&'static ResourceDef> {
    let arg = arg.to_ascii_lowercase();
    let (name, qualifier) = match arg.split_once('.') {
        Some((name, rest)) => (name, Some(rest)),
        None => (arg.as_str(), None),
    };
    RESOURCES.iter().copied().find(|r| {
        !std::ptr::eq(*r, &BINDINGS)
            && (r.plural == name
                || r.singular == name
                || r.short_names.contains(&name)
                || r.kind.eq_ignore_ascii_case(name))
            && match qualifier {
                None => true,
                Some(q) => q == r.group || q == format!("{}.{}", r.version, r.group),
            }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_apimachinery() {
        assert_eq!(DAEMONSETS.group_resource(), "daemonsets.apps");
        assert_eq!(PODS.group_resource(), "pods");
        assert_eq!(DAEMONSETS.group_kind(), "DaemonSet.apps");
        assert_eq!(PODDISRUPTIONBUDGETS.api_version(), "policy/v1");
        assert!(find("apps", "v1", "daemonsets").is_some());
        assert!(std::ptr::eq(by_kind("", "Pod").unwrap(), &PODS));
    }

    #[test]
    fn kubectl_resource_arguments() {
        let is = |arg: &str, want: &ResourceDef| {
            assert!(
                resolve(arg).is_some_and(|r| std::ptr::eq(r, want)),
                "{arg} → {:?}",
                resolve(arg).map(ResourceDef::group_resource)
            )
        };
        is("pods", &PODS);
        is("po", &PODS);
        is("Pod", &PODS);
        is("ds", &DAEMONSETS);
        is("daemonset.apps", &DAEMONSETS);
        is("daemonsets.v1.apps", &DAEMONSETS);
        is("pdb", &PODDISRUPTIONBUDGETS);
        is("events", &EVENTS);
        is("events.events.k8s.io", &EVENTS_V1);
        assert!(resolve("daemonsets.v2.apps").is_none());
        assert!(resolve("pods.apps").is_none());
        assert!(resolve("bindings").is_none());
        assert!(resolve("widgets").is_none());
    }
}
