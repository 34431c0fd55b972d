//! The result of a grading or self-check run, independent of how it is printed.

use std::time::Duration;

use serde::Serialize;

use crate::scenario::{Mode, Visibility};

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub lab: String,
    pub title: String,
    pub mode: Mode,
    /// The graded directory (submission or live lab dir).
    pub subject: String,
    pub steps: Vec<StepReport>,
    /// Which isolation the script runs had (the weakest seen), e.g. "bubblewrap".
    pub isolation: Option<String>,
    #[serde(skip)]
    pub duration: Duration,
    /// Sentences for the reader after the checks (a self-check's "you are at step N").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    pub id: u32,
    pub title: String,
    pub checks: Vec<CheckReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub step: u32,
    /// 1-based position in the step; the report number is "<step>.<position>".
    pub position: usize,
    pub id: String,
    pub title: String,
    pub points: f64,
    pub score: f64,
    pub passed: bool,
    pub visibility: Visibility,
    /// What was found, in one or a few lines ("missing file out/tags.txt", "2 of 3 nodes differ").
    pub message: String,
    /// Unified diff of expected vs actual, when there is one.
    pub diff: Option<String>,
    pub hints: Vec<String>,
    #[serde(skip)]
    pub duration: Duration,
}

impl CheckReport {
    pub fn number(&self) -> String {
        format!("{}.{}", self.step, self.position)
    }

    /// Message, diff and hints as one block of text (Gradescope `output`, JUnit failure body).
    pub fn details(&self) -> String {
        let mut text = self.message.clone();
        if let Some(diff) = &self.diff {
            if !diff.trim().is_empty() {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(diff.trim_end());
            }
        }
        for hint in &self.hints {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str("hint: ");
            text.push_str(hint);
        }
        text
    }
}

impl StepReport {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|check| check.passed)
    }
    pub fn score(&self) -> f64 {
        self.checks.iter().map(|check| check.score).sum()
    }
    pub fn max_score(&self) -> f64 {
        self.checks.iter().map(|check| check.points).sum()
    }
}

impl Report {
    /// One sentence on how the learner's scripts ran, for every report format.
    pub fn isolation_note(&self) -> Option<String> {
        match self.isolation.as_deref()? {
            "none" => Some(
                "Scripts ran WITHOUT isolation, as the grader's own user (--accept-unisolated)."
                    .to_string(),
            ),
            kind => Some(format!("Scripts ran in the {kind} sandbox.")),
        }
    }

    pub fn checks(&self) -> impl Iterator<Item = &CheckReport> {
        self.steps.iter().flat_map(|step| step.checks.iter())
    }
    pub fn score(&self) -> f64 {
        self.steps.iter().map(StepReport::score).sum()
    }
    pub fn max_score(&self) -> f64 {
        self.steps.iter().map(StepReport::max_score).sum()
    }
    pub fn passed(&self) -> bool {
        self.steps.iter().all(StepReport::passed)
    }
    pub fn counts(&self) -> (usize, usize) {
        let passed = self.checks().filter(|check| check.passed).count();
        (passed, self.checks().count() - passed)
    }
    /// Steps with at least one failing check, in order.
    pub fn failing_steps(&self) -> Vec<u32> {
        self.steps
            .iter()
            .filter(|step| !step.passed())
            .map(|step| step.id)
            .collect()
    }
}

/// Formats a score without a trailing ".0" for whole numbers.
pub fn points(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value:.2}")
    }
}
