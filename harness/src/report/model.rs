//! The result of a grading or self-check run, independent of how it is printed.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::{Mode, Visibility};

/// A report as `--format report-json` writes it: the fields below, in this order. Its JSON
/// Schema is `proctor schema report` (kept as docs/report.schema.json).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Report {
    pub lab: String,
    pub title: String,
    pub mode: Mode,
    /// The graded directory (submission or live lab dir).
    pub subject: String,
    /// Whose work it is: the submission's folder name in a batch; none for one grading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learner: Option<String>,
    /// When the run ended (RFC 3339, UTC).
    pub graded_at: String,
    /// The Proctor version that made the report.
    pub proctor_version: String,
    /// SHA-256 over the graded files as they were taken in (paths, modes and contents; the
    /// batch ledger's digest), so a report names exactly what it judged. Grade mode only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submission_sha256: Option<String>,
    /// Which isolation the script runs had (the weakest seen), e.g. "bubblewrap".
    pub isolation: Option<String>,
    /// How long the run took.
    #[serde(rename = "duration_seconds", with = "seconds")]
    #[schemars(with = "f64")]
    pub duration: Duration,
    pub steps: Vec<StepReport>,
    /// Steps of the lab with no check in this mode, which `steps` leaves out: in grade mode
    /// the steps only a self-check judges (worth no points at grading).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps_not_judged: Vec<u32>,
    /// Sentences for the reader after the checks (a self-check's "you are at step N").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A duration as seconds (a float), the way JSON readers take it.
mod seconds {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        // Milliseconds are all a reader can use; more digits would only be noise.
        serializer.serialize_f64((value.as_secs_f64() * 1000.0).round() / 1000.0)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        let seconds = f64::deserialize(deserializer)?;
        Duration::try_from_secs_f64(seconds).map_err(serde::de::Error::custom)
    }
}

/// The time a report or gradebook row is made, as both record it.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// This build's version, as reports and gradebook rows record it.
pub const PROCTOR_VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepReport {
    pub id: u32,
    pub title: String,
    pub checks: Vec<CheckReport>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
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
    /// What made the learner's script fail whatever it printed (Windows line endings, no exec
    /// bit), as the sandbox noticed it; one such cause often fails several checks (see
    /// [`Report::root_causes`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<String>,
    #[serde(skip)]
    #[schemars(skip)]
    pub duration: Duration,
}

/// One cause and the failing checks it is behind.
#[derive(Debug, Clone, PartialEq)]
pub struct RootCause {
    pub text: String,
    /// Their numbers ("2.3"), in report order.
    pub checks: Vec<String>,
    /// The points those checks lost.
    pub points: f64,
}

impl RootCause {
    /// The cause in a few words: its text up to the first colon or comma.
    pub fn short(&self) -> &str {
        self.text
            .split([':', ','])
            .next()
            .unwrap_or(&self.text)
            .trim()
    }

    /// "One fix for checks 2.2, 2.3 and 3.2 (9 points): <cause>".
    pub fn sentence(&self) -> String {
        let (last, rest) = self
            .checks
            .split_last()
            .map_or(("", &[][..]), |(l, r)| (l.as_str(), r));
        let list = if rest.is_empty() {
            last.to_string()
        } else {
            format!("{} and {last}", rest.join(", "))
        };
        format!(
            "One fix for checks {list} ({} points): {}",
            points(self.points),
            self.text
        )
    }
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
        for line in self
            .causes
            .iter()
            .map(|cause| format!("cause: {cause}"))
            .chain(self.hints.iter().map(|hint| format!("hint: {hint}")))
        {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&line);
        }
        text
    }
}

/// The sum of `points`, from +0: Rust's float `Sum` starts from -0.0, so the empty sum of a
/// step with no graded check (self-check only) would read `-0` in every report and gradebook.
pub fn total(points: impl IntoIterator<Item = f64>) -> f64 {
    points.into_iter().fold(0.0, |sum, point| sum + point)
}

impl StepReport {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|check| check.passed)
    }
    pub fn score(&self) -> f64 {
        total(self.checks.iter().map(|check| check.score))
    }
    pub fn max_score(&self) -> f64 {
        total(self.checks.iter().map(|check| check.points))
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

    /// One sentence on the steps the report leaves out, for every report format.
    pub fn steps_not_judged_note(&self) -> Option<String> {
        let (first, rest) = self.steps_not_judged.split_first()?;
        let list = if rest.is_empty() {
            format!("Step {first} is")
        } else {
            let mut ids: Vec<String> = self.steps_not_judged.iter().map(u32::to_string).collect();
            let last = ids.pop().unwrap_or_default();
            format!("Steps {} and {last} are", ids.join(", "))
        };
        Some(match self.mode {
            Mode::Grade => format!(
                "{list} not listed: only the learner's self-check judges it, for no points at grading."
            ),
            Mode::Check => format!("{list} not listed: nothing in it is self-checked; grading judges it."),
        })
    }

    /// The causes shared by two or more failing checks, in the order they first appear: one
    /// mistake (a script saved with Windows line endings) told once, with what it cost.
    pub fn root_causes(&self) -> Vec<RootCause> {
        let mut causes: Vec<RootCause> = Vec::new();
        for check in self.checks().filter(|check| !check.passed) {
            for text in &check.causes {
                match causes.iter_mut().find(|cause| &cause.text == text) {
                    Some(cause) => {
                        cause.checks.push(check.number());
                        cause.points += check.points - check.score;
                    }
                    None => causes.push(RootCause {
                        text: text.clone(),
                        checks: vec![check.number()],
                        points: check.points - check.score,
                    }),
                }
            }
        }
        causes.retain(|cause| cause.checks.len() > 1);
        causes
    }

    /// How `check` shows `cause`: in full where the cause is its own or first seen, else as a
    /// pointer to that first check.
    pub fn cause_line(&self, check: &CheckReport, cause: &str, shared: &[RootCause]) -> String {
        match shared.iter().find(|root| root.text == cause) {
            Some(root) if root.checks.first() != Some(&check.number()) => format!(
                "the same cause as {} ({}): one fix for {} checks, see the end",
                root.checks[0],
                root.short(),
                root.checks.len()
            ),
            _ => cause.to_string(),
        }
    }

    pub fn checks(&self) -> impl Iterator<Item = &CheckReport> {
        self.steps.iter().flat_map(|step| step.checks.iter())
    }
    pub fn score(&self) -> f64 {
        total(self.steps.iter().map(StepReport::score))
    }
    pub fn max_score(&self) -> f64 {
        total(self.steps.iter().map(StepReport::max_score))
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

/// The steps of `lab` that `steps` (a report's) leaves out.
pub fn steps_not_judged(lab: &crate::scenario::Lab, steps: &[StepReport]) -> Vec<u32> {
    lab.scenario
        .steps
        .iter()
        .map(|step| step.id)
        .filter(|id| !steps.iter().any(|step| step.id == *id))
        .collect()
}

/// Formats a score without a trailing ".0" for whole numbers.
pub fn points(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value:.2}")
    }
}
