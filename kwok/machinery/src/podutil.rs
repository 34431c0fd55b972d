//! Pod state as `k8s.io/kubernetes/pkg/api/v1/pod` (podutil) and `pkg/controller` read it, for the
//! controllers and the eviction subresource alike. (kubectl's own readiness test, which takes any
//! `Ready=True` condition, is the printer's.)

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::meta;

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

/// Where a pod stands with `IsPodAvailable`, as of a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    NotReady,
    Available,
    /// Ready, and available strictly after this instant (minReadySeconds not yet over).
    After(DateTime<Utc>),
    /// Ready without a `lastTransitionTime`, which `IsPodAvailable` never counts (`!IsZero`).
    Never,
}

/// `IsPodAvailable` as of `now`, saying when a ready pod will count: at once without
/// minReadySeconds, else strictly after being ready that long.
pub fn availability(pod: &Value, min_ready_seconds: i64, now: DateTime<Utc>) -> Availability {
    if !is_pod_ready(pod) {
        return Availability::NotReady;
    }
    if min_ready_seconds <= 0 {
        return Availability::Available;
    }
    match condition(pod, "Ready").and_then(|c| parse_time(&c["lastTransitionTime"])) {
        None => Availability::Never,
        Some(since) => {
            let at = since + chrono::Duration::seconds(min_ready_seconds);
            if at < now {
                Availability::Available
            } else {
                Availability::After(at)
            }
        }
    }
}

/// `IsPodAvailable` as of `now`.
pub fn is_pod_available(pod: &Value, min_ready_seconds: i64, now: DateTime<Utc>) -> bool {
    availability(pod, min_ready_seconds, now) == Availability::Available
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

/// `endpointsliceutil.ShouldPodBeInEndpoints`: not terminal, with an IP, and not being deleted
/// unless terminating pods count.
pub fn should_pod_be_in_endpoints(pod: &Value, include_terminating: bool) -> bool {
    !is_pod_terminal(pod)
        && pod["status"]["podIP"]
            .as_str()
            .is_some_and(|ip| !ip.is_empty())
        && (include_terminating || !meta::is_deleting(pod))
}

/// `FindPort`: the port a service port's `targetPort` means in this pod — a number as given, a
/// name through the containers' named ports of the same protocol.
pub fn find_port(pod: &Value, service_port: &Value) -> Option<i64> {
    match &service_port["targetPort"] {
        Value::String(name) => {
            let protocol = service_port["protocol"].as_str().unwrap_or("TCP");
            pod["spec"]["containers"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|c| c["ports"].as_array().into_iter().flatten())
                .find(|p| {
                    p["name"].as_str() == Some(name.as_str())
                        && p["protocol"].as_str().unwrap_or("TCP") == protocol
                })
                .and_then(|p| p["containerPort"].as_i64())
        }
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
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
