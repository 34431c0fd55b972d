//! The node.k8s.io group (`pkg/registry/node/runtimeclass`).

pub mod runtimeclass;
