//! Evaluating one check of a step in a given setting (cluster, learner dir, reference dir) and
//! turning the outcome into a report line with points and hints.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::cluster::Target;
use crate::report::{CheckReport, Progress, StepReport};
use crate::runner::checks::file::check_file;
use crate::runner::checks::hints::hints_for;
use crate::runner::checks::manifest::check_manifest;
use crate::runner::checks::object::check_object;
use crate::runner::checks::script::{check_script, ScriptEnv};
use crate::runner::checks::Outcome;
use crate::runner::exec::Exec;
use crate::scenario::{Check, CheckKind, Feedback, Lab, Step};

/// Where a check is evaluated.
pub struct Setting<'a> {
    pub lab: &'a Lab,
    pub target: &'a Target,
    /// The learner's lab dir (a submission, or the live dir).
    pub learner_dir: &'a Path,
    /// R_n for the step being checked.
    pub reference_dir: &'a Path,
    /// Files of R_n the learner's script runs do not get ([`crate::runner::reference::answers`]).
    pub answers: &'a [PathBuf],
    /// What the step's replay printed when it failed, to explain missing objects.
    pub replay_note: Option<&'a str>,
}

impl Setting<'_> {
    fn exec(&self) -> Exec {
        Exec::new(self.lab, self.target)
    }
}

pub async fn evaluate(setting: &Setting<'_>, check: &Check) -> Outcome {
    let Some(kind) = check.kind() else {
        return Outcome::fail("the check has no single kind (a scenario problem)");
    };
    match kind {
        CheckKind::Object(spec) => {
            let mut outcome = check_object(setting.target, spec).await;
            if let (false, Some(note)) = (outcome.passed, setting.replay_note) {
                outcome.message.push('\n');
                outcome.message.push_str(note);
            }
            outcome
        }
        CheckKind::Manifest(spec) => {
            check_manifest(
                setting.target,
                spec,
                setting.learner_dir,
                setting.replay_note,
            )
            .await
        }
        CheckKind::Script(spec) => {
            let exec = setting.exec();
            let env = ScriptEnv {
                target: setting.target,
                exec: &exec,
                perturbations: &setting.lab.scenario.perturbations,
            };
            check_script(
                &env,
                spec,
                setting.learner_dir,
                (setting.reference_dir, setting.answers),
            )
            .await
        }
        CheckKind::File(spec) => check_file(spec, setting.learner_dir, setting.reference_dir),
    }
}

/// Evaluates and builds the report line for check number `position` (1-based) of `step`; an
/// error when the scenario, not the learner, kept the check from being judged.
pub async fn evaluate_to_report(
    setting: &Setting<'_>,
    step: &Step,
    position: usize,
    check: &Check,
) -> anyhow::Result<CheckReport> {
    let started = Instant::now();
    let outcome = evaluate(setting, check).await;
    if let Some(problem) = &outcome.scenario_problem {
        anyhow::bail!(
            "check {}.{position} ({}) could not be judged: {problem}",
            step.id,
            check.id
        );
    }
    let took = started.elapsed();
    tracing::info!(
        check = %format!("{}.{position}", step.id),
        id = %check.id,
        passed = outcome.passed,
        ?took,
        "check judged"
    );
    Ok(report_line(step, position, check, outcome, took))
}

pub fn report_line(
    step: &Step,
    position: usize,
    check: &Check,
    outcome: Outcome,
    duration: std::time::Duration,
) -> CheckReport {
    let hints = hints_for(check, &outcome);
    CheckReport {
        step: step.id,
        position,
        id: check.id.clone(),
        title: check.title.clone(),
        points: check.points,
        score: if outcome.passed { check.points } else { 0.0 },
        passed: outcome.passed,
        visibility: check.visibility,
        message: if outcome.passed {
            String::new()
        } else {
            outcome.message
        },
        diff: match (outcome.passed, check.shown_feedback()) {
            (true, _) | (false, Feedback::Message) => None,
            (false, Feedback::Diff) => outcome.diff,
            (false, Feedback::FirstDifference) => outcome
                .diff
                .map(|diff| graders::text::first_difference(&diff)),
        },
        hints,
        causes: if outcome.passed {
            Vec::new()
        } else {
            outcome.problems
        },
        duration,
    }
}

/// Adds the report of `step` (its lines in check order), unless the step graded nothing.
pub fn push_step(
    steps: &mut Vec<StepReport>,
    step: &Step,
    mut lines: Vec<CheckReport>,
    steps_total: usize,
    progress: &mut dyn Progress,
) {
    lines.sort_by_key(|line| line.position);
    if lines.is_empty() {
        // Nothing of the step runs in this mode (in grade mode: only live-cluster checks).
        return;
    }
    let step_report = StepReport {
        id: step.id,
        title: step.title.clone(),
        checks: lines,
    };
    progress.step_finished(&step_report, steps_total);
    steps.push(step_report);
}

/// Whether a check's evaluation needs the state before the step (objects and manifests are
/// judged after replaying the learner's actions on S_{n-1}).
pub fn judged_before_step(check: &Check) -> bool {
    matches!(
        check.kind(),
        Some(CheckKind::Object(_) | CheckKind::Manifest(_))
    )
}
