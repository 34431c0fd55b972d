//! A cluster snapshot as a JSON document, so a harness can keep a state on disk (a cached reference
//! run) and restore it into another cluster later. Objects are kept exactly as the API serves them;
//! resources are named by group and plural, so a document outlives a reordering of the registry.

use serde_json::{json, Value};

use crate::registry::{self, CUSTOMRESOURCEDEFINITIONS};
use crate::resource::ResourceDef;
use crate::store::Snapshot;

const API_VERSION: &str = "proctor.dev/v1";
const KIND: &str = "ClusterSnapshot";

/// The document for `snapshot`: resources in (group, plural) order, objects in key order, so the
/// same state always gives the same bytes.
pub fn to_json(snapshot: &Snapshot) -> Value {
    let mut by_resource: std::collections::BTreeMap<(&str, &str), (&ResourceDef, Vec<&Value>)> =
        Default::default();
    for (res, value) in snapshot.objects() {
        by_resource
            .entry((res.group, res.plural))
            .or_insert_with(|| (res, Vec::new()))
            .1
            .push(value);
    }
    let resources: Vec<Value> = by_resource
        .into_values()
        .map(|(res, items)| {
            json!({
                "group": res.group,
                "version": res.version,
                "resource": res.plural,
                "items": items,
            })
        })
        .collect();
    json!({"apiVersion": API_VERSION, "kind": KIND, "resources": resources})
}

/// Reads a document written by [`to_json`].
pub fn from_json(doc: &Value) -> Result<Snapshot, String> {
    if doc["apiVersion"] != API_VERSION || doc["kind"] != KIND {
        return Err(format!(
            "not a {API_VERSION} {KIND} document (apiVersion {}, kind {})",
            doc["apiVersion"], doc["kind"]
        ));
    }
    let resources = doc["resources"]
        .as_array()
        .ok_or("resources: expected a list")?;
    // Custom resources are defined by the CustomResourceDefinitions the document itself holds.
    let definitions: Vec<&Value> = resources
        .iter()
        .filter(|e| {
            e["group"] == CUSTOMRESOURCEDEFINITIONS.group
                && e["resource"] == CUSTOMRESOURCEDEFINITIONS.plural
        })
        .filter_map(|e| e["items"].as_array())
        .flatten()
        .collect();
    let custom = |group: &str, version: &str, plural: &str| {
        definitions
            .iter()
            .filter(|crd| crd["spec"]["group"] == group && crd["spec"]["names"]["plural"] == plural)
            .find_map(|crd| crate::kinds::custom::storage_of(crd).filter(|r| r.version == version))
    };
    let mut objects = Vec::new();
    for (i, entry) in resources.iter().enumerate() {
        let group = entry["group"].as_str().unwrap_or("");
        let version = entry["version"].as_str().unwrap_or("");
        let plural = entry["resource"].as_str().unwrap_or("");
        let res = registry::find(group, version, plural)
            .or_else(|| custom(group, version, plural))
            .ok_or_else(|| {
                format!("resources[{i}]: unknown resource {plural:?} in {group:?}/{version}")
            })?;
        let items = entry["items"]
            .as_array()
            .ok_or_else(|| format!("resources[{i}].items: expected a list"))?;
        for (j, item) in items.iter().enumerate() {
            if item["metadata"]["name"].as_str().is_none_or(str::is_empty) {
                return Err(format!(
                    "resources[{i}].items[{j}]: object without metadata.name"
                ));
            }
            objects.push((res, item.clone()));
        }
    }
    Ok(Snapshot::from_objects(objects))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{NODES, PODS};
    use crate::store::Store;

    /// `snap` written out and read back, which must give the same document and `objects`
    /// objects, restored into an empty store.
    fn read_back(snap: &Snapshot, objects: usize) -> Store {
        let doc = to_json(snap);
        let back = from_json(&doc).expect("reads back");
        assert_eq!(back.len(), objects);
        assert_eq!(to_json(&back), doc);
        let store = Store::new();
        store.restore(&back);
        store
    }

    #[test]
    fn round_trips_every_object() {
        let store = Store::new();
        store
            .create(&NODES, json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"a": "b"}}}))
            .unwrap();
        store
            .create(&PODS, json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "x"}, "spec": {"nodeName": "n1"}}))
            .unwrap();
        // Restoring the read-back snapshot into an empty store recreates both objects.
        let other = read_back(&store.snapshot(), 2);
        let node = other.get(&NODES, "", "n1").expect("node restored");
        assert_eq!(node.value["metadata"]["labels"]["a"], "b");
        let pod = other.get(&PODS, "x", "p").expect("pod restored");
        assert_eq!(pod.value["spec"]["nodeName"], "n1");
    }

    /// A cached reference of a lab with a CustomResourceDefinition holds objects of its kind:
    /// they read back through the definition in the same document.
    #[test]
    fn custom_objects_read_back_through_their_definition() {
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "clusterpolicies.nvidia.com", "uid": "u-1", "generation": 1},
            "spec": {"group": "nvidia.com", "scope": "Cluster",
                "names": {"plural": "clusterpolicies", "singular": "clusterpolicy", "kind": "ClusterPolicy"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object",
                        "x-kubernetes-preserve-unknown-fields": true}}}]}});
        let res = crate::kinds::custom::storage_of(&crd).expect("a storage version");
        let policy = json!({"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy",
            "metadata": {"name": "cluster-policy"}, "spec": {"devicePlugin": {"config": {"name": "ts"}}}});
        let snap = Snapshot::from_objects(vec![(&CUSTOMRESOURCEDEFINITIONS, crd), (res, policy)]);
        let other = read_back(&snap, 2);
        let got = other.get(res, "", "cluster-policy").expect("restored");
        assert_eq!(got.value["spec"]["devicePlugin"]["config"]["name"], "ts");
    }

    #[test]
    fn rejects_foreign_documents_and_unknown_resources() {
        assert!(from_json(&json!({"kind": "List"})).is_err());
        let doc = json!({"apiVersion": API_VERSION, "kind": KIND, "resources": [
            {"group": "example.com", "version": "v1", "resource": "widgets", "items": []}
        ]});
        let err = from_json(&doc).err().expect("unknown resource");
        assert!(err.contains("widgets"), "{err}");
        let doc = json!({"apiVersion": API_VERSION, "kind": KIND, "resources": [
            {"group": "", "version": "v1", "resource": "pods", "items": [{"metadata": {}}]}
        ]});
        assert!(from_json(&doc)
            .err()
            .expect("nameless")
            .contains("metadata.name"));
    }
}
