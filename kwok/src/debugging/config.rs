//! kwok's debugging configuration resources (`kwok.x-k8s.io/v1alpha1`): `Logs`, `Exec`,
//! `Attach`, `PortForward` and `ResourceUsage` for one pod, `ClusterLogs`, `ClusterExec`,
//! `ClusterAttach`, `ClusterPortForward` and `ClusterResourceUsage` for the pods a selector names
//! (`pkg/apis/v1alpha1/{,cluster_}{logs,exec,attach,port_forward,resource_usage}_types.go`).

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use crate::quantity::Quantity;

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

/// How a command run in a container is run (`v1alpha1.ExecTarget`): kwok runs it on its own
/// host, in `local`'s directory with its variables added.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ExecTarget {
    #[serde(default)]
    pub containers: Vec<String>,
    #[serde(default)]
    pub local: Option<ExecTargetLocal>,
}

/// `v1alpha1.ExecTargetLocal`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ExecTargetLocal {
    #[serde(default)]
    pub work_dir: String,
    #[serde(default)]
    pub envs: Vec<EnvVar>,
    #[serde(default)]
    pub security_context: Option<SecurityContext>,
}

/// `v1alpha1.EnvVar`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct EnvVar {
    pub name: String,
    #[serde(default)]
    pub value: String,
}

/// `v1alpha1.SecurityContext`: the user and group the command runs as.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SecurityContext {
    #[serde(default)]
    pub run_as_user: Option<i64>,
    #[serde(default)]
    pub run_as_group: Option<i64>,
}

/// What an attach to a container shows (`v1alpha1.AttachConfig`): what its log file gains.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AttachConfig {
    #[serde(default)]
    pub containers: Vec<String>,
    #[serde(default)]
    pub logs_file: Option<String>,
}

/// Where a forwarded port's connections go (`v1alpha1.Forward`): a command whose stdin and
/// stdout are the connection, else an address kwok dials.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Forward {
    /// The pod's ports this applies to; none means every port without a forward of its own.
    #[serde(default)]
    pub ports: Vec<i32>,
    #[serde(default)]
    pub target: Option<ForwardTarget>,
    #[serde(default)]
    pub command: Vec<String>,
}

/// `v1alpha1.ForwardTarget`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ForwardTarget {
    pub port: i32,
    #[serde(default)]
    pub address: String,
}

/// What some containers use (`v1alpha1.ResourceUsageContainer`): per resource name, a value.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUsageContainer {
    #[serde(default)]
    pub containers: Vec<String>,
    #[serde(default)]
    pub usage: std::collections::BTreeMap<String, ResourceUsageValue>,
}

/// `v1alpha1.ResourceUsageValue`: a quantity, or a CEL expression kwok evaluates.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUsageValue {
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub expression: Option<String>,
}

impl ResourceUsageContainer {
    /// What the entry says of `resource` (`evaluateContainerResourceUsage` with a value): none
    /// is zero, as kwok reads it.
    pub fn quantity(&self, resource: &str) -> Quantity {
        self.usage
            .get(resource)
            .and_then(|u| u.value.as_deref())
            .and_then(|v| Quantity::parse(v).ok())
            .unwrap_or_else(Quantity::zero)
    }
}

impl Keyed for ResourceUsageContainer {
    fn names(&self, key: &str) -> bool {
        self.containers.iter().any(|c| c == key)
    }
    fn names_none(&self) -> bool {
        self.containers.is_empty()
    }
    /// Values are checked when the document is read: the embedded cluster has no CEL, so an
    /// expression (which kwok would evaluate) is refused rather than read as zero.
    fn check(&self) -> Result<(), String> {
        for (resource, value) in &self.usage {
            match (&value.value, &value.expression) {
                (Some(v), _) => {
                    Quantity::parse(v).map_err(|e| format!("usage.{resource}.value {v:?}: {e}"))?;
                }
                (None, Some(_)) => {
                    return Err(format!(
                        "usage.{resource}.expression: CEL expressions are evaluated by kwok only; \
                         give a value"
                    ))
                }
                (None, None) => {}
            }
        }
        Ok(())
    }
}

/// The entries of every kind name what they apply to (containers, or ports); an entry naming
/// nothing applies to whatever no entry names.
trait Keyed {
    fn names(&self, key: &str) -> bool;
    fn names_none(&self) -> bool;
    /// What serde cannot check of an entry.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

macro_rules! keyed_by_container {
    ($($kind:ty),*) => {$(
        impl Keyed for $kind {
            fn names(&self, key: &str) -> bool {
                self.containers.iter().any(|c| c == key)
            }
            fn names_none(&self) -> bool {
                self.containers.is_empty()
            }
        }
    )*};
}

keyed_by_container!(Log, ExecTarget, AttachConfig);

impl Keyed for Forward {
    fn names(&self, key: &str) -> bool {
        key.parse::<i32>()
            .is_ok_and(|port| self.ports.contains(&port))
    }
    fn names_none(&self) -> bool {
        self.ports.is_empty()
    }
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

/// A document's parts every kind has: its name and its selector (the cluster kinds').
#[derive(Debug, Deserialize)]
struct Document {
    metadata: Metadata,
    #[serde(default)]
    spec: Option<Selected>,
}

#[derive(Debug, Deserialize)]
struct Selected {
    #[serde(default)]
    selector: Option<ObjectSelector>,
}

/// The document's entries: `spec.<field>` (`logs`, `execs`, `attaches` or `forwards`).
fn entries<T: DeserializeOwned + Keyed>(document: &Value, field: &str) -> Result<Vec<T>, String> {
    let Some(list) = document["spec"].get(field) else {
        return Err(format!("missing field `spec.{field}`"));
    };
    let entries: Vec<T> =
        serde_json::from_value(list.clone()).map_err(|e| format!("spec.{field}: {e}"))?;
    for (i, entry) in entries.iter().enumerate() {
        entry
            .check()
            .map_err(|e| format!("spec.{field}[{i}].{e}"))?;
    }
    Ok(entries)
}

/// One kind's rules: per pod (`Logs`) and per selector (`ClusterLogs`), each in the order given.
#[derive(Debug, Clone)]
struct Rules<T> {
    by_pod: Vec<(String, String, Vec<T>)>,
    by_selector: Vec<(Option<ObjectSelector>, Vec<T>)>,
}

impl<T> Default for Rules<T> {
    fn default() -> Self {
        Rules {
            by_pod: Vec::new(),
            by_selector: Vec::new(),
        }
    }
}

/// Why no entry applies: the pod's own rule has none for the container, or no rule has one.
enum Missing {
    NotInPodRule,
    NoRule,
}

impl<T: DeserializeOwned + Keyed> Rules<T> {
    fn add_pod(&mut self, document: &Value, field: &str) -> Result<(), String> {
        let doc: Document = serde_json::from_value(document.clone()).map_err(|e| e.to_string())?;
        // Not defaulted: kwok matches a rule without a namespace to no pod.
        self.by_pod.push((
            doc.metadata.namespace,
            doc.metadata.name,
            entries(document, field)?,
        ));
        Ok(())
    }

    fn add_cluster(&mut self, document: &Value, field: &str) -> Result<(), String> {
        let doc: Document = serde_json::from_value(document.clone()).map_err(|e| e.to_string())?;
        let selector = doc.spec.and_then(|spec| spec.selector);
        self.by_selector.push((selector, entries(document, field)?));
        Ok(())
    }

    /// `getPodLogs`, `getExecTarget`, `getPodAttach`: a pod's own rule decides alone; otherwise
    /// the first cluster rule that selects the pod and has an entry for the container.
    fn find(&self, pod: &str, namespace: &str, container: &str) -> Result<&T, Missing> {
        if let Some((_, _, entries)) = self
            .by_pod
            .iter()
            .find(|(ns, name, _)| name == pod && ns == namespace)
        {
            return for_key(container, entries).ok_or(Missing::NotInPodRule);
        }
        self.by_selector
            .iter()
            .filter(|(selector, _)| selector.as_ref().is_none_or(|s| s.matches(pod, namespace)))
            .find_map(|(_, entries)| for_key(container, entries))
            .ok_or(Missing::NoRule)
    }

    fn is_empty(&self) -> bool {
        self.by_pod.is_empty() && self.by_selector.is_empty()
    }
}

/// The pod rules and selector rules of each kind.
#[derive(Debug, Clone, Default)]
pub struct Config {
    logs: Rules<Log>,
    execs: Rules<ExecTarget>,
    attaches: Rules<AttachConfig>,
    forwards: Rules<Forward>,
    usages: Rules<ResourceUsageContainer>,
}

impl Config {
    /// The configuration of `documents`, taken in order (kinds this does not serve are left);
    /// the first malformed document is the error.
    pub fn from_documents<'a>(
        documents: impl IntoIterator<Item = &'a Value>,
    ) -> Result<Config, String> {
        let mut config = Config::default();
        for document in documents {
            config.add_document(document)?;
        }
        Ok(config)
    }

    /// Takes one kwok configuration document; `Ok(false)` for a kind this does not serve
    /// (stages and the like, which kwok's configuration file holds beside them).
    pub fn add_document(&mut self, document: &Value) -> Result<bool, String> {
        if document["apiVersion"] != API_VERSION {
            return Ok(false);
        }
        let kind = document["kind"].as_str().unwrap_or_default();
        let added = match kind {
            "Logs" => self.logs.add_pod(document, "logs"),
            "ClusterLogs" => self.logs.add_cluster(document, "logs"),
            "Exec" => self.execs.add_pod(document, "execs"),
            "ClusterExec" => self.execs.add_cluster(document, "execs"),
            "Attach" => self.attaches.add_pod(document, "attaches"),
            "ClusterAttach" => self.attaches.add_cluster(document, "attaches"),
            "PortForward" => self.forwards.add_pod(document, "forwards"),
            "ClusterPortForward" => self.forwards.add_cluster(document, "forwards"),
            "ResourceUsage" => self.usages.add_pod(document, "usages"),
            "ClusterResourceUsage" => self.usages.add_cluster(document, "usages"),
            _ => return Ok(false),
        };
        added.map_err(|e| format!("a kwok {kind} document: {e}"))?;
        Ok(true)
    }

    pub fn is_empty(&self) -> bool {
        self.logs.is_empty()
            && self.execs.is_empty()
            && self.attaches.is_empty()
            && self.forwards.is_empty()
            && self.usages.is_empty()
    }

    /// Whether pods' resource usage is declared: kwokctl runs metrics-server (built to read
    /// kwok's usage) only when asked, and so the embedded cluster serves `metrics.k8s.io` only
    /// then.
    pub fn serves_metrics(&self) -> bool {
        !self.usages.is_empty()
    }

    /// `getResourceUsage`: the usage entry for a container; `None` where kwok finds none (and
    /// reads zero).
    pub fn usage(
        &self,
        pod: &str,
        namespace: &str,
        container: &str,
    ) -> Option<&ResourceUsageContainer> {
        self.usages.find(pod, namespace, container).ok()
    }

    /// `getPodLogs`, with kwok's texts for a container nothing declares.
    pub fn pod_log(&self, pod: &str, namespace: &str, container: &str) -> Result<&Log, String> {
        let texts = ("log target not found", "no logs found");
        found(
            self.logs.find(pod, namespace, container),
            texts,
            container,
            namespace,
            pod,
        )
    }

    /// `getExecTarget`, with kwok's texts.
    pub fn exec_target(
        &self,
        pod: &str,
        namespace: &str,
        container: &str,
    ) -> Result<&ExecTarget, String> {
        let texts = ("exec target not found", "no exec found");
        found(
            self.execs.find(pod, namespace, container),
            texts,
            container,
            namespace,
            pod,
        )
    }

    /// `getPodAttach`, with kwok's texts.
    pub fn attach(
        &self,
        pod: &str,
        namespace: &str,
        container: &str,
    ) -> Result<&AttachConfig, String> {
        let texts = ("attaches target not found", "no attaches found");
        found(
            self.attaches.find(pod, namespace, container),
            texts,
            container,
            namespace,
            pod,
        )
    }

    /// `getPodsForward`, with kwok's texts (which name the port where the others name the
    /// container).
    pub fn forward(&self, pod: &str, namespace: &str, port: u16) -> Result<&Forward, String> {
        self.forwards
            .find(pod, namespace, &port.to_string())
            .map_err(|missing| {
                let what = match missing {
                    Missing::NotInPodRule => "forward not found",
                    Missing::NoRule => "no forward found",
                };
                format!(
                    "{what} for port {port} in pod {}",
                    crate::error::go_quote(&format!("{namespace}/{pod}"))
                )
            })
    }
}

/// A lookup's entry, or kwok's text for why there is none: `texts` names the pod rule without
/// the container and no rule at all.
fn found<'a, T>(
    lookup: Result<&'a T, Missing>,
    texts: (&str, &str),
    container: &str,
    namespace: &str,
    pod: &str,
) -> Result<&'a T, String> {
    lookup.map_err(|missing| {
        let what = match missing {
            Missing::NotInPodRule => texts.0,
            Missing::NoRule => texts.1,
        };
        not_found(what, container, namespace, pod)
    })
}

/// `<what> for container "c" in pod "ns/p"` (`log.KRef` quoted).
fn not_found(what: &str, container: &str, namespace: &str, pod: &str) -> String {
    format!(
        "{what} for container {} in pod {}",
        crate::error::go_quote(container),
        crate::error::go_quote(&format!("{namespace}/{pod}"))
    )
}

/// `findLogInLogs` and its twins: the entry naming the container, else the first that names
/// none.
fn for_key<'a, T: Keyed>(key: &str, entries: &'a [T]) -> Option<&'a T> {
    entries
        .iter()
        .find(|e| e.names(key))
        .or_else(|| entries.iter().find(|e| e.names_none()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(documents: &[Value]) -> Config {
        Config::from_documents(documents).expect("documents")
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

    /// kwok's texts for exec and attach (`getExecTarget`, `getPodAttach`), looked up as logs are.
    #[test]
    fn exec_and_attach_targets_are_found_as_logs_are() {
        let config = config(&[
            json!({"apiVersion": API_VERSION, "kind": "Exec",
                   "metadata": {"name": "web", "namespace": "shop"},
                   "spec": {"execs": [{"containers": ["app"], "local": {"workDir": "/own"}}]}}),
            json!({"apiVersion": API_VERSION, "kind": "ClusterExec", "metadata": {"name": "all"},
                   "spec": {"execs": [{"local": {"workDir": "/all",
                                                 "envs": [{"name": "A", "value": "1"}],
                                                 "securityContext": {"runAsUser": 65534}}}]}}),
            json!({"apiVersion": API_VERSION, "kind": "ClusterAttach", "metadata": {"name": "a"},
                   "spec": {"selector": {"matchNamespaces": ["gpu"]},
                            "attaches": [{"containers": ["cuda"], "logsFile": "/cuda"}]}}),
        ]);
        let dir = |t: Result<&ExecTarget, String>| {
            t.map(|t| t.local.clone().unwrap_or_default().work_dir)
        };
        assert_eq!(
            dir(config.exec_target("web", "shop", "app")),
            Ok("/own".into())
        );
        assert_eq!(
            dir(config.exec_target("web", "shop", "side")),
            Err(r#"exec target not found for container "side" in pod "shop/web""#.into())
        );
        let all = config.exec_target("db", "shop", "x").expect("cluster rule");
        let local = all.local.clone().expect("local");
        assert_eq!(
            local.envs,
            [EnvVar {
                name: "A".into(),
                value: "1".into()
            }]
        );
        assert_eq!(
            local.security_context.and_then(|s| s.run_as_user),
            Some(65534)
        );
        assert_eq!(
            config
                .attach("v", "gpu", "cuda")
                .map(|a| a.logs_file.clone()),
            Ok(Some("/cuda".into()))
        );
        assert_eq!(
            config
                .attach("v", "gpu", "init")
                .map(|a| a.logs_file.clone()),
            Err(r#"no attaches found for container "init" in pod "gpu/v""#.into())
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

    #[test]
    fn a_forward_is_found_by_port_as_kwok_finds_it_and_missing_ones_named() {
        let config = config(&[
            json!({"apiVersion": API_VERSION, "kind": "PortForward",
                   "metadata": {"name": "own", "namespace": "ns"},
                   "spec": {"forwards": [{"ports": [80], "command": ["cat", "a"]}]}}),
            json!({"apiVersion": API_VERSION, "kind": "ClusterPortForward",
                   "metadata": {"name": "picky"},
                   "spec": {"selector": {"matchNamespaces": ["ns"]},
                            "forwards": [{"ports": [9400], "target": {"port": 1}}]}}),
            json!({"apiVersion": API_VERSION, "kind": "ClusterPortForward",
                   "metadata": {"name": "all"},
                   "spec": {"forwards": [{"command": ["cat", "b"]},
                                         {"ports": [443], "command": ["cat", "c"]}]}}),
        ]);
        let command = |pod: &str, port: u16| {
            config
                .forward(pod, "ns", port)
                .map(|f| f.command.last().cloned().unwrap_or_else(|| "target".into()))
        };
        assert_eq!(command("own", 80), Ok("a".into()));
        // A pod's own document decides alone.
        assert_eq!(
            command("own", 81),
            Err(r#"forward not found for port 81 in pod "ns/own""#.into())
        );
        assert_eq!(command("other", 9400), Ok("target".into()));
        // A named port wins over an entry naming none, whatever their order.
        assert_eq!(command("other", 443), Ok("c".into()));
        assert_eq!(command("other", 8080), Ok("b".into()));
        let none = Config::default();
        assert_eq!(
            none.forward("p", "ns", 80).unwrap_err(),
            r#"no forward found for port 80 in pod "ns/p""#
        );
    }
}
