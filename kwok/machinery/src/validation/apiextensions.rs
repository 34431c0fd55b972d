//! CustomResourceDefinitions (`apiextensions-apiserver/pkg/apis/apiextensions/validation`): the
//! name, group, scope and names, the versions with their single storage version, the printer
//! columns, and the structural-schema rules a course's CRDs meet.

use std::collections::HashSet;

use serde_json::Value;

use super::meta::{object_meta, object_meta_update};
use super::path::{forbidden, invalid, not_supported, required, Path, IMMUTABLE};
use super::read::{list, s};
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;

/// What the internal versions carry after conversion: whether the schema, subresources and
/// columns were hoisted out of them to the spec.
#[derive(Clone, Copy)]
struct Hoisted {
    schema: bool,
    subresources: bool,
    columns: bool,
}

/// `%#v` of the internal versions list. A pointer still in a version prints as an address no
/// one can reproduce; the common case, everything hoisted or absent, prints exactly.
fn versions_value(versions: &[Value], hoisted: Hoisted) -> String {
    let pointer = |go_type: &str, present: bool| {
        if present {
            format!("(*{go_type})(0xc000000000)")
        } else {
            format!("(*{go_type})(nil)")
        }
    };
    let items: Vec<String> = versions
        .iter()
        .map(|v| {
            let columns = match list(v, "additionalPrinterColumns") {
                cols if cols.is_empty() || hoisted.columns => {
                    "[]apiextensions.CustomResourceColumnDefinition(nil)".to_string()
                }
                cols => format!(
                    "[]apiextensions.CustomResourceColumnDefinition{{{}}}",
                    cols.iter()
                        .map(|c| format!(
                            "apiextensions.CustomResourceColumnDefinition{{Name:{}, Type:{}, Format:{}, Description:{}, Priority:{}, JSONPath:{}}}",
                            go_quote(s(c, "name")),
                            go_quote(s(c, "type")),
                            go_quote(s(c, "format")),
                            go_quote(s(c, "description")),
                            c["priority"].as_i64().unwrap_or(0),
                            go_quote(s(c, "jsonPath"))
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let selectable = match list(v, "selectableFields") {
                [] => "[]apiextensions.SelectableField(nil)".to_string(),
                fields => format!(
                    "[]apiextensions.SelectableField{{{}}}",
                    fields
                        .iter()
                        .map(|f| format!(
                            "apiextensions.SelectableField{{JSONPath:{}}}",
                            go_quote(s(f, "jsonPath"))
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            format!(
                "apiextensions.CustomResourceDefinitionVersion{{Name:{}, Served:{}, Storage:{}, Deprecated:{}, DeprecationWarning:{}, Schema:{}, Subresources:{}, AdditionalPrinterColumns:{}, SelectableFields:{}}}",
                go_quote(s(v, "name")),
                v["served"].as_bool().unwrap_or(false),
                v["storage"].as_bool().unwrap_or(false),
                v["deprecated"].as_bool().unwrap_or(false),
                pointer("string", v["deprecationWarning"].is_string()),
                pointer(
                    "apiextensions.CustomResourceValidation",
                    !hoisted.schema && v["schema"].is_object()
                ),
                pointer(
                    "apiextensions.CustomResourceSubresources",
                    !hoisted.subresources && v["subresources"].is_object()
                ),
                columns,
                selectable,
            )
        })
        .collect();
    format!(
        "[]apiextensions.CustomResourceDefinitionVersion{{{}}}",
        items.join(", ")
    )
}

/// `ValidateCustomResourceDefinitionStoredVersions`: at least one, each served by a version,
/// the storage version among them.
fn stored_versions(obj: &Value) -> Vec<FieldError> {
    let p = Path::of(&["status", "storedVersions"]);
    let stored = list(&obj["status"], "storedVersions");
    // Upstream builds the list by appending to nil: an empty one prints as nil.
    let value = || match stored {
        [] => "[]string(nil)".to_string(),
        _ => go_syntax::string_slice(obj["status"].get("storedVersions")),
    };
    if stored.is_empty() {
        return vec![invalid(
            &p,
            value(),
            "must have at least one stored version",
        )];
    }
    let versions = list(&obj["spec"], "versions");
    let mut errs = Vec::new();
    for (i, v) in stored.iter().enumerate() {
        let name = v.as_str().unwrap_or("");
        if !versions.iter().any(|x| s(x, "name") == name) {
            errs.push(invalid(
                &p.index(i),
                go_quote(name),
                "must appear in spec.versions",
            ));
        }
    }
    let storage = versions
        .iter()
        .find(|v| v["storage"] == true)
        .map(|v| s(v, "name"))
        .unwrap_or("");
    if !stored.iter().any(|v| v == storage) {
        errs.push(invalid(
            &p,
            value(),
            format!("must have the storage version {storage}"),
        ));
    }
    errs
}

/// `ValidateCustomResourceDefinition`.
pub fn crd(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_subdomain, false);
    let spec = &obj["spec"];
    let sp = Path::new("spec");
    let names_v = &spec["names"];
    let (group, plural) = (s(spec, "group"), s(names_v, "plural"));
    let name = s(&obj["metadata"], "name");
    if name != format!("{plural}.{group}") {
        errs.push(invalid(
            &Path::of(&["metadata", "name"]),
            go_quote(name),
            "must be spec.names.plural+\".\"+spec.group",
        ));
    }
    if group.is_empty() {
        errs.push(required(&sp.child("group"), ""));
    } else {
        let msgs = names::dns1123_subdomain(group);
        if !msgs.is_empty() {
            errs.push(invalid(&sp.child("group"), go_quote(group), msgs.join(",")));
        } else if group.split('.').count() < 2 {
            errs.push(invalid(
                &sp.child("group"),
                go_quote(group),
                "should be a domain with at least one dot",
            ));
        }
    }
    match s(spec, "scope") {
        "" => errs.push(required(&sp.child("scope"), "")),
        "Cluster" | "Namespaced" => {}
        other => errs.push(not_supported(
            &sp.child("scope"),
            go_quote(other),
            &["Cluster", "Namespaced"],
        )),
    }
    let versions = list(spec, "versions");
    // v1 reaches validation through the internal version, where a schema or column list that
    // every version shares has been hoisted to the spec (`spec.validation`,
    // `spec.additionalPrinterColumns`): errors in it carry those paths and come after the names.
    let hoisted_schema = identical_per_version(versions, |v| {
        v["schema"].get("openAPIV3Schema").filter(|s| !s.is_null())
    });
    let hoisted_columns = identical_per_version(versions, |v| {
        v.get("additionalPrinterColumns")
            .filter(|c| c.as_array().is_some_and(|c| !c.is_empty()))
    });
    let hoisted = Hoisted {
        schema: hoisted_schema.is_some(),
        subresources: identical_per_version(versions, |v| {
            v.get("subresources").filter(|s| s.is_object())
        })
        .is_some(),
        columns: hoisted_columns.is_some(),
    };
    if hoisted_schema.is_none() {
        for (i, v) in versions.iter().enumerate() {
            if v["schema"]
                .get("openAPIV3Schema")
                .is_none_or(Value::is_null)
            {
                errs.push(required(
                    &sp.child("versions")
                        .index(i)
                        .child("schema")
                        .child("openAPIV3Schema"),
                    "schemas are required",
                ));
            }
        }
    }
    for (i, v) in versions.iter().enumerate() {
        let vp = sp.child("versions").index(i);
        let name = s(v, "name");
        for m in names::dns1035_label(name) {
            errs.push(invalid(&vp.child("name"), go_quote(name), m));
        }
        if hoisted_schema.is_none() {
            if let Some(schema) = v["schema"].get("openAPIV3Schema").filter(|s| !s.is_null()) {
                errs.extend(structural(
                    schema,
                    &vp.child("schema").child("openAPIV3Schema"),
                    true,
                ));
            }
        }
        if hoisted_columns.is_none() {
            errs.extend(columns(
                list(v, "additionalPrinterColumns"),
                &vp.child("additionalPrinterColumns"),
            ));
        }
    }
    let mut seen = HashSet::new();
    if !versions.iter().all(|v| seen.insert(s(v, "name"))) {
        errs.push(invalid(
            &sp.child("versions"),
            versions_value(versions, hoisted),
            "must contain unique version names",
        ));
    }
    let storage = versions.iter().filter(|v| v["storage"] == true).count();
    if storage != 1 {
        errs.push(invalid(
            &sp.child("versions"),
            versions_value(versions, hoisted),
            "must have exactly one version marked as storage version",
        ));
    }
    errs.extend(crd_names(names_v, &sp.child("names")));
    if let Some(schema) = hoisted_schema {
        errs.extend(structural(
            schema,
            &sp.child("validation").child("openAPIV3Schema"),
            true,
        ));
    }
    if let Some(cols) = hoisted_columns {
        errs.extend(columns(
            cols.as_array().map(Vec::as_slice).unwrap_or(&[]),
            &sp.child("additionalPrinterColumns"),
        ));
    }
    let strategy = s(&spec["conversion"], "strategy");
    if !matches!(strategy, "" | "None" | "Webhook") {
        errs.push(not_supported(
            &sp.child("conversion").child("strategy"),
            go_quote(strategy),
            &["None", "Webhook"],
        ));
    }
    errs.extend(stored_versions(obj));
    let approval = obj["metadata"]["annotations"]["api-approved.kubernetes.io"].as_str();
    if (group.ends_with(".k8s.io") || group.ends_with(".kubernetes.io") || group == "k8s.io")
        && approval.is_none()
    {
        errs.push(required(
            &Path::of(&["metadata", "annotations"]).key("api-approved.kubernetes.io"),
            "protected groups must have approval annotation \"api-approved.kubernetes.io\", see https://github.com/kubernetes/enhancements/pull/1111",
        ));
    }
    if spec["preserveUnknownFields"] == true {
        errs.push(invalid(
            &sp.child("preserveUnknownFields"),
            "true",
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ));
    }
    errs
}

/// `ValidateCustomResourceDefinitionNames`.
fn crd_names(n: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in ["plural", "singular"] {
        let v = s(n, key);
        if v.is_empty() {
            errs.push(required(&p.child(key), ""));
            continue;
        }
        for m in names::dns1035_label(v) {
            errs.push(invalid(&p.child(key), go_quote(v), m));
        }
    }
    for key in ["shortNames", "categories"] {
        for (i, v) in list(n, key).iter().enumerate() {
            let v = v.as_str().unwrap_or("");
            for m in names::dns1035_label(v) {
                errs.push(invalid(&p.child(key).index(i), go_quote(v), m));
            }
        }
    }
    for key in ["kind", "listKind"] {
        let v = s(n, key);
        if v.is_empty() {
            errs.push(required(&p.child(key), ""));
            continue;
        }
        for m in names::dns1035_label(&v.to_ascii_lowercase()) {
            errs.push(invalid(
                &p.child(key),
                go_quote(v),
                format!("may have mixed case, but should otherwise match: {m}"),
            ));
        }
    }
    let kind = s(n, "kind");
    if !kind.is_empty() && kind == s(n, "listKind") {
        errs.push(invalid(
            &p.child("listKind"),
            go_quote(kind),
            "kind and listKind may not be the same",
        ));
    }
    errs
}

const COLUMN_TYPES: &str = "boolean,date,integer,number,string";
const COLUMN_FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";

/// `hasIdenticalPerVersionSchema` and its siblings: the value every version sets, when they
/// all set the same one.
fn identical_per_version<'a>(
    versions: &'a [Value],
    field: impl Fn(&'a Value) -> Option<&'a Value>,
) -> Option<&'a Value> {
    let first = field(versions.first()?)?;
    versions
        .iter()
        .all(|v| field(v) == Some(first))
        .then_some(first)
}

/// `ValidateCustomResourceColumnDefinition` for each column.
fn columns(cols: &[Value], p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, col) in cols.iter().enumerate() {
        let cp = p.index(i);
        match s(col, "type") {
            "" => errs.push(required(
                &cp.child("type"),
                format!("must be one of {COLUMN_TYPES}"),
            )),
            t if COLUMN_TYPES.split(',').any(|x| x == t) => {}
            t => errs.push(invalid(
                &cp.child("type"),
                go_quote(t),
                format!("must be one of {COLUMN_TYPES}"),
            )),
        }
        let format = s(col, "format");
        if !format.is_empty() && !COLUMN_FORMATS.split(',').any(|x| x == format) {
            errs.push(invalid(
                &cp.child("format"),
                go_quote(format),
                format!("must be one of {COLUMN_FORMATS}"),
            ));
        }
        let path = s(col, "jsonPath");
        if path.is_empty() {
            errs.push(required(&cp.child("JSONPath"), ""));
        } else if !path.starts_with('.') {
            errs.push(invalid(
                &cp.child("JSONPath"),
                go_quote(path),
                "must be a simple json path starting with .",
            ));
        }
    }
    errs
}

const TYPES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];

/// `ValidateStructural` and the OpenAPI checks a hand-written schema trips over: every node has
/// a type (unless it preserves unknown fields or is int-or-string), arrays have items, the root
/// is an object.
fn structural(schema: &Value, p: &Path, root: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let t = s(schema, "type");
    if !t.is_empty() && !TYPES.contains(&t) {
        errs.push(not_supported(&p.child("type"), go_quote(t), TYPES));
    }
    if root {
        if t.is_empty() {
            errs.push(required(&p.child("type"), "must not be empty at the root"));
        } else if t != "object" {
            errs.push(invalid(
                &p.child("type"),
                go_quote(t),
                "must be object at the root",
            ));
        }
        if schema["nullable"] == true {
            errs.push(forbidden(
                &p.child("nullable"),
                "nullable cannot be true at the root",
            ));
        }
    }
    if schema["x-kubernetes-preserve-unknown-fields"] == false {
        errs.push(invalid(
            &p.child("x-kubernetes-preserve-unknown-fields"),
            "false",
            "must be true or undefined",
        ));
    }
    if schema.get("properties").is_some()
        && schema
            .get("additionalProperties")
            .is_some_and(|a| a.is_object())
    {
        errs.push(forbidden(
            &p.child("additionalProperties"),
            "additionalProperties and properties are mutual exclusive",
        ));
    }
    for key in [
        "$ref",
        "id",
        "additionalItems",
        "patternProperties",
        "definitions",
        "dependencies",
    ] {
        if schema.get(key).is_some() {
            errs.push(forbidden(&p.child(key), format!("{key} is not supported")));
        }
    }
    if let Some(props) = schema["properties"].as_object() {
        for (name, child) in props {
            let cp = p.child("properties").key(name);
            if root && name == "metadata" {
                let only_names = child["properties"]
                    .as_object()
                    .is_none_or(|m| m.keys().all(|k| k == "name" || k == "generateName"));
                if !only_names || child.get("type").is_some_and(|t| t != "object") {
                    errs.push(forbidden(
                        &cp,
                        "must not specify anything other than name and generateName, but metadata is implicitly specified",
                    ));
                }
            }
            if s(child, "type").is_empty()
                && child["x-kubernetes-preserve-unknown-fields"] != true
                && child["x-kubernetes-int-or-string"] != true
            {
                errs.push(required(
                    &cp.child("type"),
                    "must not be empty for specified object fields",
                ));
            }
            errs.extend(structural(child, &cp, false));
        }
    }
    if let Some(extra) = schema["additionalProperties"].as_object() {
        errs.extend(structural(
            &Value::Object(extra.clone()),
            &p.child("additionalProperties"),
            false,
        ));
    }
    if t == "array" {
        match schema.get("items") {
            None => errs.push(required(&p.child("items"), "must be specified")),
            Some(Value::Array(_)) => errs.push(forbidden(
                &p.child("items"),
                "items must be a schema object and not an array",
            )),
            Some(items) => {
                if s(items, "type").is_empty()
                    && items["x-kubernetes-preserve-unknown-fields"] != true
                    && items["x-kubernetes-int-or-string"] != true
                {
                    errs.push(required(
                        &p.child("items").child("type"),
                        "must not be empty for specified array items",
                    ));
                }
                errs.extend(structural(items, &p.child("items"), false));
            }
        }
    }
    errs
}

/// `ValidateCustomResourceDefinitionUpdate`: the group and plural never change; scope and kind
/// not once established.
pub fn crd_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = crd(new);
    errs.extend(object_meta_update(new, old, false));
    let established = old["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Established" && c["status"] == "True");
    let sp = Path::new("spec");
    let mut fixed = vec![(
        "group",
        &new["spec"]["group"],
        &old["spec"]["group"],
        sp.child("group"),
    )];
    fixed.push((
        "plural",
        &new["spec"]["names"]["plural"],
        &old["spec"]["names"]["plural"],
        sp.child("names").child("plural"),
    ));
    if established {
        fixed.push((
            "scope",
            &new["spec"]["scope"],
            &old["spec"]["scope"],
            sp.child("scope"),
        ));
        fixed.push((
            "kind",
            &new["spec"]["names"]["kind"],
            &old["spec"]["names"]["kind"],
            sp.child("names").child("kind"),
        ));
    }
    for (_, n, o, p) in fixed {
        if n != o {
            errs.push(invalid(&p, go_quote(n.as_str().unwrap_or("")), IMMUTABLE));
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use crate::validation::messages;
    use serde_json::json;

    fn cluster_policy() -> serde_json::Value {
        json!({"metadata": {"name": "clusterpolicies.nvidia.com"},
            "spec": {"group": "nvidia.com", "scope": "Cluster",
                "names": {"plural": "clusterpolicies", "singular": "clusterpolicy",
                          "kind": "ClusterPolicy", "listKind": "ClusterPolicyList"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                        "spec": {"type": "object", "properties": {
                            "driver": {"type": "object", "properties": {"enabled": {"type": "boolean"}}}}},
                        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
                    "additionalPrinterColumns": [{"name": "Status", "type": "string", "jsonPath": ".status.state"}]}]},
            "status": {"storedVersions": ["v1"]}})
    }

    #[test]
    fn the_course_crd_is_valid() {
        assert_eq!(
            messages(super::crd(&cluster_policy())),
            Vec::<String>::new()
        );
    }

    #[test]
    fn names_scope_storage_and_schema_are_checked() {
        let mut crd = cluster_policy();
        crd["metadata"]["name"] = json!("policies.nvidia.com");
        crd["spec"]["scope"] = json!("namespaced");
        crd["spec"]["versions"][0]["storage"] = json!(false);
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
            ["properties"]["driver"] = json!({"properties": {"enabled": {"type": "boolean"}}});
        crd["status"]["storedVersions"] = json!([]);
        let errs = messages(super::crd(&crd));
        // Paths, order and values as kube-apiserver 1.32 reports them (differential `crds`).
        assert_eq!(errs, [
            "metadata.name: Invalid value: \"policies.nvidia.com\": must be spec.names.plural+\".\"+spec.group",
            "spec.scope: Unsupported value: \"namespaced\": supported values: \"Cluster\", \"Namespaced\"",
            "spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomResourceDefinitionVersion{Name:\"v1\", Served:true, Storage:false, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}}: must have exactly one version marked as storage version",
            "spec.validation.openAPIV3Schema.properties[spec].properties[driver].type: Required value: must not be empty for specified object fields",
            "status.storedVersions: Invalid value: []string(nil): must have at least one stored version",
        ]);
    }
}
