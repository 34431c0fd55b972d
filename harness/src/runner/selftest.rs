//! `selftest`: proves a scenario can tell done from not done. For every step n, in check mode
//! on a private cluster, step n's checks must fail on (S_{n-1}, R_{n-1}) and pass on (S_n, R_n);
//! the reference solution must grade full marks, an empty submission must fail every step that
//! owns artifacts, each bundled submission must meet its expect.yaml, and grading twice must
//! give the same report.

use std::path::Path;

use anyhow::Context;

use super::grade::grade;
use super::reference::{copy_starter, ReferenceRun};
use super::self_check::{self_check, CheckOptions};
use super::shadow::grading_reference;
use crate::cluster::Target;
use crate::report::{Progress, Report, Silent};
use crate::scenario::Lab;
use crate::tree::copy_dir;

#[derive(Debug, Clone)]
pub struct SelftestLine {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

/// Lines of a failing check's explanation and diff shown by selftest; the rest are
/// counted, so a runaway diff cannot bury the summary.
const DETAIL_LINES: usize = 24;

fn failing_checks(report: &Report) -> String {
    report
        .checks()
        .filter(|check| !check.passed)
        .map(|check| {
            let mut lines = check.message.lines();
            let mut text = format!(
                "{} {}: {}",
                check.number(),
                check.title,
                lines.next().unwrap_or("")
            );
            let rest: Vec<&str> = lines
                .chain(check.diff.iter().flat_map(|d| d.lines()))
                .collect();
            for line in rest.iter().take(DETAIL_LINES) {
                text.push_str("\n  ");
                text.push_str(line);
            }
            if rest.len() > DETAIL_LINES {
                text.push_str(&format!("\n  … {} more lines", rest.len() - DETAIL_LINES));
            }
            text
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What two gradings must agree on: the steps' checks (no times, no digests).
fn canonical(report: &Report) -> String {
    serde_json::to_string(&report.steps).unwrap_or_default()
}

/// What a selftest covers.
#[derive(Debug, Clone, Copy)]
pub struct SelftestOptions {
    /// A cached reference run of the same scenario files, tools and build stands in for running
    /// the reference again, as it does for `grade`.
    pub use_cache: bool,
    /// Grade the bundled submissions against their expect.yaml (what `demo` also does).
    pub submissions: bool,
}

pub async fn selftest(
    lab: &Lab,
    target: &Target,
    options: SelftestOptions,
    progress: &mut dyn Progress,
) -> anyhow::Result<Vec<SelftestLine>> {
    let reference = grading_reference(lab, target, options.use_cache, progress).await?;
    let shadow = reference.dirs();
    let mut lines = Vec::new();
    for (index, step) in lab.scenario.steps.iter().enumerate() {
        progress.phase(&format!("{}: self-testing step {}", lab.name(), step.id));
        let options = CheckOptions {
            steps: vec![step.id],
            include_hidden: true,
        };
        let before = reference.state(index)?;
        target.restore(&before.snapshot).await?;
        let report = self_check(lab, target, &before.dir, &shadow, &options, &mut Silent).await?;
        let checks = report.checks().count();
        lines.push(SelftestLine {
            name: format!("step {} fails before it is done", step.id),
            passed: checks == 0 || !report.passed(),
            detail: if checks == 0 {
                "no check runs in check mode".to_string()
            } else if report.passed() {
                "every check already passes on the state before the step".to_string()
            } else {
                String::new()
            },
        });
        let after = reference.state(index + 1)?;
        target.restore(&after.snapshot).await?;
        let report = self_check(lab, target, &after.dir, &shadow, &options, &mut Silent).await?;
        lines.push(SelftestLine {
            name: format!("step {} passes when done", step.id),
            passed: report.passed(),
            detail: failing_checks(&report),
        });
    }
    lines.extend(grading_lines(lab, target, &reference, progress).await?);
    if options.submissions {
        lines.extend(submission_lines(lab, target, &reference, progress).await?);
    }
    Ok(lines)
}

async fn grading_lines(
    lab: &Lab,
    target: &Target,
    reference: &ReferenceRun,
    progress: &mut dyn Progress,
) -> anyhow::Result<Vec<SelftestLine>> {
    let mut lines = Vec::new();
    progress.phase(&format!("{}: grading the reference solution", lab.name()));
    let solved = tempfile::Builder::new()
        .prefix("proctor-solved-")
        .tempdir()
        .context("creating a directory")?;
    // What `proctor solve` leaves is what the reference run left in its lab dir (the same shells
    // on the same starter files): grade that, rather than run the whole reference a second time.
    let last = reference.state(lab.scenario.steps.len())?;
    copy_dir(&last.dir, solved.path())?;
    let first = grade(lab, target, reference, solved.path(), &mut Silent).await?;
    lines.push(SelftestLine {
        name: "the reference solution grades full marks".to_string(),
        passed: first.passed(),
        detail: failing_checks(&first),
    });
    let second = grade(lab, target, reference, solved.path(), &mut Silent).await?;
    lines.push(SelftestLine {
        name: "grading twice gives the same report".to_string(),
        passed: canonical(&first) == canonical(&second),
        detail: if canonical(&first) == canonical(&second) {
            String::new()
        } else {
            "the two reports differ".to_string()
        },
    });

    progress.phase(&format!("{}: grading an empty submission", lab.name()));
    let empty = tempfile::Builder::new()
        .prefix("proctor-empty-")
        .tempdir()
        .context("creating a directory")?;
    copy_starter(lab, empty.path(), true)?;
    let report = grade(lab, target, reference, empty.path(), &mut Silent).await?;
    let failing = report.failing_steps();
    let should_fail: Vec<u32> = lab
        .scenario
        .steps
        .iter()
        .filter(|step| !step.artifacts.is_empty())
        .map(|step| step.id)
        .collect();
    let missed: Vec<String> = should_fail
        .iter()
        .filter(|id| !failing.contains(id))
        .map(u32::to_string)
        .collect();
    lines.push(SelftestLine {
        name: "an empty submission fails every step with artifacts".to_string(),
        passed: missed.is_empty(),
        detail: if missed.is_empty() {
            String::new()
        } else {
            format!("steps that pass anyway: {}", missed.join(", "))
        },
    });
    Ok(lines)
}

/// Each bundled submission graded and held to its expect.yaml.
async fn submission_lines(
    lab: &Lab,
    target: &Target,
    reference: &ReferenceRun,
    progress: &mut dyn Progress,
) -> anyhow::Result<Vec<SelftestLine>> {
    let mut lines = Vec::new();
    for case in lab.bundled_submissions()? {
        progress.phase(&format!("{}: grading submission {}", lab.name(), case.name));
        let report = grade(lab, target, reference, &case.dir, &mut Silent).await?;
        let failing = report.failing_steps();
        lines.push(SelftestLine {
            name: format!("submission {} gets {}", case.name, case.expect),
            passed: case.expect.holds(&failing),
            detail: format!(
                "failing steps: [{}]\n{}",
                failing
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                failing_checks(&report)
            ),
        });
    }
    Ok(lines)
}

/// Whether `dir` is a usable submission directory.
pub fn is_submission(dir: &Path) -> bool {
    dir.is_dir()
}
