//! PodDisruptionBudgets (`printPodDisruptionBudget` in printers.go).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::values::{age, at, int_at, int_or_string, name};

pub const COLUMNS: &[Column] = &[
    Column::name(),
    Column::new(
        "Min Available",
        "string",
        "The minimum number of pods that must be available.",
    ),
    Column::new(
        "Max Unavailable",
        "string",
        "The maximum number of pods that may be unavailable.",
    ),
    Column::new(
        "Allowed Disruptions",
        "integer",
        "Calculated number of pods that may be disrupted at this time.",
    ),
    Column::age(),
];

/// `IntOrString.String()` of a bound, `N/A` when it is not set.
fn bound(pdb: &Value, field: &str) -> Value {
    Value::from(int_or_string(at(pdb, &["spec", field])).unwrap_or_else(|| "N/A".to_string()))
}

pub fn cells(pdb: &Value, now: DateTime<Utc>) -> Vec<Value> {
    vec![
        name(pdb),
        bound(pdb, "minAvailable"),
        bound(pdb, "maxUnavailable"),
        Value::from(int_at(pdb, &["status", "disruptionsAllowed"])),
        age(pdb, now),
    ]
}
