//! The `meta.k8s.io/v1` Table the API server sends for `Accept: application/json;as=Table;...`
//! (`apiserver pkg/endpoints/handlers/response.go asTable`).

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use crate::error::{go_quote, ApiError};
use crate::resource::ResourceDef;

/// `?includeObject=`: what each row's `object` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IncludeObject {
    /// `null`.
    None,
    /// A `PartialObjectMetadata` with the object's metadata (the default).
    #[default]
    Metadata,
    /// The whole object (kubectl asks for it with `--sort-by`).
    Object,
}

impl IncludeObject {
    /// The query parameter; unset or empty means `Metadata`, anything unknown is the upstream 400.
    // `ApiError` is the crate-wide error type; its size is the error module's concern.
    #[allow(clippy::result_large_err)]
    pub fn from_query(value: Option<&str>) -> Result<Self, ApiError> {
        match value.unwrap_or("") {
            "" | "Metadata" => Ok(Self::Metadata),
            "None" => Ok(Self::None),
            "Object" => Ok(Self::Object),
            other => Err(ApiError::bad_request(format!(
                "unrecognized includeObject value: {}",
                go_quote(other)
            ))),
        }
    }
}

fn row_object(obj: &Value, include: IncludeObject) -> Value {
    match include {
        IncludeObject::None => Value::Null,
        IncludeObject::Object => obj.clone(),
        IncludeObject::Metadata => json!({
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": obj.get("metadata").cloned().unwrap_or_else(|| json!({})),
        }),
    }
}

/// The full Table: one row per object, every cell of every column (the server always prints wide).
pub fn table(
    res: &ResourceDef,
    objs: &[&Value],
    now: DateTime<Utc>,
    include_object: IncludeObject,
    resource_version: &str,
    continue_token: Option<&str>,
) -> Value {
    let columns: Vec<Value> = super::columns(res).iter().map(|c| c.to_json()).collect();
    let rows: Vec<Value> = objs
        .iter()
        .map(|obj| {
            let mut row = Map::new();
            row.insert("cells".into(), Value::Array(super::cells(res, obj, now)));
            if let Some(conditions) = super::row_conditions(res, obj) {
                row.insert("conditions".into(), conditions);
            }
            row.insert("object".into(), row_object(obj, include_object));
            Value::Object(row)
        })
        .collect();
    let mut metadata = Map::new();
    if !resource_version.is_empty() {
        metadata.insert("resourceVersion".into(), json!(resource_version));
    }
    if let Some(token) = continue_token.filter(|t| !t.is_empty()) {
        metadata.insert("continue".into(), json!(token));
    }
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": Value::Object(metadata),
        "columnDefinitions": columns,
        "rows": rows,
    })
}
