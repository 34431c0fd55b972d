//! node.k8s.io RuntimeClasses (`printRuntimeClass` in printers.go).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::values::{age, name};

/// The handler column's description is `ObjectMeta`'s doc for a field it does not have: empty.
pub const RUNTIME_CLASS_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Handler", "string", ""),
    Column::age(),
];

pub fn runtime_class_cells(rc: &Value, now: DateTime<Utc>) -> Vec<Value> {
    vec![
        name(rc),
        Value::from(rc["handler"].as_str().unwrap_or("")),
        age(rc, now),
    ]
}
