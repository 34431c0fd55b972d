//! The reference run: each step's `reference` shell in order in a reference lab dir R, keeping
//! the cluster snapshot S_n and a copy R_n of the dir after every step (S_0/R_0 = the start).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use crate::cluster::{ClusterSetup, NodeTemplate, Snapshot, Target};
use crate::report::Progress;
use crate::runner::exec::{describe_exit, succeeded, transcript, Exec};
use crate::runner::workdir::{copy_dir, copy_file};
use crate::sandbox::ExitStatus;
use crate::scenario::Lab;

pub struct ReferenceState {
    pub snapshot: Snapshot,
    /// R_n: the reference lab dir after step n.
    pub dir: PathBuf,
}

pub struct ReferenceRun {
    _root: tempfile::TempDir,
    /// Index n holds the state after step n; index 0 is the start.
    pub states: Vec<ReferenceState>,
    /// The sandbox isolation the reference shells ran with.
    pub isolation: &'static str,
    /// When the last state was taken (a cached run's clock is moved forward from it).
    pub finished_at: chrono::DateTime<chrono::Utc>,
}

/// Just the reference lab dirs R_0..R_N (what check mode needs), possibly from a cache.
pub struct ReferenceDirs {
    pub dirs: Vec<PathBuf>,
    pub isolation: String,
    /// Keeps temporary dirs alive when the dirs are not cached.
    pub _run: Option<ReferenceRun>,
}

impl ReferenceDirs {
    pub fn dir(&self, step: usize) -> anyhow::Result<&Path> {
        self.dirs
            .get(step)
            .map(PathBuf::as_path)
            .with_context(|| format!("no reference dir after step {step}"))
    }
}

impl ReferenceRun {
    /// A run read back from elsewhere (the cache); its dirs live under `root`.
    pub fn from_parts(
        root: tempfile::TempDir,
        states: Vec<ReferenceState>,
        isolation: &'static str,
    ) -> ReferenceRun {
        ReferenceRun {
            _root: root,
            states,
            isolation,
            finished_at: chrono::Utc::now(),
        }
    }

    /// The dirs of this run, borrowing nothing (selftest uses the run itself as the shadow).
    pub fn dirs(&self) -> ReferenceDirs {
        ReferenceDirs {
            dirs: self.states.iter().map(|state| state.dir.clone()).collect(),
            isolation: self.isolation.to_string(),
            _run: None,
        }
    }

    pub fn state(&self, step: usize) -> anyhow::Result<&ReferenceState> {
        self.states
            .get(step)
            .with_context(|| format!("no reference state after step {step}"))
    }
}

/// What a private cluster for the lab starts with: its nodes, its declared container logs,
/// commands and port replies, and what those commands must not see (as the lab's scripts must not).
pub fn starting_setup(lab: &Lab) -> ClusterSetup {
    ClusterSetup {
        nodes: starting_nodes(lab),
        logs: lab.scenario.cluster.logs.clone(),
        exec: lab.scenario.cluster.exec.clone(),
        port_forward: lab.scenario.cluster.port_forward.clone(),
        usage: lab.scenario.cluster.usage.clone(),
        hidden: crate::runner::exec::hidden_paths(lab),
    }
}

pub fn starting_nodes(lab: &Lab) -> Vec<NodeTemplate> {
    lab.scenario
        .cluster
        .nodes
        .iter()
        .map(NodeTemplate::from_spec)
        .collect()
}

/// Brings a cluster to the lab's starting state: nodes (for a `--kubeconfig` cluster; the
/// private ones are started with them) and the scenario's extra manifests.
pub async fn prepare_cluster(lab: &Lab, target: &Target) -> anyhow::Result<()> {
    if target.is_shared() {
        target.ensure_nodes(&starting_nodes(lab)).await?;
    }
    for manifest in &lab.scenario.cluster.manifests {
        let path = lab.dir.join(manifest);
        let path = path.display().to_string();
        target
            .kubectl()
            .ok(&["apply", "-f", &path], None)
            .await
            .with_context(|| format!("applying the scenario manifest {path}"))?;
    }
    target.settle().await;
    Ok(())
}

/// Copies the starter files into a lab dir, keeping files that are already there.
pub fn copy_starter(lab: &Lab, dir: &Path, overwrite: bool) -> anyhow::Result<()> {
    for starter in &lab.scenario.starter {
        let to = dir.join(&starter.to);
        if overwrite || !to.exists() {
            copy_file(&lab.dir.join(&starter.from), &to)?;
        }
    }
    Ok(())
}

fn reference_exec(lab: &Lab, target: &Target) -> Exec {
    Exec::new(lab, target)
        .with_env("SCENARIO_DIR", &lab.dir.display().to_string())
        .trusted()
}

/// Prepended to a reference shell so that a failure names the step's own command: a DEBUG trap
/// (not inherited by functions or subshells) records the line of each top-level command, and
/// the EXIT trap names the last one, which [`failing_command`] reads from the step. So a helper
/// that fails (`wait_until`, whose last command is `return 1`) is named by the step's call of
/// it. The trap's own commands run at line 1 and this prefix ends at line 2: neither is
/// recorded. A reference that sets its own DEBUG or EXIT trap only loses the name.
const NAME_THE_FAILING_COMMAND: &str = concat!(
    "trap '__proctor_rc=$?; [ \"$__proctor_rc\" -eq 0 ] || [ -z \"${__proctor_at:-}\" ] || ",
    "printf \"proctor: failed at line: %s\\n\" \"$__proctor_at\" >&2' EXIT\n",
    "trap '[ \"$LINENO\" -le 2 ] || __proctor_at=$LINENO' DEBUG\n",
);

/// The helpers every reference step can call (`wait_until`, `field_is`, ...), and strict mode:
/// shipped with Proctor rather than copied into each lab. Public for whoever runs a step's
/// reference itself (the differential suite), which must run it after the same prelude.
pub const REFERENCE_LIB: &str = include_str!("lib.sh");

/// The line [`NAME_THE_FAILING_COMMAND`] writes before the failing line's number.
const FAILED_AT_LINE: &str = "proctor: failed at line: ";

/// The command of `reference` (a step's shell) on `line` of the whole snippet (which puts
/// [`NAME_THE_FAILING_COMMAND`] and [`REFERENCE_LIB`] before it), with the lines it continues
/// and that continue it (bash names either end of a continued command, by context); `None` for
/// a line outside the step.
fn command_on_line(reference: &str, line: usize) -> Option<String> {
    let before = NAME_THE_FAILING_COMMAND.lines().count() + REFERENCE_LIB.lines().count();
    let lines: Vec<&str> = reference.lines().collect();
    let index = line.checked_sub(before + 1)?;
    lines.get(index)?;
    let continued = |i: usize| lines[i].trim_end().ends_with('\\');
    let mut first = index;
    while first > 0 && continued(first - 1) {
        first -= 1;
    }
    let mut last = index;
    while last + 1 < lines.len() && continued(last) {
        last += 1;
    }
    let parts: Vec<&str> = lines[first..=last]
        .iter()
        .map(|text| text.trim().trim_end_matches('\\').trim_end())
        .collect();
    let command = parts.join(" ").trim().to_string();
    (!command.is_empty()).then_some(command)
}

/// The failing command a reference shell's stderr names (the step `reference` run in it), and
/// the stderr without that line.
fn failing_command(reference: &str, stderr: &[u8]) -> (Option<String>, Vec<u8>) {
    let text = String::from_utf8_lossy(stderr);
    let mut command = None;
    let mut rest = String::new();
    for line in text.split_inclusive('\n') {
        match line.strip_prefix(FAILED_AT_LINE) {
            Some(number) => {
                command = number
                    .trim()
                    .parse()
                    .ok()
                    .and_then(|number| command_on_line(reference, number));
            }
            None => rest.push_str(line),
        }
    }
    (command, rest.into_bytes())
}

/// Runs step `index`'s reference shell in `dir`. A reference that does not finish, or ends
/// with a non-zero exit, is a broken scenario: the error (exit 2 for every command) names the
/// step, the command that failed and the end of the shell's output.
async fn run_step(
    lab: &Lab,
    target: &Target,
    exec: &Exec,
    index: usize,
    dir: &Path,
) -> anyhow::Result<&'static str> {
    let step = &lab.scenario.steps[index];
    if step.reference.trim().is_empty() {
        return Ok("none");
    }
    let snippet = format!(
        "{NAME_THE_FAILING_COMMAND}{REFERENCE_LIB}{}",
        step.reference
    );
    let mut outcome = exec.shell(dir, &snippet).await;
    let (command, stderr) = failing_command(&step.reference, &outcome.stderr);
    outcome.stderr = stderr;
    if !succeeded(&outcome) {
        let at = match &command {
            Some(command) if matches!(outcome.exit, ExitStatus::Code(_)) => {
                format!(" at `{command}`")
            }
            _ => String::new(),
        };
        let problems = if outcome.problems.is_empty() {
            String::new()
        } else {
            format!(" ({})", outcome.problems.join("; "))
        };
        bail!(
            "{}: the reference of step {} failed ({}){at}{problems}; a scenario problem, not the \
             learner's. The end of its output:\n{}",
            lab.name(),
            step.id,
            describe_exit(&outcome.exit),
            transcript(&outcome),
        );
    }
    tracing::info!(
        took = ?outcome.duration,
        "{}: reference step {} done",
        lab.name(),
        step.id
    );
    target.settle().await;
    Ok(outcome.isolation)
}

/// Runs the whole reference on `target`, which must be in the lab's starting state.
pub async fn run_reference(
    lab: &Lab,
    target: &Target,
    progress: &mut dyn Progress,
) -> anyhow::Result<ReferenceRun> {
    progress.phase(&format!("{}: running the reference solution", lab.name()));
    let root = tempfile::Builder::new()
        .prefix(&format!("proctor-{}-reference-", lab.name()))
        .tempdir()
        .context("creating the reference directory")?;
    let work = root.path().join("work");
    std::fs::create_dir_all(&work).context("creating the reference lab dir")?;
    copy_starter(lab, &work, true)?;
    let exec = reference_exec(lab, target);
    let mut states = Vec::new();
    let mut isolation = "none";
    for index in 0..=lab.scenario.steps.len() {
        if index > 0 {
            isolation = run_step(lab, target, &exec, index - 1, &work).await?;
        }
        let dir = root.path().join(format!("state-{index}"));
        copy_dir(&work, &dir)?;
        let snapshot = target
            .snapshot()
            .await
            .context("taking a cluster snapshot")?;
        states.push(ReferenceState { snapshot, dir });
    }
    Ok(ReferenceRun {
        _root: root,
        states,
        isolation,
        finished_at: chrono::Utc::now(),
    })
}

/// Runs the reference solution's steps `steps` (indices into the lab's steps) directly in `dir`
/// on `target` (`proctor solve`).
pub async fn solve_into(
    lab: &Lab,
    target: &Target,
    dir: &Path,
    steps: std::ops::RangeInclusive<usize>,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    copy_starter(lab, dir, false)?;
    let exec = reference_exec(lab, target);
    for index in steps.filter(|index| *index < lab.scenario.steps.len()) {
        run_step(lab, target, &exec, index, dir).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`failing_command`] makes of `reference` run as [`run_step`] runs it (by bash, after
    /// the trap and the helpers).
    fn named(reference: &str) -> Option<String> {
        let snippet = format!("{NAME_THE_FAILING_COMMAND}{REFERENCE_LIB}{reference}");
        let output = std::process::Command::new("bash")
            .args(["-c", &snippet])
            .output()
            .expect("bash runs");
        assert!(!output.status.success(), "{reference:?} should fail");
        let (command, rest) = failing_command(reference, &output.stderr);
        assert!(
            !String::from_utf8_lossy(&rest).contains("proctor: failed"),
            "the trap's line is taken out of the output"
        );
        command
    }

    #[test]
    fn a_failure_names_the_steps_own_command() {
        assert_eq!(
            named("true\n[ 1 = 2 ]\necho never\n").as_deref(),
            Some("[ 1 = 2 ]")
        );
        assert_eq!(named("exit 3\n").as_deref(), Some("exit 3"));
    }

    #[test]
    fn a_failing_helper_is_named_by_the_steps_call_not_its_return() {
        let reference = "echo one\nwait_until 0 false\necho never\n";
        assert_eq!(named(reference).as_deref(), Some("wait_until 0 false"));
        // A function the step defines itself, two calls deep, over continuation lines.
        let reference =
            "inner() { false; }\nouter() { inner; }\nif true; then\n  outer \\\n    arg\nfi\n";
        assert_eq!(named(reference).as_deref(), Some("outer arg"));
    }

    #[test]
    fn a_successful_step_names_nothing() {
        let snippet =
            format!("{NAME_THE_FAILING_COMMAND}{REFERENCE_LIB}field_is() {{ true; }}\ntrue\n");
        let output = std::process::Command::new("bash")
            .args(["-c", &snippet])
            .output()
            .expect("bash runs");
        assert!(output.status.success());
        assert_eq!(failing_command("", &output.stderr).0, None);
    }
}
