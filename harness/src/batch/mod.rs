//! Grading a course: every submission of a folder, several at once, each on its own embedded
//! cluster restored from the same reference run, into one report per submission and a gradebook.
//!
//! The pieces are small and apart: [`submissions`] lists and fingerprints the submissions,
//! [`shard`] picks a machine's share of them, [`ledger`] remembers what was graded with which
//! inputs, [`gradebook`] writes and merges the result; this module runs the workers.

pub mod class_report;
pub mod gradebook;
pub mod ledger;
pub mod progress;
pub mod roster;
pub mod shard;
pub mod submissions;

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use futures::FutureExt;

use crate::cluster::Target;
use crate::report::{self, Format, Report, Silent, Style};
use crate::runner::{grade, ReferenceRun};
use crate::scenario::{Lab, Mode};
use gradebook::{Row, Status};
use ledger::{Entry, Ledger};
use progress::BatchProgress;
use submissions::Submission;

/// What every grading of the batch shares.
pub struct Batch<'a> {
    pub lab: &'a Lab,
    pub reference: &'a ReferenceRun,
    pub format: Format,
    /// Where each submission's report goes, and the ledger.
    pub reports: &'a Path,
}

/// A submission to grade, with the key of its inputs (see [`ledger::inputs_key`]).
pub struct Pending {
    pub submission: Submission,
    pub inputs: String,
}

/// The points a submission can score in grade mode.
pub fn max_score(lab: &Lab) -> f64 {
    crate::report::model::total(
        lab.scenario
            .steps
            .iter()
            .flat_map(|step| step.checks.iter())
            .filter(|check| check.runs_in(Mode::Grade))
            .map(|check| check.points),
    )
}

/// The report file of a submission in the reports folder.
pub fn report_name(name: &str, format: Format) -> String {
    let extension = match format {
        Format::Text => "txt",
        Format::Json | Format::Gradescope => "json",
        Format::ReportJson => "report.json",
        Format::Junit => "xml",
        Format::Markdown => "md",
    };
    format!("{name}.{extension}")
}

/// Splits the submissions into rows known without a cluster (malformed ones; with `resume`,
/// those the ledger holds with the same inputs) and the ones to grade.
pub fn plan(
    lab: &Lab,
    submissions: Vec<Submission>,
    setting: &str,
    ledger: &Ledger,
    reports: &Path,
    resume: bool,
) -> (Vec<Row>, Vec<Pending>) {
    let reference_key = crate::runner::reference::cache::cache_key(lab);
    let max = max_score(lab);
    let mut known = Vec::new();
    let mut pending = Vec::new();
    for submission in submissions {
        if let Some(why) = submissions::malformed(&submission) {
            known.push(Row::ungraded(&submission.name, Status::Malformed, max, why));
            continue;
        }
        let digest = match submissions::digest(&submission.path) {
            Ok(digest) => digest,
            Err(refused) => {
                let why = refused.to_string();
                known.push(Row::ungraded(&submission.name, Status::Malformed, max, why));
                continue;
            }
        };
        // After the digest, which refuses trees too deep or too large to walk.
        if submissions::is_empty(&submission.path) {
            let why = "the folder holds no file: nothing was handed in".to_string();
            known.push(Row::ungraded(&submission.name, Status::Empty, max, why));
            continue;
        }
        let inputs = ledger::inputs_key(&reference_key, setting, &digest);
        match ledger.reusable(reports, &submission.name, &inputs) {
            Some(row) if resume => {
                tracing::info!(submission = %submission.name, "already graded with the same inputs");
                known.push(row.clone());
            }
            _ => pending.push(Pending { submission, inputs }),
        }
    }
    (known, pending)
}

/// Grades `pending` with one worker per target, each taking the next submission when it is done
/// with one. A submission whose grading fails (or panics) is an `error` row; the batch goes on.
/// Every row is recorded in `ledger` (saved after each) and shown on `progress`.
pub async fn grade_pending(
    batch: &Batch<'_>,
    targets: &[Target],
    pending: Vec<Pending>,
    ledger: &Mutex<Ledger>,
    progress: &BatchProgress,
) -> Vec<Row> {
    let queue = Mutex::new(VecDeque::from(pending));
    let rows = Mutex::new(Vec::new());
    let workers = targets.iter().enumerate().map(|(worker, target)| {
        let (queue, rows) = (&queue, &rows);
        async move {
            loop {
                // A worker that panicked holding a lock is caught below; its data is still sound.
                let next = queue
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .pop_front();
                let Some(next) = next else { break };
                let started = Instant::now();
                tracing::info!(worker, submission = %next.submission.name, "grading");
                let row = grade_one(batch, target, &next.submission).await;
                let took = started.elapsed();
                tracing::info!(
                    worker,
                    submission = %next.submission.name,
                    status = %row.status,
                    ?took,
                    "graded"
                );
                record(batch, ledger, &next, &row);
                progress.finished(&row, Some(took));
                rows.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(row);
            }
        }
    });
    futures::future::join_all(workers).await;
    rows.into_inner().unwrap_or_else(PoisonError::into_inner)
}

async fn grade_one(batch: &Batch<'_>, target: &Target, submission: &Submission) -> Row {
    let lab = batch.lab;
    let graded = std::panic::AssertUnwindSafe(grade(
        lab,
        target,
        batch.reference,
        &submission.path,
        &mut Silent,
    ))
    .catch_unwind()
    .await;
    let failed = |why: String| Row::ungraded(&submission.name, Status::Error, max_score(lab), why);
    let report = match graded {
        Ok(Ok(report)) => Report {
            learner: Some(submission.name.clone()),
            ..report
        },
        Ok(Err(error)) => return failed(format!("{error:#}")),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|text| text.to_string()))
                .unwrap_or_default();
            return failed(format!("Proctor failed while grading it (a bug): {what}"));
        }
    };
    let text = report::render(&report, batch.format, Style::plain());
    let file = batch
        .reports
        .join(report_name(&submission.name, batch.format));
    // Through a rename: a report cut short by a crash must not be taken for a whole one.
    let temporary = file.with_extension(format!("{}.tmp", std::process::id()));
    let written =
        std::fs::write(&temporary, text).and_then(|()| std::fs::rename(&temporary, &file));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return failed(format!("writing the report {}: {error}", file.display()));
    }
    if let Err(error) = class_report::save_result(batch.reports, &submission.name, &report) {
        // The grade stands; only the class report will lack this learner's checks.
        tracing::warn!("{error:#}");
    }
    Row::from_report(&submission.name, &report)
}

fn record(batch: &Batch<'_>, ledger: &Mutex<Ledger>, pending: &Pending, row: &Row) {
    let mut ledger = ledger.lock().unwrap_or_else(PoisonError::into_inner);
    ledger.entries.insert(
        pending.submission.name.clone(),
        Entry {
            inputs: pending.inputs.clone(),
            report: report_name(&pending.submission.name, batch.format),
            row: row.clone(),
        },
    );
    if let Err(error) = ledger.save(batch.reports) {
        tracing::warn!("the batch ledger was not saved, --resume will grade again: {error:#}");
    }
}
