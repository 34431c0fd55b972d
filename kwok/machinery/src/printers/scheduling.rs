//! scheduling.k8s.io PriorityClasses (`printPriorityClass` in printers.go).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::docs;
use super::values::{age, name};

pub const PRIORITY_CLASS_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Value", "integer", docs::PRIORITY_CLASS_VALUE),
    Column::new(
        "Global-Default",
        "boolean",
        docs::PRIORITY_CLASS_GLOBAL_DEFAULT,
    ),
    Column::age(),
    Column::new(
        "PreemptionPolicy",
        "string",
        docs::PRIORITY_CLASS_PREEMPTION_POLICY,
    ),
];

pub fn priority_class_cells(pc: &Value, now: DateTime<Utc>) -> Vec<Value> {
    vec![
        name(pc),
        Value::from(pc["value"].as_i64().unwrap_or(0)),
        Value::from(pc["globalDefault"].as_bool().unwrap_or(false)),
        age(pc, now),
        Value::from(pc["preemptionPolicy"].as_str().unwrap_or("")),
    ]
}
