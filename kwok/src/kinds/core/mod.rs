//! The core group's kinds (`pkg/registry/core/<kind>`).

pub mod binding;
pub mod configmap;
pub mod endpoints;
pub mod event;
pub mod limitrange;
pub mod namespace;
pub mod node;
pub mod persistentvolume;
pub mod persistentvolumeclaim;
pub mod pod;
pub mod podtemplate;
pub mod replicationcontroller;
pub mod resourcequota;
pub mod secret;
pub mod service;
mod service_alloc;
pub mod serviceaccount;
