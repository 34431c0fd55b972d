//! The `rbac.authorization.k8s.io` group's kinds (`pkg/registry/rbac/<kind>`). What they grant
//! is read by the authorizer ([`crate::auth`]).

pub mod bootstrap_policy;
pub mod clusterrole;
pub mod clusterrolebinding;
pub mod role;
pub mod rolebinding;
