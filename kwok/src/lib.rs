//! An embedded Kubernetes-compatible control plane with kwok fake nodes.
//!
//! The API server (`http`), its storage (`store`) and semantics (`api`), the scheduler and the
//! controllers all run in one process, so a cluster is up in milliseconds with no containers. Real
//! `kubectl` talks to it through a generated kubeconfig.

pub(crate) mod admission;
pub mod api;
pub(crate) mod auth;
pub(crate) use kwok_machinery::certificate_request;
pub mod clock_shift;
pub mod cluster;
pub mod controllers;
pub(crate) mod convert;
pub(crate) use kwok_machinery::cron;
pub mod debugging;
pub use kwok_machinery::decode;
pub(crate) use kwok_machinery::defaults;
pub(crate) use kwok_machinery::definitions;
pub(crate) use kwok_machinery::error;
pub(crate) use kwok_machinery::fieldmanager;
pub(crate) use kwok_machinery::go_json;
pub(crate) use kwok_machinery::gofmt;
pub mod http;
pub(crate) use kwok_machinery::intstr;
pub(crate) mod kinds;
pub(crate) use kwok_machinery::meta;
pub(crate) use kwok_machinery::names;
pub(crate) use kwok_machinery::options;
pub use kwok_machinery::patch;
pub(crate) use kwok_machinery::podresources;
pub(crate) use kwok_machinery::podutil;
pub(crate) use kwok_machinery::printers;
pub use kwok_machinery::protobuf;
pub(crate) use kwok_machinery::quantity;
pub(crate) mod quota;
pub mod registry;
pub mod resource;
pub use kwok_machinery::resource_names;
pub mod saved_snapshot;
pub(crate) use kwok_machinery::scheduler;
pub use kwok_machinery::selectors;
pub mod store;
pub(crate) use kwok_machinery::tls;
pub use kwok_machinery::user;
pub(crate) use kwok_machinery::validation;
pub(crate) use kwok_machinery::volumes;
pub(crate) use kwok_machinery::warnings;

#[cfg(test)]
mod tests;

pub use cluster::{Cluster, ClusterConfig};
pub use error::{ApiError, ApiResult, FieldError};
