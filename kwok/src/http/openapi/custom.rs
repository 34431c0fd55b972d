//! The OpenAPI v3 documents of custom resources: one per group version, holding every served
//! version of an established CustomResourceDefinition in it (apiextensions-apiserver
//! `controller/openapi/builder` `BuildOpenAPIV3`, merged by `MergeSpecsV3`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use super::published::Kit;
use crate::store::Store;

const SCHEMA_REF_PREFIX: &str = "#/components/schemas/";
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const LIST_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";

/// The documents of every custom group version served now, by name (`apis/<group>/<version>`).
pub(super) fn documents(store: &Store, kit: &Kit) -> BTreeMap<String, Value> {
    built(store, kit, |_| true)
}

/// The document `name` names, when it is a custom group version's: only its definitions built.
pub(super) fn document(store: &Store, kit: &Kit, name: &str) -> Option<Value> {
    built(store, kit, |gv| gv == name).remove(name)
}

/// The documents of the served group versions `wanted` names.
fn built(store: &Store, kit: &Kit, wanted: impl Fn(&str) -> bool) -> BTreeMap<String, Value> {
    let mut by_name: BTreeMap<String, Vec<Built>> = BTreeMap::new();
    crate::kinds::custom::for_each_served_version(store, |crd, version| {
        let name = format!(
            "apis/{}/{}",
            crd["spec"]["group"].as_str().unwrap_or_default(),
            version["name"].as_str().unwrap_or_default()
        );
        if wanted(&name) {
            by_name
                .entry(name)
                .or_default()
                .push(build(crd, version, kit));
        }
    });
    by_name
        .into_iter()
        .map(|(name, built)| (name, merge(built, kit)))
        .collect()
}

/// What one served version of one definition adds to its group version's document.
struct Built {
    schemas: Map<String, Value>,
    paths: Map<String, Value>,
}

/// `MergeSpecsV3`: the paths and schemas of all the definitions of a group version, with the
/// shared metadata and Scale schemas once.
fn merge(built: Vec<Built>, kit: &Kit) -> Value {
    let mut schemas = Map::new();
    let mut paths = Map::new();
    for b in built {
        schemas.extend(b.schemas);
        paths.extend(b.paths);
    }
    // builder3 adds every schema an operation or a schema refers to, transitively.
    let mut wanted: Vec<String> = Vec::new();
    paths
        .values()
        .chain(schemas.values())
        .for_each(|v| refs(v, &mut wanted));
    let mut seen = BTreeSet::new();
    while let Some(name) = wanted.pop() {
        if schemas.contains_key(&name) || !seen.insert(name.clone()) {
            continue;
        }
        if let Some(s) = kit.schemas.get(&name) {
            refs(s, &mut wanted);
            schemas.insert(name, s.clone());
        }
    }
    sorted(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
        "paths": paths,
        "components": {"schemas": schemas},
    }))
}

/// The schema names `v` refers to.
fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => {
                        if let Some(name) = r.strip_prefix(SCHEMA_REF_PREFIX) {
                            out.push(name.to_owned());
                        }
                    }
                    _ => refs(v, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

/// Go marshals maps with their keys sorted; so do these documents, so that their bytes (and
/// ETag) do not depend on the order definitions were stored in.
fn sorted(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
        other => other,
    }
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("{SCHEMA_REF_PREFIX}{name}") })
}

/// A reference with a description beside it, wrapped in `allOf` as builder3's `WrapRefs` does.
fn described_ref(name: &str, description: &str) -> Value {
    json!({ "allOf": [schema_ref(name)], "description": description })
}

/// `util.ToRESTFriendlyName`: `nvidia.com/v1.ClusterPolicy` → `com.nvidia.v1.ClusterPolicy`.
fn definition_name(group: &str, version: &str, kind: &str) -> String {
    let reversed: Vec<&str> = group.split('.').rev().collect();
    format!("{}.{version}.{kind}", reversed.join("."))
}

/// `ToValidOperationID` (k8s.io/apiserver `endpoints/openapi`).
fn operation_id_part(s: &str, capitalize_first: bool) -> String {
    let mut out = String::new();
    let mut capitalize = capitalize_first;
    for (i, c) in s.chars().enumerate() {
        if c.is_alphabetic() || c == '_' || (i != 0 && c.is_numeric()) {
            if capitalize {
                out.extend(c.to_uppercase());
                capitalize = false;
            } else {
                out.push(c);
            }
        } else {
            capitalize = true;
        }
    }
    out
}

struct Names<'a> {
    group: &'a str,
    version: &'a str,
    kind: &'a str,
    list_kind: String,
    plural: &'a str,
    namespaced: bool,
}

fn build(crd: &Value, version: &Value, kit: &Kit) -> Built {
    let spec = &crd["spec"];
    let kind = spec["names"]["kind"].as_str().unwrap_or_default();
    let names = Names {
        group: spec["group"].as_str().unwrap_or_default(),
        version: version["name"].as_str().unwrap_or_default(),
        kind,
        list_kind: spec["names"]["listKind"]
            .as_str()
            .map_or_else(|| format!("{kind}List"), str::to_owned),
        plural: spec["names"]["plural"].as_str().unwrap_or_default(),
        namespaced: spec["scope"] == "Namespaced",
    };
    let kind_name = definition_name(names.group, names.version, names.kind);
    let list_name = definition_name(names.group, names.version, &names.list_kind);
    let selectable: Vec<Value> = version["selectableFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["jsonPath"].as_str())
        .map(|p| json!({ "fieldPath": p.trim_start_matches('.') }))
        .collect();

    let mut schemas = Map::new();
    let mut object = kind_schema(&version["schema"]["openAPIV3Schema"], kit);
    object["x-kubernetes-group-version-kind"] =
        json!([{ "group": names.group, "kind": names.kind, "version": names.version }]);
    object["x-kubernetes-selectable-fields"] = Value::Array(selectable.clone());
    schemas.insert(kind_name.clone(), object);
    let mut list = json!({
        "description": format!("{} is a list of {}", names.list_kind, names.kind),
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": kit.api_version,
            "kind": kit.kind,
            "items": {
                "description": format!("List of {}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md", names.plural),
                "type": "array",
                "items": schema_ref(&kind_name),
            },
            "metadata": described_ref(LIST_META, &kit.list_meta_description),
        },
        "x-kubernetes-group-version-kind": [{ "group": names.group, "kind": names.list_kind, "version": names.version }],
    });
    list["x-kubernetes-selectable-fields"] = Value::Array(selectable);
    schemas.insert(list_name.clone(), list);

    Built {
        paths: paths(&names, version, &kind_name, &list_name, kit),
        schemas,
    }
}

/// `buildKubeNative` for OpenAPI v3: the version's structural schema with `metadata` as a
/// reference to ObjectMeta and TypeMeta's fields, or a bare object without a schema.
fn kind_schema(schema: &Value, kit: &Kit) -> Value {
    if !schema.is_object() {
        return json!({ "type": "object" });
    }
    let mut s = to_kube_openapi(schema);
    unfold(&mut s);
    let props = s
        .as_object_mut()
        .map(|m| m.entry("properties").or_insert_with(|| json!({})));
    if let Some(Value::Object(props)) = props {
        props.insert(
            "metadata".into(),
            described_ref(OBJECT_META, &kit.object_meta_description),
        );
        props.insert("apiVersion".into(), kit.api_version.clone());
        props.insert("kind".into(), kit.kind.clone());
    }
    add_embedded_properties(&mut s, kit);
    s
}

/// `Structural.ToKubeOpenAPI`: what a structural schema keeps. Examples, external docs and
/// everything else outside the structural model are dropped; false flags are left out.
fn to_kube_openapi(s: &Value) -> Value {
    let Some(m) = s.as_object() else {
        return s.clone();
    };
    let mut out = Map::new();
    for (k, v) in m {
        let kept = match k.as_str() {
            "type"
            | "format"
            | "description"
            | "title"
            | "default"
            | "maximum"
            | "minimum"
            | "maxLength"
            | "minLength"
            | "pattern"
            | "maxItems"
            | "minItems"
            | "multipleOf"
            | "enum"
            | "maxProperties"
            | "minProperties"
            | "x-kubernetes-list-type"
            | "x-kubernetes-map-type" => Some(v.clone()),
            "nullable"
            | "exclusiveMaximum"
            | "exclusiveMinimum"
            | "uniqueItems"
            | "x-kubernetes-preserve-unknown-fields"
            | "x-kubernetes-embedded-resource"
            | "x-kubernetes-int-or-string" => (v == &Value::Bool(true)).then(|| v.clone()),
            "required" | "x-kubernetes-list-map-keys" | "x-kubernetes-validations" => {
                v.as_array().filter(|a| !a.is_empty()).map(|_| v.clone())
            }
            "properties" => v.as_object().map(|p| {
                Value::Object(
                    p.iter()
                        .map(|(name, s)| (name.clone(), to_kube_openapi(s)))
                        .collect(),
                )
            }),
            "items" | "not" => Some(to_kube_openapi(v)),
            "additionalProperties" => Some(match v {
                Value::Bool(b) => Value::Bool(*b),
                s => to_kube_openapi(s),
            }),
            "allOf" | "anyOf" | "oneOf" => v
                .as_array()
                .map(|a| Value::Array(a.iter().map(to_kube_openapi).collect())),
            _ => None,
        };
        if let Some(v) = kept {
            out.insert(k.clone(), v);
        }
    }
    Value::Object(out)
}

/// `Structural.Unfold`: an int-or-string field says so with `anyOf` integer or string, unless
/// it already does.
fn unfold(s: &mut Value) {
    let int_or_string = json!([{ "type": "integer" }, { "type": "string" }]);
    if s["x-kubernetes-int-or-string"] == true {
        let spelled = s["anyOf"] == int_or_string || s["allOf"][0]["anyOf"] == int_or_string;
        if !spelled {
            if s.get("anyOf").is_none() {
                s["anyOf"] = int_or_string.clone();
            } else {
                let mut all = vec![json!({ "anyOf": int_or_string })];
                all.extend(s["allOf"].as_array().cloned().unwrap_or_default());
                s["allOf"] = Value::Array(all);
            }
        }
    }
    for_each_child(s, unfold);
}

/// `addEmbeddedProperties`: an embedded resource gets TypeMeta's fields, with builder.go's own
/// descriptions, and a reference to ObjectMeta, and requires kind and apiVersion.
fn add_embedded_properties(s: &mut Value, kit: &Kit) {
    for_each_child(s, |c| add_embedded_properties(c, kit));
    if s["x-kubernetes-embedded-resource"] != true {
        return;
    }
    let mut api_version = kit.api_version.clone();
    api_version["description"] = json!("apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources");
    let mut kind = kit.kind.clone();
    kind["description"] = json!("kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds");
    let Some(m) = s.as_object_mut() else {
        return;
    };
    if let Value::Object(props) = m.entry("properties").or_insert_with(|| json!({})) {
        props.insert("apiVersion".into(), api_version);
        props.insert("kind".into(), kind);
        props.insert(
            "metadata".into(),
            described_ref(OBJECT_META, &kit.object_meta_description),
        );
    }
    if let Value::Array(required) = m.entry("required").or_insert_with(|| json!([])) {
        for field in ["kind", "apiVersion"] {
            if !required.iter().any(|r| r == field) {
                required.push(json!(field));
            }
        }
    }
}

/// The schemas under `s`: properties, items and additionalProperties.
fn for_each_child(s: &mut Value, mut f: impl FnMut(&mut Value)) {
    if let Some(Value::Object(props)) = s.get_mut("properties") {
        props.values_mut().for_each(&mut f);
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = s.get_mut(key).filter(|c| c.is_object()) {
            f(child);
        }
    }
}

/// The sample definitions upstream built the template document for (`upstream/openapi.sh`).
const SAMPLE_PREFIX: &str = "/apis/proctor.example/v1/";
const SAMPLE_OPERATION_ID: &str = "ProctorExampleV1";
const SAMPLE_NAMESPACED: (&str, &str) = ("Sample", "samples");
const SAMPLE_CLUSTER: (&str, &str) = ("ClusterSample", "clustersamples");

/// The definition's routes (`generateBuilder`): upstream's routes of the sample of the same
/// scope, for the subresources the version has, renamed and described for this kind.
fn paths(n: &Names, version: &Value, kind: &str, list: &str, kit: &Kit) -> Map<String, Value> {
    let (sample_kind, sample_plural) = if n.namespaced {
        SAMPLE_NAMESPACED
    } else {
        SAMPLE_CLUSTER
    };
    let sample_refs = [
        (definition_name("proctor.example", "v1", sample_kind), kind),
        (
            definition_name("proctor.example", "v1", &format!("{sample_kind}List")),
            list,
        ),
    ];
    let mut out = Map::new();
    for (template_path, template) in &kit.templates {
        let Some(rest) = template_path.strip_prefix(SAMPLE_PREFIX) else {
            continue;
        };
        let mut segments: Vec<&str> = rest.split('/').collect();
        let Some(at) = segments.iter().position(|s| *s == sample_plural) else {
            continue;
        };
        let subresource = if segments.len() == at + 3 {
            segments[at + 2]
        } else {
            ""
        };
        if !subresource.is_empty() && !version["subresources"][subresource].is_object() {
            continue;
        }
        segments[at] = n.plural;
        let path = format!("/apis/{}/{}/{}", n.group, n.version, segments.join("/"));
        let Value::Object(template) = template else {
            continue;
        };
        let mut item = Map::new();
        for (key, value) in template {
            let value = if key == "parameters" {
                path_parameters(n, value)
            } else {
                operation(n, value, sample_kind, subresource)
            };
            item.insert(key.clone(), value);
        }
        let mut item = Value::Object(item);
        rename_refs(&mut item, &sample_refs);
        out.insert(path, item);
    }
    out
}

/// Point the sample's schema references at this kind's.
fn rename_refs(v: &mut Value, renames: &[(String, &str)]) {
    match v {
        Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                if let ("$ref", Value::String(r)) = (k.as_str(), &*v) {
                    let target = r.strip_prefix(SCHEMA_REF_PREFIX).and_then(|name| {
                        renames
                            .iter()
                            .find(|(from, _)| from == name)
                            .map(|(_, to)| *to)
                    });
                    if let Some(to) = target {
                        *v = Value::String(format!("{SCHEMA_REF_PREFIX}{to}"));
                    }
                } else {
                    rename_refs(v, renames);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|v| rename_refs(v, renames)),
        _ => {}
    }
}

/// A path's shared parameters, the name's described for this kind.
fn path_parameters(n: &Names, template: &Value) -> Value {
    let mut params = template.clone();
    if let Value::Array(list) = &mut params {
        for p in list
            .iter_mut()
            .filter(|p| p["name"] == "name" && p["in"] == "path")
        {
            p["description"] = json!(format!("name of the {}", n.kind));
        }
    }
    params
}

/// One operation: the sample's parameters, bodies and answers, with this kind's description,
/// operation id (`GetOperationIDAndTags`), tag and group-version-kind.
fn operation(n: &Names, template: &Value, sample_kind: &str, subresource: &str) -> Value {
    let mut op = template.clone();
    let Some(id) = template["operationId"].as_str() else {
        return op;
    };
    let Some((verb, rest)) = id.split_once(SAMPLE_OPERATION_ID) else {
        return op;
    };
    let group_id = operation_id_part(n.group.trim_end_matches(".k8s.io"), true);
    let version_id = operation_id_part(n.version, true);
    op["operationId"] = json!(format!(
        "{verb}{group_id}{version_id}{}",
        rest.replacen(sample_kind, n.kind, 1)
    ));
    let action = match (verb, rest.starts_with("Collection")) {
        ("delete", true) => "deletecollection",
        (verb, _) => verb,
    };
    op["description"] = json!(description(n.kind, action, subresource));
    op["tags"] = json!([format!(
        "{}_{}",
        operation_id_part(n.group.trim_end_matches(".k8s.io"), false),
        operation_id_part(n.version, false)
    )]);
    op["x-kubernetes-group-version-kind"] =
        json!({ "group": n.group, "kind": n.kind, "version": n.version });
    op
}

/// `builder.descriptionFor`.
fn description(kind: &str, verb: &str, subresource: &str) -> String {
    let article = match verb {
        "list" => " objects of kind ".to_owned(),
        "read" | "replace" | "patch" => " the specified ".to_owned(),
        "create" | "delete" => article_for(kind),
        _ => String::new(),
    };
    let sub = if subresource.is_empty() {
        String::new()
    } else {
        format!(" {subresource} of")
    };
    match verb {
        "patch" => format!("partially update{sub}{article}{kind}"),
        "deletecollection" => {
            let sub = if sub.is_empty() {
                sub
            } else {
                format!("{sub} a")
            };
            format!("delete collection of{sub} {kind}")
        }
        verb => format!("{verb}{sub}{article}{kind}"),
    }
}

/// `endpoints.GetArticleForNoun(noun, " ")`: none before a plural, `an` before a vowel.
fn article_for(noun: &str) -> String {
    if !noun.ends_with("ss") && noun.ends_with('s') {
        return " ".into();
    }
    if noun.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']) {
        " an ".into()
    } else {
        " a ".into()
    }
}

#[cfg(test)]
mod tests;
