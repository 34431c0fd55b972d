//! Server-side apply's request (`application/apply-patch+yaml`): the configuration a manager
//! applies, read and checked as endpoints/handlers/patch.go `applyPatcher` and the field manager
//! chain (`versionCheckManager`, `structuredMergeManager`) check it. Merging it into the live
//! object, and who then owns what, is [`crate::fieldmanager`]'s.

use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::go_json;
use crate::resource_names::ResourceNames;

/// The configuration `body` applies to an object of `res`.
pub fn configuration(res: &dyn ResourceNames, body: &[u8]) -> Result<Value, ApiError> {
    configuration_of(&res.api_version(), res.kind(), body)
}

/// The configuration `body` applies to an object of `api_version` and `kind` (a subresource's:
/// autoscaling/v1 Scale).
pub fn configuration_of(api_version: &str, kind: &str, body: &[u8]) -> Result<Value, ApiError> {
    let applied = decode(body)?;
    check_kind(api_version, kind, &applied)?;
    if applied
        .get("metadata")
        .and_then(|m| m.get("managedFields"))
        .is_some_and(|f| !f.is_null())
    {
        return Err(ApiError::bad_request("metadata.managedFields must be nil"));
    }
    Ok(Value::Object(applied))
}

/// `yaml.Unmarshal(body, &map[string]interface{})` (sigs.k8s.io/yaml: YAML to JSON, then JSON).
fn decode(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    let bad = |msg: String| ApiError::bad_request(format!("error decoding YAML: {msg}"));
    let value: Value = serde_yaml::from_slice(body)
        .map_err(|e| bad(format!("error converting YAML to JSON: yaml: {e}")))?;
    match value {
        Value::Object(m) => Ok(m),
        // A nil map: the object then has no kind, which the kind check reports.
        Value::Null => Ok(Map::new()),
        other => Err(bad(format!(
            "error unmarshaling JSON: while decoding JSON: {}",
            go_json::type_error(&other, "map[string]interface {}")
        ))),
    }
}

/// `versionCheckManager.Apply`: the applied object must be of the endpoint's group, version and
/// kind; the message prints the `schema.GroupVersionKind` as Go does (`apps/v1, Kind=DaemonSet`).
fn check_kind(
    want_api_version: &str,
    want_kind: &str,
    applied: &Map<String, Value>,
) -> Result<(), ApiError> {
    let api_version = applied
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = applied.get("kind").and_then(Value::as_str).unwrap_or("");
    if api_version == want_api_version && kind == want_kind {
        return Ok(());
    }
    // `schema.ParseGroupVersion`: "v1" is the core group; more than one '/' does not parse and
    // leaves the whole kind empty.
    let (group, version, kind) = match api_version.matches('/').count() {
        0 => ("", api_version, kind),
        1 => {
            let (g, v) = api_version.split_once('/').unwrap_or(("", ""));
            (g, v, kind)
        }
        _ => ("", "", ""),
    };
    Err(ApiError::bad_request(format!(
        "invalid object type: {group}/{version}, Kind={kind}"
    )))
}
