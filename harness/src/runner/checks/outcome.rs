//! What evaluating one check found, before points and hints are attached.

/// Lines of a diff kept in a report; a runaway script's 1 MiB of output is not worth more.
const DIFF_LINES: usize = 200;

/// Characters kept of one diff line.
const DIFF_LINE_CHARS: usize = 500;

#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub passed: bool,
    pub message: String,
    pub diff: Option<String>,
    /// The learner's actual output or file text, for targeted hints.
    pub actual: String,
    /// Problems the sandbox noticed in the learner's script (CRLF, missing exec bit ...).
    pub problems: Vec<String>,
    /// Why the check could not be judged at all, through no fault of the learner (the reference's
    /// own run of a script hit a limit): the grading stops with exit 2 instead of taking points.
    pub scenario_problem: Option<String>,
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

    /// The scenario, not the learner, failed: see [`Outcome::scenario_problem`].
    pub fn scenario_problem(problem: impl Into<String>) -> Outcome {
        let problem = problem.into();
        Outcome {
            passed: false,
            message: problem.clone(),
            scenario_problem: Some(problem),
            ..Outcome::default()
        }
    }

    pub fn missing(path: &std::path::Path) -> Outcome {
        Outcome::fail(format!("missing file {}", path.display()))
    }

    /// Attaches `diff`, shortened to what a reader can use (see [`shorten_diff`]).
    pub fn with_diff(mut self, diff: String) -> Outcome {
        if !diff.trim().is_empty() {
            self.diff = Some(shorten_diff(&diff));
        }
        self
    }

    pub fn with_actual(mut self, actual: String) -> Outcome {
        self.actual = actual;
        self
    }
}

/// Keeps the first [`DIFF_LINES`] lines of `diff`, each cut at [`DIFF_LINE_CHARS`] characters, and
/// says how much was left out.
pub fn shorten_diff(diff: &str) -> String {
    let total = diff.lines().count();
    let mut out = String::with_capacity(diff.len().min(64 * 1024));
    for line in diff.lines().take(DIFF_LINES) {
        let mut chars = line.char_indices();
        match chars.nth(DIFF_LINE_CHARS) {
            Some((cut, _)) => {
                let left = line[cut..].chars().count();
                out.push_str(&line[..cut]);
                out.push_str(&format!(" ... ({left} more characters)"));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    if total > DIFF_LINES {
        out.push_str(&format!("... ({} more diff lines)\n", total - DIFF_LINES));
    }
    if !diff.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_diffs_are_kept_as_they_are() {
        for diff in ["--- expected\n+++ actual\n@@ -1 +1 @@\n-a\n+b\n", "-a\n+b"] {
            assert_eq!(shorten_diff(diff), diff);
        }
    }

    #[test]
    fn long_diffs_are_cut_and_say_so() {
        let flood: String = (0..1000).map(|i| format!("+line {i}\n")).collect();
        let short = shorten_diff(&flood);
        assert_eq!(short.lines().count(), DIFF_LINES + 1);
        assert!(short.starts_with("+line 0\n+line 1\n"), "{short}");
        assert!(
            short.ends_with("+line 199\n... (800 more diff lines)\n"),
            "{short}"
        );
        let wide = format!("+{}\n", "é".repeat(2000));
        let short = shorten_diff(&wide);
        assert_eq!(
            short,
            format!("+{} ... (1501 more characters)\n", "é".repeat(499))
        );
    }
}
