//! Selectors arriving as list/watch query parameters, turned into the API server's errors.
//!
//! `apiserver pkg/endpoints/handlers/get.go` (`ListResource`) decodes the query into
//! `metainternalversion.ListOptions`; the conversion parses `labelSelector` first
//! (`Convert_string_To_labels_Selector` → `labels.Parse`), then `fieldSelector`
//! (`fields.ParseSelector`), and a failure becomes `errors.NewBadRequest(err.Error())`. Then the field
//! selector is transformed through the kind's field label conversion, and a rejected label is again
//! `errors.NewBadRequest(err.Error())`. So every selector error is a 400 `BadRequest` whose message is
//! the bare parser/conversion text, with no details.

// `ApiError` is the crate-wide error type; its size is the error module's concern.
#![allow(clippy::result_large_err)]

use super::fields::FieldSelector;
use super::labels::LabelSelector;
use crate::error::ApiError;
use crate::resource_names::ResourceNames;

/// The 400 the API server answers for a bad selector.
pub fn selector_error(message: impl Into<String>) -> ApiError {
    ApiError::bad_request(message)
}

/// `?labelSelector=`.
pub fn label_selector_param(s: &str) -> Result<LabelSelector, ApiError> {
    LabelSelector::parse(s).map_err(selector_error)
}

/// `?fieldSelector=` for resource `res`: parsed, then every label checked against the kind.
pub fn field_selector_param(res: &dyn ResourceNames, s: &str) -> Result<FieldSelector, ApiError> {
    let sel = FieldSelector::parse(s).map_err(selector_error)?;
    sel.validate(res)?;
    Ok(sel)
}

/// Both selectors of a list/watch/deletecollection, in the order the API server checks them: a bad
/// label selector is reported even when the field selector is bad too.
pub fn list_selectors(
    res: &dyn ResourceNames,
    label_selector: Option<&str>,
    field_selector: Option<&str>,
) -> Result<(LabelSelector, FieldSelector), ApiError> {
    let labels = match label_selector {
        Some(s) => LabelSelector::parse(s).map_err(selector_error)?,
        None => LabelSelector::everything(),
    };
    let fields = match field_selector {
        Some(s) => FieldSelector::parse(s).map_err(selector_error)?,
        None => FieldSelector::default(),
    };
    fields.validate(res)?;
    Ok((labels, fields))
}
