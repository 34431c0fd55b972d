//! End to end: a small lab written on the fly, graded on the embedded cluster through the
//! binary, in every report format. Exercises the reference run, replay, object, manifest,
//! script (with an injected node) and file checks.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

const SCENARIO: &str = r#"
apiVersion: proctor/v1
kind: Scenario
name: mini
title: Tiers and settings
labDir: /root/mini
cluster:
  nodes:
    - name: lab-node-0
    - name: lab-node-1
perturbations:
  silver:
    namePrefix: tier-node-
    labels: {tier: silver}
steps:
  - id: 1
    title: Tier tool
    reference: |
      kubectl label node lab-node-0 tier=gold
      install -m 0755 "$SCENARIO_DIR/reference/tier.sh" tier.sh
      mkdir -p out
      ./tier.sh lab-node-0 > out/tier.txt
    artifacts: [tier.sh, out/tier.txt]
    checks:
      - id: label
        title: lab-node-0 is gold
        modes: [check]
        object: {resource: nodes, name: lab-node-0, expect: {metadata: {labels: {tier: gold}}}}
      - id: tier-file
        title: out/tier.txt
        points: 2
        hint: "Write the tier of lab-node-0."
        file: {path: out/tier.txt, normalise: [trailing-whitespace, final-newline]}
      - id: tier-script
        title: tier.sh reads the label
        points: 3
        visibility: hidden
        hint: "Read the label with kubectl."
        hints:
          - match: 'echo gold'
            say: "Never hard-code the tier."
        script:
          path: tier.sh
          args: ["{node}"]
          nodes: {selector: tier}
          inject: [silver]
  - id: 2
    title: Settings
    reference: |
      mkdir -p k8s
      cp "$SCENARIO_DIR/reference/k8s/settings.yaml" k8s/settings.yaml
      kubectl apply -f k8s/settings.yaml
    artifacts: [k8s/settings.yaml]
    replay: |
      kubectl apply -f k8s/settings.yaml
    checks:
      - id: manifest
        title: k8s/settings.yaml declares ConfigMap settings
        manifest:
          path: k8s/settings.yaml
          objects:
            - kind: ConfigMap
              name: settings
              namespace: default
              expect: {data: {mode: fast}}
      - id: live
        title: ConfigMap settings exists
        object: {resource: configmaps, namespace: default, name: settings, expect: {data: {mode: fast}}, timeout: 5s}
"#;

const TIER_SH: &str = "#!/bin/bash\nkubectl get node \"$1\" -o jsonpath='{.metadata.labels.tier}'\necho\n";
const SETTINGS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  mode: fast\n";

fn write(path: &Path, text: &str, mode: u32) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(path, text).expect("write");
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

/// scenarios/mini/{scenario.yaml, reference/...}
fn lab() -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("tempdir");
    let dir = root.path().join("mini");
    write(&dir.join("scenario.yaml"), SCENARIO, 0o644);
    write(&dir.join("reference/tier.sh"), TIER_SH, 0o755);
    write(&dir.join("reference/k8s/settings.yaml"), SETTINGS, 0o644);
    root
}

fn submission(tier_sh: Option<(&str, u32)>, tier_txt: Option<&str>, settings: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    if let Some((text, mode)) = tier_sh {
        write(&dir.path().join("tier.sh"), text, mode);
    }
    if let Some(text) = tier_txt {
        write(&dir.path().join("out/tier.txt"), text, 0o644);
    }
    if let Some(text) = settings {
        write(&dir.path().join("k8s/settings.yaml"), text, 0o644);
    }
    dir
}

fn grade_json(root: &Path, submission: &Path) -> (i32, Value) {
    let output = cargo_bin_cmd!("proctor")
        .args(["grade", "mini", "--format", "json", "--quiet", "--color", "never", "--scenarios"])
        .arg(root)
        .arg("--submission")
        .arg(submission)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let json = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!("invalid JSON ({error}): {stdout}\nstderr: {}", String::from_utf8_lossy(&output.stderr))
    });
    (output.status.code().unwrap_or(-1), json)
}

fn test_named<'a>(json: &'a Value, number: &str) -> &'a Value {
    json["tests"]
        .as_array()
        .and_then(|tests| tests.iter().find(|test| test["number"] == number))
        .unwrap_or_else(|| panic!("no test {number} in {json:#}"))
}

#[test]
fn correct_submission_gets_full_marks() {
    let root = lab();
    let good = submission(Some((TIER_SH, 0o755)), Some("gold\n"), Some(SETTINGS));
    let (code, json) = grade_json(root.path(), good.path());
    assert_eq!(code, 0, "{json:#}");
    // The `check`-only label check is not graded: 2 + 3 + 1 + 1.
    assert_eq!(json["max_score"], 7.0, "{json:#}");
    assert_eq!(json["score"], 7.0, "{json:#}");
    let numbers: Vec<&str> = json["tests"].as_array().expect("tests").iter().filter_map(|t| t["number"].as_str()).collect();
    assert_eq!(numbers, vec!["1.2", "1.3", "2.1", "2.2"]);
    assert_eq!(test_named(&json, "1.3")["visibility"], "hidden");
}

#[test]
fn hard_coded_script_fails_on_the_injected_node_with_a_targeted_hint() {
    let root = lab();
    let cheat = submission(Some(("#!/bin/bash\necho gold\n", 0o755)), Some("gold\n"), Some(SETTINGS));
    let (code, json) = grade_json(root.path(), cheat.path());
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(json["score"], 4.0, "{json:#}");
    let script = test_named(&json, "1.3");
    assert_eq!(script["status"], "failed");
    let output = script["output"].as_str().expect("output");
    assert!(output.contains("tier.sh differs from the reference on 1 of 2 run(s)"), "{output}");
    // The injected node's random suffix is replaced so that reports are reproducible.
    assert!(output.contains("./tier.sh tier-node-<silver>: stdout differs"), "{output}");
    assert!(output.contains("-silver\n+gold"), "{output}");
    assert!(output.contains("hint: Never hard-code the tier."), "{output}");
}

#[test]
fn empty_submission_fails_every_check_without_crashing() {
    let root = lab();
    let empty = submission(None, None, None);
    let (code, json) = grade_json(root.path(), empty.path());
    assert_eq!(code, 1);
    assert_eq!(json["score"], 0.0);
    assert_eq!(test_named(&json, "1.2")["output"], "missing file out/tier.txt\nhint: Write the tier of lab-node-0.");
    assert!(test_named(&json, "1.3")["output"].as_str().unwrap_or("").starts_with("missing file tier.sh"));
    assert!(test_named(&json, "2.1")["output"].as_str().unwrap_or("").starts_with("missing file k8s/settings.yaml"));
    assert!(test_named(&json, "2.2")["output"].as_str().unwrap_or("").contains("configmaps/settings in namespace default not found"));
}

#[test]
fn crlf_script_and_wrong_manifest_are_explained() {
    let root = lab();
    let crlf = TIER_SH.replace('\n', "\r\n");
    let wrong = SETTINGS.replace("fast", "slow");
    let sub = submission(Some((&crlf, 0o755)), Some("gold\n"), Some(&wrong));
    let (code, json) = grade_json(root.path(), sub.path());
    assert_eq!(code, 1);
    let script = test_named(&json, "1.3")["output"].as_str().expect("output").to_string();
    assert!(script.to_lowercase().contains("crlf"), "the sandbox's CRLF problem is shown: {script}");
    let manifest = test_named(&json, "2.1")["output"].as_str().expect("output").to_string();
    assert!(manifest.starts_with("ConfigMap settings: data.mode"), "{manifest}");
}

#[test]
fn junit_and_markdown_reports() {
    let root = lab();
    let empty = submission(None, None, None);
    let out = tempfile::tempdir().expect("tempdir");
    let junit = out.path().join("report.xml");
    cargo_bin_cmd!("proctor")
        .args(["grade", "mini", "--format", "junit", "--quiet", "--scenarios"])
        .arg(root.path())
        .arg("--submission")
        .arg(empty.path())
        .arg("--output")
        .arg(&junit)
        .assert()
        .code(1);
    let xml = fs::read_to_string(&junit).expect("report written");
    assert!(xml.contains("<testsuite name=\"1. Tier tool\" tests=\"2\" failures=\"2\""), "{xml}");
    assert!(xml.contains("<failure message=\"missing file out/tier.txt\""), "{xml}");
    let output = cargo_bin_cmd!("proctor")
        .args(["grade", "mini", "--format", "markdown", "--quiet", "--scenarios"])
        .arg(root.path())
        .arg("--submission")
        .arg(empty.path())
        .output()
        .expect("runs");
    let md = String::from_utf8_lossy(&output.stdout);
    assert!(md.contains("**Score: 0 / 7**"), "{md}");
}
