//! The cached reference run: `grade` on the embedded cluster computes the reference once per
//! scenario version and reuses it, with the same verdicts as a fresh run; a damaged or outdated
//! entry is never trusted.

use std::fs;
use std::path::Path;

use crate::common::{lab, report_json, submission, SETTINGS, TIER_SH};
use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

struct Graded {
    code: i32,
    json: Value,
    stderr: String,
}

fn grade(root: &Path, cache: &Path, sub: &Path, extra: &[&str]) -> Graded {
    let output = cargo_bin_cmd!("proctor")
        .args(["grade", "mini", "--format", "json", "--color", "never"])
        .args(extra)
        .arg("--scenarios")
        .arg(root)
        .arg("--submission")
        .arg(sub)
        .env("PROCTOR_CACHE", cache)
        .output()
        .expect("runs");
    let json = report_json(&output);
    Graded {
        code: output.status.code().unwrap_or(-1),
        json,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Per check: number, score, status (what a grade decides).
fn verdicts(json: &Value) -> Vec<(String, f64, String)> {
    json["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            (
                t["number"].as_str().unwrap_or("").to_string(),
                t["score"].as_f64().unwrap_or(-1.0),
                t["status"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn entries(cache: &Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = fs::read_dir(cache)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

const USING_CACHE: &str = "using the cached reference run";

#[test]
fn second_grade_reuses_the_reference_with_the_same_verdicts() {
    let root = lab();
    let cache = tempfile::tempdir().expect("tempdir");
    let good = submission(Some((TIER_SH, 0o755)), Some("gold\n"), Some(SETTINGS));
    let cheat = submission(
        Some(("#!/bin/bash\necho gold\n", 0o755)),
        Some("silver\n"),
        Some(SETTINGS),
    );

    let fresh_good = grade(root.path(), cache.path(), good.path(), &[]);
    assert!(
        !fresh_good.stderr.contains(USING_CACHE),
        "{}",
        fresh_good.stderr
    );
    let stored = entries(cache.path());
    assert_eq!(stored.len(), 1, "one entry for the lab: {stored:?}");
    for n in 0..=2 {
        assert!(stored[0].join(format!("state-{n}")).is_dir());
        assert!(stored[0].join(format!("cluster-{n}.json")).is_file());
    }

    let cached_good = grade(root.path(), cache.path(), good.path(), &[]);
    assert!(
        cached_good.stderr.contains(USING_CACHE),
        "{}",
        cached_good.stderr
    );
    assert_eq!(cached_good.code, 0, "{:#}", cached_good.json);
    assert_eq!(verdicts(&cached_good.json), verdicts(&fresh_good.json));

    // A wrong submission loses the same points against the cached reference as against a
    // fresh one (--no-cache).
    let cached_cheat = grade(root.path(), cache.path(), cheat.path(), &[]);
    let fresh_cheat = grade(root.path(), cache.path(), cheat.path(), &["--no-cache"]);
    assert!(
        !fresh_cheat.stderr.contains(USING_CACHE),
        "{}",
        fresh_cheat.stderr
    );
    assert_eq!(cached_cheat.code, 1);
    assert_eq!(verdicts(&cached_cheat.json), verdicts(&fresh_cheat.json));
    assert_eq!(cached_cheat.json["score"], 2.0, "{:#}", cached_cheat.json);
}

#[test]
fn editing_the_scenario_makes_a_new_entry() {
    let root = lab();
    let cache = tempfile::tempdir().expect("tempdir");
    let good = submission(Some((TIER_SH, 0o755)), Some("gold\n"), Some(SETTINGS));
    grade(root.path(), cache.path(), good.path(), &[]);
    let before = entries(cache.path());

    // The reference now writes another tier: the old entry must not be used.
    let tier = root.path().join("mini/scenario.yaml");
    let text = fs::read_to_string(&tier).expect("scenario");
    fs::write(&tier, text.replace("tier=gold", "tier=platinum")).expect("edit");
    let after = grade(root.path(), cache.path(), good.path(), &[]);
    assert!(!after.stderr.contains(USING_CACHE), "{}", after.stderr);
    assert_eq!(after.code, 1, "gold is now wrong: {:#}", after.json);
    let now = entries(cache.path());
    assert!(
        now.iter().any(|e| !before.contains(e)),
        "{before:?} → {now:?}"
    );
}

#[test]
fn a_damaged_entry_is_ignored_and_the_reference_runs_again() {
    let root = lab();
    let cache = tempfile::tempdir().expect("tempdir");
    let good = submission(Some((TIER_SH, 0o755)), Some("gold\n"), Some(SETTINGS));
    grade(root.path(), cache.path(), good.path(), &[]);
    let entry = entries(cache.path()).pop().expect("entry");
    fs::write(entry.join("cluster-1.json"), "{ not json").expect("damage");

    let graded = grade(root.path(), cache.path(), good.path(), &[]);
    assert!(!graded.stderr.contains(USING_CACHE), "{}", graded.stderr);
    assert_eq!(graded.code, 0, "{:#}\n{}", graded.json, graded.stderr);
    assert_eq!(graded.json["score"], 7.0);
}
