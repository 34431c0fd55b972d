//! Path elements of field ownership (structured-merge-diff `fieldpath.PathElement`): a struct or
//! map field, an associative list item by its key fields, a set item by its value, or a list
//! index. Their order, string form and `FieldsV1` key form follow `element.go` and
//! `serialize-pe.go`.

use std::cmp::Ordering;
use std::fmt;

use serde_json::Value;

#[derive(Clone, Debug)]
pub enum PathElement {
    Field(String),
    /// An associative list item's key fields, sorted by name.
    Key(Vec<(String, Value)>),
    Value(Value),
    Index(usize),
}

impl PathElement {
    /// `f:name`, `k:{"name":"c"}`, `v:"x"`, `i:0` (`SerializePathElement`).
    pub fn serialize(&self) -> String {
        match self {
            PathElement::Field(name) => format!("f:{name}"),
            PathElement::Key(fields) => {
                let body: Vec<String> = fields
                    .iter()
                    .map(|(name, v)| format!("{}:{}", json(&Value::from(name.as_str())), json(v)))
                    .collect();
                format!("k:{{{}}}", body.join(","))
            }
            PathElement::Value(v) => format!("v:{}", json(v)),
            PathElement::Index(i) => format!("i:{i}"),
        }
    }

    /// `DeserializePathElement`.
    pub fn deserialize(s: &str) -> Result<PathElement, String> {
        // A client may send any key: one whose second byte is inside a character is no path
        // element (and must not be split there).
        let (Some(kind), Some(rest)) = (s.get(..2), s.get(2..)) else {
            return Err(format!("key must be 2 characters long: {s}"));
        };
        match kind {
            "f:" => Ok(PathElement::Field(rest.to_owned())),
            "v:" => serde_json::from_str(rest)
                .map(PathElement::Value)
                .map_err(|e| e.to_string()),
            "k:" => {
                let Value::Object(map) =
                    serde_json::from_str::<Value>(rest).map_err(|e| e.to_string())?
                else {
                    return Err(format!("key is not an object: {rest}"));
                };
                let mut fields: Vec<(String, Value)> = map.into_iter().collect();
                fields.sort_by(|a, b| a.0.cmp(&b.0));
                Ok(PathElement::Key(fields))
            }
            "i:" => rest
                .parse()
                .map(PathElement::Index)
                .map_err(|e| e.to_string()),
            _ if s.as_bytes()[1] != b':' => Err(format!("missing colon: {s}")),
            _ => Err("unknown path element type".into()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            PathElement::Field(_) => 0,
            PathElement::Key(_) => 1,
            PathElement::Value(_) => 2,
            PathElement::Index(_) => 3,
        }
    }
}

fn json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// `PathElement.Compare`: fields before keys before values before indexes.
impl Ord for PathElement {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (PathElement::Field(a), PathElement::Field(b)) => a.cmp(b),
            (PathElement::Key(a), PathElement::Key(b)) => compare_fields(a, b),
            (PathElement::Value(a), PathElement::Value(b)) => compare_values(a, b),
            (PathElement::Index(a), PathElement::Index(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for PathElement {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for PathElement {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for PathElement {}

/// `PathElement.String`: `.name`, `[name="c"]`, `[="x"]`, `[0]`.
impl fmt::Display for PathElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathElement::Field(name) => write!(f, ".{name}"),
            PathElement::Key(fields) => {
                let parts: Vec<String> = fields
                    .iter()
                    .map(|(name, v)| format!("{name}={}", to_string(v)))
                    .collect();
                write!(f, "[{}]", parts.join(","))
            }
            PathElement::Value(v) => write!(f, "[={}]", to_string(v)),
            PathElement::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A path as `Path.String` prints it: its elements one after another.
pub fn path_string(path: &[PathElement]) -> String {
    path.iter().map(ToString::to_string).collect()
}

/// `value.ToString`: strings quoted as Go's `%q`, lists and maps in brackets and braces.
fn to_string(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::String(s) => crate::error::go_quote(s),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(to_string).collect();
            format!("[{}]", parts.join(","))
        }
        Value::Object(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k}={}", to_string(v)))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
    }
}

/// `FieldList.Compare`: field by field, name then value, the shorter first.
fn compare_fields(a: &[(String, Value)], b: &[(String, Value)]) -> Ordering {
    for ((an, av), (bn, bv)) in a.iter().zip(b) {
        let c = an.cmp(bn).then_with(|| compare_values(av, bv));
        if c != Ordering::Equal {
            return c;
        }
    }
    a.len().cmp(&b.len())
}

/// `value.Compare`: numbers (integers and floats compared as numbers), then strings, booleans,
/// lists, maps, and null last.
pub fn compare_values(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Number(_) => 0,
            Value::String(_) => 1,
            Value::Bool(_) => 2,
            Value::Array(_) => 3,
            Value::Object(_) => 4,
            Value::Null => 5,
        }
    }
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => {
                let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
                x.partial_cmp(&y).unwrap_or(Ordering::Equal)
            }
        },
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                let c = compare_values(p, q);
                if c != Ordering::Equal {
                    return c;
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut xs: Vec<_> = x.iter().collect();
            let mut ys: Vec<_> = y.iter().collect();
            xs.sort_by(|p, q| p.0.cmp(q.0));
            ys.sort_by(|p, q| p.0.cmp(q.0));
            for ((xk, xv), (yk, yv)) in xs.iter().zip(&ys) {
                let c = xk.cmp(yk).then_with(|| compare_values(xv, yv));
                if c != Ordering::Equal {
                    return c;
                }
            }
            xs.len().cmp(&ys.len())
        }
        _ => rank(a).cmp(&rank(b)),
    }
}

/// `value.Equals`: deep equality where `1` and `1.0` are the same number.
pub fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| values_equal(v, w)))
        }
        _ => compare_values(a, b) == Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn elements_serialize_as_fieldsv1_keys_and_back() {
        let key = PathElement::Key(vec![
            ("containerPort".into(), json!(80)),
            ("protocol".into(), json!("TCP")),
        ]);
        assert_eq!(
            key.serialize(),
            r#"k:{"containerPort":80,"protocol":"TCP"}"#
        );
        assert_eq!(
            PathElement::deserialize(r#"k:{"protocol":"TCP","containerPort":80}"#),
            Ok(key.clone())
        );
        assert_eq!(key.to_string(), r#"[containerPort=80,protocol="TCP"]"#);
        assert_eq!(PathElement::Value(json!("a")).serialize(), r#"v:"a""#);
        assert_eq!(PathElement::deserialize("i:3"), Ok(PathElement::Index(3)));
        assert!(PathElement::deserialize("x").is_err());
        assert!(PathElement::deserialize("q:a").is_err());
        assert!(PathElement::deserialize("aé:x").is_err());
        assert!(PathElement::deserialize("é").is_err());
    }

    #[test]
    fn elements_order_as_structured_merge_diff() {
        let mut all = [
            PathElement::Index(0),
            PathElement::Value(json!("b")),
            PathElement::Key(vec![("port".into(), json!(10))]),
            PathElement::Key(vec![("port".into(), json!(9))]),
            PathElement::Field("b".into()),
            PathElement::Field("a".into()),
        ];
        all.sort();
        let names: Vec<String> = all.iter().map(PathElement::serialize).collect();
        assert_eq!(
            names,
            [
                "f:a",
                "f:b",
                r#"k:{"port":9}"#,
                r#"k:{"port":10}"#,
                r#"v:"b""#,
                "i:0"
            ]
        );
        assert!(values_equal(&json!(1), &json!(1.0)));
    }
}
