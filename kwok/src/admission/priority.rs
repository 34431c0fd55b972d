//! Priority (plugin/pkg/admission/priority): a pod's `priorityClassName` resolved to its
//! `priority` and `preemptionPolicy` on create (`admitPod`), kept on update; and at most one
//! PriorityClass marked `globalDefault` (`validatePriorityClass`).

use serde_json::{json, Map, Value};

use super::Client;
use crate::defaults::fields::{is_nil, str_of};
use crate::meta;
use crate::registry;

/// `getDefaultPriorityClass`: of the classes marked globalDefault, the one of lowest value.
fn default_class(api: &dyn Client) -> Option<Value> {
    let (classes, _) = api.store().list(&registry::PRIORITYCLASSES, None);
    classes
        .into_iter()
        .map(|c| c.value.clone())
        .filter(|c| c["globalDefault"] == true)
        .min_by_key(|c| c["value"].as_i64().unwrap_or(0))
}

/// A PriorityClass write: refused when another class is the global default already.
pub(super) fn admit_class(api: &dyn Client, class: &Value, creating: bool) -> Result<(), String> {
    if class["globalDefault"] != true {
        return Ok(());
    }
    match default_class(api) {
        Some(existing) if creating || meta::name(&existing) != meta::name(class) => Err(format!(
            "PriorityClass {} is already marked as default. Only one default can exist",
            meta::name(&existing)
        )),
        _ => Ok(()),
    }
}

/// On create; an error is the reason of the Forbidden answer.
pub(super) fn admit_create(api: &dyn Client, pod: &mut Value) -> Result<(), String> {
    let Some(spec) = spec_mut(pod) else {
        return Ok(());
    };
    let class_name = str_of(spec, "priorityClassName").to_string();
    let class = if class_name.is_empty() {
        let found = default_class(api);
        if let Some(c) = &found {
            spec.insert("priorityClassName".into(), json!(meta::name(c)));
        }
        found
    } else {
        match api.store().get(&registry::PRIORITYCLASSES, "", &class_name) {
            Some(c) => Some(c.value.clone()),
            None => return Err(format!("no PriorityClass with name {class_name} was found")),
        }
    };
    let value = class
        .as_ref()
        .and_then(|c| c["value"].as_i64())
        .unwrap_or(0);
    if let Some(given) = spec.get("priority").and_then(Value::as_i64) {
        if given != value {
            return Err(format!(
                "the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {value} from the given PriorityClass name"
            ));
        }
    }
    spec.insert("priority".into(), json!(value));
    let policy = class
        .as_ref()
        .and_then(|c| c["preemptionPolicy"].as_str())
        .unwrap_or("PreemptLowerPriority");
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
