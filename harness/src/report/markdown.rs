//! `--format markdown`: a summary table per step and the failure details, for PR comments or
//! LMS feedback pages.

use std::fmt::Write;

use super::model::{points, Report};
use super::visible::visible;
use crate::scenario::Mode;

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

pub fn render(report: &Report) -> String {
    let (passed, failed) = report.counts();
    let mut md = String::new();
    let _ = writeln!(md, "# {}: {}\n", report.lab, report.title);
    let _ = writeln!(
        md,
        "**Score: {} / {}** — {} passed, {} failed\n",
        points(report.score()),
        points(report.max_score()),
        passed,
        failed
    );
    header(&mut md, report);
    if let Some(note) = report.isolation_note() {
        let _ = writeln!(md, "_{note}_\n");
    }
    if let Some(note) = report.steps_not_judged_note() {
        let _ = writeln!(md, "_{note}_\n");
    }
    let shared = report.root_causes();
    for step in &report.steps {
        let _ = writeln!(
            md,
            "## Step {}: {} ({} / {})\n",
            step.id,
            step.title,
            points(step.score()),
            points(step.max_score())
        );
        md.push_str("| # | Check | Result | Points |\n|---|---|---|---|\n");
        for check in &step.checks {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} / {} |",
                check.number(),
                cell(&check.title),
                if check.passed {
                    "✅ passed"
                } else {
                    "❌ failed"
                },
                points(check.score),
                points(check.points)
            );
        }
        md.push('\n');
        for check in step.checks.iter().filter(|check| !check.passed) {
            let _ = writeln!(
                md,
                "<details><summary>{} {}</summary>\n",
                check.number(),
                cell(&check.title)
            );
            // Messages, diffs and hints quote the learner's output: shown, never obeyed.
            let _ = writeln!(md, "{}\n", visible(&check.message));
            if let Some(diff) = check.diff.as_deref().filter(|diff| !diff.trim().is_empty()) {
                let _ = writeln!(md, "```diff\n{}\n```\n", visible(diff.trim_end()));
            }
            for cause in &check.causes {
                let line = report.cause_line(check, cause, &shared);
                let _ = writeln!(md, "> **Cause:** {}\n", visible(&line));
            }
            for hint in &check.hints {
                let _ = writeln!(md, "> **Hint:** {}\n", visible(hint));
            }
            md.push_str("</details>\n\n");
        }
    }
    for cause in &shared {
        let _ = writeln!(md, "- **{}**", cell(&visible(&cause.sentence())));
    }
    for note in &report.notes {
        let _ = writeln!(md, "- {}", cell(note));
    }
    md
}

/// The report's facts as a two-column table: what a TA needs to stand behind a grade.
fn header(md: &mut String, report: &Report) {
    let mut rows: Vec<(&str, String)> = Vec::new();
    if let Some(learner) = &report.learner {
        rows.push(("Learner", cell(&visible(learner))));
    }
    let what = match report.mode {
        Mode::Grade => "Submission",
        Mode::Check => "Lab folder",
    };
    rows.push((
        what,
        format!("`{}`", cell(&visible(&report.subject)).replace('`', "'")),
    ));
    let when = match report.mode {
        Mode::Grade => "Graded at",
        Mode::Check => "Checked at",
    };
    rows.push((when, report.graded_at.clone()));
    rows.push(("Proctor", report.proctor_version.clone()));
    if let Some(digest) = &report.submission_sha256 {
        rows.push(("Files (SHA-256)", format!("`{digest}`")));
    }
    if let Some(isolation) = &report.isolation {
        rows.push(("Isolation", cell(isolation)));
    }
    rows.push((
        "Duration",
        format!("{:.1} s", report.duration.as_secs_f64()),
    ));
    md.push_str("| | |\n|---|---|\n");
    for (name, value) in rows {
        let _ = writeln!(md, "| {name} | {value} |");
    }
    md.push('\n');
}
