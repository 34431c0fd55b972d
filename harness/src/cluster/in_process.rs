//! The harness's own bookkeeping on the embedded cluster, done through its API in the same
//! process instead of a kubectl process each: listing the nodes a script check runs on, adding
//! and removing injected nodes. Writes go through the same decoding, defaulting, validation and
//! watch stream as a client's. Checks still look through kubectl: what they judge is what the
//! learner's kubectl shows.

use anyhow::anyhow;
use kwok::api::{Api, DeleteOptions, ListOptions, WriteOptions};
use kwok::registry::{NODES, PODS};
use serde_json::Value;

/// Who the cluster records as having written the harness's objects.
const FIELD_MANAGER: &str = "proctor";

/// Node names (sorted), those matching the label `selector` when there is one.
pub fn node_names(api: &Api, selector: Option<&str>) -> anyhow::Result<Vec<String>> {
    let opts = ListOptions {
        label_selector: selector.map(str::to_string),
        ..ListOptions::default()
    };
    let list = api
        .list(&NODES, None, &opts)
        .map_err(|e| anyhow!("listing nodes: {}", e.message))?;
    let mut names: Vec<String> = list.items.iter().map(|n| n.name().to_string()).collect();
    names.sort();
    Ok(names)
}

/// Creates `node` (a Node object).
pub fn create_node(api: &Api, node: Value) -> anyhow::Result<()> {
    let opts = WriteOptions {
        field_manager: Some(FIELD_MANAGER.to_string()),
        ..WriteOptions::default()
    };
    api.create(&NODES, "", node, &opts)
        .map(|_| ())
        .map_err(|e| anyhow!("{}", e.message))
}

/// Deletes node `name` and, at once, the pods bound to it (`kubectl delete --force
/// --grace-period=0`): nothing else would remove them from a node that is gone.
pub fn delete_node_and_pods(api: &Api, name: &str) -> anyhow::Result<()> {
    match api.delete(&NODES, "", name, &DeleteOptions::default()) {
        Ok(_) => {}
        Err(e) if e.code == 404 => {}
        Err(e) => return Err(anyhow!("deleting node {name}: {}", e.message)),
    }
    let bound = ListOptions {
        field_selector: Some(format!("spec.nodeName={name}")),
        ..ListOptions::default()
    };
    let now = DeleteOptions {
        grace_period_seconds: Some(0),
        ..DeleteOptions::default()
    };
    api.delete_collection(&PODS, None, &bound, &now)
        .map(|_| ())
        .map_err(|e| anyhow!("deleting the pods of node {name}: {}", e.message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kwok::{Cluster, ClusterConfig};
    use serde_json::json;

    #[tokio::test]
    async fn injected_nodes_come_and_go_with_their_pods() {
        let cluster = Cluster::start(ClusterConfig::default().with_fake_nodes("lab-node-", 2))
            .await
            .expect("cluster");
        let api = cluster.api();
        create_node(
            api,
            json!({"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": "gpu-node-x1", "labels": {"gpu": "true"}}}),
        )
        .expect("created");
        assert_eq!(
            node_names(api, None).unwrap(),
            ["gpu-node-x1", "lab-node-0", "lab-node-1"]
        );
        assert_eq!(node_names(api, Some("gpu")).unwrap(), ["gpu-node-x1"]);
        assert!(
            node_names(api, Some("gpu in (")).is_err(),
            "a bad selector is an error"
        );
        let err = create_node(
            api,
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "Bad_Name"}}),
        )
        .expect_err("invalid name");
        assert!(err.to_string().contains("Bad_Name"), "{err}");

        api.create(
            &PODS,
            "default",
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "p", "namespace": "default"},
                   "spec": {"nodeName": "gpu-node-x1", "containers": [{"name": "c", "image": "i"}]}}),
            &WriteOptions::default(),
        )
        .expect("pod");
        delete_node_and_pods(api, "gpu-node-x1").expect("deleted");
        delete_node_and_pods(api, "gpu-node-x1").expect("deleting twice is fine");
        assert_eq!(node_names(api, None).unwrap(), ["lab-node-0", "lab-node-1"]);
        assert!(
            api.get(&PODS, "default", "p").is_err(),
            "the bound pod is gone"
        );
        cluster.shutdown().await;
    }
}
