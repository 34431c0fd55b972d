//! `spec.podFailurePolicy` (`pkg/controller/job/pod_failure_policy.go`): the first rule that
//! matches a failed pod, by a container's exit code or by a pod condition, decides whether the
//! failure counts against `backoffLimit` (Count), is ignored (Ignore), or fails the job
//! (FailJob). FailIndex needs indexed jobs, which the controller does not run.

use serde_json::Value;

/// What the policy makes of one failed pod.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// No policy, no matching rule, or a Count rule: the failure counts.
    Count,
    /// An Ignore rule: not counted, and replaced.
    Ignore,
    /// A FailJob rule, with the message of the job's FailureTarget and Failed conditions.
    FailJob(String),
}

/// `matchPodFailurePolicy`.
pub(super) fn verdict(policy: &Value, pod: &Value) -> Verdict {
    let rules = policy["rules"].as_array().into_iter().flatten();
    for (index, rule) in rules.enumerate() {
        let action = rule["action"].as_str().unwrap_or("");
        let matched = if rule["onExitCodes"].is_object() {
            exit_code_match(&pod["status"], &rule["onExitCodes"]).map(|(container, code)| {
                format!(
                    "Container {container} for pod {}/{} failed with exit code {code} matching {action} rule at index {index}",
                    ns(pod),
                    name(pod)
                )
            })
        } else if rule["onPodConditions"].is_array() {
            condition_match(&pod["status"], &rule["onPodConditions"]).map(|type_| {
                format!(
                    "Pod {}/{} has condition {type_} matching {action} rule at index {index}",
                    ns(pod),
                    name(pod)
                )
            })
        } else {
            None
        };
        let Some(message) = matched else {
            continue;
        };
        // An action this controller does not know skips the rule, as upstream's switch does.
        match action {
            "Ignore" => return Verdict::Ignore,
            "Count" => return Verdict::Count,
            "FailJob" => return Verdict::FailJob(message),
            _ => {}
        }
    }
    Verdict::Count
}

fn ns(pod: &Value) -> &str {
    pod["metadata"]["namespace"].as_str().unwrap_or("")
}

fn name(pod: &Value) -> &str {
    pod["metadata"]["name"].as_str().unwrap_or("")
}

/// `matchOnExitCodes`: the first terminated container (app containers, then init containers)
/// with a non-zero exit code the requirement accepts; its name and code.
fn exit_code_match<'a>(status: &'a Value, requirement: &Value) -> Option<(&'a str, i64)> {
    let only = requirement["containerName"].as_str();
    let values: Vec<i64> = requirement["values"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect();
    let accepts = |code: i64| match requirement["operator"].as_str() {
        Some("In") => values.contains(&code),
        Some("NotIn") => !values.contains(&code),
        _ => false,
    };
    ["containerStatuses", "initContainerStatuses"]
        .into_iter()
        .flat_map(|key| status[key].as_array().into_iter().flatten())
        .filter(|c| only.is_none_or(|n| c["name"] == n))
        .find_map(|c| {
            let code = c["state"]["terminated"]["exitCode"].as_i64()?;
            (code != 0 && accepts(code)).then(|| (c["name"].as_str().unwrap_or(""), code))
        })
}

/// `matchOnPodConditions`: the first pod condition some pattern names, with the same status.
fn condition_match<'a>(status: &'a Value, patterns: &Value) -> Option<&'a str> {
    let patterns = patterns.as_array()?;
    status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| {
            patterns
                .iter()
                .any(|p| p["type"] == c["type"] && p["status"] == c["status"])
        })
        .and_then(|c| c["type"].as_str())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn failed_pod(exit_codes: &[(&str, i64)], conditions: Value) -> Value {
        let statuses: Vec<Value> = exit_codes
            .iter()
            .map(|(n, code)| json!({"name": n, "state": {"terminated": {"exitCode": code}}}))
            .collect();
        json!({"metadata": {"namespace": "lab", "name": "train-x7k2p"},
            "status": {"phase": "Failed", "containerStatuses": statuses, "conditions": conditions}})
    }

    fn policy() -> Value {
        json!({"rules": [
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
            {"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In", "values": [42]}},
            {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [1, 2]}},
        ]})
    }

    #[test]
    fn a_fail_job_rule_names_container_code_and_rule_index() {
        let pod = failed_pod(&[("sidecar", 0), ("main", 42)], json!([]));
        assert_eq!(
            verdict(&policy(), &pod),
            Verdict::FailJob(
                "Container main for pod lab/train-x7k2p failed with exit code 42 matching FailJob rule at index 1"
                    .into()
            )
        );
    }

    #[test]
    fn rules_apply_in_order_and_the_first_match_wins() {
        let disrupted = failed_pod(
            &[("main", 42)],
            json!([{"type": "DisruptionTarget", "status": "True"}]),
        );
        assert_eq!(verdict(&policy(), &disrupted), Verdict::Ignore);
        let other = failed_pod(&[("main", 7)], json!([]));
        assert_eq!(verdict(&policy(), &other), Verdict::Count);
        let unmatched = failed_pod(&[("main", 1)], json!([]));
        assert_eq!(verdict(&policy(), &unmatched), Verdict::Count);
    }

    #[test]
    fn exit_code_zero_never_matches() {
        let rule = json!({"rules": [{"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [5]}}]});
        assert_eq!(
            verdict(&rule, &failed_pod(&[("main", 0)], json!([]))),
            Verdict::Count
        );
    }

    #[test]
    fn a_condition_rule_names_the_condition() {
        let rule = json!({"rules": [{"action": "FailJob", "onPodConditions": [{"type": "ConfigIssue", "status": "True"}]}]});
        let pod = failed_pod(&[], json!([{"type": "ConfigIssue", "status": "True"}]));
        assert_eq!(
            verdict(&rule, &pod),
            Verdict::FailJob(
                "Pod lab/train-x7k2p has condition ConfigIssue matching FailJob rule at index 0"
                    .into()
            )
        );
    }
}
