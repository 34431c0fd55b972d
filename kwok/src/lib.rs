//! An embedded Kubernetes-compatible control plane with kwok fake nodes.
//!
//! The API server (`http`), its storage (`store`) and semantics (`api`), the scheduler and the
//! controllers all run in one process, so a cluster is up in milliseconds with no containers. Real
//! `kubectl` talks to it through a generated kubeconfig.

pub mod admission;
pub mod api;
pub mod auth;
pub mod clock_shift;
pub mod cluster;
pub mod controllers;
pub mod convert;
pub mod cron;
pub mod decode;
pub mod defaults;
pub mod error;
pub(crate) mod go_json;
pub(crate) mod gofmt;
pub mod http;
pub mod intstr;
pub(crate) mod kinds;
pub mod names;
pub mod patch;
pub(crate) mod podresources;
pub mod podutil;
pub mod printers;
pub mod protobuf;
pub mod quantity;
pub(crate) mod quota;
pub mod registry;
pub mod saved_snapshot;
pub mod scheduler;
pub mod selectors;
pub mod store;
pub mod tls;
pub mod validation;
pub mod volumes;

pub use cluster::{Cluster, ClusterConfig};
pub use error::{ApiError, ApiResult, FieldError};
