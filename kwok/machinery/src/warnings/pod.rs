//! `GetWarningsForPod` and `GetWarningsForPodTemplate` (`pkg/api/pod/warnings.go`), and the
//! name warning of the kinds whose name becomes a pod's hostname or prefix.

use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use super::{fractional_bytes, node, set, storage, under};
use crate::error::go_quote;
use crate::validation::path::Path;
use crate::validation::pod_annotations::{APPARMOR_CONTAINER, SECCOMP_CONTAINER, SECCOMP_POD};
use crate::validation::read::containers_with_path as containers;

/// The pod strategy's `WarningsOnCreate` (pods are warned of on create only: an update is
/// mostly a controller's).
pub fn pod_on_create(pod: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    let msgs = crate::names::dns1123_label(crate::meta::name(pod));
    if !msgs.is_empty() {
        warnings.push(format!(
            "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [{}]",
            msgs.join(" ")
        ));
    }
    warnings.extend(spec_and_meta(None, &pod["spec"], &pod["metadata"]));
    warnings
}

/// The name warning of Deployments, ReplicaSets, ReplicationControllers, Jobs and CronJobs,
/// whose names go into their pods' names and hostnames.
pub fn workload_name(obj: &Value) -> Option<String> {
    let msgs = crate::names::dns1123_label(crate::meta::name(obj));
    (!msgs.is_empty()).then(|| {
        format!(
            "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [{}]",
            msgs.join(" ")
        )
    })
}

/// The `WarningsOnCreate` of Deployments, ReplicaSets and ReplicationControllers: their name,
/// then their `spec.template`.
pub fn workload_on_create(obj: &Value) -> Vec<String> {
    let mut warnings: Vec<String> = workload_name(obj).into_iter().collect();
    warnings.extend(spec_template(obj));
    warnings
}

/// `GetWarningsForPodTemplate` for the template at `path`.
pub fn template(template: &Value, path: &Path) -> Vec<String> {
    spec_and_meta(Some(path), &template["spec"], &template["metadata"])
}

/// A workload's `WarningsOnCreate` beyond its name: its `spec.template`.
pub fn spec_template(obj: &Value) -> Vec<String> {
    template(&obj["spec"]["template"], &Path::of(&["spec", "template"]))
}

/// A workload's `WarningsOnUpdate`: its template's warnings when the update changed the spec
/// (a new generation), none for a status or metadata change.
pub fn spec_template_on_update(new: &Value, old: &Value) -> Vec<String> {
    if crate::meta::generation(new) == crate::meta::generation(old) {
        return Vec::new();
    }
    spec_template(new)
}

/// `deprecatedAnnotations` of pods: non-functional annotations with their replacement.
const DEPRECATED_ANNOTATIONS: &[(&str, &str)] = &[
    (
        "scheduler.alpha.kubernetes.io/critical-pod",
        r#"non-functional in v1.16+; use the "priorityClassName" field instead"#,
    ),
    (
        "security.alpha.kubernetes.io/sysctls",
        r#"non-functional in v1.11+; use the "sysctls" field instead"#,
    ),
    (
        "security.alpha.kubernetes.io/unsafe-sysctls",
        r#"non-functional in v1.11+; use the "sysctls" field instead"#,
    ),
];

/// Volume plugins that are deprecated or gone, with what their warning says.
const DEPRECATED_VOLUMES: &[(&str, &str)] = &[
    (
        "photonPersistentDisk",
        "deprecated in v1.11, non-functional in v1.16+",
    ),
    ("gitRepo", "deprecated in v1.11"),
    ("scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
];

const NULL_SELECTOR: &str = "a null labelSelector results in matching no pod";

/// `warningsForPodSpecAndMeta`: `root` is `None` for a pod, the template's path otherwise.
fn spec_and_meta(root: Option<&Path>, spec: &Value, meta: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    let at = |parts: &[&str]| under(root, parts);
    let annotations = &meta["annotations"];
    let annotated = |key: &str| annotations.get(key).is_some();

    warnings.extend(node::selector_map(
        &spec["nodeSelector"],
        &at(&["spec", "nodeSelector"]),
    ));
    let node_affinity = &spec["affinity"]["nodeAffinity"];
    let required = at(&[
        "spec",
        "affinity",
        "nodeAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms",
    ]);
    let terms =
        &node_affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
    for (i, term) in items(terms) {
        warnings.extend(node::selector_term(term, &required.index(i)));
    }
    let preferred = at(&[
        "spec",
        "affinity",
        "nodeAffinity",
        "preferredDuringSchedulingIgnoredDuringExecution",
    ]);
    for (i, term) in items(&node_affinity["preferredDuringSchedulingIgnoredDuringExecution"]) {
        let path = preferred.index(i).child("preference");
        warnings.extend(node::selector_term(&term["preference"], &path));
    }
    let spread = at(&["spec", "topologySpreadConstraints"]);
    for (i, c) in items(&spec["topologySpreadConstraints"]) {
        let key = c["topologyKey"].as_str().unwrap_or_default();
        if let Some(msg) = node::deprecated_label(key) {
            let path = spread.index(i).child("topologyKey");
            warnings.push(format!("{}: {key} is {msg}", path.as_str()));
        }
        if !set(c, "labelSelector") {
            let path = spread.index(i).child("labelSelector");
            warnings.push(format!("{}: {NULL_SELECTOR}", path.as_str()));
        }
    }

    let annotation_path = at(&["metadata", "annotations"]);
    for (key, message) in DEPRECATED_ANNOTATIONS {
        if annotated(key) {
            warnings.push(format!("{}: {message}", annotation_path.key(key).as_str()));
        }
    }

    let volumes = at(&["spec", "volumes"]);
    for (i, v) in items(&spec["volumes"]) {
        for (plugin, message) in DEPRECATED_VOLUMES {
            if set(v, plugin) {
                warnings.push(format!(
                    "{}: {message}",
                    volumes.index(i).child(plugin).as_str()
                ));
            }
        }
        if set(&v["ephemeral"], "volumeClaimTemplate") {
            let path = volumes
                .index(i)
                .child("ephemeral")
                .child("volumeClaimTemplate")
                .child("spec");
            warnings.extend(storage::claim_spec(
                &v["ephemeral"]["volumeClaimTemplate"]["spec"],
                &path,
            ));
        }
        for (plugin, message) in [
            ("cephfs", "deprecated in v1.28, non-functional in v1.31+"),
            ("rbd", "deprecated in v1.28, non-functional in v1.31+"),
        ] {
            if set(v, plugin) {
                warnings.push(format!(
                    "{}: {message}",
                    volumes.index(i).child(plugin).as_str()
                ));
            }
        }
    }
    warnings.extend(overlapping_paths(&spec["volumes"]));

    let aliases = at(&["spec", "hostAliases"]);
    warnings.extend(duplicates(&spec["hostAliases"], "ip", |i, ip| {
        format!(
            "{}: duplicate ip {}",
            aliases.index(i).child("ip").as_str(),
            go_quote(ip)
        )
    }));
    let pull_secrets = at(&["spec", "imagePullSecrets"]);
    warnings.extend(duplicates(&spec["imagePullSecrets"], "name", |i, name| {
        let path = pull_secrets.index(i).child("name");
        format!("{}: duplicate name {}", path.as_str(), go_quote(name))
    }));
    for (i, s) in items(&spec["imagePullSecrets"]) {
        let name = s["name"].as_str().unwrap_or_default();
        if name.is_empty() {
            let path = pull_secrets.index(i).child("name");
            warnings.push(format!("{}: invalid empty name \"\"", path.as_str()));
        }
    }

    let overhead = at(&["spec", "overhead"]);
    for resource in ["memory", "ephemeral-storage"] {
        let path = overhead.key(resource);
        warnings.extend(fractional_bytes(&path, spec["overhead"].get(resource)));
    }

    let pod_seccomp = &spec["securityContext"]["seccompProfile"];
    if pod_seccomp.is_null() && annotated(SECCOMP_POD) {
        let path = annotation_path.key(SECCOMP_POD);
        warnings.push(format!(
            r#"{}: non-functional in v1.27+; use the "seccompProfile" field instead"#,
            path.as_str()
        ));
    }
    let pod_apparmor = set(&spec["securityContext"], "appArmorProfile");
    let spec_path = at(&["spec"]);
    for (c, path) in containers(spec, &spec_path) {
        let name = c["name"].as_str().unwrap_or_default();
        let context = &c["securityContext"];
        let seccomp_key = format!("{SECCOMP_CONTAINER}{name}");
        if !set(context, "seccompProfile") && annotated(&seccomp_key) {
            warnings.push(format!(
                r#"{}: non-functional in v1.27+; use the "seccompProfile" field instead"#,
                annotation_path.key(&seccomp_key).as_str()
            ));
        }
        // Upstream warns of a pod's AppArmor annotations where it syncs them with the fields on
        // create (`applyAppArmorVersionSkew`, not done here); templates are warned of here.
        let apparmor_key = format!("{APPARMOR_CONTAINER}{name}");
        let has_apparmor_field = pod_apparmor || set(context, "appArmorProfile");
        if root.is_some() && !has_apparmor_field && annotated(&apparmor_key) {
            warnings.push(format!(
                r#"{}: deprecated since v1.30; use the "appArmorProfile" field instead"#,
                annotation_path.key(&apparmor_key).as_str()
            ));
        }
        let resources = &c["resources"];
        let resources_path = path.child("resources");
        for resource in ["memory", "ephemeral-storage"] {
            for side in ["limits", "requests"] {
                let at = resources_path.child(side).key(resource);
                warnings.extend(fractional_bytes(&at, resources[side].get(resource)));
            }
        }
        warnings.extend(hidden_env(&c["env"], &path.child("env")));
    }
    warnings.extend(port_conflicts(spec, &spec_path));

    if spec["terminationGracePeriodSeconds"]
        .as_i64()
        .is_some_and(|s| s < 0)
    {
        warnings.push(format!(
            "{}: must be >= 0; negative values are invalid and will be treated as 1",
            at(&["spec", "terminationGracePeriodSeconds"]).as_str()
        ));
    }

    for kind in ["podAffinity", "podAntiAffinity"] {
        let affinity = &spec["affinity"][kind];
        if affinity.is_null() {
            continue;
        }
        let required = at(&[
            "spec",
            "affinity",
            kind,
            "requiredDuringSchedulingIgnoredDuringExecution",
        ]);
        for (i, term) in items(&affinity["requiredDuringSchedulingIgnoredDuringExecution"]) {
            if !set(term, "labelSelector") {
                let path = required.index(i).child("labelSelector");
                warnings.push(format!("{}: {NULL_SELECTOR}", path.as_str()));
            }
        }
        let preferred = at(&[
            "spec",
            "affinity",
            kind,
            "preferredDuringSchedulingIgnoredDuringExecution",
        ]);
        for (i, term) in items(&affinity["preferredDuringSchedulingIgnoredDuringExecution"]) {
            if !set(&term["podAffinityTerm"], "labelSelector") {
                let path = preferred
                    .index(i)
                    .child("podAffinityTerm")
                    .child("labelSelector");
                warnings.push(format!("{}: {NULL_SELECTOR}", path.as_str()));
            }
        }
    }
    warnings
}

fn items(list: &Value) -> impl Iterator<Item = (usize, &Value)> {
    list.as_array().into_iter().flatten().enumerate()
}

/// A warning for each item whose `field` repeats an earlier item's.
fn duplicates(list: &Value, field: &str, warn: impl Fn(usize, &str) -> String) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut warnings = Vec::new();
    for (i, item) in items(list) {
        let value = item[field].as_str().unwrap_or_default();
        if !seen.insert(value) {
            warnings.push(warn(i, value));
        }
    }
    warnings
}

/// A container's env entries that redefine an earlier name in a way `kubectl apply` may drop:
/// from a `valueFrom`, or with a value that does not refer to the earlier one (`$(NAME)`), or
/// is nothing but that reference.
fn hidden_env(env: &Value, path: &Path) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut warnings = Vec::new();
    for (i, e) in items(env) {
        let name = e["name"].as_str().unwrap_or_default();
        if seen.insert(name) {
            continue;
        }
        let value = e["value"].as_str().unwrap_or_default();
        let reference = format!("$({name})");
        if set(e, "valueFrom") || value == reference || !value.contains(&reference) {
            warnings.push(format!(
                "{}: hides previous definition of {}, which may be dropped when using apply",
                path.index(i).as_str(),
                go_quote(name)
            ));
        }
    }
    warnings
}

/// A container port as the warnings read it.
struct Port<'a> {
    path: Path,
    host_ip: &'a str,
    host_port: i64,
}

/// Ports of all containers that repeat, overlap or ambiguously share a container port and
/// protocol, and host IPs without a host port.
fn port_conflicts(spec: &Value, spec_path: &Path) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut by_port: BTreeMap<String, Vec<Port>> = BTreeMap::new();
    for (c, path) in containers(spec, spec_path) {
        for (i, p) in items(&c["ports"]) {
            let port = Port {
                path: path.child("ports").index(i),
                host_ip: p["hostIP"].as_str().unwrap_or_default(),
                host_port: p["hostPort"].as_i64().unwrap_or(0),
            };
            if !port.host_ip.is_empty() && port.host_port == 0 {
                warnings.push(format!(
                    "{}: hostIP set without hostPort: {}",
                    port.path.as_str(),
                    go_port(p)
                ));
            }
            let key = format!(
                "{}/{}",
                p["containerPort"].as_i64().unwrap_or(0),
                p["protocol"].as_str().unwrap_or_default()
            );
            let others = by_port.entry(key).or_default();
            for other in others.iter() {
                let with = other.path.as_str();
                let (a, b) = (port.host_ip.is_empty(), other.host_ip.is_empty());
                if port.host_ip == other.host_ip && port.host_port == other.host_port {
                    warnings.push(format!(
                        "{}: duplicate port definition with {with}",
                        port.path.as_str()
                    ));
                } else if port.host_port == 0 || other.host_port == 0 {
                    warnings.push(format!(
                        "{}: overlapping port definition with {with}",
                        port.path.as_str()
                    ));
                } else if port.host_port == other.host_port && (a || b) && !(a && b) {
                    warnings.push(format!(
                        "{}: dangerously ambiguous port definition with {with}",
                        port.path.as_str()
                    ));
                }
            }
            others.push(port);
        }
    }
    warnings
}

/// Go's `%+v` of the internal `core.ContainerPort`.
fn go_port(p: &Value) -> String {
    format!(
        "{{Name:{} HostPort:{} ContainerPort:{} Protocol:{} HostIP:{}}}",
        p["name"].as_str().unwrap_or_default(),
        p["hostPort"].as_i64().unwrap_or(0),
        p["containerPort"].as_i64().unwrap_or(0),
        p["protocol"].as_str().unwrap_or_default(),
        p["hostIP"].as_str().unwrap_or_default()
    )
}

/// A file a volume projects and where it comes from, for the overlap warnings
/// (`pathAndSource`).
#[derive(Clone, PartialEq)]
struct Projected {
    path: String,
    source: String,
}

impl std::fmt::Display for Projected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.source.is_empty() {
            write!(f, "{}", go_quote(&self.path))
        } else {
            write!(f, "{} ({})", go_quote(&self.path), self.source)
        }
    }
}

fn projected_paths(list: &Value, source: &str) -> Vec<Projected> {
    items(list)
        .map(|(_, item)| Projected {
            path: item["path"].as_str().unwrap_or_default().to_string(),
            source: source.to_string(),
        })
        .collect()
}

/// `checkForOverlap`: the earlier paths equal to, inside, or containing `needle`.
fn overlaps<'a>(haystack: &'a [Projected], needle: &Projected) -> Vec<&'a Projected> {
    if needle.path.is_empty() {
        return Vec::new();
    }
    let n = format!("{}/", needle.path);
    haystack
        .iter()
        .filter(|item| {
            let i = format!("{}/", item.path);
            !item.path.is_empty() && (*item == needle || i.starts_with(&n) || n.starts_with(&i))
        })
        .collect()
}

/// `warningsForOverlappingVirtualPaths`: keys of one volume projected onto the same file, or
/// onto a file and a directory holding it.
fn overlapping_paths(volumes: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    for (_, v) in items(volumes) {
        let name = go_quote(v["name"].as_str().unwrap_or_default());
        let warn =
            |desc: &str, body: String| format!("volume {name} ({desc}): overlapping paths: {body}");
        let single = [
            ("configMap", "items", "name", "ConfigMap"),
            ("secret", "items", "secretName", "Secret"),
            ("downwardAPI", "items", "", "DownwardAPI"),
        ];
        for (key, list, named_by, kind) in single {
            let source = &v[key];
            if source.is_null() || source[list].is_null() {
                continue;
            }
            let desc = match named_by {
                "" => kind.to_string(),
                field => format!(
                    "{kind} {}",
                    go_quote(source[field].as_str().unwrap_or_default())
                ),
            };
            let mut seen: Vec<Projected> = Vec::new();
            for mut ps in projected_paths(&source[list], "") {
                ps.path = ps.path.trim_end_matches('/').to_string();
                for c in overlaps(&seen, &ps) {
                    warnings.push(warn(&desc, format!("{ps} with {c}")));
                }
                seen.push(ps);
            }
        }
        if v["projected"].is_null() {
            continue;
        }
        let mut seen: Vec<Projected> = Vec::new();
        // Upstream keeps the last source's paths for a source it takes none from (a config map
        // without items), so those are checked again; the same holds here.
        let mut paths: Vec<Projected> = Vec::new();
        for (_, source) in items(&v["projected"]["sources"]) {
            if source
                .as_object()
                .is_none_or(|m| m.values().all(Value::is_null))
            {
                warnings.push(format!("volume {name} (Projected) has no sources provided"));
                continue;
            }
            let quoted = |kind: &str, s: &Value| {
                format!(
                    "{kind} {}",
                    go_quote(s["name"].as_str().unwrap_or_default())
                )
            };
            let taken = if set(&source["configMap"], "items") {
                projected_paths(
                    &source["configMap"]["items"],
                    &quoted("ConfigMap", &source["configMap"]),
                )
            } else if set(&source["secret"], "items") {
                projected_paths(
                    &source["secret"]["items"],
                    &quoted("Secret", &source["secret"]),
                )
            } else if set(&source["downwardAPI"], "items") {
                projected_paths(&source["downwardAPI"]["items"], "DownwardAPI")
            } else if set(source, "serviceAccountToken") {
                vec![Projected {
                    path: source["serviceAccountToken"]["path"]
                        .as_str()
                        .unwrap_or_default()
                        .into(),
                    source: "ServiceAccountToken".into(),
                }]
            } else if set(source, "clusterTrustBundle") {
                let bundle = &source["clusterTrustBundle"];
                let name = bundle["name"]
                    .as_str()
                    .or(bundle["signerName"].as_str())
                    .unwrap_or_default();
                vec![Projected {
                    path: bundle["path"].as_str().unwrap_or_default().into(),
                    source: format!("ClusterTrustBundle {}", go_quote(name)),
                }]
            } else {
                Vec::new()
            };
            if !taken.is_empty() {
                paths = taken;
            }
            for mut ps in paths.iter().cloned() {
                ps.path = ps.path.trim_end_matches('/').to_string();
                for c in overlaps(&seen, &ps) {
                    warnings.push(warn("Projected", format!("{ps} with {c}")));
                }
                seen.push(ps);
            }
        }
    }
    warnings
}
