//! batch/v1 Jobs (`printJob` in printers.go).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::{Column, CONTAINERS, IMAGES};
use super::docs;
use super::duration::human_duration;
use super::values::{age, arr_at, at, container_cells, int_at, is_set, name, time_at};
use crate::selectors::format_label_selector;

pub const JOB_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Status", "string", "Status of the job."),
    Column::new("Completions", "string", docs::JOB_SUCCEEDED),
    Column::new("Duration", "string", "Time required to complete the job."),
    Column::age(),
    CONTAINERS,
    IMAGES,
    Column::new("Selector", "string", docs::JOB_SELECTOR).wide(),
];

pub const CRON_JOB_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Schedule", "string", docs::CRON_JOB_SCHEDULE),
    Column::new("Timezone", "string", docs::CRON_JOB_TIME_ZONE),
    Column::new("Suspend", "boolean", docs::CRON_JOB_SUSPEND),
    Column::new("Active", "integer", docs::CRON_JOB_ACTIVE),
    Column::new("Last Schedule", "string", docs::CRON_JOB_LAST_SCHEDULE),
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

pub fn job_cells(job: &Value, now: DateTime<Utc>) -> Vec<Value> {
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

/// `printBoolPtr`.
fn bool_ptr(v: &Value) -> &'static str {
    match v.as_bool() {
        None => "<unset>",
        Some(true) => "True",
        Some(false) => "False",
    }
}

/// `printCronJob`.
pub fn cron_job_cells(cj: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let last = time_at(cj, &["status", "lastScheduleTime"])
        .map_or_else(|| "<none>".to_string(), |t| human_duration(now - t));
    let zone = at(cj, &["spec", "timeZone"]).as_str().unwrap_or("<none>");
    let job_spec = at(cj, &["spec", "jobTemplate", "spec"]);
    let (names, images) = container_cells(at(job_spec, &["template", "spec"]));
    vec![
        name(cj),
        Value::from(at(cj, &["spec", "schedule"]).as_str().unwrap_or("")),
        Value::from(zone),
        Value::from(bool_ptr(at(cj, &["spec", "suspend"]))),
        Value::from(arr_at(cj, &["status", "active"]).len()),
        Value::from(last),
        age(cj, now),
        names,
        images,
        Value::from(format_label_selector(at(job_spec, &["selector"]))),
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
    fn a_cron_job_row_shows_none_before_its_first_run() {
        let now = at("2025-01-01T00:10:00Z");
        let cj = json!({"metadata": {"name": "nightly", "creationTimestamp": "2025-01-01T00:00:00Z"},
            "spec": {"schedule": "0 3 * * *", "suspend": false, "jobTemplate": {"spec": {"template": {"spec": {
                "containers": [{"name": "probe", "image": "probe:1"}]}}}}},
            "status": {}});
        assert_eq!(
            cron_job_cells(&cj, now),
            [
                json!("nightly"),
                json!("0 3 * * *"),
                json!("<none>"),
                json!("False"),
                json!(0),
                json!("<none>"),
                json!("10m"),
                json!("probe"),
                json!("probe:1"),
                json!("<none>")
            ]
        );
        let mut ran = cj.clone();
        ran["spec"]["timeZone"] = json!("Asia/Seoul");
        ran["status"] =
            json!({"active": [{"name": "nightly-1"}], "lastScheduleTime": "2025-01-01T00:09:00Z"});
        let cells = cron_job_cells(&ran, now);
        assert_eq!(
            (&cells[2], &cells[4], &cells[5]),
            (&json!("Asia/Seoul"), &json!(1), &json!("60s"))
        );
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
