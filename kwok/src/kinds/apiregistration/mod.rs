//! The apiregistration.k8s.io group (kube-aggregator's `pkg/registry/apiservice`).

pub mod apiservice;
