//! The coordination.k8s.io group (`pkg/registry/coordination/lease`).

pub mod lease;
