//! One named test per lab × submission × step (`cargo test -p proctor --test fixtures -- --list`):
//! every submission under `tests/fixtures/submissions/<lab>/<case>/` is graded once with
//! `proctor grade --format json` (the bundled `scenarios/<lab>/submissions/` are graded by the
//! `proctor demo` test in grade_labs.rs), and
//! each step's test checks that step lost points exactly when the case's `expect.yaml` says so
//! (`score: full`, or `failingSteps: [..]`).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use libtest_mimic::{Arguments, Failed, Trial};
use proctor::scenario::expect::load_expectation;
use proctor::scenario::Expectation;
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// A submission with what it must score.
struct Case {
    lab: String,
    name: String,
    dir: PathBuf,
    failing: BTreeSet<u64>,
}

/// The case's `expect.yaml`, read as `proctor demo` reads a bundled one; a fixture without a
/// readable one is a broken fixture, not a case to skip.
fn expectation(dir: &Path) -> BTreeSet<u64> {
    match load_expectation(&dir.join("expect.yaml")) {
        Ok(Expectation::FullScore) => BTreeSet::new(),
        Ok(Expectation::FailingSteps(steps)) => steps.into_iter().map(u64::from).collect(),
        Err(error) => panic!("fixture {}: {error}", dir.display()),
    }
}

fn cases() -> Vec<Case> {
    let root = repo();
    let mut out = Vec::new();
    for lab in ["gpudrv", "gpuops"] {
        for (origin, base) in [("fixture", root.join("tests/fixtures/submissions").join(lab))] {
            let Ok(entries) = std::fs::read_dir(&base) else {
                continue;
            };
            let mut dirs: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect();
            dirs.sort();
            for dir in dirs {
                let failing = expectation(&dir);
                let case = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.push(Case {
                    lab: lab.to_string(),
                    name: format!("{origin}-{case}"),
                    dir,
                    failing,
                });
            }
        }
    }
    out
}

/// Step number → (score, max score), from Gradescope JSON `tests[].number = "<step>.<k>"`.
type StepScores = HashMap<u64, (f64, f64)>;

/// `reference_cache` is this test run's own cache of reference runs: the first grade of each lab
/// runs the reference, the others reuse it, as a grader's would.
fn grade(case: &Case, reference_cache: &Path) -> Result<StepScores, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_proctor"))
        .env("PROCTOR_CACHE", reference_cache)
        .args([
            "grade",
            &case.lab,
            "--format",
            "json",
            "--color",
            "never",
            "--scenarios",
        ])
        .arg(repo().join("scenarios"))
        .arg("--submission")
        .arg(&case.dir)
        .output()
        .map_err(|e| format!("running proctor: {e}"))?;
    // 0 = all passed, 1 = a check failed; 2 would mean proctor itself could not run.
    if !matches!(out.status.code(), Some(0) | Some(1)) {
        return Err(format!(
            "proctor grade exited {:?}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let json: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "results.json does not parse: {e}\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })?;
    let mut steps = StepScores::new();
    for t in json["tests"].as_array().into_iter().flatten() {
        let step = t["number"]
            .as_str()
            .and_then(|n| n.split('.').next())
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or_else(|| format!("test without a step number: {t}"))?;
        let e = steps.entry(step).or_insert((0.0, 0.0));
        e.0 += t["score"].as_f64().unwrap_or(0.0);
        e.1 += t["max_score"].as_f64().unwrap_or(0.0);
    }
    Ok(steps)
}

type Graded = Arc<OnceLock<Result<StepScores, String>>>;

fn main() {
    let args = Arguments::from_args();
    let reference_cache = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("cannot create a temporary cache dir: {error}");
            std::process::exit(2);
        }
    };
    let cache_path = Arc::new(reference_cache.path().to_path_buf());
    let cache: Arc<Mutex<HashMap<String, Graded>>> = Arc::default();
    let mut trials = Vec::new();
    for case in cases().into_iter().map(Arc::new) {
        for step in 1..=8u64 {
            let case = case.clone();
            let cache = cache.clone();
            let cache_path = cache_path.clone();
            let name = format!("{}::{}::step{step}", case.lab, case.name);
            trials.push(Trial::test(name, move || {
                let key = format!("{}/{}", case.lab, case.name);
                let slot = cache
                    .lock()
                    .map_err(|_| Failed::from("cache poisoned"))?
                    .entry(key)
                    .or_default()
                    .clone();
                let graded = slot.get_or_init(|| grade(&case, &cache_path));
                let steps = graded.as_ref().map_err(|e| Failed::from(e.as_str()))?;
                let (score, max) = steps.get(&step).copied().unwrap_or((0.0, 0.0));
                let lost = score < max;
                let should_lose = case.failing.contains(&step);
                match (lost, should_lose) {
                    (true, true) | (false, false) => Ok(()),
                    (true, false) => Err(format!(
                        "step {step} lost points ({score}/{max}) but expect.yaml says it passes"
                    )
                    .into()),
                    (false, true) => Err(format!(
                        "step {step} scored {score}/{max} but expect.yaml says it must lose points"
                    )
                    .into()),
                }
            }));
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    drop(reference_cache);
    conclusion.exit();
}
