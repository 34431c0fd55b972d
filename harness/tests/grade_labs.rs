//! End to end on the real labs: every bundled submission (and every test fixture under
//! tests/fixtures/submissions/<lab>/<case>/) must get the result its expect.yaml states.

use std::path::PathBuf;

use assert_cmd::cargo::cargo_bin_cmd;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn demo(extra: &[&str]) -> (Option<i32>, String, String) {
    let output = cargo_bin_cmd!("proctor")
        .args(["demo", "--color", "never", "--quiet", "--scenarios"])
        .arg(repo().join("scenarios"))
        .args(extra)
        .output()
        .expect("proctor demo runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn summary(stdout: &str) -> &str {
    stdout
        .rsplit_once("\nSummary\n")
        .map(|(_, rest)| rest)
        .unwrap_or("")
}

#[test]
fn bundled_submissions_meet_their_expectations() {
    if !repo().join("scenarios").is_dir() {
        return;
    }
    let (code, stdout, stderr) = demo(&[]);
    let summary = summary(&stdout);
    assert!(
        !summary.is_empty(),
        "no summary\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        !summary.contains('✗'),
        "an expectation failed:\n{summary}\n\nfull output:\n{stdout}"
    );
    assert_eq!(code, Some(0), "{summary}\n{stderr}");
    for lab in ["gpudrv", "gpuops"] {
        assert!(
            summary.contains(&format!("✓ {lab} ")),
            "{lab} was graded:\n{summary}"
        );
    }
}
