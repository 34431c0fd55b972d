//! The request pipeline's calls into decoding, defaulting, validation and patching, kept in one
//! place so the verbs read as the apiserver's handler chain does.

use serde_json::Value;

use super::options::FieldValidation;
use crate::error::{ApiError, ApiResult, FieldError};
use crate::registry::ResourceDef;

/// Decode a request body into the stored form; returns the object and the warnings for
/// `Warning:` headers.
pub fn decode(
    res: &'static ResourceDef,
    body: &[u8],
    validation: FieldValidation,
) -> ApiResult<(Value, Vec<String>)> {
    let v = serde_json::from_slice::<Value>(body)
        .map_err(|e| ApiError::bad_request(format!("json parse error: {e}")))?;
    let _ = (res, validation);
    Ok((v, Vec::new()))
}

pub fn default(res: &'static ResourceDef, obj: &mut Value) {
    let _ = (res, obj);
}

pub fn validate_create(res: &'static ResourceDef, obj: &Value) -> Vec<FieldError> {
    let _ = (res, obj);
    Vec::new()
}

pub fn validate_update(res: &'static ResourceDef, new: &Value, old: &Value) -> Vec<FieldError> {
    let _ = (res, new, old);
    Vec::new()
}

pub fn validate_status_update(
    res: &'static ResourceDef,
    new: &Value,
    old: &Value,
) -> Vec<FieldError> {
    let _ = (res, new, old);
    Vec::new()
}

/// Patch content types understood by the server.
pub use crate::patch::PatchType as PatchKind;

pub fn patch(
    res: &'static ResourceDef,
    original: &Value,
    kind: PatchKind,
    body: &[u8],
) -> ApiResult<Value> {
    crate::patch::apply(res, original, kind, body)
}

/// A compiled selector over stored objects.
pub type Predicate = Box<dyn Fn(&Value) -> bool + Send + Sync>;

pub fn parse_label_selector(s: &str) -> ApiResult<Predicate> {
    let sel = crate::selectors::label_selector_param(s)?;
    Ok(Box::new(move |obj: &Value| sel.matches(super::meta::labels(obj))))
}

pub fn parse_field_selector(res: &'static ResourceDef, s: &str) -> ApiResult<Predicate> {
    let sel = crate::selectors::field_selector_param(res, s)?;
    Ok(Box::new(move |obj: &Value| sel.matches(res, obj)))
}
