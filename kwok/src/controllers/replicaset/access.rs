//! Small readers of stored objects shared by the workload controllers: pod state as
//! `podutil` sees it, replica counts, timestamps, Go's sorted maps.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::api::meta;
use crate::error::ApiError;

/// The sooner of two optional wake-ups.
pub(crate) fn earliest(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// RFC 3339 timestamps as metav1.Time serialises them.
pub(crate) fn parse_time(v: &Value) -> Option<DateTime<Utc>> {
    v.as_str()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// A JSON object with its keys sorted, as Go encodes a `map[string]string`.
pub(crate) fn sorted(map: &Map<String, Value>) -> Map<String, Value> {
    let mut pairs: Vec<(&String, &Value)> = map.iter().collect();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    pairs
        .into_iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `controller.IsPodActive`: not terminal and not being deleted.
pub(crate) fn is_pod_active(pod: &Value) -> bool {
    !matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    ) && !meta::is_deleting(pod)
}

pub(super) fn ready_condition(pod: &Value) -> Option<&Value> {
    pod["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Ready"))
}

/// `podutil.IsPodReady`.
pub(crate) fn is_pod_ready(pod: &Value) -> bool {
    ready_condition(pod).is_some_and(|c| c["status"] == "True")
}

/// When a ready pod counts as available (`podutil.IsPodAvailable`): at once without
/// minReadySeconds, else strictly after being ready that long. `None` for pods that are not ready.
pub(crate) fn available_at(pod: &Value, min_ready_seconds: i64) -> Option<Option<DateTime<Utc>>> {
    if !is_pod_ready(pod) {
        return None;
    }
    if min_ready_seconds <= 0 {
        return Some(None);
    }
    let since = ready_condition(pod).and_then(|c| parse_time(&c["lastTransitionTime"]));
    // A zero lastTransitionTime never becomes available (IsPodAvailable checks !IsZero).
    Some(Some(since.map_or(DateTime::<Utc>::MAX_UTC, |t| {
        t + chrono::Duration::seconds(min_ready_seconds)
    })))
}

/// `spec.replicas` with the API default of 1.
pub(crate) fn spec_replicas(obj: &Value) -> i64 {
    obj["spec"]["replicas"].as_i64().unwrap_or(1)
}

/// An integer status field (absent = 0, as Go's omitempty zero).
pub(crate) fn status_int(obj: &Value, field: &str) -> i64 {
    obj["status"][field].as_i64().unwrap_or(0)
}

/// Did a create fail because its namespace is being deleted (`NamespaceTerminatingCause`)?
pub(crate) fn namespace_terminating(e: &ApiError) -> bool {
    e.details.as_ref().is_some_and(|d| {
        d["causes"]
            .as_array()
            .is_some_and(|cs| cs.iter().any(|c| c["reason"] == "NamespaceTerminating"))
    })
}
