//! `file` checks: the learner's file against the reference's file in the same state (or a
//! literal), after normalisation, compared exactly, as unordered lines, or by drain meaning.

use std::path::Path;

use graders::text::{compare, normalise, Compare, Normaliser};

use super::confine::{locate, outside, LabFile};
use super::outcome::Outcome;
use crate::runner::workdir::read_lab_file;
use crate::scenario::check::{FileCheck, FileCompare};

/// `learner_dir`'s file vs `reference_dir`'s file (or the literal).
pub fn check_file(spec: &FileCheck, learner_dir: &Path, reference_dir: &Path) -> Outcome {
    match locate(learner_dir, &spec.path) {
        LabFile::Inside(_) => {}
        LabFile::Missing => return Outcome::missing(&spec.path),
        LabFile::Outside { link } => return outside(&spec.path, &link),
    }
    let Some(actual) = read_lab_file(learner_dir, &spec.path) else {
        return Outcome::missing(&spec.path);
    };
    let actual = String::from_utf8_lossy(&actual).into_owned();
    let expected = match &spec.expected {
        Some(literal) => literal.clone(),
        _ => match read_lab_file(reference_dir, &spec.path) {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => {
                return Outcome::fail(format!(
                    "the reference solution has no {} at this step (a scenario problem, not yours)",
                    spec.path.display()
                ))
            }
        },
    };
    let rules: &[Normaliser] = &spec.normalise;
    let expected_norm = normalise(&expected, rules);
    let actual_norm = normalise(&actual, rules);
    let how = match spec.compare {
        FileCompare::Exact | FileCompare::Literal => Compare::Exact,
        FileCompare::LinesUnordered => Compare::LinesUnordered,
        FileCompare::Drain => Compare::Drain,
        FileCompare::Contains => Compare::Contains,
        FileCompare::Pattern => Compare::Pattern,
    };
    let result = compare(&expected_norm, &actual_norm, how);
    let shown = spec.path.display();
    if result.equal {
        return Outcome::pass(format!("{shown} matches")).with_actual(actual);
    }
    let message = match spec.compare {
        FileCompare::Drain => {
            let want = graders::drain::verdict(&expected_norm);
            let got = graders::drain::verdict(&actual_norm);
            format!(
                "{shown}: expected a transcript of a drain that was {}, this one shows {}",
                verdict_text(&want),
                verdict_text(&got)
            )
        }
        FileCompare::LinesUnordered => {
            format!("{shown} does not hold the same lines as the reference")
        }
        FileCompare::Literal => format!("{shown} differs from the expected text"),
        FileCompare::Contains => match &spec.expected {
            Some(_) => format!("{shown} does not hold the expected lines"),
            None => format!("{shown} does not hold the lines the reference solution produces"),
        },
        // The first line that does not match is the message: the pattern is the scenario's to
        // show, and the learner sees which of their lines is off.
        FileCompare::Pattern => format!("{shown}: {}", result.diff.trim_end()),
        FileCompare::Exact => format!("{shown} differs from what the reference solution produces"),
    };
    Outcome::fail(message)
        .with_diff(result.diff)
        .with_actual(actual)
}

fn verdict_text(verdict: &graders::drain::DrainVerdict) -> String {
    match verdict {
        graders::drain::DrainVerdict::Refused => "refused by the disruption budget".to_string(),
        graders::drain::DrainVerdict::Drained => "completed (node drained)".to_string(),
        graders::drain::DrainVerdict::Other(text) => format!("neither ({text})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn spec(compare: FileCompare, expected: Option<&str>) -> FileCheck {
        FileCheck {
            path: "out/tags.txt".into(),
            compare,
            expected: expected.map(str::to_string),
            normalise: vec![Normaliser::TrailingWhitespace, Normaliser::FinalNewline],
        }
    }

    fn dirs(
        learner: Option<&str>,
        reference: Option<&str>,
    ) -> (tempfile::TempDir, tempfile::TempDir) {
        let l = tempfile::tempdir().expect("tempdir");
        let r = tempfile::tempdir().expect("tempdir");
        for (dir, text) in [(&l, learner), (&r, reference)] {
            if let Some(text) = text {
                fs::create_dir_all(dir.path().join("out")).expect("mkdir");
                fs::write(dir.path().join("out/tags.txt"), text).expect("write");
            }
        }
        (l, r)
    }

    #[test]
    fn missing_learner_file() {
        let (l, r) = dirs(None, Some("x\n"));
        let outcome = check_file(&spec(FileCompare::Exact, None), l.path(), r.path());
        assert!(!outcome.passed);
        assert_eq!(outcome.message, "missing file out/tags.txt");
    }

    #[test]
    fn normalised_equal_passes_and_difference_has_diff() {
        let (l, r) = dirs(
            Some("lab-node-0 550-5.15.0-119-generic-ubuntu22.04  "),
            Some("lab-node-0 550-5.15.0-119-generic-ubuntu22.04\n"),
        );
        assert!(check_file(&spec(FileCompare::Exact, None), l.path(), r.path()).passed);
        let (l, r) = dirs(Some("lab-node-0 550.90.07\n"), Some("lab-node-0 550\n"));
        let outcome = check_file(&spec(FileCompare::Exact, None), l.path(), r.path());
        assert!(!outcome.passed);
        let diff = outcome.diff.expect("a diff");
        assert!(
            diff.contains("-lab-node-0 550\n") && diff.contains("+lab-node-0 550.90.07"),
            "{diff}"
        );
    }

    #[test]
    fn literal_ignores_reference() {
        let (l, r) = dirs(Some("OK\n"), None);
        assert!(check_file(&spec(FileCompare::Literal, Some("OK")), l.path(), r.path()).passed);
    }

    /// A saved `kubectl` error among warnings holds the reference's lines; without them it fails
    /// naming the first one missing.
    #[test]
    fn contains_takes_the_reference_or_the_expected_lines() {
        let error = "error: cannot delete Pods that declare no controller\n";
        let saved = format!("Warning: deleting Pods that declare no controller\n{error}");
        let (l, r) = dirs(Some(&saved), Some(error));
        assert!(check_file(&spec(FileCompare::Contains, None), l.path(), r.path()).passed);
        let (l, r) = dirs(Some("node/lab-node-1 drained\n"), Some(error));
        let outcome = check_file(&spec(FileCompare::Contains, None), l.path(), r.path());
        assert!(!outcome.passed);
        assert_eq!(
            outcome.message,
            "out/tags.txt does not hold the lines the reference solution produces"
        );
        assert!(outcome
            .diff
            .is_some_and(|diff| diff.contains("expected line 1 is missing")),);
        let (l, r) = dirs(Some(&saved), None);
        let expected = Some("error: cannot delete Pods that declare no controller");
        assert!(check_file(&spec(FileCompare::Contains, expected), l.path(), r.path()).passed);
    }

    #[test]
    fn pattern_names_the_first_line_that_does_not_match() {
        let patterns = Some("lab-node-\\d+ \\d{3}-.*\nnodes: \\d+");
        let (l, r) = dirs(Some("lab-node-0 550-5.15.0\nnodes: 3\n"), None);
        assert!(check_file(&spec(FileCompare::Pattern, patterns), l.path(), r.path()).passed);
        let (l, r) = dirs(Some("lab-node-0 550-5.15.0\nnodes: three\n"), None);
        let outcome = check_file(&spec(FileCompare::Pattern, patterns), l.path(), r.path());
        assert!(!outcome.passed);
        assert!(
            outcome
                .message
                .starts_with("out/tags.txt: line 2 does not match the expected pattern:"),
            "{}",
            outcome.message
        );
        assert!(
            outcome.message.contains("line:    nodes: three"),
            "{}",
            outcome.message
        );
    }
}
