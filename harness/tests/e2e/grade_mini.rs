//! End to end: a small lab written on the fly, graded on the embedded cluster through the
//! binary, in every report format. Exercises the reference run, replay, object, manifest,
//! script (with an injected node) and file checks.

use std::fs;
use std::path::Path;

use crate::common::{lab, report_json, submission, SETTINGS, TIER_SH};
use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

fn grade_json(root: &Path, submission: &Path) -> (i32, Value) {
    let output = cargo_bin_cmd!("proctor")
        .env("PROCTOR_CACHE", crate::common::cache_in(root))
        .args([
            "grade",
            "mini",
            "--format",
            "json",
            "--quiet",
            "--color",
            "never",
            "--scenarios",
        ])
        .arg(root)
        .arg("--submission")
        .arg(submission)
        .output()
        .expect("runs");
    (output.status.code().unwrap_or(-1), report_json(&output))
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
    let numbers: Vec<&str> = json["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter_map(|t| t["number"].as_str())
        .collect();
    assert_eq!(numbers, vec!["1.2", "1.3", "2.1", "2.2"]);
    assert_eq!(test_named(&json, "1.3")["visibility"], "after_published");
}

#[test]
fn hard_coded_script_fails_on_the_injected_node_with_a_targeted_hint() {
    let root = lab();
    let cheat = submission(
        Some(("#!/bin/bash\necho gold\n", 0o755)),
        Some("gold\n"),
        Some(SETTINGS),
    );
    let (code, json) = grade_json(root.path(), cheat.path());
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(json["score"], 4.0, "{json:#}");
    let script = test_named(&json, "1.3");
    assert_eq!(script["status"], "failed");
    let output = script["output"].as_str().expect("output");
    assert!(
        output.contains("tier.sh differs from the reference on 1 of 2 run(s)"),
        "{output}"
    );
    // The injected node's random suffix is replaced so that reports are reproducible.
    assert!(
        output.contains("./tier.sh tier-node-<silver>: stdout differs"),
        "{output}"
    );
    // A hidden check never shows the expected output.
    assert!(!output.contains("-silver"), "{output}");
    assert!(
        output.contains("hint: Never hard-code the tier."),
        "{output}"
    );
}

#[test]
fn empty_submission_fails_every_check_without_crashing() {
    let root = lab();
    let empty = submission(None, None, None);
    let (code, json) = grade_json(root.path(), empty.path());
    assert_eq!(code, 1);
    assert_eq!(json["score"], 0.0);
    assert_eq!(
        test_named(&json, "1.2")["output"],
        "missing file out/tier.txt\nhint: Write the tier of lab-node-0."
    );
    assert!(test_named(&json, "1.3")["output"]
        .as_str()
        .unwrap_or("")
        .starts_with("missing file tier.sh"));
    assert!(test_named(&json, "2.1")["output"]
        .as_str()
        .unwrap_or("")
        .starts_with("missing file k8s/settings.yaml"));
    assert!(test_named(&json, "2.2")["output"]
        .as_str()
        .unwrap_or("")
        .contains("configmaps/settings in namespace default not found"));
}

#[test]
fn crlf_script_and_wrong_manifest_are_explained() {
    let root = lab();
    let crlf = TIER_SH.replace('\n', "\r\n");
    let wrong = SETTINGS.replace("fast", "slow");
    let sub = submission(Some((&crlf, 0o755)), Some("gold\n"), Some(&wrong));
    let (code, json) = grade_json(root.path(), sub.path());
    assert_eq!(code, 1);
    let script = test_named(&json, "1.3")["output"]
        .as_str()
        .expect("output")
        .to_string();
    assert!(
        script.to_lowercase().contains("crlf"),
        "the sandbox's CRLF problem is shown: {script}"
    );
    let manifest = test_named(&json, "2.1")["output"]
        .as_str()
        .expect("output")
        .to_string();
    assert!(
        manifest.starts_with("ConfigMap settings: data.mode"),
        "{manifest}"
    );
}

#[test]
fn junit_and_markdown_reports() {
    let root = lab();
    let empty = submission(None, None, None);
    let out = tempfile::tempdir().expect("tempdir");
    let junit = out.path().join("report.xml");
    cargo_bin_cmd!("proctor")
        .env("PROCTOR_CACHE", crate::common::cache_in(root.path()))
        .args([
            "grade",
            "mini",
            "--format",
            "junit",
            "--quiet",
            "--scenarios",
        ])
        .arg(root.path())
        .arg("--submission")
        .arg(empty.path())
        .arg("--output")
        .arg(&junit)
        .assert()
        .code(1);
    let xml = fs::read_to_string(&junit).expect("report written");
    assert!(
        xml.contains("<testsuite name=\"1. Tier tool\" tests=\"2\" failures=\"2\""),
        "{xml}"
    );
    assert!(
        xml.contains("<failure message=\"missing file out/tier.txt\""),
        "{xml}"
    );
    let output = cargo_bin_cmd!("proctor")
        .env("PROCTOR_CACHE", crate::common::cache_in(root.path()))
        .args([
            "grade",
            "mini",
            "--format",
            "markdown",
            "--quiet",
            "--scenarios",
        ])
        .arg(root.path())
        .arg("--submission")
        .arg(empty.path())
        .output()
        .expect("runs");
    let md = String::from_utf8_lossy(&output.stdout);
    assert!(md.contains("**Score: 0 / 7**"), "{md}");
    assert!(md.contains("| Files (SHA-256) | `"), "{md}");
}

/// `--format report-json` writes the report itself, and it meets the schema kept in docs/.
#[test]
fn the_native_json_report_meets_its_schema() {
    let root = lab();
    let empty = submission(None, None, None);
    let output = cargo_bin_cmd!("proctor")
        .env("PROCTOR_CACHE", crate::common::cache_in(root.path()))
        .args([
            "grade",
            "mini",
            "--format",
            "report-json",
            "--quiet",
            "--scenarios",
        ])
        .arg(root.path())
        .arg("--submission")
        .arg(empty.path())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/report.schema.json");
    let schema: Value =
        serde_json::from_str(&fs::read_to_string(schema).expect("docs/report.schema.json"))
            .expect("schema is JSON");
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler
        .add_resource("urn:proctor:report", schema)
        .expect("resource");
    let index = compiler
        .compile("urn:proctor:report", &mut schemas)
        .expect("compiles");
    if let Err(error) = schemas.validate(&report, index) {
        panic!("{error}\n{report:#}");
    }
    assert_eq!(report["mode"], "grade");
    let digest = report["submission_sha256"].as_str().unwrap_or_default();
    assert!(
        digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
        "{report:#}"
    );
    let points: f64 = report["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|step| step["checks"].as_array().into_iter().flatten())
        .map(|check| check["points"].as_f64().unwrap_or_default())
        .sum();
    assert_eq!(points, 7.0, "{report:#}");
}

#[test]
fn selftest_proves_the_mini_lab() {
    let root = lab();
    let output = cargo_bin_cmd!("proctor")
        .env("PROCTOR_CACHE", crate::common::cache_in(root.path()))
        .args(["selftest", "mini", "--color", "never", "--scenarios"])
        .arg(root.path())
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{text}");
    for line in [
        "✓ step 1 fails before it is done",
        "✓ step 2 passes when done",
        "✓ the reference solution grades full marks",
        "✓ grading twice gives the same report",
        "✓ an empty submission fails every step with artifacts",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}

/// A bundled submission whose script prints a hard-coded answer (step 1 fails on the injected
/// node), with `expect` as its expect.yaml.
fn hardcoded_submission(dir: &std::path::Path, expect: &str) {
    use crate::common::write;
    write(&dir.join("tier.sh"), "#!/bin/bash\necho gold\n", 0o755);
    write(&dir.join("out/tier.txt"), "gold\n", 0o644);
    write(&dir.join("k8s/settings.yaml"), SETTINGS, 0o644);
    write(&dir.join("expect.yaml"), expect, 0o644);
}

/// A bundled submission that does not get what its expect.yaml says fails the selftest, naming
/// it; `--no-submissions` proves the scenario alone.
#[test]
fn selftest_holds_the_bundled_submissions_to_their_expectations() {
    use crate::common::write;
    let root = lab();
    let hardcoded = root.path().join("mini/submissions/hardcoded");
    hardcoded_submission(&hardcoded, "score: full\n");
    let selftest = |extra: &[&str]| {
        let output = cargo_bin_cmd!("proctor")
            .env("PROCTOR_CACHE", crate::common::cache_in(root.path()))
            .args(["selftest", "mini", "--color", "never", "--scenarios"])
            .arg(root.path())
            .args(extra)
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        (output.status.code(), text)
    };
    let (code, text) = selftest(&[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("✗ submission hardcoded gets full score"),
        "{text}"
    );
    assert!(text.contains("failing steps: [1]"), "{text}");

    write(&hardcoded.join("expect.yaml"), "failingSteps: [1]\n", 0o644);
    let (code, text) = selftest(&[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("✓ submission hardcoded gets"), "{text}");

    write(&hardcoded.join("expect.yaml"), "score: full\n", 0o644);
    let (code, text) = selftest(&["--no-submissions"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("submission hardcoded"), "{text}");
}

/// A learner's script and the reference script of the same pair run side by side when neither
/// writes; a learner's script that writes must not change what the reference saw. The
/// reference here reads late (after a second), so had it run beside the learner's script
/// without being run again, it would have read the learner's `tier=gold` and agreed with it.
#[test]
fn a_script_that_writes_does_not_change_what_the_reference_saw() {
    let root = lab();
    crate::common::write(
        &root.path().join("mini/reference/tier.sh"),
        &format!(
            "#!/bin/bash\nsleep 1\n{}",
            &TIER_SH["#!/bin/bash\n".len()..]
        ),
        0o755,
    );
    let writer = "#!/bin/bash\nkubectl label node \"$1\" tier=gold --overwrite >/dev/null\n\
                  kubectl get node \"$1\" -o jsonpath='{.metadata.labels.tier}'\necho\n";
    let sub = submission(Some((writer, 0o755)), Some("gold\n"), Some(SETTINGS));
    let (code, json) = grade_json(root.path(), sub.path());
    assert_eq!(code, 1, "{json:#}");
    let output = test_named(&json, "1.3")["output"]
        .as_str()
        .expect("output")
        .to_string();
    assert!(
        output.contains("tier.sh differs from the reference on 1 of 2 run(s)"),
        "{output}"
    );
    // A hidden check never shows the expected output.
    assert!(!output.contains("-silver"), "{output}");
}

/// A reference step that fails is the scenario's problem: every command that runs the reference
/// exits 2 and names the step, the command that failed and its output, and no score is given.
#[test]
fn a_failing_reference_stops_grading_and_solving_with_exit_2() {
    let root = lab();
    let broken = crate::common::SCENARIO.replace(
        "      ./tier.sh lab-node-0 > out/tier.txt\n",
        "      ./tier.sh lab-node-0 > out/tier.txt\n      echo checking the tier >&2\n      [ \"$(cat out/tier.txt)\" = silver ]\n",
    );
    assert_ne!(broken, crate::common::SCENARIO, "the scenario changed");
    crate::common::write(&root.path().join("mini/scenario.yaml"), &broken, 0o644);
    let good = submission(Some((TIER_SH, 0o755)), Some("gold\n"), Some(SETTINGS));
    let solved = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("tempdir");
    let runs = [
        vec![
            "grade".to_string(),
            "mini".to_string(),
            "--submission".to_string(),
            good.path().display().to_string(),
        ],
        vec![
            "solve".to_string(),
            "mini".to_string(),
            "--dir".to_string(),
            solved.path().join("lab").display().to_string(),
        ],
        vec!["selftest".to_string(), "mini".to_string()],
    ];
    for args in runs {
        let output = cargo_bin_cmd!("proctor")
            .args(&args)
            .args(["--color", "never", "--scenarios"])
            .arg(root.path())
            .env("PROCTOR_CACHE", cache.path())
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        // Named first: the line that says what failed comes before anything else it explains.
        let named = stderr
            .lines()
            .find(|line| line.contains("failed"))
            .unwrap_or_default();
        assert!(
            named.contains(
                "mini: the reference of step 1 failed (exit 1) at `[ \"$(cat out/tier.txt)\" = silver ]`"
            ),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("checking the tier"), "{args:?}: {stderr}");
        assert!(!stderr.contains("proctor: failed at"), "{args:?}: {stderr}");
        assert!(
            !String::from_utf8_lossy(&output.stdout).contains("Score"),
            "{args:?}"
        );
    }
}

/// The reference's own run of a script in a check that cannot finish within the scenario's limits
/// says nothing about the learner: grading stops with exit 2 and names the run, and no score is
/// given.
#[test]
fn a_reference_script_run_that_hits_a_limit_stops_grading_with_exit_2() {
    let root = lab();
    let tight = crate::common::SCENARIO.replace("steps:\n", "limits: {timeout: 2s}\nsteps:\n");
    crate::common::write(&root.path().join("mini/scenario.yaml"), &tight, 0o644);
    // Quick on the lab's own node (the reference step calls it there), slow on the grader's.
    let slow = "#!/bin/bash\ncase \"$1\" in tier-node-*) sleep 30 ;; esac\nkubectl get node \"$1\" -o jsonpath='{.metadata.labels.tier}'\necho\n";
    crate::common::write(&root.path().join("mini/reference/tier.sh"), slow, 0o755);
    let good = submission(Some((TIER_SH, 0o755)), Some("gold\n"), Some(SETTINGS));
    let cache = tempfile::tempdir().expect("tempdir");
    let output = cargo_bin_cmd!("proctor")
        .args(["grade", "mini", "--color", "never", "--submission"])
        .arg(good.path())
        .arg("--scenarios")
        .arg(root.path())
        .env("PROCTOR_CACHE", cache.path())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("check 1.3 (tier-script) could not be judged: the reference's run of ./tier.sh tier-node-<silver> could not finish"),
        "{stderr}"
    );
    assert!(
        !String::from_utf8_lossy(&output.stdout).contains("Score"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// A grade stops starting checks when the scenario's overall budget is spent: they are reported
/// as not graded (and fail), and the grade still ends as an ordinary report.
#[test]
fn checks_after_the_grade_budget_are_reported_not_graded() {
    let root = lab();
    let tight = crate::common::SCENARIO.replace("steps:\n", "limits: {grade: 1ms}\nsteps:\n");
    crate::common::write(&root.path().join("mini/scenario.yaml"), &tight, 0o644);
    let good = submission(Some((TIER_SH, 0o755)), Some("gold\n"), Some(SETTINGS));
    let (code, json) = grade_json(root.path(), good.path());
    assert_eq!(code, 1, "{json}");
    let tests = json["tests"].as_array().expect("tests");
    assert!(!tests.is_empty());
    for test in tests {
        let output = test["output"].as_str().unwrap_or_default();
        assert!(
            output.contains("not graded: the grade's time budget of 1ms (limits.grade) ran out"),
            "{test}"
        );
        assert_eq!(test["score"], 0.0, "{test}");
    }
}

/// `proctor demo` (the README's main command): each bundled submission graded and set beside its
/// expect.yaml; exit 0 only when every expectation holds.
#[test]
fn demo_holds_each_bundled_submission_to_its_expectation() {
    use crate::common::write;
    let root = lab();
    let bundled = root.path().join("mini/submissions");
    let perfect = bundled.join("perfect");
    write(&perfect.join("tier.sh"), TIER_SH, 0o755);
    write(&perfect.join("out/tier.txt"), "gold\n", 0o644);
    write(&perfect.join("k8s/settings.yaml"), SETTINGS, 0o644);
    write(&perfect.join("expect.yaml"), "score: full\n", 0o644);
    let hardcoded = bundled.join("hardcoded");
    hardcoded_submission(&hardcoded, "failingSteps: [1]\n");
    let demo = || {
        cargo_bin_cmd!("proctor")
            .env("PROCTOR_CACHE", crate::common::cache_in(root.path()))
            .args(["demo", "mini", "--quiet", "--color", "never", "--scenarios"])
            .arg(root.path())
            .output()
            .expect("runs")
    };
    let summary = |output: &std::process::Output| {
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        stdout
            .rsplit_once("\nSummary\n")
            .map(|(_, summary)| summary.to_string())
            .unwrap_or_else(|| panic!("no summary:\n{stdout}"))
    };

    let held = demo();
    let text = summary(&held);
    assert_eq!(held.status.code(), Some(0), "{text}");
    assert!(
        text.contains("✓ mini     hardcoded") && text.contains("expected failing steps [1]"),
        "{text}"
    );
    assert!(
        text.contains("✓ mini     perfect") && text.contains("expected full score"),
        "{text}"
    );

    // An expectation the grading does not meet fails the demo, and says which.
    write(&hardcoded.join("expect.yaml"), "score: full\n", 0o644);
    let broken = demo();
    let text = summary(&broken);
    assert_eq!(broken.status.code(), Some(1), "{text}");
    assert!(text.contains("✗ mini     hardcoded"), "{text}");
}
