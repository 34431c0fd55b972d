//! Reading the JSON objects validation walks, with Go's zero values for what is absent: an
//! unset string is `""`, an unset list is empty.

use serde_json::Value;

/// The string at `key`, or `""`.
pub(super) fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The list at `key`, or none.
pub(super) fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}
