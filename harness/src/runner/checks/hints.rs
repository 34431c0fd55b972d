//! Choosing the hints shown with a failed check: none when the sandbox noticed something about the
//! script itself (CRLF line endings, a missing exec bit: the check's causes); else the first
//! targeted hint whose regex matches the learner's actual output or diff, else the generic hint.

use regex::Regex;

use crate::runner::checks::Outcome;
use crate::scenario::Check;

pub fn hints_for(check: &Check, outcome: &Outcome) -> Vec<String> {
    if outcome.passed {
        return Vec::new();
    }
    // A script that cannot start (no exec bit, CRLF) fails whatever it says: what the sandbox
    // noticed is the one thing to fix (the check's causes), and the scenario's hints would
    // explain a mistake the learner may not have made.
    if !outcome.problems.is_empty() {
        return Vec::new();
    }
    let mut hints = Vec::new();
    let haystack = format!(
        "{}\n{}\n{}",
        outcome.actual,
        outcome.diff.as_deref().unwrap_or(""),
        outcome.message
    );
    let targeted = check.hints.iter().find(|hint| {
        Regex::new(&hint.pattern)
            .map(|pattern| pattern.is_match(&haystack))
            .unwrap_or(false)
    });
    match (targeted, &check.hint) {
        (Some(hint), _) => hints.push(hint.say.clone()),
        (None, Some(generic)) => hints.push(generic.clone()),
        (None, None) => {}
    }
    hints
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check() -> Check {
        serde_json::from_value(json!({
            "id": "tags", "title": "tags", "hint": "Run drv-tag.sh for each node.",
            "hints": [{"match": "\\d+\\.\\d+\\.\\d+-", "say": "Use the driver branch (550), not the full version."}],
            "file": {"path": "out/tags.txt"}
        }))
        .expect("valid check")
    }

    #[test]
    fn targeted_hint_wins_over_generic() {
        let outcome = Outcome::fail("differs")
            .with_actual("lab-node-0 550.90.07-5.15.0-119-generic-ubuntu22.04".into());
        assert_eq!(
            hints_for(&check(), &outcome),
            vec!["Use the driver branch (550), not the full version.".to_string()]
        );
    }

    #[test]
    fn sandbox_problems_silence_the_scenarios_hints() {
        let mut outcome = Outcome::fail("differs");
        assert_eq!(
            hints_for(&check(), &outcome),
            vec!["Run drv-tag.sh for each node.".to_string()]
        );
        outcome.problems = vec!["drv-tag.sh has CRLF line endings".to_string()];
        outcome.actual = "lab-node-0 550.90.07-5.15.0-119-generic-ubuntu22.04".into();
        assert!(hints_for(&check(), &outcome).is_empty());
        assert!(hints_for(&check(), &Outcome::pass("ok")).is_empty());
    }
}
