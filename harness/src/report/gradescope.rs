//! Gradescope's autograder `results.json`. `--format gradescope` has only the fields its
//! "Autograder Specifications" define: top-level `score`, `execution_time`, `output`,
//! `output_format`, `test_output_format`, `extra_data`, and `tests[]` with `score`, `max_score`,
//! `status`, `name`, `number`, `output`, `tags`, `visibility`, `extra_data`; outputs are
//! Markdown, and whatever quotes a learner's output sits in a fenced block, so that nothing in it
//! is rendered. `--format json`, for scripts, is the same with the maximum at the top and
//! plain-text outputs.

use serde::Serialize;

use super::model::{CheckReport, Report};
use super::visible::visible;
use crate::scenario::Visibility;

/// Who reads the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// Gradescope itself.
    Gradescope,
    /// A course's scripts.
    Scripts,
}

#[derive(Serialize)]
struct Results<'a> {
    score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_score: Option<f64>,
    execution_time: u64,
    output: String,
    output_format: &'static str,
    test_output_format: &'static str,
    extra_data: ResultsData<'a>,
    tests: Vec<Test<'a>>,
}

/// What a course's scripts need to match a result to its run.
#[derive(Serialize)]
struct ResultsData<'a> {
    lab: &'a str,
    proctor_version: &'static str,
    isolation: Option<&'a str>,
    max_score: f64,
}

#[derive(Serialize)]
struct Test<'a> {
    name: &'a str,
    number: String,
    score: f64,
    max_score: f64,
    status: &'static str,
    output: String,
    visibility: &'static str,
    tags: Vec<String>,
    extra_data: TestData<'a>,
}

#[derive(Serialize)]
struct TestData<'a> {
    check: &'a str,
    step: u32,
}

/// A fence longer than any run of backticks in `text`, so `text` cannot close it.
fn fenced(info: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{info}\n{}\n{fence}", visible(text.trim_end()))
}

/// A check's message, diff and hints in Markdown: the message and diff quote what the learner's
/// scripts printed and are fenced; hints are the author's words.
fn markdown(check: &CheckReport) -> String {
    let mut parts = Vec::new();
    if !check.message.trim().is_empty() {
        parts.push(fenced("text", &check.message));
    }
    if let Some(diff) = check.diff.as_deref().filter(|d| !d.trim().is_empty()) {
        parts.push(fenced("diff", diff));
    }
    for cause in &check.causes {
        parts.push(format!(
            "> **Cause:** {}",
            visible(cause).replace('\n', "\n> ")
        ));
    }
    for hint in &check.hints {
        parts.push(format!(
            "> **Hint:** {}",
            visible(hint).replace('\n', "\n> ")
        ));
    }
    parts.join("\n\n")
}

fn test(check: &CheckReport, flavor: Flavor) -> Test<'_> {
    Test {
        name: &check.title,
        number: check.number(),
        score: check.score,
        max_score: check.points,
        status: if check.passed { "passed" } else { "failed" },
        output: match flavor {
            Flavor::Gradescope => markdown(check),
            Flavor::Scripts => check.details(),
        },
        // Gradescope's vocabulary: "hidden" would never be shown to a learner, but a hidden
        // check is only hidden while the learner works; once grades are published they see
        // what they lost points for. The bundle may choose otherwise (`--hidden-checks`).
        visibility: match check.visibility {
            Visibility::Visible => "visible",
            Visibility::Hidden => "after_published",
        },
        tags: vec![format!("step-{}", check.step), check.id.clone()],
        extra_data: TestData {
            check: &check.id,
            step: check.step,
        },
    }
}

pub fn render(report: &Report, flavor: Flavor) -> String {
    let (passed, failed) = report.counts();
    let (bold, italic, gap, format) = match flavor {
        Flavor::Gradescope => ("**", "_", "\n\n", "md"),
        Flavor::Scripts => ("", "", "\n", "text"),
    };
    let mut output = format!(
        "{bold}{}: {}{bold} ({} passed, {} failed)",
        visible(&report.lab),
        visible(&report.title),
        passed,
        failed
    );
    if let Some(note) = report.isolation_note() {
        output.push_str(&format!("{gap}{italic}{note}{italic}"));
    }
    // Each test shows its causes in full (tests are read one by one); the summary says once
    // which one mistake cost several of them.
    for cause in report.root_causes() {
        output.push_str(&format!("{gap}{bold}{}{bold}", visible(&cause.sentence())));
    }
    let results = Results {
        score: report.score(),
        max_score: (flavor == Flavor::Scripts).then(|| report.max_score()),
        execution_time: report.duration.as_secs(),
        output,
        output_format: format,
        test_output_format: format,
        extra_data: ResultsData {
            lab: &report.lab,
            proctor_version: env!("CARGO_PKG_VERSION"),
            isolation: report.isolation.as_deref(),
            max_score: report.max_score(),
        },
        tests: report.checks().map(|check| test(check, flavor)).collect(),
    };
    let mut text = serde_json::to_string_pretty(&results).unwrap_or_else(|error| {
        format!("{{\"score\": 0, \"output\": \"cannot serialise results: {error}\"}}")
    });
    text.push('\n');
    text
}
