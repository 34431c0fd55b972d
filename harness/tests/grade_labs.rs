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

fn proctor(args: &[&str]) -> std::process::Output {
    cargo_bin_cmd!("proctor")
        .args(args)
        .args(["--color", "never", "--scenarios"])
        .arg(repo().join("scenarios"))
        .output()
        .expect("proctor runs")
}

#[test]
fn selftest_proves_both_labs() {
    for lab in ["gpudrv", "gpuops"] {
        let out = proctor(&["selftest", lab]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "selftest {lab}:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A learner's session: `proctor up`, a failing self-check, the work done (here by the reference
/// solution), then every step's self-check passing on the live cluster.
#[test]
fn a_learner_self_checks_gpuops_on_proctor_up() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    let work = tempfile::tempdir().expect("tempdir");
    let kubeconfig = work.path().join("kubeconfig");
    let lab_dir = work.path().join("gpuops");
    let mut up = Command::new(assert_cmd::cargo::cargo_bin!("proctor"))
        .args(["up", "gpuops", "--scenarios"])
        .arg(repo().join("scenarios"))
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--lab-dir")
        .arg(&lab_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("proctor up starts");
    let mut line = String::new();
    BufReader::new(up.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("export line");
    assert_eq!(
        line.trim_end(),
        format!("export KUBECONFIG={}", kubeconfig.display())
    );
    let kc = kubeconfig.to_str().expect("utf-8 path");
    let dir = lab_dir.to_str().expect("utf-8 path");

    let before = proctor(&[
        "check",
        "gpuops",
        "--step",
        "1",
        "--kubeconfig",
        kc,
        "--dir",
        dir,
    ]);
    assert_eq!(before.status.code(), Some(1), "step 1 is not done yet");

    let solved = proctor(&["solve", "gpuops", "--dir", dir, "--kubeconfig", kc]);
    assert_eq!(
        solved.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&solved.stderr)
    );
    for step in 1..=8 {
        let s = step.to_string();
        let out = proctor(&[
            "check",
            "gpuops",
            "--step",
            &s,
            "--kubeconfig",
            kc,
            "--dir",
            dir,
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "step {step}:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(up.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    );
    let _ = up.wait();
}
