//! Which type a body claims to be (`apiVersion`/`kind`), and what the apiserver makes of a body
//! that is not the type the URL serves.
//!
//! The serializer (apimachinery runtime/serializer/json `Decode`) first reads only `apiVersion`
//! and `kind` (`SimpleMetaFactory.Interpret`, plain encoding/json), fills in what is missing from
//! the URL's kind (`gvkWithDefaults`), then decodes into that kind and converts it to the URL's
//! type; the create/update handlers finally check the group/version (`AcceptsGroupVersion`).

use super::json::Val;

/// A group/version/kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl Gvk {
    pub fn new(group: &str, version: &str, kind: &str) -> Self {
        Gvk {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
        }
    }

    /// `schema.GroupVersion.String()`.
    pub fn group_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// The type of the anonymous struct `Interpret` decodes into, as reflect prints it.
const FIND_KIND_TYPE: &str =
    "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }";

/// `SimpleMetaFactory.Interpret`: the body's own apiVersion and kind. The error is the text after
/// `couldn't get version/kind; json parse error: `, or a `ParseGroupVersion` error (`Err(false, ..)`).
pub fn interpret(body: &Val) -> Result<Gvk, (bool, String)> {
    let entries = match body {
        Val::Obj(entries) => entries.as_slice(),
        Val::Null => &[],
        other => {
            return Err((
                true,
                format!(
                    "json: cannot unmarshal {} into Go value of type {FIND_KIND_TYPE}",
                    other.go_kind()
                ),
            ))
        }
    };
    let (mut api_version, mut kind) = (String::new(), String::new());
    let mut first_error: Option<String> = None;
    for (key, val) in entries {
        // Plain encoding/json matches field names case-insensitively.
        let target = if key.eq_ignore_ascii_case("apiVersion") {
            &mut api_version
        } else if key.eq_ignore_ascii_case("kind") {
            &mut kind
        } else {
            continue;
        };
        let field = if key.eq_ignore_ascii_case("kind") {
            "kind"
        } else {
            "apiVersion"
        };
        match val {
            Val::Str(s) => *target = s.clone(),
            Val::Null => {}
            other => {
                first_error.get_or_insert_with(|| {
                    format!(
                        "json: cannot unmarshal {} into Go struct field .{field} of type string",
                        other.go_kind()
                    )
                });
            }
        }
    }
    if let Some(e) = first_error {
        return Err((true, e));
    }
    let (group, version) = parse_group_version(&api_version).map_err(|e| (false, e))?;
    Ok(Gvk {
        group,
        version,
        kind,
    })
}

/// `schema.ParseGroupVersion`.
pub fn parse_group_version(gv: &str) -> Result<(String, String), String> {
    if gv.is_empty() || gv == "/" {
        return Ok((String::new(), String::new()));
    }
    match gv.matches('/').count() {
        0 => Ok((String::new(), gv.to_string())),
        1 => {
            let (g, v) = gv.split_once('/').unwrap_or((gv, ""));
            Ok((g.to_string(), v.to_string()))
        }
        _ => Err(format!("unexpected GroupVersion string: {gv}")),
    }
}

/// `gvkWithDefaults`: fill what the body left out from a default.
pub fn with_defaults(mut actual: Gvk, default: &Gvk) -> Gvk {
    if actual.kind.is_empty() {
        actual.kind = default.kind.clone();
    }
    if actual.version.is_empty() && actual.group.is_empty() {
        actual.group = default.group.clone();
        actual.version = default.version.clone();
    }
    if actual.version.is_empty() && actual.group == default.group {
        actual.version = default.version.clone();
    }
    actual
}

/// The kube-apiserver scheme's name in "not registered" errors.
pub const SCHEME: &str = "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30";

/// Option kinds every group version registers (`metav1.AddToGroupVersion`).
const OPTION_KINDS: &[&str] = &[
    "WatchEvent",
    "ListOptions",
    "GetOptions",
    "DeleteOptions",
    "CreateOptions",
    "UpdateOptions",
    "PatchOptions",
];

/// Group versions the kube-apiserver scheme knows, with their kinds (served or not).
const REGISTERED: &[(&str, &str, &[&str])] = &[
    (
        "",
        "v1",
        &[
            "Binding",
            "ComponentStatus",
            "ConfigMap",
            "Endpoints",
            "Event",
            "LimitRange",
            "List",
            "Namespace",
            "Node",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "Pod",
            "PodTemplate",
            "ReplicationController",
            "ResourceQuota",
            "Secret",
            "Service",
            "ServiceAccount",
            "PodStatusResult",
            "RangeAllocation",
            "SerializedReference",
        ],
    ),
    (
        "apps",
        "v1",
        &[
            "ControllerRevision",
            "DaemonSet",
            "Deployment",
            "ReplicaSet",
            "StatefulSet",
        ],
    ),
    (
        "apps",
        "v1beta1",
        &[
            "ControllerRevision",
            "Deployment",
            "DeploymentRollback",
            "Scale",
            "StatefulSet",
        ],
    ),
    (
        "apps",
        "v1beta2",
        &[
            "ControllerRevision",
            "DaemonSet",
            "Deployment",
            "ReplicaSet",
            "Scale",
            "StatefulSet",
        ],
    ),
    ("policy", "v1", &["Eviction", "PodDisruptionBudget"]),
    ("policy", "v1beta1", &["Eviction", "PodDisruptionBudget"]),
    ("coordination.k8s.io", "v1", &["Lease"]),
    ("coordination.k8s.io", "v1beta1", &["Lease"]),
    ("events.k8s.io", "v1", &["Event"]),
    ("events.k8s.io", "v1beta1", &["Event"]),
    ("autoscaling", "v1", &["HorizontalPodAutoscaler", "Scale"]),
    ("autoscaling", "v2", &["HorizontalPodAutoscaler"]),
    ("batch", "v1", &["CronJob", "Job"]),
    (
        "networking.k8s.io",
        "v1",
        &["Ingress", "IngressClass", "NetworkPolicy"],
    ),
    (
        "rbac.authorization.k8s.io",
        "v1",
        &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
    ),
    ("scheduling.k8s.io", "v1", &["PriorityClass"]),
    ("discovery.k8s.io", "v1", &["EndpointSlice"]),
    ("apiextensions.k8s.io", "v1", &["CustomResourceDefinition"]),
    (
        "authorization.k8s.io",
        "v1",
        &[
            "LocalSubjectAccessReview",
            "SelfSubjectAccessReview",
            "SelfSubjectRulesReview",
            "SubjectAccessReview",
        ],
    ),
    (
        "authentication.k8s.io",
        "v1",
        &["SelfSubjectReview", "TokenRequest", "TokenReview"],
    ),
    (
        "storage.k8s.io",
        "v1",
        &[
            "CSIDriver",
            "CSINode",
            "CSIStorageCapacity",
            "StorageClass",
            "VolumeAttachment",
        ],
    ),
];

/// Is this kind known to the apiserver's scheme (`Scheme.New` succeeds)?
pub fn registered(gvk: &Gvk) -> bool {
    REGISTERED.iter().any(|(g, v, kinds)| {
        *g == gvk.group
            && *v == gvk.version
            && (kinds.contains(&gvk.kind.as_str()) || OPTION_KINDS.contains(&gvk.kind.as_str()))
    })
}

/// The internal (hub) Go type a kind converts to, as `reflect` prints it (`apps.Deployment`).
pub fn internal_type(group: &str, kind: &str) -> String {
    let pkg = match group {
        "" | "events.k8s.io" => "core",
        g => g.split('.').next().unwrap_or(g),
    };
    format!("{pkg}.{kind}")
}

/// The versioned Go type of a registered kind (`v1.Pod`, `v1beta2.Deployment`).
pub fn versioned_type(gvk: &Gvk) -> String {
    format!("{}.{}", gvk.version, gvk.kind)
}
