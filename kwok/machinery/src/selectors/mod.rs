//! Label and field selectors, exactly as `k8s.io/apimachinery/pkg/labels` and `pkg/fields` parse
//! and match them, with the API server's error texts.
//!
//! - [`LabelSelector`]: `?labelSelector=` strings ([`LabelSelector::parse`]) and `metav1.LabelSelector`
//!   JSON ([`LabelSelector::from_api`]); [`format_label_selector`] / [`format_labels`] print them the way
//!   tables and `describe` do.
//! - [`FieldSelector`]: `?fieldSelector=` strings, with the per-kind supported labels
//!   ([`field_value`]) and the 400 for unsupported ones ([`FieldSelector::validate`]).
//! - [`list_selectors`] and friends: the query parameters of list/watch turned into `ApiError`s.

mod field_labels;
mod fields;
mod label_api;
mod label_parser;
mod labels;
mod request;

pub use field_labels::field_value;
pub use fields::{FieldOp, FieldSelector, FieldTerm};
pub use label_api::format_label_selector;
pub use labels::{format_labels, LabelSelector, LabelSet, Operator, Requirement};
pub use request::{field_selector_param, label_selector_param, list_selectors, selector_error};
