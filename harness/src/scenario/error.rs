//! Errors in a scenario file, always naming the file and, when the YAML parser knows it, the
//! line and column, plus the dotted key path (`steps[2].checks[0].file.compare`).

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: PathBuf,
    /// 1-based line and column.
    pub location: Option<(usize, usize)>,
    /// The key path to the offending value, empty for the document itself.
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(
        file: impl Into<PathBuf>,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ScenarioError {
            file: file.into(),
            location: None,
            path: path.into(),
            message: message.into(),
        }
    }

    pub fn at(mut self, location: Option<(usize, usize)>) -> Self {
        self.location = location;
        self
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some((line, column)) = self.location {
            write!(f, ":{line}:{column}")?;
        }
        if self.path.is_empty() || self.path == "." {
            write!(f, ": {}", self.message)
        } else {
            write!(f, ": {}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Several problems found in one file; reported together so an author fixes them in one pass.
#[derive(Debug, Clone)]
pub struct ScenarioErrors(pub Vec<ScenarioError>);

impl fmt::Display for ScenarioErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioErrors {}
