//! batch/v1 Jobs (`printJob` in printers.go).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::{Column, CONTAINERS, IMAGES};
use super::docs;
use super::duration::human_duration;
use super::values::{age, arr_at, at, container_cells, int_at, is_set, name, time_at};
use crate::selectors::format_label_selector;

pub(crate) const JOB_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Status", "string", "Status of the job."),
    Column::new("Completions", "string", docs::JOB_SUCCEEDED),
    Column::new("Duration", "string", "Time required to complete the job."),
    Column::age(),
    CONTAINERS,
    IMAGES,
    Column::new("Selector", "string", docs::JOB_SELECTOR).wide(),
];

/// `hasJobCondition`: a condition of that type with status True.
fn has_condition(job: &Value, type_: &str) -> bool {
    arr_at(job, &["status", "conditions"])
        .iter()
        .any(|c| c["type"] == type_ && c["status"] == "True")
}

/// The Status column, in upstream's order of precedence.
fn status(job: &Value) -> &'static str {
    if has_condition(job, "Complete") {
        "Complete"
    } else if has_condition(job, "Failed") {
        "Failed"
    } else if is_set(at(job, &["metadata", "deletionTimestamp"])) {
        "Terminating"
    } else if has_condition(job, "Suspended") {
        "Suspended"
    } else if has_condition(job, "FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    }
}

/// `succeeded/completions`; a job without completions finishes at its first success, shown as
/// `n/1`, with the parallelism when above one.
fn completions(job: &Value) -> String {
    let succeeded = int_at(job, &["status", "succeeded"]);
    let spec_completions = at(job, &["spec", "completions"]);
    if is_set(spec_completions) {
        return format!("{succeeded}/{}", int_at(job, &["spec", "completions"]));
    }
    let parallelism = int_at(job, &["spec", "parallelism"]);
    if parallelism > 1 {
        format!("{succeeded}/1 of {parallelism}")
    } else {
        format!("{succeeded}/1")
    }
}

/// From the start to the completion, or to now while running; empty before the start.
fn duration(job: &Value, now: DateTime<Utc>) -> String {
    let Some(start) = time_at(job, &["status", "startTime"]) else {
        return String::new();
    };
    let end = time_at(job, &["status", "completionTime"]).unwrap_or(now);
    human_duration(end - start)
}

pub(crate) fn job_cells(job: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let (names, images) = container_cells(at(job, &["spec", "template", "spec"]));
    let selector = format_label_selector(at(job, &["spec", "selector"]));
    vec![
        name(job),
        Value::from(status(job)),
        Value::from(completions(job)),
        Value::from(duration(job, now)),
        age(job, now),
        names,
        images,
        Value::from(selector),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        crate::podutil::parse_time(&json!(s)).expect("test timestamp")
    }

    fn condition(type_: &str) -> Value {
        json!({"type": type_, "status": "True"})
    }

    #[test]
    fn status_follows_upstream_precedence() {
        let with = |conditions: Value| json!({"status": {"conditions": conditions}});
        assert_eq!(status(&json!({})), "Running");
        assert_eq!(
            status(&with(json!([condition("FailureTarget")]))),
            "FailureTarget"
        );
        assert_eq!(
            status(&with(json!([
                condition("FailureTarget"),
                condition("Failed")
            ]))),
            "Failed"
        );
        assert_eq!(
            status(&with(json!([
                condition("SuccessCriteriaMet"),
                condition("Complete")
            ]))),
            "Complete"
        );
        let mut deleting = with(json!([condition("Suspended")]));
        deleting["metadata"] = json!({"deletionTimestamp": "2025-01-01T00:00:00Z"});
        assert_eq!(status(&deleting), "Terminating");
        assert_eq!(status(&with(json!([condition("Suspended")]))), "Suspended");
    }

    #[test]
    fn completions_without_a_count_show_the_parallelism() {
        let job = |spec: Value| json!({"spec": spec, "status": {"succeeded": 2}});
        assert_eq!(completions(&job(json!({"completions": 4}))), "2/4");
        assert_eq!(completions(&job(json!({"parallelism": 3}))), "2/1 of 3");
        assert_eq!(completions(&job(json!({"parallelism": 1}))), "2/1");
    }

    #[test]
    fn duration_runs_from_start_to_completion_or_now() {
        let now = at("2025-01-01T00:10:00Z");
        let running = json!({"status": {"startTime": "2025-01-01T00:00:00Z"}});
        assert_eq!(duration(&running, now), "10m");
        let done = json!({"status": {"startTime": "2025-01-01T00:00:00Z",
            "completionTime": "2025-01-01T00:00:42Z"}});
        assert_eq!(duration(&done, now), "42s");
        assert_eq!(duration(&json!({}), now), "");
    }
}
