//! Node objects for the lab's starting nodes and for injected perturbations.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::scenario::model::{NodeSpec, Perturbation};
use crate::scenario::units::ResourceQuantity;

/// The annotation kwok's fake kubelet looks for (kwok `--manage-nodes-with-annotation-selector`).
#[cfg(feature = "embedded")]
pub use kwok::cluster::KWOK_NODE_ANNOTATION;
/// The annotation kwok's fake kubelet looks for (kwok `--manage-nodes-with-annotation-selector`);
/// without the embedded cluster, kwokctl's kwok reads it.
#[cfg(not(feature = "embedded"))]
pub const KWOK_NODE_ANNOTATION: &str = "kwok.x-k8s.io/node";

/// A node described by the harness: name, labels, annotations, taints, and whether a fake
/// kubelet manages it.
#[derive(Debug, Clone)]
pub struct NodeTemplate {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub taints: Vec<Value>,
    /// Cordoned (`spec.unschedulable`).
    pub unschedulable: bool,
    pub managed: bool,
    /// `status.capacity` entries over the fake node's defaults.
    pub capacity: BTreeMap<String, String>,
    /// `status.allocatable` entries; a resource of `capacity` not named here follows it.
    pub allocatable: BTreeMap<String, String>,
}

fn quantities(m: &BTreeMap<String, ResourceQuantity>) -> BTreeMap<String, String> {
    m.iter().map(|(k, v)| (k.clone(), v.0.clone())).collect()
}

impl NodeTemplate {
    pub fn from_spec(spec: &NodeSpec) -> NodeTemplate {
        NodeTemplate {
            name: spec.name.clone(),
            labels: spec.labels.clone(),
            annotations: spec.annotations.clone(),
            taints: spec.taints.clone(),
            unschedulable: spec.unschedulable,
            managed: true,
            capacity: quantities(&spec.capacity),
            allocatable: quantities(&spec.allocatable),
        }
    }

    pub fn from_perturbation(name: String, perturbation: &Perturbation) -> NodeTemplate {
        NodeTemplate {
            name,
            labels: perturbation.labels.clone(),
            annotations: perturbation.annotations.clone(),
            taints: perturbation.taints.clone(),
            unschedulable: perturbation.unschedulable,
            managed: perturbation.managed,
            capacity: quantities(&perturbation.capacity),
            allocatable: quantities(&perturbation.allocatable),
        }
    }

    /// `lab-node-0 .. lab-node-{count-1}` with no lab labels (`proctor up` without a lab).
    pub fn plain(count: usize) -> Vec<NodeTemplate> {
        (0..count)
            .map(|index| NodeTemplate {
                name: format!("lab-node-{index}"),
                labels: BTreeMap::new(),
                annotations: BTreeMap::new(),
                taints: Vec::new(),
                unschedulable: false,
                managed: true,
                capacity: BTreeMap::new(),
                allocatable: BTreeMap::new(),
            })
            .collect()
    }

    /// The Node object. Managed nodes are kwok fake nodes (annotation + Ready status); an
    /// unmanaged node has no kubelet, so its pods are bound but never start.
    pub fn to_object(&self) -> Value {
        let mut node = base_node(&self.name, &self.labels, &self.annotations);
        if let Some(metadata) = node.get_mut("metadata").and_then(Value::as_object_mut) {
            if let Some(annotations) = metadata
                .get_mut("annotations")
                .and_then(Value::as_object_mut)
            {
                if self.managed {
                    annotations.insert(KWOK_NODE_ANNOTATION.to_string(), json!("fake"));
                } else {
                    annotations.remove(KWOK_NODE_ANNOTATION);
                }
            }
        }
        if !self.managed {
            // Capacity stays (the scheduler binds pods to it, as to a node whose kubelet
            // registered and then went away); no kubelet reports a condition or runs a pod.
            if let Some(status) = node.get_mut("status").and_then(Value::as_object_mut) {
                status.remove("conditions");
            }
        }
        self.apply_resources(&mut node);
        if let Some(spec) = node
            .as_object_mut()
            .map(|object| object.entry("spec").or_insert_with(|| json!({})))
            .and_then(Value::as_object_mut)
        {
            if !self.taints.is_empty() {
                spec.insert("taints".to_string(), Value::Array(self.taints.clone()));
            }
            if self.unschedulable {
                spec.insert("unschedulable".to_string(), json!(true));
            }
        }
        node
    }
}

impl NodeTemplate {
    /// Capacity over the defaults; allocatable follows capacity unless given.
    fn apply_resources(&self, node: &mut Value) {
        if self.capacity.is_empty() && self.allocatable.is_empty() {
            return;
        }
        let Some(status) = node.get_mut("status").and_then(Value::as_object_mut) else {
            return;
        };
        for key in ["capacity", "allocatable"] {
            let slot = status.entry(key).or_insert_with(|| json!({}));
            if !slot.is_object() {
                *slot = json!({});
            }
        }
        for (name, amount) in &self.capacity {
            status["capacity"][name] = json!(amount);
            status["allocatable"][name] = json!(amount);
        }
        for (name, amount) in &self.allocatable {
            status["allocatable"][name] = json!(amount);
        }
    }
}

/// A perturbation's pods for the injected node `node`: bound to it, named after it.
pub fn bound_pods(perturbation: &Perturbation, node: &str) -> Vec<Value> {
    perturbation
        .pods
        .iter()
        .map(|manifest| {
            let mut pod = manifest.clone();
            let name = pod["metadata"]["name"]
                .as_str()
                .unwrap_or("pod")
                .to_string();
            pod["apiVersion"] = json!("v1");
            pod["kind"] = json!("Pod");
            pod["metadata"]["name"] = json!(format!("{name}-{node}"));
            if pod["metadata"]["namespace"]
                .as_str()
                .is_none_or(str::is_empty)
            {
                pod["metadata"]["namespace"] = json!("default");
            }
            pod["spec"]["nodeName"] = json!(node);
            pod
        })
        .collect()
}

#[cfg(feature = "embedded")]
fn base_node(
    name: &str,
    labels: &BTreeMap<String, String>,
    annotations: &BTreeMap<String, String>,
) -> Value {
    let mut node = kwok::cluster::fake_node(name, labels, annotations);
    ensure_annotations(&mut node);
    node
}

/// Without the embedded cluster the node is built the way kwok's node template does
/// (kwok `kustomize/stage/node`): fake annotation, `type: kwok` label, Ready.
#[cfg(not(feature = "embedded"))]
fn base_node(
    name: &str,
    labels: &BTreeMap<String, String>,
    annotations: &BTreeMap<String, String>,
) -> Value {
    let mut all_labels: Map<String, Value> = Map::new();
    all_labels.insert("kubernetes.io/hostname".into(), json!(name));
    all_labels.insert("kubernetes.io/os".into(), json!("linux"));
    all_labels.insert("kubernetes.io/arch".into(), json!("amd64"));
    all_labels.insert("type".into(), json!("kwok"));
    for (key, value) in labels {
        all_labels.insert(key.clone(), json!(value));
    }
    let all_annotations: Map<String, Value> = annotations
        .iter()
        .map(|(key, value)| (key.clone(), json!(value)))
        .collect();
    let mut node = json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": all_labels, "annotations": all_annotations},
        "spec": {},
        "status": {
            "allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110"},
            "capacity": {"cpu": "32", "memory": "256Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"}],
            "nodeInfo": {"architecture": "amd64", "operatingSystem": "linux", "kubeletVersion": "fake", "kubeProxyVersion": "fake"},
            "phase": "Running"
        }
    });
    ensure_annotations(&mut node);
    node
}

fn ensure_annotations(node: &mut Value) {
    if let Some(metadata) = node.get_mut("metadata").and_then(Value::as_object_mut) {
        let annotations = metadata
            .entry("annotations")
            .or_insert_with(|| Value::Object(Map::new()));
        if !annotations.is_object() {
            *annotations = Value::Object(Map::new());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(managed: bool) -> NodeTemplate {
        NodeTemplate {
            name: "gpu-node-7xk2p".into(),
            labels: BTreeMap::from([("nvidia.com/gpu.present".into(), "true".into())]),
            annotations: BTreeMap::new(),
            taints: vec![json!({"key": "nvidia.com/gpu", "effect": "NoSchedule"})],
            unschedulable: false,
            managed,
            capacity: BTreeMap::new(),
            allocatable: BTreeMap::new(),
        }
    }

    #[test]
    fn managed_nodes_carry_the_kwok_annotation() {
        let node = template(true).to_object();
        assert_eq!(node["kind"], "Node");
        assert_eq!(node["metadata"]["name"], "gpu-node-7xk2p");
        assert_eq!(
            node["metadata"]["annotations"][KWOK_NODE_ANNOTATION],
            "fake"
        );
        assert_eq!(node["metadata"]["labels"]["nvidia.com/gpu.present"], "true");
        assert_eq!(node["spec"]["taints"][0]["key"], "nvidia.com/gpu");
    }

    #[test]
    fn a_cordoned_node_is_unschedulable_from_the_start() {
        assert!(template(true).to_object()["spec"]
            .get("unschedulable")
            .is_none());
        let cordoned = NodeTemplate {
            unschedulable: true,
            ..template(true)
        };
        let node = cordoned.to_object();
        assert_eq!(node["spec"]["unschedulable"], true);
        assert_eq!(node["spec"]["taints"][0]["key"], "nvidia.com/gpu");
    }

    #[test]
    fn unmanaged_nodes_have_no_kubelet() {
        let node = template(false).to_object();
        assert!(node["metadata"]["annotations"]
            .get(KWOK_NODE_ANNOTATION)
            .is_none());
        assert!(node["status"].get("conditions").is_none());
        assert_eq!(node["status"]["allocatable"]["pods"], "110");
    }

    #[test]
    fn capacity_adds_extended_resources_and_allocatable_follows_it() {
        let mut gpu = template(true);
        gpu.capacity = BTreeMap::from([
            ("nvidia.com/gpu".to_string(), "4".to_string()),
            ("cpu".to_string(), "64".to_string()),
        ]);
        gpu.allocatable = BTreeMap::from([("cpu".to_string(), "63500m".to_string())]);
        let node = gpu.to_object();
        let status = &node["status"];
        assert_eq!(status["capacity"]["nvidia.com/gpu"], "4");
        assert_eq!(
            status["allocatable"]["nvidia.com/gpu"], "4",
            "follows capacity"
        );
        assert_eq!(status["capacity"]["cpu"], "64");
        assert_eq!(status["allocatable"]["cpu"], "63500m", "given apart");
        assert_eq!(
            status["capacity"]["pods"], status["allocatable"]["pods"],
            "the defaults stay"
        );
        assert!(status["capacity"]["memory"].is_string());
    }
}
