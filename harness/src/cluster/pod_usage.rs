//! What a lab declares its containers use (`cluster.usage`), put where kwok finds it: a
//! `ClusterResourceUsage` document per entry. The embedded cluster and kwok under kwokctl are
//! given the same documents; under kwokctl, metrics-server reads kwok's per-node metrics.

use serde_json::{json, Value};

use crate::scenario::model::PodUsageSpec;

/// The node annotation metrics-server (0.7 and later) reads for the path of a node's resource
/// metrics, which kwok serves per node (kwokctl's own node template sets it).
pub const METRICS_PATH_ANNOTATION: &str = "metrics.k8s.io/resource-metrics-path";

/// The path kwok serves a node's resource metrics at (its `metrics-resource` Metric).
pub fn metrics_path(node: &str) -> String {
    format!("/metrics/nodes/{node}/metrics/resource")
}

/// The documents of `specs`, in order.
pub fn documents(specs: &[PodUsageSpec]) -> Vec<Value> {
    specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let mut usage = json!({});
            for (resource, value) in [("cpu", &spec.cpu), ("memory", &spec.memory)] {
                if let Some(value) = value {
                    usage[resource] = json!({"value": value});
                }
            }
            let mut entry = json!({"usage": usage});
            if !spec.containers.is_empty() {
                entry["containers"] = json!(spec.containers);
            }
            super::kwok_documents::cluster_document(
                "ClusterResourceUsage",
                &format!("proctor-usage-{i}"),
                &spec.namespaces,
                &spec.pods,
                "usages",
                entry,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_entry_becomes_a_cluster_resource_usage() {
        let spec = PodUsageSpec {
            namespaces: vec!["gpu-operator".into()],
            pods: vec!["nvidia-dcgm-exporter".into()],
            containers: vec![],
            cpu: Some("250m".into()),
            memory: None,
        };
        let [document] = &documents(std::slice::from_ref(&spec))[..] else {
            panic!("one document");
        };
        assert_eq!(document["kind"], "ClusterResourceUsage");
        assert_eq!(
            document["spec"]["selector"],
            json!({"matchNamespaces": ["gpu-operator"], "matchNames": ["nvidia-dcgm-exporter"]})
        );
        assert_eq!(
            document["spec"]["usages"],
            json!([{"usage": {"cpu": {"value": "250m"}}}])
        );
        assert_eq!(metrics_path("n1"), "/metrics/nodes/n1/metrics/resource");
    }
}
