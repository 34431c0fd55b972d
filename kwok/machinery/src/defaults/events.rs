//! Events as Go's encoder writes them: struct and `metav1.Time` fields have no omitempty that
//! works, so a field a client left out reads back as `{}`, `""` or `null`
//! (k8s.io/api core/v1 and events/v1 `Event`).

use serde_json::{json, Map, Value};

fn absent_to(obj: &mut Map<String, Value>, key: &str, value: Value) {
    if !obj.contains_key(key) {
        obj.insert(key.into(), value);
    }
}

/// core/v1 `Event`: `involvedObject` and `source` are structs, the timestamps `metav1.Time`,
/// and `reportingComponent`/`reportingInstance` have no omitempty.
pub fn core(obj: &mut Map<String, Value>) {
    absent_to(obj, "involvedObject", json!({}));
    absent_to(obj, "source", json!({}));
    for time in ["firstTimestamp", "lastTimestamp", "eventTime"] {
        absent_to(obj, time, Value::Null);
    }
    for name in ["reportingComponent", "reportingInstance"] {
        absent_to(obj, name, json!(""));
    }
}

/// events.k8s.io/v1 `Event`: `regarding` and `deprecatedSource` are structs, `eventTime` and the
/// deprecated timestamps are times.
pub fn v1(obj: &mut Map<String, Value>) {
    absent_to(obj, "regarding", json!({}));
    absent_to(obj, "deprecatedSource", json!({}));
    for time in [
        "eventTime",
        "deprecatedFirstTimestamp",
        "deprecatedLastTimestamp",
    ] {
        absent_to(obj, time, Value::Null);
    }
}
