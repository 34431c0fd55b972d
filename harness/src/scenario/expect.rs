//! `expect.yaml` beside a bundled submission: what grading it must yield, and the submission
//! it is composed from, if any ([`super::compose`]).

use std::path::{Path, PathBuf};

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
    #[serde(default)]
    base: Option<String>,
    #[serde(default)]
    delete: Vec<PathBuf>,
}

/// Everything an `expect.yaml` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseFile {
    pub expect: Expectation,
    /// The submission this one starts from: its files, with this one's over them.
    pub base: Option<String>,
    /// Paths (relative to the submission) of the base's files this one does not have.
    pub delete: Vec<PathBuf>,
}

pub fn load_expectation(file: &Path) -> Result<Expectation, ScenarioError> {
    load_case(file).map(|case| case.expect)
}

pub fn load_case(file: &Path) -> Result<CaseFile, ScenarioError> {
    let text = std::fs::read_to_string(file)
        .map_err(|error| ScenarioError::new(file, "", format!("cannot read: {error}")))?;
    let parsed: ExpectFile = parse_yaml(&text, file)?;
    if parsed.base.is_none() && !parsed.delete.is_empty() {
        return Err(ScenarioError::new(
            file,
            "delete",
            "deletes from no base: add `base: <submission>`",
        ));
    }
    if let Some(bad) = parsed.delete.iter().find(|p| {
        p.is_absolute()
            || p.components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
    }) {
        return Err(ScenarioError::new(
            file,
            "delete",
            format!("{} is not a path inside the submission", bad.display()),
        ));
    }
    let expect = expectation(file, parsed.score.as_deref(), parsed.failing_steps)?;
    Ok(CaseFile {
        expect,
        base: parsed.base,
        delete: parsed.delete,
    })
}

fn expectation(
    file: &Path,
    score: Option<&str>,
    failing_steps: Option<Vec<u32>>,
) -> Result<Expectation, ScenarioError> {
    match (score, failing_steps) {
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
