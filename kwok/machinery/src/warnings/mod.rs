//! What a write that passed validation is warned of (`WarningsOnCreate`, `WarningsOnUpdate`):
//! deprecated labels, annotations, fields and volume plugins, values that validation lets through
//! although they cannot work as written. Each file follows the upstream helper it names
//! (`k8s.io/kubernetes/pkg/api/<package>`); the kinds' strategies call them. kubectl prints each
//! warning as `Warning: <text>`.

pub mod job;
pub mod node;
pub mod pod;
pub mod service;
pub mod storage;

use serde_json::Value;

use crate::quantity::Quantity;
use crate::validation::path::Path;

/// A path below an optional root (`fieldPath.Child(...)` on a possibly nil `*field.Path`).
fn under(root: Option<&Path>, parts: &[&str]) -> Path {
    let mut path = root.cloned().unwrap_or_else(|| Path::new(""));
    for part in parts {
        path = path.child(part);
    }
    path
}

/// Is the field there and not null (a Go pointer that is not nil)?
fn set(v: &Value, key: &str) -> bool {
    !v.get(key).unwrap_or(&Value::Null).is_null()
}

/// The warning for a memory or storage quantity that is not a whole number of bytes
/// (`value.MilliValue()%1000 != 0`), named by `path`.
fn fractional_bytes(path: &Path, quantity: Option<&Value>) -> Option<String> {
    let q = Quantity::parse(quantity?.as_str()?).ok()?;
    (q.milli_value() % 1000 != 0).then(|| {
        format!(
            "{}: fractional byte value {} is invalid, must be an integer",
            path.as_str(),
            crate::error::go_quote(&q.canonical())
        )
    })
}
