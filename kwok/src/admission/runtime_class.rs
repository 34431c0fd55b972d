//! RuntimeClass (plugin/pkg/admission/runtimeclass), on pod creation: a pod naming a
//! RuntimeClass must find it, and takes its fixed overhead, node selector and tolerations
//! (`Admit`); a pod's overhead must be its RuntimeClass's (`Validate`).

use serde_json::{Map, Value};

use super::Client;
use crate::meta::restore;
use crate::quantity::parse_list;
use crate::registry::RUNTIMECLASSES;

/// The RuntimeClass a pod names, if it names one; an error is the reason of the Forbidden answer
/// (`prepareObjects`).
fn runtime_class_of(api: &dyn Client, pod: &Value) -> Result<Option<Value>, String> {
    let Some(name) = pod["spec"]["runtimeClassName"].as_str() else {
        return Ok(None);
    };
    match api.store().get(&RUNTIMECLASSES, "", name) {
        Some(found) => Ok(Some(found.value.clone())),
        None => Err(format!("pod rejected: RuntimeClass {name:?} not found")),
    }
}

/// `apiequality.Semantic.DeepEqual` of two resource lists: the same names, quantities equal by
/// value; an absent list is nil.
fn same_resources(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a.filter(|v| !v.is_null()), b.filter(|v| !v.is_null())) {
        (None, None) => true,
        (Some(a), Some(b)) => crate::quota::equals(&parse_list(a), &parse_list(b)),
        _ => false,
    }
}

const OVERHEAD_MISMATCH: &str =
    "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";

/// `Admit`: `setOverhead`, then `setScheduling`.
pub(super) fn admit(api: &dyn Client, pod: &mut Value) -> Result<(), String> {
    let Some(class) = runtime_class_of(api, pod)? else {
        return Ok(());
    };
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    if let Some(overhead) = class.get("overhead").filter(|o| o.is_object()) {
        let fixed = overhead.get("podFixed").filter(|f| !f.is_null());
        let pod_has = spec
            .get("overhead")
            .and_then(Value::as_object)
            .is_some_and(|o| !o.is_empty());
        if pod_has && !same_resources(fixed, spec.get("overhead")) {
            return Err(OVERHEAD_MISMATCH.into());
        }
        restore(spec, "overhead", fixed);
    }
    if let Some(scheduling) = class.get("scheduling").filter(|s| s.is_object()) {
        schedule(spec, scheduling)?;
    }
    Ok(())
}

/// `setScheduling`: the class's node selector added to the pod's (a key the pod gives another
/// value is a conflict), and the two toleration lists merged.
fn schedule(spec: &mut Map<String, Value>, scheduling: &Value) -> Result<(), String> {
    let class_selector = scheduling["nodeSelector"].as_object();
    let selector = match (
        spec.get("nodeSelector").and_then(Value::as_object),
        class_selector,
    ) {
        (None, class) => class.cloned(),
        (Some(pod), class) => {
            let mut merged = pod.clone();
            for (key, class_value) in class.into_iter().flatten() {
                if let Some(pod_value) = pod.get(key).filter(|v| *v != class_value) {
                    return Err(format!(
                        "conflict: runtimeClass.scheduling.nodeSelector[{key}] = {}; pod.spec.nodeSelector[{key}] = {}",
                        class_value.as_str().unwrap_or(""),
                        pod_value.as_str().unwrap_or("")
                    ));
                }
                merged.insert(key.clone(), class_value.clone());
            }
            Some(merged)
        }
    };
    restore(spec, "nodeSelector", selector.map(Value::Object).as_ref());
    let none = Vec::new();
    let pods = spec
        .get("tolerations")
        .and_then(Value::as_array)
        .unwrap_or(&none);
    let class = scheduling["tolerations"].as_array().unwrap_or(&none);
    let merged = merge_tolerations(pods, class);
    let merged = (!merged.is_empty()).then_some(Value::Array(merged));
    restore(spec, "tolerations", merged.as_ref());
    Ok(())
}

/// `Validate`: `validateOverhead`.
pub(super) fn validate(api: &dyn Client, pod: &Value) -> Result<(), String> {
    let class = runtime_class_of(api, pod)?;
    let pod_overhead = pod["spec"].get("overhead").filter(|o| !o.is_null());
    let class_overhead = class
        .as_ref()
        .and_then(|c| c.get("overhead"))
        .filter(|o| o.is_object());
    match class_overhead {
        Some(overhead) if !same_resources(overhead.get("podFixed"), pod_overhead) => {
            Err(OVERHEAD_MISMATCH.into())
        }
        None if pod_overhead.is_some() => Err(
            "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
                .into(),
        ),
        _ => Ok(()),
    }
}

/// A toleration's fields as `api.Toleration` holds them (an absent string is empty).
#[derive(PartialEq)]
struct Toleration<'a> {
    key: &'a str,
    operator: &'a str,
    value: &'a str,
    effect: &'a str,
    seconds: Option<i64>,
}

impl<'a> Toleration<'a> {
    fn of(t: &'a Value) -> Self {
        let s = |k: &str| t[k].as_str().unwrap_or("");
        Toleration {
            key: s("key"),
            operator: s("operator"),
            value: s("value"),
            effect: s("effect"),
            seconds: t["tolerationSeconds"].as_i64(),
        }
    }

    /// `isSuperset`: does `self` tolerate everything `t` does?
    fn is_superset_of(&self, t: &Toleration) -> bool {
        if self == t {
            return true;
        }
        if t.key != self.key && (!self.key.is_empty() || self.operator != "Exists") {
            return false;
        }
        if t.effect != self.effect && !self.effect.is_empty() {
            return false;
        }
        if self.effect == "NoExecute" {
            if let Some(limit) = self.seconds {
                if t.seconds.is_none_or(|s| s > limit) {
                    return false;
                }
            }
        }
        match self.operator {
            "Equal" | "" => t.operator == "Equal" && t.value == self.value,
            "Exists" => true,
            _ => false,
        }
    }
}

/// `tolerations.MergeTolerations`: both lists, without a toleration another one already covers
/// (of two equal ones, the first stays).
fn merge_tolerations(first: &[Value], second: &[Value]) -> Vec<Value> {
    let all: Vec<&Value> = first.iter().chain(second).collect();
    let mut merged: Vec<&Value> = Vec::new();
    for (i, t) in all.iter().enumerate() {
        let this = Toleration::of(t);
        if merged
            .iter()
            .any(|m| Toleration::of(m).is_superset_of(&this))
        {
            continue;
        }
        let covered_later = all[i + 1..].iter().any(|later| {
            let later = Toleration::of(later);
            later != this && later.is_superset_of(&this)
        });
        if !covered_later {
            merged.push(t);
        }
    }
    merged.into_iter().cloned().collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::merge_tolerations;

    /// The tolerations of `TestMergeTolerations` (pkg/util/tolerations/tolerations_test.go).
    fn toleration(name: &str) -> serde_json::Value {
        match name {
            "all" => json!({"operator": "Exists"}),
            "foo-nosched" => json!({"key": "foo", "operator": "Exists", "effect": "NoSchedule"}),
            "foo-bar-nosched" => {
                json!({"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"})
            }
            "foo-baz-nosched" => {
                json!({"key": "foo", "operator": "Equal", "value": "baz", "effect": "NoSchedule"})
            }
            "faz-baz-nosched" => {
                json!({"key": "faz", "operator": "Equal", "value": "baz", "effect": "NoSchedule"})
            }
            "foo-prefnosched" => {
                json!({"key": "foo", "operator": "Exists", "effect": "PreferNoSchedule"})
            }
            "foo-noexec-10" => json!({"key": "foo", "operator": "Exists", "effect": "NoExecute",
                "tolerationSeconds": 10}),
            other => panic!("no toleration {other}"),
        }
    }

    /// `TestMergeTolerations`, case by case.
    #[test]
    fn tolerations_merge_as_upstream_merges_them() {
        type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [&'a str]);
        let cases: [Case; 5] = [
            (
                "disjoint",
                &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
                &["foo-prefnosched", "foo-baz-nosched"],
                &[
                    "foo-bar-nosched",
                    "faz-baz-nosched",
                    "foo-noexec-10",
                    "foo-prefnosched",
                    "foo-baz-nosched",
                ],
            ),
            (
                "duplicate",
                &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
                &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
                &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
            ),
            (
                "merge redundant",
                &["foo-bar-nosched", "foo-baz-nosched"],
                &["foo-nosched", "faz-baz-nosched"],
                &["foo-nosched", "faz-baz-nosched"],
            ),
            (
                "merge all",
                &["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"],
                &["all"],
                &["all"],
            ),
            (
                "merge into all",
                &["all"],
                &["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"],
                &["all"],
            ),
        ];
        let of = |names: &[&str]| names.iter().map(|n| toleration(n)).collect::<Vec<_>>();
        for (name, a, b, expected) in cases {
            assert_eq!(merge_tolerations(&of(a), &of(b)), of(expected), "{name}");
        }
    }
}
