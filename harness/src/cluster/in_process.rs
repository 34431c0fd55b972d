//! The harness's own bookkeeping on the embedded cluster, done through its API in the same
//! process instead of a kubectl process each: listing the nodes a script check runs on, adding
//! and removing injected nodes. Writes go through the same decoding, defaulting, validation and
//! watch stream as a client's. Object checks read here too, for resources the embedded cluster
//! serves: the objects are the ones `kubectl get -o json` would print (from the same store,
//! through the same selectors), without a kubectl start per sample.

use anyhow::anyhow;
use kwok::api::{Api, DeleteOptions, ListOptions, WriteOptions};
use kwok::registry::{NODES, PODS};
use kwok::resource_names::ResourceNames;
use serde_json::Value;

use super::object_query::ObjectQuery;

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

/// The objects `kubectl get <query> -o json` shows (none for a missing named object, as with
/// `--ignore-not-found`); `None` when the resource is not one the cluster serves, so that
/// kubectl's own error is what the check reports.
pub fn objects(api: &Api, query: &ObjectQuery<'_>) -> Option<Result<Vec<Value>, String>> {
    let res = kwok::registry::resolve(query.resource)?;
    // kubectl's namespace for a namespaced resource when none is given: the kubeconfig's
    // context has none, so `default`; cluster-scoped resources ignore it.
    let namespace = res.namespaced.then(|| query.namespace.unwrap_or("default"));
    let with_type = |stored: &kwok::store::Stored| {
        let mut value = stored.value.clone();
        if let Some(map) = value.as_object_mut() {
            map.entry("apiVersion")
                .or_insert_with(|| res.api_version().into());
            map.entry("kind").or_insert_with(|| res.kind.into());
        }
        value
    };
    if let Some(name) = query.name {
        return Some(match api.get(res, namespace.unwrap_or(""), name) {
            Ok(stored) => Ok(vec![with_type(&stored)]),
            Err(e) if e.code == 404 => Ok(Vec::new()),
            Err(e) => Err(format!("getting {}/{name}: {}", res.plural, e.message)),
        });
    }
    let opts = ListOptions {
        label_selector: query.label_selector.map(str::to_string),
        field_selector: query.field_selector.map(str::to_string),
        ..ListOptions::default()
    };
    Some(
        api.list(res, namespace, &opts)
            .map(|list| list.items.iter().map(with_type).collect())
            .map_err(|e| format!("listing {}: {}", res.plural, e.message)),
    )
}

/// Every pod's and node's uid and resourceVersion, as `Target::quiet_for` samples an external
/// cluster through kubectl.
pub fn state_fingerprint(api: &Api) -> String {
    let mut fingerprint = String::new();
    for res in [&PODS, &NODES] {
        if let Ok(list) = api.list(res, None, &ListOptions::default()) {
            for object in &list.items {
                fingerprint.push_str(object.value["metadata"]["uid"].as_str().unwrap_or(""));
                fingerprint.push_str(&object.resource_version().to_string());
                fingerprint.push(' ');
            }
        }
    }
    fingerprint
}

/// Creates `node` (a Node object).
pub fn create_node(api: &Api, node: Value) -> anyhow::Result<()> {
    let opts = WriteOptions::by(FIELD_MANAGER);
    api.create(&NODES, "", node, &opts)
        .map(|_| ())
        .map_err(|e| anyhow!("{}", e.message))
}

/// Creates `pod` (a Pod object) in its namespace.
pub fn create_pod(api: &Api, pod: Value) -> anyhow::Result<()> {
    let opts = WriteOptions::by(FIELD_MANAGER);
    let ns = pod["metadata"]["namespace"]
        .as_str()
        .unwrap_or("default")
        .to_string();
    api.create(&PODS, &ns, pod, &opts)
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

    fn without_managed_fields(mut objects: Vec<Value>) -> Vec<Value> {
        // `kubectl get -o json` leaves managedFields out (--show-managed-fields=false).
        for object in &mut objects {
            if let Some(meta) = object["metadata"].as_object_mut() {
                meta.remove("managedFields");
            }
        }
        objects
    }

    /// What an object check reads in process is what the real kubectl prints for the same
    /// query: short names, qualified names, selectors, a missing name, the default namespace.
    #[tokio::test]
    async fn objects_read_in_process_are_what_kubectl_prints() {
        if crate::sandbox::on_path("kubectl").is_none() {
            eprintln!("SKIP: kubectl is not on PATH");
            return;
        }
        let cluster = Cluster::start(ClusterConfig::default().with_fake_nodes("lab-node-", 2))
            .await
            .expect("cluster");
        let dir = tempfile::tempdir().expect("tempdir");
        let kubeconfig = dir.path().join("kubeconfig");
        cluster.write_kubeconfig(&kubeconfig).expect("kubeconfig");
        let kubectl = super::super::Kubectl::new(&kubeconfig);
        let api = cluster.api();
        create_node(
            api,
            json!({"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": "gpu-node-a", "labels": {"tier": "gold"}}}),
        )
        .expect("node");
        for (ns, name, node) in [
            ("default", "p0", "lab-node-0"),
            ("default", "p1", "gpu-node-a"),
        ] {
            api.create(
                &PODS,
                ns,
                json!({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": ns, "labels": {"app": "x"}},
                       "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}]}}),
                &WriteOptions::default(),
            )
            .expect("pod");
        }
        cluster.settle().await;
        let query = |resource, name, namespace, label_selector, field_selector| ObjectQuery {
            resource,
            name,
            namespace,
            label_selector,
            field_selector,
        };
        let queries = [
            query("nodes", None, None, None, None),
            query("no", None, None, Some("tier=gold"), None),
            query("node", Some("lab-node-0"), None, None, None),
            query("nodes", Some("not-there"), None, None, None),
            query(
                "po",
                None,
                None,
                Some("app=x"),
                Some("spec.nodeName=gpu-node-a"),
            ),
            query("pods", None, Some("default"), Some("app in (x,y)"), None),
            query("Pod", Some("p0"), Some("default"), None, None),
            query("pods", None, Some("kube-system"), None, None),
            query("namespaces", None, None, None, None),
            // No node leases: a renewal between the two reads would make them differ.
            query("daemonsets.v1.apps", None, Some("default"), None, None),
            query("ns", Some("default"), None, None, None),
        ];
        for query in queries {
            let in_process = objects(api, &query)
                .unwrap_or_else(|| panic!("{query:?} should resolve in process"))
                .expect("in process");
            let printed = kubectl.objects(&query).await.expect("kubectl");
            assert_eq!(
                without_managed_fields(in_process),
                without_managed_fields(printed),
                "{query:?}"
            );
        }
        cluster.shutdown().await;
    }
}
