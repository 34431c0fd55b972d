//! The `discovery.k8s.io` group's kinds (`pkg/registry/discovery/<kind>`).

pub mod endpointslice;
