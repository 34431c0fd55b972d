//! `check` mode: the learner's live cluster and live lab dir, judged against a shadow reference
//! run (R_n) for scripts and files. No state is restored: the learner's cluster is what it is.

use std::path::Path;
use std::time::Instant;

use super::answers::hidden_answers;
use super::evaluate::{evaluate_to_report, push_step, Setting};
use super::reference::ReferenceDirs;
use crate::cluster::Target;
use crate::report::{Progress, Report};
use crate::scenario::{Lab, Mode, Visibility};

pub struct CheckOptions {
    /// Only these step ids; all steps when empty.
    pub steps: Vec<u32>,
    /// Hidden checks too (selftest); a learner's self-check sees visible checks only.
    pub include_hidden: bool,
}

pub async fn self_check(
    lab: &Lab,
    live: &Target,
    live_dir: &Path,
    shadow: &ReferenceDirs,
    options: &CheckOptions,
    progress: &mut dyn Progress,
) -> anyhow::Result<Report> {
    let started = Instant::now();
    let steps_total = lab.scenario.steps.len();
    let mut steps = Vec::new();
    for (index, step) in lab.scenario.steps.iter().enumerate() {
        if !options.steps.is_empty() && !options.steps.contains(&step.id) {
            continue;
        }
        progress.step_started(step.id, steps_total, &step.title);
        let reference_dir = shadow.dir(index + 1)?;
        let answers = hidden_answers(&lab.scenario, index, |k| shadow.dir(k).ok());
        let setting = Setting {
            lab,
            target: live,
            learner_dir: live_dir,
            reference_dir,
            answers: &answers,
            replay_note: None,
        };
        let mut lines = Vec::new();
        for (k, check) in step.checks.iter().enumerate() {
            if !check.runs_in(Mode::Check)
                || (check.visibility == Visibility::Hidden && !options.include_hidden)
            {
                continue;
            }
            lines.push(evaluate_to_report(&setting, step, k + 1, check).await?);
        }
        push_step(&mut steps, step, lines, steps_total, progress);
    }
    Ok(Report {
        lab: lab.name().to_string(),
        title: lab.scenario.title.clone(),
        mode: Mode::Check,
        subject: live_dir.display().to_string(),
        steps,
        isolation: Some(shadow.isolation.clone()),
        duration: started.elapsed(),
    })
}
