//! When a job waits or gives up after failures (`pkg/controller/job/backoff_utils.go` and
//! `pastBackoffLimitOnFailure` of `job_controller.go`).

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::super::just_after;
use super::phase;
use crate::podutil::parse_time;

/// `DefaultJobPodFailureBackOff`.
const POD_FAILURE_BACKOFF: Duration = Duration::from_secs(10);
/// `MaxJobPodFailureBackOff`.
const MAX_POD_FAILURE_BACKOFF: Duration = Duration::from_secs(600);

/// When a terminated pod finished: its last container's `finishedAt`, else its deletion time
/// (`getFinishedTime`).
fn finish_time(pod: &Value) -> Option<DateTime<Utc>> {
    pod["status"]["containerStatuses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| parse_time(&c["state"]["terminated"]["finishedAt"]))
        .max()
        .or_else(|| parse_time(&pod["metadata"]["deletionTimestamp"]))
}

/// The wait before the next pod (`getRemainingTime`): `10s * 2^(n-1)` after the last of the n
/// failures since the last success, capped at 10 minutes; `None` when there is nothing to wait.
pub(super) fn remaining<'a>(
    pods: impl IntoIterator<Item = &'a Value>,
    now: DateTime<Utc>,
) -> Option<Duration> {
    let pods: Vec<&Value> = pods.into_iter().collect();
    let last_success = pods
        .iter()
        .filter(|p| phase(p) == "Succeeded")
        .filter_map(|p| finish_time(p))
        .max();
    let failures: Vec<DateTime<Utc>> = pods
        .iter()
        .filter(|p| phase(p) == "Failed")
        .filter_map(|p| finish_time(p))
        .filter(|t| last_success.is_none_or(|s| *t > s))
        .collect();
    let last = *failures.iter().max()?;
    let n = u32::try_from(failures.len()).unwrap_or(u32::MAX);
    let delay = POD_FAILURE_BACKOFF
        .saturating_mul(1u32 << (n - 1).min(16))
        .min(MAX_POD_FAILURE_BACKOFF);
    let ready_at = last + chrono::Duration::from_std(delay).unwrap_or_default();
    (ready_at > now).then(|| just_after(ready_at, now))
}

/// `pastBackoffLimitOnFailure`: with restart policy OnFailure, the container restarts of the
/// running and pending pods reach the backoff limit (pass it, when the limit is 0).
pub(super) fn past_limit_on_failure<'a>(
    job: &Value,
    active: impl IntoIterator<Item = &'a Value>,
) -> bool {
    if job["spec"]["template"]["spec"]["restartPolicy"] != "OnFailure" {
        return false;
    }
    let restarts: i64 = active
        .into_iter()
        .filter(|p| matches!(phase(p), "Running" | "Pending"))
        .flat_map(|p| {
            ["initContainerStatuses", "containerStatuses"]
                .into_iter()
                .flat_map(move |k| p["status"][k].as_array().into_iter().flatten())
        })
        .map(|c| c["restartCount"].as_i64().unwrap_or(0))
        .sum();
    let limit = job["spec"]["backoffLimit"].as_i64().unwrap_or(6);
    if limit == 0 {
        restarts > 0
    } else {
        restarts >= limit
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn finished(phase: &str, at: &str) -> Value {
        json!({"status": {"phase": phase, "containerStatuses": [
            {"name": "c", "state": {"terminated": {"finishedAt": at}}}]}})
    }

    fn at(s: &str) -> DateTime<Utc> {
        parse_time(&json!(s)).expect("test timestamp")
    }

    #[test]
    fn the_wait_doubles_with_each_failure_since_the_last_success() {
        let one = [finished("Failed", "2025-01-01T00:00:00Z")];
        assert_eq!(
            remaining(&one, at("2025-01-01T00:00:04Z")).map(|d| d.as_secs()),
            Some(6),
            "10 s after the first failure"
        );
        let three = [
            finished("Failed", "2025-01-01T00:00:00Z"),
            finished("Failed", "2025-01-01T00:00:10Z"),
            finished("Failed", "2025-01-01T00:00:30Z"),
        ];
        assert_eq!(
            remaining(&three, at("2025-01-01T00:00:30Z")).map(|d| d.as_secs()),
            Some(40),
            "40 s after the third"
        );
        let reset = [
            finished("Failed", "2025-01-01T00:00:00Z"),
            finished("Succeeded", "2025-01-01T00:00:20Z"),
            finished("Failed", "2025-01-01T00:00:30Z"),
        ];
        assert_eq!(
            remaining(&reset, at("2025-01-01T00:00:30Z")).map(|d| d.as_secs()),
            Some(10),
            "a success starts the count again"
        );
        assert_eq!(remaining(&one, at("2025-01-01T00:00:11Z")), None);
    }

    #[test]
    fn the_wait_stops_growing_at_ten_minutes() {
        let many: Vec<Value> = (0..12)
            .map(|i| finished("Failed", &format!("2025-01-01T00:00:{i:02}Z")))
            .collect();
        let wait = remaining(&many, at("2025-01-01T00:00:11Z")).map(|d| d.as_secs());
        assert_eq!(wait, Some(600));
    }

    #[test]
    fn restarts_count_against_the_limit_only_with_on_failure() {
        let job = |policy: &str, limit: i64| json!({"spec": {"backoffLimit": limit, "template": {"spec": {"restartPolicy": policy}}}});
        let running = |restarts: i64| json!({"status": {"phase": "Running", "containerStatuses": [{"restartCount": restarts}]}});
        assert!(past_limit_on_failure(
            &job("OnFailure", 2),
            &[running(1), running(1)]
        ));
        assert!(!past_limit_on_failure(
            &job("OnFailure", 3),
            &[running(1), running(1)]
        ));
        assert!(!past_limit_on_failure(&job("Never", 1), &[running(5)]));
        assert!(past_limit_on_failure(&job("OnFailure", 0), &[running(1)]));
        assert!(!past_limit_on_failure(&job("OnFailure", 0), &[running(0)]));
    }
}
