//! The request pipeline's calls into decoding, defaulting, validation and patching, kept in one
//! place so the verbs read as the apiserver's handler chain does.

use serde_json::Value;

use crate::error::{ApiError, ApiResult, FieldError};
use crate::options::{FieldValidation, ListOptions};
use crate::resource::ResourceDef;

/// Decode a request body into the stored form; returns the object and the warnings for
/// `Warning:` headers.
pub fn decode(
    res: &'static ResourceDef,
    body: &[u8],
    validation: FieldValidation,
) -> ApiResult<(Value, Vec<String>)> {
    crate::decode::decode_body(res, body, validation)
}

/// Re-decode a patched object: failures are 422 on the `patch` field, quoting the patch the way
/// the apiserver does (the patched JSON for JSON and merge patches, Go's `%+v` of the strategic
/// patch) and worded as its decoder does (encoding/json, or the unstructured converter for a
/// strategic merge patch).
pub fn decode_patched(
    res: &'static ResourceDef,
    patched: &Value,
    kind: PatchKind,
    body: &[u8],
    validation: FieldValidation,
) -> ApiResult<(Value, Vec<String>)> {
    let encoded = serde_json::to_vec(patched).map_err(|e| ApiError::internal(e.to_string()))?;
    let quoted = match kind {
        PatchKind::Strategic => serde_json::from_slice::<Value>(body)
            .map(|p| crate::gofmt::go_v(&p))
            .unwrap_or_default(),
        _ => String::from_utf8_lossy(&encoded).into_owned(),
    };
    // A strategic merge patch's result goes from a map to the object through the unstructured
    // converter (`applyPatchToObject`); the other patches' results are decoded as JSON.
    let unstructured = kind == PatchKind::Strategic;
    crate::decode::decode_patched(res, &encoded, &quoted, validation, unstructured)
}

/// Scheme defaulting, on create and update alike.
pub fn default(res: &'static ResourceDef, obj: &mut Value) {
    crate::kinds::default(res, obj);
}

pub fn validate_create(res: &'static ResourceDef, obj: &Value) -> Vec<FieldError> {
    res.strategy.validate(obj)
}

pub fn validate_update(res: &'static ResourceDef, new: &Value, old: &Value) -> Vec<FieldError> {
    res.strategy.validate_update(new, old)
}

pub fn validate_status_update(
    res: &'static ResourceDef,
    new: &Value,
    old: &Value,
) -> Vec<FieldError> {
    res.strategy.validate_status_update(new, old)
}

/// Patch content types understood by the server.
pub use crate::patch::PatchType as PatchKind;

pub fn patch(
    res: &'static ResourceDef,
    original: &Value,
    kind: PatchKind,
    body: &[u8],
) -> ApiResult<Value> {
    crate::patch::apply(res.strategy.merge_schema(), original, kind, body)
}

/// A compiled selector over stored objects.
pub type Predicate = Box<dyn Fn(&Value) -> bool + Send + Sync>;

pub fn parse_field_selector(res: &'static ResourceDef, s: &str) -> ApiResult<Predicate> {
    let sel = crate::selectors::field_selector_param(res, s)?;
    Ok(Box::new(move |obj: &Value| sel.matches(res, obj)))
}

/// What a list or watch selects: its `labelSelector` and `fieldSelector`, where a blank one
/// selects everything (`SelectionPredicate`).
pub struct Selection {
    labels: Option<Predicate>,
    fields: Option<Predicate>,
}

impl Selection {
    pub fn of(res: &'static ResourceDef, opts: &ListOptions) -> ApiResult<Self> {
        let labels = match given(&opts.label_selector) {
            Some(s) => {
                let sel = crate::selectors::label_selector_param(s)?;
                Some(
                    Box::new(move |obj: &Value| sel.matches(crate::meta::labels(obj))) as Predicate,
                )
            }
            None => None,
        };
        let fields = match given(&opts.field_selector) {
            Some(s) => Some(parse_field_selector(res, s)?),
            None => None,
        };
        Ok(Self { labels, fields })
    }

    pub fn matches(&self, obj: &Value) -> bool {
        self.labels.as_ref().is_none_or(|f| f(obj)) && self.fields.as_ref().is_none_or(|f| f(obj))
    }

    /// `SelectionPredicate.Empty`: neither selector narrows anything.
    pub fn is_everything(&self) -> bool {
        self.labels.is_none() && self.fields.is_none()
    }
}

/// A selector parameter that says something: absent and blank are alike.
fn given(param: &Option<String>) -> Option<&str> {
    param.as_deref().filter(|s| !s.trim().is_empty())
}
