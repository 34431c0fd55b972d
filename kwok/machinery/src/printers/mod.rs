//! Server-side printing: the Table columns and cells `kubectl get` shows, as
//! `k8s.io/kubernetes/pkg/printers/internalversion/printers.go` (1.32) builds them.
//!
//! The server always generates the wide cells (`pkg/printers/storage/storage.go` passes
//! `GenerateOptions{Wide: true}`), so [`cells`] returns one value per column of [`columns`]; kubectl
//! drops priority-1 columns itself unless `-o wide`. Integer columns carry JSON integers.

pub mod apiregistration;
pub mod autoscaling;
pub mod batch;
pub mod certificates;
mod column;
pub mod core;
pub mod default_table;
pub mod docs;
mod duration;
pub mod events;
pub mod lease;
pub mod networking;
pub mod node;
pub mod nodes;
pub mod pdb;
pub mod pods;
pub mod rbac;
pub mod scheduling;
pub mod services;
pub mod storage;
mod values;
pub mod workloads;

pub use column::Column;
pub use duration::human_duration;
