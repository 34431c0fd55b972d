//! An embedded Kubernetes-compatible control plane with kwok fake nodes.
//!
//! The API server (`http`), its storage (`store`) and semantics (`api`), the scheduler and the
//! controllers all run in one process, so a cluster is up in milliseconds with no containers. Real
//! `kubectl` talks to it through a generated kubeconfig.

pub(crate) mod admission;
pub mod api;
pub(crate) mod auth;
pub(crate) mod certificate_request;
pub mod clock_shift;
pub mod cluster;
pub mod controllers;
pub(crate) mod convert;
pub(crate) mod cron;
pub mod debugging;
pub mod decode;
pub(crate) mod defaults;
pub(crate) mod definitions;
pub(crate) mod error;
pub(crate) mod fieldmanager;
pub(crate) mod go_json;
pub(crate) mod gofmt;
pub mod http;
pub(crate) mod intstr;
pub(crate) mod kinds;
pub(crate) mod meta;
pub(crate) mod names;
pub(crate) mod options;
pub mod patch;
pub(crate) mod podresources;
pub(crate) mod podutil;
pub(crate) mod printers;
pub mod protobuf;
pub(crate) mod quantity;
pub(crate) mod quota;
pub mod registry;
pub mod resource;
pub mod resource_names;
pub mod saved_snapshot;
pub(crate) mod scheduler;
pub mod selectors;
pub mod store;
pub(crate) mod tls;
pub mod user;
pub(crate) mod validation;
pub(crate) mod volumes;
pub(crate) mod warnings;

pub use cluster::{Cluster, ClusterConfig};
pub use error::{ApiError, ApiResult, FieldError};
