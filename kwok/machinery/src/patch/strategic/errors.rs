//! Strategic merge patch errors: the `mergepatch` sentinels and the formatted errors of
//! k8s.io/apimachinery `pkg/util/mergepatch/errors.go`, and how the API server classifies them.

use serde_json::{Map, Value};

use crate::gofmt::{go_s, go_type, go_v};

// Sentinel errors of k8s.io/apimachinery/pkg/util/mergepatch/errors.go.
pub const ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST: &str = "invalid patch format of primitive list";
pub const ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS: &str = "invalid patch format of retainKeys";
pub const ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST: &str =
    "invalid patch format of setElementOrder list";
pub const ERR_NO_LIST_OF_LISTS: &str = "lists of lists are not supported";

/// A strategic merge patch failure, classified the way the API server's
/// `interpretStrategicMergePatchError` (endpoints/handlers/patch.go) classifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SmpError {
    /// One of the `ErrBadPatchFormat...` sentinels: 400 BadRequest with this message.
    BadRequest(&'static str),
    /// `ErrNoListOfLists` / `ErrPatchContentNotMatchRetainKeys`: a 422.
    Unprocessable(&'static str),
    /// Any other error: not a Status, so the server answers 500 with the bare message.
    Other(String),
}

pub type Result<T> = std::result::Result<T, SmpError>;

pub(super) fn err_no_merge_key(m: &Map<String, Value>, key: &str) -> SmpError {
    SmpError::Other(format!(
        "map: {} does not contain declared merge key: {key}",
        go_v(&Value::Object(m.clone()))
    ))
}

pub(super) fn err_bad_arg_type(expected: &str, actual: &Value) -> SmpError {
    SmpError::Other(format!(
        "expected a {expected}, but received a {}",
        go_type(actual)
    ))
}

pub(super) fn err_bad_patch_type(t: &Value, m: &Map<String, Value>) -> SmpError {
    SmpError::Other(format!(
        "unknown patch type: {} in map: {}",
        go_s(t),
        go_v(&Value::Object(m.clone()))
    ))
}

pub(super) const MAP_TYPE: &str = "map[string]interface {}";
pub(super) const SLICE_TYPE: &str = "[]interface {}";
