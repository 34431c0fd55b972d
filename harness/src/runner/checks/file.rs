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
    let expected = match (spec.compare, &spec.expected) {
        (FileCompare::Literal, Some(literal)) => literal.clone(),
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
}
