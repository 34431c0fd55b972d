//! Pod state as `k8s.io/kubernetes/pkg/api/v1/pod` (podutil) and `pkg/controller` read it, for the
//! controllers and the eviction subresource alike. (kubectl's own readiness test, which takes any
//! `Ready=True` condition, is the printer's.)

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::api::meta;

/// `GetPodCondition` (and its node twin): the first status condition of `type_`.
pub fn condition<'a>(obj: &'a Value, type_: &str) -> Option<&'a Value> {
    obj["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == type_))
}

/// `IsPodReady`: the Ready condition is True.
pub fn is_pod_ready(pod: &Value) -> bool {
    condition(pod, "Ready").is_some_and(|c| c["status"] == "True")
}

/// A `metav1.Time` (RFC 3339) as stored.
pub fn parse_time(v: &Value) -> Option<DateTime<Utc>> {
    v.as_str()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// When a ready pod counts as available (`IsPodAvailable`): at once without minReadySeconds
/// (`Some(None)`), else strictly after being ready that long; a zero `lastTransitionTime` never
/// (`Some(Some(MAX_UTC))`). `None` for pods that are not ready.
pub fn available_at(pod: &Value, min_ready_seconds: i64) -> Option<Option<DateTime<Utc>>> {
    if !is_pod_ready(pod) {
        return None;
    }
    if min_ready_seconds <= 0 {
        return Some(None);
    }
    let since = condition(pod, "Ready").and_then(|c| parse_time(&c["lastTransitionTime"]));
    Some(Some(since.map_or(DateTime::<Utc>::MAX_UTC, |t| {
        t + chrono::Duration::seconds(min_ready_seconds)
    })))
}

/// `IsPodAvailable` as of `now`.
pub fn is_pod_available(pod: &Value, min_ready_seconds: i64, now: DateTime<Utc>) -> bool {
    match available_at(pod, min_ready_seconds) {
        None => false,
        Some(None) => true,
        Some(Some(at)) => at < now,
    }
}

/// `IsPodTerminal`: Succeeded or Failed.
pub fn is_pod_terminal(pod: &Value) -> bool {
    matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    )
}

/// `controller.IsPodActive`: not terminal and not being deleted.
pub fn is_pod_active(pod: &Value) -> bool {
    !is_pod_terminal(pod) && !meta::is_deleting(pod)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(ready: &str, since: Option<&str>) -> Value {
        let mut c = json!({"type": "Ready", "status": ready});
        if let Some(t) = since {
            c["lastTransitionTime"] = json!(t);
        }
        json!({"status": {"phase": "Running", "conditions": [c]}})
    }

    /// `TestIsPodAvailable` (`pkg/api/v1/pod/util_test.go`): ready, and ready strictly longer
    /// than minReadySeconds.
    #[test]
    fn availability_follows_podutil() {
        let now = DateTime::parse_from_rfc3339("2026-01-01T00:00:10Z")
            .map(|t| t.with_timezone(&Utc))
            .expect("time");
        assert!(!is_pod_available(&pod("False", None), 0, now));
        assert!(is_pod_available(&pod("True", None), 0, now));
        assert!(is_pod_available(
            &pod("True", Some("2026-01-01T00:00:00Z")),
            5,
            now
        ));
        assert!(!is_pod_available(
            &pod("True", Some("2026-01-01T00:00:05Z")),
            5,
            now
        ));
        assert!(
            !is_pod_available(&pod("True", None), 5, now),
            "no transition time"
        );
    }
}
