//! What a grading checks before any reference or learner run: that the machine can give every
//! submission the same verdict. A missing tool, a kubectl out of the supported range, or a lab
//! path the learner's sandbox cannot reach would otherwise fail checks and be charged to the
//! learner; here they stop the grading (exit 2) with what to install or change.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context};

use crate::sandbox::{self, ExitStatus, Limits, RunSpec, Trust};
use crate::scenario::Lab;

/// The kubectl minor versions Proctor is tested with (the embedded cluster serves their APIs).
const KUBECTL_MINORS: std::ops::RangeInclusive<u32> = 27..=33;

/// Checks the tools and the learner's sandbox for `lab`.
pub async fn check(lab: &Lab) -> anyhow::Result<()> {
    let lab = lab.clone();
    tokio::task::spawn_blocking(move || check_blocking(&lab))
        .await
        .map_err(|error| anyhow!("the preflight check failed: {error}"))?
}

fn check_blocking(lab: &Lab) -> anyhow::Result<()> {
    kubectl_version()?;
    let mut tools = vec!["kubectl".to_string()];
    tools.extend(lab.scenario.tools.iter().cloned());
    let missing: Vec<&String> = tools
        .iter()
        .filter(|tool| sandbox::on_path(tool).is_none())
        .collect();
    if !missing.is_empty() {
        bail!(
            "the lab {} needs {} on PATH: install {} (e.g. apt-get install {})",
            lab.name(),
            join(&missing),
            if missing.len() == 1 { "it" } else { "them" },
            join(&missing)
        );
    }
    learner_sandbox(lab, &tools)
}

/// Runs, as a learner's script would, one probe: a look for every tool, and whether the lab dir
/// is at the lab's absolute path, as the lab promises (`cat /root/gpudrv/support-matrix.csv`). A
/// tool the grader has but the learner's uid cannot reach, or a lab path it cannot use, shows
/// here. Only a grading without isolation, accepted as such, cannot place the lab dir there.
fn learner_sandbox(lab: &Lab, tools: &[String]) -> anyhow::Result<()> {
    let run_dir = tempfile::Builder::new()
        .prefix("proctor-preflight-")
        .tempdir()
        .context("creating the preflight run dir")?;
    let lab_dir = lab.scenario.lab_dir.display().to_string();
    let mut probe: String = tools
        .iter()
        .map(|tool| format!("command -v '{tool}' >/dev/null || echo 'tool {tool}'\n"))
        .collect();
    if sandbox::isolation_available() != "none" {
        probe.push_str(&format!(
            "test \"$(pwd)\" = '{lab_dir}' && test -d '{lab_dir}' || echo 'lab dir'\n"
        ));
    }
    let spec = RunSpec {
        program: PathBuf::new(),
        args: Vec::new(),
        run_dir: run_dir.path().to_path_buf(),
        map_at: lab.scenario.lab_dir.clone(),
        env: Vec::new(),
        limits: Limits::default(),
        shell: Some(probe),
        kube_cache_seed: None,
        hidden: vec![lab.dir.clone()],
        cutoff: None,
        awaited: None,
        trust: Trust::Learner,
        stdin: None,
    };
    let outcome = sandbox::run(&spec);
    match &outcome.exit {
        ExitStatus::Code(0) => {}
        ExitStatus::SpawnError(message) => bail!("learners' scripts cannot run here: {message}"),
        other => bail!(
            "a probe run in the learners' sandbox ({}) ended with {other:?}: {}",
            outcome.isolation,
            String::from_utf8_lossy(&outcome.stderr).trim()
        ),
    }
    let found = String::from_utf8_lossy(&outcome.stdout).into_owned();
    if found.lines().any(|line| line == "lab dir") {
        bail!(
            "learners' scripts ({} sandbox) do not find their lab dir at {lab_dir}",
            outcome.isolation
        );
    }
    let unreachable: Vec<&str> = found
        .lines()
        .filter_map(|line| line.strip_prefix("tool "))
        .collect();
    if !unreachable.is_empty() {
        bail!(
            "learners' scripts ({} sandbox) cannot reach {}: install the tools where every user can run them (e.g. /usr/local/bin)",
            outcome.isolation,
            unreachable.join(", ")
        );
    }
    Ok(())
}

/// `kubectl version --client` within [`KUBECTL_MINORS`].
fn kubectl_version() -> anyhow::Result<()> {
    let output = std::process::Command::new("kubectl")
        .args(["version", "--client", "-o", "json"])
        .output()
        .context("kubectl is not on PATH: install kubectl 1.27–1.33")?;
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .context("kubectl version --client -o json printed no JSON")?;
    let minor = json["clientVersion"]["minor"]
        .as_str()
        .and_then(|minor| minor.trim_end_matches('+').parse::<u32>().ok())
        .ok_or_else(|| anyhow!("kubectl printed no client version"))?;
    if !KUBECTL_MINORS.contains(&minor) {
        bail!(
            "kubectl 1.{minor} is outside the versions Proctor grades with (1.{}–1.{}): put one of those first on PATH",
            KUBECTL_MINORS.start(),
            KUBECTL_MINORS.end()
        );
    }
    Ok(())
}

fn join(items: &[&String]) -> String {
    items
        .iter()
        .map(|item| item.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a learner's script can talk to `target` at all: asked once per cluster, before the
/// first grading on it. Were it unable to, the learner's run and the reference's run of every
/// script check would fail alike and "agree": checks would pass on nothing.
pub async fn cluster_reachable(lab: &Lab, target: &crate::cluster::Target) -> anyhow::Result<()> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock, PoisonError};
    static ASKED: OnceLock<Mutex<HashMap<PathBuf, Result<(), String>>>> = OnceLock::new();
    let key = target.kubeconfig().to_path_buf();
    let known = ASKED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
        .cloned();
    let answer = match known {
        Some(answer) => answer,
        None => {
            let run_dir = tempfile::Builder::new()
                .prefix("proctor-preflight-")
                .tempdir()
                .context("creating the preflight run dir")?;
            let exec = crate::runner::exec::Exec::new(lab, target);
            let outcome = exec
                .shell(run_dir.path(), "kubectl get --raw /version >/dev/null")
                .await;
            let answer = match outcome.exit {
                ExitStatus::Code(0) => Ok(()),
                _ => Err(format!(
                    "learners' scripts ({} sandbox) cannot reach the cluster: {}",
                    outcome.isolation,
                    String::from_utf8_lossy(&outcome.stderr).trim()
                )),
            };
            ASKED
                .get_or_init(Default::default)
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(key, answer.clone());
            answer
        }
    };
    answer.map_err(anyhow::Error::msg)
}
