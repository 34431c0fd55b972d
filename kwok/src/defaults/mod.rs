//! Defaulting: what the apiserver fills in on every create and update before validation
//! (k8s.io/kubernetes pkg/apis/*/v1 `SetDefaults_*`, the generated defaulters, the bits of v1
//! conversion that rewrite fields). The admission plugins that fill in pod fields come after,
//! in the admission module.
//!
//! Each kind's module ([`crate::kinds`]) says which of these its objects get; strategy-level
//! resets (status on create, generation) are the kind's too.

pub(crate) mod batch;
pub(crate) mod core;
pub(crate) mod events;
pub(crate) mod fields;
mod image;
pub(crate) mod pod;
pub(crate) mod rbac;
pub(crate) mod services;
pub(crate) mod workloads;

#[cfg(test)]
mod tests;
