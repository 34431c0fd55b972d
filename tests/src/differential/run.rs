//! Runs a session on two clusters side by side, step by step, and lists where they differ.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use proctor::cluster::Target;
use tokio::io::AsyncWriteExt;

use super::normalize::normalize_with;
use super::session::{Field, Session, Step};

/// A step that has not finished by then is stopped and shows as exit 124 on that side.
const STEP_TIMEOUT: Duration = Duration::from_secs(120);

/// One side of the comparison.
pub struct Side<'a> {
    pub name: &'static str,
    pub target: &'a Target,
    /// HOME and kubectl caches of this side's commands.
    pub scratch: &'a Path,
    /// The lab dir steps run in (default: `scratch`).
    pub lab_dir: Option<&'a Path>,
    /// Added to every step's environment (`CLIENTS_DIR`, a lab's `SCENARIO_DIR`).
    pub env: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub exit: i32,
}

#[derive(Debug, Clone)]
pub struct Difference {
    /// 1-based step; `None` for the object comparison at the end.
    pub step: Option<usize>,
    pub field: Field,
    pub command: String,
    /// The hunks of the unified diff, embedded (`-`) against upstream (`+`), of the normalised
    /// texts; each is covered by an accepted divergence or not.
    pub hunks: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Outcome {
    /// Commands compared (steps and object reads).
    pub commands: usize,
    /// Of those, the ones identical in everything compared.
    pub identical: usize,
    pub differences: Vec<Difference>,
}

pub async fn run_session(
    session: &Session,
    embedded: &Side<'_>,
    upstream: &Side<'_>,
    rewrites: &[(regex::Regex, String)],
) -> anyhow::Result<Outcome> {
    let normalize = |text: &str| normalize_with(text, rewrites);
    for (index, step) in session.setup.iter().enumerate() {
        let (a, b) = tokio::join!(run_step(embedded, step), run_step(upstream, step));
        require_success(
            &format!("setup step {}", index + 1),
            step,
            [(embedded, &a?), (upstream, &b?)],
        )?;
        tokio::join!(embedded.target.settle(), upstream.target.settle());
    }
    let mut outcome = Outcome::default();
    for (index, step) in session.steps.iter().enumerate() {
        let (a, b) = tokio::join!(run_step(embedded, step), run_step(upstream, step));
        let (a, b) = (a?, b?);
        if step.must_succeed {
            require_success(
                &format!("step {}", index + 1),
                step,
                [(embedded, &a), (upstream, &b)],
            )?;
        }
        if step.settles() {
            tokio::join!(embedded.target.settle(), upstream.target.settle());
        }
        let before = outcome.differences.len();
        for field in &step.compare {
            let (left, right) = match field {
                Field::Stdout => (normalize(&a.stdout), normalize(&b.stdout)),
                Field::Stderr => (normalize(&a.stderr), normalize(&b.stderr)),
                Field::Exit => (a.exit.to_string(), b.exit.to_string()),
                Field::Files => (
                    normalize(&files_of(embedded)?),
                    normalize(&files_of(upstream)?),
                ),
                Field::Objects => continue,
            };
            if left != right {
                outcome.differences.push(Difference {
                    step: Some(index + 1),
                    field: *field,
                    command: step.run.trim().to_string(),
                    hunks: hunks(&left, &right),
                });
            }
        }
        outcome.commands += 1;
        if outcome.differences.len() == before {
            outcome.identical += 1;
        }
    }
    for objects in &session.objects {
        let read = Step::new(
            &format!("kubectl get {objects} -o json"),
            vec![Field::Objects],
        );
        let (a, b) = tokio::join!(run_step(embedded, &read), run_step(upstream, &read));
        // Objects whose names normalise alike (generated suffixes) are paired by content: each
        // side's objects, normalised, in sorted order.
        let blocks_of = |output: &Output| {
            let mut blocks: Vec<String> =
                object_blocks(output).iter().map(|b| normalize(b)).collect();
            blocks.sort();
            blocks.join("\n")
        };
        let (left, right) = (blocks_of(&a?), blocks_of(&b?));
        outcome.commands += 1;
        if left == right {
            outcome.identical += 1;
        } else {
            outcome.differences.push(Difference {
                step: None,
                field: Field::Objects,
                command: read.run,
                hunks: hunks(&left, &right),
            });
        }
    }
    Ok(outcome)
}

/// Every file of the side's lab dir with its contents, normalised, in path order.
fn files_of(side: &Side<'_>) -> anyhow::Result<String> {
    let Some(root) = side.lab_dir else {
        return Ok(String::new());
    };
    let mut files = Vec::new();
    walk(root, root, &mut files)?;
    files.sort();
    Ok(files
        .into_iter()
        .map(|(path, text)| format!("== {path}\n{text}"))
        .collect::<Vec<_>>()
        .join("\n"))
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(root, &path, out)?;
        } else {
            let bytes = std::fs::read(&path)?;
            let name = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            out.push((name, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    Ok(())
}

/// What an object read shows: each object as one line per field (see [`flatten`]), or the error
/// when there is no object.
fn object_blocks(output: &Output) -> Vec<String> {
    if output.exit != 0 {
        return vec![format!("exit {}: {}", output.exit, output.stderr)];
    }
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&output.stdout) else {
        return vec![output.stdout.clone()];
    };
    let items = match value.get("items").and_then(|items| items.as_array()) {
        Some(items) => items.clone(),
        None => vec![value],
    };
    items
        .iter()
        .map(|item| {
            let meta = &item["metadata"];
            let id = format!(
                "{}/{}/{}",
                item["kind"].as_str().unwrap_or("?"),
                meta["namespace"].as_str().unwrap_or(""),
                meta["name"].as_str().unwrap_or("?")
            );
            let mut lines = Vec::new();
            flatten(&id, item, &mut lines);
            lines.join("\n")
        })
        .collect()
}

/// One `object path = value` line per leaf, so that a field only one side has is a hunk of its
/// own (a line diff of pretty JSON would also show the comma it changes on the line before).
fn flatten(path: &str, value: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, child) in map {
                let sep = if path.contains(' ') { "." } else { " " };
                flatten(&format!("{path}{sep}{key}"), child, out);
            }
        }
        Value::Array(list) if !list.is_empty() => {
            for (index, child) in list.iter().enumerate() {
                flatten(&format!("{path}[{index}]"), child, out);
            }
        }
        leaf => out.push(format!("{path} = {leaf}")),
    }
}

fn hunks(embedded: &str, upstream: &str) -> Vec<String> {
    let (embedded, upstream) = (format!("{embedded}\n"), format!("{upstream}\n"));
    let diff = similar::TextDiff::from_lines(&embedded, &upstream);
    let mut unified = diff.unified_diff();
    unified.context_radius(2);
    unified.iter_hunks().map(|hunk| hunk.to_string()).collect()
}

/// A step that failed on either side breaks the session: what follows would compare nothing.
fn require_success(
    what: &str,
    step: &Step,
    outputs: [(&Side<'_>, &Output); 2],
) -> anyhow::Result<()> {
    for (side, output) in outputs {
        if output.exit != 0 {
            anyhow::bail!(
                "{what} failed on the {} cluster (exit {}): {}\n{}",
                side.name,
                output.exit,
                step.run.trim(),
                output.stderr.trim()
            );
        }
    }
    Ok(())
}

async fn run_step(side: &Side<'_>, step: &Step) -> anyhow::Result<Output> {
    let path = match &step.kubectl {
        Some(version) => format!(
            "{}:{}",
            kubectl_shim(side.scratch, version)?.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
        None => std::env::var("PATH").unwrap_or_default(),
    };
    let cache = side.scratch.join(format!(
        "kube-cache-{}",
        step.kubectl.as_deref().unwrap_or("default")
    ));
    let mut command = tokio::process::Command::new("bash");
    command
        .arg("-c")
        .arg(format!("{}{}", step.prelude, step.run))
        .env_clear()
        .env("PATH", path)
        .env("HOME", side.scratch)
        .env("LANG", "C.UTF-8")
        .envs(proctor::sandbox::short_lived_go(crate::KUBECTL_HEAP))
        .env("KUBECONFIG", side.target.kubeconfig())
        .env("KUBECACHEDIR", cache)
        .envs(side.env.iter().map(|(k, v)| (k, v)))
        .current_dir(side.lab_dir.unwrap_or(side.scratch))
        .stdin(if step.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // The step and all it starts form a process group of their own, so that a step that
        // times out leaves nothing behind: a kubectl stuck computing a quantity it cannot
        // hold (`1e-2147483648` is 10^2147483648 to Go) would go on using a core for the rest
        // of the test run, slowing every test after it.
        .process_group(0)
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    let group = child.id();
    if let (Some(text), Some(mut stdin)) = (&step.stdin, child.stdin.take()) {
        stdin.write_all(text.as_bytes()).await?;
    }
    match tokio::time::timeout(STEP_TIMEOUT, child.wait_with_output()).await {
        Ok(output) => {
            let output = output?;
            Ok(Output {
                stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                exit: output.status.code().unwrap_or(-1),
            })
        }
        Err(_) => {
            if let Some(group) = group.and_then(|pid| i32::try_from(pid).ok()) {
                let group = nix::unistd::Pid::from_raw(group);
                // Gone already is as good as killed.
                let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
            }
            Ok(Output {
                stdout: String::new(),
                stderr: format!("timed out after {}s", STEP_TIMEOUT.as_secs()),
                exit: 124,
            })
        }
    }
}

/// A directory whose `kubectl` is `kubectl.<version>` from beside the default kubectl.
fn kubectl_shim(scratch: &Path, version: &str) -> anyhow::Result<PathBuf> {
    let dir = scratch.join(format!("kubectl-{version}"));
    let link = dir.join("kubectl");
    if link.exists() {
        return Ok(dir);
    }
    let name = format!("kubectl.{version}");
    let found = std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .flat_map(|d| {
                    let real = std::fs::canonicalize(d.join("kubectl")).ok();
                    [
                        Some(d.join(&name)),
                        real.and_then(|r| Some(r.parent()?.join(&name))),
                    ]
                })
                .flatten()
                .find(|p| p.is_file())
        })
        .ok_or_else(|| anyhow::anyhow!("{name} is not installed beside kubectl"))?;
    std::fs::create_dir_all(&dir)?;
    std::os::unix::fs::symlink(found, &link)?;
    Ok(dir)
}
