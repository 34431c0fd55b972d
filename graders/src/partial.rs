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
//!
//! Errors name the dotted path (in [`crate::paths`] syntax) and what differed.

use crate::paths::{push_index, push_key};
use serde_json::Value;

/// `Ok(())` when `actual` contains everything in `expected`; otherwise the first difference found.
pub fn matches(expected: &Value, actual: &Value) -> Result<(), String> {
    match_at("", expected, actual)
}

fn match_at(path: &str, expected: &Value, actual: &Value) -> Result<(), String> {
    match (expected, actual) {
        (Value::Object(want), Value::Object(have)) => {
            for (key, want_value) in want {
                let here = push_key(path, key);
                match have.get(key) {
                    Some(have_value) => match_at(&here, want_value, have_value)?,
                    None if want_value.is_null() => {}
                    None => {
                        return Err(format!(
                            "{}: missing (expected {})",
                            show_path(&here),
                            brief(want_value)
                        ))
                    }
                }
            }
            Ok(())
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
        _ => Err(format!(
            "{}: expected {}, got {}",
            show_path(path),
            typed(expected),
            typed(actual)
        )),
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
        .map(|w| have.iter().map(|h| match_at("", w, h).is_ok()).collect())
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
        .filter_map(|h| match_at(&item_path, &want[i], h).err())
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

/// `a string "true"`, `a boolean true`, `null`: the value with its JSON type, for type mismatches.
fn typed(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        _ => format!("a {} {}", kind(v), brief(v)),
    }
}

fn show_path(path: &str) -> &str {
    if path.is_empty() {
        "(top level)"
    } else {
        path
    }
}

/// A short rendering of a value for messages (JSON, cut at 120 characters).
fn brief(v: &Value) -> String {
    let text = v.to_string();
    const MAX: usize = 120;
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

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
    fn wrong_label_value_names_escaped_path() {
        let expected = json!({"metadata": {"labels": {"nvidia.com/cuda.driver.major": "535"}}});
        assert_eq!(
            matches(&expected, &labelled_node()),
            Err(
                r#"metadata.labels.nvidia\.com/cuda\.driver\.major: expected "535", got "550""#
                    .to_string()
            )
        );
    }

    #[test]
    fn missing_label_is_reported() {
        let expected = json!({"metadata": {"labels": {"nvidia.com/gpu-driver-upgrade-state": "upgrade-done"}}});
        assert_eq!(
            matches(&expected, &labelled_node()),
            Err(r#"metadata.labels.nvidia\.com/gpu-driver-upgrade-state: missing (expected "upgrade-done")"#.to_string())
        );
    }

    #[test]
    fn string_and_number_or_bool_differ() {
        let expected = json!({"spec": {"nodeSelector": {"nvidia.com/gpu.deploy.driver": "true"}}});
        let actual = json!({"spec": {"nodeSelector": {"nvidia.com/gpu.deploy.driver": true}}});
        assert_eq!(
            matches(&expected, &actual),
            Err(r#"spec.nodeSelector.nvidia\.com/gpu\.deploy\.driver: expected a string "true", got a boolean true"#.to_string())
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
            Err("spec.unschedulable: expected null, got a boolean true".to_string())
        );
    }

    #[test]
    fn type_mismatch_at_top_level() {
        assert_eq!(
            matches(&json!({"a": 1}), &json!([1])),
            Err("(top level): expected a map {\"a\":1}, got a list [1]".to_string())
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
}
