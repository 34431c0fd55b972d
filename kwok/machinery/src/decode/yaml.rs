//! `application/yaml` bodies: converted to JSON first, as sigs.k8s.io/yaml `YAMLToJSON` does in the
//! apiserver's YAML serializer. Only the first document counts; non-string keys become strings.
//!
//! Difference: YAML 1.1 booleans (`yes`, `on`, ...) stay strings here (serde_yaml is YAML 1.2).

use serde::Deserialize;
use serde_json::{Map, Number, Value};

/// Convert; the error is sigs.k8s.io/yaml's `error converting YAML to JSON: yaml: ...`.
pub fn to_json_value(body: &[u8]) -> Result<Value, String> {
    let mut docs = serde_yaml::Deserializer::from_slice(body);
    let Some(doc) = docs.next() else {
        return Ok(Value::Null);
    };
    let y = serde_yaml::Value::deserialize(doc)
        .map_err(|e| format!("error converting YAML to JSON: yaml: {e}"))?;
    Ok(convert(y))
}

fn key_string(k: serde_yaml::Value) -> String {
    match k {
        serde_yaml::Value::String(s) => s,
        serde_yaml::Value::Null => "null".into(),
        serde_yaml::Value::Bool(b) => b.to_string(),
        serde_yaml::Value::Number(n) => n.to_string(),
        serde_yaml::Value::Tagged(t) => key_string(t.value),
        other => serde_json::to_string(&convert(other)).unwrap_or_default(),
    }
}

fn convert(y: serde_yaml::Value) -> Value {
    match y {
        serde_yaml::Value::Null => Value::Null,
        serde_yaml::Value::Bool(b) => Value::Bool(b),
        serde_yaml::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Number(i.into())
            } else if let Some(u) = n.as_u64() {
                Value::Number(u.into())
            } else {
                n.as_f64()
                    .and_then(Number::from_f64)
                    .map(Value::Number)
                    .unwrap_or(Value::Null)
            }
        }
        serde_yaml::Value::String(s) => Value::String(s),
        serde_yaml::Value::Sequence(items) => {
            Value::Array(items.into_iter().map(convert).collect())
        }
        serde_yaml::Value::Mapping(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                out.insert(key_string(k), convert(v));
            }
            Value::Object(out)
        }
        serde_yaml::Value::Tagged(t) => convert(t.value),
    }
}
