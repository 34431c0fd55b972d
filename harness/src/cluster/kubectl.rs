//! Running the real `kubectl` against a target. The harness talks to every cluster the way a
//! learner does, so what it sees is what `kubectl` shows (resource names, short names, kinds).
//! Its own bulk reads of a cluster (snapshots, the polls of a restore) go through an API client
//! instead where one can be made (see `api_reader`), and through kubectl where not.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{anyhow, Context};
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use super::api_reader::ApiReader;
use super::ObjectQuery;
use crate::sandbox::short_lived_go;

/// Upper bound for one kubectl call; a hung API server must not hang grading.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Proctor's own kubectl collects once its heap passes this: a snapshot reads whole clusters, and
/// a batch runs a few of them at once beside the graded scripts.
const GRADER_KUBECTL_HEAP: u64 = 128 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct Kubectl {
    kubeconfig: PathBuf,
    program: PathBuf,
    /// `kubectl api-resources -o name`, asked once: built-in resources do not come and go.
    resource_names: std::sync::Arc<tokio::sync::OnceCell<Vec<String>>>,
    /// The API client for the grader's own reads, made once; `None` when the kubeconfig gives
    /// none (kubectl reads instead).
    reader: std::sync::Arc<tokio::sync::OnceCell<Option<ApiReader>>>,
}

#[derive(Debug, Clone)]
pub struct KubectlOutput {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

impl KubectlOutput {
    /// The trimmed error text kubectl printed, for messages.
    pub fn error_text(&self) -> String {
        let text = self.stderr.trim();
        if text.is_empty() {
            self.stdout.trim().to_string()
        } else {
            text.to_string()
        }
    }
}

impl Kubectl {
    pub fn new(kubeconfig: &Path) -> Kubectl {
        Kubectl {
            kubeconfig: kubeconfig.to_path_buf(),
            program: std::env::var_os("PROCTOR_KUBECTL")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("kubectl")),
            resource_names: Default::default(),
            reader: Default::default(),
        }
    }

    /// The API client, connected on first use.
    async fn reader(&self) -> Option<&ApiReader> {
        self.reader
            .get_or_init(|| async {
                ApiReader::connect(&self.kubeconfig)
                    .await
                    .map_err(|error| {
                        tracing::info!("reading the cluster through kubectl only: {error:#}")
                    })
                    .ok()
            })
            .await
            .as_ref()
    }

    /// The objects of `resource` (named as `kubectl api-resources -o name` names it) in every
    /// namespace, as `kubectl get <resource> --all-namespaces -o json` gives them; `None` when the
    /// cluster does not serve it.
    pub async fn list_all(&self, resource: &str) -> anyhow::Result<Option<Vec<Value>>> {
        if let Some(reader) = self.reader().await {
            return reader.list(resource).await;
        }
        match self.json(&["get", resource, "--all-namespaces"]).await {
            Ok(list) => Ok(Some(list_items(list))),
            Err(error) if not_served(&error) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// The object `name` of `resource` (in `namespace` when it is namespaced), `None` when there
    /// is none.
    pub async fn get_object(
        &self,
        resource: &str,
        namespace: &str,
        name: &str,
    ) -> anyhow::Result<Option<Value>> {
        if let Some(reader) = self.reader().await {
            return reader.get(resource, namespace, name).await;
        }
        let mut args = vec!["get", resource, name, "--ignore-not-found"];
        if !namespace.is_empty() {
            args.extend(["-n", namespace]);
        }
        match self.json(&args).await {
            Ok(Value::Null) => Ok(None),
            Ok(object) => Ok(Some(object)),
            Err(error) if not_served(&error) => Ok(None),
            Err(error) => Err(error),
        }
    }

    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// Runs kubectl; a non-zero exit is returned, not an error (callers decide what it means).
    pub async fn run(&self, args: &[&str], stdin: Option<&[u8]>) -> anyhow::Result<KubectlOutput> {
        self.run_with(args, stdin, None).await
    }

    async fn run_with(
        &self,
        args: &[&str],
        stdin: Option<&[u8]>,
        cache_dir: Option<&Path>,
    ) -> anyhow::Result<KubectlOutput> {
        let mut command = tokio::process::Command::new(&self.program);
        if let Some(dir) = cache_dir {
            command.env("KUBECACHEDIR", dir);
        }
        // Unless the grader chose otherwise (see `short_lived_go`).
        if std::env::var_os("GOGC").is_none() && std::env::var_os("GOMEMLIMIT").is_none() {
            command.envs(short_lived_go(GRADER_KUBECTL_HEAP));
        }
        command
            .args(args)
            .env("KUBECONFIG", &self.kubeconfig)
            .env_remove("KUBECTL_EXTERNAL_DIFF")
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        tracing::debug!(?args, "kubectl");
        let mut child = command
            .spawn()
            .with_context(|| format!("cannot run {}", self.program.display()))?;
        if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
            pipe.write_all(input)
                .await
                .context("writing kubectl stdin")?;
            drop(pipe);
        }
        let output = tokio::time::timeout(CALL_TIMEOUT, child.wait_with_output())
            .await
            .map_err(|_| {
                anyhow!(
                    "kubectl {} did not finish within {}s",
                    args.join(" "),
                    CALL_TIMEOUT.as_secs()
                )
            })?
            .context("waiting for kubectl")?;
        Ok(KubectlOutput {
            success: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }

    /// Runs kubectl and fails with its error text on a non-zero exit.
    pub async fn ok(&self, args: &[&str], stdin: Option<&[u8]>) -> anyhow::Result<String> {
        let output = self.run(args, stdin).await?;
        if output.success {
            Ok(output.stdout)
        } else {
            Err(anyhow!(
                "kubectl {}: {}",
                args.join(" "),
                output.error_text()
            ))
        }
    }

    /// `kubectl ... -o json` parsed.
    pub async fn json(&self, args: &[&str]) -> anyhow::Result<Value> {
        let mut full: Vec<&str> = args.to_vec();
        full.extend(["-o", "json"]);
        let text = self.ok(&full, None).await?;
        if text.trim().is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_str(&text)
            .with_context(|| format!("kubectl {} printed invalid JSON", args.join(" ")))
    }

    /// The objects `kubectl get <query> -o json` prints, a list's items unwrapped (none for a
    /// missing named object: `--ignore-not-found`).
    pub async fn objects(&self, query: &ObjectQuery<'_>) -> Result<Vec<Value>, String> {
        let mut args: Vec<&str> = vec!["get", query.resource];
        if let Some(name) = query.name {
            args.extend([name, "--ignore-not-found"]);
        }
        if let Some(namespace) = query.namespace {
            args.extend(["-n", namespace]);
        }
        if let Some(selector) = query.label_selector {
            args.extend(["-l", selector]);
        }
        if let Some(selector) = query.field_selector {
            args.extend(["--field-selector", selector]);
        }
        let value = self
            .json(&args)
            .await
            .map_err(|error| format!("{error:#}"))?;
        Ok(match value {
            Value::Null => Vec::new(),
            Value::Object(ref map)
                if map
                    .get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|kind| kind.ends_with("List")) =>
            {
                map.get("items")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            }
            other => vec![other],
        })
    }

    /// Creates or updates objects given as JSON (`kubectl apply -f -`).
    pub async fn apply(&self, object: &Value) -> anyhow::Result<()> {
        let body = serde_json::to_vec(object)?;
        self.ok(&["apply", "-f", "-"], Some(&body)).await.map(drop)
    }

    /// Creates an object given as JSON (`kubectl create -f -`).
    pub async fn create(&self, object: &Value) -> anyhow::Result<()> {
        let body = serde_json::to_vec(object)?;
        self.ok(&["create", "-f", "-"], Some(&body)).await.map(drop)
    }

    /// Names of the nodes matching a label selector (all nodes when `None`), sorted.
    pub async fn node_names(&self, selector: Option<&str>) -> anyhow::Result<Vec<String>> {
        let mut args = vec!["get", "nodes", "-o", "jsonpath={.items[*].metadata.name}"];
        if let Some(selector) = selector {
            args.extend(["-l", selector]);
        }
        let text = self.ok(&args, None).await?;
        let mut names: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        names.sort();
        Ok(names)
    }

    /// Fills `dir` with the server's discovery documents, as kubectl caches them
    /// (`$KUBECACHEDIR/discovery/<host_port>/...`); the resource names it printed answer
    /// [`Kubectl::resource_names`] from then on.
    pub async fn fill_discovery_cache(&self, dir: &Path) -> anyhow::Result<()> {
        let output = self
            .run_with(&["api-resources", "-o", "name"], None, Some(dir))
            .await?;
        if !output.success {
            return Err(anyhow!("kubectl api-resources: {}", output.error_text()));
        }
        let _ = self.resource_names.set(names(&output.stdout));
        Ok(())
    }

    /// The resources the server serves (`kubectl api-resources -o name`), asked once. A server
    /// with a broken aggregated API prints what it could and exits 1: what it printed counts.
    /// Nothing printed is an error, and is asked again next time.
    pub async fn resource_names(&self) -> anyhow::Result<Vec<String>> {
        self.resource_names
            .get_or_try_init(|| async {
                let output = self.run(&["api-resources", "-o", "name"], None).await?;
                let names = names(&output.stdout);
                if names.is_empty() {
                    return Err(anyhow!("kubectl api-resources: {}", output.error_text()));
                }
                Ok(names)
            })
            .await
            .cloned()
    }

    /// Polls until the API server answers, for at most `within`.
    pub async fn wait_ready(&self, within: Duration) -> anyhow::Result<()> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let last = match self.run(&["get", "--raw", "/version"], None).await {
                Ok(output) if output.success => return Ok(()),
                Ok(output) => output.error_text(),
                Err(error) => format!("{error:#}"),
            };
            if tokio::time::Instant::now() >= deadline {
                return Err(anyhow!(
                    "the API server did not answer within {}s: {last}",
                    within.as_secs()
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// kubectl's error for a resource the cluster does not serve.
fn not_served(error: &anyhow::Error) -> bool {
    format!("{error:#}").contains("doesn't have a resource type")
}

/// The items of a list kubectl printed (none for anything else).
fn list_items(list: Value) -> Vec<Value> {
    match list {
        Value::Object(mut fields) => match fields.remove("items") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// One resource name per line of `kubectl api-resources -o name`.
fn names(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(str::to_string)
        .collect()
}
