//! The `apiextensions.k8s.io` group (`apiextensions-apiserver/pkg/registry`).

pub mod customresourcedefinition;
