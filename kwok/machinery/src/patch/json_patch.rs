//! JSON Patch (RFC 6902) as the API server applies it.
//!
//! The server uses `gopkg.in/evanphx/json-patch.v4` (endpoints/handlers/patch.go `applyJSPatch`),
//! whose behaviour differs from the RFC in ways clients rely on, so this follows v4 rather than a
//! strict RFC implementation: `replace` of a missing object key adds it, negative array indices
//! count from the end, an `op` without `value` writes `null`, and the first path segment is
//! ignored (`findObject` splits on `/` and skips element 0).

use serde_json::{Map, Value};

use crate::go_json;

/// `maxJSONPatchOperations` in endpoints/handlers/patch.go.
pub const MAX_OPERATIONS: usize = 10000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonPatchError {
    /// The body is not a list of operations: 400 `error decoding patch: <msg>`.
    Decode(String),
    /// More than `MAX_OPERATIONS` operations: 413.
    TooManyOperations(usize),
    /// An operation failed. The server answers a generic 422 and drops this text; it is kept
    /// for logs and tests.
    Apply(String),
}

/// Apply the patch `body` to `doc`.
pub fn apply(doc: &Value, body: &[u8]) -> Result<Value, JsonPatchError> {
    let ops = go_json::decode(body).map_err(JsonPatchError::Decode)?;
    check_types(&ops).map_err(JsonPatchError::Decode)?;
    let ops = match ops {
        Value::Array(ops) => ops,
        _ => Vec::new(),
    };
    if ops.len() > MAX_OPERATIONS {
        return Err(JsonPatchError::TooManyOperations(ops.len()));
    }
    let mut doc = doc.clone();
    for op in &ops {
        let op = op.as_object().cloned().unwrap_or_default();
        apply_op(&mut doc, &op).map_err(JsonPatchError::Apply)?;
    }
    Ok(doc)
}

/// The strict decode into `[]handlers.jsonPatchOp` the handler does first: the body must be a
/// list of objects whose `op`, `path` and `from` are strings (or null). The first type error in
/// document order is reported, as Go's decoder does.
fn check_types(v: &Value) -> Result<(), String> {
    let items = match v {
        Value::Null => return Ok(()),
        Value::Array(items) => items,
        other => return Err(go_json::type_error(other, "[]handlers.jsonPatchOp")),
    };
    for item in items {
        match item {
            Value::Null => {}
            Value::Object(fields) => {
                for (key, value) in fields {
                    let typed = matches!(key.as_str(), "op" | "path" | "from");
                    if typed && !matches!(value, Value::String(_) | Value::Null) {
                        return Err(go_json::field_type_error(
                            value,
                            "jsonPatchOp",
                            key,
                            "string",
                        ));
                    }
                }
            }
            other => return Err(go_json::type_error(other, "handlers.jsonPatchOp")),
        }
    }
    Ok(())
}

/// A string field of an operation (`Operation.Path`, `Operation.From`).
fn string_field<'a>(op: &'a Map<String, Value>, name: &str, what: &str) -> Result<&'a str, String> {
    op.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{what}: missing value"))
}

fn apply_op(doc: &mut Value, op: &Map<String, Value>) -> Result<(), String> {
    let kind = op.get("op").and_then(Value::as_str).unwrap_or("unknown");
    // `Operation.value()`: an absent value is a nil node, which marshals as null.
    let value = op.get("value").cloned().unwrap_or(Value::Null);
    match kind {
        "add" => {
            let path = string_field(op, "path", "add operation failed to decode path")?;
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!(
                    "add operation does not apply: doc is missing path: \"{path}\": missing value"
                )
            })?;
            add(con, &key, value).map_err(|e| format!("error in add for path: '{path}': {e}"))
        }
        "remove" => {
            let path = string_field(op, "path", "remove operation failed to decode path")?;
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!("remove operation does not apply: doc is missing path: \"{path}\": missing value")
            })?;
            remove(con, &key).map_err(|e| format!("error in remove for path: '{path}': {e}"))
        }
        "replace" => {
            let path = string_field(op, "path", "replace operation failed to decode path")?;
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!(
                    "replace operation does not apply: doc is missing path: {path}: missing value"
                )
            })?;
            get(con, &key).map_err(|_| {
                format!(
                    "replace operation does not apply: doc is missing key: {path}: missing value"
                )
            })?;
            set(con, &key, value).map_err(|e| format!("error in remove for path: '{path}': {e}"))
        }
        "move" => {
            let from = string_field(op, "from", "move operation failed to decode from")?;
            let (con, key) = find_object(doc, from).ok_or_else(|| {
                format!("move operation does not apply: doc is missing from path: {from}: missing value")
            })?;
            let val =
                get(con, &key).map_err(|e| format!("error in move for path: '{key}': {e}"))?;
            remove(con, &key).map_err(|e| format!("error in move for path: '{key}': {e}"))?;
            let path = string_field(op, "path", "move operation failed to decode path")?;
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!("move operation does not apply: doc is missing destination path: {path}: missing value")
            })?;
            add(con, &key, val.unwrap_or(Value::Null))
                .map_err(|e| format!("error in move for path: '{path}': {e}"))
        }
        "copy" => {
            let from = string_field(op, "from", "copy operation failed to decode from")?;
            let (con, key) = find_object(doc, from).ok_or_else(|| {
                format!("copy operation does not apply: doc is missing from path: {from}: missing value")
            })?;
            let val =
                get(con, &key).map_err(|e| format!("error in copy for from: '{from}': {e}"))?;
            let path = string_field(op, "path", "copy operation failed to decode path")?;
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!("copy operation does not apply: doc is missing destination path: {path}: missing value")
            })?;
            add(con, &key, val.unwrap_or(Value::Null))
                .map_err(|e| format!("error while adding value during copy: {e}"))
        }
        "test" => {
            let path = string_field(op, "path", "test operation failed to decode path")?;
            let failed = || format!("testing value {path} failed: test failed");
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!("test operation does not apply: is missing path: {path}: missing value")
            })?;
            let val =
                get(con, &key).map_err(|e| format!("error in test for path: '{path}': {e}"))?;
            match (val, op.get("value")) {
                (None, Some(Value::Null)) => Ok(()),
                (Some(actual), Some(expected)) if &actual == expected => Ok(()),
                _ => Err(failed()),
            }
        }
        other => Err(format!("Unexpected kind: {other}")),
    }
}

/// RFC 6901 unescaping (`decodePatchKey`).
fn decode_key(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

/// `findObject`: the container holding the last path segment, and that segment.
fn find_object<'a>(doc: &'a mut Value, path: &str) -> Option<(&'a mut Value, String)> {
    let split: Vec<&str> = path.split('/').collect();
    if split.len() < 2 {
        return None;
    }
    let key = decode_key(split[split.len() - 1]);
    let mut cur = doc;
    for part in &split[1..split.len() - 1] {
        let part = decode_key(part);
        let next = match cur {
            Value::Object(m) => m.get_mut(&part),
            Value::Array(items) => {
                let idx = array_index(&part, items.len()).ok()?;
                items.get_mut(idx)
            }
            _ => None,
        }?;
        // A missing or null node, or a scalar, is not a container.
        if !(next.is_object() || next.is_array()) {
            return None;
        }
        cur = next;
    }
    if cur.is_object() || cur.is_array() {
        Some((cur, key))
    } else {
        None
    }
}

/// `strconv.Atoi` of an index, with v4's negative indices; the index must be in bounds.
fn array_index(key: &str, len: usize) -> Result<usize, String> {
    let idx: i64 = key.parse().map_err(|_| {
        format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            crate::error::go_quote(key)
        )
    })?;
    let len = len as i64;
    let resolved = if idx < 0 { idx + len } else { idx };
    if idx < -len || resolved >= len {
        return Err(format!(
            "Unable to access invalid index: {idx}: invalid index referenced"
        ));
    }
    Ok(resolved as usize)
}

/// `container.get`: a missing (or null) object key is not an error.
fn get(con: &Value, key: &str) -> Result<Option<Value>, String> {
    match con {
        Value::Object(m) => Ok(m.get(key).filter(|v| !v.is_null()).cloned()),
        Value::Array(items) => {
            let idx = array_index(key, items.len())?;
            Ok(Some(items[idx].clone()).filter(|v| !v.is_null()))
        }
        _ => Ok(None),
    }
}

/// `container.set` (used by replace after a successful get).
fn set(con: &mut Value, key: &str, value: Value) -> Result<(), String> {
    match con {
        Value::Object(m) => {
            m.insert(key.to_string(), value);
            Ok(())
        }
        Value::Array(items) => {
            let idx = array_index(key, items.len())?;
            items[idx] = value;
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `container.add`: `-` appends; an index may be one past the end; negative indices count from
/// the end of the grown list.
fn add(con: &mut Value, key: &str, value: Value) -> Result<(), String> {
    match con {
        Value::Object(m) => {
            m.insert(key.to_string(), value);
            Ok(())
        }
        Value::Array(items) => {
            if key == "-" {
                items.push(value);
                return Ok(());
            }
            let idx: i64 = key.parse().map_err(|_| {
                format!(
                    "value was not a proper array index: '{key}': strconv.Atoi: parsing {}: invalid syntax",
                    crate::error::go_quote(key)
                )
            })?;
            let size = items.len() as i64 + 1;
            if idx >= size || idx < -size {
                return Err(format!(
                    "Unable to access invalid index: {idx}: invalid index referenced"
                ));
            }
            let idx = if idx < 0 { idx + size } else { idx };
            items.insert(idx as usize, value);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `container.remove`: removing a missing object key is an error.
fn remove(con: &mut Value, key: &str) -> Result<(), String> {
    match con {
        Value::Object(m) => match m.shift_remove(key) {
            Some(_) => Ok(()),
            None => Err(format!(
                "Unable to remove nonexistent key: {key}: missing value"
            )),
        },
        Value::Array(items) => {
            let idx = array_index(key, items.len())?;
            items.remove(idx);
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({"metadata": {"name": "p", "labels": {"app": "a"}}, "spec": {"containers": [{"name": "c1"}, {"name": "c2"}]}})
    }

    fn run(patch: Value) -> Result<Value, JsonPatchError> {
        apply(&doc(), patch.to_string().as_bytes())
    }

    #[test]
    fn standard_operations() {
        let out = run(json!([
            {"op": "add", "path": "/metadata/labels/tier", "value": "web"},
            {"op": "remove", "path": "/metadata/labels/app"},
            {"op": "replace", "path": "/spec/containers/0/name", "value": "main"},
            {"op": "add", "path": "/spec/containers/-", "value": {"name": "c3"}},
            {"op": "copy", "from": "/metadata/name", "path": "/metadata/labels/name"},
            {"op": "move", "from": "/spec/containers/1", "path": "/spec/containers/0"},
            {"op": "test", "path": "/metadata/labels/tier", "value": "web"}
        ]))
        .unwrap();
        assert_eq!(
            out["metadata"]["labels"],
            json!({"tier": "web", "name": "p"})
        );
        assert_eq!(
            out["spec"]["containers"],
            json!([{"name": "c2"}, {"name": "main"}, {"name": "c3"}])
        );
    }

    #[test]
    fn v4_quirks_are_kept() {
        // replace of a missing object key adds it (partialDoc.get never fails in v4).
        let out =
            run(json!([{"op": "replace", "path": "/metadata/labels/new", "value": "x"}])).unwrap();
        assert_eq!(out["metadata"]["labels"]["new"], "x");
        // Negative indices count from the end.
        let out = run(json!([{"op": "remove", "path": "/spec/containers/-1"}])).unwrap();
        assert_eq!(out["spec"]["containers"], json!([{"name": "c1"}]));
        // A null JSON patch is no patch.
        assert_eq!(apply(&doc(), b"null").unwrap(), doc());
    }

    #[test]
    fn failures() {
        assert_eq!(
            run(json!([{"op": "test", "path": "/metadata/name", "value": "q"}])),
            Err(JsonPatchError::Apply(
                "testing value /metadata/name failed: test failed".into()
            ))
        );
        assert_eq!(
            run(json!([{"op": "remove", "path": "/metadata/labels/none"}])),
            Err(JsonPatchError::Apply(
                "error in remove for path: '/metadata/labels/none': Unable to remove nonexistent key: none: missing value"
                    .into()
            ))
        );
        assert_eq!(
            run(json!([{"op": "add", "path": "/status/x", "value": 1}])),
            Err(JsonPatchError::Apply(
                "add operation does not apply: doc is missing path: \"/status/x\": missing value"
                    .into()
            ))
        );
        assert!(matches!(
            run(json!([{"op": "frob", "path": "/a"}])),
            Err(JsonPatchError::Apply(m)) if m == "Unexpected kind: frob"
        ));
    }

    #[test]
    fn decode_errors_follow_the_strict_decode() {
        assert_eq!(
            run(json!({"op": "add"})),
            Err(JsonPatchError::Decode(
                "json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp".into()
            ))
        );
        assert_eq!(
            run(json!([{"op": 1, "path": "/a"}])),
            Err(JsonPatchError::Decode(
                "json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string"
                    .into()
            ))
        );
        assert_eq!(
            run(json!(["add"])),
            Err(JsonPatchError::Decode(
                "json: cannot unmarshal string into Go value of type handlers.jsonPatchOp".into()
            ))
        );
        assert_eq!(
            apply(&doc(), b"[{"),
            Err(JsonPatchError::Decode(
                "unexpected end of JSON input".into()
            ))
        );
    }

    #[test]
    fn too_many_operations() {
        let ops: Vec<Value> = (0..=MAX_OPERATIONS)
            .map(|_| json!({"op": "test", "path": "/metadata/name", "value": "p"}))
            .collect();
        assert_eq!(
            run(Value::Array(ops)),
            Err(JsonPatchError::TooManyOperations(MAX_OPERATIONS + 1))
        );
    }
}
