//! Kubernetes protobuf request bodies (`Content-Type: application/vnd.kubernetes.protobuf`).
//!
//! kubectl's typed clients (`kubectl create namespace|deployment|configmap|secret|pdb …`,
//! `kubectl drain`'s evictions) send their objects as protobuf. kube-apiserver decodes them into
//! the Go API struct; the rest of this server works on the JSON of that struct, so a body is
//! decoded straight into the JSON object the client would have sent had it used JSON.
//!
//! The pieces: `wire` reads the wire format with bounds checks, `envelope` opens the `k8s\0` +
//! `runtime.Unknown` envelope, `schema` holds the message tables, `object` turns a message into a
//! JSON object with them and `special` handles the types with hand-written encodings (quantities,
//! int-or-string, times, raw JSON).

// The crate-wide error type is a full Status; these functions return it like every handler does.
#![allow(clippy::result_large_err)]

mod envelope;
mod error;
mod object;
pub mod schema;
mod special;
mod wire;

use serde_json::{Map, Value};

use crate::error::{go_quote, ApiError};
use error::DecodeError;
use object::{Decoder, MAX_DEPTH};
use schema::Message;

/// The media type of Kubernetes protobuf bodies.
pub const CONTENT_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// Decodes a Kubernetes protobuf request body into the JSON object the same client would have
/// sent as JSON: `kind`/`apiVersion` from the envelope's `typeMeta`, the JSON field names, empty
/// `omitempty` fields left out, quantities as strings, IntOrString as a number or a string, times
/// as RFC 3339 strings, `[]byte` as base64.
///
/// Malformed input is a 400 BadRequest carrying the error kube-apiserver's protobuf serializer
/// reports; a body that decodes but fails inside the object is worded as the handlers word it,
/// `<Kind> in version "<version>" cannot be handled as a <Kind>: <error>`, taking the envelope's
/// kind as the endpoint's. Use [`decode_for`] when the endpoint's kind is known.
pub fn decode(body: &[u8], scheme: Scheme) -> Result<Value, ApiError> {
    decode_inner(body, None, scheme, MAX_DEPTH)
}

/// [`decode`] for an endpoint that takes objects of `api_version`/`kind`.
///
/// Like kube-apiserver, a `typeMeta` left empty by the client is filled from the endpoint
/// (`copyKindDefaults` in protobuf.go), and failures are worded as `transformDecodeError`
/// (apiserver `endpoints/handlers/rest.go`) words them for that endpoint. The decoded object keeps
/// the kind the client sent; comparing it with the endpoint's is left to the caller, as for JSON.
pub fn decode_for(
    body: &[u8],
    api_version: &str,
    kind: &str,
    scheme: Scheme,
) -> Result<Value, ApiError> {
    decode_inner(body, Some((api_version, kind)), scheme, MAX_DEPTH)
}

/// The kinds a server decodes (the `runtime.Scheme` its protobuf serializer asks): the message
/// of an object of a group, version and Kind, when the server has the kind. The embedded
/// cluster's kinds table holds its own (`kwok::registry::SCHEME`).
#[derive(Clone, Copy)]
pub struct Scheme(pub fn(&str, &str, &str) -> Option<&'static Message>);

/// `decode_for` (or `decode`, without an expected kind) under a nesting limit of the caller's.
pub fn decode_inner(
    body: &[u8],
    expected: Option<(&str, &str)>,
    scheme: Scheme,
    max_depth: usize,
) -> Result<Value, ApiError> {
    let target = expected.map(|(_, kind)| kind);
    let unrecognized = |err: DecodeError| match target {
        Some(kind) => ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {kind}): {err} ({})",
            summarize(body)
        )),
        None => ApiError::bad_request(err.to_string()),
    };
    let envelope = envelope::open(body).map_err(unrecognized)?;
    let (mut api_version, mut kind) = (envelope.api_version.clone(), envelope.kind.clone());
    if let Some((default_version, default_kind)) = expected {
        if kind.is_empty() {
            kind = default_kind.to_string();
        }
        if version_of(&api_version).is_empty() && !version_of(default_version).is_empty() {
            api_version = default_version.to_string();
        }
    }
    let type_meta = || {
        format!(
            "runtime.TypeMeta{{APIVersion:{}, Kind:{}}}",
            go_quote(&envelope.api_version),
            go_quote(&envelope.kind)
        )
    };
    if kind.is_empty() {
        return Err(unrecognized(DecodeError::new(format!(
            "Object 'Kind' is missing in '{}'",
            type_meta()
        ))));
    }
    let cannot_handle = |err: DecodeError| {
        ApiError::bad_request(format!(
            "{kind} in version {} cannot be handled as a {}: {err}",
            go_quote(version_of(&api_version)),
            target.unwrap_or(&kind)
        ))
    };
    if version_of(&api_version).is_empty() {
        return Err(cannot_handle(DecodeError::new(format!(
            "Object 'apiVersion' is missing in '{}'",
            type_meta()
        ))));
    }
    let Some(message) = schema::root(&api_version, &kind, scheme) else {
        // runtime.NewNotRegisteredErrForKind, with kube-apiserver's scheme name.
        return Err(cannot_handle(DecodeError::new(format!(
            "no kind {} is registered for version {} in scheme \"pkg/api/legacyscheme/scheme.go:30\"",
            go_quote(&kind),
            go_quote(&api_version)
        ))));
    };
    let fields = Decoder { max_depth }
        .object(envelope.raw, message, 0)
        .map_err(cannot_handle)?;
    // metav1.TypeMeta is inlined first in every object, Kind before APIVersion.
    let mut object = Map::new();
    object.insert("kind".into(), Value::String(kind.clone()));
    object.insert("apiVersion".into(), Value::String(api_version.clone()));
    object.extend(fields);
    Ok(Value::Object(object))
}

/// The version part of an apiVersion ("apps/v1" → "v1", "v1" → "v1").
fn version_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or(api_version, |(_, v)| v)
}

/// `summarizeData(body, 30)` from apiserver `endpoints/handlers/rest.go`.
fn summarize(body: &[u8]) -> String {
    const MAX: usize = 30;
    match body.first() {
        None => "<empty>".to_string(),
        Some(b'{') => {
            let shown = String::from_utf8_lossy(&body[..body.len().min(MAX)]).into_owned();
            if body.len() > MAX {
                shown + " ..."
            } else {
                shown
            }
        }
        Some(_) => {
            let hex = crate::gofmt::go_x(&body[..body.len().min(MAX)]);
            if body.len() > MAX {
                hex + " ..."
            } else {
                hex
            }
        }
    }
}
