//! Defaulting: what the apiserver fills in on every create and update before validation
//! (k8s.io/kubernetes pkg/apis/*/v1 `SetDefaults_*`, the generated defaulters, the bits of v1
//! conversion that rewrite fields). The admission plugins that fill in pod fields come after,
//! in the admission module.
//!
//! Each kind's module (`kwok::kinds`) says which of these its objects get; strategy-level
//! resets (status on create, generation) are the kind's too.

pub mod batch;
pub mod core;
pub mod events;
pub mod fields;
mod image;
pub mod pod;
pub mod rbac;
pub mod resources;
pub mod services;
pub mod workloads;
