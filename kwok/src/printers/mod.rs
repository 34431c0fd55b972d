//! Server-side printing: the Table columns and cells `kubectl get` shows, as
//! `k8s.io/kubernetes/pkg/printers/internalversion/printers.go` (1.32) builds them.
//!
//! The server always generates the wide cells (`pkg/printers/storage/storage.go` passes
//! `GenerateOptions{Wide: true}`), so [`cells`] returns one value per column of [`columns`]; kubectl
//! drops priority-1 columns itself unless `-o wide`. Integer columns carry JSON integers.

pub(crate) mod apiregistration;
pub(crate) mod autoscaling;
pub(crate) mod batch;
pub(crate) mod certificates;
mod column;
pub(crate) mod core;
pub(crate) mod default_table;
pub(crate) mod docs;
mod duration;
pub(crate) mod events;
pub(crate) mod lease;
pub(crate) mod network;
pub(crate) mod networking;
pub(crate) mod nodes;
pub(crate) mod pdb;
pub(crate) mod pods;
pub(crate) mod rbac;
pub(crate) mod scheduling;
pub(crate) mod storage;
mod table;
mod values;
pub(crate) mod workloads;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::resource::ResourceDef;

pub use column::Column;
pub use duration::human_duration;
pub use table::{table, IncludeObject};

/// The column definitions of `res`, wide ones included: its kind's printer's
/// ([`crate::kinds`]), or upstream's default table convertor's.
pub fn columns(res: &ResourceDef) -> Vec<Column> {
    res.strategy.columns().to_vec()
}

/// The cells of one object, one per column of [`columns`], as of `now`.
pub fn cells(res: &ResourceDef, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
    res.strategy.cells(obj, now)
}

/// The row `conditions` (only finished pods have any: `Completed` with reason Succeeded/Failed).
pub fn row_conditions(res: &ResourceDef, obj: &Value) -> Option<Value> {
    res.strategy.row_conditions(obj)
}

#[cfg(test)]
mod tests;
