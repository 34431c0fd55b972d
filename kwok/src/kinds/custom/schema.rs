//! A custom resource's structural schema at work: pruning unknown fields
//! (`pkg/apiserver/schema/pruning`), defaulting (`pkg/apiserver/schema/defaulting`) and the
//! OpenAPI validation kube-openapi runs, with errors as `kubeOpenAPIResultToFieldErrors` turns
//! them into field errors (apiextensions-apiserver `pkg/apiserver/validation`).

use serde_json::{Map, Value};

use crate::decode::json::Val;
use crate::error::{go_quote, FieldError};
use crate::validation::path::{invalid, not_supported, required, too_long, too_many, Path};

/// The fields of `ObjectMeta` (the only metadata a custom resource keeps).
const OBJECT_META: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

fn child_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// Keys a body sets twice, as sigs.k8s.io/json reports them (`duplicate field "spec.a"`).
pub(crate) fn duplicates(val: &Val, path: &str, out: &mut Vec<String>) {
    match val {
        Val::Obj(entries) => {
            let mut seen: Vec<&str> = Vec::new();
            for (k, v) in entries {
                let p = child_path(path, k);
                if seen.contains(&k.as_str()) {
                    out.push(format!("duplicate field {}", go_quote(&p)));
                } else {
                    seen.push(k);
                }
                duplicates(v, &p, out);
            }
        }
        Val::Arr(items) => {
            for (i, v) in items.iter().enumerate() {
                duplicates(v, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

fn preserves(schema: &Value) -> bool {
    schema["x-kubernetes-preserve-unknown-fields"] == true
}

/// `PruneWithOptions` on a whole object: drop every field the schema does not declare,
/// returning their paths. The root keeps `apiVersion`, `kind` and `metadata`, whose own fields
/// are `ObjectMeta`'s.
pub(crate) fn prune_object(obj: &mut Value, schema: &Value) -> Vec<String> {
    let mut unknown = Vec::new();
    if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.retain(|k, _| {
            let known = OBJECT_META.contains(&k.as_str());
            if !known {
                unknown.push(format!("metadata.{k}"));
            }
            known
        });
    }
    if let Some(fields) = obj.as_object_mut() {
        let props = schema["properties"].as_object();
        let keep_all = preserves(schema);
        let keys: Vec<String> = fields.keys().cloned().collect();
        for k in keys {
            if matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            match props.and_then(|p| p.get(&k)) {
                Some(s) => {
                    if let Some(v) = fields.get_mut(&k) {
                        prune(v, s, &k, &mut unknown);
                    }
                }
                None if keep_all => {}
                None => {
                    fields.remove(&k);
                    unknown.push(k);
                }
            }
        }
    }
    unknown.sort();
    unknown
}

fn prune(v: &mut Value, schema: &Value, path: &str, unknown: &mut Vec<String>) {
    match v {
        Value::Object(fields) => {
            let props = schema["properties"].as_object();
            let extra = schema["additionalProperties"]
                .as_object()
                .map(|_| &schema["additionalProperties"]);
            let keys: Vec<String> = fields.keys().cloned().collect();
            for k in keys {
                let p = child_path(path, &k);
                match props.and_then(|m| m.get(&k)).or(extra) {
                    Some(s) => {
                        if let Some(v) = fields.get_mut(&k) {
                            prune(v, s, &p, unknown);
                        }
                    }
                    None if preserves(schema) || schema["additionalProperties"] == true => {}
                    None => {
                        fields.remove(&k);
                        unknown.push(p);
                    }
                }
            }
        }
        Value::Array(items) if schema["items"].is_object() => {
            for (i, item) in items.iter_mut().enumerate() {
                prune(item, &schema["items"], &format!("{path}[{i}]"), unknown);
            }
        }
        _ => {}
    }
}

/// `structuraldefaulting.Default`: every declared property with a default that the object
/// leaves out (or sets to null where null is not allowed) takes it, then the walk goes on
/// into it.
pub(crate) fn default(v: &mut Value, schema: &Value) {
    match v {
        Value::Object(fields) => {
            if let Some(props) = schema["properties"].as_object() {
                for (k, s) in props {
                    let missing = fields
                        .get(k)
                        .is_none_or(|x| x.is_null() && s["nullable"] != true);
                    if missing {
                        if let Some(d) = s.get("default") {
                            fields.insert(k.clone(), d.clone());
                        }
                    }
                }
                for (k, s) in props {
                    if let Some(child) = fields.get_mut(k) {
                        default(child, s);
                    }
                }
            }
            if let Some(extra) = schema["additionalProperties"].as_object() {
                let extra = Value::Object(extra.clone());
                for (k, child) in fields.iter_mut() {
                    if schema["properties"].get(k).is_none() {
                        default(child, &extra);
                    }
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                default(item, &schema["items"]);
            }
        }
        _ => {}
    }
}

/// The JSON type kube-openapi names a value by.
fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(want: &str, v: &Value) -> bool {
    match (want, v) {
        ("number", Value::Number(_)) => true,
        // An integral float is an integer to kube-openapi (`swag.IsFloat64AJSONInteger`).
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        (want, v) => want == type_of(v),
    }
}

/// How `field.Error` prints a JSON value (`%v` of the decoded Go value, strings quoted).
fn go_value(v: &Value) -> String {
    match v {
        Value::String(s) => go_quote(s),
        Value::Null => crate::gofmt::go_syntax::NULL.into(),
        other => other.to_string(),
    }
}

/// `ValidateCustomResource`: the object against its schema, `apiVersion`, `kind` and
/// `metadata` left to the generic checks.
pub(crate) fn validate(obj: &Value, schema: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(fields) = obj.as_object() {
        object(fields, schema, "", ROOT_META, &mut errs);
    }
    errs
}

/// The root's fields the metadata validation owns, which the schema does not judge.
const ROOT_META: &[&str] = &["apiVersion", "kind", "metadata"];

fn at(path: &str) -> Path {
    Path::new(path)
}

fn node(v: &Value, schema: &Value, path: &str, errs: &mut Vec<FieldError>) {
    if v.is_null() && (schema["nullable"] == true || schema.get("type").is_none()) {
        return;
    }
    let int_or_string = schema["x-kubernetes-int-or-string"] == true;
    if int_or_string {
        if !matches!(type_of(v), "integer" | "string") {
            // `anyOf` of integer and string fails with a type error on the first branch.
            errs.push(invalid(
                &at(path),
                go_quote(type_of(v)),
                format!(
                    "{path} in body must be of type integer,string: {}",
                    go_quote(type_of(v))
                ),
            ));
            return;
        }
    } else if let Some(want) = schema["type"].as_str().filter(|t| !t.is_empty()) {
        if !type_matches(want, v) {
            errs.push(invalid(
                &at(path),
                go_quote(type_of(v)),
                format!(
                    "{path} in body must be of type {want}: {}",
                    go_quote(type_of(v))
                ),
            ));
            return;
        }
    }
    if let Some(allowed) = schema["enum"].as_array() {
        if !allowed.contains(v) {
            let values: Vec<String> = allowed
                .iter()
                .map(|a| match a {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect();
            let refs: Vec<&str> = values.iter().map(String::as_str).collect();
            errs.push(not_supported(&at(path), go_value(v), &refs));
        }
    }
    match v {
        Value::Object(fields) => object(fields, schema, path, &[], errs),
        Value::Array(items) => {
            let count = items.len() as i64;
            if let Some(min) = schema["minItems"].as_i64().filter(|m| count < *m) {
                errs.push(invalid(
                    &at(path),
                    "\"\"",
                    format!("{path} in body should have at least {min} items"),
                ));
            }
            if let Some(max) = schema["maxItems"].as_i64().filter(|m| count > *m) {
                errs.push(too_many(
                    &at(path),
                    items.len(),
                    usize::try_from(max).unwrap_or(0),
                ));
            }
            if schema["items"].is_object() {
                for (i, item) in items.iter().enumerate() {
                    node(item, &schema["items"], &format!("{path}[{i}]"), errs);
                }
            }
        }
        Value::Number(n) => number(n.as_f64().unwrap_or(0.0), v, schema, path, errs),
        Value::String(s) => string(s, schema, path, errs),
        _ => {}
    }
}

/// An object's fields against `schema`, leaving out the fields named in `skip`.
fn object(
    fields: &Map<String, Value>,
    schema: &Value,
    path: &str,
    skip: &[&str],
    errs: &mut Vec<FieldError>,
) {
    for r in schema["required"].as_array().into_iter().flatten() {
        let missing = r
            .as_str()
            .filter(|n| !fields.contains_key(*n) && !skip.contains(n));
        if let Some(name) = missing {
            errs.push(required(&at(&child_path(path, name)), ""));
        }
    }
    let props = schema["properties"].as_object();
    for (k, v) in fields.iter().filter(|(k, _)| !skip.contains(&k.as_str())) {
        let s = props
            .and_then(|p| p.get(k))
            .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()));
        if let Some(s) = s {
            node(v, s, &child_path(path, k), errs);
        }
    }
}

fn number(n: f64, v: &Value, schema: &Value, path: &str, errs: &mut Vec<FieldError>) {
    let exclusive = |key: &str| schema[key] == true;
    if let Some(min) = schema["minimum"].as_f64() {
        let fails = if exclusive("exclusiveMinimum") {
            n <= min
        } else {
            n < min
        };
        if fails {
            let rel = if exclusive("exclusiveMinimum") {
                "greater than"
            } else {
                "greater than or equal to"
            };
            errs.push(invalid(
                &at(path),
                go_value(v),
                format!("{path} in body should be {rel} {}", schema["minimum"]),
            ));
        }
    }
    if let Some(max) = schema["maximum"].as_f64() {
        let fails = if exclusive("exclusiveMaximum") {
            n >= max
        } else {
            n > max
        };
        if fails {
            let rel = if exclusive("exclusiveMaximum") {
                "less than"
            } else {
                "less than or equal to"
            };
            errs.push(invalid(
                &at(path),
                go_value(v),
                format!("{path} in body should be {rel} {}", schema["maximum"]),
            ));
        }
    }
}

fn string(s: &str, schema: &Value, path: &str, errs: &mut Vec<FieldError>) {
    let len = s.chars().count() as i64;
    if let Some(max) = schema["maxLength"].as_i64().filter(|m| len > *m) {
        errs.push(too_long(&at(path), usize::try_from(max).unwrap_or(0)));
    }
    if let Some(min) = schema["minLength"].as_i64().filter(|m| len < *m) {
        errs.push(invalid(
            &at(path),
            go_quote(s),
            format!("{path} in body should be at least {min} chars long"),
        ));
    }
    if let Some(pattern) = schema["pattern"].as_str() {
        if regex::Regex::new(pattern).is_ok_and(|re| !re.is_match(s)) {
            errs.push(invalid(
                &at(path),
                go_quote(s),
                format!("{path} in body should match '{pattern}'"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn policy_schema() -> Value {
        json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "driver": {"type": "object", "properties": {
                    "enabled": {"type": "boolean"},
                    "version": {"type": "string", "default": "550"}}},
                "devices": {"type": "array", "items": {"type": "object",
                    "properties": {"name": {"type": "string"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "replicas": {"type": "integer", "minimum": 1},
                "mode": {"type": "string", "enum": ["time-slicing", "mps"]}}},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
    }

    #[test]
    fn unknown_fields_are_pruned_with_their_paths() {
        let mut obj = json!({"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy",
            "metadata": {"name": "p", "color": "red"},
            "spec": {"driver": {"enabled": true, "extra": 1},
                     "devices": [{"name": "a", "slot": 2}],
                     "labels": {"a": "b"}, "other": {}},
            "status": {"anything": {"goes": true}}, "top": 1});
        let unknown = prune_object(&mut obj, &policy_schema());
        assert_eq!(
            unknown,
            [
                "metadata.color",
                "spec.devices[0].slot",
                "spec.driver.extra",
                "spec.other",
                "top"
            ]
        );
        assert_eq!(obj["spec"]["labels"], json!({"a": "b"}));
        assert_eq!(obj["status"]["anything"]["goes"], true);
    }

    #[test]
    fn defaults_fill_declared_fields_of_present_objects() {
        let mut obj = json!({"spec": {"driver": {"enabled": true}}});
        default(&mut obj, &policy_schema());
        assert_eq!(obj["spec"]["driver"]["version"], "550");
        let mut bare = json!({"spec": {}});
        default(&mut bare, &policy_schema());
        assert!(bare["spec"].get("driver").is_none());
    }

    #[test]
    fn errors_read_as_kube_openapi_reports_them() {
        let obj = json!({"spec": {"driver": {"enabled": "false"}, "replicas": 0,
            "mode": "mig", "devices": [{"name": 3}]}});
        let mut errs: Vec<String> = validate(&obj, &policy_schema())
            .iter()
            .map(ToString::to_string)
            .collect();
        // kube-openapi visits properties in Go map order, which is random: compare as a set.
        errs.sort();
        assert_eq!(
            errs,
            [
                "spec.devices[0].name: Invalid value: \"integer\": spec.devices[0].name in body must be of type string: \"integer\"",
                "spec.driver.enabled: Invalid value: \"string\": spec.driver.enabled in body must be of type boolean: \"string\"",
                "spec.mode: Unsupported value: \"mig\": supported values: \"time-slicing\", \"mps\"",
                "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1",
            ]
        );
    }
}
