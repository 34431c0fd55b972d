//! What evaluating one check found, before points and hints are attached.

#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub passed: bool,
    pub message: String,
    pub diff: Option<String>,
    /// The learner's actual output or file text, for targeted hints.
    pub actual: String,
    /// Problems the sandbox noticed in the learner's script (CRLF, missing exec bit ...).
    pub problems: Vec<String>,
}

impl Outcome {
    pub fn pass(message: impl Into<String>) -> Outcome {
        Outcome {
            passed: true,
            message: message.into(),
            ..Outcome::default()
        }
    }

    pub fn fail(message: impl Into<String>) -> Outcome {
        Outcome {
            passed: false,
            message: message.into(),
            ..Outcome::default()
        }
    }

    pub fn missing(path: &std::path::Path) -> Outcome {
        Outcome::fail(format!("missing file {}", path.display()))
    }

    pub fn with_diff(mut self, diff: String) -> Outcome {
        if !diff.trim().is_empty() {
            self.diff = Some(diff);
        }
        self
    }

    pub fn with_actual(mut self, actual: String) -> Outcome {
        self.actual = actual;
        self
    }
}
