//! Small readers of stored objects shared by the workload controllers: pod state as
//! `podutil` sees it, replica counts, timestamps, Go's sorted maps.

use serde_json::{Map, Value};

pub(crate) use crate::podutil::{is_pod_active, is_pod_ready, parse_time};

/// A JSON object with its keys sorted, as Go encodes a `map[string]string`.
pub(crate) fn sorted(map: &Map<String, Value>) -> Map<String, Value> {
    let mut pairs: Vec<(&String, &Value)> = map.iter().collect();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    pairs
        .into_iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `spec.replicas` with the API default of 1.
pub(crate) fn spec_replicas(obj: &Value) -> i64 {
    obj["spec"]["replicas"].as_i64().unwrap_or(1)
}

/// An integer status field (absent = 0, as Go's omitempty zero).
pub(crate) fn status_int(obj: &Value, field: &str) -> i64 {
    obj["status"][field].as_i64().unwrap_or(0)
}
