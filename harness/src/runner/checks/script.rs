//! `script` checks: the learner's script and the reference script run in the same cluster
//! state, from two run dirs (R_n with the learner's script overlaid, and R_n itself), with the
//! same arguments, once per selected node, with perturbation nodes injected; their stdout
//! and/or exit codes must agree.
//!
//! A learner's script may change the cluster (delete the nodes, the lab's namespace, label half
//! the nodes): on the embedded cluster every run starts from the same saved state, and the check
//! leaves the cluster as it found it, so neither the reference run of the same pair, nor the next
//! node's runs, nor the next check see what the learner's run did. (On an external cluster a
//! snapshot is a full listing through kubectl, too slow to take per run; there the step's own
//! restore is what isolates steps.)

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use graders::text::{compare, normalise, Compare, Normaliser};
use indexmap::IndexMap;

use super::confine::{locate, outside, LabFile};
use super::outcome::Outcome;
use crate::cluster::{Snapshot, Target};
use crate::runner::exec::{describe_exit, transcript, Exec};
use crate::runner::workdir::{copy_file, copy_missing, remove_entry, scratch_copy};
use crate::sandbox::{is_limit_problem, Cutoff, CutoffLimit, ExitStatus, RunOutcome};
use crate::scenario::check::{ScriptCheck, ScriptCompare};
use crate::scenario::Perturbation;

/// Runs whose differences are shown in full; the rest are only counted.
const SHOWN_DIFFERENCES: usize = 3;

/// Lines of the learner's stderr shown for a differing run.
const STDERR_LINES: usize = 3;

/// A learner's run may take this many times as long, and as much CPU, as the reference's run of
/// the same pair...
const TIME_MULTIPLE: u32 = 10;
/// ...and at least this much of each (kubectl's own start-up is a few hundred milliseconds), but
/// never longer than the scenario's `limits.timeout`: a script that hangs is stopped seconds after
/// the reference finished instead of at the end of the scenario's limit. Past the wall time a run
/// is stopped only once it sits idle, so a machine's load changes when a run is stopped, never
/// whether (see [`Cutoff`]).
const TIME_FLOOR: Duration = Duration::from_secs(5);

/// The cutoff of a learner's run whose reference run is `reference`.
fn learner_time_limit(reference: &RunOutcome) -> CutoffLimit {
    CutoffLimit {
        wall: (reference.duration * TIME_MULTIPLE).max(TIME_FLOOR),
        cpu: (reference.cpu * TIME_MULTIPLE).max(TIME_FLOOR),
    }
}

pub struct ScriptEnv<'a> {
    pub target: &'a Target,
    pub exec: &'a Exec,
    pub perturbations: &'a IndexMap<String, Perturbation>,
}

/// Injected node names and how reports show them (`gpu-node-<gpu-unbuilt>`), so that a report
/// does not change with the random suffix.
struct Injected {
    nodes: Vec<(String, String)>,
}

impl Injected {
    fn names(&self) -> Vec<String> {
        self.nodes.iter().map(|(name, _)| name.clone()).collect()
    }

    fn stable(&self, text: &str) -> String {
        let mut text = text.to_string();
        for (name, shown) in &self.nodes {
            text = text.replace(name.as_str(), shown);
        }
        text
    }
}

fn printable(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Stdout compared modulo trailing blanks and the final newline: `echo` vs `printf` is style.
fn stdout_text(outcome: &RunOutcome) -> String {
    normalise(
        &printable(&outcome.stdout),
        &[Normaliser::TrailingWhitespace, Normaliser::FinalNewline],
    )
}

struct Run {
    invocation: String,
    differences: Vec<String>,
    /// Shown under the invocation (the learner's stderr).
    notes: Vec<String>,
    diff: String,
    learner_output: String,
}

/// The learner's run dir is R_n without the reference's answers (see [`crate::runner::reference::answers`]),
/// with the learner's script overlaid, plus the learner's files that it does not have (helpers the
/// script sources, the learner's own answers); data files stay the reference's, so both scripts
/// see the same state.
///
/// With a `start` state, the cluster is put back to it after each run: both runs of the pair see
/// the same cluster, whatever the other did. Most scripts only read, so the two runs first go side
/// by side (half the wall time on two cores); if the cluster changed meanwhile, either run may
/// have seen the other's writes, and the pair runs again one after the other.
async fn run_pair(
    env: &ScriptEnv<'_>,
    spec: &ScriptCheck,
    learner: (&Path, &Path),
    reference: (&Path, &[PathBuf]),
    args: &[String],
    start: Option<&Snapshot>,
) -> anyhow::Result<(RunOutcome, RunOutcome)> {
    if let Some(start) = start {
        let (learner_dir, reference_dir) = run_dirs(spec, learner, reference)?;
        let cutoff = Cutoff::default();
        let (learner, reference) = tokio::join!(
            env.exec
                .script_until(learner_dir.path(), &spec.path, args, Some(cutoff.clone())),
            async {
                let reference = env
                    .exec
                    .script(reference_dir.path(), &spec.path, args)
                    .await;
                cutoff.set(learner_time_limit(&reference));
                reference
            },
        );
        let changed = env
            .target
            .restore_noting_changes(start)
            .await
            .map_err(|error| error.context("restoring the cluster after a script run"))?;
        // A reference run that did not finish beside the learner's may have been starved by it
        // (a learner's busy loops, or forks counted against the same user): only a reference
        // run alone says that the scenario is at fault.
        if !changed && reference_limit(&reference).is_none() {
            return Ok((learner, reference));
        }
        tracing::debug!(
            script = %spec.path.display(),
            changed,
            "running the pair again, one run at a time"
        );
    }
    // One after the other: the reference first, so that its time sets the learner's limit.
    let (learner_dir, reference_dir) = run_dirs(spec, learner, reference)?;
    let reference = env
        .exec
        .script(reference_dir.path(), &spec.path, args)
        .await;
    rewind(env.target, start).await?;
    let cutoff = Cutoff::after(learner_time_limit(&reference));
    let learner = env
        .exec
        .script_until(learner_dir.path(), &spec.path, args, Some(cutoff))
        .await;
    rewind(env.target, start).await?;
    Ok((learner, reference))
}

/// Fresh copies of R_n for one pair: the learner's (answers out, script overlaid) and the
/// reference's.
fn run_dirs(
    spec: &ScriptCheck,
    learner: (&Path, &Path),
    reference: (&Path, &[PathBuf]),
) -> anyhow::Result<(tempfile::TempDir, tempfile::TempDir)> {
    let (learner_root, learner_script) = learner;
    let (reference_dir, answers) = reference;
    let learner_dir = scratch_copy(reference_dir)?;
    for answer in answers {
        remove_entry(&learner_dir.path().join(answer))?;
    }
    copy_file(learner_script, &learner_dir.path().join(&spec.path))?;
    copy_missing(learner_root, learner_dir.path())?;
    Ok((learner_dir, scratch_copy(reference_dir)?))
}

/// Puts the cluster back to `state`, when there is one.
async fn rewind(target: &Target, state: Option<&Snapshot>) -> anyhow::Result<()> {
    match state {
        Some(state) => target
            .restore(state)
            .await
            .map_err(|error| error.context("restoring the cluster after a script run")),
        None => Ok(()),
    }
}

/// The cluster's state now, on the embedded cluster (where saving and restoring are cheap).
async fn saved_state(target: &Target) -> anyhow::Result<Option<Snapshot>> {
    if !target.is_embedded() {
        return Ok(None);
    }
    target
        .snapshot()
        .await
        .map(Some)
        .map_err(|error| error.context("saving the cluster state"))
}

fn compare_runs(
    spec: &ScriptCheck,
    invocation: String,
    learner: &RunOutcome,
    reference: &RunOutcome,
) -> Run {
    let mut differences = Vec::new();
    let mut diff = String::new();
    for field in &spec.compare {
        match field {
            ScriptCompare::Stdout => {
                let result = compare(
                    &stdout_text(reference),
                    &stdout_text(learner),
                    Compare::Exact,
                );
                if !result.equal {
                    differences.push("stdout differs".to_string());
                    diff.push_str(&result.diff);
                }
            }
            ScriptCompare::Stderr => {
                let rules = [Normaliser::TrailingWhitespace, Normaliser::FinalNewline];
                let result = compare(
                    &normalise(&printable(&reference.stderr), &rules),
                    &normalise(&printable(&learner.stderr), &rules),
                    Compare::Exact,
                );
                if !result.equal {
                    differences.push("stderr differs".to_string());
                    diff.push_str(&result.diff);
                }
            }
            ScriptCompare::ExitCode => {
                let (got, want) = (describe_exit(&learner.exit), describe_exit(&reference.exit));
                if got != want {
                    differences.push(format!("{got}, expected {want}"));
                }
            }
        }
    }
    // A run that was stopped is not an answer, whatever the check compares.
    if learner.exit == ExitStatus::TimedOut
        && reference.exit != ExitStatus::TimedOut
        && !spec.compare.contains(&ScriptCompare::ExitCode)
    {
        differences.push(describe_exit(&learner.exit));
    }
    let mut notes = Vec::new();
    if !differences.is_empty() {
        // A limit the run ran into is the reason it failed: said first, in the message.
        notes.extend(
            learner
                .problems
                .iter()
                .filter(|problem| is_limit_problem(problem))
                .cloned(),
        );
        if learner.exit == ExitStatus::TimedOut {
            notes.push(format!(
                "a run is stopped once it has taken {TIME_MULTIPLE} times as long as the \
                 reference's run of the same pair ({:.1} s, at least {} s) and sits idle, or has \
                 used {TIME_MULTIPLE} times its CPU time",
                reference.duration.as_secs_f64(),
                TIME_FLOOR.as_secs()
            ));
        }
        // What the learner's script complained about is usually the quickest explanation.
        let stderr = printable(&learner.stderr);
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|line| !line.trim().is_empty())
            .collect();
        for line in lines.iter().take(STDERR_LINES) {
            notes.push(format!("stderr: {}", line.trim_end()));
        }
        if lines.len() > STDERR_LINES {
            notes.push(format!(
                "stderr: ... {} more line(s)",
                lines.len() - STDERR_LINES
            ));
        }
    }
    let mut learner_output = printable(&learner.stdout);
    learner_output.push_str(&printable(&learner.stderr));
    Run {
        invocation,
        differences,
        notes,
        diff,
        learner_output,
    }
}

/// Why the reference's run did not come to an end of its own, if it did not (a limit, or no
/// start at all): then the pair says nothing about the learner. The sandbox names every limit a
/// run hit (a timeout and the output limit included) among its problems.
fn reference_limit(reference: &RunOutcome) -> Option<String> {
    if let ExitStatus::SpawnError(_) = reference.exit {
        return Some(describe_exit(&reference.exit));
    }
    reference
        .problems
        .iter()
        .find(|problem| is_limit_problem(problem))
        .cloned()
}

pub async fn check_script(
    env: &ScriptEnv<'_>,
    spec: &ScriptCheck,
    learner_dir: &Path,
    reference: (&Path, &[PathBuf]),
) -> Outcome {
    let learner_script = match locate(learner_dir, &spec.path) {
        LabFile::Inside(path) => path,
        LabFile::Missing => return Outcome::missing(&spec.path),
        LabFile::Outside { link } => return outside(&spec.path, &link),
    };
    let before = match saved_state(env.target).await {
        Ok(state) => state,
        Err(error) => return Outcome::fail(format!("{error:#}")),
    };
    let mut injected = Injected { nodes: Vec::new() };
    for key in &spec.inject {
        let Some(perturbation) = env.perturbations.get(key) else {
            continue;
        };
        match env.target.inject(perturbation).await {
            Ok(name) => {
                tracing::debug!(node = %name, perturbation = %key, "injected a node");
                injected
                    .nodes
                    .push((name, format!("{}<{key}>", perturbation.name_prefix)))
            }
            Err(error) => {
                env.target.remove_nodes(&injected.names()).await;
                return Outcome::fail(format!("could not add the test node {key:?}: {error:#}"));
            }
        }
    }
    if !injected.nodes.is_empty() {
        env.target.settle().await;
    }
    let outcome = match saved_state(env.target).await {
        Ok(start) => {
            run_all(
                env,
                spec,
                (learner_dir, &learner_script),
                reference,
                &injected,
                start.as_ref(),
            )
            .await
        }
        Err(error) => Outcome::fail(format!("{error:#}")),
    };
    // The next check starts where this one did (the injected nodes go with the restore).
    let rewound = rewind(env.target, before.as_ref()).await;
    env.target.remove_nodes(&injected.names()).await;
    match rewound {
        Ok(()) => outcome,
        Err(error) => Outcome::fail(format!("{error:#}")),
    }
}

async fn run_all(
    env: &ScriptEnv<'_>,
    spec: &ScriptCheck,
    learner: (&Path, &Path),
    reference: (&Path, &[PathBuf]),
    injected: &Injected,
    start: Option<&Snapshot>,
) -> Outcome {
    let per_node = spec.nodes.is_some() || spec.args.iter().any(|arg| arg.contains("{node}"));
    let nodes: Vec<Option<String>> = if per_node {
        let selection = spec.nodes.clone().unwrap_or_default();
        match env.target.node_names(selection.selector.as_deref()).await {
            Ok(mut names) => {
                // Injected names carry a random suffix: order by what the report shows (then by
                // injection order), so runs, diffs and hints come out the same every grading.
                let injected_names = injected.names();
                names.sort_by_key(|name| {
                    (
                        injected.stable(name),
                        injected_names.iter().position(|n| n == name),
                    )
                });
                names
                    .into_iter()
                    .filter(|name| selection.include_injected || !injected_names.contains(name))
                    .map(Some)
                    .collect()
            }
            Err(error) => return Outcome::fail(format!("could not list nodes: {error:#}")),
        }
    } else {
        vec![None]
    };
    let mut runs = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    // A script that hung on one node would hang on the others: not started again.
    let mut not_run: Option<(usize, String)> = None;
    for (index, node) in nodes.iter().enumerate() {
        let args: Vec<String> = spec
            .args
            .iter()
            .map(|arg| match node {
                Some(node) => arg.replace("{node}", node),
                None => arg.clone(),
            })
            .collect();
        let invocation = std::iter::once(format!("./{}", spec.path.display()))
            .chain(args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        let pair = run_pair(env, spec, learner, reference, &args, start).await;
        let (learner, reference) = match pair {
            Ok(pair) => {
                tracing::info!(
                    run = %injected.stable(&invocation),
                    node = %node.as_deref().map(|node| injected.stable(node)).unwrap_or_default(),
                    learner = %describe_exit(&pair.0.exit),
                    learner_took = ?pair.0.duration,
                    reference = %describe_exit(&pair.1.exit),
                    reference_took = ?pair.1.duration,
                    "script pair ran"
                );
                pair
            }
            Err(error) => {
                let message = format!("could not run {invocation}: {error:#}");
                return Outcome::fail(injected.stable(&message));
            }
        };
        if let Some(problem) = reference_limit(&reference) {
            return Outcome::scenario_problem(injected.stable(&format!(
                "the reference's run of {invocation} could not finish ({problem}): a scenario \
                 problem, not the learner's\n{}",
                transcript(&reference)
            )));
        }
        // Limits are named in the message (see `compare_runs`); the script's own mistakes
        // (CRLF, exec bit) become hints.
        for problem in learner.problems.iter().filter(|p| !is_limit_problem(p)) {
            if !problems.contains(problem) {
                problems.push(problem.clone());
            }
        }
        runs.push(compare_runs(
            spec,
            injected.stable(&invocation),
            &learner,
            &reference,
        ));
        let left = nodes.len() - index - 1;
        if learner.exit == ExitStatus::TimedOut && left > 0 {
            not_run = Some((left, injected.stable(&invocation)));
            break;
        }
    }
    let total = runs.len() + not_run.as_ref().map_or(0, |(left, _)| *left);
    let failing: Vec<&Run> = runs
        .iter()
        .filter(|run| !run.differences.is_empty())
        .collect();
    let injected_count = injected.nodes.len();
    if failing.is_empty() {
        let mut outcome = Outcome::pass(if per_node {
            format!("same results as the reference on {total} node(s), {injected_count} of them added by the grader")
        } else {
            "same results as the reference".to_string()
        });
        outcome.problems = problems;
        return outcome;
    }
    let mut message = format!(
        "{} differs from the reference on {} of {} run(s):",
        spec.path.display(),
        failing.len(),
        total
    );
    let mut diff = String::new();
    let mut actual = String::new();
    for run in failing.iter().take(SHOWN_DIFFERENCES) {
        let _ = write!(
            message,
            "\n  {}: {}",
            run.invocation,
            run.differences.join("; ")
        );
        for note in &run.notes {
            let _ = write!(message, "\n    {note}");
        }
        if !run.diff.is_empty() {
            let _ = writeln!(diff, "# {}", run.invocation);
            diff.push_str(&run.diff);
            if !diff.ends_with('\n') {
                diff.push('\n');
            }
        }
        actual.push_str(&run.learner_output);
        actual.push('\n');
    }
    if failing.len() > SHOWN_DIFFERENCES {
        let _ = write!(
            message,
            "\n  ... and {} more",
            failing.len() - SHOWN_DIFFERENCES
        );
    }
    if let Some((left, invocation)) = &not_run {
        let _ = write!(
            message,
            "\n  not run on the other {left} node(s): {invocation} timed out"
        );
    }
    let mut outcome = Outcome::fail(injected.stable(&message))
        .with_diff(injected.stable(&diff))
        .with_actual(format!("{actual}\n{diff}"));
    outcome.problems = problems;
    outcome
}
