//! Pods and pod templates (k8s.io/kubernetes pkg/apis/core/validation/validation.go:
//! `ValidatePodCreate`, `ValidatePodSpec`, `validateContainers`, `validateContainerCommon`,
//! `ValidateResourceRequirements`, `ValidateTolerations`, `ValidatePodUpdate`).

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::labels::{annotations, label_name, labels};
use super::meta::{object_meta, object_meta_update};
use super::path::{
    duplicate, forbidden, inclusive_range, invalid, not_found, not_supported, required, Path,
};
use super::pod_annotations;
use super::read::{list, s};
use super::resources;
use super::security_context;
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;

/// `ValidatePodCreate`.
pub fn validate_create(pod: &Value) -> Vec<FieldError> {
    let spec = pod.get("spec").unwrap_or(&Value::Null);
    let sp = Path::new("spec");
    let mut errs = object_meta(pod, true, names::name_is_dns_subdomain, true);
    let meta = &pod["metadata"];
    errs.extend(pod_annotations::specific(
        meta,
        spec,
        &Path::of(&["metadata", "annotations"]),
    ));
    errs.extend(pod_spec(spec, &sp));
    errs.extend(containers_only_for_pod(spec, &sp));
    if !list(spec, "ephemeralContainers").is_empty() {
        errs.push(forbidden(
            &sp.child("ephemeralContainers"),
            "cannot be set on create",
        ));
    }
    if !s(spec, "nodeName").is_empty() && !list(spec, "schedulingGates").is_empty() {
        errs.push(forbidden(
            &sp.child("nodeName"),
            "cannot be set until all schedulingGates have been cleared",
        ));
    }
    errs.extend(pod_annotations::match_fields(meta, spec, &sp));
    errs
}

/// `ValidatePodTemplate`: a PodTemplate object (named like a pod).
pub fn pod_template(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    errs.extend(template(&obj["template"], &Path::new("template")));
    errs
}

/// `ValidatePodTemplateUpdate`: the metadata rules of every update, and the template as on
/// create (a PodTemplate's template may change).
pub fn pod_template_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(template(&new["template"], &Path::new("template")));
    errs
}

/// `ValidatePodTemplateSpec` at `p` (`spec.template`): note the labels path is
/// `spec.template.labels`, not `...metadata.labels`, as upstream.
pub fn template(t: &Value, p: &Path) -> Vec<FieldError> {
    let m = t.get("metadata").unwrap_or(&Value::Null);
    let mut errs = labels(m.get("labels"), &p.child("labels"));
    errs.extend(annotations(m.get("annotations"), &p.child("annotations")));
    let spec = t.get("spec").unwrap_or(&Value::Null);
    errs.extend(pod_annotations::specific(m, spec, &p.child("annotations")));
    errs.extend(pod_spec(spec, &p.child("spec")));
    errs.extend(pod_annotations::match_fields(m, spec, &p.child("spec")));
    if !list(spec, "ephemeralContainers").is_empty() {
        errs.push(forbidden(
            &p.child("spec").child("ephemeralContainers"),
            "ephemeral containers not allowed in pod template",
        ));
    }
    errs
}

/// `validateContainersOnlyForPod`.
fn containers_only_for_pod(spec: &Value, sp: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in ["containers", "initContainers"] {
        for (i, c) in list(spec, key).iter().enumerate() {
            let image = s(c, "image");
            if image.len() != image.trim().len() {
                errs.push(invalid(
                    &sp.child(key).index(i).child("image"),
                    go_quote(image),
                    "must not have leading or trailing whitespace",
                ));
            }
        }
    }
    errs
}

/// `ValidatePodSpec`.
pub fn pod_spec(spec: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if spec
        .get("terminationGracePeriodSeconds")
        .is_none_or(Value::is_null)
    {
        errs.push(required(&p.child("terminationGracePeriodSeconds"), ""));
    }
    let (volumes, vol_errs) = volumes(spec, &p.child("volumes"));
    errs.extend(vol_errs);
    errs.extend(containers(spec, &volumes, &p.child("containers")));
    errs.extend(init_containers(spec, &volumes, &p.child("initContainers")));
    errs.extend(ephemeral_containers(
        spec,
        &volumes,
        &p.child("ephemeralContainers"),
    ));
    errs.extend(restart_policy(
        spec.get("restartPolicy"),
        &p.child("restartPolicy"),
    ));
    errs.extend(dns_policy(spec.get("dnsPolicy"), &p.child("dnsPolicy")));
    errs.extend(labels(spec.get("nodeSelector"), &p.child("nodeSelector")));
    errs.extend(security_context::pod(spec, &p.child("securityContext")));
    errs.extend(affinity(spec, &p.child("affinity")));
    let sa = s(spec, "serviceAccountName");
    if !sa.is_empty() {
        for msg in names::name_is_dns_subdomain(sa, false) {
            errs.push(invalid(&p.child("serviceAccountName"), go_quote(sa), msg));
        }
    }
    let node = s(spec, "nodeName");
    if !node.is_empty() {
        for msg in names::name_is_dns_subdomain(node, false) {
            errs.push(invalid(&p.child("nodeName"), go_quote(node), msg));
        }
    }
    if let Some(ads) = spec.get("activeDeadlineSeconds").and_then(Value::as_i64) {
        if !(1..=i64::from(i32::MAX)).contains(&ads) {
            errs.push(invalid(
                &p.child("activeDeadlineSeconds"),
                ads.to_string(),
                inclusive_range(1, i64::from(i32::MAX)),
            ));
        }
    }
    for key in ["hostname", "subdomain"] {
        let v = s(spec, key);
        if !v.is_empty() {
            for msg in names::dns1123_label(v) {
                errs.push(invalid(&p.child(key), go_quote(v), msg));
            }
        }
    }
    errs.extend(tolerations(
        list(spec, "tolerations"),
        &p.child("tolerations"),
    ));
    let pc = s(spec, "priorityClassName");
    if !pc.is_empty() {
        for msg in names::name_is_dns_subdomain(pc, false) {
            errs.push(invalid(&p.child("priorityClassName"), go_quote(pc), msg));
        }
    }
    if let Some(policy) = spec.get("preemptionPolicy").and_then(Value::as_str) {
        if policy != "PreemptLowerPriority" && policy != "Never" {
            errs.push(not_supported(
                &p.child("preemptionPolicy"),
                go_quote(policy),
                &["Never", "PreemptLowerPriority"],
            ));
        }
    }
    if let Some(overhead) = spec.get("overhead") {
        errs.extend(resources::requirements(
            &serde_json::json!({ "limits": overhead }),
            &p.child("overhead"),
        ));
    }
    errs
}

/// `ValidateVolumes`: names are DNS labels and unique. Returns the valid volume names.
fn volumes(spec: &Value, p: &Path) -> (HashSet<String>, Vec<FieldError>) {
    let mut names_ok = HashSet::new();
    let mut errs = Vec::new();
    for (i, v) in list(spec, "volumes").iter().enumerate() {
        let np = p.index(i).child("name");
        let name = s(v, "name");
        let mut el = Vec::new();
        if name.is_empty() {
            el.push(required(&np, ""));
        } else {
            for msg in names::dns1123_label(name) {
                el.push(invalid(&np, go_quote(name), msg));
            }
        }
        if names_ok.contains(name) {
            el.push(duplicate(&np, go_quote(name)));
        }
        if el.is_empty() {
            names_ok.insert(name.to_string());
        } else {
            errs.extend(el);
        }
    }
    (names_ok, errs)
}

/// `validateContainers`.
fn containers(spec: &Value, volumes: &HashSet<String>, p: &Path) -> Vec<FieldError> {
    let items = list(spec, "containers");
    if items.is_empty() {
        return vec![required(p, "")];
    }
    let mut errs = Vec::new();
    let mut seen = HashSet::new();
    for (i, c) in items.iter().enumerate() {
        let cp = p.index(i);
        errs.extend(container_common(c, volumes, &cp));
        let name = s(c, "name");
        if !seen.insert(name.to_string()) {
            errs.push(duplicate(&cp.child("name"), go_quote(name)));
        }
        for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
            if let Some(pr) = c.get(probe).filter(|v| v.is_object()) {
                errs.extend(probe_checks(pr, &cp.child(probe)));
            }
        }
        if c.get("restartPolicy").is_some_and(|v| !v.is_null()) {
            errs.push(forbidden(
                &cp.child("restartPolicy"),
                "may not be set for non-init containers",
            ));
        }
    }
    errs
}

/// `validateInitContainers`: names unique across all containers; sidecars (`restartPolicy:
/// Always`) may have probes, other init containers may not.
fn init_containers(spec: &Value, volumes: &HashSet<String>, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen: HashSet<String> = list(spec, "containers")
        .iter()
        .map(|c| s(c, "name").to_string())
        .collect();
    for (i, c) in list(spec, "initContainers").iter().enumerate() {
        let cp = p.index(i);
        errs.extend(container_common(c, volumes, &cp));
        let name = s(c, "name");
        if seen.contains(name) {
            errs.push(duplicate(&cp.child("name"), go_quote(name)));
        }
        if !name.is_empty() {
            seen.insert(name.to_string());
        }
        match c.get("restartPolicy").and_then(Value::as_str) {
            None => {
                for key in [
                    "lifecycle",
                    "livenessProbe",
                    "readinessProbe",
                    "startupProbe",
                ] {
                    if c.get(key).is_some_and(|v| !v.is_null()) {
                        errs.push(forbidden(
                            &cp.child(key),
                            "may not be set for init containers without restartPolicy=Always",
                        ));
                    }
                }
            }
            Some("Always") => {}
            Some(other) => errs.push(not_supported(
                &cp.child("restartPolicy"),
                go_quote(other),
                &["Always"],
            )),
        }
    }
    errs
}

/// The fields of `EphemeralContainerCommon` outside `allowedEphemeralContainerFields`, in the
/// struct's order (`validateFieldAllowList` reports them so).
const NOT_FOR_EPHEMERAL_CONTAINERS: &[&str] = &[
    "ports",
    "resources",
    "resizePolicy",
    "restartPolicy",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
];

/// `validateEphemeralContainers`: each as a pod's container (`validateContainerCommon`,
/// `validateContainerOnlyForPod`), named uniquely across every kind of container, targeting a
/// container that is not ephemeral, with none of the fields that would make it part of the
/// workload.
fn ephemeral_containers(spec: &Value, volumes: &HashSet<String>, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let others: HashSet<&str> = list(spec, "containers")
        .iter()
        .chain(list(spec, "initContainers"))
        .map(|c| s(c, "name"))
        .collect();
    let mut all: HashSet<&str> = others.clone();
    for (i, c) in list(spec, "ephemeralContainers").iter().enumerate() {
        let cp = p.index(i);
        errs.extend(container_common(c, volumes, &cp));
        let image = s(c, "image");
        if image.len() != image.trim().len() {
            errs.push(invalid(
                &cp.child("image"),
                go_quote(image),
                "must not have leading or trailing whitespace",
            ));
        }
        let name = s(c, "name");
        if !all.insert(name) {
            errs.push(duplicate(&cp.child("name"), go_quote(name)));
        }
        let target = s(c, "targetContainerName");
        if !target.is_empty() && !others.contains(target) {
            errs.push(not_found(
                &cp.child("targetContainerName"),
                go_quote(target),
            ));
        }
        for key in NOT_FOR_EPHEMERAL_CONTAINERS {
            if !is_go_zero(key, c.get(*key)) {
                errs.push(forbidden(
                    &cp.child(key),
                    "cannot be set for an Ephemeral Container",
                ));
            }
        }
        for (j, mount) in list(c, "volumeMounts").iter().enumerate() {
            for key in ["subPath", "subPathExpr"] {
                if !s(mount, key).is_empty() {
                    errs.push(forbidden(
                        &cp.child("volumeMounts").index(j).child(key),
                        "cannot be set for an Ephemeral Container",
                    ));
                }
            }
        }
    }
    errs
}

/// Whether a field of `EphemeralContainerCommon` holds its Go zero value, as
/// `reflect.DeepEqual` with the zero value sees it: the pointers and slices (`ports`, the probes,
/// `lifecycle`, `restartPolicy`, `resizePolicy`) only when nil — an empty list or object sent is
/// not nil —, the `resources` struct when none of its members is set.
fn is_go_zero(key: &str, v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) if key == "resources" => m.values().all(Value::is_null),
        Some(_) => false,
    }
}

/// `validateContainerCommon`.
fn container_common(c: &Value, volumes: &HashSet<String>, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name = s(c, "name");
    if name.is_empty() {
        errs.push(required(&p.child("name"), ""));
    } else {
        for msg in names::dns1123_label(name) {
            errs.push(invalid(&p.child("name"), go_quote(name), msg));
        }
    }
    if s(c, "image").is_empty() {
        errs.push(required(&p.child("image"), ""));
    }
    match s(c, "terminationMessagePolicy") {
        "File" | "FallbackToLogsOnError" => {}
        "" => errs.push(required(&p.child("terminationMessagePolicy"), "")),
        other => errs.push(not_supported(
            &p.child("terminationMessagePolicy"),
            go_quote(other),
            &["File", "FallbackToLogsOnError"],
        )),
    }
    errs.extend(ports(c, &p.child("ports")));
    errs.extend(env(c, &p.child("env")));
    errs.extend(volume_mounts(c, volumes, &p.child("volumeMounts")));
    match s(c, "imagePullPolicy") {
        "Always" | "IfNotPresent" | "Never" => {}
        "" => errs.push(required(&p.child("imagePullPolicy"), "")),
        other => errs.push(not_supported(
            &p.child("imagePullPolicy"),
            go_quote(other),
            &["Always", "IfNotPresent", "Never"],
        )),
    }
    if let Some(r) = c.get("resources") {
        errs.extend(resources::requirements(r, &p.child("resources")));
    }
    let sc = &c["securityContext"];
    errs.extend(security_context::container(sc, &p.child("securityContext")));
    errs
}

/// `validateContainerPorts`.
fn ports(c: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen = HashSet::new();
    for (i, port) in list(c, "ports").iter().enumerate() {
        let pp = p.index(i);
        let name = s(port, "name");
        if !name.is_empty() {
            let msgs = port_name(name);
            if !msgs.is_empty() {
                for m in msgs {
                    errs.push(invalid(&pp.child("name"), go_quote(name), m));
                }
            } else if !seen.insert(name.to_string()) {
                errs.push(duplicate(&pp.child("name"), go_quote(name)));
            }
        }
        let container_port = port
            .get("containerPort")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        if container_port == 0 {
            errs.push(required(&pp.child("containerPort"), ""));
        } else if !(1..=65535).contains(&container_port) {
            errs.push(invalid(
                &pp.child("containerPort"),
                container_port.to_string(),
                inclusive_range(1, 65535),
            ));
        }
        let host_port = port.get("hostPort").and_then(Value::as_i64).unwrap_or(0);
        if host_port != 0 && !(1..=65535).contains(&host_port) {
            errs.push(invalid(
                &pp.child("hostPort"),
                host_port.to_string(),
                inclusive_range(1, 65535),
            ));
        }
        match s(port, "protocol") {
            "TCP" | "UDP" | "SCTP" => {}
            "" => errs.push(required(&pp.child("protocol"), "")),
            other => errs.push(not_supported(
                &pp.child("protocol"),
                go_quote(other),
                &["SCTP", "TCP", "UDP"],
            )),
        }
    }
    errs
}

/// `IsValidPortName`.
pub(super) fn port_name(name: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if name.len() > 15 {
        errs.push(names::max_len_error(15));
    }
    if !name
        .bytes()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
    {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".into());
    }
    if !name.bytes().any(|c| c.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".into());
    }
    if name.contains("--") {
        errs.push("must not contain consecutive hyphens".into());
    }
    if name.starts_with('-') || name.ends_with('-') {
        errs.push("must not begin or end with a hyphen".into());
    }
    errs
}

/// `ValidateEnv` (relaxed names, on by default since 1.32).
fn env(c: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, e) in list(c, "env").iter().enumerate() {
        let ep = p.index(i);
        let name = s(e, "name");
        if name.is_empty() {
            errs.push(required(&ep.child("name"), ""));
        } else if name
            .chars()
            .any(|ch| (ch as u32) > 127 || (ch as u32) < 32 || ch == '=')
        {
            errs.push(invalid(
                &ep.child("name"),
                go_quote(name),
                "a valid environment variable name must consist only of printable ASCII characters other than '='",
            ));
        }
    }
    errs
}

/// `ValidateVolumeMounts`: the volume must exist, paths are required and unique.
fn volume_mounts(c: &Value, volumes: &HashSet<String>, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut paths = HashSet::new();
    for (i, m) in list(c, "volumeMounts").iter().enumerate() {
        let mp = p.index(i);
        let name = s(m, "name");
        if name.is_empty() {
            errs.push(required(&mp.child("name"), ""));
        }
        if !volumes.contains(name) {
            errs.push(not_found(&mp.child("name"), go_quote(name)));
        }
        let path = s(m, "mountPath");
        if path.is_empty() {
            errs.push(required(&mp.child("mountPath"), ""));
        }
        if !paths.insert(path.to_string()) {
            errs.push(invalid(
                &mp.child("mountPath"),
                go_quote(path),
                "must be unique",
            ));
        }
    }
    errs
}

/// Probe fields that must be non-negative / positive (`validateProbe`).
fn probe_checks(pr: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in [
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
    ] {
        errs.extend(super::path::nonnegative(
            pr.get(key).and_then(Value::as_i64),
            &p.child(key),
        ));
    }
    errs
}

/// `validateRestartPolicy`.
pub fn restart_policy(v: Option<&Value>, p: &Path) -> Vec<FieldError> {
    match v.and_then(Value::as_str).unwrap_or("") {
        "Always" | "OnFailure" | "Never" => Vec::new(),
        "" => vec![required(p, "")],
        other => vec![not_supported(
            p,
            go_quote(other),
            &["Always", "OnFailure", "Never"],
        )],
    }
}

/// `validateDNSPolicy`.
fn dns_policy(v: Option<&Value>, p: &Path) -> Vec<FieldError> {
    match v.and_then(Value::as_str).unwrap_or("") {
        "ClusterFirstWithHostNet" | "ClusterFirst" | "Default" | "None" => Vec::new(),
        "" => vec![required(p, "")],
        other => vec![not_supported(
            p,
            go_quote(other),
            &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
        )],
    }
}

/// Node affinity terms (`validateNodeSelector`, `ValidateNodeSelectorRequirement`).
fn affinity(spec: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(required_sel) = spec
        .get("affinity")
        .and_then(|a| a.get("nodeAffinity"))
        .and_then(|n| n.get("requiredDuringSchedulingIgnoredDuringExecution"))
        .filter(|r| r.is_object())
    else {
        return errs;
    };
    let rp = p
        .child("nodeAffinity")
        .child("requiredDuringSchedulingIgnoredDuringExecution");
    let terms = list(required_sel, "nodeSelectorTerms");
    if terms.is_empty() {
        errs.push(required(
            &rp.child("nodeSelectorTerms"),
            "must have at least one node selector term",
        ));
    }
    for (i, term) in terms.iter().enumerate() {
        let tp = rp.child("nodeSelectorTerms").index(i);
        for (j, r) in list(term, "matchExpressions").iter().enumerate() {
            let ep = tp.child("matchExpressions").index(j);
            let n = list(r, "values").len();
            match s(r, "operator") {
                "In" | "NotIn" if n == 0 => errs.push(required(
                    &ep.child("values"),
                    "must be specified when `operator` is 'In' or 'NotIn'",
                )),
                "Exists" | "DoesNotExist" if n > 0 => errs.push(forbidden(
                    &ep.child("values"),
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                )),
                "Gt" | "Lt" if n != 1 => errs.push(required(
                    &ep.child("values"),
                    "must be specified single value when `operator` is 'Lt' or 'Gt'",
                )),
                "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
                other => errs.push(invalid(
                    &ep.child("operator"),
                    go_quote(other),
                    "not a valid selector operator",
                )),
            }
            errs.extend(label_name(s(r, "key"), &ep.child("key")));
        }
    }
    errs
}

/// `ValidateTolerations`.
pub fn tolerations(items: &[Value], p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, t) in items.iter().enumerate() {
        let tp = p.index(i);
        let key = s(t, "key");
        let op = s(t, "operator");
        let effect = s(t, "effect");
        if !key.is_empty() {
            errs.extend(label_name(key, &tp.child("key")));
        }
        if key.is_empty() && op != "Exists" {
            errs.push(invalid(
                &tp.child("operator"),
                go_quote(op),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if t.get("tolerationSeconds").is_some_and(|v| !v.is_null()) && effect != "NoExecute" {
            errs.push(invalid(
                &tp.child("effect"),
                go_quote(effect),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match op {
            "Equal" | "" => {
                let value = s(t, "value");
                let msgs = names::label_value(value);
                if !msgs.is_empty() {
                    errs.push(invalid(
                        &tp.child("operator"),
                        go_quote(value),
                        msgs.join(";"),
                    ));
                }
            }
            "Exists" => {
                if !s(t, "value").is_empty() {
                    errs.push(invalid(
                        &tp.child("operator"),
                        go_syntax::toleration(t),
                        "value must be empty when `operator` is 'Exists'",
                    ));
                }
            }
            other => errs.push(not_supported(
                &tp.child("operator"),
                go_quote(other),
                &["Equal", "Exists"],
            )),
        }
        if !effect.is_empty() {
            errs.extend(taint_effect(effect, &tp.child("effect")));
        }
    }
    errs
}

/// `validateTaintEffect` for a non-empty effect.
pub fn taint_effect(effect: &str, p: &Path) -> Vec<FieldError> {
    match effect {
        "NoSchedule" | "PreferNoSchedule" | "NoExecute" => Vec::new(),
        other => vec![not_supported(
            p,
            go_quote(other),
            &["NoSchedule", "PreferNoSchedule", "NoExecute"],
        )],
    }
}

/// The fields `ValidatePodUpdate` lets change.
const UPDATABLE: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// `ValidatePodUpdate`.
pub fn validate_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let sp = Path::new("spec");
    errs.extend(metadata_and_spec(new));
    let (ns, os) = (
        new.get("spec").unwrap_or(&Value::Null),
        old.get("spec").unwrap_or(&Value::Null),
    );

    for key in ["containers", "initContainers"] {
        let (n, o) = (list(ns, key), list(os, key));
        if n.len() != o.len() {
            errs.push(forbidden(
                &sp.child(key),
                "pod updates may not add or remove containers",
            ));
            return errs;
        }
        for (i, c) in n.iter().enumerate() {
            let image = s(c, "image");
            if image.is_empty() {
                errs.push(required(&sp.child(key).index(i).child("image"), ""));
            }
        }
    }

    let new_ads = ns.get("activeDeadlineSeconds").and_then(Value::as_i64);
    let old_ads = os.get("activeDeadlineSeconds").and_then(Value::as_i64);
    match (new_ads, old_ads) {
        (Some(n), _) if !(0..=i64::from(i32::MAX)).contains(&n) => {
            errs.push(invalid(
                &sp.child("activeDeadlineSeconds"),
                n.to_string(),
                inclusive_range(0, i64::from(i32::MAX)),
            ));
            return errs;
        }
        (Some(n), Some(o)) if o < n => {
            errs.push(invalid(
                &sp.child("activeDeadlineSeconds"),
                n.to_string(),
                "must be less than or equal to previous value",
            ));
            return errs;
        }
        (None, Some(_)) => errs.push(invalid(
            &sp.child("activeDeadlineSeconds"),
            go_syntax::NULL,
            "must not update from a positive integer to nil value",
        )),
        _ => {}
    }

    errs.extend(only_added_tolerations(
        list(ns, "tolerations"),
        list(os, "tolerations"),
        &sp.child("tolerations"),
    ));

    let munged = munge_spec(ns, os);
    if !semantic_eq(&munged, os) {
        errs.push(forbidden(
            &sp,
            format!(
                "pod updates may not change fields other than {UPDATABLE}\n{}",
                struct_diff("core.PodSpec", os, &munged)
            ),
        ));
    }
    errs
}

/// `validatePodMetadataAndSpec`.
fn metadata_and_spec(pod: &Value) -> Vec<FieldError> {
    let spec = pod.get("spec").unwrap_or(&Value::Null);
    let sp = Path::new("spec");
    let mut errs = object_meta(pod, true, names::name_is_dns_subdomain, true);
    let meta = &pod["metadata"];
    errs.extend(pod_annotations::specific(
        meta,
        spec,
        &Path::of(&["metadata", "annotations"]),
    ));
    errs.extend(pod_spec(spec, &sp));
    errs.extend(containers_only_for_pod(spec, &sp));
    errs
}

/// `ValidatePodEphemeralContainersUpdate`: the pod as any update sees it, then the ephemeral
/// containers it had, each still there and unchanged (a patch may reorder them). A static pod
/// takes none.
pub fn validate_ephemeral_containers_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(metadata_and_spec(new));
    if old["metadata"]["annotations"]
        .get("kubernetes.io/config.mirror")
        .is_some()
    {
        return vec![forbidden(
            &Path::new(""),
            "static pods do not support ephemeral containers",
        )];
    }
    let path = Path::new("spec").child("ephemeralContainers");
    let new_containers = list(&new["spec"], "ephemeralContainers");
    for old_container in list(&old["spec"], "ephemeralContainers") {
        let name = s(old_container, "name");
        match new_containers.iter().find(|c| s(c, "name") == name) {
            None => errs.push(forbidden(
                &path,
                format!(
                    "existing ephemeral containers {} may not be removed\n",
                    go_quote(name)
                ),
            )),
            Some(new_container) if !semantic_eq(old_container, new_container) => {
                errs.push(forbidden(
                    &path,
                    format!(
                        "existing ephemeral containers {} may not be changed\n{}",
                        go_quote(name),
                        struct_diff("core.EphemeralContainer", old_container, new_container)
                    ),
                ))
            }
            Some(_) => {}
        }
    }
    errs
}

/// `validateOnlyAddedTolerations`.
fn only_added_tolerations(new: &[Value], old: &[Value], p: &Path) -> Vec<FieldError> {
    let strip = |t: &Value| {
        let mut t = t.clone();
        if let Some(m) = t.as_object_mut() {
            m.remove("tolerationSeconds");
        }
        t
    };
    for o in old {
        if !new.iter().any(|n| strip(n) == strip(o)) {
            return vec![forbidden(
                p,
                "existing toleration can not be modified except its tolerationSeconds",
            )];
        }
    }
    tolerations(new, p)
}

/// The new spec with the updatable fields taken from the old one.
fn munge_spec(new: &Value, old: &Value) -> Value {
    let mut m = new.clone();
    let Some(map) = m.as_object_mut() else {
        return m;
    };
    for key in ["containers", "initContainers"] {
        if let (Some(Value::Array(nc)), Some(oc)) =
            (map.get_mut(key), old.get(key).and_then(Value::as_array))
        {
            for (c, o) in nc.iter_mut().zip(oc) {
                if let (Some(c), Some(img)) = (c.as_object_mut(), o.get("image")) {
                    c.insert("image".into(), img.clone());
                }
            }
        }
    }
    for key in ["activeDeadlineSeconds", "schedulingGates", "tolerations"] {
        match old.get(key) {
            Some(v) => {
                map.insert(key.into(), v.clone());
            }
            None => {
                map.remove(key);
            }
        }
    }
    let old_grace = old
        .get("terminationGracePeriodSeconds")
        .and_then(Value::as_i64);
    if old_grace.is_some_and(|g| g < 0)
        && map
            .get("terminationGracePeriodSeconds")
            .and_then(Value::as_i64)
            == Some(1)
    {
        map.insert(
            "terminationGracePeriodSeconds".into(),
            Value::from(old_grace),
        );
    }
    m
}

/// `apiequality.Semantic.DeepEqual` on JSON: absent, null and empty collections are equal.
pub fn semantic_eq(a: &Value, b: &Value) -> bool {
    fn empty(v: Option<&Value>) -> bool {
        match v {
            None | Some(Value::Null) => true,
            Some(Value::Object(m)) => m.is_empty(),
            Some(Value::Array(a)) => a.is_empty(),
            _ => false,
        }
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: HashSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().all(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => semantic_eq(p, q),
                (p, q) => empty(p) && empty(q),
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| semantic_eq(p, q))
        }
        (Value::Null, other) | (other, Value::Null) => empty(Some(other)),
        _ => a == b,
    }
}

/// A short `cmp.Diff(old, new)`-style listing of the fields of a struct (`type_name`) that
/// differ. Upstream's output (go-cmp) is deliberately unstable; only its shape is imitated.
fn struct_diff(type_name: &str, old: &Value, new: &Value) -> String {
    let empty = Map::new();
    let (o, n) = (
        old.as_object().unwrap_or(&empty),
        new.as_object().unwrap_or(&empty),
    );
    let mut keys: Vec<&String> = o.keys().chain(n.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut lines = vec![format!("  {type_name}{{")];
    let mut same = 0;
    for k in keys {
        let (a, b) = (o.get(k), n.get(k));
        let equal = match (a, b) {
            (Some(a), Some(b)) => semantic_eq(a, b),
            _ => semantic_eq(a.unwrap_or(&Value::Null), b.unwrap_or(&Value::Null)),
        };
        if equal {
            same += 1;
            continue;
        }
        let field = go_field_name(k);
        if let Some(a) = a {
            lines.push(format!("- \t{field}: {a},"));
        }
        if let Some(b) = b {
            lines.push(format!("+ \t{field}: {b},"));
        }
    }
    if same > 0 {
        lines.insert(1, format!("  \t... // {same} identical fields"));
    }
    lines.push("  }".into());
    lines.join("\n")
}

fn go_field_name(json: &str) -> String {
    match json {
        "dnsPolicy" => "DNSPolicy".into(),
        "dnsConfig" => "DNSConfig".into(),
        "hostPID" => "HostPID".into(),
        "hostIPC" => "HostIPC".into(),
        "os" => "OS".into(),
        other => {
            let mut c = other.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect(),
                None => String::new(),
            }
        }
    }
}

/// `ValidatePodStatusUpdate` (the parts that concern what a status write may change).
pub fn validate_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let node = |v: &Value| {
        v.get("spec")
            .map(|sp| s(sp, "nodeName").to_string())
            .unwrap_or_default()
    };
    if node(new) != node(old) {
        errs.push(forbidden(
            &Path::of(&["status", "nodeName"]),
            "may not be changed directly",
        ));
    }
    let nominated = new
        .get("status")
        .map(|st| s(st, "nominatedNodeName"))
        .unwrap_or("");
    if !nominated.is_empty() {
        for msg in names::name_is_dns_subdomain(nominated, false) {
            errs.push(invalid(
                &Path::of(&["status", "nominatedNodeName"]),
                go_quote(nominated),
                msg,
            ));
        }
    }
    errs
}
