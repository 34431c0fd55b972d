//! A real control plane for a run: kube-apiserver, etcd, kube-controller-manager and
//! kube-scheduler, with kwok's controller playing the kubelet of every fake node, brought up by
//! `kwokctl create cluster --runtime binary` from the locally built binaries (see `upstream`), so
//! nothing is downloaded. Each cluster has a work dir of its own (`KWOK_WORKDIR`), is deleted
//! when the run ends, and, should the run be dropped without ending, from `Drop`. A process killed
//! outright (SIGKILL) cannot delete anything: its work dir records its pid, and the next cluster
//! created on the machine deletes the clusters whose owner is gone.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;

use super::names::generated_name;
use super::nodes::KWOK_NODE_ANNOTATION;
use super::upstream::Upstream;

/// A cold start on a loaded 2-core machine: etcd, the API server's post-start hooks, the
/// controller manager and the scheduler. Each wait of a start (kwokctl's own, then the API
/// server answering, then the controllers' first objects) has this long: a start takes seconds
/// idle, and a slow one is a machine busy with other clusters, never a verdict.
pub(super) const CREATE_TIMEOUT: Duration = Duration::from_secs(180);
const DELETE_TIMEOUT: Duration = Duration::from_secs(60);

const WORKDIR_PREFIX: &str = "proctor-kwokctl-";
/// The pid of the process whose cluster a work dir holds.
const OWNER_FILE: &str = "owner.pid";

/// Deletes the clusters of work dirs whose owner process is gone (killed before it could).
async fn sweep_orphans(kwokctl: &Path) {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for dir in entries.flatten().map(|e| e.path()) {
        let is_ours = dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(WORKDIR_PREFIX));
        let owner = std::fs::read_to_string(dir.join(OWNER_FILE))
            .ok()
            .and_then(|pid| pid.trim().parse::<i32>().ok());
        let Some(owner) = owner.filter(|_| is_ours) else {
            continue;
        };
        if std::path::Path::new(&format!("/proc/{owner}")).exists() {
            continue;
        }
        let clusters = std::fs::read_dir(dir.join("clusters"))
            .map(|entries| entries.flatten().map(|e| e.file_name()).collect::<Vec<_>>())
            .unwrap_or_default();
        for name in clusters {
            tracing::info!(cluster = ?name, "deleting a cluster whose owner is gone");
            let _ = run_delete(delete_command(kwokctl, &dir, &name)).await;
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// kwokctl's binary runtime gives each component the first port down from 32767 that it can
/// bind, closes it, and starts the component on it later: two clusters created at once are given
/// the same ports, and one cluster's component fails to start, or another's answers in its place
/// (an APIService routed to the other cluster's metrics-server). Creations on a machine therefore
/// take turns, holding a lock on the kwokctl binary they share (any user who may run it may open
/// it), and a turn ends once every component of the new cluster listens on its port
/// ([`KwokctlCluster::wait_listening`]); a cluster that is up holds its ports, so running clusters
/// do not wait for each other. Without the lock (an unreadable binary) the creation goes ahead.
async fn creation_turn(kwokctl: &Path) -> Option<nix::fcntl::Flock<std::fs::File>> {
    let file = std::fs::File::open(kwokctl).ok()?;
    let waited = std::time::Instant::now();
    let turn = tokio::task::spawn_blocking(move || {
        nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive).ok()
    })
    .await
    .ok()
    .flatten();
    if waited.elapsed() > Duration::from_secs(1) {
        tracing::info!(waited = ?waited.elapsed(), "waited for another kwokctl cluster's creation");
    }
    turn
}

/// kwokctl multiplies every heartbeat interval by 5 by default (`heartbeatFactor`), so its node
/// lifecycle controller would see a silent node only after 200 s. Factor 1 gives kwok the
/// kubelet's 40 s lease renewed every 10 s, and kube-controller-manager its own defaults
/// (`--node-monitor-grace-period` 50 s where kwokctl's is 40 s, `--node-monitor-period` 5 s): the
/// timings of the embedded cluster's kubelet and node lifecycle controller.
const TIMINGS: &str = "---
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
options:
  heartbeatFactor: 1
  kubeControllerManagerNodeMonitorGracePeriodMilliseconds: 50000
  kubeControllerManagerNodeMonitorPeriodMilliseconds: 5000
";

/// kube-controller-manager signs approved CertificateSigningRequests with the cluster's CA (in
/// `pki`, which kwokctl writes), as a kubeadm cluster's does; kwokctl gives it no signing key of
/// its own. kwok finds a lab's declared `commands` first on its `PATH`. A configuration document
/// rather than `--extra-args`: kwokctl v0.7.0 indexes a second component's repeated flags past
/// the end of its list.
fn components_config(pki: &Path, commands: Option<&Path>) -> String {
    let file = |name: &str| serde_json::Value::from(pki.join(name).display().to_string());
    let mut config = format!(
        "---
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
componentsPatches:
- name: kube-controller-manager
  extraArgs:
  - key: cluster-signing-cert-file
    value: {}
  - key: cluster-signing-key-file
    value: {}
",
        file("ca.crt"),
        file("ca.key")
    );
    if let Some(commands) = commands {
        let mut path = commands.display().to_string();
        if let Some(inherited) = std::env::var_os("PATH") {
            path.push(':');
            path.push_str(&inherited.to_string_lossy());
        }
        config.push_str(&format!(
            "- name: kwok-controller
  extraEnvs:
  - name: PATH
    value: {}
",
            serde_json::Value::from(path)
        ));
    }
    config
}

pub struct KwokctlCluster {
    name: String,
    kwokctl: PathBuf,
    workdir: tempfile::TempDir,
    kubeconfig: PathBuf,
    deleted: bool,
}

impl KwokctlCluster {
    /// Creates a cluster whose kubeconfig is written to `kubeconfig` (default: in its work dir),
    /// with `kwok_config` (kwok configuration documents, such as `ClusterLogs`) added to the
    /// stages kwok is given, and `commands` (a lab's declared commands) first on kwok's `PATH`,
    /// where it looks up what `kubectl exec` runs. With `metrics_server`, kwokctl also runs
    /// metrics-server, registered as the `metrics.k8s.io` APIService, which reads the resource
    /// usage kwok reports per node.
    pub async fn create(
        upstream: &Upstream,
        kubeconfig: Option<&Path>,
        kwok_config: &str,
        commands: Option<&Path>,
        metrics_server: bool,
    ) -> anyhow::Result<KwokctlCluster> {
        sweep_orphans(&upstream.binary("kwokctl")).await;
        // 0700: it holds the cluster's keys and kwok's configuration, and in the unprivileged-uid
        // mode learners share /tmp with the grader.
        let workdir = tempfile::Builder::new()
            .prefix(WORKDIR_PREFIX)
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .context("creating a work dir for kwokctl")?;
        std::fs::write(
            workdir.path().join(OWNER_FILE),
            std::process::id().to_string(),
        )
        .context("recording the kwokctl work dir's owner")?;
        // The cluster's timings and kwok's stages with the fault annotations realised (see
        // `kwok_stages`).
        let stages = workdir.path().join("kwok-config.yaml");
        let config = super::kwok_stages::stages_config(&upstream.stages())?;
        let name = generated_name("proctor-");
        let signing = components_config(
            &workdir.path().join("clusters").join(&name).join("pki"),
            commands,
        );
        std::fs::write(&stages, format!("{TIMINGS}{signing}{config}{kwok_config}"))
            .context("writing kwokctl's configuration")?;
        let kubeconfig = kubeconfig
            .map(Path::to_path_buf)
            .unwrap_or_else(|| workdir.path().join("kubeconfig"));
        let mut cluster = KwokctlCluster {
            name,
            kwokctl: upstream.binary("kwokctl"),
            workdir,
            kubeconfig,
            deleted: false,
        };
        let binary = |flag: &str, name: &str| {
            [
                format!("--{flag}-binary"),
                upstream.binary(name).display().to_string(),
            ]
        };
        let mut args: Vec<String> = vec![
            "create".into(),
            "cluster".into(),
            "--name".into(),
            cluster.name.clone(),
            "--runtime".into(),
            "binary".into(),
            "--kubeconfig".into(),
            cluster.kubeconfig.display().to_string(),
            "--wait".into(),
            format!("{}s", CREATE_TIMEOUT.as_secs()),
            // The binary runtime has kwok manage every node; like kwok's in-cluster deployment
            // (and the embedded cluster), manage only nodes annotated as fake, so a scenario's
            // unmanaged node keeps its pods Pending.
            "--config".into(),
            stages.display().to_string(),
            "--extra-args".into(),
            "kwok-controller=manage-all-nodes=false".into(),
            "--extra-args".into(),
            format!(
                "kwok-controller=manage-nodes-with-annotation-selector={KWOK_NODE_ANNOTATION}=fake"
            ),
        ];
        for (flag, name) in [
            ("kube-apiserver", "kube-apiserver"),
            ("kube-controller-manager", "kube-controller-manager"),
            ("kube-scheduler", "kube-scheduler"),
            ("kwok-controller", "kwok"),
            ("etcd", "etcd"),
        ] {
            args.extend(binary(flag, name));
        }
        if metrics_server {
            args.push("--enable-metrics-server".into());
            args.extend(binary("metrics-server", "metrics-server"));
        }
        let turn = creation_turn(&cluster.kwokctl).await;
        tracing::info!(name = %cluster.name, "creating a kwokctl cluster");
        let started = std::time::Instant::now();
        let output = cluster
            .kwokctl(&args, CREATE_TIMEOUT + Duration::from_secs(30))
            .await;
        // The turn is held until every component listens on its port (see `creation_turn`).
        let output = match output {
            Ok(output) if output.status.success() => {
                cluster.wait_listening().await.map(|()| output)
            }
            other => other,
        };
        drop(turn);
        match output {
            Ok(output) if output.status.success() => {
                tracing::info!(took = ?started.elapsed(), name = %cluster.name, "kwokctl cluster up");
                Ok(cluster)
            }
            Ok(output) => {
                let text = tail(&output.stderr, 20);
                cluster.delete().await;
                anyhow::bail!("kwokctl could not create the cluster:\n{text}")
            }
            Err(error) => {
                cluster.delete().await;
                Err(error.context("running kwokctl create cluster"))
            }
        }
    }

    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The upstream build the cluster runs: its directory, named for its pinned versions and
    /// their hash by `upstream/build.sh`.
    pub fn upstream_build(&self) -> String {
        let binary = std::fs::canonicalize(&self.kwokctl).unwrap_or_else(|_| self.kwokctl.clone());
        binary
            .parent()
            .and_then(Path::parent)
            .unwrap_or(&binary)
            .display()
            .to_string()
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The cluster's `KWOK_WORKDIR`: kwokctl's files for it (configuration, logs, pki).
    pub fn workdir(&self) -> &Path {
        self.workdir.path()
    }

    /// The last `lines` lines a component (`kube-controller-manager`, …) logged, to say why a
    /// start failed before the cluster and its logs are deleted.
    pub fn component_log_tail(&self, component: &str, lines: usize) -> String {
        let log = self
            .workdir
            .path()
            .join("clusters")
            .join(&self.name)
            .join("logs")
            .join(format!("{component}.log"));
        match std::fs::read(&log) {
            Ok(bytes) => tail(&bytes, lines),
            Err(error) => format!("({}: {error})", log.display()),
        }
    }

    /// Waits until each component accepts connections on the ports kwokctl gave it: `kwokctl
    /// create --wait` asks only that every process runs and that the API server answers, so the
    /// controller manager, the scheduler, kwok and metrics-server may not have bound theirs yet,
    /// and a cluster created meanwhile could be given the same ports. A component that never
    /// listens is named with its log's last lines.
    async fn wait_listening(&self) -> anyhow::Result<()> {
        let saved = self
            .workdir
            .path()
            .join("clusters")
            .join(&self.name)
            .join("kwok.yaml");
        let text = std::fs::read_to_string(&saved)
            .with_context(|| format!("reading kwokctl's configuration {}", saved.display()))?;
        let mut waiting = component_ports(&text)
            .with_context(|| format!("reading the ports in {}", saved.display()))?;
        let deadline = tokio::time::Instant::now() + CREATE_TIMEOUT;
        loop {
            let mut still = Vec::new();
            for (component, port) in waiting {
                let connect = tokio::net::TcpStream::connect((std::net::Ipv4Addr::LOCALHOST, port));
                match tokio::time::timeout(Duration::from_secs(1), connect).await {
                    Ok(Ok(_)) => {}
                    _ => still.push((component, port)),
                }
            }
            let Some((component, port)) = still.first() else {
                return Ok(());
            };
            if tokio::time::Instant::now() >= deadline {
                anyhow::bail!(
                    "{component} of the kwokctl cluster did not listen on port {port} within {}s; \
                     its last lines:\n{}",
                    CREATE_TIMEOUT.as_secs(),
                    self.component_log_tail(component, 20)
                );
            }
            waiting = still;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Stops every component and removes the cluster's files.
    pub async fn delete(&mut self) {
        if self.deleted {
            return;
        }
        let command = delete_command(&self.kwokctl, self.workdir.path(), self.name.as_ref());
        match run_delete(command).await {
            Ok(output) if output.status.success() => {}
            Ok(output) => tracing::warn!(
                "kwokctl could not delete cluster {}: {}",
                self.name,
                tail(&output.stderr, 5)
            ),
            Err(error) => tracing::warn!("deleting cluster {}: {error:#}", self.name),
        }
        self.deleted = true;
    }

    async fn kwokctl<S: AsRef<std::ffi::OsStr>>(
        &self,
        args: &[S],
        within: Duration,
    ) -> anyhow::Result<std::process::Output> {
        let mut command = tokio::process::Command::new(&self.kwokctl);
        command
            .args(args)
            .env_clear()
            .envs(component_environment())
            .env("KWOK_WORKDIR", self.workdir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let child = command
            .spawn()
            .with_context(|| format!("starting {}", self.kwokctl.display()))?;
        tokio::time::timeout(within, child.wait_with_output())
            .await
            .with_context(|| format!("kwokctl did not finish within {}s", within.as_secs()))?
            .context("waiting for kwokctl")
    }
}

/// What kwokctl and the components it starts are given of the grader's environment: what a
/// process needs to run and find its tools, nothing else. kwok passes its own environment to
/// the commands it runs for `kubectl exec`, which a learner's script may run and print; the
/// grader's other variables (tokens, paths of its files) must not reach them.
fn component_environment() -> Vec<(String, std::ffi::OsString)> {
    ["PATH", "HOME", "LANG", "TMPDIR", "TZ"]
        .iter()
        .filter_map(|name| std::env::var_os(name).map(|value| (name.to_string(), value)))
        .collect()
}

impl Drop for KwokctlCluster {
    fn drop(&mut self) {
        if self.deleted {
            return;
        }
        // A run that ended without `delete` (an error path, a panic) must not leave an API
        // server and etcd running.
        let _ = delete_command(&self.kwokctl, self.workdir.path(), self.name.as_ref()).status();
    }
}

/// `kwokctl delete cluster --name NAME` for the cluster whose work dir is `workdir`: stops its
/// components and removes its files.
fn delete_command(kwokctl: &Path, workdir: &Path, name: &std::ffi::OsStr) -> std::process::Command {
    let mut command = std::process::Command::new(kwokctl);
    command
        .args(["delete", "cluster", "--name"])
        .arg(name)
        .env("KWOK_WORKDIR", workdir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// Runs a [`delete_command`] from async code, bounded by [`DELETE_TIMEOUT`].
async fn run_delete(command: std::process::Command) -> anyhow::Result<std::process::Output> {
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    tokio::time::timeout(DELETE_TIMEOUT, command.output())
        .await
        .with_context(|| {
            format!(
                "kwokctl delete did not finish within {}s",
                DELETE_TIMEOUT.as_secs()
            )
        })?
        .context("running kwokctl delete")
}

/// The ports of the cluster's components (`components[].ports[].port`, which the binary runtime
/// binds on the host) in kwokctl's saved configuration, a stream of documents of which one is the
/// `KwokctlConfiguration`.
fn component_ports(config: &str) -> anyhow::Result<Vec<(String, u16)>> {
    #[derive(serde::Deserialize)]
    struct Document {
        #[serde(default)]
        components: Vec<Component>,
    }
    #[derive(serde::Deserialize)]
    struct Component {
        name: String,
        #[serde(default)]
        ports: Vec<Port>,
    }
    #[derive(serde::Deserialize)]
    struct Port {
        port: u16,
    }
    for document in serde_yaml::Deserializer::from_str(config) {
        let value = <serde_yaml::Value as serde::Deserialize>::deserialize(document)?;
        if value.get("kind").and_then(serde_yaml::Value::as_str) != Some("KwokctlConfiguration") {
            continue;
        }
        let document: Document = serde_yaml::from_value(value)?;
        return Ok(document
            .components
            .into_iter()
            .flat_map(|component| {
                let name = component.name;
                component
                    .ports
                    .into_iter()
                    .filter(|port| port.port != 0)
                    .map(move |port| (name.clone(), port.port))
            })
            .collect());
    }
    anyhow::bail!("no KwokctlConfiguration document")
}

fn tail(bytes: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The components see only what they need of the grader's environment: the test runner's
    /// own variables (`CARGO_*`, set for every test) do not reach them.
    #[test]
    fn components_get_none_of_the_graders_other_variables() {
        let given: Vec<String> = component_environment()
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        assert!(given.iter().any(|name| name == "PATH"), "{given:?}");
        for name in &given {
            assert!(
                ["PATH", "HOME", "LANG", "TMPDIR", "TZ"].contains(&name.as_str()),
                "{name} reaches the components"
            );
        }
        let others = std::env::vars_os()
            .filter(|(name, _)| name.to_string_lossy().starts_with("CARGO"))
            .count();
        assert!(others > 0, "the test runner sets CARGO_* variables");
    }

    /// The ports of kwokctl v0.7.0's saved configuration (the shape `kwokctl create cluster
    /// --runtime binary` writes to `clusters/<name>/kwok.yaml`): every component's, the stages
    /// after it ignored.
    #[test]
    fn component_ports_are_read_from_the_saved_configuration() {
        let saved = "apiVersion: config.kwok.x-k8s.io/v1alpha1
components:
- name: etcd
  ports:
  - name: peer-http
    port: 32754
    protocol: TCP
  - name: http
    port: 32747
    protocol: TCP
- name: kube-apiserver
  ports:
  - name: https
    port: 32746
    protocol: TCP
- name: metrics-server
  ports:
  - hostPort: 0
    name: https
    port: 32740
    protocol: TCP
kind: KwokctlConfiguration
options:
  kubeApiserverPort: 32746
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-initialize
";
        let ports = component_ports(saved).unwrap();
        assert_eq!(
            ports,
            [
                ("etcd".to_string(), 32754),
                ("etcd".to_string(), 32747),
                ("kube-apiserver".to_string(), 32746),
                ("metrics-server".to_string(), 32740),
            ]
        );
        assert!(component_ports("kind: Stage\n").is_err());
    }
}
