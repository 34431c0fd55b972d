//! `selftest`: proves a scenario can tell done from not done. For every step n, in check mode
//! on a private cluster, step n's checks must fail on (S_{n-1}, R_{n-1}) and pass on (S_n, R_n);
//! the reference solution must grade full marks, an empty submission must fail every step that
//! owns artifacts, each bundled submission must meet its expect.yaml, and grading twice must
//! give the same report. Run on two runtimes, every submission it graded must get the same
//! verdict on every check on both ([`same_grades`]).

use std::path::Path;

use anyhow::Context;

use crate::cluster::Target;
use crate::report::{Progress, Report, Silent};
use crate::runner::flows::grade::grade;
use crate::runner::flows::self_check::{self_check, CheckOptions};
use crate::runner::reference::run::{copy_starter, ReferenceRun};
use crate::runner::reference::shadow::grading_reference;
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

/// What a selftest found: its lines, and the reports of the submissions it graded (the
/// reference solution, the empty submission, each bundled one), by name.
pub struct Selftest {
    pub lines: Vec<SelftestLine>,
    pub graded: Vec<(String, Report)>,
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
) -> anyhow::Result<Selftest> {
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
    let mut graded = Vec::new();
    lines.extend(grading_lines(lab, target, &reference, progress, &mut graded).await?);
    if options.submissions {
        lines.extend(submission_lines(lab, target, &reference, progress, &mut graded).await?);
    }
    Ok(Selftest { lines, graded })
}

/// A check's verdict, as two runtimes must agree on it.
fn verdicts(report: &Report) -> Vec<(String, &str, bool, String)> {
    report
        .checks()
        .map(|check| {
            let score = format!("{}/{}", check.score, check.points);
            (check.number(), check.title.as_str(), check.passed, score)
        })
        .collect()
}

/// One line per submission graded on both runtimes: the same verdict and score on every check,
/// or the checks that differ.
pub fn same_grades(
    (first, on_first): (&str, &Selftest),
    (second, on_second): (&str, &Selftest),
) -> Vec<SelftestLine> {
    let mark = |passed: bool| if passed { "passes" } else { "fails" };
    let only_on = |name: &str, runtime: &str| SelftestLine {
        name: format!("{name} grades the same on {first} and {second}"),
        passed: false,
        detail: format!("graded on {runtime} only"),
    };
    let missing_on_first = on_second
        .graded
        .iter()
        .filter(|(name, _)| !on_first.graded.iter().any(|(n, _)| n == name))
        .map(|(name, _)| only_on(name, second));
    on_first
        .graded
        .iter()
        .map(|(name, report)| {
            let Some((_, other)) = on_second.graded.iter().find(|(n, _)| n == name) else {
                return only_on(name, first);
            };
            let (a, b) = (verdicts(report), verdicts(other));
            let differing: Vec<String> = a
                .iter()
                .zip(&b)
                .filter(|(x, y)| x != y)
                .map(
                    |((number, title, passed, score), (_, _, other_passed, other_score))| {
                        format!(
                        "{number} {title}: {} on {first} ({score}), {} on {second} ({other_score})",
                        mark(*passed),
                        mark(*other_passed)
                    )
                    },
                )
                .collect();
            let detail = if a.len() != b.len() {
                format!("{} checks on {first}, {} on {second}", a.len(), b.len())
            } else {
                differing.join("\n")
            };
            SelftestLine {
                name: format!("{name} grades the same on {first} and {second}"),
                passed: detail.is_empty(),
                detail,
            }
        })
        .chain(missing_on_first)
        .collect()
}

async fn grading_lines(
    lab: &Lab,
    target: &Target,
    reference: &ReferenceRun,
    progress: &mut dyn Progress,
    graded: &mut Vec<(String, Report)>,
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
    graded.push(("the reference solution".to_string(), first));
    graded.push(("an empty submission".to_string(), report));
    Ok(lines)
}

/// Each bundled submission graded and held to its expect.yaml.
async fn submission_lines(
    lab: &Lab,
    target: &Target,
    reference: &ReferenceRun,
    progress: &mut dyn Progress,
    graded: &mut Vec<(String, Report)>,
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
        graded.push((format!("submission {}", case.name), report));
    }
    Ok(lines)
}

/// Whether `dir` is a usable submission directory.
pub fn is_submission(dir: &Path) -> bool {
    dir.is_dir()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample;

    fn graded(reports: Vec<(&str, Report)>) -> Selftest {
        Selftest {
            lines: Vec::new(),
            graded: reports
                .into_iter()
                .map(|(name, report)| (name.to_string(), report))
                .collect(),
        }
    }

    #[test]
    fn runtimes_agree_when_every_check_has_the_same_verdict_and_score() {
        let mut other = sample();
        // Messages and times may differ between runtimes; verdicts may not.
        other.steps[0].checks[1].message = "worded otherwise".to_string();
        other.duration = std::time::Duration::from_secs(40);
        let a = graded(vec![("submission x", sample()), ("only here", sample())]);
        let b = graded(vec![("submission x", other)]);
        let lines = same_grades(("embedded", &a), ("kwokctl", &b));
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[0].name,
            "submission x grades the same on embedded and kwokctl"
        );
        assert!(lines[0].passed, "{}", lines[0].detail);
        assert!(
            !lines[1].passed,
            "a report graded on one runtime only fails"
        );
        assert_eq!(lines[1].detail, "graded on embedded only");
    }

    #[test]
    fn a_check_with_another_verdict_is_named_with_both() {
        let mut other = sample();
        let check = &mut other.steps[1].checks[0];
        check.passed = false;
        check.score = 0.0;
        let a = graded(vec![("submission x", sample())]);
        let b = graded(vec![("submission x", other)]);
        let lines = same_grades(("embedded", &a), ("kwokctl", &b));
        assert!(!lines[0].passed);
        assert_eq!(
            lines[0].detail,
            "2.1 check <2.1> & co: passes on embedded (2/2), fails on kwokctl (0/2)"
        );
    }
}
