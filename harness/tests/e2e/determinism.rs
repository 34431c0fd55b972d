//! Determinism of grading, through the binary: the same submission graded again and again gives
//! the same report once what is truly run-specific is normalised (the execution time, random
//! name suffixes, temporary paths, measured durations), and submissions graded in parallel get
//! the same verdicts as graded one by one.
//!
//! The default run grades a small lab written on the fly. The `#[ignore]`d soak versions (run by
//! `just soak`) grade the real labs' bundled submissions 50 times each and 20 at once.
//! `PROCTOR_DETERMINISM_RUNS` overrides how often each submission is graded,
//! `PROCTOR_DETERMINISM_PARALLEL` how many gradings the soak runs at once.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::cargo::cargo_bin_cmd;
use regex::Regex;
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Normalising a report

/// Rewrites what differs between two gradings of the same submission and nothing else.
struct Normaliser {
    /// A generated name: dash-separated words ending in a 5-character suffix from the alphabet
    /// of apimachinery's `util/rand.String` (no vowels, no 0/1/3), e.g. `gpu-node-7xk2p` or
    /// `web-6d4cf56db6-x2k4p`. Words with a vowel (`generic`, `kubectl`) are never suffixes.
    generated: Regex,
    /// A path under the temp dir: its first component holds a random part (`.tmpAb12Cd`,
    /// `proctor-cluster-Xy9...`); what follows it is kept.
    temporary: Regex,
    /// A measured duration (`1.234s`, `350ms`); whole seconds (`timeout 30s`) are configured
    /// limits, not measurements, and stay.
    measured: Regex,
}

fn normaliser() -> &'static Normaliser {
    static NORMALISER: OnceLock<Normaliser> = OnceLock::new();
    NORMALISER.get_or_init(|| {
        let mut temp_roots = vec![
            "/tmp".to_string(),
            "/var/tmp".to_string(),
            "/dev/shm".to_string(),
        ];
        let temp = std::env::temp_dir().display().to_string();
        let temp = temp.trim_end_matches('/').to_string();
        if !temp.is_empty() && !temp_roots.contains(&temp) {
            temp_roots.push(temp);
        }
        let roots: Vec<String> = temp_roots.iter().map(|root| regex::escape(root)).collect();
        Normaliser {
            generated: Regex::new(r"\b((?:[a-z0-9]+-)+)[bcdfghjklmnpqrstvwxz2456789]{5}\b")
                .expect("valid regex"),
            temporary: Regex::new(&format!(r#"(?:{})/[^\s/"':]+"#, roots.join("|")))
                .expect("valid regex"),
            measured: Regex::new(r"\b\d+\.\d+ ?(?:s|ms|µs)\b|\b\d+ ?(?:ms|µs)\b")
                .expect("valid regex"),
        }
    })
}

fn normalise_text(text: &str) -> String {
    let n = normaliser();
    let text = n.temporary.replace_all(text, "<tmp>");
    let text = n.generated.replace_all(&text, "${1}<suffix>");
    n.measured.replace_all(&text, "<duration>").into_owned()
}

/// The report with run-specific values replaced; everything else (names, numbers, scores,
/// statuses, outputs) is kept as it was.
fn normalise_report(report: &Value) -> Value {
    fn walk(value: &Value, key: Option<&str>) -> Value {
        match value {
            // Gradescope's `execution_time`: wall-clock seconds of this run.
            Value::Number(_) if key == Some("execution_time") => Value::from(0),
            Value::String(text) => Value::String(normalise_text(text)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| walk(item, None)).collect())
            }
            Value::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(name, field)| (name.clone(), walk(field, Some(name))))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    walk(report, None)
}

#[test]
fn the_normaliser_hides_only_what_is_run_specific() {
    for (raw, expected) in [
        (
            "./drv-tag.sh gpu-node-7xk2p",
            "./drv-tag.sh gpu-node-<suffix>",
        ),
        (
            "pod web-6d4cf56db6-x2k4p on tier-node-bq9zz",
            "pod web-6d4cf56db6-<suffix> on tier-node-<suffix>",
        ),
        (
            "cannot read /tmp/.tmpAb12Cd/state-1/tier.sh",
            "cannot read <tmp>/state-1/tier.sh",
        ),
        ("took 1.25s, then 350ms", "took <duration>, then <duration>"),
    ] {
        assert_eq!(normalise_text(raw), expected, "{raw}");
    }
    // Lab node names, tags, versions, configured limits, placeholders the harness already wrote
    // and words without vowels of another length stay as they are.
    for kept in [
        "lab-node-0 550-6.8.0-60-generic-ubuntu24.04",
        "gpu-node-<gpu-unbuilt> MISSING driver",
        "timed out after 30s (limit 1 GiB)",
        "tier.sh differs from the reference on 1 of 2 run(s)",
        "-silver\n+gold",
        "kube-system/dns-rfc1123 crlf",
        "/root/mini/out/tier.txt",
    ] {
        assert_eq!(normalise_text(kept), kept);
    }
    let report = serde_json::json!({
        "score": 4.0, "execution_time": 3,
        "tests": [{"number": "1.3", "score": 0.0, "output": "./tier.sh tier-node-x2k4p: stdout differs"}]
    });
    assert_eq!(
        normalise_report(&report),
        serde_json::json!({
            "score": 4.0, "execution_time": 0,
            "tests": [{"number": "1.3", "score": 0.0, "output": "./tier.sh tier-node-<suffix>: stdout differs"}]
        })
    );
}

// ---------------------------------------------------------------------------------------------
// Grading through the binary

struct Graded {
    code: Option<i32>,
    report: Value,
}

impl Graded {
    fn normalised(&self) -> Value {
        normalise_report(&self.report)
    }

    /// (number, score, status) of every graded check, in report order.
    fn verdicts(&self) -> Vec<(String, f64, String)> {
        self.report["tests"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|test| {
                (
                    test["number"].as_str().unwrap_or("?").to_string(),
                    test["score"].as_f64().unwrap_or(f64::NAN),
                    test["status"].as_str().unwrap_or("?").to_string(),
                )
            })
            .collect()
    }
}

/// `proctor grade <lab> --submission D --format json`, with a private reference cache so that
/// the first grading computes the reference and the later ones may reuse it.
fn grade(scenarios: &Path, lab: &str, submission: &Path, cache: &Path) -> Graded {
    let output = cargo_bin_cmd!("proctor")
        .args([
            "grade", lab, "--format", "json", "--quiet", "--color", "never",
        ])
        .arg("--scenarios")
        .arg(scenarios)
        .arg("--submission")
        .arg(submission)
        .env("PROCTOR_CACHE", cache)
        .env_remove("KUBECONFIG")
        .output()
        .expect("proctor runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!(
            "grading {} gave no JSON report ({error}); exit {:?}\nstdout: {stdout}\nstderr: {}",
            submission.display(),
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    Graded {
        code: output.status.code(),
        report,
    }
}

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.trim().parse().ok())
        .filter(|count| *count > 0)
        .unwrap_or(default)
}

fn runs(default: usize) -> usize {
    env_count("PROCTOR_DETERMINISM_RUNS", default)
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn diff(expected: &Value, actual: &Value) -> String {
    let (expected, actual) = (pretty(expected), pretty(actual));
    similar::TextDiff::from_lines(&expected, &actual)
        .unified_diff()
        .header("first grading", "this grading")
        .to_string()
}

/// A submission to grade: its lab, a name for messages, its directory.
struct Case {
    lab: String,
    name: String,
    dir: PathBuf,
}

/// Grades every case `runs` times one after the other; every report must equal the case's first
/// after normalising, exit code included. Returns the first reports.
fn assert_repeatable(scenarios: &Path, cases: &[Case], runs: usize, cache: &Path) -> Vec<Graded> {
    let mut firsts = Vec::new();
    for case in cases {
        let first = grade(scenarios, &case.lab, &case.dir, cache);
        let expected = first.normalised();
        for run in 2..=runs {
            let again = grade(scenarios, &case.lab, &case.dir, cache);
            let actual = again.normalised();
            assert!(
                actual == expected && again.code == first.code,
                "{} {}: grading #{run} differs from the first (exit {:?} vs {:?}):\n{}",
                case.lab,
                case.name,
                again.code,
                first.code,
                diff(&expected, &actual)
            );
        }
        firsts.push(first);
    }
    firsts
}

/// Grades every case once serially, then `copies` of each case list at once (threads spawning
/// the binary concurrently); every parallel grading must give the serial verdicts and report.
fn assert_parallel_matches_serial(scenarios: &Path, cases: &[Case], parallel: usize, cache: &Path) {
    let serial: Vec<Graded> = cases
        .iter()
        .map(|case| grade(scenarios, &case.lab, &case.dir, cache))
        .collect();
    let jobs: Vec<usize> = (0..parallel).map(|job| job % cases.len()).collect();
    let concurrent: Vec<(usize, Graded)> = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|&index| {
                let case = &cases[index];
                scope.spawn(move || (index, grade(scenarios, &case.lab, &case.dir, cache)))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("grading thread"))
            .collect()
    });
    for (index, graded) in &concurrent {
        let case = &cases[*index];
        let alone = &serial[*index];
        assert_eq!(
            graded.verdicts(),
            alone.verdicts(),
            "{} {}: graded in parallel, the verdicts differ from grading one by one",
            case.lab,
            case.name
        );
        assert_eq!(graded.code, alone.code, "{} {}", case.lab, case.name);
        let (expected, actual) = (alone.normalised(), graded.normalised());
        assert!(
            expected == actual,
            "{} {}: graded in parallel, the report differs from grading one by one:\n{}",
            case.lab,
            case.name,
            diff(&expected, &actual)
        );
    }
}

fn test_numbered<'a>(report: &'a Value, number: &str) -> &'a Value {
    report["tests"]
        .as_array()
        .and_then(|tests| tests.iter().find(|test| test["number"] == number))
        .unwrap_or_else(|| panic!("no test {number} in {report:#}"))
}

// ---------------------------------------------------------------------------------------------
// Default run: a small lab written on the fly

/// Three perturbations share a name prefix, so the order of the injected nodes by name changes
/// with their random suffixes; step 3 runs a Deployment whose pod names are generated.
const SCENARIO: &str = r#"
apiVersion: proctor/v1
kind: Scenario
name: tiers
title: Tiers, settings and pods
labDir: /root/tiers
cluster:
  nodes:
    - name: lab-node-0
    - name: lab-node-1
perturbations:
  silver: {namePrefix: tier-node-, labels: {tier: silver}}
  bronze: {namePrefix: tier-node-, labels: {tier: bronze}}
  copper: {namePrefix: tier-node-, labels: {tier: copper}}
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
      - id: tier-file
        title: out/tier.txt
        points: 2
        file: {path: out/tier.txt, normalise: [trailingWhitespace, finalNewline]}
      - id: tier-script
        title: tier.sh reads the label
        points: 3
        hint: "Read the label with kubectl."
        script:
          path: tier.sh
          args: ["{node}"]
          nodes: {selector: tier}
          inject: [silver, bronze, copper]
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
            - {kind: ConfigMap, name: settings, namespace: default, expect: {data: {mode: fast}}}
      - id: live
        title: ConfigMap settings exists
        object: {resource: configmaps, namespace: default, name: settings, expect: {data: {mode: fast}}, timeout: 5s}
  - id: 3
    title: Pods
    reference: |
      cp "$SCENARIO_DIR/reference/k8s/web.yaml" k8s/web.yaml
      kubectl apply -f k8s/web.yaml
      install -m 0755 "$SCENARIO_DIR/reference/pods.sh" pods.sh
    artifacts: [k8s/web.yaml, pods.sh]
    replay: |
      kubectl apply -f k8s/web.yaml
    checks:
      - id: web-pods
        title: two web pods
        object: {resource: pods, namespace: default, selector: app=web, count: 2, expect: {status: {phase: Running}}, timeout: 10s}
      - id: pods-script
        title: pods.sh lists the web pods and their nodes
        points: 2
        script: {path: pods.sh}
"#;

const TIER_SH: &str =
    "#!/bin/bash\nkubectl get node \"$1\" -o jsonpath='{.metadata.labels.tier}'\necho\n";
const HARD_CODED_TIER_SH: &str = "#!/bin/bash\necho gold\n";
const SETTINGS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  mode: fast\n";
const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - {name: web, image: nginx}\n";
const PODS_SH: &str = "#!/bin/bash\nkubectl get pods -l app=web --sort-by=.metadata.name -o jsonpath='{range .items[*]}{.metadata.name} {.spec.nodeName}{\"\\n\"}{end}'\n";
/// Pod names without their nodes: the diff shows generated pod names.
const NAMES_ONLY_PODS_SH: &str =
    "#!/bin/bash\nkubectl get pods -l app=web --sort-by=.metadata.name -o name\n";

fn write(path: &Path, text: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// scenarios/tiers/{scenario.yaml, reference/...}
fn tiers_lab() -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("tempdir");
    let dir = root.path().join("tiers");
    write(&dir.join("scenario.yaml"), SCENARIO, 0o644);
    write(&dir.join("reference/tier.sh"), TIER_SH, 0o755);
    write(&dir.join("reference/pods.sh"), PODS_SH, 0o755);
    write(&dir.join("reference/k8s/settings.yaml"), SETTINGS, 0o644);
    write(&dir.join("reference/k8s/web.yaml"), WEB, 0o644);
    root
}

/// A submission made of (path, text, mode) files.
fn tiers_submission(files: &[(&str, &str, u32)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, text, mode) in files {
        write(&dir.path().join(path), text, *mode);
    }
    dir
}

fn correct_files() -> Vec<(&'static str, &'static str, u32)> {
    vec![
        ("tier.sh", TIER_SH, 0o755),
        ("out/tier.txt", "gold\n", 0o644),
        ("k8s/settings.yaml", SETTINGS, 0o644),
        ("k8s/web.yaml", WEB, 0o644),
        ("pods.sh", PODS_SH, 0o755),
    ]
}

/// The correct files with some replaced.
fn files_with(
    changes: &[(&'static str, &'static str, u32)],
) -> Vec<(&'static str, &'static str, u32)> {
    let mut files = correct_files();
    for change in changes {
        match files.iter_mut().find(|file| file.0 == change.0) {
            Some(file) => *file = *change,
            None => files.push(*change),
        }
    }
    files
}

fn tiers_case(name: &str, dir: &Path) -> Case {
    Case {
        lab: "tiers".to_string(),
        name: name.to_string(),
        dir: dir.to_path_buf(),
    }
}

#[test]
fn the_same_submission_graded_repeatedly_gives_the_same_report() {
    let root = tiers_lab();
    let cache = tempfile::tempdir().expect("tempdir");
    let good = tiers_submission(&correct_files());
    // Partly wrong: the tier is hard-coded (wrong on the three injected nodes) and pods.sh
    // leaves out the nodes (its diff names generated pods).
    let partly = tiers_submission(&files_with(&[
        ("tier.sh", HARD_CODED_TIER_SH, 0o755),
        ("pods.sh", NAMES_ONLY_PODS_SH, 0o755),
    ]));
    let cases = [
        tiers_case("correct", good.path()),
        tiers_case("partly-wrong", partly.path()),
    ];
    let firsts = assert_repeatable(root.path(), &cases, runs(5), cache.path());

    // What was compared still holds the per-check scores and outputs.
    let (good, partly) = (firsts[0].normalised(), firsts[1].normalised());
    assert_eq!(firsts[0].code, Some(0), "{good:#}");
    assert_eq!(firsts[1].code, Some(1), "{partly:#}");
    assert_eq!(good["score"], 10.0, "{good:#}");
    assert_eq!(
        firsts[1].verdicts(),
        vec![
            ("1.1".to_string(), 2.0, "passed".to_string()),
            ("1.2".to_string(), 0.0, "failed".to_string()),
            ("2.1".to_string(), 1.0, "passed".to_string()),
            ("2.2".to_string(), 1.0, "passed".to_string()),
            ("3.1".to_string(), 1.0, "passed".to_string()),
            ("3.2".to_string(), 0.0, "failed".to_string()),
        ]
    );
    let tiers = test_numbered(&partly, "1.2")["output"]
        .as_str()
        .expect("output");
    assert!(
        tiers.starts_with("tier.sh differs from the reference on 3 of 4 run(s)"),
        "{tiers}"
    );
    for tier in ["silver", "bronze", "copper"] {
        assert!(
            tiers.contains(&format!("./tier.sh tier-node-<{tier}>: stdout differs")),
            "{tiers}"
        );
        assert!(tiers.contains(&format!("-{tier}\n+gold")), "{tiers}");
    }
    assert!(
        tiers.contains("hint: Read the label with kubectl."),
        "{tiers}"
    );
    let pods = test_numbered(&partly, "3.2")["output"]
        .as_str()
        .expect("output");
    assert!(
        pods.contains("-web-")
            && pods.contains("-<suffix> lab-node-")
            && pods.contains("+pod/web-"),
        "the diff names the pods, their generated suffixes normalised: {pods}"
    );
    assert_ne!(
        good, partly,
        "normalising must not make different reports equal"
    );
}

#[test]
fn grading_in_parallel_gives_the_verdicts_of_grading_one_by_one() {
    let root = tiers_lab();
    let cache = tempfile::tempdir().expect("tempdir");
    let good = tiers_submission(&correct_files());
    let hard_coded = tiers_submission(&files_with(&[("tier.sh", HARD_CODED_TIER_SH, 0o755)]));
    let empty = tiers_submission(&[]);
    let crlf = TIER_SH.replace('\n', "\r\n");
    let wrong_settings = SETTINGS.replace("fast", "slow");
    let broken = tiers_submission(&[
        ("tier.sh", &crlf, 0o755),
        ("out/tier.txt", "silver\n", 0o644),
        ("k8s/settings.yaml", &wrong_settings, 0o644),
        ("pods.sh", NAMES_ONLY_PODS_SH, 0o755),
    ]);
    let cases = [
        tiers_case("correct", good.path()),
        tiers_case("hard-coded", hard_coded.path()),
        tiers_case("empty", empty.path()),
        tiers_case("crlf-wrong-settings-no-deployment", broken.path()),
    ];
    let parallel = env_count("PROCTOR_DETERMINISM_PARALLEL", cases.len());
    assert_parallel_matches_serial(root.path(), &cases, parallel, cache.path());
}

// ---------------------------------------------------------------------------------------------
// Soak (`just soak`): the real labs

/// Every bundled submission of every lab, with the exit status its expect.yaml gives.
fn real_cases() -> Vec<(Case, i32)> {
    let mut cases = Vec::new();
    for (lab, file) in crate::common::real_labs() {
        for submission in crate::common::bundled(&lab, &file) {
            let code = crate::common::exit_for(&submission.expect);
            let case = Case {
                lab: lab.clone(),
                name: submission.name,
                dir: submission.dir,
            };
            cases.push((case, code));
        }
    }
    cases
}

#[test]
#[ignore = "soak: 50 gradings of each real submission (just soak)"]
fn soak_real_submissions_graded_repeatedly_give_the_same_report() {
    let scenarios = crate::common::repo().join("scenarios");
    let (cases, codes): (Vec<Case>, Vec<i32>) = real_cases().into_iter().unzip();
    let cache = tempfile::tempdir().expect("tempdir");
    let firsts = assert_repeatable(&scenarios, &cases, runs(50), cache.path());
    for ((case, first), code) in cases.iter().zip(&firsts).zip(codes) {
        let tests = first.report["tests"].as_array().map_or(0, Vec::len);
        assert!(tests > 0, "{} {}: no checks graded", case.lab, case.name);
        assert_eq!(first.code, Some(code), "{} {}", case.lab, case.name);
    }
}

#[test]
#[ignore = "soak: 20 real gradings at once vs one by one (just soak)"]
fn soak_real_submissions_graded_in_parallel_give_the_serial_verdicts() {
    let scenarios = crate::common::repo().join("scenarios");
    let cases: Vec<Case> = real_cases().into_iter().map(|(case, _)| case).collect();
    let cache = tempfile::tempdir().expect("tempdir");
    let parallel = env_count("PROCTOR_DETERMINISM_PARALLEL", 20);
    assert_parallel_matches_serial(&scenarios, &cases, parallel, cache.path());
}
