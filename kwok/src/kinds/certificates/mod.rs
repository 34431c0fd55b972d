//! The certificates.k8s.io group (`pkg/registry/certificates/certificates`).

pub mod certificatesigningrequest;
