//! `grade` mode: a submitted lab dir judged step by step against the reference states.
//!
//! For step n: restore S_{n-1}, replay the learner's cluster actions from their files, judge
//! objects and manifests; restore S_n, judge scripts (learner's script overlaid on R_n vs R_n)
//! and files (learner's file vs R_n's).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::cluster::Target;
use crate::report::model::{now, steps_not_judged, PROCTOR_VERSION};
use crate::report::{CheckReport, Progress, Report};
use crate::runner::checks::evaluate::{
    evaluate_to_report, judged_before_step, push_step, report_line, Setting,
};
use crate::runner::checks::Outcome;
use crate::runner::exec::{describe_exit, succeeded, transcript, Exec};
use crate::runner::reference::answers::hidden_answers;
use crate::runner::reference::run::ReferenceRun;
use crate::runner::workdir::scratch_copy;
use crate::scenario::{Check, Lab, Mode, Step};

pub async fn grade(
    lab: &Lab,
    target: &Target,
    reference: &ReferenceRun,
    submission: &Path,
    progress: &mut dyn Progress,
) -> anyhow::Result<Report> {
    let started = Instant::now();
    // Graded from a private copy taken now: nothing a run does can change what is judged, and
    // the submission folder is never written.
    let original = submission;
    let taken = match crate::intake::take(original, &crate::intake::Limits::default()) {
        Ok(taken) => taken,
        Err(refused) => return Ok(refused_report(lab, original, &refused, started)),
    };
    let submission = taken.path();
    crate::runner::flows::preflight::cluster_reachable(lab, target).await?;
    let budget = Budget {
        started,
        total: lab.scenario.limits.grade.0,
        told: std::cell::Cell::new(false),
    };
    let steps_total = lab.scenario.steps.len();
    let mut steps = Vec::new();
    for (index, step) in lab.scenario.steps.iter().enumerate() {
        progress.step_started(step.id, steps_total, &step.title);
        let before = reference.state(index)?;
        let after = reference.state(index + 1)?;
        let graded: Vec<(usize, &Check)> = step
            .checks
            .iter()
            .enumerate()
            .filter(|(_, check)| check.runs_in(Mode::Grade))
            .map(|(k, check)| (k + 1, check))
            .collect();
        let mut lines: Vec<CheckReport> = Vec::new();
        if budget.spent() {
            lines.extend(
                graded
                    .iter()
                    .map(|(position, check)| budget.not_graded(step, *position, check)),
            );
            push_step(&mut steps, step, lines, steps_total, progress);
            continue;
        }

        target
            .restore(&before.snapshot)
            .await
            .with_context(|| format!("restoring the state before step {}", step.id))?;
        let replay_note = match &step.replay {
            Some(replay) if graded.iter().any(|(_, check)| judged_before_step(check)) => {
                replay_submission(lab, target, submission, replay).await?
            }
            _ => None,
        };
        let setting = Setting {
            lab,
            target,
            learner_dir: submission,
            reference_dir: &before.dir,
            answers: &[],
            replay_note: replay_note.as_deref(),
        };
        for (position, check) in graded.iter().filter(|(_, check)| judged_before_step(check)) {
            lines.push(budget.evaluate(&setting, step, *position, check).await?);
        }

        target
            .restore(&after.snapshot)
            .await
            .with_context(|| format!("restoring the state after step {}", step.id))?;
        let answers = hidden_answers(&lab.scenario, index, |k| {
            reference.state(k).ok().map(|state| state.dir.as_path())
        });
        let setting = Setting {
            reference_dir: &after.dir,
            answers: &answers,
            replay_note: None,
            ..setting
        };
        for (position, check) in graded
            .iter()
            .filter(|(_, check)| !judged_before_step(check))
        {
            lines.push(budget.evaluate(&setting, step, *position, check).await?);
        }
        push_step(&mut steps, step, lines, steps_total, progress);
    }
    let mut report = grade_report(lab, original, steps, started);
    report.submission_sha256 = Some(taken.digest.clone());
    Ok(report)
}

/// A grade's report of `steps`, naming the isolation the learner's runs had (not the possibly
/// cached reference's).
fn grade_report(
    lab: &Lab,
    original: &Path,
    steps: Vec<crate::report::StepReport>,
    started: Instant,
) -> Report {
    Report {
        lab: lab.name().to_string(),
        title: lab.scenario.title.clone(),
        mode: Mode::Grade,
        subject: original.display().to_string(),
        learner: None,
        graded_at: now(),
        proctor_version: PROCTOR_VERSION.to_string(),
        submission_sha256: None,
        isolation: Some(crate::sandbox::isolation_available().to_string()),
        duration: started.elapsed(),
        steps_not_judged: steps_not_judged(lab, &steps),
        steps,
        notes: Vec::new(),
    }
}

/// The report of a submission that could not be taken in (too deep, too big, unreadable): every
/// check fails with the reason, so the grade is a clear zero rather than an error.
fn refused_report(
    lab: &Lab,
    original: &Path,
    refused: &crate::intake::Refused,
    started: Instant,
) -> Report {
    let steps = lab
        .scenario
        .steps
        .iter()
        .map(|step| crate::report::StepReport {
            id: step.id,
            title: step.title.clone(),
            checks: step
                .checks
                .iter()
                .enumerate()
                .filter(|(_, check)| check.runs_in(Mode::Grade))
                .map(|(k, check)| {
                    let outcome = Outcome::fail(format!("not graded: {refused}"));
                    let mut line = report_line(step, k + 1, check, outcome, Duration::ZERO);
                    line.hints.clear();
                    line
                })
                .collect(),
        })
        .collect();
    grade_report(lab, original, steps, started)
}

/// How the message of a check the budget left ungraded starts (a batch's `timed-out` rows).
pub const NOT_GRADED: &str = "not graded: the grade's time budget";

/// The grade's overall time budget (`limits.grade`): a check not started when it is spent is
/// reported as not graded, so that one slow submission cannot hold up the grading of a class. A
/// check already running finishes within its own limits.
struct Budget {
    started: Instant,
    total: Duration,
    /// Whether the log already said that the budget ran out.
    told: std::cell::Cell<bool>,
}

impl Budget {
    fn spent(&self) -> bool {
        self.started.elapsed() >= self.total
    }

    async fn evaluate(
        &self,
        setting: &Setting<'_>,
        step: &Step,
        position: usize,
        check: &Check,
    ) -> anyhow::Result<CheckReport> {
        if self.spent() {
            return Ok(self.not_graded(step, position, check));
        }
        evaluate_to_report(setting, step, position, check).await
    }

    fn not_graded(&self, step: &Step, position: usize, check: &Check) -> CheckReport {
        let message = format!(
            "{NOT_GRADED} of {:?} (limits.grade) ran out before this check",
            self.total
        );
        if !self.told.replace(true) {
            tracing::warn!(step = step.id, check = %check.id, "{message}; the rest is not graded");
        }
        let mut line = report_line(
            step,
            position,
            check,
            Outcome::fail(message),
            Duration::ZERO,
        );
        // The check's hints would explain a mistake nobody looked for.
        line.hints.clear();
        line
    }
}

/// Runs the step's replay in a copy of the submission; returns a note when it failed.
async fn replay_submission(
    lab: &Lab,
    target: &Target,
    submission: &Path,
    replay: &str,
) -> anyhow::Result<Option<String>> {
    let copy = scratch_copy(submission)?;
    let exec = Exec::new(lab, target);
    let outcome = exec.shell(copy.path(), replay).await;
    target.settle().await;
    if succeeded(&outcome) {
        return Ok(None);
    }
    let output = transcript(&outcome);
    Ok(Some(format!(
        "re-running your step ({}) ended with {}{}",
        replay.trim().lines().collect::<Vec<_>>().join("; "),
        describe_exit(&outcome.exit),
        if output.is_empty() {
            String::new()
        } else {
            format!(":\n{output}")
        }
    )))
}
