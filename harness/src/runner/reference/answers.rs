//! The reference's answers that a learner's script run must not see.
//!
//! A learner's script runs in a copy of R_n (the reference's lab dir after step n), so that both
//! scripts read the same data files. R_n also holds what the reference produced for step n — a
//! script that prints `out/tags.txt` would print the reference's tags. Those files are taken out
//! of the learner's copy (the learner's own versions, when the submission has them, take their
//! place), and so is any file that already holds a later step's final answer.
//!
//! A later step's artifact that R_n holds in an earlier form stays: it is the state the step
//! starts from (gpudrv's `support-matrix.csv` has three rows at step 3 and is graded at step 7).

use std::path::{Path, PathBuf};

use crate::runner::workdir::read_lab_file;
use crate::scenario::Scenario;

/// The files of R_{index+1} hidden from the learner's runs of step `index` (0-based).
/// `dir(k)` is R_k: `dir(0)` the start, `dir(k)` the dir after the k-th step.
pub fn hidden_answers<'a>(
    scenario: &Scenario,
    index: usize,
    dir: impl Fn(usize) -> Option<&'a Path>,
) -> Vec<PathBuf> {
    let Some(step) = scenario.steps.get(index) else {
        return Vec::new();
    };
    let mut hidden: Vec<PathBuf> = step.artifacts.clone();
    let Some(here) = dir(index + 1) else {
        return hidden;
    };
    for (later, step) in scenario.steps.iter().enumerate().skip(index + 1) {
        for artifact in &step.artifacts {
            if hidden.contains(artifact) {
                continue;
            }
            let now = read_lab_file(here, artifact);
            if now.is_some() && now == dir(later + 1).and_then(|d| read_lab_file(d, artifact)) {
                hidden.push(artifact.clone());
            }
        }
    }
    hidden
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn scenario(artifacts: &[&[&str]]) -> Scenario {
        let steps: Vec<String> = artifacts
            .iter()
            .enumerate()
            .map(|(k, files)| {
                format!(
                    "  - id: {}\n    title: s\n    artifacts: [{}]\n",
                    k + 1,
                    files.join(", ")
                )
            })
            .collect();
        let text = format!(
            "apiVersion: proctor/v1\nkind: Scenario\nname: t\ntitle: t\nlabDir: /root/t\nsteps:\n{}",
            steps.concat()
        );
        serde_yaml::from_str(&text).expect("scenario")
    }

    fn write(dir: &Path, name: &str, text: &str) {
        let path = dir.join(name);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    }

    #[test]
    fn a_steps_own_artifacts_and_later_answers_already_there_are_hidden() {
        let dirs: Vec<tempfile::TempDir> =
            (0..4).map(|_| tempfile::tempdir().expect("tmp")).collect();
        // Step 1 writes tag.sh and out/tags.txt, and the matrix in its first form; step 2 writes
        // out/audit.txt in its final form already (step 3 leaves it), step 3 the matrix's final form.
        for dir in &dirs[1..] {
            write(dir.path(), "tag.sh", "echo tag");
            write(dir.path(), "out/tags.txt", "a 1");
        }
        write(dirs[1].path(), "matrix.csv", "three rows");
        write(dirs[2].path(), "matrix.csv", "three rows");
        write(dirs[3].path(), "matrix.csv", "five rows");
        write(dirs[2].path(), "out/audit.txt", "OK");
        write(dirs[3].path(), "out/audit.txt", "OK");
        let lab = scenario(&[
            &["tag.sh", "out/tags.txt"],
            &["out/skew.txt"],
            &["matrix.csv", "out/audit.txt"],
        ]);
        let dir = |k: usize| dirs.get(k).map(|d| d.path());
        assert_eq!(
            hidden_answers(&lab, 0, dir),
            vec![PathBuf::from("tag.sh"), PathBuf::from("out/tags.txt")]
        );
        assert_eq!(
            hidden_answers(&lab, 1, dir),
            vec![
                PathBuf::from("out/skew.txt"),
                PathBuf::from("out/audit.txt")
            ],
            "the matrix in its first form is state; the audit is already the final answer"
        );
        assert_eq!(
            hidden_answers(&lab, 2, dir),
            vec![PathBuf::from("matrix.csv"), PathBuf::from("out/audit.txt")]
        );
        assert_eq!(hidden_answers(&lab, 3, dir), Vec::<PathBuf>::new());
    }
}
