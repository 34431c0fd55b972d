//! kwok's debugging configuration resources (`kwok.x-k8s.io/v1alpha1`): `Logs` for one pod,
//! `ClusterLogs` for the pods a selector names (`pkg/apis/v1alpha1/{logs,cluster_logs}_types.go`).

use serde::Deserialize;
use serde_json::Value;

pub const API_VERSION: &str = "kwok.x-k8s.io/v1alpha1";

/// Where one container's logs come from (`v1alpha1.Log`).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Log {
    /// The containers this applies to; none means every container without a log of its own.
    #[serde(default)]
    pub containers: Vec<String>,
    #[serde(default)]
    pub logs_file: Option<String>,
    /// Served for `--previous`.
    #[serde(default)]
    pub previous_logs_file: Option<String>,
    /// Accepted as kwok accepts it; kwok v0.7.0's handler follows when the request asks, not when
    /// this says so, and so does this one.
    #[serde(default)]
    pub follow: Option<bool>,
}

/// `v1alpha1.ObjectSelector`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ObjectSelector {
    #[serde(default)]
    pub match_namespaces: Vec<String>,
    #[serde(default)]
    pub match_names: Vec<String>,
}

impl ObjectSelector {
    /// `ObjectSelector.Match`: an empty list does not narrow.
    fn matches(&self, name: &str, namespace: &str) -> bool {
        (self.match_namespaces.is_empty() || self.match_namespaces.iter().any(|n| n == namespace))
            && (self.match_names.is_empty() || self.match_names.iter().any(|n| n == name))
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Metadata {
    name: String,
    #[serde(default)]
    namespace: String,
}

#[derive(Debug, Deserialize)]
struct LogsSpec {
    logs: Vec<Log>,
}

#[derive(Debug, Deserialize)]
struct ClusterLogsSpec {
    #[serde(default)]
    selector: Option<ObjectSelector>,
    logs: Vec<Log>,
}

#[derive(Debug, Deserialize)]
struct Document<S> {
    metadata: Metadata,
    spec: S,
}

/// The pod rules (`Logs`) and selector rules (`ClusterLogs`), each in the order given.
#[derive(Debug, Clone, Default)]
pub struct Config {
    logs: Vec<(String, String, Vec<Log>)>,
    cluster_logs: Vec<(Option<ObjectSelector>, Vec<Log>)>,
}

impl Config {
    /// Takes one kwok configuration document; `Ok(false)` for a kind this does not serve
    /// (stages and the like, which kwok's configuration file holds beside them).
    pub fn add_document(&mut self, document: &Value) -> Result<bool, String> {
        if document["apiVersion"] != API_VERSION {
            return Ok(false);
        }
        let kind = document["kind"].as_str().unwrap_or_default();
        let read = |e: serde_json::Error| format!("a kwok {kind} document: {e}");
        match kind {
            "Logs" => {
                let doc: Document<LogsSpec> =
                    serde_json::from_value(document.clone()).map_err(read)?;
                // Not defaulted: kwok matches a `Logs` without a namespace to no pod.
                self.logs
                    .push((doc.metadata.namespace, doc.metadata.name, doc.spec.logs));
            }
            "ClusterLogs" => {
                let doc: Document<ClusterLogsSpec> =
                    serde_json::from_value(document.clone()).map_err(read)?;
                self.cluster_logs.push((doc.spec.selector, doc.spec.logs));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    pub fn is_empty(&self) -> bool {
        self.logs.is_empty() && self.cluster_logs.is_empty()
    }

    /// `getPodLogs`: a pod's own `Logs` decides alone; otherwise the first `ClusterLogs` that
    /// selects the pod and has a log for the container. The errors are kwok's texts.
    pub fn pod_log(&self, pod: &str, namespace: &str, container: &str) -> Result<&Log, String> {
        let reference = crate::error::go_quote(&format!("{namespace}/{pod}"));
        let container_quoted = crate::error::go_quote(container);
        if let Some((_, _, logs)) = self
            .logs
            .iter()
            .find(|(ns, name, _)| name == pod && ns == namespace)
        {
            return find_log(container, logs).ok_or_else(|| {
                format!("log target not found for container {container_quoted} in pod {reference}")
            });
        }
        self.cluster_logs
            .iter()
            .filter(|(selector, _)| selector.as_ref().is_none_or(|s| s.matches(pod, namespace)))
            .find_map(|(_, logs)| find_log(container, logs))
            .ok_or_else(|| {
                format!("no logs found for container {container_quoted} in pod {reference}")
            })
    }
}

/// `findLogInLogs`: the log naming the container, else the first that names none.
fn find_log<'a>(container: &str, logs: &'a [Log]) -> Option<&'a Log> {
    logs.iter()
        .find(|l| l.containers.iter().any(|c| c == container))
        .or_else(|| logs.iter().find(|l| l.containers.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(documents: &[Value]) -> Config {
        let mut config = Config::default();
        for d in documents {
            config.add_document(d).expect("document");
        }
        config
    }

    fn file(log: Result<&Log, String>) -> Result<String, String> {
        log.map(|l| l.logs_file.clone().unwrap_or_default())
    }

    #[test]
    fn a_pods_own_logs_decide_alone() {
        let config = config(&[
            json!({"apiVersion": API_VERSION, "kind": "Logs",
                   "metadata": {"name": "web", "namespace": "shop"},
                   "spec": {"logs": [{"containers": ["app"], "logsFile": "/own"}]}}),
            json!({"apiVersion": API_VERSION, "kind": "ClusterLogs", "metadata": {"name": "all"},
                   "spec": {"logs": [{"logsFile": "/everyone"}]}}),
        ]);
        assert_eq!(
            file(config.pod_log("web", "shop", "app")),
            Ok("/own".into())
        );
        assert_eq!(
            file(config.pod_log("web", "shop", "sidecar")),
            Err(r#"log target not found for container "sidecar" in pod "shop/web""#.into())
        );
        assert_eq!(
            file(config.pod_log("db", "shop", "sidecar")),
            Ok("/everyone".into())
        );
    }

    #[test]
    fn cluster_logs_are_tried_in_order_and_a_named_container_wins_over_the_default() {
        let config = config(&[
            json!({"apiVersion": API_VERSION, "kind": "ClusterLogs", "metadata": {"name": "a"},
                   "spec": {"selector": {"matchNamespaces": ["gpu"], "matchNames": ["validator"]},
                            "logs": [{"logsFile": "/default"},
                                     {"containers": ["cuda"], "logsFile": "/cuda"}]}}),
            json!({"apiVersion": API_VERSION, "kind": "ClusterLogs", "metadata": {"name": "b"},
                   "spec": {"selector": {"matchNamespaces": ["gpu"]},
                            "logs": [{"containers": ["exporter"], "logsFile": "/exporter"}]}}),
            json!({"apiVersion": API_VERSION, "kind": "Stage", "metadata": {"name": "s"}}),
        ]);
        assert_eq!(
            file(config.pod_log("validator", "gpu", "cuda")),
            Ok("/cuda".into())
        );
        assert_eq!(
            file(config.pod_log("validator", "gpu", "init")),
            Ok("/default".into())
        );
        assert_eq!(
            file(config.pod_log("dcgm", "gpu", "exporter")),
            Ok("/exporter".into())
        );
        assert_eq!(
            file(config.pod_log("dcgm", "gpu", "init")),
            Err(r#"no logs found for container "init" in pod "gpu/dcgm""#.into())
        );
        assert_eq!(
            file(config.pod_log("validator", "default", "cuda")),
            Err(r#"no logs found for container "cuda" in pod "default/validator""#.into())
        );
    }

    #[test]
    fn other_kinds_are_left_and_a_malformed_document_is_named() {
        let mut config = Config::default();
        let stage = json!({"apiVersion": API_VERSION, "kind": "Stage", "metadata": {"name": "s"}});
        assert_eq!(config.add_document(&stage), Ok(false));
        let broken = json!({"apiVersion": API_VERSION, "kind": "ClusterLogs",
                            "metadata": {"name": "x"}, "spec": {}});
        let error = config.add_document(&broken).expect_err("no logs");
        assert!(
            error.contains("ClusterLogs") && error.contains("logs"),
            "{error}"
        );
        assert!(config.is_empty());
    }
}
