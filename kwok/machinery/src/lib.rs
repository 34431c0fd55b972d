//! The API machinery below the embedded cluster's kinds: what a kind's rules are written in,
//! and nothing that knows which kinds exist.
//!
//! Two layers, bottom first (`tests/layers.rs` holds them to it):
//! - **values**: errors, object metadata, names, quantities, int-or-string, Go's JSON and `fmt`
//!   forms, users, certificates, cron schedules, the OpenAPI definitions, defaulting, TLS, pod
//!   resources;
//! - **machinery**: field ownership, selectors, patches, protobuf, printers, validation,
//!   warnings, volumes, pod helpers, the scheduler's plugins, body decoding, request options.
//!
//! A separate crate, so that nothing here can reach up into the kinds, the store or the API
//! server: such an edge does not compile.

pub mod certificate_request;
pub mod cron;
pub mod decode;
pub mod defaults;
pub mod definitions;
pub mod error;
pub mod fieldmanager;
pub mod go_json;
pub mod gofmt;
pub mod intstr;
pub mod meta;
pub mod names;
pub mod options;
pub mod patch;
pub mod podresources;
pub mod podutil;
pub mod printers;
pub mod protobuf;
pub use quantity;
pub mod resource_names;
pub mod scheduler;
pub mod selectors;
pub mod tls;
pub mod user;
pub mod validation;
pub mod volumes;
pub mod warnings;

pub use error::{ApiError, ApiResult, FieldError};
