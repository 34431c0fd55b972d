//! `proctor selftest` refuses a scenario whose reference does not pass its own checks, naming the
//! step and showing the diff, and a scenario whose reference cannot run at all.

use std::fs;
use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;

fn scenario(root: &Path, reference: &str) {
    let dir = root.join("mini");
    fs::create_dir_all(&dir).expect("mkdir");
    let text = format!(
        r#"apiVersion: proctor/v1
kind: Scenario
name: mini
title: Tiers
labDir: /root/mini
cluster:
  nodes:
    - name: lab-node-0
limits:
  output: 64KiB
steps:
  - id: 1
    title: Tier label
    reference: |
{}
    artifacts: [out/tier.txt]
    checks:
      - id: label
        title: lab-node-0 is platinum
        modes: [check]
        object: {{resource: nodes, name: lab-node-0, expect: {{metadata: {{labels: {{tier: platinum}}}}}}, timeout: 2s}}
      - id: file
        title: out/tier.txt names the tier
        file: {{path: out/tier.txt, compare: literal, expected: "platinum\n"}}
"#,
        reference
            .lines()
            .map(|l| format!("      {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    fs::write(dir.join("scenario.yaml"), text).expect("write");
}

fn selftest(root: &Path) -> (i32, String, String) {
    let out = cargo_bin_cmd!("proctor")
        .args(["selftest", "mini", "--color", "never", "--scenarios"])
        .arg(root)
        .env("PROCTOR_CACHE", root.join("cache"))
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_reference_that_fails_its_checks_is_refused_with_the_step_and_the_diff() {
    let root = tempfile::tempdir().expect("tempdir");
    scenario(
        root.path(),
        "kubectl label node lab-node-0 tier=gold\nmkdir -p out\necho gold > out/tier.txt",
    );
    let (code, stdout, stderr) = selftest(root.path());
    assert_eq!(
        code, 1,
        "a failed selftest is a failed check\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("✗ step 1 passes when done"), "{stdout}");
    assert!(
        stdout.contains(r#"1.1 lab-node-0 is platinum: lab-node-0: metadata.labels.tier: expected platinum, got gold"#),
        "{stdout}"
    );
    // The file check's unified diff, expected against what the reference wrote.
    assert!(
        stdout.contains("1.2 out/tier.txt names the tier"),
        "{stdout}"
    );
    assert!(stdout.contains("-platinum\n        +gold"), "{stdout}");
    assert!(
        stdout.contains("✗ the reference solution grades full marks"),
        "{stdout}"
    );
    assert!(stdout.contains("failed"), "{stdout}");
}

#[test]
fn a_correct_reference_passes() {
    let root = tempfile::tempdir().expect("tempdir");
    scenario(
        root.path(),
        "kubectl label node lab-node-0 tier=platinum\nmkdir -p out\necho platinum > out/tier.txt",
    );
    let (code, stdout, stderr) = selftest(root.path());
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("✓ step 1 passes when done"), "{stdout}");
    assert!(!stdout.contains('✗'), "{stdout}");
}

/// A reference shell that breaks a limit (here: 200 KB of output against a 64 KiB limit; a hung
/// one is stopped the same way, after at least 180 s) is the scenario's fault: exit 2, the step
/// named, and no verdict about any submission.
#[test]
fn a_reference_that_breaks_a_limit_is_a_scenario_error_naming_the_step() {
    let root = tempfile::tempdir().expect("tempdir");
    scenario(root.path(), "head -c 200000 /dev/zero | tr '\\0' x");
    let (code, stdout, stderr) = selftest(root.path());
    assert_eq!(
        code, 2,
        "proctor could not prove the scenario\n{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains("the reference of step 1 failed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("64 KiB") || stderr.contains("output"),
        "{stderr}"
    );
    assert!(!stdout.contains("passed"), "no selftest verdicts: {stdout}");
    // The message quotes the end of the transcript, not all 200 KB of it.
    assert!(stderr.len() < 8_000, "{} bytes of stderr", stderr.len());
}
