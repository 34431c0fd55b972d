//! Comparing a learner's text with the reference's (both already normalised by the caller).

use super::diff::unified_diff;
use crate::drain::{verdict, DrainVerdict};
use serde::Deserialize;
use std::collections::BTreeMap;

/// How two texts are compared; in scenario files `exact`, `linesUnordered`, `drain`, `contains`,
/// `pattern`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Compare {
    /// Byte for byte.
    Exact,
    /// The same lines the same number of times, in any order.
    LinesUnordered,
    /// Both are `kubectl drain` transcripts with the same meaning (refused vs drained), see
    /// [`crate::drain`].
    Drain,
    /// Every line of the expected text is a line of the actual one, in the same order, with any
    /// other lines around and between them (a saved `kubectl` error among warnings).
    Contains,
    /// The expected text is one regular expression per line: the actual text has as many lines,
    /// each matching its expression whole.
    Pattern,
}

/// The result of a comparison: `diff` explains a difference and is empty when `equal`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    pub equal: bool,
    pub diff: String,
}

/// Compares `actual` (the learner's) with `expected` (the reference's).
pub fn compare(expected: &str, actual: &str, how: Compare) -> Comparison {
    match how {
        Compare::Exact => {
            let diff = unified_diff(expected, actual);
            Comparison {
                equal: diff.is_empty(),
                diff,
            }
        }
        Compare::LinesUnordered => compare_unordered(expected, actual),
        Compare::Drain => compare_drain(expected, actual),
        Compare::Contains => compare_contains(expected, actual),
        Compare::Pattern => compare_pattern(expected, actual),
    }
}

fn differs(diff: String) -> Comparison {
    Comparison { equal: false, diff }
}

fn compare_contains(expected: &str, actual: &str) -> Comparison {
    let mut lines = actual.lines();
    for (number, wanted) in expected.lines().enumerate() {
        if !lines.any(|line| line == wanted) {
            return differs(format!(
                "expected line {} is missing{}:\n{wanted}\n",
                number + 1,
                if number == 0 {
                    ""
                } else {
                    " (after the lines before it)"
                },
            ));
        }
    }
    Comparison {
        equal: true,
        diff: String::new(),
    }
}

/// `expression` anchored at both ends, as the `pattern` comparison reads each line.
pub fn line_pattern(expression: &str) -> Result<regex::Regex, regex::Error> {
    regex::Regex::new(&format!("^(?:{expression})$"))
}

fn compare_pattern(expected: &str, actual: &str) -> Comparison {
    let patterns: Vec<&str> = expected.lines().collect();
    let lines: Vec<&str> = actual.lines().collect();
    for (number, (expression, line)) in patterns.iter().zip(&lines).enumerate() {
        match line_pattern(expression) {
            Ok(pattern) if pattern.is_match(line) => {}
            Ok(_) => {
                return differs(format!(
                    "line {} does not match the expected pattern:\n  line:    {line}\n  pattern: {expression}\n",
                    number + 1
                ))
            }
            Err(error) => {
                return differs(format!(
                    "pattern {} is not a regular expression: {error}\n",
                    number + 1
                ))
            }
        }
    }
    if patterns.len() != lines.len() {
        return differs(format!(
            "{} line(s), expected {}\n",
            lines.len(),
            patterns.len()
        ));
    }
    Comparison {
        equal: true,
        diff: String::new(),
    }
}

fn line_counts(text: &str) -> BTreeMap<&str, usize> {
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        *counts.entry(line).or_insert(0) += 1;
    }
    counts
}

fn compare_unordered(expected: &str, actual: &str) -> Comparison {
    let want = line_counts(expected);
    let have = line_counts(actual);
    let mut diff = String::new();
    for (line, &n) in &want {
        let got = have.get(line).copied().unwrap_or(0);
        for _ in got..n {
            diff.push_str(&format!("-{line}\n"));
        }
    }
    for (line, &n) in &have {
        let wanted = want.get(line).copied().unwrap_or(0);
        for _ in wanted..n {
            diff.push_str(&format!("+{line}\n"));
        }
    }
    if diff.is_empty() {
        Comparison { equal: true, diff }
    } else {
        Comparison {
            equal: false,
            diff: format!(
                "--- expected\n+++ actual\n(lines in any order; - missing, + unexpected)\n{diff}"
            ),
        }
    }
}

fn describe(v: &DrainVerdict) -> String {
    match v {
        DrainVerdict::Refused => {
            "the eviction was refused by the PodDisruptionBudget and the node was not drained"
                .into()
        }
        DrainVerdict::Drained => {
            "the node was drained (pods evicted, `node/<name> drained`)".into()
        }
        DrainVerdict::Other(why) => format!("neither refused nor drained: {why}"),
    }
}

fn compare_drain(expected: &str, actual: &str) -> Comparison {
    let want = verdict(expected);
    let have = verdict(actual);
    let equal = matches!(
        (&want, &have),
        (DrainVerdict::Refused, DrainVerdict::Refused)
            | (DrainVerdict::Drained, DrainVerdict::Drained)
    );
    let diff = if equal {
        String::new()
    } else {
        format!(
            "expected: {}\nactual: {}\n",
            describe(&want),
            describe(&have)
        )
    };
    Comparison { equal, diff }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAGS: &str = "lab-node-0 550-5.15.0-119-generic-ubuntu22.04\n\
                        lab-node-1 535-5.15.0-107-generic-ubuntu22.04\n\
                        lab-node-2 550-6.8.0-45-generic-ubuntu24.04\n";

    #[test]
    fn exact() {
        assert_eq!(
            compare(TAGS, TAGS, Compare::Exact),
            Comparison {
                equal: true,
                diff: String::new()
            }
        );
        let wrong = TAGS.replace("550-6.8.0", "550.90.07-6.8.0");
        let c = compare(TAGS, &wrong, Compare::Exact);
        assert!(!c.equal);
        assert!(
            c.diff
                .contains("-lab-node-2 550-6.8.0-45-generic-ubuntu24.04\n"),
            "{}",
            c.diff
        );
        assert!(
            c.diff
                .contains("+lab-node-2 550.90.07-6.8.0-45-generic-ubuntu24.04\n"),
            "{}",
            c.diff
        );
    }

    #[test]
    fn contains_finds_the_lines_in_order_among_others() {
        let expected = "error: cannot evict\nnode/lab-node-1 not drained\n";
        let actual = "Warning: ignoring DaemonSet-managed pods\nerror: cannot evict\nretrying\nnode/lab-node-1 not drained\n";
        assert!(compare(expected, actual, Compare::Contains).equal);
        let swapped = "node/lab-node-1 not drained\nerror: cannot evict\n";
        let c = compare(expected, swapped, Compare::Contains);
        assert!(!c.equal);
        assert!(
            c.diff.starts_with("expected line 2 is missing"),
            "{}",
            c.diff
        );
        let c = compare(expected, "", Compare::Contains);
        assert_eq!(c.diff, "expected line 1 is missing:\nerror: cannot evict\n");
    }

    #[test]
    fn pattern_matches_each_line_whole() {
        let patterns = "lab-node-\\d+ (550|535)-.*\nTotal: \\d+\n";
        assert!(
            compare(
                patterns,
                "lab-node-0 550-5.15.0\nTotal: 3\n",
                Compare::Pattern
            )
            .equal
        );
        // Anchored: a match inside the line is not enough.
        let c = compare(
            patterns,
            "lab-node-0 550-5.15.0\nTotal: 3 nodes\n",
            Compare::Pattern,
        );
        assert!(!c.equal);
        assert!(c.diff.starts_with("line 2 does not match"), "{}", c.diff);
        assert!(c.diff.contains("line:    Total: 3 nodes"), "{}", c.diff);
        let c = compare(patterns, "lab-node-0 550-5.15.0\n", Compare::Pattern);
        assert_eq!(c.diff, "1 line(s), expected 2\n");
        assert!(!compare("(", "(", Compare::Pattern).equal);
    }

    #[test]
    fn lines_unordered() {
        let shuffled = "lab-node-2 550-6.8.0-45-generic-ubuntu24.04\n\
                        lab-node-0 550-5.15.0-119-generic-ubuntu22.04\n\
                        lab-node-1 535-5.15.0-107-generic-ubuntu22.04\n";
        assert!(compare(TAGS, shuffled, Compare::LinesUnordered).equal);
        assert!(!compare(TAGS, shuffled, Compare::Exact).equal);
    }

    #[test]
    fn lines_unordered_counts_duplicates_and_reports_both_sides() {
        let missing_one = "lab-node-0 550-5.15.0-119-generic-ubuntu22.04\n\
                           lab-node-0 550-5.15.0-119-generic-ubuntu22.04\n\
                           lab-node-2 550-6.8.0-45-generic-ubuntu24.04\n";
        let c = compare(TAGS, missing_one, Compare::LinesUnordered);
        assert!(!c.equal);
        assert!(
            c.diff
                .contains("\n-lab-node-1 535-5.15.0-107-generic-ubuntu22.04\n"),
            "{}",
            c.diff
        );
        assert!(
            c.diff
                .contains("\n+lab-node-0 550-5.15.0-119-generic-ubuntu22.04\n"),
            "{}",
            c.diff
        );
    }

    #[test]
    fn drain_by_meaning() {
        let reference = "node/lab-node-1 cordoned\n\
            evicting pod gpu-drv/trainer-6d4f8b7c9d-x7k2p\n\
            error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n\
            There are pending pods in node \"lab-node-1\" when an error occurred: error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\": global timeout reached: 20s\n\
            pod/trainer-6d4f8b7c9d-x7k2p\n\
            error: unable to drain node \"lab-node-1\" due to error: error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\": global timeout reached: 20s, continuing command...\n\
            There are pending nodes to be drained:\n lab-node-1\n\
            error when evicting pods/\"trainer-6d4f8b7c9d-x7k2p\" -n \"gpu-drv\": global timeout reached: 20s\n";
        let learner = reference.replace("6d4f8b7c9d-x7k2p", "5f6d8c9b7d-p8r2t");
        assert!(compare(reference, &learner, Compare::Drain).equal);
        let drained = "node/lab-node-1 cordoned\nevicting pod gpu-drv/trainer-5f6d8c9b7d-p8r2t\npod/trainer-5f6d8c9b7d-p8r2t evicted\nnode/lab-node-1 drained\n";
        let c = compare(reference, drained, Compare::Drain);
        assert!(!c.equal);
        assert!(
            c.diff.starts_with("expected: the eviction was refused"),
            "{}",
            c.diff
        );
        assert!(
            c.diff.contains("actual: the node was drained"),
            "{}",
            c.diff
        );
        assert!(!compare(reference, "", Compare::Drain).equal);
    }

    #[test]
    fn compare_names_in_scenarios() {
        let v: Vec<Compare> =
            serde_yaml::from_str("[exact, linesUnordered, drain]").expect("valid names");
        assert_eq!(
            v,
            vec![Compare::Exact, Compare::LinesUnordered, Compare::Drain]
        );
    }
}
