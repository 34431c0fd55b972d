//! The table of a resource without a dedicated printer: `apiserver pkg/registry/rest/table.go`
//! (`defaultTableConvertor`) — the name and the creation time as an RFC 3339 UTC date. (Custom
//! resources print an `Age`, but that is the apiextensions convertor, not this one.)

use serde_json::Value;

use super::column::Column;
use super::docs;
use super::values::{name, time_at};

pub const COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Created At", "date", docs::CREATION_TIMESTAMP),
];

pub fn cells(obj: &Value) -> Vec<Value> {
    // `GetCreationTimestamp().Time.UTC().Format(time.RFC3339)`; the zero time prints as year 1.
    let created = time_at(obj, &["metadata", "creationTimestamp"])
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| "0001-01-01T00:00:00Z".to_string());
    vec![name(obj), Value::from(created)]
}
