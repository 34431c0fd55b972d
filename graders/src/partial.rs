//! Partial matching of an expected JSON value against an actual object, for `object` and `manifest`
//! checks.
//!
//! - maps: every expected key must be present in the actual map and match recursively; extra actual
//!   keys are ignored. An expected `null` matches a missing key or a `null` (to state "not set").
//! - lists: order-insensitive subset; each expected item must match a *distinct* actual item (found
//!   with a bipartite matching, so `[{a: 1}, {a: 1, b: 2}]` matches `[{a: 1, b: 2}, {a: 1}]`).
//! - scalars: equal and of the same JSON type: the string `"1"` does not match the number `1`, the
//!   string `"true"` does not match the boolean `true` (the classic unquoted nodeSelector mistake).
//!   Numbers compare by value, so `4` matches `4.0`.
//! - operators: a map whose keys all start with `$` states something about the value in its
//!   place instead of spelling it out (see [`OPERATORS`]); several operators must all hold.
//!
//! Errors name the dotted path (in [`crate::paths`] syntax) and what differed.

use std::cmp::Ordering;

use crate::paths::{push_index, push_key};
use crate::quantity::Amount;
use serde_json::{Map, Value};

/// The operators of an expected value, and what each one asks of the actual value.
pub const OPERATORS: [(&str, &str); 12] = [
    (
        "$exists",
        "true: set (not missing, not null); false: missing or null",
    ),
    (
        "$anyOf",
        "a list of expected values, at least one of which matches",
    ),
    ("$not", "an expected value that must not match"),
    (
        "$gt",
        "a number or quantity above the given one (compared by value: 1Gi = 1024Mi)",
    ),
    ("$gte", "a number or quantity at or above the given one"),
    ("$lt", "a number or quantity below the given one"),
    ("$lte", "a number or quantity at or below the given one"),
    (
        "$quantity",
        "a number or quantity equal by value to the given one (500m = 0.5)",
    ),
    (
        "$regex",
        "a string in which the regular expression finds a match (anchor with ^ and $)",
    ),
    (
        "$yaml",
        "a string holding YAML (or JSON) whose parsed value matches the given one",
    ),
    (
        "$json",
        "a string holding JSON whose parsed value matches the given one",
    ),
    (
        "$len",
        "a list, map or string (missing counts as empty) whose length matches the given value",
    ),
];

/// `Ok(())` when `actual` contains everything in `expected`; otherwise the first difference found.
pub fn matches(expected: &Value, actual: &Value) -> Result<(), String> {
    match_at("", expected, Some(actual))
}

/// Whether `expected` is a well-formed expectation: known operators with operands of the right
/// kind, valid patterns and quantities, no map mixing operators with fields. For checking a
/// scenario when it is loaded rather than when a learner is graded.
pub fn validate(expected: &Value) -> Result<(), String> {
    validate_at("", expected)
}

/// The operators of `expected`, when it is an operator map.
fn operators(expected: &Value) -> Option<&Map<String, Value>> {
    let map = expected.as_object()?;
    (!map.is_empty() && map.keys().all(|key| key.starts_with('$'))).then_some(map)
}

/// `actual` is `None` where the key is missing.
fn match_at(path: &str, expected: &Value, actual: Option<&Value>) -> Result<(), String> {
    if let Some(operators) = operators(expected) {
        return operators
            .iter()
            .try_for_each(|(op, operand)| match_operator(path, op, operand, actual));
    }
    let Some(actual) = actual else {
        return if expected.is_null() {
            Ok(())
        } else {
            Err(format!(
                "{}: missing (expected {})",
                show_path(path),
                brief(expected)
            ))
        };
    };
    match (expected, actual) {
        (Value::Object(want), Value::Object(have)) => {
            want.iter().try_for_each(|(key, want_value)| {
                match_at(&push_key(path, key), want_value, have.get(key))
            })
        }
        (Value::Array(want), Value::Array(have)) => match_list(path, want, have),
        (Value::Number(want), Value::Number(have)) => {
            if numbers_equal(want, have) {
                Ok(())
            } else {
                Err(differs(path, expected, actual))
            }
        }
        (want, have) if kind(want) == kind(have) => {
            if want == have {
                Ok(())
            } else {
                Err(differs(path, expected, actual))
            }
        }
        (Value::Null, _) => Err(format!(
            "{}: expected it not to be set, got {}",
            show_path(path),
            typed(actual)
        )),
        _ => Err(format!(
            "{}: expected {}, got {}",
            show_path(path),
            typed(expected),
            typed(actual)
        )),
    }
}

fn match_operator(
    path: &str,
    op: &str,
    operand: &Value,
    actual: Option<&Value>,
) -> Result<(), String> {
    let at = show_path(path);
    let set = actual.filter(|value| !value.is_null());
    let got = || set.map_or_else(|| "nothing (not set)".to_string(), typed);
    match op {
        "$exists" => match (operand.as_bool(), set) {
            (Some(true), None) => Err(format!("{at}: missing (expected it to be set)")),
            (Some(false), Some(value)) => Err(format!(
                "{at}: expected not to be set, got {}",
                typed(value)
            )),
            (Some(_), _) => Ok(()),
            (None, _) => Err(format!("{at}: $exists takes true or false")),
        },
        "$anyOf" => {
            let alternatives = operand.as_array().map(Vec::as_slice).unwrap_or_default();
            if alternatives
                .iter()
                .any(|alternative| match_at(path, alternative, actual).is_ok())
            {
                return Ok(());
            }
            let shown: Vec<String> = alternatives.iter().map(brief).collect();
            Err(format!(
                "{at}: expected one of {}, got {}",
                shown.join(" or "),
                got()
            ))
        }
        "$not" => match match_at(path, operand, actual) {
            Ok(()) => Err(format!(
                "{at}: expected anything but {}, got {}",
                brief(operand),
                got()
            )),
            Err(_) => Ok(()),
        },
        "$gt" | "$gte" | "$lt" | "$lte" | "$quantity" => {
            let want = Amount::from_json(operand).map_err(|e| format!("{at}: {op}: {e}"))?;
            let holds: fn(Ordering) -> bool = match op {
                "$gt" => Ordering::is_gt,
                "$gte" => Ordering::is_ge,
                "$lt" => Ordering::is_lt,
                "$lte" => Ordering::is_le,
                _ => Ordering::is_eq,
            };
            // In words, the quantity as the scenario wrote it: `4`, `at least 2Gi`.
            let expected = brief(&serde_json::json!({ op: operand }));
            let Some(value) = set else {
                return Err(format!("{at}: missing (expected {expected})"));
            };
            match Amount::from_json(value) {
                Ok(have) if holds(have.cmp(&want)) => Ok(()),
                // Compared by value: the amount as the cluster holds it, unquoted.
                Ok(_) => Err(format!(
                    "{at}: expected {expected}, got {}",
                    crate::shown::amount(value)
                )),
                Err(_) => Err(format!("{at}: expected {expected}, got {}", typed(value))),
            }
        }
        "$regex" => {
            let pattern = operand.as_str().unwrap_or_default();
            let regex = regex::Regex::new(pattern)
                .map_err(|e| format!("{at}: $regex {pattern:?} does not compile: {e}"))?;
            match set {
                Some(Value::String(text)) if regex.is_match(text) => Ok(()),
                Some(Value::String(text)) => Err(format!(
                    "{at}: expected a string matching /{pattern}/, got {}",
                    brief(&Value::String(text.clone()))
                )),
                _ => Err(format!(
                    "{at}: expected a string matching /{pattern}/, got {}",
                    got()
                )),
            }
        }
        "$yaml" | "$json" => {
            let language = if op == "$yaml" { "YAML" } else { "JSON" };
            let Some(Value::String(text)) = set else {
                return Err(format!(
                    "{at}: expected a string holding {language}, got {}",
                    got()
                ));
            };
            let parsed: Result<Value, String> = if op == "$yaml" {
                serde_yaml::from_str(text).map_err(|e| e.to_string())
            } else {
                serde_json::from_str(text).map_err(|e| e.to_string())
            };
            let parsed = parsed.map_err(|e| format!("{at}: not valid {language}: {e}"))?;
            match_at("", operand, Some(&parsed))
                .map_err(|reason| format!("{at} (read as {language}): {reason}"))
        }
        "$len" => {
            let length = match set {
                Some(Value::Array(items)) => items.len(),
                Some(Value::Object(map)) => map.len(),
                Some(Value::String(text)) => text.chars().count(),
                // Kubernetes leaves empty lists and maps out of what it returns.
                None => 0,
                Some(_) => {
                    return Err(format!(
                        "{at}: expected a list, map or string, got {}",
                        got()
                    ))
                }
            };
            match_at("", operand, Some(&Value::from(length)))
                .map_err(|reason| format!("{at}: length {length}: {reason}"))
        }
        _ => Err(format!("{at}: unknown operator {op}")),
    }
}

fn validate_at(path: &str, expected: &Value) -> Result<(), String> {
    let at = show_path(path);
    match expected {
        Value::Object(map) => {
            let dollars = map.keys().filter(|key| key.starts_with('$')).count();
            if dollars == 0 {
                return map
                    .iter()
                    .try_for_each(|(key, value)| validate_at(&push_key(path, key), value));
            }
            if dollars < map.len() {
                return Err(format!(
                    "{at}: a map holds either operators ($...) or fields, not both"
                ));
            }
            for (op, operand) in map {
                validate_operator(path, op, operand)?;
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| validate_at(&push_index(path, i), item)),
        _ => Ok(()),
    }
}

fn validate_operator(path: &str, op: &str, operand: &Value) -> Result<(), String> {
    let at = show_path(path);
    match op {
        "$exists" if operand.is_boolean() => Ok(()),
        "$exists" => Err(format!("{at}: $exists takes true or false")),
        "$anyOf" => match operand.as_array() {
            Some(items) if !items.is_empty() => {
                items.iter().try_for_each(|item| validate_at(path, item))
            }
            _ => Err(format!("{at}: $anyOf takes a list of expected values")),
        },
        "$not" | "$yaml" | "$json" => validate_at(path, operand),
        "$len" if operand.is_u64() || operators(operand).is_some() => validate_at(path, operand),
        "$len" => Err(format!(
            "{at}: $len takes a whole number or operators ({{$gte: 1}})"
        )),
        "$gt" | "$gte" | "$lt" | "$lte" | "$quantity" => Amount::from_json(operand)
            .map(|_| ())
            .map_err(|e| format!("{at}: {op}: {e}")),
        "$regex" => match operand.as_str() {
            Some(pattern) => regex::Regex::new(pattern)
                .map(|_| ())
                .map_err(|e| format!("{at}: $regex {pattern:?} does not compile: {e}")),
            None => Err(format!("{at}: $regex takes a string")),
        },
        _ => {
            let known: Vec<&str> = OPERATORS.iter().map(|(name, _)| *name).collect();
            Err(format!(
                "{at}: unknown operator {op} (known: {})",
                known.join(", ")
            ))
        }
    }
}

/// Order-insensitive subset match of lists by maximum bipartite matching (Kuhn's algorithm; lists in
/// Kubernetes objects are short).
fn match_list(path: &str, want: &[Value], have: &[Value]) -> Result<(), String> {
    if want.len() > have.len() {
        return Err(format!(
            "{}: expected at least {} item(s), got {}",
            show_path(path),
            want.len(),
            have.len()
        ));
    }
    // fits[i][j]: expected item i matches actual item j.
    let fits: Vec<Vec<bool>> = want
        .iter()
        .map(|w| {
            have.iter()
                .map(|h| match_at("", w, Some(h)).is_ok())
                .collect()
        })
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; have.len()];
    for i in 0..want.len() {
        let mut seen = vec![false; have.len()];
        if !augment(i, &fits, &mut owner, &mut seen) {
            return Err(explain_unmatched(path, i, want, have, &fits));
        }
    }
    Ok(())
}

fn augment(i: usize, fits: &[Vec<bool>], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
    for j in 0..owner.len() {
        if fits[i][j] && !seen[j] {
            seen[j] = true;
            let free = match owner[j] {
                None => true,
                Some(other) => augment(other, fits, owner, seen),
            };
            if free {
                owner[j] = Some(i);
                return true;
            }
        }
    }
    false
}

fn explain_unmatched(
    path: &str,
    i: usize,
    want: &[Value],
    have: &[Value],
    fits: &[Vec<bool>],
) -> String {
    let item_path = push_index(path, i);
    if fits[i].iter().any(|&f| f) {
        // The item matches something, but only items another expected item needs too.
        return format!(
            "{}: {} needs an item of its own, but every matching item is already taken by another expected item",
            show_path(&item_path),
            brief(&want[i])
        );
    }
    // Name the difference against the closest candidate: the one whose first difference lies deepest.
    let closest = have
        .iter()
        .filter_map(|h| match_at(&item_path, &want[i], Some(h)).err())
        .max_by_key(|e| e.split(':').next().map(|p| p.len()).unwrap_or(0));
    match (have.len(), closest) {
        (1, Some(err)) => err,
        (n, Some(err)) => format!(
            "{}: no item of {n} matches; closest: {err}",
            show_path(&item_path)
        ),
        (_, None) => format!(
            "{}: no item matches {}",
            show_path(&item_path),
            brief(&want[i])
        ),
    }
}

fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

fn differs(path: &str, expected: &Value, actual: &Value) -> String {
    format!(
        "{}: expected {}, got {}",
        show_path(path),
        brief(expected),
        brief(actual)
    )
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "map",
    }
}

/// Where in the object, as a person reads it (see [`crate::paths::readable`]).
fn show_path(path: &str) -> String {
    if path.is_empty() {
        "(top level)".to_string()
    } else {
        crate::paths::readable(path)
    }
}

use crate::shown::{typed, value as brief};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A node as `kubectl get node lab-node-0 -o json` shows it after step 1 of gpudrv.
    fn labelled_node() -> Value {
        json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {
                "name": "lab-node-0",
                "annotations": {"kwok.x-k8s.io/node": "fake"},
                "labels": {
                    "beta.kubernetes.io/arch": "amd64",
                    "kubernetes.io/hostname": "lab-node-0",
                    "nvidia.com/gpu.present": "true",
                    "nvidia.com/cuda.driver.major": "550",
                    "nvidia.com/cuda.driver.minor": "90",
                    "nvidia.com/cuda.driver.rev": "07",
                    "feature.node.kubernetes.io/kernel-version.full": "5.15.0-119-generic",
                    "feature.node.kubernetes.io/system-os_release.ID": "ubuntu",
                    "feature.node.kubernetes.io/system-os_release.VERSION_ID": "22.04"
                }
            },
            "status": {"conditions": [
                {"type": "MemoryPressure", "status": "False"},
                {"type": "Ready", "status": "True", "reason": "KubeletReady"}
            ]}
        })
    }

    fn cuda12_pod(terms: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "cuda12-job", "namespace": "gpu-drv"},
        "spec": {
            "containers": [{"name": "trainer", "image": "nvcr.io/nvidia/pytorch:24.07-py3"}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
        }})
    }

    fn major_550() -> Value {
        json!({"key": "nvidia.com/cuda.driver.major", "operator": "In", "values": ["550"]})
    }

    fn os_2204() -> Value {
        json!({"key": "feature.node.kubernetes.io/system-os_release.VERSION_ID", "operator": "In", "values": ["22.04"]})
    }

    #[test]
    fn subset_of_labels_matches() {
        let expected = json!({"metadata": {"labels": {
            "nvidia.com/gpu.present": "true",
            "nvidia.com/cuda.driver.major": "550"
        }}});
        assert_eq!(matches(&expected, &labelled_node()), Ok(()));
    }

    #[test]
    fn wrong_label_value_names_the_key_as_written() {
        let expected = json!({"metadata": {"labels": {"nvidia.com/cuda.driver.major": "535"}}});
        assert_eq!(
            matches(&expected, &labelled_node()),
            Err(
                r#"metadata.labels["nvidia.com/cuda.driver.major"]: expected "535", got "550""#
                    .to_string()
            )
        );
    }

    #[test]
    fn missing_label_is_reported() {
        let expected = json!({"metadata": {"labels": {"nvidia.com/gpu-driver-upgrade-state": "upgrade-done"}}});
        assert_eq!(
            matches(&expected, &labelled_node()),
            Err(r#"metadata.labels["nvidia.com/gpu-driver-upgrade-state"]: missing (expected upgrade-done)"#.to_string())
        );
    }

    #[test]
    fn string_and_number_or_bool_differ() {
        let expected = json!({"spec": {"nodeSelector": {"nvidia.com/gpu.deploy.driver": "true"}}});
        let actual = json!({"spec": {"nodeSelector": {"nvidia.com/gpu.deploy.driver": true}}});
        assert_eq!(
            matches(&expected, &actual),
            Err(r#"spec.nodeSelector["nvidia.com/gpu.deploy.driver"]: expected a string "true", got a boolean true"#.to_string())
        );
        assert!(matches(&json!({"replicas": "1"}), &json!({"replicas": 1})).is_err());
        assert!(matches(&json!({"replicas": 1}), &json!({"replicas": "1"})).is_err());
        assert_eq!(
            matches(&json!({"replicas": 4}), &json!({"replicas": 4.0})),
            Ok(())
        );
        assert!(matches(&json!({"replicas": 4}), &json!({"replicas": 3})).is_err());
    }

    #[test]
    fn conditions_list_is_order_insensitive() {
        let expected = json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        assert_eq!(matches(&expected, &labelled_node()), Ok(()));
        let not_ready = json!({"status": {"conditions": [{"type": "Ready", "status": "False"}]}});
        assert_eq!(
            matches(&not_ready, &labelled_node()),
            Err(r#"status.conditions[0]: no item of 2 matches; closest: status.conditions[0].status: expected "False", got "True""#.to_string())
        );
    }

    #[test]
    fn one_term_with_two_expressions_in_either_order() {
        let expected = cuda12_pod(json!([{"matchExpressions": [major_550(), os_2204()]}]));
        let reordered = cuda12_pod(json!([{"matchExpressions": [os_2204(), major_550()]}]));
        assert_eq!(matches(&expected, &reordered), Ok(()));
    }

    #[test]
    fn two_terms_do_not_match_one_term_with_two_expressions() {
        // Two separate nodeSelectorTerms are ORed: the lab's classic mistake.
        let expected = cuda12_pod(json!([{"matchExpressions": [major_550(), os_2204()]}]));
        let two_terms = cuda12_pod(json!([
            {"matchExpressions": [major_550()]},
            {"matchExpressions": [os_2204()]}
        ]));
        let err = matches(&expected, &two_terms).unwrap_err();
        assert!(
            err.starts_with("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]: no item of 2 matches"),
            "{err}"
        );
    }

    #[test]
    fn each_expected_item_needs_a_distinct_actual_item() {
        let expected = json!({"items": [{"app": "trainer"}, {"app": "trainer"}]});
        assert!(matches(&expected, &json!({"items": [{"app": "trainer", "n": 1}]})).is_err());
        let err = matches(
            &expected,
            &json!({"items": [{"app": "trainer"}, {"app": "other"}]}),
        )
        .unwrap_err();
        assert!(err.starts_with("items[1]:"), "{err}");
        assert_eq!(
            matches(
                &expected,
                &json!({"items": [{"app": "trainer", "n": 1}, {"app": "trainer", "n": 2}]})
            ),
            Ok(())
        );
    }

    #[test]
    fn greedy_choice_is_undone_when_needed() {
        let expected = json!([{"a": 1}, {"a": 1, "b": 2}]);
        let actual = json!([{"a": 1, "b": 2}, {"a": 1}]);
        assert_eq!(matches(&expected, &actual), Ok(()));
    }

    #[test]
    fn expected_null_means_not_set() {
        let expected = json!({"spec": {"unschedulable": null}});
        assert_eq!(matches(&expected, &json!({"spec": {}})), Ok(()));
        assert_eq!(
            matches(&expected, &json!({"spec": {"unschedulable": true}})),
            Err("spec.unschedulable: expected it not to be set, got a boolean true".to_string())
        );
    }

    #[test]
    fn type_mismatch_at_top_level() {
        assert_eq!(
            matches(&json!({"a": 1}), &json!([1])),
            Err("(top level): expected a map {a: 1}, got a list [1]".to_string())
        );
        assert!(matches(&json!([1, 2]), &json!([2]))
            .unwrap_err()
            .contains("expected at least 2 item(s), got 1"));
    }

    #[test]
    fn list_of_scalars_subset() {
        assert_eq!(matches(&json!(["550"]), &json!(["535", "550"])), Ok(()));
        assert!(matches(&json!(["560"]), &json!(["535", "550"])).is_err());
    }

    /// gpudrv step 6: the budget must keep all four trainers (minAvailable 4, or 3 once step 7
    /// lowered it) and must not be a maxUnavailable budget.
    fn budget_expect() -> Value {
        json!({"spec": {
            "minAvailable": {"$anyOf": [4, 3]},
            "maxUnavailable": {"$exists": false},
            "selector": {"matchLabels": {"app": "trainer"}}
        }})
    }

    #[test]
    fn alternatives_and_absence_tell_a_max_unavailable_budget_apart() {
        let budget = |spec: Value| json!({"kind": "PodDisruptionBudget", "spec": spec});
        let selector = json!({"matchLabels": {"app": "trainer"}});
        for min in [4, 3] {
            let good = budget(json!({"minAvailable": min, "selector": selector}));
            assert_eq!(matches(&budget_expect(), &good), Ok(()));
        }
        let wrong = budget(json!({"maxUnavailable": 1, "selector": selector}));
        assert_eq!(
            matches(&budget_expect(), &wrong),
            Err("spec.minAvailable: expected one of 4 or 3, got nothing (not set)".to_string())
        );
        let both = budget(json!({"minAvailable": 4, "maxUnavailable": 1, "selector": selector}));
        assert_eq!(
            matches(&budget_expect(), &both),
            Err("spec.maxUnavailable: expected not to be set, got a number 1".to_string())
        );
        let two = budget(json!({"minAvailable": 2, "selector": selector}));
        assert!(matches(&budget_expect(), &two).is_err());
        // The string "4" is not the number 4 here either.
        let quoted = budget(json!({"minAvailable": "4", "selector": selector}));
        assert!(matches(&budget_expect(), &quoted).is_err());
        assert_eq!(validate(&budget_expect()), Ok(()));
    }

    #[test]
    fn comparisons_take_numbers_and_quantities_by_value() {
        let pod = json!({"spec": {"replicas": 4, "resources": {"requests": {"memory": "1024Mi", "cpu": "500m"}}}});
        let expect = json!({"spec": {
            "replicas": {"$gte": 3, "$lte": 4},
            "resources": {"requests": {"memory": {"$quantity": "1Gi"}, "cpu": {"$lt": 1}}}
        }});
        assert_eq!(matches(&expect, &pod), Ok(()));
        assert_eq!(
            matches(&json!({"spec": {"replicas": {"$gt": 4}}}), &pod),
            Err("spec.replicas: expected more than 4, got 4".to_string())
        );
        assert_eq!(
            matches(
                &json!({"spec": {"resources": {"requests": {"memory": {"$gte": "2Gi"}}}}}),
                &pod
            ),
            Err("spec.resources.requests.memory: expected at least 2Gi, got 1024Mi".to_string())
        );
        assert_eq!(
            matches(&json!({"spec": {"paused": {"$lt": 1}}}), &pod),
            Err("spec.paused: missing (expected less than 1)".to_string())
        );
        assert_eq!(
            matches(
                &json!({"spec": {"replicas": {"$gt": 1}}}),
                &json!({"spec": {"replicas": "50%"}})
            ),
            Err(r#"spec.replicas: expected more than 1, got a string "50%""#.to_string())
        );
    }

    #[test]
    fn patterns_negation_and_lengths() {
        let pod = cuda12_pod(json!([{"matchExpressions": [major_550(), os_2204()]}]));
        let image = |e: Value| json!({"spec": {"containers": [{"name": "trainer", "image": e}]}});
        assert_eq!(
            matches(
                &image(json!({"$regex": "^nvcr\\.io/nvidia/pytorch:24\\."})),
                &pod
            ),
            Ok(())
        );
        assert_eq!(
            matches(&image(json!({"$not": {"$regex": ":24\\."}})), &pod),
            Err(r#"spec.containers[0].image: expected anything but text matching /:24\./, got a string "nvcr.io/nvidia/pytorch:24.07-py3""#.to_string())
        );
        let terms = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
        let length = |e: Value| json!({"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": e}}}}});
        assert_eq!(matches(&length(json!({"$len": 1})), &pod), Ok(()));
        assert_eq!(
            matches(&length(json!({"$len": {"$gte": 2}})), &pod),
            Err(format!(
                "{terms}.nodeSelectorTerms: length 1: (top level): expected at least 2, got 1"
            ))
        );
        assert_eq!(
            matches(&json!({"spec": {"tolerations": {"$len": 0}}}), &pod),
            Ok(()),
            "a list Kubernetes leaves out is empty"
        );
        assert_eq!(
            matches(&json!({"metadata": {"name": {"$not": "cuda12-job"}}}), &pod),
            Err(
                r#"metadata.name: expected anything but cuda12-job, got a string "cuda12-job""#
                    .to_string()
            )
        );
    }

    #[test]
    fn text_holding_yaml_or_json_is_compared_by_meaning() {
        let config = json!({"data": {
            "config.yaml": "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n",
            "config.json": "{\"replicas\": 4, \"name\": \"nvidia.com/gpu\"}"
        }});
        let slicing = json!({"sharing": {"timeSlicing": {"resources": [{"name": "nvidia.com/gpu", "replicas": 4}]}}});
        assert_eq!(
            matches(
                &json!({"data": {"config.yaml": {"$yaml": slicing}, "config.json": {"$json": {"replicas": {"$gte": 2}}}}}),
                &config
            ),
            Ok(())
        );
        assert_eq!(
            matches(
                &json!({"data": {"config.yaml": {"$yaml": {"version": "v2"}}}}),
                &config
            ),
            Err(r#"data["config.yaml"] (read as YAML): version: expected v2, got v1"#.to_string())
        );
        assert!(matches(
            &json!({"data": {"config.json": {"$json": {"name": "x"}}}}),
            &config
        )
        .unwrap_err()
        .starts_with(r#"data["config.json"] (read as JSON): name: expected x, got"#));
        assert!(
            matches(&json!({"data": {"config.yaml": {"$json": {}}}}), &config)
                .unwrap_err()
                .starts_with(r#"data["config.yaml"]: not valid JSON"#)
        );
    }

    #[test]
    fn malformed_expectations_are_refused_when_the_scenario_loads() {
        let cases = [
            (
                json!({"spec": {"replicas": {"$gtee": 3}}}),
                "spec.replicas: unknown operator $gtee (known: $exists, $anyOf",
            ),
            (
                json!({"spec": {"replicas": {"$gt": 3, "x": 1}}}),
                "spec.replicas: a map holds either operators ($...) or fields, not both",
            ),
            (
                json!({"a": {"$exists": "no"}}),
                "a: $exists takes true or false",
            ),
            (
                json!({"a": {"$anyOf": 3}}),
                "a: $anyOf takes a list of expected values",
            ),
            (
                json!({"a": {"$anyOf": []}}),
                "a: $anyOf takes a list of expected values",
            ),
            (
                json!({"a": {"$gte": "lots"}}),
                r#"a: $gte: "lots" is not a number or a quantity"#,
            ),
            (
                json!({"a": {"$regex": "("}}),
                r#"a: $regex "(" does not compile"#,
            ),
            (
                json!({"a": [{"b": {"$not": {"$len": {"$lt": "x"}}}}]}),
                r#"a[0].b: $lt: "x" is not a number"#,
            ),
            (
                json!({"a": {"$len": "3"}}),
                "a: $len takes a whole number or operators",
            ),
        ];
        for (expect, message) in cases {
            let error = validate(&expect).expect_err(message);
            assert!(error.starts_with(message), "{error}");
        }
    }
}
