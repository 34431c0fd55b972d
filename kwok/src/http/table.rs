//! Server-side printing: the `meta.k8s.io/v1` Table the API server sends for
//! `Accept: application/json;as=Table;...` (`apiserver pkg/endpoints/handlers/response.go
//! asTable`), from the columns and cells of each kind's printer.

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
    remaining: Option<usize>,
) -> Value {
    let columns: Vec<Value> = res.strategy.columns().iter().map(|c| c.to_json()).collect();
    let rows: Vec<Value> = objs
        .iter()
        .map(|obj| {
            let mut row = Map::new();
            row.insert("cells".into(), Value::Array(res.strategy.cells(obj, now)));
            if let Some(conditions) = res.strategy.row_conditions(obj) {
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
    if let Some(remaining) = remaining {
        metadata.insert("remainingItemCount".into(), json!(remaining));
    }
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": Value::Object(metadata),
        "columnDefinitions": columns,
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::registry::{NODES, PODS};

    /// A pod kwok runs: one ready container on a node, with an IP.
    fn running_pod() -> Value {
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "creationTimestamp": "2025-03-10T11:00:00Z"},
            "spec": {"nodeName": "n", "containers": [{"name": "c", "image": "i"}]},
            "status": {"phase": "Running", "podIP": "10.0.0.1",
                "containerStatuses": [{"name": "c", "ready": true, "restartCount": 0, "image": "i",
                    "imageID": "", "state": {"running": {"startedAt": "2025-03-10T11:00:00Z"}}}]}
        })
    }

    #[test]
    fn table_json_shape() {
        let now = Utc::now();
        let pod = running_pod();
        let t = table(
            &PODS,
            &[&pod],
            now,
            IncludeObject::Metadata,
            "1234",
            Some("tok"),
            None,
        );
        assert_eq!(t["kind"], json!("Table"));
        assert_eq!(t["apiVersion"], json!("meta.k8s.io/v1"));
        assert_eq!(
            t["metadata"],
            json!({"resourceVersion": "1234", "continue": "tok"})
        );
        assert_eq!(t["columnDefinitions"].as_array().map(Vec::len), Some(9));
        assert_eq!(
            t["columnDefinitions"][5],
            json!({"name": "IP", "type": "string", "format": "", "description": crate::printers::docs::POD_IP, "priority": 1})
        );
        let row = &t["rows"][0];
        assert_eq!(row["cells"][2], json!("Running"));
        assert_eq!(
            row["object"],
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": pod["metadata"].clone()})
        );
        assert!(row.get("conditions").is_none());
        let keys: Vec<&String> = t
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            [
                "kind",
                "apiVersion",
                "metadata",
                "columnDefinitions",
                "rows"
            ]
        );

        let none = table(&PODS, &[&pod], now, IncludeObject::None, "", None, Some(3));
        assert_eq!(none["rows"][0]["object"], Value::Null);
        assert_eq!(none["metadata"], json!({"remainingItemCount": 3}));
        let full = table(&PODS, &[&pod], now, IncludeObject::Object, "1", None, None);
        assert_eq!(full["rows"][0]["object"], pod);
        let empty = table(&NODES, &[], now, IncludeObject::Metadata, "9", None, None);
        assert_eq!(empty["rows"], json!([]));
        assert_eq!(
            empty["columnDefinitions"].as_array().map(Vec::len),
            Some(10)
        );
    }

    #[test]
    fn include_object_query() {
        assert_eq!(IncludeObject::from_query(None), Ok(IncludeObject::Metadata));
        assert_eq!(
            IncludeObject::from_query(Some("Object")),
            Ok(IncludeObject::Object)
        );
        assert_eq!(
            IncludeObject::from_query(Some("None")),
            Ok(IncludeObject::None)
        );
        let err = IncludeObject::from_query(Some("All")).err();
        assert_eq!(
            err.map(|e| (e.code, e.message)),
            Some((400, "unrecognized includeObject value: \"All\"".to_string()))
        );
    }
}
