//! `expect.yaml` beside a bundled submission: what grading it must yield.

use std::path::Path;

use serde::Deserialize;

use super::error::ScenarioError;
use super::load::parse_yaml;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expectation {
    /// `{score: full}`: every check passes.
    FullScore,
    /// `{failingSteps: [5, 6]}`: exactly these steps have a failing check.
    FailingSteps(Vec<u32>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ExpectFile {
    #[serde(default)]
    score: Option<String>,
    #[serde(default)]
    failing_steps: Option<Vec<u32>>,
}

pub fn load_expectation(file: &Path) -> Result<Expectation, ScenarioError> {
    let text = std::fs::read_to_string(file)
        .map_err(|error| ScenarioError::new(file, "", format!("cannot read: {error}")))?;
    let parsed: ExpectFile = parse_yaml(&text, file)?;
    match (parsed.score.as_deref(), parsed.failing_steps) {
        (Some("full"), None) => Ok(Expectation::FullScore),
        (None, Some(mut steps)) => {
            steps.sort_unstable();
            steps.dedup();
            Ok(Expectation::FailingSteps(steps))
        }
        (Some(other), None) => Err(ScenarioError::new(
            file,
            "score",
            format!("only `full` is supported, got {other:?}"),
        )),
        _ => Err(ScenarioError::new(
            file,
            "",
            "expected exactly one of `score: full` or `failingSteps: [...]`",
        )),
    }
}

impl Expectation {
    /// Whether a grading whose failing steps are `failing` meets the expectation.
    pub fn holds(&self, failing: &[u32]) -> bool {
        match self {
            Expectation::FullScore => failing.is_empty(),
            Expectation::FailingSteps(steps) => steps.as_slice() == failing,
        }
    }
}

impl std::fmt::Display for Expectation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expectation::FullScore => f.write_str("full score"),
            Expectation::FailingSteps(steps) => write!(
                f,
                "failing steps [{}]",
                steps
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}
