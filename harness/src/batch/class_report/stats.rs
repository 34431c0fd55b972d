//! The class report's numbers, apart from how they are drawn.

use std::collections::BTreeMap;

use crate::batch::gradebook::{Gradebook, Row, Status};
use crate::report::visible::visible;
use crate::report::Report;

/// How many of a check's failure messages the page lists.
const MESSAGES_SHOWN: usize = 3;
/// A failure message is grouped by its first line, cut to this many characters.
const MESSAGE_CHARS: usize = 200;

#[derive(Debug, Clone, PartialEq)]
pub struct StepStats {
    pub id: u32,
    pub max_score: f64,
    /// Rows with a score for the step.
    pub scored: usize,
    /// Of those, how many have its every point.
    pub full_marks: usize,
    /// Mean score of the step over `scored`.
    pub mean: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CheckStats {
    pub number: String,
    pub step: u32,
    /// Its place in the step (the number's second part).
    pub position: usize,
    pub id: String,
    pub title: String,
    pub points: f64,
    /// Reports in which the check ran.
    pub graded: usize,
    pub failed: usize,
    /// The most common failure messages (first line), most frequent first, with their counts.
    pub messages: Vec<(String, usize)>,
}

impl CheckStats {
    pub fn fail_rate(&self) -> f64 {
        if self.graded == 0 {
            0.0
        } else {
            self.failed as f64 / self.graded as f64
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// The rows whose score is the learner's: every status but `missing` and `error` (nothing
    /// handed in, or Proctor failed), whose zero says nothing of the work.
    pub counted: usize,
    pub mean: f64,
    pub median: f64,
    pub max_score: f64,
    /// Counted rows by tenth of the maximum: [0, 10%), …, [90%, 100%]; full marks fall in the last.
    pub histogram: [usize; 10],
    /// Every status with its count, in the gradebook's order of statuses.
    pub statuses: Vec<(Status, usize)>,
    pub steps: Vec<StepStats>,
    /// Checks that fail most first; ties in the lab's order.
    pub checks: Vec<CheckStats>,
}

fn counts(row: &Row) -> bool {
    !matches!(row.status, Status::Missing | Status::Error)
}

impl Stats {
    pub fn of(gradebook: &Gradebook, results: &BTreeMap<String, Report>) -> Stats {
        let counted: Vec<&Row> = gradebook.submissions.iter().filter(|r| counts(r)).collect();
        let max_score = gradebook
            .submissions
            .iter()
            .map(|row| row.max_score)
            .fold(0.0, f64::max);
        let mut scores: Vec<f64> = counted.iter().map(|row| row.score).collect();
        scores.sort_by(f64::total_cmp);
        let mut histogram = [0; 10];
        for score in &scores {
            let fraction = if max_score > 0.0 {
                score / max_score
            } else {
                0.0
            };
            let bin = ((fraction * 10.0).floor().max(0.0) as usize).min(9);
            histogram[bin] += 1;
        }
        let mut statuses: Vec<(Status, usize)> = Vec::new();
        for row in &gradebook.submissions {
            match statuses
                .iter_mut()
                .find(|(status, _)| *status == row.status)
            {
                Some((_, count)) => *count += 1,
                None => statuses.push((row.status, 1)),
            }
        }
        statuses.sort_by_key(|(status, _)| status.order());
        Stats {
            counted: counted.len(),
            mean: mean(&scores),
            median: median(&scores),
            max_score,
            histogram,
            statuses,
            steps: step_stats(gradebook, &counted),
            checks: check_stats(gradebook, results),
        }
    }
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The median of sorted `values`.
fn median(values: &[f64]) -> f64 {
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn step_stats(gradebook: &Gradebook, counted: &[&Row]) -> Vec<StepStats> {
    gradebook
        .steps
        .iter()
        .filter(|step| step.max_score > 0.0)
        .map(|step| {
            let scores: Vec<f64> = counted
                .iter()
                .filter_map(|row| row.steps.get(&step.id).map(|score| score.score))
                .collect();
            StepStats {
                id: step.id,
                max_score: step.max_score,
                scored: scores.len(),
                full_marks: scores.iter().filter(|s| **s >= step.max_score).count(),
                mean: mean(&scores),
            }
        })
        .collect()
}

fn check_stats(gradebook: &Gradebook, results: &BTreeMap<String, Report>) -> Vec<CheckStats> {
    let mut checks: Vec<CheckStats> = Vec::new();
    let mut messages: Vec<BTreeMap<String, usize>> = Vec::new();
    // In gradebook order, so that the page does not depend on which report was read first.
    for row in &gradebook.submissions {
        let Some(report) = results.get(&row.name) else {
            continue;
        };
        for check in report.checks() {
            let number = check.number();
            let index = match checks.iter().position(|known| known.number == number) {
                Some(index) => index,
                None => {
                    checks.push(CheckStats {
                        number,
                        step: check.step,
                        position: check.position,
                        id: check.id.clone(),
                        title: check.title.clone(),
                        points: check.points,
                        graded: 0,
                        failed: 0,
                        messages: Vec::new(),
                    });
                    messages.push(BTreeMap::new());
                    checks.len() - 1
                }
            };
            checks[index].graded += 1;
            if !check.passed {
                checks[index].failed += 1;
                let first = check.message.lines().next().unwrap_or_default().trim();
                let first: String = visible(first).chars().take(MESSAGE_CHARS).collect();
                *messages[index].entry(first).or_default() += 1;
            }
        }
    }
    for (check, seen) in checks.iter_mut().zip(messages) {
        let mut seen: Vec<(String, usize)> = seen.into_iter().collect();
        seen.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        seen.truncate(MESSAGES_SHOWN);
        check.messages = seen;
    }
    let order = |check: &CheckStats| (check.step, check.position);
    checks.sort_by(|a, b| {
        b.fail_rate()
            .total_cmp(&a.fail_rate())
            .then_with(|| order(a).cmp(&order(b)))
    });
    checks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::gradebook::{StepColumn, StepScore};
    use crate::report::{CheckReport, StepReport};

    fn row(name: &str, score: f64, status: Status) -> Row {
        let mut row = Row::ungraded(name, status, 10.0, String::new());
        row.score = score;
        if matches!(status, Status::Passed | Status::Failed) {
            row.steps.insert(
                1,
                StepScore {
                    score,
                    max_score: 10.0,
                },
            );
        }
        row
    }

    fn report(failing: &[(usize, &str)]) -> Report {
        let check = |position: usize| {
            let message = failing
                .iter()
                .find(|(p, _)| *p == position)
                .map(|(_, m)| m.to_string());
            CheckReport {
                step: 1,
                position,
                id: format!("c{position}"),
                title: format!("check {position}"),
                points: 5.0,
                score: if message.is_some() { 0.0 } else { 5.0 },
                passed: message.is_none(),
                visibility: crate::scenario::Visibility::Visible,
                message: message.unwrap_or_default(),
                diff: None,
                hints: Vec::new(),
                causes: Vec::new(),
                duration: Default::default(),
            }
        };
        let mut report = crate::report::tests::sample();
        report.steps = vec![StepReport {
            id: 1,
            title: "one".to_string(),
            checks: (1..=2).map(check).collect(),
        }];
        report
    }

    #[test]
    fn the_numbers_of_a_class() {
        let gradebook = Gradebook {
            steps: vec![
                StepColumn {
                    id: 0,
                    max_score: 0.0,
                },
                StepColumn {
                    id: 1,
                    max_score: 10.0,
                },
            ],
            submissions: vec![
                row("a", 10.0, Status::Passed),
                row("b", 5.0, Status::Failed),
                row("c", 0.0, Status::Failed),
                row("d", 0.0, Status::Empty),
                row("e", 0.0, Status::Missing),
                row("f", 0.0, Status::Error),
            ],
        };
        let results = BTreeMap::from([
            ("a".to_string(), report(&[])),
            ("b".to_string(), report(&[(2, "wrong tag\nmore")])),
            (
                "c".to_string(),
                report(&[(1, "missing file"), (2, "wrong tag")]),
            ),
        ]);
        let stats = Stats::of(&gradebook, &results);
        // Missing and error rows say nothing of the work: not counted.
        assert_eq!(stats.counted, 4);
        assert_eq!(stats.mean, 3.75);
        assert_eq!(stats.median, 2.5);
        // 0, 0 in the first tenth, 5 in the sixth, full marks in the last.
        assert_eq!(stats.histogram, [2, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
        assert_eq!(
            stats.statuses,
            [
                (Status::Passed, 1),
                (Status::Failed, 2),
                (Status::Empty, 1),
                (Status::Missing, 1),
                (Status::Error, 1)
            ]
        );
        // The self-check step holds no points: no bar for it.
        assert_eq!(
            stats.steps,
            [StepStats {
                id: 1,
                max_score: 10.0,
                scored: 3,
                full_marks: 1,
                mean: 5.0
            }]
        );
        // The most failed first, its messages grouped by first line, the most common first.
        let numbers: Vec<&str> = stats.checks.iter().map(|c| c.number.as_str()).collect();
        assert_eq!(numbers, ["1.2", "1.1"]);
        assert_eq!((stats.checks[0].failed, stats.checks[0].graded), (2, 3));
        assert_eq!(stats.checks[0].messages, [("wrong tag".to_string(), 2)]);
        assert_eq!(stats.checks[1].messages, [("missing file".to_string(), 1)]);
    }

    #[test]
    fn an_empty_class_has_no_numbers_to_divide_by() {
        let stats = Stats::of(&Gradebook::default(), &BTreeMap::new());
        assert_eq!((stats.counted, stats.mean, stats.median), (0, 0.0, 0.0));
        assert_eq!(stats.histogram, [0; 10]);
        assert!(stats.checks.is_empty());
    }
}
