//! What the apiserver does to a request body before anything else: decode it as the URL's type
//! with strict field validation, the way k8s.io/apiserver's create/update handlers do
//! (`handlers/create.go`, `handlers/update.go`, `handlers/rest.go transformDecodeError`).
//!
//! Every function here is pure: bytes in, the stored JSON form (or the Status error) out.

// `ApiError` is the crate's Status error; it is returned by value like everywhere else.
#![allow(clippy::result_large_err)]

mod gobase64;
pub mod gotime;
mod gotypes;
mod gvk;
pub mod json;
pub mod walker;
mod yaml;

use serde_json::{Map, Value};

use crate::error::{go_quote, ApiError, FieldError};
use gvk::Gvk;
use json::Val;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::DeleteOptions;
pub use walker::Decoding;
use walker::Outcome;

/// `?fieldValidation=`: what to do with unknown and duplicate fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValidation {
    /// Fail with 400 `strict decoding error: ...`.
    Strict,
    /// Accept, and return each problem as a `Warning:` header.
    Warn,
    /// Accept silently.
    Ignore,
}

impl FieldValidation {
    /// Parse the query parameter. Absent or empty means `Warn` (rest.go `fieldValidation`); other
    /// values fail `ValidateCreateOptions`/`ValidateUpdateOptions`/`ValidatePatchOptions` with a 422
    /// on `<options_kind>.meta.k8s.io`, e.g. `options_kind = "CreateOptions"`.
    pub fn parse(raw: Option<&str>, options_kind: &str) -> Result<Self, ApiError> {
        match raw.unwrap_or("") {
            "" | "Warn" => Ok(Self::Warn),
            "Strict" => Ok(Self::Strict),
            "Ignore" => Ok(Self::Ignore),
            other => {
                let err = FieldError::unsupported(
                    "fieldValidation",
                    go_quote(other),
                    &["", "Ignore", "Strict", "Warn"],
                );
                Err(ApiError::invalid_kind(
                    &format!("{options_kind}.meta.k8s.io"),
                    options_kind,
                    "meta.k8s.io",
                    "",
                    &[err],
                ))
            }
        }
    }
}

/// Decoding into one Go type: the object a body round-trips to, and the strict problems.
pub type Decode = fn(&Val, Decoding, (&str, &str)) -> Result<Outcome, String>;

/// A kind's Go type, as a request body decodes into it (each kind's strategy is one).
pub trait GoType: Sync {
    /// Decode `val` into the type: the object it round-trips to, and the strict problems.
    fn decode_into(&self, val: &Val, how: Decoding, root: (&str, &str)) -> Result<Outcome, String>;
}

/// What names the type a request body must decode to (a served resource, by its kind).
pub trait BodyOf {
    fn body_type(&self) -> BodyType;
}

/// The type a request body must decode to.
#[derive(Clone, Copy)]
pub struct BodyType {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    /// The Go type the body decodes into.
    go_type: &'static dyn GoType,
}

impl BodyType {
    pub fn new(
        group: &'static str,
        version: &'static str,
        kind: &'static str,
        go_type: &'static dyn GoType,
    ) -> Self {
        BodyType {
            group,
            version,
            kind,
            go_type,
        }
    }

    fn gvk(&self) -> Gvk {
        Gvk::new(self.group, self.version, self.kind)
    }

    fn api_version(&self) -> String {
        self.gvk().group_version()
    }

    /// Other group versions the endpoint takes (`EvictionREST.AcceptsGroupVersion`).
    fn accepts(&self, actual: &Gvk) -> bool {
        if actual.group == self.group && actual.version == self.version {
            return true;
        }
        self.group == "policy"
            && self.kind == "Eviction"
            && actual.group == "policy"
            && actual.version == "v1beta1"
    }
}

/// Decode a JSON request body for `res`. Returns the normalised object (unknown fields dropped, as
/// the real server does by round-tripping through Go structs) and the warnings for `Warning:`
/// headers.
pub fn decode_body(
    res: &(impl BodyOf + ?Sized),
    body: &[u8],
    validation: FieldValidation,
) -> Result<(Value, Vec<String>), ApiError> {
    decode_as(res.body_type(), body, validation)
}

/// Decode a JSON body as `target`.
pub fn decode_as(
    target: BodyType,
    body: &[u8],
    validation: FieldValidation,
) -> Result<(Value, Vec<String>), ApiError> {
    let val = json::parse(body).map_err(|e| {
        unrecognized(
            target,
            &format!("couldn't get version/kind; json parse error: {e}"),
            body,
        )
    })?;
    decode_val(target, val, body, validation)
}

/// Decode an `application/yaml` body as `res`.
pub fn decode_yaml_body(
    res: &(impl BodyOf + ?Sized),
    body: &[u8],
    validation: FieldValidation,
) -> Result<(Value, Vec<String>), ApiError> {
    let target = res.body_type();
    let v = yaml::to_json_value(body).map_err(|e| unrecognized(target, &e, body))?;
    let bytes = serde_json::to_vec(&v).map_err(|e| ApiError::internal(e.to_string()))?;
    let val = json::parse(&bytes).map_err(|e| {
        unrecognized(
            target,
            &format!("couldn't get version/kind; json parse error: {e}"),
            body,
        )
    })?;
    decode_val(target, val, body, validation)
}

/// Convert a YAML body to JSON (sigs.k8s.io/yaml `YAMLToJSON`, first document only).
pub fn yaml_to_json(body: &[u8]) -> Result<Vec<u8>, ApiError> {
    let v = yaml::to_json_value(body).map_err(ApiError::bad_request)?;
    serde_json::to_vec(&v).map_err(|e| ApiError::internal(e.to_string()))
}

/// Re-decode the result of a PATCH (handlers/patch.go). Decode failures are 422 Invalid on the
/// field `patch` with `patch_value` as the value: the patched object's JSON for JSON and merge
/// patches, [`crate::gofmt::go_v`] of the patch for strategic merge patches.
pub fn decode_patched(
    res: &(impl BodyOf + ?Sized),
    patched: &[u8],
    patch_value: &str,
    validation: FieldValidation,
    unstructured: bool,
) -> Result<(Value, Vec<String>), ApiError> {
    let target = res.body_type();
    let patch_error = |msg: String| {
        ApiError::invalid_kind(
            "",
            "",
            "",
            "",
            &[FieldError::invalid("patch", go_quote(patch_value), msg)],
        )
    };
    let val = json::parse(patched).map_err(patch_error)?;
    let val = match val {
        Val::Null => Val::Obj(Vec::new()),
        v => v,
    };
    let how = Decoding {
        strict: validation != FieldValidation::Ignore,
        unstructured,
    };
    match target
        .go_type
        .decode_into(&val, how, (&target.api_version(), target.kind))
    {
        Err(msg) => Err(patch_error(msg)),
        Ok(outcome) => {
            let warnings = strict_outcome(&outcome.strict, validation).map_err(patch_error)?;
            Ok((finish(outcome.object, &target), warnings))
        }
    }
}

/// Decode a DELETE body (`DeleteOptions`, meta.k8s.io/v1 or the per-group `v1` form). Unknown
/// fields are ignored; failures are returned unwrapped, which the apiserver answers with 500.
pub fn decode_delete_options(body: &[u8]) -> Result<Value, ApiError> {
    let server_error = |msg: String| ApiError::new(500, "", msg);
    let val = json::parse(body)
        .map_err(|e| server_error(format!("couldn't get version/kind; json parse error: {e}")))?;
    let claimed = gvk::interpret(&val).map_err(|(json_error, e)| {
        server_error(if json_error {
            format!("couldn't get version/kind; json parse error: {e}")
        } else {
            e
        })
    })?;
    if !claimed.kind.is_empty() && claimed.kind != "DeleteOptions" {
        let gvk = gvk::with_defaults(claimed, &Gvk::new("meta.k8s.io", "v1", "DeleteOptions"));
        return Err(server_error(format!(
            "no kind {} is registered for version {} in scheme {}",
            go_quote(&gvk.kind),
            go_quote(&gvk.group_version()),
            go_quote("k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:28")
        )));
    }
    let val = match val {
        Val::Null => Val::Obj(Vec::new()),
        v => v,
    };
    match walker::walk::<DeleteOptions>(
        &val,
        Decoding::json(false),
        ("meta.k8s.io/v1", "DeleteOptions"),
    ) {
        Ok(outcome) => Ok(outcome.object),
        Err(msg) => Err(server_error(msg)),
    }
}

fn decode_val(
    target: BodyType,
    val: Val,
    body: &[u8],
    validation: FieldValidation,
) -> Result<(Value, Vec<String>), ApiError> {
    let claimed = gvk::interpret(&val).map_err(|(json_error, e)| {
        let msg = if json_error {
            format!("couldn't get version/kind; json parse error: {e}")
        } else {
            e
        };
        unrecognized(target, &msg, body)
    })?;
    let expected = target.gvk();
    let mut actual = gvk::with_defaults(claimed, &expected);
    actual = gvk::with_defaults(actual, &Gvk::new(target.group, "__internal", target.kind));

    let same_kind = actual.kind == target.kind
        && gvk::internal_type(&actual.group, &actual.kind)
            == gvk::internal_type(target.group, target.kind);
    if !(same_kind && target.accepts(&actual)) {
        if !gvk::registered(&actual) {
            let err = if actual.version == "__internal" {
                format!(
                    "no kind {} is registered for the internal version of group {} in scheme {}",
                    go_quote(&actual.kind),
                    go_quote(&actual.group),
                    go_quote(gvk::SCHEME)
                )
            } else {
                format!(
                    "no kind {} is registered for version {} in scheme {}",
                    go_quote(&actual.kind),
                    go_quote(&actual.group_version()),
                    go_quote(gvk::SCHEME)
                )
            };
            return Err(cannot_handle(&actual, target, &err));
        }
        if !same_kind {
            let err = format!(
                "converting ({}) to ({}): unknown conversion",
                gvk::versioned_type(&actual),
                gvk::internal_type(target.group, target.kind)
            );
            return Err(cannot_handle(&actual, target, &err));
        }
        // The same type in another version converts, then fails the handler's version check.
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({}) does not match the expected API version ({})",
            actual.group_version(),
            expected.group_version()
        )));
    }

    let val = match val {
        Val::Null => Val::Obj(Vec::new()),
        v => v,
    };
    let api_version = target.api_version();
    let check_strict = validation != FieldValidation::Ignore;
    match target.go_type.decode_into(
        &val,
        Decoding::json(check_strict),
        (&api_version, target.kind),
    ) {
        Err(msg) => Err(cannot_handle(&actual, target, &msg)),
        Ok(outcome) => {
            let warnings = strict_outcome(&outcome.strict, validation)
                .map_err(|msg| cannot_handle(&actual, target, &msg))?;
            Ok((finish(outcome.object, &target), warnings))
        }
    }
}

/// Strict problems: an error for Strict, warnings for Warn (`addStrictDecodingWarnings`).
fn strict_outcome(strict: &[String], validation: FieldValidation) -> Result<Vec<String>, String> {
    if strict.is_empty() {
        return Ok(Vec::new());
    }
    match validation {
        FieldValidation::Strict => Err(format!("strict decoding error: {}", strict.join(", "))),
        FieldValidation::Warn => Ok(strict.to_vec()),
        FieldValidation::Ignore => Ok(Vec::new()),
    }
}

/// The object as the server encodes it: `apiVersion` and `kind` of the served version first.
fn finish(obj: Value, target: &BodyType) -> Value {
    let Value::Object(fields) = obj else {
        return obj;
    };
    let mut out = Map::new();
    out.insert("apiVersion".into(), Value::String(target.api_version()));
    out.insert("kind".into(), Value::String(target.kind.into()));
    for (k, v) in fields {
        if k != "apiVersion" && k != "kind" {
            out.insert(k, v);
        }
    }
    Value::Object(out)
}

/// `transformDecodeError` when the body named its kind.
fn cannot_handle(actual: &Gvk, target: BodyType, err: &str) -> ApiError {
    ApiError::bad_request(format!(
        "{} in version {} cannot be handled as a {}: {}",
        actual.kind,
        go_quote(&actual.version),
        target.kind,
        err
    ))
}

/// `transformDecodeError` when the kind could not be read.
fn unrecognized(target: BodyType, err: &str, body: &[u8]) -> ApiError {
    ApiError::bad_request(format!(
        "the object provided is unrecognized (must be of type {}): {} ({})",
        target.kind,
        err,
        summarize(body, 30)
    ))
}

/// `summarizeData`: the start of the body, as text for JSON objects, in hex otherwise.
fn summarize(data: &[u8], max: usize) -> String {
    if data.is_empty() {
        return "<empty>".into();
    }
    let (head, more) = if data.len() > max {
        (&data[..max], " ...")
    } else {
        (data, "")
    };
    if data[0] == b'{' {
        format!("{}{more}", String::from_utf8_lossy(head))
    } else {
        let hex = crate::gofmt::go_x(head);
        format!("{hex}{more}")
    }
}
