//! Priority (plugin/pkg/admission/priority `admitPod`): a pod's `priorityClassName` resolved to
//! its `priority` and `preemptionPolicy` on create, and kept on update.

use serde_json::{json, Map, Value};

use crate::defaults::fields::{is_nil, str_of};

/// Built-in priority classes (pkg/apis/scheduling `SystemPriorityClasses`).
const SYSTEM_PRIORITY_CLASSES: &[(&str, i64)] = &[
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];

/// On create; an error is the reason of the Forbidden answer.
pub(super) fn admit_create(pod: &mut Value) -> Result<(), String> {
    let Some(spec) = spec_mut(pod) else {
        return Ok(());
    };
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

/// On update the plugin keeps the priority it set on create; validation refuses any change.
pub(super) fn keep_on_update(pod: &mut Value, old: &Value) {
    let Some(spec) = spec_mut(pod) else {
        return;
    };
    for key in ["priority", "preemptionPolicy"] {
        if is_nil(spec, key) {
            if let Some(v) = old["spec"].get(key).filter(|v| !v.is_null()) {
                spec.insert(key.into(), v.clone());
            }
        }
    }
}

fn spec_mut(pod: &mut Value) -> Option<&mut Map<String, Value>> {
    pod.get_mut("spec").and_then(Value::as_object_mut)
}
