//! The class report as one HTML page. Everything a learner wrote (names, messages, diffs) goes
//! through maud's escaping, and a Content-Security-Policy lets only the page's own style and
//! script run: a submission cannot put markup, a script or a request into the grader's browser.

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine as _;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use sha2::{Digest, Sha256};

use super::stats::{CheckStats, Stats};
use super::svg;
use crate::batch::gradebook::{Gradebook, Row, Status};
use crate::report::model::points;
use crate::report::visible::visible;
use crate::report::{CheckReport, Report};

/// What the page is made of.
pub struct Page<'a> {
    pub lab: &'a str,
    pub title: &'a str,
    pub gradebook: &'a Gradebook,
    /// Each graded submission's report, by name (see [`super::load_results`]).
    pub results: &'a BTreeMap<String, Report>,
    /// The link to each submission's report, relative to the page, by name.
    pub links: &'a BTreeMap<String, String>,
}

const STYLE: &str = r#"
body { font: 14px/1.45 system-ui, sans-serif; color: #222; margin: 0 auto; max-width: 1200px; padding: 0 20px 40px; }
h1 { font-size: 22px; margin: 20px 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ccd; }
.facts { color: #555; margin: 0; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0; }
.card { border: 1px solid #ccd; border-radius: 6px; padding: 8px 14px; min-width: 110px; }
.card b { display: block; font-size: 20px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e4e8ee; vertical-align: top; }
th { background: #f3f5f8; position: sticky; top: 0; }
table.sortable th { cursor: pointer; user-select: none; }
th[aria-sort=ascending]::after { content: " ▲"; } th[aria-sort=descending]::after { content: " ▼"; }
td.nowrap { white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.status { border-radius: 4px; padding: 0 6px; font-size: 12px; }
.passed { background: #dff0e3; } .failed { background: #fbe3e1; } .other { background: #eceff3; }
ul.messages { margin: 0; padding-left: 18px; color: #444; }
pre { background: #f6f8fa; padding: 6px 8px; overflow-x: auto; margin: 4px 0 10px; white-space: pre-wrap; }
pre .add { color: #1a7f37; } pre .del { color: #cf222e; } pre .hunk { color: #8250df; }
details summary { cursor: pointer; color: #3b6ea8; }
.check-title { font-weight: 600; margin-top: 8px; }
footer { margin-top: 30px; color: #666; font-size: 12px; }
"#;

/// Sorts the learners' table by the column clicked (numbers as numbers, `data-sort` first).
const SCRIPT: &str = r#"
"use strict";
for (const table of document.querySelectorAll("table.sortable")) {
  const heads = Array.from(table.tHead.rows[0].cells);
  heads.forEach((head, column) => {
    head.addEventListener("click", () => {
      const descending = head.getAttribute("aria-sort") !== "descending";
      heads.forEach((other) => other.removeAttribute("aria-sort"));
      head.setAttribute("aria-sort", descending ? "descending" : "ascending");
      const key = (row) => row.cells[column].dataset.sort ?? row.cells[column].textContent.trim();
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        const numeric = x !== "" && y !== "" && !Number.isNaN(Number(x)) && !Number.isNaN(Number(y));
        const order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
        return descending ? -order : order;
      });
      body.append(...rows);
    });
  });
}
"#;

/// A CSP source for an inline element's exact text.
fn hash_source(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

fn content_security_policy() -> String {
    format!(
        "default-src 'none'; style-src {}; script-src {}; base-uri 'none'; form-action 'none'",
        hash_source(STYLE),
        hash_source(SCRIPT)
    )
}

pub fn render(page: &Page<'_>) -> String {
    let stats = Stats::of(page.gradebook, page.results);
    let rows = &page.gradebook.submissions;
    let graded_at: BTreeSet<&str> = rows.iter().filter_map(|r| r.graded_at.as_deref()).collect();
    let versions: BTreeSet<&str> = rows
        .iter()
        .filter_map(|r| r.proctor_version.as_deref())
        .collect();
    let isolation: BTreeSet<&str> = rows.iter().filter_map(|r| r.isolation.as_deref()).collect();
    let when = match (graded_at.first(), graded_at.last()) {
        (Some(first), Some(last)) if first != last => format!("graded {first} to {last}"),
        (Some(first), _) => format!("graded {first}"),
        _ => "not graded".to_string(),
    };
    let steps = page.gradebook.steps.as_slice();
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(content_security_policy());
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (page.lab) " — class report" }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { (page.lab) ": " (page.title) " — class report" }
                p.facts {
                    (rows.len()) " submission(s) · " (when)
                    " · Proctor " (join(&versions))
                    " · learners' scripts isolated with " (join(&isolation))
                }
                div.cards {
                    div.card { "Counted" b #counted { (stats.counted) } }
                    div.card { "Mean" b #mean { (points(svg::round2(stats.mean))) " / " (points(stats.max_score)) } }
                    div.card { "Median" b #median { (points(svg::round2(stats.median))) " / " (points(stats.max_score)) } }
                    @for (status, count) in &stats.statuses {
                        div.card { (status.name()) b data-status-count=(status.name()) { (count) } }
                    }
                }
                p.facts { "Counted: every submission but those missing (on the roster only) or in error (Proctor could not grade them)." }

                h2 { "Score distribution" }
                (svg::histogram(&stats))

                h2 { "Steps" }
                @if stats.steps.is_empty() {
                    p { "No step holds points at grading." }
                } @else {
                    (svg::steps(&stats.steps))
                }
                @let self_checked: Vec<String> = steps.iter().filter(|s| s.max_score == 0.0).map(|s| s.id.to_string()).collect();
                @if !self_checked.is_empty() {
                    p.facts { "Judged by the learners' self-check only, no points at grading: step " (self_checked.join(", step ")) "." }
                }

                h2 { "Checks, the most failed first" }
                @if stats.checks.is_empty() {
                    p { "No graded submission has a kept report to count checks from." }
                } @else {
                    @let (failed, clean): (Vec<_>, Vec<_>) = stats.checks.iter().partition(|check| check.failed > 0);
                    @if failed.is_empty() {
                        p { "No check failed in any submission." }
                    } @else {
                        table #checks {
                            thead { tr {
                                th { "#" } th { "Check" } th.num { "Points" } th.num { "Failed" }
                                th { "Failure rate" } th { "Most common failures" }
                            } }
                            tbody {
                                @for check in &failed {
                                    (check_row(check))
                                }
                            }
                        }
                    }
                    @if !clean.is_empty() {
                        details #clean-checks {
                            summary { (clean.len()) " check(s) no submission failed" }
                            table {
                                tbody {
                                    @for check in &clean {
                                        (check_row(check))
                                    }
                                }
                            }
                        }
                    }
                }

                h2 { "Learners" }
                p.facts { "Click a column to sort; a learner's failing checks open under their name." }
                table.sortable #learners {
                    thead { tr {
                        th { "Learner" } th.num { "Score" } th.num { "Max" } th { "Status" }
                        @for step in steps {
                            th.num { "step " (step.id) @if step.max_score == 0.0 { " (self-check)" } @else { " /" (points(step.max_score)) } }
                        }
                        th { "Report" }
                    } }
                    tbody {
                        @for row in rows {
                            (learner_row(page, row, steps))
                        }
                    }
                }
                footer {
                    "Written by Proctor " (crate::report::model::PROCTOR_VERSION)
                    " from the batch's gradebook rows and each graded submission's report."
                }
                script { (PreEscaped(SCRIPT)) }
            }
        }
    };
    markup.into_string()
}

fn check_row(check: &CheckStats) -> Markup {
    html! {
        tr.check data-check=(check.number) data-failed=(check.failed) data-graded=(check.graded) {
            td { (check.number) }
            td { (check.title) br; code { (check.id) } }
            td.num { (points(check.points)) }
            td.num { (check.failed) " / " (check.graded) }
            td.nowrap { (svg::share_bar(check.fail_rate(), "#cf222e")) " " (svg::percent(check.fail_rate())) }
            td {
                ul.messages {
                    @for (message, count) in &check.messages {
                        li { (count) " × " (message) }
                    }
                }
            }
        }
    }
}

fn join(values: &BTreeSet<&str>) -> String {
    if values.is_empty() {
        "—".to_string()
    } else {
        values.iter().copied().collect::<Vec<_>>().join(", ")
    }
}

fn status_class(status: Status) -> &'static str {
    match status {
        Status::Passed => "status passed",
        Status::Failed | Status::TimedOut => "status failed",
        _ => "status other",
    }
}

fn learner_row(
    page: &Page<'_>,
    row: &Row,
    steps: &[crate::batch::gradebook::StepColumn],
) -> Markup {
    let report = page.results.get(&row.name);
    let failing: Vec<&CheckReport> = report
        .map(|report| report.checks().filter(|check| !check.passed).collect())
        .unwrap_or_default();
    let learner = row.learner.as_ref();
    html! {
        tr.learner data-name=(row.name) data-score=(row.score) data-max=(row.max_score) data-status=(row.status.name()) {
            td data-sort=(row.name) {
                b { (visible(&row.name)) }
                @if let Some(learner) = learner {
                    @if !learner.name.is_empty() { br; (learner.name) }
                    @if !learner.id.is_empty() { " " code { (learner.id) } }
                }
                @if let Some(message) = &row.message {
                    br; span.facts { (visible(message)) }
                }
                @if !failing.is_empty() {
                    details {
                        summary { (failing.len()) " failing check(s)" }
                        @for check in &failing {
                            div.check-title { (check.number()) " " (check.title) " (" (points(check.score)) " / " (points(check.points)) ")" }
                            pre { (visible(&check.message)) }
                            @if let Some(diff) = check.diff.as_deref().filter(|d| !d.trim().is_empty()) {
                                pre.diff { (diff_lines(diff)) }
                            }
                        }
                    }
                }
            }
            td.num data-sort=(row.score) { (points(row.score)) }
            td.num { (points(row.max_score)) }
            td data-sort=(row.status.order()) { span class=(status_class(row.status)) { (row.status.name()) } }
            @for step in steps {
                @match row.steps.get(&step.id) {
                    Some(score) => td.num data-step=(step.id) data-score=(score.score) data-sort=(score.score) { (points(score.score)) },
                    None => td.num data-step=(step.id) data-sort="" { "" },
                }
            }
            td {
                @if let Some(link) = page.links.get(&row.name) {
                    a href=(link) { "report" }
                }
            }
        }
    }
}

/// A unified diff with its added, removed and hunk lines marked for colour.
fn diff_lines(diff: &str) -> Markup {
    html! {
        @for line in diff.trim_end().lines() {
            @let shown = visible(line);
            @if line.starts_with("+++") || line.starts_with("---") {
                span { (shown) } "\n"
            } @else if line.starts_with('+') {
                span.add { (shown) } "\n"
            } @else if line.starts_with('-') {
                span.del { (shown) } "\n"
            } @else if line.starts_with("@@") {
                span.hunk { (shown) } "\n"
            } @else {
                (shown) "\n"
            }
        }
    }
}
