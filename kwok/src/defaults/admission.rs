//! Mutating admission plugins of kube-apiserver that fill in pod fields (plugin/pkg/admission):
//! ServiceAccount (create), Priority (create/update) and DefaultTolerationSeconds (create/update).
//! They apply to pods only, never to pod templates.
//!
//! Left out: the ServiceAccount plugin's `kube-api-access-*` projected token volume and its
//! mounts, and its check that the service account exists.

// `ApiError` is the crate's Status error; it is returned by value like everywhere else.
#![allow(clippy::result_large_err)]

use serde_json::{json, Map, Value};

use super::fields::{child, each, is_nil, str_of};
use crate::error::ApiError;
use crate::registry::PODS;

/// `DefaultTolerationSeconds` plugin default (`--default-not-ready-toleration-seconds` and
/// `--default-unreachable-toleration-seconds`).
const DEFAULT_TOLERATION_SECONDS: i64 = 300;
const NOT_READY: &str = "node.kubernetes.io/not-ready";
const UNREACHABLE: &str = "node.kubernetes.io/unreachable";

/// Built-in priority classes (pkg/apis/scheduling `SystemPriorityClasses`).
const SYSTEM_PRIORITY_CLASSES: &[(&str, i64)] = &[
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];

/// Run the plugins on a pod being created (`old = None`) or updated. Errors are the Forbidden
/// answers of the Priority plugin.
pub fn admit_pod(pod: &mut Value, old: Option<&Value>) -> Result<(), ApiError> {
    let name = pod["metadata"]["name"].as_str().unwrap_or("").to_string();
    let mirror = pod["metadata"]["annotations"]
        .get("kubernetes.io/config.mirror")
        .is_some();
    let old_spec = old.and_then(|o| o.get("spec"));
    let Some(spec) = pod.as_object_mut().and_then(|p| child(p, "spec")) else {
        return Ok(());
    };
    match old_spec {
        None => {
            if !mirror && str_of(spec, "serviceAccountName").is_empty() {
                spec.insert("serviceAccountName".into(), json!("default"));
                spec.insert("serviceAccount".into(), json!("default"));
            }
            priority(spec).map_err(|why| ApiError::forbidden(&PODS, &name, &why))?;
        }
        Some(old_spec) => {
            // The plugin keeps the priority it set on create.
            for key in ["priority", "preemptionPolicy"] {
                if is_nil(spec, key) {
                    if let Some(v) = old_spec.get(key).filter(|v| !v.is_null()) {
                        spec.insert(key.into(), v.clone());
                    }
                }
            }
        }
    }
    default_toleration_seconds(spec);
    Ok(())
}

/// The Priority plugin on create: resolve `priorityClassName` to `priority`.
fn priority(spec: &mut Map<String, Value>) -> Result<(), String> {
    let class = str_of(spec, "priorityClassName").to_string();
    let value = if class.is_empty() {
        // No global default class exists in a fresh cluster.
        0
    } else {
        match SYSTEM_PRIORITY_CLASSES.iter().find(|(n, _)| *n == class) {
            Some((_, v)) => *v,
            None => return Err(format!("no PriorityClass with name {class} was found")),
        }
    };
    if let Some(given) = spec.get("priority").and_then(Value::as_i64) {
        if given != value {
            return Err(format!(
                "the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {value} from the given PriorityClass name"
            ));
        }
    }
    spec.insert("priority".into(), json!(value));
    let policy = "PreemptLowerPriority";
    if let Some(given) = spec.get("preemptionPolicy").and_then(Value::as_str) {
        if given != policy {
            return Err(format!(
                "the string value of PreemptionPolicy ({given}) must not be provided in pod spec; priority admission controller computed {policy} from the given PriorityClass name"
            ));
        }
    }
    spec.insert("preemptionPolicy".into(), json!(policy));
    Ok(())
}

/// `DefaultTolerationSeconds`: tolerate not-ready and unreachable nodes for 300s unless the pod
/// already tolerates them (an empty key or effect matches too).
fn default_toleration_seconds(spec: &mut Map<String, Value>) {
    let mut tolerates_not_ready = false;
    let mut tolerates_unreachable = false;
    for t in each(spec, "tolerations") {
        let key = str_of(t, "key");
        let effect = str_of(t, "effect");
        let no_execute = effect == "NoExecute" || effect.is_empty();
        tolerates_not_ready |= (key == NOT_READY || key.is_empty()) && no_execute;
        tolerates_unreachable |= (key == UNREACHABLE || key.is_empty()) && no_execute;
    }
    let mut add = Vec::new();
    for (tolerated, key) in [
        (tolerates_not_ready, NOT_READY),
        (tolerates_unreachable, UNREACHABLE),
    ] {
        if !tolerated {
            add.push(json!({
                "key": key,
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": DEFAULT_TOLERATION_SECONDS,
            }));
        }
    }
    if add.is_empty() {
        return;
    }
    let list = spec.entry("tolerations").or_insert_with(|| json!([]));
    if list.is_null() {
        *list = json!([]);
    }
    if let Some(items) = list.as_array_mut() {
        items.extend(add);
    }
}
