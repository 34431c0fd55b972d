//! The scheduling.k8s.io group (`pkg/registry/scheduling/priorityclass`).

pub mod priorityclass;
