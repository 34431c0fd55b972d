//! Format tests: field names and values as Gradescope and JUnit consumers read them.

use std::time::Duration;

use serde_json::Value;

use super::*;
use crate::scenario::{Mode, Visibility};

fn check(step: u32, position: usize, passed: bool, visibility: Visibility) -> CheckReport {
    CheckReport {
        step,
        position,
        id: format!("c{position}"),
        title: format!("check <{step}.{position}> & co"),
        points: 2.0,
        score: if passed { 2.0 } else { 0.0 },
        passed,
        visibility,
        message: if passed {
            String::new()
        } else {
            "out/tags.txt differs from the reference".to_string()
        },
        diff: (!passed)
            .then(|| "--- expected\n+++ actual\n@@ -1 +1 @@\n-550\n+550.90.07\n".to_string()),
        hints: if passed {
            vec![]
        } else {
            vec!["Use the driver branch.".to_string()]
        },
        causes: Vec::new(),
        duration: Duration::from_millis(250),
    }
}

pub(crate) fn sample() -> Report {
    Report {
        lab: "gpudrv".to_string(),
        title: "Driver lab".to_string(),
        mode: Mode::Grade,
        subject: "submissions/x".to_string(),
        learner: Some("ada".to_string()),
        graded_at: "2026-12-05T13:00:00Z".to_string(),
        proctor_version: "9.9.9".to_string(),
        submission_sha256: Some("ab".repeat(32)),
        steps_not_judged: vec![3],
        steps: vec![
            StepReport {
                id: 1,
                title: "Node facts".to_string(),
                checks: vec![
                    check(1, 1, true, Visibility::Visible),
                    check(1, 2, false, Visibility::Hidden),
                ],
            },
            StepReport {
                id: 2,
                title: "Tag tool".to_string(),
                checks: vec![check(2, 1, true, Visibility::Visible)],
            },
        ],
        isolation: Some("bubblewrap".to_string()),
        duration: Duration::from_secs(3),
        notes: Vec::new(),
    }
}

#[test]
fn totals() {
    let report = sample();
    assert_eq!(report.score(), 4.0);
    assert_eq!(report.max_score(), 6.0);
    assert_eq!(report.counts(), (2, 1));
    assert_eq!(report.failing_steps(), vec![1]);
    assert!(!report.passed());
}

#[test]
fn gradescope_results_json() {
    let json: Value = serde_json::from_str(&gradescope::render(
        &sample(),
        gradescope::Flavor::Gradescope,
    ))
    .expect("valid JSON");
    assert_eq!(json["score"], 4.0);
    // Only the fields Gradescope defines: the maximum is the tests', and in extra_data.
    assert!(json.get("max_score").is_none(), "{json:#}");
    assert_eq!(json["extra_data"]["max_score"], 6.0);
    assert_eq!(json["extra_data"]["lab"], "gpudrv");
    assert_eq!(json["output_format"], "md");
    assert_eq!(json["test_output_format"], "md");
    assert_eq!(json["execution_time"], 3);
    let tests = json["tests"].as_array().expect("tests array");
    assert_eq!(tests.len(), 3);
    assert_eq!(tests[0]["number"], "1.1");
    assert_eq!(tests[0]["status"], "passed");
    assert_eq!(tests[0]["score"], 2.0);
    assert_eq!(tests[0]["max_score"], 2.0);
    assert_eq!(tests[0]["visibility"], "visible");
    assert_eq!(tests[0]["name"], "check <1.1> & co");
    assert_eq!(tests[1]["number"], "1.2");
    assert_eq!(tests[1]["status"], "failed");
    assert_eq!(tests[1]["score"], 0.0);
    assert_eq!(tests[1]["visibility"], "after_published");
    assert_eq!(tests[1]["extra_data"]["step"], 1);
    let output = tests[1]["output"].as_str().expect("output string");
    assert!(
        output.starts_with(
            "```text\nout/tags.txt differs from the reference\n```\n\n```diff\n--- expected"
        ),
        "{output}"
    );
    assert!(
        output.ends_with("> **Hint:** Use the driver branch."),
        "{output}"
    );
    assert_eq!(tests[2]["number"], "2.1");
}

#[test]
fn scripts_get_the_maximum_and_plain_text() {
    let json: Value =
        serde_json::from_str(&gradescope::render(&sample(), gradescope::Flavor::Scripts))
            .expect("valid JSON");
    assert_eq!(json["max_score"], 6.0);
    assert_eq!(json["output_format"], "text");
    let output = json["tests"][1]["output"].as_str().expect("output string");
    assert!(
        output.starts_with("out/tags.txt differs from the reference\n--- expected"),
        "{output}"
    );
    assert!(output.ends_with("hint: Use the driver branch."), "{output}");
}

#[test]
fn learner_output_cannot_close_its_fence() {
    let mut report = sample();
    report.steps[0].checks[1].message = "printed ```\n# Heading <img src=x>\n```".into();
    let json: Value =
        serde_json::from_str(&gradescope::render(&report, gradescope::Flavor::Gradescope))
            .expect("valid JSON");
    let output = json["tests"][1]["output"].as_str().expect("output");
    assert!(output.starts_with("````text\nprinted ```"), "{output}");
    assert!(output.contains("\n```\n````\n"), "{output}");
}

#[test]
fn junit_suites_per_step_and_escaped_failures() {
    let xml = junit::render(&sample());
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gpudrv\" tests=\"3\" failures=\"1\""), "{xml}");
    assert_eq!(xml.matches("<testsuite ").count(), 2);
    assert_eq!(xml.matches("<testcase ").count(), 3);
    assert!(
        xml.contains("<testsuite name=\"1. Node facts\" tests=\"2\" failures=\"1\""),
        "{xml}"
    );
    assert!(
        xml.contains("name=\"1.2 check &lt;1.2&gt; &amp; co\""),
        "{xml}"
    );
    assert!(
        xml.contains(
            "<failure message=\"out/tags.txt differs from the reference\" type=\"CheckFailed\">"
        ),
        "{xml}"
    );
    assert!(xml.contains("-550\n+550.90.07"), "{xml}");
    assert!(xml.trim_end().ends_with("</testsuites>"));
}

#[test]
fn xml_escape_drops_illegal_control_characters() {
    assert_eq!(junit::escape("a\u{1b}[31mb\"c'"), "a[31mb&quot;c&apos;");
}

#[test]
fn markdown_lists_every_check() {
    let md = markdown::render(&sample());
    assert!(md.contains("**Score: 4 / 6**"), "{md}");
    assert!(
        md.contains("| 1.2 | check <1.2> & co | ❌ failed | 0 / 2 |"),
        "{md}"
    );
    assert!(md.contains("```diff\n--- expected"), "{md}");
}

#[test]
fn reports_say_who_when_what_and_which_steps_they_leave_out() {
    let digest = "ab".repeat(32);
    let md = markdown::render(&sample());
    for row in [
        "| Learner | ada |".to_string(),
        "| Submission | `submissions/x` |".to_string(),
        "| Graded at | 2026-12-05T13:00:00Z |".to_string(),
        "| Proctor | 9.9.9 |".to_string(),
        format!("| Files (SHA-256) | `{digest}` |"),
        "| Isolation | bubblewrap |".to_string(),
        "| Duration | 3.0 s |".to_string(),
    ] {
        assert!(md.contains(&row), "{row} missing from:\n{md}");
    }
    let not_listed = "Step 3 is not listed: only the learner's self-check judges it";
    assert!(md.contains(not_listed), "{md}");
    let text = text::render(&sample(), Style::plain());
    assert!(
        text.contains(&format!(
            "learner ada · graded 2026-12-05T13:00:00Z · Proctor 9.9.9 · files sha256 {digest}"
        )),
        "{text}"
    );
    assert!(text.contains(not_listed), "{text}");
    let mut several = sample();
    several.steps_not_judged = vec![1, 4, 7];
    assert!(several
        .steps_not_judged_note()
        .is_some_and(|note| note.starts_with("Steps 1, 4 and 7 are not listed")));
}

#[test]
fn text_without_color_has_marks_and_diff() {
    let text = text::render(&sample(), Style::plain());
    assert!(text.contains("  ✓ 1.1 check <1.1> & co [2 / 2]"), "{text}");
    assert!(text.contains("  ✗ 1.2 check <1.2> & co [0 / 2]"), "{text}");
    assert!(text.contains("      +550.90.07"), "{text}");
    assert!(
        text.contains("      hint: Use the driver branch."),
        "{text}"
    );
    assert!(text.contains("Score: 4 / 6"), "{text}");
    assert!(!text.contains('\u{1b}'), "no escape codes without colour");
}

#[test]
fn text_with_color_uses_escape_codes() {
    let text = text::render(&sample(), Style { color: true });
    assert!(text.contains('\u{1b}'));
}

#[test]
fn one_cause_of_several_failures_is_told_once_with_its_cost() {
    let crlf = "tag.sh has Windows (CRLF) line endings, so its first line names no interpreter: \
                convert it (dos2unix tag.sh)";
    let mut report = sample();
    report.steps[0].checks[1].causes = vec![crlf.to_string()];
    report.steps[1].checks[0].passed = false;
    report.steps[1].checks[0].score = 0.0;
    report.steps[1].checks[0].causes = vec![crlf.to_string()];
    let causes = report.root_causes();
    assert_eq!(causes.len(), 1);
    assert_eq!(causes[0].checks, ["1.2", "2.1"]);
    assert_eq!(causes[0].points, 4.0);
    assert_eq!(causes[0].short(), "tag.sh has Windows (CRLF) line endings");
    let end = format!("One fix for checks 1.2 and 2.1 (4 points): {crlf}");
    let text = text::render(&report, Style::plain());
    assert_eq!(
        text.matches(crlf).count(),
        2,
        "in full at the first check and at the end:\n{text}"
    );
    assert!(text.contains(&format!("      cause: {crlf}")), "{text}");
    assert!(
        text.contains("      cause: the same cause as 1.2 (tag.sh has Windows (CRLF) line endings): one fix for 2 checks, see the end"),
        "{text}"
    );
    assert!(text.contains(&end), "{text}");
    let md = markdown::render(&report);
    assert!(md.contains(&format!("- **{end}**")), "{md}");
    let json = gradescope::render(&report, gradescope::Flavor::Gradescope);
    let json: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert!(
        json["output"].as_str().is_some_and(|o| o.contains(&end)),
        "{json:#}"
    );
    // A cause of one failure alone is that check's own: told there, not summed up.
    report.steps[1].checks[0].causes.clear();
    assert!(report.root_causes().is_empty());
    assert!(!text::render(&report, Style::plain()).contains("One fix"));
}

/// A step with no graded check (self-check only) is worth 0, not -0: Rust's float `Sum` starts
/// from -0.0, which gradebooks printed as `-0.0`.
#[test]
fn no_points_are_positive_zero() {
    let empty = crate::report::model::total(std::iter::empty());
    assert!(empty.is_sign_positive());
    assert_eq!(serde_json::to_string(&empty).ok().as_deref(), Some("0.0"));
    assert_eq!(crate::report::model::total([1.5, 2.0]), 3.5);
}
