//! Small helpers to read and default fields of a JSON object the way Go's zero values work:
//! an absent or null field is `nil`, and `""`/`0` are the zero values defaulting replaces.

use serde_json::{Map, Value};

/// The object under `key`, created when absent or null; `None` when it holds something else.
pub fn child<'a>(m: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    let slot = m.entry(key.to_string()).or_insert(Value::Null);
    if slot.is_null() {
        *slot = Value::Object(Map::new());
    }
    slot.as_object_mut()
}

/// The object under `key`, only when present.
pub fn existing<'a>(
    m: &'a mut Map<String, Value>,
    key: &str,
) -> Option<&'a mut Map<String, Value>> {
    m.get_mut(key).and_then(Value::as_object_mut)
}

/// Each object of the list under `key`.
pub fn each<'a>(
    m: &'a mut Map<String, Value>,
    key: &str,
) -> impl Iterator<Item = &'a mut Map<String, Value>> {
    m.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}

/// Is the field nil (absent or null)?
pub fn is_nil(m: &Map<String, Value>, key: &str) -> bool {
    m.get(key).is_none_or(Value::is_null)
}

/// Is the field its Go zero value (nil, `""`, `0`, `false`)?
pub fn is_zero(m: &Map<String, Value>, key: &str) -> bool {
    match m.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Number(n)) => n.as_f64() == Some(0.0),
        Some(Value::Bool(b)) => !b,
        Some(_) => false,
    }
}

/// Set `key` when it is nil (a pointer field left unset).
pub fn default_nil(m: &mut Map<String, Value>, key: &str, v: Value) {
    if is_nil(m, key) {
        m.insert(key.to_string(), v);
    }
}

/// Set `key` when it holds its zero value (a value field left unset).
pub fn default_zero(m: &mut Map<String, Value>, key: &str, v: Value) {
    if is_zero(m, key) {
        m.insert(key.to_string(), v);
    }
}

pub fn str_of<'a>(m: &'a Map<String, Value>, key: &str) -> &'a str {
    m.get(key).and_then(Value::as_str).unwrap_or("")
}
