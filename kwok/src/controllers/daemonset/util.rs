//! Pod and template helpers (`pkg/controller/daemon/util/daemonset_util.go`, `podutil`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{PodSpec, Toleration};
use serde_json::{json, Map, Value};

use super::manage::controller_ref;
use super::{REVISION_HASH_LABEL, TEMPLATE_GENERATION_LABEL};
use crate::controllers::typed::sorted_keys;
use crate::intstr::scaled_value;
pub(super) use crate::kinds::apps::daemonset::template_generation;
use crate::meta;
use crate::scheduler::add_daemon_tolerations;

pub(super) fn phase(pod: &Value) -> &str {
    pod["status"]["phase"].as_str().unwrap_or("")
}

pub(super) fn node_name_of(pod: &Value) -> &str {
    pod["spec"]["nodeName"].as_str().unwrap_or("")
}

/// `util.GetTargetNodeName` over pod JSON: `spec.nodeName`, else the single value of the first
/// `metadata.name In` matchFields requirement of the required node affinity.
pub fn target_node_name(pod: &Value) -> Option<&str> {
    let name = node_name_of(pod);
    if !name.is_empty() {
        return Some(name);
    }
    let terms = pod["spec"]["affinity"]["nodeAffinity"]
        ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        .as_array()?;
    for term in terms {
        for exp in term["matchFields"].as_array().into_iter().flatten() {
            if exp["key"] == "metadata.name" && exp["operator"] == "In" {
                return match exp["values"].as_array().map(Vec::as_slice) {
                    Some([only]) => only.as_str(),
                    _ => None,
                };
            }
        }
    }
    None
}

pub(super) fn object_entry<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
) -> &'a mut Map<String, Value> {
    meta::object_mut(map.entry(key).or_insert(Value::Null))
}

/// `util.ReplaceDaemonSetPodNodeNameNodeAffinity` over pod spec JSON: the required node selector
/// becomes the single `metadata.name In [node]` term; preferred terms and pod (anti-)affinity stay.
pub fn replace_node_name_affinity(spec: &mut Value, node: &str) {
    let spec = meta::object_mut(spec);
    let affinity = object_entry(spec, "affinity");
    let node_affinity = object_entry(affinity, "nodeAffinity");
    let required = object_entry(
        node_affinity,
        "requiredDuringSchedulingIgnoredDuringExecution",
    );
    required.insert(
        "nodeSelectorTerms".into(),
        json!([{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]),
    );
}

/// A toleration as the API server prints it (Go field order, empty fields omitted).
pub(super) fn toleration_json(t: &Toleration) -> Value {
    let mut m = Map::new();
    for (key, value) in [
        ("key", &t.key),
        ("operator", &t.operator),
        ("value", &t.value),
        ("effect", &t.effect),
    ] {
        if let Some(s) = value.as_deref().filter(|s| !s.is_empty()) {
            m.insert(key.into(), json!(s));
        }
    }
    if let Some(s) = t.toleration_seconds {
        m.insert("tolerationSeconds".into(), json!(s));
    }
    Value::Object(m)
}

/// `util.IsPodUpdated`: the pod carries the current revision hash or template generation.
pub(super) fn is_pod_updated(pod: &Value, hash: &str, generation: Option<&str>) -> bool {
    let template_matches =
        generation.is_some_and(|g| meta::label(pod, TEMPLATE_GENERATION_LABEL) == Some(g));
    let hash_matches = !hash.is_empty() && meta::label(pod, REVISION_HASH_LABEL) == Some(hash);
    hash_matches || template_matches
}

// ---------------------------------------------------------------------------------------------
// The pods a DaemonSet creates.

/// `util.CreatePodTemplate` + `controller.GetPodFromTemplate`, prepared once per sync.
pub(super) struct PodBlueprint {
    pub(super) namespace: String,
    pub(super) generate_name: String,
    pub(super) labels: Value,
    pub(super) annotations: Option<Value>,
    pub(super) finalizers: Option<Value>,
    pub(super) owner: Value,
    pub(super) spec: Value,
}

impl PodBlueprint {
    pub(super) fn new(ds: &Value, hash: &str) -> Self {
        let template = &ds["spec"]["template"];
        let mut labels: BTreeMap<String, Value> = template["metadata"]["labels"]
            .as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        if let Some(g) = template_generation(ds) {
            labels.insert(TEMPLATE_GENERATION_LABEL.into(), json!(g.to_string()));
        }
        if !hash.is_empty() {
            labels.insert(REVISION_HASH_LABEL.into(), json!(hash));
        }
        let annotations = template["metadata"]["annotations"]
            .as_object()
            .filter(|m| !m.is_empty())
            .map(|m| sorted_keys(&Value::Object(m.clone())));
        let finalizers = template["metadata"]["finalizers"]
            .as_array()
            .filter(|f| !f.is_empty())
            .map(|f| Value::Array(f.clone()));
        let mut spec = template["spec"].clone();
        if !spec.is_object() {
            spec = json!({});
        }
        let tolerations: Vec<Toleration> =
            serde_json::from_value(spec["tolerations"].clone()).unwrap_or_default();
        let mut typed = PodSpec {
            tolerations: Some(tolerations),
            host_network: spec["hostNetwork"].as_bool(),
            ..Default::default()
        };
        add_daemon_tolerations(&mut typed);
        spec["tolerations"] = Value::Array(
            typed
                .tolerations
                .iter()
                .flatten()
                .map(toleration_json)
                .collect(),
        );
        Self {
            namespace: meta::namespace(ds).to_string(),
            generate_name: format!("{}-", meta::name(ds)),
            labels: Value::Object(labels.into_iter().collect()),
            annotations,
            finalizers,
            owner: controller_ref(ds),
            spec,
        }
    }

    /// The pod for one node: created without `nodeName`, pinned by node affinity.
    pub(super) fn pod_for(&self, node: &str) -> Value {
        let mut metadata = Map::new();
        metadata.insert("generateName".into(), json!(self.generate_name));
        metadata.insert("namespace".into(), json!(self.namespace));
        metadata.insert("labels".into(), self.labels.clone());
        if let Some(a) = &self.annotations {
            metadata.insert("annotations".into(), a.clone());
        }
        metadata.insert("ownerReferences".into(), json!([self.owner]));
        if let Some(f) = &self.finalizers {
            metadata.insert("finalizers".into(), f.clone());
        }
        let mut spec = self.spec.clone();
        replace_node_name_affinity(&mut spec, node);
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
    }
}

/// `util.SurgeCount` over `spec.updateStrategy` (a missing maxSurge is 0).
pub(super) fn surge_count(strategy: &Value, desired: i64) -> Result<i64, String> {
    match &strategy["rollingUpdate"]["maxSurge"] {
        Value::Null => Ok(0),
        v => scaled_value(v, desired, true),
    }
}

/// `util.UnavailableCount` (a missing maxUnavailable is the API default, 1).
pub(super) fn unavailable_count(strategy: &Value, desired: i64) -> Result<i64, String> {
    match &strategy["rollingUpdate"]["maxUnavailable"] {
        Value::Null => Ok(1),
        v => scaled_value(v, desired, true),
    }
}
