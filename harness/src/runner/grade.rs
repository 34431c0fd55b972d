//! `grade` mode: a submitted lab dir judged step by step against the reference states.
//!
//! For step n: restore S_{n-1}, replay the learner's cluster actions from their files, judge
//! objects and manifests; restore S_n, judge scripts (learner's script overlaid on R_n vs R_n)
//! and files (learner's file vs R_n's).

use std::path::Path;
use std::time::Instant;

use anyhow::Context;

use super::answers::hidden_answers;
use super::evaluate::{evaluate_to_report, judged_before_step, Setting};
use super::exec::{describe_exit, succeeded, transcript, Exec};
use super::reference::ReferenceRun;
use super::workdir::scratch_copy;
use crate::cluster::Target;
use crate::report::{CheckReport, Progress, Report, StepReport};
use crate::scenario::{Lab, Mode};

pub async fn grade(
    lab: &Lab,
    target: &Target,
    reference: &ReferenceRun,
    submission: &Path,
    progress: &mut dyn Progress,
) -> anyhow::Result<Report> {
    let started = Instant::now();
    let steps_total = lab.scenario.steps.len();
    let mut steps = Vec::new();
    for (index, step) in lab.scenario.steps.iter().enumerate() {
        progress.step_started(step.id, steps_total, &step.title);
        let before = reference.state(index)?;
        let after = reference.state(index + 1)?;
        let graded: Vec<(usize, &crate::scenario::Check)> = step
            .checks
            .iter()
            .enumerate()
            .filter(|(_, check)| check.runs_in(Mode::Grade))
            .map(|(k, check)| (k + 1, check))
            .collect();
        let mut lines: Vec<CheckReport> = Vec::new();

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
            lines.push(evaluate_to_report(&setting, step, *position, check).await?);
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
            lines.push(evaluate_to_report(&setting, step, *position, check).await?);
        }

        lines.sort_by_key(|line| line.position);
        if lines.is_empty() {
            // Only live-cluster checks (labels set by hand): nothing to grade from files.
            continue;
        }
        let step_report = StepReport {
            id: step.id,
            title: step.title.clone(),
            checks: lines,
        };
        progress.step_finished(&step_report, steps_total);
        steps.push(step_report);
    }
    Ok(Report {
        lab: lab.name().to_string(),
        title: lab.scenario.title.clone(),
        mode: Mode::Grade,
        subject: submission.display().to_string(),
        steps,
        isolation: Some(reference.isolation.to_string()),
        duration: started.elapsed(),
    })
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
