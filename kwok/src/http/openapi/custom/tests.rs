//! Cases from apiextensions-apiserver `controller/openapi/builder/builder_test.go`
//! (`TestBuildOpenAPIV3`), the descriptions of TypeMeta and ObjectMeta wiped as it wipes them.

use super::*;
use crate::http::openapi::published::published;

fn crd(schema: Option<Value>, version_extra: Value) -> (Value, Value) {
    let mut version = json!({"name": "v1", "served": true, "storage": true});
    if let Some(s) = schema {
        version["schema"] = json!({ "openAPIV3Schema": s });
    }
    if let (Value::Object(v), Value::Object(extra)) = (&mut version, version_extra) {
        v.extend(extra);
    }
    let crd = json!({
        "spec": {
            "group": "bar.k8s.io",
            "names": {"plural": "foos", "singular": "foo", "kind": "Foo", "listKind": "FooList"},
            "scope": "Namespaced",
            "versions": [version.clone()],
        }
    });
    (crd, version)
}

/// The kind's schema with the descriptions of its TypeMeta and ObjectMeta fields wiped.
fn kind_schema_of(schema: Option<Value>, version_extra: Value) -> Value {
    let (crd, version) = crd(schema, version_extra);
    let built = build(&crd, &version, &published().kit);
    let mut s = built.schemas["io.k8s.bar.v1.Foo"].clone();
    if let Some(props) = s.get_mut("properties") {
        for field in ["kind", "apiVersion", "metadata"] {
            if let Some(Value::Object(m)) = props.get_mut(field) {
                m.remove("description");
            }
        }
    }
    s
}

const GVK: &str = r##"[{"group":"bar.k8s.io","kind":"Foo","version":"v1"}]"##;

fn expect(s: &str) -> Value {
    let mut v: Value = serde_json::from_str(s).expect("json");
    v["x-kubernetes-group-version-kind"] = serde_json::from_str(GVK).expect("gvk");
    // Selectable fields are on in 1.32 (CustomResourceFieldSelectors): an empty list when the
    // version names none.
    if v.get("x-kubernetes-selectable-fields").is_none() {
        v["x-kubernetes-selectable-fields"] = json!([]);
    }
    v
}

#[test]
fn a_version_without_a_schema_is_a_bare_object() {
    assert_eq!(
        kind_schema_of(None, json!({})),
        expect(r##"{"type":"object"}"##)
    );
}

#[test]
fn properties_gain_type_meta_and_a_wrapped_object_meta_reference() {
    let meta = r##"{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]}"##;
    assert_eq!(
        kind_schema_of(
            Some(
                json!({"type":"object","properties":{"spec":{"type":"object"},"status":{"type":"object"}}})
            ),
            json!({})
        ),
        expect(&format!(
            r##"{{"type":"object","properties":{{"apiVersion":{{"type":"string"}},"kind":{{"type":"string"}},"metadata":{meta},"spec":{{"type":"object"}},"status":{{"type":"object"}}}}}}"##
        ))
    );
    // Nullable and defaults are kept in v3.
    assert_eq!(
        kind_schema_of(
            Some(
                json!({"type":"object","properties":{"spec":{"type":"object","nullable":true,"properties":{"field":{"type":"string","default":"foo"}}}}})
            ),
            json!({"selectableFields": [{"jsonPath": ".spec.field"}]})
        ),
        expect(&format!(
            r##"{{"type":"object","properties":{{"apiVersion":{{"type":"string"}},"kind":{{"type":"string"}},"metadata":{meta},"spec":{{"type":"object","nullable":true,"properties":{{"field":{{"type":"string","default":"foo"}}}}}}}},"x-kubernetes-selectable-fields":[{{"fieldPath":"spec.field"}}]}}"##
        ))
    );
}

#[test]
fn int_or_string_is_unfolded_unless_spelled_out() {
    let spelled = json!([{"type":"integer"},{"type":"string"}]);
    let s = kind_schema_of(
        Some(json!({"type":"object","properties":{
            "plain": {"x-kubernetes-int-or-string": true},
            "spelled": {"x-kubernetes-int-or-string": true, "anyOf": spelled},
            "bounded": {"x-kubernetes-int-or-string": true, "anyOf": [{"minimum": 42.0}]},
            "example": {"type": "string", "example": "dropped", "externalDocs": {"url": "x"}},
        }})),
        json!({}),
    );
    assert_eq!(s["properties"]["plain"]["anyOf"], spelled);
    assert_eq!(s["properties"]["spelled"]["anyOf"], spelled);
    assert!(s["properties"]["spelled"].get("allOf").is_none());
    assert_eq!(
        s["properties"]["bounded"]["allOf"],
        json!([{"anyOf": spelled}])
    );
    assert_eq!(
        s["properties"]["bounded"]["anyOf"],
        json!([{"minimum": 42.0}])
    );
    assert_eq!(s["properties"]["example"], json!({"type": "string"}));
}

#[test]
fn an_embedded_resource_gets_type_and_object_meta() {
    let s = kind_schema_of(
        Some(json!({"type":"object","properties":{"template": {
            "type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true
        }}})),
        json!({}),
    );
    let t = &s["properties"]["template"];
    assert_eq!(t["required"], json!(["kind", "apiVersion"]));
    assert!(t["properties"]["kind"]["description"].as_str().is_some_and(
        |d| d.starts_with("kind is a string value representing the type of this object.")
    ));
    assert_eq!(
        t["properties"]["metadata"]["allOf"][0]["$ref"],
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    );
}

#[test]
fn routes_are_named_described_and_typed_as_the_builder_does() {
    let (crd, version) = crd(
        Some(json!({"type":"object"})),
        json!({"subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}}),
    );
    let built = build(&crd, &version, &published().kit);
    let p = &built.paths;
    let mut keys: Vec<&String> = p.keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "/apis/bar.k8s.io/v1/foos",
            "/apis/bar.k8s.io/v1/namespaces/{namespace}/foos",
            "/apis/bar.k8s.io/v1/namespaces/{namespace}/foos/{name}",
            "/apis/bar.k8s.io/v1/namespaces/{namespace}/foos/{name}/scale",
            "/apis/bar.k8s.io/v1/namespaces/{namespace}/foos/{name}/status",
        ]
    );
    let all = &p["/apis/bar.k8s.io/v1/foos"]["get"];
    assert_eq!(all["operationId"], "listBarV1FooForAllNamespaces");
    assert_eq!(all["tags"], json!(["bar_v1"]));
    let item = &p["/apis/bar.k8s.io/v1/namespaces/{namespace}/foos/{name}"];
    assert_eq!(item["patch"]["operationId"], "patchBarV1NamespacedFoo");
    assert_eq!(
        item["patch"]["description"],
        "partially update the specified Foo"
    );
    assert_eq!(item["delete"]["description"], "delete a Foo");
    // No strategic merge patch: kubectl apply falls back to a JSON merge patch, as upstream.
    let patch_types = item["patch"]["requestBody"]["content"]
        .as_object()
        .expect("content");
    assert!(patch_types.contains_key("application/merge-patch+json"));
    assert!(!patch_types.contains_key("application/strategic-merge-patch+json"));
    let collection = &p["/apis/bar.k8s.io/v1/namespaces/{namespace}/foos"];
    assert_eq!(
        collection["delete"]["operationId"],
        "deleteBarV1CollectionNamespacedFoo"
    );
    assert_eq!(
        collection["post"]["responses"]["201"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/io.k8s.bar.v1.Foo"
    );
    assert_eq!(
        collection["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/io.k8s.bar.v1.FooList"
    );
    let names: Vec<&str> = item["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["name", "namespace", "pretty"]);
    assert_eq!(item["parameters"][0]["description"], "name of the Foo");
    assert!(item["patch"]["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .any(|p| p["name"] == "fieldValidation"));
    let scale = &p["/apis/bar.k8s.io/v1/namespaces/{namespace}/foos/{name}/scale"];
    assert_eq!(
        scale["put"]["operationId"],
        "replaceBarV1NamespacedFooScale"
    );
    assert_eq!(
        scale["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/io.k8s.api.autoscaling.v1.Scale"
    );
    assert_eq!(
        collection["delete"]["description"],
        "delete collection of Foo"
    );
    assert_eq!(collection["post"]["description"], "create a Foo");
    assert_eq!(
        p["/apis/bar.k8s.io/v1/namespaces/{namespace}/foos/{name}/status"]["patch"]["description"],
        "partially update status of the specified Foo"
    );
}

#[test]
fn a_document_holds_what_its_references_need() {
    let (mut crd, version) = crd(Some(json!({"type":"object"})), json!({}));
    crd["spec"]["scope"] = json!("Cluster");
    let kit = &published().kit;
    let doc = merge(vec![build(&crd, &version, kit)], kit);
    let schemas = doc["components"]["schemas"].as_object().expect("schemas");
    for name in [
        "io.k8s.bar.v1.Foo",
        "io.k8s.bar.v1.FooList",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
        "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
    ] {
        assert!(schemas.contains_key(name), "{name}");
    }
    assert!(!schemas.contains_key("io.k8s.api.autoscaling.v1.Scale"));
    let paths: Vec<&String> = doc["paths"].as_object().expect("paths").keys().collect();
    assert_eq!(
        paths,
        [
            "/apis/bar.k8s.io/v1/foos",
            "/apis/bar.k8s.io/v1/foos/{name}"
        ]
    );
    assert_eq!(doc["info"]["title"], "Kubernetes CRD Swagger");
}

#[test]
fn names_follow_the_rest_friendly_form() {
    assert_eq!(
        definition_name("nvidia.com", "v1", "ClusterPolicy"),
        "com.nvidia.v1.ClusterPolicy"
    );
    assert_eq!(
        definition_name("stable", "v1beta1", "CronTab"),
        "stable.v1beta1.CronTab"
    );
    assert_eq!(operation_id_part("nvidia.com", true), "NvidiaCom");
    assert_eq!(
        operation_id_part("monitoring.coreos.com", false),
        "monitoringCoreosCom"
    );
    assert_eq!(article_for("Pods"), " ");
    assert_eq!(article_for("Class"), " a ");
    assert_eq!(article_for("Ingress"), " an ");
}
