//! The cluster a run works on: the embedded kwok cluster the harness starts, a real control plane
//! it starts with kwokctl, or an external cluster given by a kubeconfig. Checks look at all of
//! them through `kubectl`; they differ in how state is saved and restored (in process on the
//! embedded cluster, object by object through kubectl on the others), and on the embedded cluster
//! the harness's own bookkeeping (injected nodes, node lists) goes through the API in process.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use super::external::{self, ObjectSet};
use super::kubectl::{Kubectl, KubectlOutput};
use super::kwokctl::KwokctlCluster;
use super::names::generated_name;
use super::nodes::NodeTemplate;
use super::pod_exec::PodExecFiles;
use super::pod_logs::PodLogFiles;
use super::pod_port_forward::PodPortForwardFiles;
use super::pod_usage;
use crate::scenario::model::{PodExecSpec, PodLogsSpec, PodPortForwardSpec, PodUsageSpec};
use crate::scenario::Perturbation;

/// The APIService kwokctl registers for metrics-server (metrics-server's own name for it).
const METRICS_API_SERVICE: &str = "v1beta1.metrics.k8s.io";

/// Saved whole-cluster state.
pub enum Snapshot {
    #[cfg(feature = "embedded")]
    Embedded(kwok::store::Snapshot),
    External(ObjectSet),
}

/// The `kind` of the document an external cluster's snapshot is kept as.
const OBJECTS_DOCUMENT: &str = "ClusterObjects";

impl Snapshot {
    /// The snapshot as a document to keep on disk: the embedded cluster's whole state
    /// (`kwok::saved_snapshot`), or the objects a real cluster's snapshot holds (see `external`),
    /// which a restore makes again on any cluster.
    pub fn to_document(&self) -> Option<serde_json::Value> {
        match self {
            #[cfg(feature = "embedded")]
            Snapshot::Embedded(state) => Some(kwok::saved_snapshot::to_json(state)),
            Snapshot::External(set) => {
                let objects: Vec<serde_json::Value> = set
                    .objects
                    .iter()
                    .map(|((resource, _, _), object)| {
                        serde_json::json!({"resource": resource, "object": object})
                    })
                    .collect();
                Some(serde_json::json!({
                    "apiVersion": "proctor.dev/v1",
                    "kind": OBJECTS_DOCUMENT,
                    "objects": objects,
                }))
            }
        }
    }

    /// The snapshot a document of [`Snapshot::to_document`] holds, taken `age` ago. The
    /// embedded cluster's clock is moved forward by `age`, so that times in it (a pod's start, a
    /// lease) read as they did; a real cluster's objects get their times anew when made again.
    pub fn from_document(
        doc: &serde_json::Value,
        age: chrono::TimeDelta,
    ) -> anyhow::Result<Snapshot> {
        if doc["kind"] == OBJECTS_DOCUMENT {
            let mut set = ObjectSet::default();
            for entry in doc["objects"].as_array().into_iter().flatten() {
                let (Some(resource), object) = (entry["resource"].as_str(), &entry["object"])
                else {
                    anyhow::bail!("an object without its resource");
                };
                let text =
                    |field: &str| object["metadata"][field].as_str().unwrap_or("").to_string();
                let key = (resource.to_string(), text("namespace"), text("name"));
                set.objects.insert(key, object.clone());
            }
            return Ok(Snapshot::External(set));
        }
        Snapshot::from_embedded_document(doc, age)
    }

    #[cfg(feature = "embedded")]
    fn from_embedded_document(
        doc: &serde_json::Value,
        age: chrono::TimeDelta,
    ) -> anyhow::Result<Snapshot> {
        let snapshot = kwok::saved_snapshot::from_json(doc).map_err(anyhow::Error::msg)?;
        Ok(Snapshot::Embedded(kwok::clock_shift::shift_clock(
            &snapshot, age,
        )))
    }

    #[cfg(not(feature = "embedded"))]
    fn from_embedded_document(
        _doc: &serde_json::Value,
        _age: chrono::TimeDelta,
    ) -> anyhow::Result<Snapshot> {
        anyhow::bail!("this proctor was built without the embedded cluster")
    }
}

enum Backend {
    #[cfg(feature = "embedded")]
    Embedded(Box<kwok::Cluster>),
    /// A private real control plane, deleted at shutdown; its state is handled as an external
    /// cluster's.
    Kwokctl(Box<KwokctlCluster>),
    External,
}

/// Which private cluster a command starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ClusterKind {
    /// Proctor's own control plane, in process (milliseconds to start).
    #[default]
    Embedded,
    /// A real kube-apiserver, etcd, controller manager and scheduler with kwok fake nodes, from
    /// the binaries `upstream/build.sh` builds.
    Kwokctl,
}

/// What a private cluster starts with: its nodes, and the container logs, commands and port
/// replies its fake nodes serve.
#[derive(Debug, Clone, Default)]
pub struct ClusterSetup {
    pub nodes: Vec<NodeTemplate>,
    pub logs: Vec<PodLogsSpec>,
    pub exec: Vec<PodExecSpec>,
    pub port_forward: Vec<PodPortForwardSpec>,
    pub usage: Vec<PodUsageSpec>,
    /// What a command run through `kubectl exec` must not see (the lab's reference, the
    /// reference cache), as for a learner's script.
    pub hidden: Vec<PathBuf>,
}

impl ClusterSetup {
    pub fn with_nodes(nodes: &[NodeTemplate]) -> ClusterSetup {
        ClusterSetup {
            nodes: nodes.to_vec(),
            ..ClusterSetup::default()
        }
    }
}

pub struct Target {
    backend: Backend,
    /// The declared container logs the cluster reads while it runs.
    _logs: Option<PodLogFiles>,
    /// The declared commands the cluster runs while it runs.
    _exec: Option<PodExecFiles>,
    /// The declared port replies the cluster reads while it runs.
    _port_forward: Option<PodPortForwardFiles>,
    kubectl: Kubectl,
    /// Holds the generated kubeconfig of an embedded cluster.
    _scratch: Option<tempfile::TempDir>,
    /// Nodes injected and not removed yet, so an interrupted run can still remove them.
    injected: std::sync::Mutex<Vec<String>>,
    /// kubectl's discovery cache for this cluster, filled once, handed to every script run.
    kube_cache: Option<tempfile::TempDir>,
    /// The last state fingerprint seen and since when it has not changed (see [`Target::quiet_for`]).
    quiet: std::sync::Mutex<Option<(String, std::time::Instant)>>,
    /// Whether the fake nodes it makes name where kwok serves their resource metrics (usage is
    /// declared, so metrics-server reads them under kwokctl; the same on both runtimes).
    metrics_paths: bool,
}

impl Target {
    /// Starts a private embedded cluster with `nodes`, reachable through a kubeconfig in a
    /// temporary directory.
    #[cfg(feature = "embedded")]
    pub async fn embedded(setup: &ClusterSetup) -> anyhow::Result<Target> {
        let scratch = tempfile::Builder::new()
            .prefix("proctor-cluster-")
            .tempdir()
            .context("creating a directory for the kubeconfig")?;
        let kubeconfig = scratch.path().join("kubeconfig");
        let target = Target::start_embedded(setup, &kubeconfig, None).await?;
        Ok(Target {
            _scratch: Some(scratch),
            ..target
        })
    }

    /// Starts an embedded cluster whose kubeconfig is written to `kubeconfig`.
    #[cfg(feature = "embedded")]
    pub async fn start_embedded(
        setup: &ClusterSetup,
        kubeconfig: &Path,
        bind: Option<std::net::SocketAddr>,
    ) -> anyhow::Result<Target> {
        let logs = PodLogFiles::write(&setup.logs)?;
        let exec = PodExecFiles::write(&setup.exec)?;
        let port_forward = PodPortForwardFiles::write(&setup.port_forward)?;
        let usage = pod_usage::documents(&setup.usage);
        let mut runner = super::exec_sandbox::SandboxedExec::new(
            exec.as_ref().map(PodExecFiles::bin),
            setup.hidden.clone(),
        );
        if let Some(port_forward) = &port_forward {
            runner = runner.reading(port_forward.dir());
        }
        let metrics_paths = !setup.usage.is_empty();
        let mut config = kwok::ClusterConfig {
            nodes: setup
                .nodes
                .iter()
                .map(|node| node_object(node, metrics_paths))
                .collect(),
            exec_runner: std::sync::Arc::new(runner),
            ..Default::default()
        };
        let documents = logs
            .iter()
            .flat_map(PodLogFiles::documents)
            .chain(exec.iter().flat_map(PodExecFiles::documents))
            .chain(port_forward.iter().flat_map(PodPortForwardFiles::documents))
            .chain(&usage);
        config.debugging =
            kwok::debugging::Config::from_documents(documents).map_err(anyhow::Error::msg)?;
        if let Some(bind) = bind {
            config.bind = bind;
        }
        let cluster = kwok::Cluster::start(config)
            .await
            .context("starting the embedded cluster")?;
        cluster
            .write_kubeconfig(kubeconfig)
            .with_context(|| format!("writing {}", kubeconfig.display()))?;
        let kubectl = Kubectl::new(kubeconfig);
        kubectl.wait_ready(Duration::from_secs(20)).await?;
        cluster.settle().await;
        Ok(Target {
            backend: Backend::Embedded(Box::new(cluster)),
            _logs: logs,
            _exec: exec,
            _port_forward: port_forward,
            kube_cache: discovery_cache(&kubectl).await,
            kubectl,
            _scratch: None,
            injected: Default::default(),
            quiet: Default::default(),
            metrics_paths,
        })
    }

    #[cfg(not(feature = "embedded"))]
    pub async fn start_embedded(
        _setup: &ClusterSetup,
        _kubeconfig: &Path,
        _bind: Option<std::net::SocketAddr>,
    ) -> anyhow::Result<Target> {
        anyhow::bail!("this proctor was built without the embedded cluster")
    }

    #[cfg(not(feature = "embedded"))]
    pub async fn embedded(_setup: &ClusterSetup) -> anyhow::Result<Target> {
        anyhow::bail!("this proctor was built without the embedded cluster; pass --kubeconfig")
    }

    /// A private cluster of `kind` set up as `setup` says.
    pub async fn private(kind: ClusterKind, setup: &ClusterSetup) -> anyhow::Result<Target> {
        match kind {
            ClusterKind::Embedded => Target::embedded(setup).await,
            ClusterKind::Kwokctl => Target::kwokctl(setup, None).await,
        }
    }

    /// Starts a real control plane with kwokctl (see `kwokctl`) and creates `nodes` as kwok
    /// fake nodes; its kubeconfig goes to `kubeconfig` when given.
    pub async fn kwokctl(
        setup: &ClusterSetup,
        kubeconfig: Option<&Path>,
    ) -> anyhow::Result<Target> {
        let upstream = super::upstream::Upstream::find()?;
        let logs = PodLogFiles::write(&setup.logs)?;
        let exec = PodExecFiles::write(&setup.exec)?;
        let mut kwok_config = match &logs {
            Some(logs) => logs.yaml()?,
            None => String::new(),
        };
        if let Some(exec) = &exec {
            kwok_config.push_str(&exec.yaml()?);
        }
        let port_forward = PodPortForwardFiles::write(&setup.port_forward)?;
        if let Some(port_forward) = &port_forward {
            kwok_config.push_str(&port_forward.yaml()?);
        }
        let usage = pod_usage::documents(&setup.usage);
        kwok_config.push_str(&super::kwok_documents::yaml_stream(&usage)?);
        let metrics_paths = !usage.is_empty();
        let commands = exec.as_ref().map(PodExecFiles::bin);
        let cluster = KwokctlCluster::create(
            &upstream,
            kubeconfig,
            &kwok_config,
            commands.as_deref(),
            metrics_paths,
        )
        .await?;
        let kubectl = Kubectl::new(cluster.kubeconfig());
        let target = Target {
            backend: Backend::Kwokctl(Box::new(cluster)),
            _logs: logs,
            _exec: exec,
            _port_forward: port_forward,
            kube_cache: None,
            kubectl,
            _scratch: None,
            injected: Default::default(),
            quiet: Default::default(),
            metrics_paths,
        };
        // From here on `target` deletes the cluster when it is dropped.
        let start = super::kwokctl::CREATE_TIMEOUT;
        target.kubectl.wait_ready(start).await?;
        target.wait_for_default_namespace(start).await?;
        if metrics_paths {
            target.wait_for_metrics_api(start).await?;
        }
        target.ensure_nodes(&setup.nodes).await?;
        target.settle().await;
        Ok(Target {
            kube_cache: discovery_cache(&target.kubectl).await,
            ..target
        })
    }

    /// A fresh API server accepts requests before its controllers have created `default` and its
    /// ServiceAccount, which every namespaced write of a scenario may need.
    async fn wait_for_default_namespace(&self, within: Duration) -> anyhow::Result<()> {
        let args = [
            "get",
            "serviceaccount",
            "default",
            "-n",
            "default",
            "-o",
            "name",
        ];
        if let Some(last) = self
            .poll_kubectl(&args, |output| output.success, within)
            .await?
        {
            anyhow::bail!(
                "the cluster's default ServiceAccount did not appear within {}s{last}\n\
                 kube-controller-manager's last lines:\n{}",
                within.as_secs(),
                self.component_log_tail("kube-controller-manager")
            );
        }
        Ok(())
    }

    /// The embedded cluster serves `metrics.k8s.io` from its start; under kwokctl the API
    /// server forwards it to metrics-server once its APIService is Available, so a script's first
    /// `kubectl top` finds the API on either runtime.
    async fn wait_for_metrics_api(&self, within: Duration) -> anyhow::Result<()> {
        let args = [
            "get",
            "apiservice",
            METRICS_API_SERVICE,
            "-o",
            "jsonpath={.status.conditions[?(@.type==\"Available\")].status}",
        ];
        let available = |output: &KubectlOutput| output.success && output.stdout.trim() == "True";
        if let Some(last) = self.poll_kubectl(&args, available, within).await? {
            anyhow::bail!(
                "the APIService {METRICS_API_SERVICE} was not Available within {}s{last}\n\
                 metrics-server's last lines:\n{}",
                within.as_secs(),
                self.component_log_tail("metrics-server")
            );
        }
        Ok(())
    }

    /// Runs `kubectl args` every 250 ms until `ready` says its output is what a start waits
    /// for (`None`), or past `within` gives kubectl's last complaint (`": <text>"`, empty when it
    /// answered but not yet as hoped). A failure to run kubectl at all is passed on.
    async fn poll_kubectl(
        &self,
        args: &[&str],
        ready: impl Fn(&KubectlOutput) -> bool,
        within: Duration,
    ) -> anyhow::Result<Option<String>> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let output = self.kubectl.run(args, None).await?;
            if ready(&output) {
                return Ok(None);
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(Some(if output.success {
                    String::new()
                } else {
                    format!(": {}", output.error_text())
                }));
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// The last lines a kwokctl cluster's `component` logged (nothing on another runtime).
    fn component_log_tail(&self, component: &str) -> String {
        match &self.backend {
            Backend::Kwokctl(cluster) => cluster.component_log_tail(component, 20),
            _ => String::new(),
        }
    }

    /// An existing cluster; checks that it answers.
    pub async fn external(kubeconfig: &Path) -> anyhow::Result<Target> {
        let kubeconfig = std::fs::canonicalize(kubeconfig)
            .with_context(|| format!("kubeconfig {}", kubeconfig.display()))?;
        let kubectl = Kubectl::new(&kubeconfig);
        kubectl.wait_ready(Duration::from_secs(10)).await?;
        Ok(Target {
            backend: Backend::External,
            _logs: None,
            _exec: None,
            _port_forward: None,
            kube_cache: discovery_cache(&kubectl).await,
            kubectl,
            _scratch: None,
            injected: Default::default(),
            quiet: Default::default(),
            metrics_paths: false,
        })
    }

    pub fn is_embedded(&self) -> bool {
        !matches!(self.backend, Backend::External | Backend::Kwokctl(_))
    }

    /// What a reference run on this cluster depends on besides the lab, for the reference
    /// cache: nothing on the embedded cluster (`""`); on a private kwokctl cluster, the upstream
    /// build it runs (a fresh cluster of the same binaries starts the same, and the run's
    /// snapshots are objects a restore makes again); `None` on a shared cluster, whose state is
    /// its own.
    pub fn reference_runtime(&self) -> Option<String> {
        match &self.backend {
            #[cfg(feature = "embedded")]
            Backend::Embedded(_) => Some(String::new()),
            Backend::Kwokctl(cluster) => Some(format!("kwokctl {}", cluster.upstream_build())),
            Backend::External => None,
        }
    }

    /// A cluster someone else owns (`--kubeconfig`): it must be left as it was found.
    pub fn is_shared(&self) -> bool {
        matches!(self.backend, Backend::External)
    }

    pub fn kubeconfig(&self) -> &Path {
        self.kubectl.kubeconfig()
    }

    pub fn kubeconfig_path(&self) -> PathBuf {
        self.kubectl.kubeconfig().to_path_buf()
    }

    pub fn kubectl(&self) -> &Kubectl {
        &self.kubectl
    }

    /// A kubectl cache dir already holding this cluster's discovery documents.
    /// Whether the API server is answering a request now, where that can be known (the embedded
    /// cluster's): a script waiting for that answer is not idle (see `sandbox::Awaited`).
    pub fn awaited(&self) -> Option<crate::sandbox::Awaited> {
        match &self.backend {
            #[cfg(feature = "embedded")]
            Backend::Embedded(cluster) => {
                let in_flight = cluster.in_flight();
                Some(crate::sandbox::Awaited::new(move || in_flight.count() > 0))
            }
            Backend::External | Backend::Kwokctl(_) => None,
        }
    }

    pub fn kube_cache_seed(&self) -> Option<&Path> {
        self.kube_cache.as_ref().map(tempfile::TempDir::path)
    }

    /// Waits until the controllers have reacted to the last writes.
    pub async fn settle(&self) {
        match &self.backend {
            #[cfg(feature = "embedded")]
            Backend::Embedded(cluster) => cluster.settle().await,
            Backend::External | Backend::Kwokctl(_) => settle_external(&self.kubectl).await,
        }
    }

    /// How long the cluster's pods and nodes have looked the same, sampled now (on the embedded
    /// cluster once its controllers are idle). Node leases and events are left out: they change
    /// every few seconds whatever happens. Shared by every check of a run, so once one failing
    /// check has waited out a quiet period, the next ones find the cluster still quiet and fail
    /// at once instead of each waiting its own.
    pub async fn quiet_for(&self) -> Duration {
        let fingerprint = match &self.backend {
            #[cfg(feature = "embedded")]
            Backend::Embedded(cluster) => {
                cluster.settle().await;
                super::in_process::state_fingerprint(cluster.api())
            }
            Backend::External | Backend::Kwokctl(_) => state_fingerprint(&self.kubectl).await,
        };
        let now = std::time::Instant::now();
        let Ok(mut quiet) = self.quiet.lock() else {
            return Duration::ZERO;
        };
        match quiet.as_ref() {
            Some((last, since)) if *last == fingerprint => now.duration_since(*since),
            _ => {
                *quiet = Some((fingerprint, now));
                Duration::ZERO
            }
        }
    }

    pub async fn snapshot(&self) -> anyhow::Result<Snapshot> {
        self.settle().await;
        match &self.backend {
            #[cfg(feature = "embedded")]
            Backend::Embedded(cluster) => Ok(Snapshot::Embedded(cluster.snapshot())),
            Backend::External | Backend::Kwokctl(_) => {
                Ok(Snapshot::External(external::snapshot(&self.kubectl).await?))
            }
        }
    }

    pub async fn restore(&self, snapshot: &Snapshot) -> anyhow::Result<()> {
        self.restore_noting_changes(snapshot).await.map(drop)
    }

    /// Restores `snapshot`; says whether anything but the cluster's own heartbeats (see
    /// [`is_heartbeat`]) had changed since it was taken. On an external cluster: whether the
    /// objects a snapshot holds there (see `external`) had changed.
    pub async fn restore_noting_changes(&self, snapshot: &Snapshot) -> anyhow::Result<bool> {
        match (&self.backend, snapshot) {
            #[cfg(feature = "embedded")]
            (Backend::Embedded(cluster), Snapshot::Embedded(state)) => {
                let rewound = cluster.restore(state);
                log_rewound(&rewound);
                // Nothing changed since the snapshot (a script that only read): nothing for
                // the controllers to react to, so no need to wait for them.
                if rewound.is_empty() {
                    return Ok(false);
                }
                self.settle().await;
                Ok(!rewound.iter().all(is_heartbeat))
            }
            (Backend::External | Backend::Kwokctl(_), Snapshot::External(set)) => {
                // Put back nothing: nothing for the controllers to react to.
                if !external::restore(&self.kubectl, set).await? {
                    return Ok(false);
                }
                self.settle().await;
                Ok(true)
            }
            #[allow(unreachable_patterns)]
            _ => anyhow::bail!(
                "a snapshot can only be restored on the kind of cluster it was taken from"
            ),
        }
    }

    /// Node names (sorted), those matching the label `selector` when there is one.
    pub async fn node_names(&self, selector: Option<&str>) -> anyhow::Result<Vec<String>> {
        match &self.backend {
            #[cfg(feature = "embedded")]
            Backend::Embedded(cluster) => super::in_process::node_names(cluster.api(), selector),
            Backend::External | Backend::Kwokctl(_) => self.kubectl.node_names(selector).await,
        }
    }

    /// The objects a check's query selects: read in process on the embedded cluster for the
    /// resources it serves (see `in_process::objects`), through kubectl otherwise.
    pub async fn objects(
        &self,
        query: &super::ObjectQuery<'_>,
    ) -> Result<Vec<serde_json::Value>, String> {
        #[cfg(feature = "embedded")]
        if let Backend::Embedded(cluster) = &self.backend {
            if let Some(objects) = super::in_process::objects(cluster.api(), query) {
                return objects;
            }
        }
        self.kubectl.objects(query).await
    }

    /// Creates nodes that do not exist yet (the lab's starting nodes on an external cluster).
    pub async fn ensure_nodes(&self, nodes: &[NodeTemplate]) -> anyhow::Result<()> {
        let existing = self.node_names(None).await?;
        for node in nodes {
            if !existing.contains(&node.name) {
                self.kubectl
                    .create(&node_object(node, self.metrics_paths))
                    .await
                    .with_context(|| format!("creating node {}", node.name))?;
            }
        }
        Ok(())
    }

    /// Adds a node made from `perturbation` with a fresh random name; returns the name.
    pub async fn inject(&self, perturbation: &Perturbation) -> anyhow::Result<String> {
        let name = generated_name(&perturbation.name_prefix);
        let template = NodeTemplate::from_perturbation(name.clone(), perturbation);
        let node = node_object(&template, self.metrics_paths);
        match &self.backend {
            #[cfg(feature = "embedded")]
            Backend::Embedded(cluster) => super::in_process::create_node(cluster.api(), node),
            Backend::External | Backend::Kwokctl(_) => self.kubectl.create(&node).await,
        }
        .with_context(|| format!("injecting node {name}"))?;
        if let Ok(mut injected) = self.injected.lock() {
            injected.push(name.clone());
        }
        for pod in super::nodes::bound_pods(perturbation, &name) {
            let pod_name = pod["metadata"]["name"].as_str().unwrap_or("").to_string();
            match &self.backend {
                #[cfg(feature = "embedded")]
                Backend::Embedded(cluster) => super::in_process::create_pod(cluster.api(), pod),
                Backend::External | Backend::Kwokctl(_) => self.kubectl.create(&pod).await,
            }
            .with_context(|| format!("creating pod {pod_name} on injected node {name}"))?;
        }
        Ok(name)
    }

    /// Removes injected nodes that are still there (after an interrupted check).
    pub async fn remove_leftover_nodes(&self) {
        let leftover: Vec<String> = self
            .injected
            .lock()
            .map(|injected| injected.clone())
            .unwrap_or_default();
        self.remove_nodes(&leftover).await;
    }

    /// Deletes injected nodes and the pods bound to them.
    pub async fn remove_nodes(&self, names: &[String]) {
        if let Ok(mut injected) = self.injected.lock() {
            injected.retain(|name| !names.contains(name));
        }
        for name in names {
            #[cfg(feature = "embedded")]
            if let Backend::Embedded(cluster) = &self.backend {
                if let Err(error) = super::in_process::delete_node_and_pods(cluster.api(), name) {
                    tracing::warn!("removing injected node: {error:#}");
                }
                continue;
            }
            if let Err(error) = self
                .kubectl
                .ok(
                    &["delete", "node", name, "--ignore-not-found", "--wait=false"],
                    None,
                )
                .await
            {
                tracing::warn!("removing injected node: {error:#}");
            }
            external::delete_pods_on(&self.kubectl, name).await;
        }
        if !names.is_empty() {
            self.settle().await;
        }
    }

    pub async fn shutdown(self) {
        match self.backend {
            #[cfg(feature = "embedded")]
            Backend::Embedded(cluster) => cluster.shutdown().await,
            Backend::Kwokctl(mut cluster) => cluster.delete().await,
            Backend::External => {}
        }
    }
}

/// What a restore put back, for `-v`: how many objects of which kinds (heartbeats counted
/// apart), and at `-vv` which ones, on one line.
#[cfg(feature = "embedded")]
fn log_rewound(rewound: &[kwok::store::Rewound]) {
    if rewound.is_empty() {
        return;
    }
    let changed: Vec<&kwok::store::Rewound> = rewound
        .iter()
        .filter(|object| !is_heartbeat(object))
        .collect();
    let mut kinds: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for object in &changed {
        *kinds.entry(object.resource.kind).or_default() += 1;
    }
    let kinds: Vec<String> = kinds
        .iter()
        .map(|(kind, count)| format!("{count} {kind}"))
        .collect();
    tracing::info!(
        heartbeats = rewound.len() - changed.len(),
        "restore put back {}",
        if kinds.is_empty() {
            "only heartbeats".to_string()
        } else {
            kinds.join(", ")
        }
    );
    if tracing::enabled!(tracing::Level::DEBUG) && !changed.is_empty() {
        let names: Vec<String> = changed
            .iter()
            .map(|object| match object.namespace.as_str() {
                "" => format!("{} {}", object.resource.kind, object.name),
                namespace => format!("{} {namespace}/{}", object.resource.kind, object.name),
            })
            .collect();
        tracing::debug!("restored {}", names.join(", "));
    }
}

/// Writes the embedded cluster makes on its own while nothing else happens: the fake kubelets
/// renew their node leases, the controllers record events. A script run that overlaps one has
/// not changed what another run reads.
#[cfg(feature = "embedded")]
fn is_heartbeat(rewound: &kwok::store::Rewound) -> bool {
    let resource = rewound.resource;
    (std::ptr::eq(resource, &kwok::registry::LEASES) && rewound.namespace == "kube-node-lease")
        || resource.kind == "Event"
}

/// Discovery costs a script run a dozen requests on its first kubectl call; filled once here,
/// every run starts with it (see `sandbox::kube_cache`). Without it runs discover for themselves.
async fn discovery_cache(kubectl: &Kubectl) -> Option<tempfile::TempDir> {
    let dir = tempfile::Builder::new()
        .prefix("proctor-kube-cache-")
        .tempdir()
        .map_err(|error| tracing::warn!("creating a kubectl cache dir: {error}"))
        .ok()?;
    match kubectl.fill_discovery_cache(dir.path()).await {
        Ok(()) => {
            // Public discovery documents: a learner's run, under its own uid, reads them in place.
            if let Err(error) = crate::tree::make_world_readable(dir.path()) {
                tracing::warn!("sharing the kubectl cache with script runs: {error:#}");
            }
            Some(dir)
        }
        Err(error) => {
            tracing::warn!("filling the kubectl discovery cache: {error:#}");
            None
        }
    }
}

/// On a cluster whose controllers the harness cannot observe, wait until the pod and node lists
/// stop changing (three equal samples), at most 10 s.
async fn settle_external(kubectl: &Kubectl) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut last = String::new();
    let mut equal = 0;
    while tokio::time::Instant::now() < deadline {
        let sample = state_fingerprint(kubectl).await;
        if sample == last {
            equal += 1;
            if equal >= 2 {
                return;
            }
        } else {
            equal = 0;
            last = sample;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Every pod's and node's uid and resourceVersion: changes whenever a controller or kubelet
/// acts on one of them. Empty when they cannot be read.
async fn state_fingerprint(kubectl: &Kubectl) -> String {
    let mut sample = String::new();
    for resource in ["pods", "nodes"] {
        let Ok(Some(objects)) = kubectl.list_all(resource).await else {
            return String::new();
        };
        for object in &objects {
            for field in ["uid", "resourceVersion"] {
                sample.push_str(object["metadata"][field].as_str().unwrap_or_default());
            }
            sample.push(' ');
        }
    }
    sample
}

#[cfg(all(test, feature = "embedded"))]
mod tests {
    use super::*;

    /// A real cluster's snapshot kept on disk (the reference cache on kwokctl) is the same set
    /// of objects read back, each under its resource, namespace and name.
    #[test]
    fn an_external_snapshot_reads_back_as_it_was_kept() {
        let mut set = ObjectSet::default();
        let monitor = serde_json::json!({"apiVersion": "monitoring.coreos.com/v1",
            "kind": "ServiceMonitor", "metadata": {"name": "dcgm", "namespace": "lab"},
            "spec": {"port": "metrics"}});
        let node = serde_json::json!({"kind": "Node", "metadata": {"name": "n1"},
            "status": {"capacity": {"nvidia.com/gpu": "1"}}});
        set.objects.insert(
            (
                "servicemonitors.monitoring.coreos.com".into(),
                "lab".into(),
                "dcgm".into(),
            ),
            monitor,
        );
        set.objects
            .insert(("nodes".into(), String::new(), "n1".into()), node);
        let document = Snapshot::External(set.clone()).to_document().expect("kept");
        let text = serde_json::to_string(&document).expect("json");
        let read: serde_json::Value = serde_json::from_str(&text).expect("json");
        match Snapshot::from_document(&read, chrono::TimeDelta::seconds(90)) {
            Ok(Snapshot::External(back)) => assert_eq!(back.objects, set.objects),
            Ok(_) => panic!("read back as another kind of snapshot"),
            Err(error) => panic!("{error:#}"),
        }
    }

    /// The quiet time one failing check waited out is what the next check finds, until a pod
    /// or a node changes; node-lease renewals do not count.
    #[tokio::test]
    async fn quiet_time_is_shared_until_pods_or_nodes_change() {
        let target = Target::embedded(&ClusterSetup::with_nodes(&NodeTemplate::plain(1)))
            .await
            .expect("cluster");
        assert_eq!(target.quiet_for().await, Duration::ZERO, "first sample");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let quiet = target.quiet_for().await;
        assert!(quiet >= Duration::from_millis(300), "{quiet:?}");
        let perturbation: Perturbation =
            serde_yaml::from_str("namePrefix: extra-node-").expect("perturbation");
        target.inject(&perturbation).await.expect("node added");
        assert_eq!(target.quiet_for().await, Duration::ZERO, "a node was added");
        target.shutdown().await;
    }

    /// An injected GPU node comes with its capacity and its pods, and leaves with them.
    #[tokio::test]
    async fn an_injected_node_carries_capacity_and_pods() {
        let target = Target::embedded(&ClusterSetup::with_nodes(&NodeTemplate::plain(1)))
            .await
            .expect("cluster");
        let perturbation: Perturbation = serde_yaml::from_str(
            "namePrefix: gpu-node-
capacity: {nvidia.com/gpu: 2}
pods:
  - metadata: {name: busy, labels: {app: cuda}}
    spec:
      containers:
        - name: cuda
          image: cuda:12
          resources: {limits: {nvidia.com/gpu: 1}}
",
        )
        .expect("perturbation");
        let node = target.inject(&perturbation).await.expect("node added");
        target.settle().await;
        let Backend::Embedded(cluster) = &target.backend else {
            panic!("an embedded target");
        };
        let api = cluster.api();
        let stored = api.get(&kwok::registry::NODES, "", &node).expect("node");
        assert_eq!(stored.value["status"]["allocatable"]["nvidia.com/gpu"], "2");
        let pod_name = format!("busy-{node}");
        let pod = api
            .get(&kwok::registry::PODS, "default", &pod_name)
            .expect("pod");
        assert_eq!(pod.value["spec"]["nodeName"], node.as_str());
        assert_eq!(
            pod.value["status"]["phase"], "Running",
            "the fake kubelet runs it"
        );
        target.remove_nodes(std::slice::from_ref(&node)).await;
        assert!(
            api.get(&kwok::registry::PODS, "default", &pod_name)
                .is_err(),
            "gone with the node"
        );
        target.shutdown().await;
    }
}

/// A node as the cluster is given it: a fake one names where kwok serves its resource metrics
/// when usage is declared.
fn node_object(template: &NodeTemplate, metrics_paths: bool) -> serde_json::Value {
    let mut node = template.to_object();
    if metrics_paths && template.managed {
        node["metadata"]["annotations"][pod_usage::METRICS_PATH_ANNOTATION] =
            serde_json::json!(pod_usage::metrics_path(&template.name));
    }
    node
}
