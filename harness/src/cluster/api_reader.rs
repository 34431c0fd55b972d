//! The grader's own reads of a cluster it does not run in-process (`--cluster kwokctl`,
//! `--kubeconfig`): the lists a snapshot takes, the polls a restore makes while the cluster
//! settles. They go over one client (kube-rs) rather than a kubectl process each: a restore polls
//! several times a second, and one kubectl process costs about a tenth of a CPU-second to start
//! and discover — on a real control plane, most of a grading's CPU went to the grader's own
//! kubectl calls. What checks read and what learners run is kubectl all the same.
//!
//! Resources are named as kubectl's `api-resources -o name` names them (`pods`, `daemonsets.apps`,
//! a CRD's name) and read in their group's preferred version, the one `kubectl get` reads.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use kube::api::ListParams;
use kube::core::{ApiResource, DynamicObject, Request, Resource};
use kube::discovery::{Discovery, Scope};
use serde_json::Value;
use tokio::sync::Mutex;

/// A served resource: where its objects are, and what they are.
#[derive(Debug, Clone)]
struct Served {
    resource: ApiResource,
    namespaced: bool,
}

pub struct ApiReader {
    client: kube::Client,
    /// By kubectl's name; filled by discovery, again when a name is not found in it (a CRD made
    /// since).
    served: Mutex<BTreeMap<String, Served>>,
}

impl std::fmt::Debug for ApiReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiReader").finish_non_exhaustive()
    }
}

impl ApiReader {
    /// A client for the cluster of a kubeconfig file (its current context).
    pub async fn connect(kubeconfig: &Path) -> anyhow::Result<ApiReader> {
        let file = kube::config::Kubeconfig::read_from(kubeconfig)
            .with_context(|| format!("reading {}", kubeconfig.display()))?;
        let config =
            kube::Config::from_custom_kubeconfig(file, &kube::config::KubeConfigOptions::default())
                .await
                .with_context(|| format!("the cluster of {}", kubeconfig.display()))?;
        let client = kube::Client::try_from(config).context("a client for the cluster")?;
        Ok(ApiReader {
            client,
            served: Mutex::new(BTreeMap::new()),
        })
    }

    /// The objects of `resource` in every namespace, each with its `apiVersion` and `kind` (as
    /// `kubectl get <resource> --all-namespaces -o json` prints them); `None` when the cluster
    /// does not serve it.
    pub async fn list(&self, resource: &str) -> anyhow::Result<Option<Vec<Value>>> {
        let Some(served) = self.resolve(resource).await? else {
            return Ok(None);
        };
        let path = DynamicObject::url_path(&served.resource, None);
        let request = Request::new(path)
            .list(&ListParams::default())
            .with_context(|| format!("listing {resource}"))?;
        let list: Value = match self.client.request(request).await {
            Ok(list) => list,
            // Gone since discovery (a CRD deleted): nothing of it to read.
            Err(kube::Error::Api(status)) if status.code == 404 => return Ok(None),
            Err(error) => return Err(error).with_context(|| format!("listing {resource}")),
        };
        Ok(Some(typed_items(list, &served.resource)))
    }

    /// The object `name` of `resource` (in `namespace` when it is namespaced); `None` when
    /// there is none, or the resource is not served.
    pub async fn get(
        &self,
        resource: &str,
        namespace: &str,
        name: &str,
    ) -> anyhow::Result<Option<Value>> {
        let Some(served) = self.resolve(resource).await? else {
            return Ok(None);
        };
        let namespace = (served.namespaced && !namespace.is_empty()).then_some(namespace);
        let path = DynamicObject::url_path(&served.resource, namespace);
        let request = Request::new(path)
            .get(name, &Default::default())
            .with_context(|| format!("reading {resource} {name}"))?;
        match self.client.request::<Value>(request).await {
            Ok(object) => Ok(Some(object)),
            Err(kube::Error::Api(status)) if status.code == 404 => Ok(None),
            Err(error) => Err(error).with_context(|| format!("reading {resource} {name}")),
        }
    }

    /// What the cluster serves under `resource`, by discovery (again when the name is new).
    async fn resolve(&self, resource: &str) -> anyhow::Result<Option<Served>> {
        let mut served = self.served.lock().await;
        if let Some(found) = served.get(resource) {
            return Ok(Some(found.clone()));
        }
        *served = self.discover().await?;
        Ok(served.get(resource).cloned())
    }

    /// Every resource the cluster serves, in its group's preferred version: two requests where
    /// the server has aggregated discovery (Kubernetes 1.26+, the embedded cluster too), one
    /// per group otherwise.
    async fn discover(&self) -> anyhow::Result<BTreeMap<String, Served>> {
        // A server without aggregated discovery answers the plain documents, which read as no
        // group at all: then group by group.
        let discovery = match Discovery::new(self.client.clone()).run_aggregated().await {
            Ok(discovery) if discovery.groups().next().is_some() => discovery,
            _ => Discovery::new(self.client.clone())
                .run()
                .await
                .context("discovering the cluster's resources")?,
        };
        let mut served = BTreeMap::new();
        for group in discovery.groups() {
            for (resource, capabilities) in group.recommended_resources() {
                let name = match resource.group.as_str() {
                    "" => resource.plural.clone(),
                    group => format!("{}.{group}", resource.plural),
                };
                let namespaced = capabilities.scope == Scope::Namespaced;
                served.insert(
                    name,
                    Served {
                        resource,
                        namespaced,
                    },
                );
            }
        }
        Ok(served)
    }
}

/// A list's items, each given the version and kind of the list, as kubectl's decoder gives them
/// (a server leaves them off the items of a list).
fn typed_items(list: Value, resource: &ApiResource) -> Vec<Value> {
    let Value::Object(mut list) = list else {
        return Vec::new();
    };
    let Some(Value::Array(items)) = list.remove("items") else {
        return Vec::new();
    };
    items
        .into_iter()
        .map(|mut item| {
            if let Value::Object(fields) = &mut item {
                fields.insert("apiVersion".into(), resource.api_version.clone().into());
                fields.insert("kind".into(), resource.kind.clone().into());
            }
            item
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items come back with the list's version and kind, whatever they carried.
    #[test]
    fn items_take_the_lists_version_and_kind() {
        let resource = ApiResource {
            group: "apps".into(),
            version: "v1".into(),
            api_version: "apps/v1".into(),
            kind: "DaemonSet".into(),
            plural: "daemonsets".into(),
        };
        let list = serde_json::json!({"kind": "DaemonSetList", "apiVersion": "apps/v1",
            "items": [{"metadata": {"name": "a"}}, {"kind": "Other", "metadata": {"name": "b"}}]});
        let items = typed_items(list, &resource);
        assert_eq!(items.len(), 2);
        for item in &items {
            assert_eq!(item["apiVersion"], "apps/v1");
            assert_eq!(item["kind"], "DaemonSet");
        }
        assert_eq!(items[1]["metadata"]["name"], "b");
        assert!(typed_items(serde_json::json!({"kind": "Status"}), &resource).is_empty());
    }

    /// What the client reads is what kubectl prints for the same resource: the same objects,
    /// each in the version and kind kubectl gives it; a resource not served, or an object not
    /// there, is none.
    #[cfg(feature = "embedded")]
    #[tokio::test]
    async fn reads_what_kubectl_prints() {
        use crate::cluster::{ClusterSetup, NodeTemplate, Target};
        let target = Target::embedded(&ClusterSetup::with_nodes(&NodeTemplate::plain(2)))
            .await
            .expect("cluster");
        let kubectl = crate::cluster::Kubectl::new(target.kubeconfig());
        let reader = ApiReader::connect(target.kubeconfig())
            .await
            .expect("a client");
        for resource in [
            "nodes",
            "namespaces",
            "serviceaccounts",
            "leases.coordination.k8s.io",
        ] {
            let printed = kubectl
                .json(&["get", resource, "--all-namespaces"])
                .await
                .expect("kubectl get");
            let summary = |items: &[Value]| -> Vec<(String, String, String)> {
                let mut rows: Vec<_> = items
                    .iter()
                    .map(|item| {
                        (
                            item["apiVersion"].as_str().unwrap_or_default().to_string(),
                            item["kind"].as_str().unwrap_or_default().to_string(),
                            item["metadata"]["uid"]
                                .as_str()
                                .unwrap_or_default()
                                .to_string(),
                        )
                    })
                    .collect();
                rows.sort();
                rows
            };
            let expected = summary(printed["items"].as_array().expect("items"));
            assert!(!expected.is_empty(), "{resource}");
            let read = reader
                .list(resource)
                .await
                .expect("list")
                .unwrap_or_else(|| panic!("{resource} is served"));
            assert_eq!(summary(&read), expected, "{resource}");
        }
        assert!(reader
            .list("widgets.example.com")
            .await
            .expect("list")
            .is_none());
        let node = reader.get("nodes", "", "lab-node-0").await.expect("get");
        assert_eq!(node.expect("lab-node-0")["metadata"]["name"], "lab-node-0");
        let account = reader
            .get("serviceaccounts", "default", "default")
            .await
            .expect("get");
        assert_eq!(
            account.expect("the default account")["kind"],
            "ServiceAccount"
        );
        assert!(reader
            .get("nodes", "", "no-such-node")
            .await
            .expect("get")
            .is_none());
        target.shutdown().await;
    }
}
