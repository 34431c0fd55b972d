//! A real control plane for a run: kube-apiserver, etcd, kube-controller-manager and
//! kube-scheduler, with kwok's controller playing the kubelet of every fake node, brought up by
//! `kwokctl create cluster --runtime binary` from the locally built binaries (see `upstream`), so
//! nothing is downloaded. Each cluster has a work dir of its own (`KWOK_WORKDIR`), is deleted
//! when the run ends, and, should the run be dropped without ending, from `Drop`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;

use super::names::generated_name;
use super::upstream::Upstream;

/// A cold start on a loaded 2-core machine: etcd, the API server's post-start hooks, the
/// controller manager and the scheduler.
const CREATE_TIMEOUT: Duration = Duration::from_secs(180);
const DELETE_TIMEOUT: Duration = Duration::from_secs(60);

pub struct KwokctlCluster {
    name: String,
    kwokctl: PathBuf,
    workdir: tempfile::TempDir,
    kubeconfig: PathBuf,
    deleted: bool,
}

impl KwokctlCluster {
    /// Creates a cluster whose kubeconfig is written to `kubeconfig` (default: in its work dir).
    pub async fn create(
        upstream: &Upstream,
        kubeconfig: Option<&Path>,
    ) -> anyhow::Result<KwokctlCluster> {
        let workdir = tempfile::Builder::new()
            .prefix("proctor-kwokctl-")
            .tempdir()
            .context("creating a work dir for kwokctl")?;
        let kubeconfig = kubeconfig
            .map(Path::to_path_buf)
            .unwrap_or_else(|| workdir.path().join("kubeconfig"));
        let name = generated_name("proctor-");
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
        tracing::info!(name = %cluster.name, "creating a kwokctl cluster");
        let started = std::time::Instant::now();
        let output = cluster
            .kwokctl(&args, CREATE_TIMEOUT + Duration::from_secs(30))
            .await;
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

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Stops every component and removes the cluster's files.
    pub async fn delete(&mut self) {
        if self.deleted {
            return;
        }
        let args = ["delete", "cluster", "--name", &self.name];
        match self.kwokctl(&args, DELETE_TIMEOUT).await {
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
            .env("KWOK_WORKDIR", self.workdir.path())
            .env("KWOK_KUBECTL_BINARY", self.kubectl_binary())
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

    fn kubectl_binary(&self) -> PathBuf {
        self.kwokctl.with_file_name("kubectl")
    }
}

impl Drop for KwokctlCluster {
    fn drop(&mut self) {
        if self.deleted {
            return;
        }
        // A run that ended without `delete` (an error path, a panic) must not leave an API
        // server and etcd running.
        let _ = std::process::Command::new(&self.kwokctl)
            .args(["delete", "cluster", "--name", &self.name])
            .env("KWOK_WORKDIR", self.workdir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn tail(bytes: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
