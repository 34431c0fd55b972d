//! `--format json`: Gradescope's autograder `results.json`
//! (fields per Gradescope's "Autograder Specifications": top-level `score`, `execution_time`,
//! `output`, `tests[]` with `score`, `max_score`, `status`, `name`, `number`, `output`,
//! `visibility`).

use serde::Serialize;

use super::model::{CheckReport, Report};
use crate::scenario::Visibility;

#[derive(Serialize)]
struct Results<'a> {
    score: f64,
    max_score: f64,
    execution_time: u64,
    output: String,
    output_format: &'static str,
    test_output_format: &'static str,
    tests: Vec<Test<'a>>,
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
}

fn test(check: &CheckReport) -> Test<'_> {
    Test {
        name: &check.title,
        number: check.number(),
        score: check.score,
        max_score: check.points,
        status: if check.passed { "passed" } else { "failed" },
        output: check.details(),
        // Gradescope's vocabulary: "hidden" would never be shown to a learner, but a hidden
        // check is only hidden while the learner works; once grades are published they see
        // what they lost points for.
        visibility: match check.visibility {
            Visibility::Visible => "visible",
            Visibility::Hidden => "after_published",
        },
        tags: vec![format!("step-{}", check.step), check.id.clone()],
    }
}

pub fn render(report: &Report) -> String {
    let (passed, failed) = report.counts();
    let results = Results {
        score: report.score(),
        max_score: report.max_score(),
        execution_time: report.duration.as_secs(),
        output: format!(
            "{}: {} ({} passed, {} failed){}",
            report.lab,
            report.title,
            passed,
            failed,
            report
                .isolation_note()
                .map(|note| format!("\n{note}"))
                .unwrap_or_default()
        ),
        output_format: "text",
        test_output_format: "text",
        tests: report.checks().map(test).collect(),
    };
    let mut text = serde_json::to_string_pretty(&results).unwrap_or_else(|error| {
        format!("{{\"score\": 0, \"output\": \"cannot serialise results: {error}\"}}")
    });
    text.push('\n');
    text
}
