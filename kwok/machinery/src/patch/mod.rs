//! The PATCH engines of the API server: JSON patch, JSON merge patch, strategic merge patch and
//! (a subset of) server-side apply, as pure functions from the stored object and the request body
//! to the patched object.
//!
//! Each engine reproduces the real server's semantics and its error replies (status code, reason
//! and message text), following k8s.io/apiserver `pkg/endpoints/handlers/patch.go`. The caller
//! checks the patched object (preconditions, immutable fields, decoding, validation).

// The public API returns the crate's `ApiError` (a Status) by value, as the rest of the server does.
#![allow(clippy::result_large_err)]

mod apply;

pub use apply::{configuration as apply_configuration, configuration_of as apply_configuration_of};
mod go_sort;
mod json_patch;
mod merge_patch;
pub mod strategic;

use serde_json::Value;

use crate::error::ApiError;
use crate::go_json;
use strategic::Schema;

/// The patch formats, by request `Content-Type` (`types.PatchType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// `application/json-patch+json` (RFC 6902).
    Json,
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/strategic-merge-patch+json`.
    Strategic,
    /// `application/apply-patch+yaml` (server-side apply).
    Apply,
}

/// The media types the server lists as accepted for PATCH, in its order (endpoints/installer.go).
const ACCEPTED_PATCH_TYPES: &[&str] = &[
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
];

impl PatchType {
    /// The patch type of a `Content-Type` header. Parameters are cut at the first `;` exactly as
    /// the server does (no trimming), so `application/merge-patch+json; charset=utf-8` matches.
    pub fn from_content_type(ct: &str) -> Option<PatchType> {
        let ct = match ct.find(';') {
            Some(i) if i > 0 => &ct[..i],
            _ => ct,
        };
        match ct {
            "application/json-patch+json" => Some(PatchType::Json),
            "application/merge-patch+json" => Some(PatchType::Merge),
            "application/strategic-merge-patch+json" => Some(PatchType::Strategic),
            "application/apply-patch+yaml" => Some(PatchType::Apply),
            _ => None,
        }
    }

    /// The media type naming this patch type.
    pub fn media_type(self) -> &'static str {
        match self {
            PatchType::Json => ACCEPTED_PATCH_TYPES[0],
            PatchType::Merge => ACCEPTED_PATCH_TYPES[1],
            PatchType::Strategic => ACCEPTED_PATCH_TYPES[2],
            PatchType::Apply => ACCEPTED_PATCH_TYPES[3],
        }
    }
}

/// The 415 a PATCH with an unknown `Content-Type` gets (`negotiation.NewUnsupportedMediaTypeError`
/// with the route's patch types). The Status carries no details.
/// A route whose kind has no Go type (a custom resource's) takes every type but the strategic
/// merge patch (`customresource_handler.go` `supportedTypes`): `strategic` says whether it does.
pub fn unsupported_patch_type(strategic: bool) -> ApiError {
    let accepted: Vec<&str> = ACCEPTED_PATCH_TYPES
        .iter()
        .copied()
        .filter(|t| strategic || *t != PatchType::Strategic.media_type())
        .collect();
    ApiError::new(
        415,
        "UnsupportedMediaType",
        format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted.join(", ")
        ),
    )
}

/// The patch type of a PATCH with Content-Type `ct`, when its route takes it (`strategic`: see
/// [`unsupported_patch_type`]).
pub fn patch_type_for(strategic: bool, ct: &str) -> Result<PatchType, ApiError> {
    match PatchType::from_content_type(ct) {
        Some(PatchType::Strategic) if !strategic => Err(unsupported_patch_type(strategic)),
        Some(t) => Ok(t),
        None => Err(unsupported_patch_type(strategic)),
    }
}

/// Apply `patch` (raw request body) to `original` (the stored object), whose kind's strategic
/// merge patch schema is `schema`.
pub fn apply(
    schema: &'static Schema,
    original: &Value,
    patch_type: PatchType,
    patch: &[u8],
) -> Result<Value, ApiError> {
    match patch_type {
        PatchType::Json => json_patch::apply(original, patch).map_err(json_patch_error),
        PatchType::Merge => merge_patch::apply(original, patch).map_err(|e| match e {
            merge_patch::MergePatchError::Decode(msg) => {
                ApiError::bad_request(format!("error decoding patch: {msg}"))
            }
            merge_patch::MergePatchError::BadPatch => ApiError::bad_request("Invalid JSON Patch"),
        }),
        PatchType::Strategic => strategic_merge(schema, original, patch),
        // An applied configuration is merged by the field manager, which knows who owns what.
        PatchType::Apply => Err(ApiError::internal(
            "server-side apply goes through the field manager",
        )),
    }
}

fn json_patch_error(e: json_patch::JsonPatchError) -> ApiError {
    match e {
        json_patch::JsonPatchError::Decode(msg) => {
            ApiError::bad_request(format!("error decoding patch: {msg}"))
        }
        json_patch::JsonPatchError::TooManyOperations(n) => {
            ApiError::request_entity_too_large(format!(
                "Request entity too large: The allowed maximum operations in a JSON patch is {}, got {n}",
                json_patch::MAX_OPERATIONS
            ))
        }
        // `errors.NewGenericServerResponse(422, ...)` keeps only its canned message.
        json_patch::JsonPatchError::Apply(_) => unprocessable(),
    }
}

/// `errors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{},
/// "", msg, 0, false)`: reason Invalid, the generic message, empty details.
fn unprocessable() -> ApiError {
    ApiError::new(
        422,
        "Invalid",
        "the server rejected our request due to an error in our request",
    )
    .with_details(serde_json::json!({}))
}

/// `strategicPatchObject` + `applyPatchToObject`: decode the body into a map, then
/// `StrategicMergeMapPatch` with the kind's patch metadata.
fn strategic_merge(
    schema: &'static Schema,
    original: &Value,
    body: &[u8],
) -> Result<Value, ApiError> {
    let patch = go_json::decode(body).map_err(ApiError::bad_request)?;
    let patch = match patch {
        Value::Object(m) => m,
        // Unmarshalling `null` into the map leaves it nil: nothing to merge.
        Value::Null => return Ok(original.clone()),
        other => {
            return Err(ApiError::bad_request(go_json::type_error(
                &other,
                "map[string]interface {}",
            )))
        }
    };
    strategic::apply(original, patch, schema).map_err(|e| match e {
        strategic::SmpError::BadRequest(msg) => ApiError::bad_request(msg),
        strategic::SmpError::Unprocessable(_) => unprocessable(),
        // Not a Status error: `ErrorToAPIStatus` answers 500 with an empty reason and the bare text.
        strategic::SmpError::Other(msg) => ApiError::new(500, "", msg),
    })
}
