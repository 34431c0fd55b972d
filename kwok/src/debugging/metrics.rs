//! What metrics-server answers about kwok's fake nodes and pods: usage read from kwok's
//! `ResourceUsage` and `ClusterResourceUsage` documents, as kwok's `/metrics/resource` endpoint
//! reports it (`pkg/kwok/server/metrics_resource_usage.go`) and metrics-server turns it into
//! `metrics.k8s.io` objects (`pkg/scraper/client/resource/decode.go`, `pkg/storage`,
//! `pkg/api` in sigs.k8s.io/metrics-server).
//!
//! metrics-server measures CPU as the rate of kwok's cumulative counter between two scrapes,
//! which lands within a hair of the declared value; here the declared value is reported exactly,
//! from the first request on (metrics-server needs two scrapes first).

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Map, Value};

use super::config::Config;
use crate::api::hooks::parse_field_selector;
use crate::api::{Api, WriteOptions};
use crate::error::{ApiError, ApiResult};
use crate::kinds::metrics::{GROUP, NODES, PODS, VERSION};
use crate::options::ListOptions;
use crate::quantity::Quantity;
use crate::registry;
use crate::store::Stored;

/// The window of a measurement: kwokctl runs metrics-server with `--metric-resolution=15s`.
const WINDOW: &str = "15s";

/// One container's usage: CPU in nano-cores, memory in bytes (`uint64(value)`: a fraction of a
/// byte is dropped, as metrics-server drops it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Usage {
    nanocores: i128,
    bytes: i128,
}

impl Usage {
    fn of(config: &Config, pod: &Value, container: &str) -> Usage {
        let name = pod["metadata"]["name"].as_str().unwrap_or("");
        let namespace = pod["metadata"]["namespace"].as_str().unwrap_or("");
        let Some(entry) = config.usage(name, namespace, container) else {
            return Usage::default();
        };
        Usage {
            nanocores: entry.quantity("cpu").nano_units().max(0),
            bytes: entry.quantity("memory").nano_units().max(0) / 1_000_000_000,
        }
    }

    /// `checkContainerMetrics` and the node's check in `decodeBatch`: a zero CPU counter or
    /// memory reading makes the point incomplete, and it is dropped.
    fn complete(self) -> bool {
        self.nanocores > 0 && self.bytes > 0
    }

    fn add(self, other: Usage) -> Usage {
        Usage {
            nanocores: self.nanocores.saturating_add(other.nanocores),
            bytes: self.bytes.saturating_add(other.bytes),
        }
    }

    /// `{cpu: NewScaledQuantity(nanocores, -9), memory: NewQuantity(bytes, BinarySI)}`.
    fn list(self) -> Value {
        let bytes = i64::try_from(self.bytes).unwrap_or(i64::MAX);
        json!({
            "cpu": Quantity::from_nano_units(self.nanocores).canonical(),
            "memory": Quantity::binary_units(bytes).canonical(),
        })
    }
}

fn containers(pod: &Value) -> impl Iterator<Item = &str> {
    pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
}

/// The metadata metrics-server gives a metrics object: its subject's name, namespace and labels,
/// created now.
fn metadata(subject: &Value, created: &str) -> Value {
    let mut meta = Map::new();
    meta.insert("name".into(), subject["metadata"]["name"].clone());
    if let Some(ns) = subject["metadata"].get("namespace") {
        meta.insert("namespace".into(), ns.clone());
    }
    meta.insert("creationTimestamp".into(), json!(created));
    if let Some(labels) = crate::meta::labels(subject).filter(|l| !l.is_empty()) {
        // A Go map, marshalled in key order.
        let sorted: std::collections::BTreeMap<&String, &Value> = labels.iter().collect();
        meta.insert("labels".into(), json!(sorted));
    }
    Value::Object(meta)
}

fn timestamp(now: DateTime<Utc>) -> String {
    now.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A running pod's metrics, when every container's are complete (`podStorage.GetMetrics`).
/// Containers in the pod's order (metrics-server's come from a map, in no fixed order).
fn pod_metrics(config: &Config, pod: &Value, now: DateTime<Utc>) -> Option<Value> {
    // kwok reports only pods bound to a node it knows.
    pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty())?;
    let mut list = Vec::new();
    for name in containers(pod) {
        let usage = Usage::of(config, pod, name);
        if !usage.complete() {
            return None;
        }
        list.push(json!({"name": name, "usage": usage.list()}));
    }
    if list.is_empty() {
        return None;
    }
    let at = timestamp(now);
    Some(json!({
        "kind": "PodMetrics",
        "apiVersion": format!("{GROUP}/{VERSION}"),
        "metadata": metadata(pod, &at),
        "timestamp": at,
        "window": WINDOW,
        "containers": list,
    }))
}

/// A node's metrics: the sum over every container of every pod kwok tracks on it
/// (`nodeResourceUsage`), when complete.
fn node_metrics(
    config: &Config,
    node: &Value,
    pods: &[Stored],
    now: DateTime<Utc>,
) -> Option<Value> {
    let name = node["metadata"]["name"].as_str()?;
    let usage = pods
        .iter()
        .filter(|p| p.value["spec"]["nodeName"] == name)
        .flat_map(|p| containers(&p.value).map(|c| Usage::of(config, &p.value, c)))
        .fold(Usage::default(), Usage::add);
    if !usage.complete() {
        return None;
    }
    let at = timestamp(now);
    Some(json!({
        "kind": "NodeMetrics",
        "apiVersion": format!("{GROUP}/{VERSION}"),
        "metadata": metadata(node, &at),
        "timestamp": at,
        "window": WINDOW,
        "usage": usage.list(),
    }))
}

/// The pods metrics-server's informer holds (`status.phase=Running`), by label selector.
fn running_pods(
    api: &Api,
    namespace: Option<&str>,
    labels: Option<&str>,
) -> ApiResult<Vec<Stored>> {
    let opts = ListOptions {
        label_selector: labels.map(str::to_string),
        field_selector: Some("status.phase=Running".into()),
        ..ListOptions::default()
    };
    Ok(api.list(&registry::PODS, namespace, &opts)?.items)
}

/// Keeps what the request's field selector selects, read as metrics-server reads it (the
/// object's own fields).
fn select(
    res: &'static crate::resource::ResourceDef,
    items: Vec<Value>,
    opts: &ListOptions,
) -> ApiResult<Vec<Value>> {
    match opts
        .field_selector
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        None => Ok(items),
        Some(s) => {
            let keep = parse_field_selector(res, s)?;
            Ok(items.into_iter().filter(|m| keep(m)).collect())
        }
    }
}

/// What kwokctl registers beside metrics-server (its `metrics_server_apiservice.yaml.tpl`): the
/// `metrics.k8s.io` APIService, on a Service naming the host, which the aggregator finds
/// available. Here the API server itself answers for it, so the Service names its port.
pub fn register(api: &Api, port: u16) -> ApiResult<()> {
    let by = WriteOptions::by("kwokctl");
    let service = json!({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "metrics-server", "namespace": "kube-system"},
        "spec": {"type": "ExternalName", "externalName": "localhost"},
    });
    api.create(&registry::SERVICES, "kube-system", service, &by)?;
    let apiservice = json!({
        "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": format!("{VERSION}.{GROUP}")},
        "spec": {
            "group": GROUP, "version": VERSION,
            "groupPriorityMinimum": 100, "versionPriority": 100,
            "insecureSkipTLSVerify": true,
            "service": {"name": "metrics-server", "namespace": "kube-system", "port": port},
        },
    });
    let created = api.create(&registry::APISERVICES, "", apiservice, &by)?;
    let mut available = created.value.clone();
    available["status"] = json!({"conditions": [{
        "type": "Available", "status": "True", "lastTransitionTime": crate::meta::now(),
        "reason": "Passed", "message": "all checks passed",
    }]});
    api.update_status_as(
        crate::options::KUBE_APISERVER,
        &registry::APISERVICES,
        available,
    )?;
    Ok(())
}

/// What has no metrics, named as metrics-server's storages are registered
/// (`metrics.Resource("podmetrics")`, `metrics.Resource("nodemetrics")`), not as they are served.
fn no_metrics(resource: &str, name: &str) -> ApiError {
    ApiError::new(
        404,
        "NotFound",
        format!(
            "{resource}.{GROUP} {} not found",
            crate::error::go_quote(name)
        ),
    )
    .with_details(json!({"name": name, "group": GROUP, "kind": resource}))
}

/// `podMetrics.List`: sorted by namespace, then name.
pub fn list_pods(
    api: &Api,
    config: &Config,
    namespace: Option<&str>,
    opts: &ListOptions,
    now: DateTime<Utc>,
) -> ApiResult<Vec<Value>> {
    let pods = running_pods(api, namespace, opts.label_selector.as_deref())?;
    let items = pods
        .iter()
        .filter_map(|p| pod_metrics(config, &p.value, now))
        .collect();
    select(&PODS, items, opts)
}

/// `podMetrics.Get`: a pod that is not running is not found as a pod; one without complete
/// metrics, as its metrics.
pub fn get_pod(
    api: &Api,
    config: &Config,
    namespace: &str,
    name: &str,
    now: DateTime<Utc>,
) -> ApiResult<Value> {
    let pods = running_pods(api, Some(namespace), None)?;
    let Some(pod) = pods.iter().find(|p| p.name() == name) else {
        return Err(ApiError::not_found(&registry::PODS, name));
    };
    pod_metrics(config, &pod.value, now)
        .ok_or_else(|| no_metrics("podmetrics", &format!("{namespace}/{name}")))
}

/// `nodeMetrics.List`: nodes by label selector, in name order.
pub fn list_nodes(
    api: &Api,
    config: &Config,
    opts: &ListOptions,
    now: DateTime<Utc>,
) -> ApiResult<Vec<Value>> {
    let nodes = api.list(
        &registry::NODES,
        None,
        &ListOptions {
            label_selector: opts.label_selector.clone(),
            ..ListOptions::default()
        },
    )?;
    let pods = api.store().list(&registry::PODS, None).0;
    let items = nodes
        .items
        .iter()
        .filter_map(|n| node_metrics(config, &n.value, &pods, now))
        .collect();
    select(&NODES, items, opts)
}

/// `nodeMetrics.Get`.
pub fn get_node(api: &Api, config: &Config, name: &str, now: DateTime<Utc>) -> ApiResult<Value> {
    let Some(node) = api.store().get(&registry::NODES, "", name) else {
        // The node lister's own error (`v1.Resource("node")`), singular.
        return Err(ApiError::new(
            404,
            "NotFound",
            format!("node {} not found", crate::error::go_quote(name)),
        )
        .with_details(json!({"name": name, "kind": "node"})));
    };
    let pods = api.store().list(&registry::PODS, None).0;
    node_metrics(config, &node.value, &pods, now).ok_or_else(|| no_metrics("nodemetrics", name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(documents: &[Value]) -> Config {
        Config::from_documents(documents).expect("documents")
    }

    fn pod(name: &str, node: &str, containers: &[&str]) -> Value {
        let list: Vec<Value> = containers.iter().map(|c| json!({"name": c})).collect();
        json!({"metadata": {"name": name, "namespace": "shop", "labels": {"app": "web"}},
               "spec": {"nodeName": node, "containers": list}})
    }

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-01-02T03:04:05Z")
            .expect("time")
            .with_timezone(&Utc)
    }

    #[test]
    fn a_pod_reports_each_containers_declared_usage_exactly() {
        let config = config(&[json!({
            "apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "ClusterResourceUsage",
            "metadata": {"name": "all"},
            "spec": {"usages": [
                {"usage": {"cpu": {"value": "250m"}, "memory": {"value": "64Mi"}}},
                {"containers": ["sidecar"], "usage": {"cpu": {"value": "1m"}, "memory": {"value": "1000"}}}]}})]);
        let metrics =
            pod_metrics(&config, &pod("web", "n1", &["app", "sidecar"]), now()).expect("complete");
        assert_eq!(
            metrics["containers"],
            json!([{"name": "app", "usage": {"cpu": "250m", "memory": "64Mi"}},
                   {"name": "sidecar", "usage": {"cpu": "1m", "memory": "1k"}}])
        );
        assert_eq!(metrics["metadata"]["labels"], json!({"app": "web"}));
        assert_eq!(metrics["timestamp"], "2026-01-02T03:04:05Z");
        assert_eq!(metrics["window"], "15s");
    }

    /// `checkContainerMetrics`: one container without CPU or memory drops the whole pod; a pod
    /// no node holds is not scraped.
    #[test]
    fn an_incomplete_pod_has_no_metrics() {
        let config = config(&[json!({
            "apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "ResourceUsage",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"usages": [{"containers": ["app"],
                                 "usage": {"cpu": {"value": "1"}, "memory": {"value": "1Mi"}}}]}})]);
        assert!(pod_metrics(&config, &pod("web", "n1", &["app"]), now()).is_some());
        assert!(pod_metrics(&config, &pod("web", "n1", &["app", "side"]), now()).is_none());
        assert!(pod_metrics(&config, &pod("web", "", &["app"]), now()).is_none());
        assert!(pod_metrics(&config, &pod("db", "n1", &["app"]), now()).is_none());
    }

    #[test]
    fn a_node_sums_its_pods_and_reports_nothing_when_idle() {
        let config = config(&[json!({
            "apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "ClusterResourceUsage",
            "metadata": {"name": "all"},
            "spec": {"usages": [{"usage": {"cpu": {"value": "300m"}, "memory": {"value": "1.5Gi"}}}]}})]);
        let pods: Vec<Stored> = [
            pod("a", "n1", &["x", "y"]),
            pod("b", "n1", &["x"]),
            pod("c", "n2", &["x"]),
        ]
        .into_iter()
        .map(crate::store::Object::new)
        .collect();
        let node = |name: &str| json!({"metadata": {"name": name}});
        let n1 = node_metrics(&config, &node("n1"), &pods, now()).expect("busy");
        assert_eq!(n1["usage"], json!({"cpu": "900m", "memory": "4608Mi"}));
        assert_eq!(n1["kind"], "NodeMetrics");
        assert!(node_metrics(&config, &node("n3"), &pods, now()).is_none());
    }
}
