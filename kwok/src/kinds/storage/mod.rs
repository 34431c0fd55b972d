//! The storage.k8s.io group's kinds (`pkg/registry/storage/<kind>`).

pub mod storageclass;
