//! JSON merge patch (RFC 7386) as the API server applies it: `jsonpatch.MergePatch` of
//! `gopkg.in/evanphx/json-patch.v4`, after the handler's strict decode of the body into
//! `map[string]interface{}` (endpoints/handlers/patch.go `applyJSPatch`).
//!
//! v4 differs from a textbook RFC 7386 merge in where it prunes nulls: a value that lands on a
//! missing (or non-object) field has its nested null fields removed, while a non-object value
//! replacing an object is taken as is.

use serde_json::{Map, Value};

use crate::go_json;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergePatchError {
    /// The body is not a JSON object: 400 `error decoding patch: <msg>`.
    Decode(String),
    /// `errBadJSONPatch` (a `null` body): 400 `Invalid JSON Patch`.
    BadPatch,
}

/// Apply the merge patch `body` to `doc`.
pub fn apply(doc: &Value, body: &[u8]) -> Result<Value, MergePatchError> {
    let patch = go_json::decode(body).map_err(MergePatchError::Decode)?;
    let patch = match patch {
        Value::Object(m) => m,
        Value::Null => return Err(MergePatchError::BadPatch),
        other => {
            return Err(MergePatchError::Decode(go_json::type_error(
                &other,
                "map[string]interface {}",
            )))
        }
    };
    let mut doc = match doc {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    merge_docs(&mut doc, patch);
    Ok(Value::Object(doc))
}

/// `mergeDocs`.
fn merge_docs(doc: &mut Map<String, Value>, patch: Map<String, Value>) {
    for (k, v) in patch {
        if v.is_null() {
            doc.shift_remove(&k);
            continue;
        }
        match doc.get_mut(&k) {
            Some(cur) if !cur.is_null() => {
                let cur = std::mem::take(cur);
                doc.insert(k, merge(cur, v));
            }
            _ => {
                let mut v = v;
                prune_nulls(&mut v);
                doc.insert(k, v);
            }
        }
    }
}

/// `merge`: objects merge; anything else is replaced by the patch value.
fn merge(cur: Value, patch: Value) -> Value {
    match (cur, patch) {
        (Value::Object(mut cur), Value::Object(p)) => {
            merge_docs(&mut cur, p);
            Value::Object(cur)
        }
        // The current value is an object but the patch is not: v4 returns the patch unpruned.
        (Value::Object(_), p) => p,
        (_, mut p) => {
            prune_nulls(&mut p);
            p
        }
    }
}

/// `pruneNulls`: drop null fields of objects at any depth; null list items stay.
fn prune_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, v| !v.is_null());
            m.values_mut().for_each(prune_nulls);
        }
        Value::Array(items) => items
            .iter_mut()
            .filter(|v| !v.is_null())
            .for_each(prune_nulls),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rfc7386_merge() {
        let doc = json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"replicas": 1, "x": [1, 2]}});
        let out = apply(
            &doc,
            br#"{"metadata":{"labels":{"a":null,"c":"3"}},"spec":{"x":[3],"y":{"z":null,"w":1}}}"#,
        )
        .unwrap();
        assert_eq!(
            out,
            json!({"metadata": {"labels": {"b": "2", "c": "3"}}, "spec": {"replicas": 1, "x": [3], "y": {"w": 1}}})
        );
    }

    #[test]
    fn errors_match_the_handler() {
        let doc = json!({});
        assert_eq!(apply(&doc, b"null"), Err(MergePatchError::BadPatch));
        assert_eq!(
            apply(&doc, b"[]"),
            Err(MergePatchError::Decode(
                "json: cannot unmarshal array into Go value of type map[string]interface {}".into()
            ))
        );
        assert_eq!(
            apply(&doc, b"{\"a\":}"),
            Err(MergePatchError::Decode(
                "invalid character '}' looking for beginning of value".into()
            ))
        );
    }
}
