//! The core group's kinds (`pkg/registry/core/<kind>`).

pub mod binding;
pub mod configmap;
pub mod event;
pub mod namespace;
pub mod node;
pub mod pod;
pub mod secret;
pub mod serviceaccount;
