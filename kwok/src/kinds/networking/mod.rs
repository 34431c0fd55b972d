//! The networking.k8s.io group's kinds (`pkg/registry/networking/<kind>`).

pub mod ingress;
pub mod ingressclass;
pub mod networkpolicy;
