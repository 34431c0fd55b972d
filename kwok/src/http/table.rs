//! Server-side printing glue: builds `meta.k8s.io/v1` Tables from the printers.

use serde_json::{json, Value};

use super::respond::IncludeObject;
use crate::registry::ResourceDef;

pub fn table(
    res: &ResourceDef,
    objs: &[&Value],
    include: IncludeObject,
    resource_version: &str,
    continue_token: Option<&str>,
    remaining: Option<usize>,
) -> Value {
    let _ = (res, remaining);
    let rows: Vec<Value> = objs
        .iter()
        .map(|o| {
            let object = match include {
                IncludeObject::None => Value::Null,
                IncludeObject::Object => (*o).clone(),
                IncludeObject::Metadata => json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": o["metadata"]}),
            };
            json!({"cells": [o["metadata"]["name"], "0s"], "object": object})
        })
        .collect();
    let mut meta = json!({"resourceVersion": resource_version});
    if let Some(c) = continue_token {
        meta["continue"] = json!(c);
    }
    json!({
        "kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta,
        "columnDefinitions": [
            {"name": "Name", "type": "string", "format": "name", "description": "", "priority": 0},
            {"name": "Age", "type": "string", "format": "", "description": "", "priority": 0}
        ],
        "rows": rows
    })
}
