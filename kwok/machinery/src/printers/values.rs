//! Reading the JSON objects the store holds, with Go's zero values for anything absent, so a printer
//! never fails on a sparse or odd object.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

/// The value at `path`, `Null` when any step is missing.
pub fn at<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    path.iter().fold(v, |cur, key| &cur[*key])
}

pub fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    at(v, path).as_str().unwrap_or("")
}

/// An integer field (`0` when unset); floats are truncated as Go's decoder would reject them anyway.
pub fn int_of(v: &Value) -> i64 {
    v.as_i64()
        .or_else(|| v.as_u64().map(|u| i64::try_from(u).unwrap_or(i64::MAX)))
        .or_else(|| v.as_f64().map(|f| f as i64))
        .unwrap_or(0)
}

pub fn int_at(v: &Value, path: &[&str]) -> i64 {
    int_of(at(v, path))
}

pub fn bool_at(v: &Value, path: &[&str]) -> bool {
    at(v, path).as_bool().unwrap_or(false)
}

pub fn arr_at<'a>(v: &'a Value, path: &[&str]) -> &'a [Value] {
    at(v, path).as_array().map(Vec::as_slice).unwrap_or(&[])
}

pub fn obj_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Map<String, Value>> {
    at(v, path).as_object()
}

/// A pointer-typed sub-object (`state.running`, `deletionTimestamp`...): set when present and not null.
pub fn is_set(v: &Value) -> bool {
    !v.is_null()
}

/// `metav1.Time` / `metav1.MicroTime` (RFC 3339); `None` is Go's zero time.
pub fn time_of(v: &Value) -> Option<DateTime<Utc>> {
    v.as_str()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

pub fn time_at(v: &Value, path: &[&str]) -> Option<DateTime<Utc>> {
    time_of(at(v, path))
}

pub fn name(obj: &Value) -> Value {
    Value::from(str_at(obj, &["metadata", "name"]))
}

/// The AGE cell: `translateTimestampSince(obj.CreationTimestamp)`.
pub fn age(obj: &Value, now: DateTime<Utc>) -> Value {
    Value::from(super::duration::since(
        time_at(obj, &["metadata", "creationTimestamp"]),
        now,
    ))
}

/// `layoutContainerCells`: container names and images, each comma-joined.
pub fn container_cells(pod_spec: &Value) -> (Value, Value) {
    let containers = arr_at(pod_spec, &["containers"]);
    let names: Vec<&str> = containers.iter().map(|c| str_at(c, &["name"])).collect();
    let images: Vec<&str> = containers.iter().map(|c| str_at(c, &["image"])).collect();
    (Value::from(names.join(",")), Value::from(images.join(",")))
}

/// `intstr.IntOrString.String()`, or `None` when the field is unset.
pub fn int_or_string(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(int_of(other).to_string()),
    }
}
