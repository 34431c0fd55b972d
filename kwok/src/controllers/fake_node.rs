//! What a kwok fake node is: the annotation that hands a Node to the fake kubelet
//! ([`super::kubelet`]), and the Node object for one, as kwok's examples and kwokctl create them.

use std::collections::BTreeMap;

use serde_json::{json, Value};

/// The annotation that hands a node to the fake kubelet (kwokctl's default selector).
pub const KWOK_NODE_ANNOTATION: &str = "kwok.x-k8s.io/node";

/// A kwok fake Node: the fake kubelet keeps it Ready and runs its pods.
pub fn fake_node(
    name: &str,
    labels: &BTreeMap<String, String>,
    annotations: &BTreeMap<String, String>,
) -> Value {
    let mut l: BTreeMap<String, String> = BTreeMap::new();
    l.insert("kubernetes.io/hostname".into(), name.into());
    l.insert("kubernetes.io/os".into(), "linux".into());
    l.insert("kubernetes.io/arch".into(), "amd64".into());
    l.insert("type".into(), "kwok".into());
    l.extend(labels.clone());
    let mut a: BTreeMap<String, String> = BTreeMap::new();
    a.insert(KWOK_NODE_ANNOTATION.into(), "fake".into());
    a.insert("node.alpha.kubernetes.io/ttl".into(), "0".into());
    a.extend(annotations.clone());
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": l, "annotations": a},
        "spec": {},
        "status": {"allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110"},
                   "capacity": {"cpu": "32", "memory": "256Gi", "pods": "110"}}
    })
}
