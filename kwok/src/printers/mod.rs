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
pub(crate) mod networking;
pub(crate) mod node;
pub(crate) mod nodes;
pub(crate) mod pdb;
pub(crate) mod pods;
pub(crate) mod rbac;
pub(crate) mod scheduling;
pub(crate) mod services;
pub(crate) mod storage;
mod values;
pub(crate) mod workloads;

pub use column::Column;
pub use duration::human_duration;

#[cfg(test)]
mod tests;
