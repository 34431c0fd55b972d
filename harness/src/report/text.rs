//! `--format text` (the default): every check with ✓/✗, failure details with unified diffs and
//! hints, then the score.

use std::fmt::Write;

use super::model::{points, Report};
use super::style::Style;
use super::visible::visible;
use crate::scenario::Mode;

pub fn render(report: &Report, style: Style) -> String {
    let mut out = String::new();
    let what = match report.mode {
        Mode::Grade => "grading",
        Mode::Check => "self-check",
    };
    let _ = writeln!(
        out,
        "{} {}",
        style.bold(&format!("{}: {}", report.lab, report.title)),
        style.dim(&format!("({what} of {})", report.subject))
    );
    if report.mode == Mode::Grade {
        let _ = writeln!(out, "{}", style.dim(&provenance(report)));
    }
    if let Some(note) = report.steps_not_judged_note() {
        let _ = writeln!(out, "{}", style.dim(&note));
    }
    let shared = report.root_causes();
    for step in &report.steps {
        let _ = writeln!(
            out,
            "\n{} {}",
            style.bold(&format!("Step {}: {}", step.id, step.title)),
            style.dim(&format!(
                "[{} / {}]",
                points(step.score()),
                points(step.max_score())
            ))
        );
        for check in &step.checks {
            let mark = if check.passed {
                style.pass_mark()
            } else {
                style.fail_mark()
            };
            let _ = writeln!(
                out,
                "  {mark} {} {} {}",
                check.number(),
                check.title,
                style.dim(&format!(
                    "[{} / {}]",
                    points(check.score),
                    points(check.points)
                ))
            );
            if check.passed {
                continue;
            }
            // Messages, diffs and hints quote the learner's output: shown, never obeyed.
            for line in check.message.lines() {
                let _ = writeln!(out, "      {}", visible(line));
            }
            if let Some(diff) = &check.diff {
                for line in diff.lines() {
                    let _ = writeln!(out, "      {}", style.diff_line(&visible(line)));
                }
            }
            for cause in &check.causes {
                let line = report.cause_line(check, cause, &shared);
                let _ = writeln!(
                    out,
                    "      {}",
                    style.hint(&format!("cause: {}", visible(&line)))
                );
            }
            for hint in &check.hints {
                let _ = writeln!(
                    out,
                    "      {}",
                    style.hint(&format!("hint: {}", visible(hint)))
                );
            }
        }
    }
    let (passed, failed) = report.counts();
    let isolation = match report.isolation.as_deref() {
        Some("none") => ", scripts ran WITHOUT isolation".to_string(),
        Some(kind) => format!(", scripts isolated with {kind}"),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "\n{} {}",
        style.bold(&format!(
            "Score: {} / {}",
            points(report.score()),
            points(report.max_score())
        )),
        style.dim(&format!(
            "({passed} passed, {failed} failed, {:.1}s{isolation})",
            report.duration.as_secs_f64()
        ))
    );
    for cause in &shared {
        let _ = writeln!(out, "{}", style.hint(&visible(&cause.sentence())));
    }
    for note in &report.notes {
        let _ = writeln!(out, "{note}");
    }
    out
}

/// Who, when, by what and on which files: what a TA needs to stand behind a grade.
fn provenance(report: &Report) -> String {
    let mut parts = Vec::new();
    if let Some(learner) = &report.learner {
        parts.push(format!("learner {}", visible(learner)));
    }
    parts.push(format!("graded {}", report.graded_at));
    parts.push(format!("Proctor {}", report.proctor_version));
    if let Some(digest) = &report.submission_sha256 {
        parts.push(format!("files sha256 {digest}"));
    }
    parts.join(" · ")
}
