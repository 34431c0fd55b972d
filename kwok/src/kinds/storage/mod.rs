//! The storage.k8s.io group's kinds (`pkg/registry/storage/<kind>`).

pub mod csidriver;
pub mod csinode;
pub mod csistoragecapacity;
pub mod storageclass;
pub mod volumeattachment;
