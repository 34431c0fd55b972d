//! Who a request comes from and what it may do: authentication (the cluster's admin token and
//! service account tokens), impersonation, and the RBAC authorizer, as the API server's filter
//! chain applies them (`staging/src/k8s.io/apiserver/pkg/endpoints/filters`).

pub mod attributes;
pub mod impersonation;
pub mod rbac;
pub mod reviews;
pub mod signers;
pub mod token;
pub mod x509;

pub use crate::user::{split_service_account, UserInfo, AUTHENTICATED};
