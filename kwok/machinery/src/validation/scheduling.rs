//! PriorityClasses (k8s.io/kubernetes pkg/apis/scheduling/validation/validation.go).

use serde_json::Value;

use super::meta::{object_meta, object_meta_update};
use super::path::{forbidden, invalid, not_supported, Path, IMMUTABLE};
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;

/// `scheduling.SystemPriorityClassPrefix`.
pub const SYSTEM_PREFIX: &str = "system-";

/// `SystemPriorityClasses`: name, value, description.
pub const SYSTEM_CLASSES: &[(&str, i64, &str)] = &[
    (
        "system-node-critical",
        2_000_001_000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    (
        "system-cluster-critical",
        2_000_000_000,
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ),
];

/// `scheduling.HighestUserDefinablePriority`.
const HIGHEST_USER_DEFINABLE: i64 = 1_000_000_000;

/// `IsKnownSystemPriorityClass`.
fn known_system_class(name: &str, value: i64, global_default: bool) -> Result<(), String> {
    let Some((_, expected, _)) = SYSTEM_CLASSES.iter().find(|(n, _, _)| *n == name) else {
        return Err(format!("{name} is not a known system priority class"));
    };
    if value != *expected {
        return Err(format!("value of {name} PriorityClass must be {expected}"));
    }
    if global_default {
        return Err(format!(
            "globalDefault of {name} PriorityClass must be false"
        ));
    }
    Ok(())
}

/// `ValidatePriorityClass`.
pub fn priority_class(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_subdomain, true);
    let name = crate::meta::name(obj);
    let value = obj["value"].as_i64().unwrap_or(0);
    if name.starts_with(SYSTEM_PREFIX) {
        if let Err(e) = known_system_class(name, value, obj["globalDefault"] == true) {
            errs.push(forbidden(
                &Path::of(&["metadata", "name"]),
                format!("priority class names with '{SYSTEM_PREFIX}' prefix are reserved for system use only. error: {e}"),
            ));
        }
    } else if value > HIGHEST_USER_DEFINABLE {
        errs.push(forbidden(
            &Path::new("value"),
            format!("maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE}"),
        ));
    }
    if let Some(policy) = obj["preemptionPolicy"].as_str() {
        // `ValidatePreemptionPolicy` lists them in this order.
        const POLICIES: &[&str] = &["PreemptLowerPriority", "Never"];
        if !POLICIES.contains(&policy) {
            errs.push(not_supported(
                &Path::new("preemptionPolicy"),
                go_quote(policy),
                POLICIES,
            ));
        }
    }
    errs
}

/// `ValidatePriorityClassUpdate`: value and preemption policy cannot change.
pub fn priority_class_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, false);
    if new["value"].as_i64() != old["value"].as_i64() {
        errs.push(forbidden(
            &Path::new("value"),
            "may not be changed in an update.",
        ));
    }
    if new["preemptionPolicy"] != old["preemptionPolicy"] {
        let shown = new["preemptionPolicy"]
            .as_str()
            .map_or(go_syntax::NULL.to_string(), go_quote);
        errs.push(invalid(&Path::new("preemptionPolicy"), shown, IMMUTABLE));
    }
    errs
}

#[cfg(test)]
mod tests {
    use crate::validation::messages;
    use serde_json::json;

    use super::*;

    fn class(name: &str, value: i64) -> Value {
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value, "preemptionPolicy": "PreemptLowerPriority"})
    }

    #[test]
    fn user_classes_stay_below_a_billion_and_off_the_system_prefix() {
        assert!(priority_class(&class("gpu-batch", 1000)).is_empty());
        assert_eq!(
            messages(priority_class(&class("too-high", 2_000_000_000))),
            ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
        );
        assert_eq!(
            messages(priority_class(&class("system-mine", 10))),
            ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"]
        );
        assert!(priority_class(&class("system-node-critical", 2_000_001_000)).is_empty());
        let mut odd = class("odd-policy", 5);
        odd["preemptionPolicy"] = json!("Sometimes");
        assert_eq!(
            messages(priority_class(&odd)),
            [
                r#"preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never""#
            ]
        );
    }

    #[test]
    fn value_and_preemption_policy_cannot_change() {
        let mut old = class("gpu-batch", 1000);
        old["metadata"]["resourceVersion"] = json!("7");
        let mut new = old.clone();
        new["value"] = json!(2000);
        new["preemptionPolicy"] = json!("Never");
        assert_eq!(
            messages(priority_class_update(&new, &old)),
            [
                "value: Forbidden: may not be changed in an update.",
                r#"preemptionPolicy: Invalid value: "Never": field is immutable"#,
            ]
        );
    }
}
