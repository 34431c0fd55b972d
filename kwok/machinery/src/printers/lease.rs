//! coordination.k8s.io Leases (`printLease` in printers.go).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::docs;
use super::values::{age, name, str_at};

pub const COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Holder", "string", docs::LEASE_HOLDER),
    Column::age(),
];

pub fn cells(lease: &Value, now: DateTime<Utc>) -> Vec<Value> {
    vec![
        name(lease),
        Value::from(str_at(lease, &["spec", "holderIdentity"])),
        age(lease, now),
    ]
}
