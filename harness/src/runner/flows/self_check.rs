//! `check` mode: the learner's live cluster and live lab dir, judged against a shadow reference
//! run (R_n) for scripts and files. No state is restored: the learner's cluster is what it is.

use std::path::Path;
use std::time::Instant;

use crate::cluster::Target;
use crate::report::{Progress, Report};
use crate::runner::checks::evaluate::{evaluate_to_report, push_step, Setting};
use crate::runner::reference::answers::hidden_answers;
use crate::runner::reference::run::ReferenceDirs;
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
    let notes = guidance(lab, options, &steps);
    Ok(Report {
        lab: lab.name().to_string(),
        title: lab.scenario.title.clone(),
        mode: Mode::Check,
        subject: live_dir.display().to_string(),
        learner: None,
        graded_at: crate::report::model::now(),
        proctor_version: crate::report::model::PROCTOR_VERSION.to_string(),
        submission_sha256: None,
        isolation: Some(shadow.isolation.clone()),
        duration: started.elapsed(),
        // A self-check of chosen steps leaves the others out on purpose; only a whole one says
        // which steps have nothing to self-check.
        steps_not_judged: if options.steps.is_empty() {
            crate::report::model::steps_not_judged(lab, &steps)
        } else {
            Vec::new()
        },
        steps,
        notes,
    })
}

/// What a learner should know beyond the checks they ran: the step they are at, what grading
/// judges that a self-check cannot, and how much of it runs on nodes they have not seen.
fn guidance(lab: &Lab, options: &CheckOptions, steps: &[crate::report::StepReport]) -> Vec<String> {
    let mut notes = Vec::new();
    if options.steps.is_empty() {
        match steps.iter().find(|step| !step.passed()) {
            Some(step) => notes.push(format!(
                "You are at step {}: {} (the first step with a failing check).",
                step.id, step.title
            )),
            None => notes.push("Every check you can run here passes.".to_string()),
        }
    }
    let in_scope = lab
        .scenario
        .steps
        .iter()
        .filter(|step| options.steps.is_empty() || options.steps.contains(&step.id));
    let mut unseen = 0.0;
    for step in in_scope {
        let mut named = Vec::new();
        let (mut hidden, mut hidden_points) = (0, 0.0);
        for (k, check) in step.checks.iter().enumerate() {
            if !check.runs_in(Mode::Grade) {
                continue;
            }
            if check.script.as_ref().is_some_and(|script| {
                !script.inject.is_empty()
                    || script.nodes.as_ref().is_some_and(|n| n.include_injected)
            }) {
                unseen += check.points;
            }
            if check.visibility == Visibility::Hidden && !options.include_hidden {
                hidden += 1;
                hidden_points += check.points;
            } else if !check.runs_in(Mode::Check) {
                named.push(format!(
                    "{}.{} {} ({})",
                    step.id,
                    k + 1,
                    check.title,
                    points_word(check.points)
                ));
            }
        }
        if hidden > 0 {
            named.push(format!(
                "{hidden} hidden check{} ({})",
                if hidden == 1 { "" } else { "s" },
                points_word(hidden_points)
            ));
        }
        if !named.is_empty() {
            notes.push(format!(
                "Checked at grading only, in step {}: {}.",
                step.id,
                named.join(", ")
            ));
        }
    }
    if unseen > 0.0 {
        notes.push(format!(
            "{} of grading run your scripts on nodes you have not seen: do not rely on the lab's node names.",
            points_word(unseen)
        ));
    }
    notes
}

fn points_word(points: f64) -> String {
    let n = crate::report::model::points(points);
    if n == "1" {
        "1 point".to_string()
    } else {
        format!("{n} points")
    }
}
