//! The OpenAPI v3 documents of the built-in kinds as the pinned Kubernetes release serves them
//! (read from [`crate::definitions::read_bundle`]), cut to the groups
//! and resources this server serves, and the parts of them that custom resources' documents
//! borrow.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use super::Document;
use crate::http::route::{self, Target};
use crate::registry::GROUPS;

pub(super) struct Published {
    /// Rendered documents by name (`api/v1`, `apis/apps/v1`, `version`, ...).
    pub documents: BTreeMap<String, Arc<Document>>,
    /// What custom resources' documents are made of.
    pub kit: Kit,
}

/// What a custom resource's document is made of, from the document upstream built for sample
/// definitions.
#[derive(Default)]
pub(super) struct Kit {
    /// The schemas of metadata, Status, DeleteOptions, Patch and Scale, as a custom resource's
    /// document has them.
    pub schemas: Map<String, Value>,
    /// The samples' path items, by path.
    pub templates: Map<String, Value>,
    /// `TypeMeta`'s `apiVersion` and `kind` properties.
    pub api_version: Value,
    pub kind: Value,
    /// The descriptions of `PartialObjectMetadata(List).metadata`.
    pub object_meta_description: String,
    pub list_meta_description: String,
}

/// Loaded on first use: the documents are megabytes, and a cluster nobody asks for OpenAPI
/// never pays for them.
pub(super) fn published() -> &'static Published {
    static PUBLISHED: OnceLock<Published> = OnceLock::new();
    PUBLISHED.get_or_init(|| {
        load().unwrap_or_else(|e| {
            tracing::error!("the built-in OpenAPI documents cannot be read: {e}");
            Published {
                documents: BTreeMap::new(),
                kit: Kit::default(),
            }
        })
    })
}

fn load() -> anyhow::Result<Published> {
    let mut bundle = crate::definitions::read_bundle()?;
    let release = bundle["release"].as_str().unwrap_or_default().to_owned();
    let Value::Object(schemas) = bundle["schemas"].take() else {
        anyhow::bail!("no schemas");
    };
    let Value::Object(all) = bundle["documents"].take() else {
        anyhow::bail!("no documents");
    };
    let mut documents = BTreeMap::new();
    for (name, mut doc) in all {
        if !served(&name) {
            continue;
        }
        let names = doc["components"]["schemas"].take();
        let own: Map<String, Value> = names
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter_map(|n| schemas.get(n).map(|s| (n.to_owned(), s.clone())))
            .collect();
        doc["components"]["schemas"] = Value::Object(own);
        if name.starts_with("api/") || name.matches('/').count() == 2 {
            if let Some(Value::Object(paths)) = doc.get_mut("paths") {
                paths.retain(|path, _| path_is_served(path));
            }
        }
        documents.insert(name, Arc::new(Document::new(&doc)));
    }
    let kit = kit(bundle["custom"].take());
    tracing::debug!(
        "serving the OpenAPI documents of Kubernetes {release} ({} of them)",
        documents.len()
    );
    Ok(Published { documents, kit })
}

/// The sample definitions' document, taken apart: their kind and list schemas give the fields
/// every custom kind has, the rest is shared as it is.
fn kit(mut custom: Value) -> Kit {
    let Value::Object(mut schemas) = custom["components"]["schemas"].take() else {
        return Kit::default();
    };
    let sample = schemas
        .remove("example.proctor.v1.Sample")
        .unwrap_or_default();
    let sample_list = schemas
        .remove("example.proctor.v1.SampleList")
        .unwrap_or_default();
    schemas.retain(|name, _| !name.starts_with("example.proctor."));
    let Value::Object(templates) = custom["paths"].take() else {
        return Kit::default();
    };
    let description = |v: &Value| v["description"].as_str().unwrap_or_default().to_owned();
    Kit {
        api_version: sample["properties"]["apiVersion"].clone(),
        kind: sample["properties"]["kind"].clone(),
        object_meta_description: description(&sample["properties"]["metadata"]),
        list_meta_description: description(&sample_list["properties"]["metadata"]),
        schemas,
        templates,
    }
}

/// The documents of the groups this server serves: the root ones, each served group's and each
/// served group version's.
fn served(name: &str) -> bool {
    match name.split('/').collect::<Vec<_>>().as_slice() {
        ["api"] | ["api", "v1"] | ["apis"] | ["version"] => true,
        ["apis", group] => GROUPS.iter().any(|(g, _)| g == group),
        ["apis", group, version] => GROUPS.iter().any(|(g, v)| g == group && v == version),
        _ => false,
    }
}

/// Does the server route a path of the document (`/api/v1/namespaces/{namespace}/pods/{name}`)
/// to something it serves? Asked of the router itself, so the documents never promise a
/// resource or subresource it does not have.
fn path_is_served(template: &str) -> bool {
    let concrete = template
        .replace("{namespace}", "default")
        .replace("{name}", "example")
        .replace("{path}", "example");
    matches!(
        route::parse(&concrete, route::BUILT_IN),
        Target::Resource(_) | Target::ResourceList { .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_holds_the_served_documents_of_its_release() {
        let p = published();
        for (group, version) in GROUPS {
            assert!(
                p.documents.contains_key(&format!("apis/{group}/{version}")),
                "{group}/{version}"
            );
        }
        assert!(p.documents.contains_key("api/v1"));
        assert!(p.documents.contains_key("apis/certificates.k8s.io/v1"));
        assert!(!p
            .documents
            .contains_key("apis/flowcontrol.apiserver.k8s.io/v1"));
    }

    #[test]
    fn paths_are_kept_only_where_the_server_routes_them() {
        assert!(path_is_served("/api/v1/namespaces/{namespace}/pods/{name}"));
        assert!(path_is_served(
            "/api/v1/namespaces/{namespace}/pods/{name}/status"
        ));
        assert!(path_is_served("/apis/apps/v1/"));
        assert!(path_is_served("/api/v1/watch/namespaces/{namespace}/pods"));
        assert!(path_is_served(
            "/api/v1/namespaces/{namespace}/podtemplates"
        ));
        assert!(!path_is_served("/api/v1/componentstatuses/{name}"));
        assert!(path_is_served("/api/v1/nodes/{name}/proxy/{path}"));
        assert!(path_is_served(
            "/api/v1/namespaces/{namespace}/services/{name}/proxy"
        ));
        let doc = &published().documents["api/v1"];
        let doc: Value = serde_json::from_slice(&doc.json).expect("json");
        let paths = doc["paths"].as_object().expect("paths");
        assert!(paths.contains_key("/api/v1/namespaces/{namespace}/pods"));
        assert!(!paths.contains_key("/api/v1/componentstatuses"));
    }

    #[test]
    fn custom_resources_find_what_they_borrow() {
        let kit = &published().kit;
        for name in [
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
            "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
            "io.k8s.api.autoscaling.v1.Scale",
        ] {
            assert!(kit.schemas.contains_key(name), "{name}");
        }
        assert!(kit.templates
            ["/apis/proctor.example/v1/namespaces/{namespace}/samples/{name}/scale"]
            .is_object());
        assert!(kit.templates["/apis/proctor.example/v1/clustersamples/{name}"].is_object());
        assert_eq!(kit.api_version["type"], "string");
        assert!(kit
            .object_meta_description
            .starts_with("Standard object's metadata."));
        assert!(kit
            .list_meta_description
            .starts_with("Standard list metadata."));
    }
}
