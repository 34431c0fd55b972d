//! Targeted hints: a check may list `{match: <regex>, say: <text>}` pairs; the first whose regex
//! matches the learner's output (or the diff) is shown instead of the check's generic hint.

use serde::Deserialize;

/// One targeted hint. In scenario files the pattern is spelled `match`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hint {
    #[serde(rename = "match")]
    pub pattern: String,
    pub say: String,
}

/// The `say` of the first hint whose pattern matches somewhere in `text`. A pattern that is not a
/// valid regex never matches (scenario validation is expected to reject it earlier; see
/// [`invalid_patterns`]).
pub fn first_match<'a>(hints: &'a [Hint], text: &str) -> Option<&'a str> {
    hints.iter().find_map(|hint| match regex::Regex::new(&hint.pattern) {
        Ok(re) if re.is_match(text) => Some(hint.say.as_str()),
        Ok(_) => None,
        Err(e) => {
            tracing::warn!(pattern = %hint.pattern, error = %e, "hint pattern is not a valid regex");
            None
        }
    })
}

/// `(pattern, error)` for every hint whose pattern does not compile, for scenario validation.
pub fn invalid_patterns(hints: &[Hint]) -> Vec<(String, String)> {
    hints
        .iter()
        .filter_map(|h| {
            regex::Regex::new(&h.pattern)
                .err()
                .map(|e| (h.pattern.clone(), e.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(pattern: &str, say: &str) -> Hint {
        Hint {
            pattern: pattern.into(),
            say: say.into(),
        }
    }

    fn gpudrv_hints() -> Vec<Hint> {
        vec![
            hint(
                r"\d+\.\d+\.\d+-",
                "Use the driver branch (550), not the full version (550.90.07).",
            ),
            hint(
                r"(?m)^lab-node-\d+ MISSING",
                "Only nodes with nvidia.com/gpu.present=true are audited.",
            ),
            hint(r"\r", "The script has CRLF line endings: run dos2unix."),
        ]
    }

    #[test]
    fn full_version_instead_of_branch() {
        let diff = "--- expected\n+++ actual\n-lab-node-0 550-5.15.0-119-generic-ubuntu22.04\n+lab-node-0 550.90.07-5.15.0-119-generic-ubuntu22.04\n";
        assert_eq!(
            first_match(&gpudrv_hints(), diff),
            Some("Use the driver branch (550), not the full version (550.90.07).")
        );
    }

    #[test]
    fn first_matching_hint_wins_and_none_when_nothing_matches() {
        let hints = gpudrv_hints();
        assert_eq!(
            first_match(&hints, "lab-node-2 MISSING\r\n"),
            Some("Only nodes with nvidia.com/gpu.present=true are audited.")
        );
        assert_eq!(first_match(&hints, "OK\n"), None);
        assert_eq!(first_match(&[], "anything"), None);
    }

    #[test]
    fn invalid_regex_never_matches_and_is_reported() {
        let hints = vec![hint("(unclosed", "never"), hint("OK", "fallback")];
        assert_eq!(first_match(&hints, "(unclosed OK"), Some("fallback"));
        let bad = invalid_patterns(&hints);
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].0, "(unclosed");
    }

    #[test]
    fn scenario_yaml_spelling() {
        let hints: Vec<Hint> =
            serde_yaml::from_str("- match: '\\d+\\.\\d+\\.\\d+-'\n  say: Use the branch.\n")
                .expect("valid hint yaml");
        assert_eq!(hints, vec![hint(r"\d+\.\d+\.\d+-", "Use the branch.")]);
        assert!(serde_yaml::from_str::<Vec<Hint>>("- match: x\n  say: y\n  extra: z\n").is_err());
    }
}
