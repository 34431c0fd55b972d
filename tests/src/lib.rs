//! Shared helpers for the integration suites: an embedded cluster per test, and real `kubectl`
//! pointed at it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use kwok::{Cluster, ClusterConfig};

/// The heap past which the suites' own kubectl collects garbage (`sandbox::short_lived_go`): the
/// cheaper start-up Proctor gives learners' scripts, on both sides of every comparison.
pub const KUBECTL_HEAP: u64 = 256 * 1024 * 1024;

pub mod differential;
pub mod lab_walk;
pub mod protobuf_body;

pub mod load;

/// The kubectl binary the suites drive: `$PROCTOR_KUBECTL`, else `kubectl` on PATH.
pub fn kubectl_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("PROCTOR_KUBECTL") {
        return PathBuf::from(p);
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("kubectl"))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| {
        panic!("kubectl is not on PATH: the conformance suites drive the real kubectl (set PROCTOR_KUBECTL to its path)")
    })
}

/// What one kubectl run printed.
#[derive(Debug)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Run {
    fn from(o: Output) -> Self {
        Self {
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            code: o.status.code().unwrap_or(-1),
        }
    }

    /// Panics with both streams unless kubectl exited 0.
    #[track_caller]
    pub fn ok(self) -> Self {
        assert_eq!(
            self.code, 0,
            "kubectl failed:\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }

    /// Panics unless kubectl failed.
    #[track_caller]
    pub fn fails(self) -> Self {
        assert_ne!(
            self.code, 0,
            "kubectl unexpectedly succeeded:\nstdout: {}",
            self.stdout
        );
        self
    }
}

/// A cluster's configuration with fake nodes of these names.
fn nodes_config(names: &[&str]) -> ClusterConfig {
    let mut config = ClusterConfig::default();
    for n in names {
        config.nodes.push(kwok::cluster::fake_node(
            n,
            &Default::default(),
            &Default::default(),
        ));
    }
    config
}

/// An embedded cluster with its own runtime, kubeconfig and kubectl cache dir.
pub struct TestCluster {
    cluster: Option<Cluster>,
    rt: tokio::runtime::Runtime,
    dir: tempfile::TempDir,
    kubeconfig: PathBuf,
}

impl TestCluster {
    /// A cluster with fake nodes of these names (kwok-managed, unlabelled).
    pub fn with_nodes(names: &[&str]) -> Self {
        Self::start(nodes_config(names))
    }

    /// The same, with what kwok's documents (`ClusterLogs`, `ClusterExec`, ...) declare its
    /// nodes serve, as a lab's declarations do.
    pub fn with_kwok_documents(names: &[&str], documents: &[serde_json::Value]) -> Self {
        let mut config = nodes_config(names);
        config.debugging =
            kwok::debugging::Config::from_documents(documents).expect("kwok documents");
        Self::start(config)
    }

    /// The labs' starting cluster: `lab-node-0..2`.
    pub fn lab() -> Self {
        Self::with_nodes(&["lab-node-0", "lab-node-1", "lab-node-2"])
    }

    pub fn start(config: ClusterConfig) -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime");
        let cluster = rt
            .block_on(Cluster::start(config))
            .expect("embedded cluster starts");
        let dir = tempfile::tempdir().expect("temp dir");
        let kubeconfig = dir.path().join("kubeconfig");
        cluster
            .write_kubeconfig(&kubeconfig)
            .expect("kubeconfig written");
        let tc = Self {
            cluster: Some(cluster),
            rt,
            dir,
            kubeconfig,
        };
        tc.settle();
        tc
    }

    pub fn cluster(&self) -> &Cluster {
        self.cluster.as_ref().expect("cluster running")
    }

    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// A scratch directory for manifests.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Wait for the controllers to react to everything so far.
    pub fn settle(&self) {
        self.rt.block_on(self.cluster().settle());
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(kubectl_bin());
        c.args(args)
            .envs(proctor::sandbox::short_lived_go(KUBECTL_HEAP))
            .env("KUBECONFIG", &self.kubeconfig)
            .env("KUBECACHEDIR", self.dir.path().join("cache"))
            .env("HOME", self.dir.path())
            .env_remove("KUBECTL_EXTERNAL_DIFF")
            .current_dir(self.dir.path());
        c
    }

    /// Run kubectl with these arguments, after letting the controllers settle.
    pub fn kubectl(&self, args: &[&str]) -> Run {
        self.settle();
        let out = self
            .command(args)
            .stdin(Stdio::null())
            .output()
            .expect("kubectl runs");
        Run::from(out)
    }

    /// Run kubectl with `input` on stdin (e.g. `apply -f -`).
    pub fn kubectl_stdin(&self, args: &[&str], input: &str) -> Run {
        self.settle();
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kubectl runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("stdin written");
        Run::from(child.wait_with_output().expect("kubectl finishes"))
    }

    /// Write a file into the scratch dir and return its path.
    pub fn file(&self, name: &str, content: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).expect("dir");
        }
        std::fs::write(&p, content).expect("file written");
        p
    }
}

impl Drop for TestCluster {
    fn drop(&mut self) {
        if let Some(c) = self.cluster.take() {
            self.rt.block_on(c.shutdown());
        }
    }
}
