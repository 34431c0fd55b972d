//! Every lab found in `scenarios/` (a new lab is covered without a line of Rust), as named
//! trials (`cargo test -p proctor --test labs -- --list`):
//!
//! - `<lab>::lint`: the scenario lints clean;
//! - `<lab>::selftest`: the scenario proves that it tells done from not done;
//! - `<lab>::bundled`: every bundled submission gets what its expect.yaml states (`proctor demo`);
//! - `<lab>::batch`: the same submissions graded as one batch give the same verdicts;
//! - `<lab>::batch-under-load` (ignored: the load tier): the bundled submissions and fixtures
//!   graded as a batch idle and under a CPU hog give the same gradebook;
//! - `<lab>::self-check`: a learner's session on `proctor up`, every step self-checked;
//! - `<lab>::<case>::step<N>`: each fixture under `tests/fixtures/submissions/<lab>/<case>/` is
//!   graded once, and each step loses points exactly when its expect.yaml says so.
//!
//! All trials share one reference cache of their own, so each lab's reference runs once.

mod common;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Arc, Mutex, OnceLock};

use libtest_mimic::{Arguments, Failed, Trial};
use proctor::scenario::expect::load_expectation;
use proctor::scenario::{Expectation, Lab};
use serde_json::Value;

fn scenarios() -> PathBuf {
    common::repo().join("scenarios")
}

fn run(cache: &Path, args: &[&str]) -> Output {
    common::proctor_process(cache)
        .args(args)
        .args(["--color", "never", "--scenarios"])
        .arg(scenarios())
        .output()
        .expect("proctor runs")
}

fn exits(output: &Output, code: i32, what: &str) -> Result<(), Failed> {
    if output.status.code() == Some(code) {
        return Ok(());
    }
    Err(format!(
        "{what}: exit {:?}, expected {code}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
    .into())
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    found.sort();
    found
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn lint(cache: &Path, lab: &str) -> Result<(), Failed> {
    let output = run(cache, &["lint", lab]);
    exits(&output, 0, "lint")?;
    let want = format!("{lab}/scenario.yaml: no problems");
    if String::from_utf8_lossy(&output.stderr).contains(&want) {
        Ok(())
    } else {
        Err(format!("lint did not say {want:?}").into())
    }
}

fn bundled(cache: &Path, lab: &Lab, folder: &str) -> Result<(), Failed> {
    if lab.bundled_submissions()?.is_empty() {
        return Err("no submissions/<case>/expect.yaml: a lab ships examples".into());
    }
    let output = run(cache, &["demo", folder, "--quiet"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary = stdout
        .rsplit_once("\nSummary\n")
        .map_or("", |(_, summary)| summary);
    if summary.contains('✗') || !summary.contains(&format!("✓ {} ", lab.name())) {
        return Err(format!("an expectation failed:\n{stdout}").into());
    }
    exits(&output, 0, "demo")
}

/// `proctor grade <folder> --submissions DIR` into `reports` and a JSON `gradebook`, which it
/// returns; anything but exit 0 fails the trial.
fn grade_batch(
    cache: &Path,
    folder: &str,
    submissions: &Path,
    reports: &Path,
    gradebook: &Path,
) -> Result<Value, Failed> {
    let output = common::proctor_process(cache)
        .args([
            "grade",
            folder,
            "--quiet",
            "--color",
            "never",
            "--scenarios",
        ])
        .arg(scenarios())
        .arg("--submissions")
        .arg(submissions)
        .arg("--reports")
        .arg(reports)
        .arg("--gradebook")
        .arg(gradebook)
        .output()?;
    exits(&output, 0, "grade --submissions")?;
    Ok(serde_json::from_str(&std::fs::read_to_string(gradebook)?)?)
}

/// The bundled submissions as a batch: full-score ones pass, the others fail, and the JSON
/// gradebook holds each once.
fn batch(cache: &Path, lab: &Lab, folder: &str) -> Result<(), Failed> {
    let work = tempfile::tempdir()?;
    let gradebook = work.path().join("grades.json");
    let submissions = lab.dir.join("submissions");
    let book = grade_batch(
        cache,
        folder,
        &submissions,
        &work.path().join("reports"),
        &gradebook,
    )?;
    let rows = book["submissions"].as_array().ok_or("no submissions")?;
    let cases = lab.bundled_submissions()?;
    if rows.len() != cases.len() {
        return Err(format!("{} rows for {} submissions", rows.len(), cases.len()).into());
    }
    for case in cases {
        let row = rows
            .iter()
            .find(|row| row["name"] == case.name.as_str())
            .ok_or_else(|| format!("no row for {}", case.name))?;
        let want = match case.expect {
            Expectation::FullScore => "passed",
            Expectation::FailingSteps(_) => "failed",
        };
        if row["status"] != want {
            return Err(format!("{}: {row}, expected {want}", case.name).into());
        }
    }
    Ok(())
}

/// Busy loops, four per core, for as long as the value lives: a loaded grading machine.
struct CpuHog(Vec<std::process::Child>);

impl CpuHog {
    fn start() -> CpuHog {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        CpuHog(
            (0..4 * cores)
                .filter_map(|_| {
                    std::process::Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .ok()
                })
                .collect(),
        )
    }
}

impl Drop for CpuHog {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The lab's bundled submissions and its fixtures in one class folder, graded as a batch on an
/// idle machine and again under a CPU hog (four busy loops per core): every row — score,
/// status, each step's score — must be the same. The verdict may not depend on the load.
fn batch_under_load(cache: &Path, lab: &Lab, folder: &str) -> Result<(), Failed> {
    let class = tempfile::tempdir()?;
    let fixtures = common::repo()
        .join("tests/fixtures/submissions")
        .join(folder);
    for dir in subdirs(&lab.dir.join("submissions"))
        .into_iter()
        .chain(subdirs(&fixtures))
    {
        let name = format!(
            "{}-{}",
            if dir.starts_with(&fixtures) {
                "fixture"
            } else {
                "bundled"
            },
            file_name(&dir)
        );
        proctor::tree::copy_dir(&dir, &class.path().join(name))?;
    }
    let grade = |tag: &str| -> Result<Value, Failed> {
        let mut book = grade_batch(
            cache,
            folder,
            class.path(),
            &class.path().join(format!(".reports-{tag}")),
            &class.path().join(format!(".{tag}.json")),
        )?;
        // What may differ: nothing about the verdicts.
        for row in book["submissions"].as_array_mut().into_iter().flatten() {
            if let Some(row) = row.as_object_mut() {
                row.remove("message");
            }
        }
        Ok(book)
    };
    let idle = grade("idle")?;
    let loaded = {
        let _hog = CpuHog::start();
        grade("loaded")?
    };
    if idle != loaded {
        return Err(format!("the gradebooks differ:\nidle:   {idle}\nloaded: {loaded}").into());
    }
    Ok(())
}

/// A learner's session: `proctor up`, a failing self-check of the first step, the work done (by
/// the reference solution), then every step's self-check passing on the live cluster.
fn self_check(cache: &Path, folder: &str, steps: &[u32]) -> Result<(), Failed> {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    /// Stops `proctor up` however the trial ends.
    struct Up(std::process::Child);
    impl Drop for Up {
        fn drop(&mut self) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(self.0.id() as i32),
                nix::sys::signal::Signal::SIGINT,
            );
            let _ = self.0.wait();
        }
    }

    let work = tempfile::tempdir()?;
    let kubeconfig = work.path().join("kubeconfig");
    let lab_dir = work.path().join(folder);
    let mut up = Up(common::proctor_process(cache)
        .args(["up", folder, "--scenarios"])
        .arg(scenarios())
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--lab-dir")
        .arg(&lab_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?);
    let mut line = String::new();
    BufReader::new(up.0.stdout.take().ok_or("no stdout")?).read_line(&mut line)?;
    let want = format!("export KUBECONFIG={}", kubeconfig.display());
    if line.trim_end() != want {
        return Err(format!("proctor up printed {line:?}, expected {want:?}").into());
    }
    let kc = kubeconfig.to_str().ok_or("utf-8")?;
    let dir = lab_dir.to_str().ok_or("utf-8")?;
    let check = |step: u32| {
        let step = step.to_string();
        run(
            cache,
            &[
                "check",
                folder,
                "--step",
                &step,
                "--kubeconfig",
                kc,
                "--dir",
                dir,
            ],
        )
    };
    let first = *steps.first().ok_or("a lab without steps")?;
    exits(&check(first), 1, "the first step is not done yet")?;
    let solved = run(cache, &["solve", folder, "--dir", dir, "--kubeconfig", kc]);
    exits(&solved, 0, "solve")?;
    for &step in steps {
        exits(&check(step), 0, &format!("check --step {step}"))?;
    }
    Ok(())
}

/// Step id → (score, max score), from Gradescope JSON `tests[].number = "<step>.<k>"`.
type StepScores = HashMap<u32, (f64, f64)>;

fn grade_case(cache: &Path, folder: &str, dir: &Path) -> Result<StepScores, String> {
    let output = common::proctor_process(cache)
        .args([
            "grade",
            folder,
            "--format",
            "json",
            "--color",
            "never",
            "--scenarios",
        ])
        .arg(scenarios())
        .arg("--submission")
        .arg(dir)
        .output()
        .map_err(|error| format!("running proctor: {error}"))?;
    // 0 = all passed, 1 = a check failed; 2 would mean proctor itself could not run.
    if !matches!(output.status.code(), Some(0) | Some(1)) {
        return Err(format!(
            "proctor grade exited {:?}\n{}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    // Every grading after a lab's first reads the shared cache; one it cannot read would run the
    // reference again on every grading, unnoticed but for the time.
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("ignoring the cached reference") {
        return Err(format!("the cached reference could not be read:\n{stderr}"));
    }
    let json: Value = serde_json::from_slice(&output.stdout).map_err(|error| {
        format!(
            "results.json does not parse: {error}\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    })?;
    let tests = json["tests"].as_array().cloned().unwrap_or_default();
    if tests.is_empty() {
        return Err(format!("a report without tests: {json}"));
    }
    let mut steps = StepScores::new();
    for test in &tests {
        let step = test["number"]
            .as_str()
            .and_then(|number| number.split('.').next())
            .and_then(|step| step.parse::<u32>().ok())
            .ok_or_else(|| format!("test without a step number: {test}"))?;
        let entry = steps.entry(step).or_insert((0.0, 0.0));
        entry.0 += test["score"].as_f64().unwrap_or(0.0);
        entry.1 += test["max_score"].as_f64().unwrap_or(0.0);
    }
    Ok(steps)
}

type Graded = Arc<OnceLock<Result<StepScores, String>>>;

/// One trial per step of a fixture; the fixture is graded once, by whichever runs first.
fn fixture_trials(
    cache: &Arc<PathBuf>,
    folder: &str,
    steps: &[u32],
    dir: &Path,
    graded: &Arc<Mutex<HashMap<PathBuf, Graded>>>,
) -> Vec<Trial> {
    let case = file_name(dir);
    let failing: BTreeSet<u32> = match load_expectation(&dir.join("expect.yaml")) {
        Ok(Expectation::FullScore) => BTreeSet::new(),
        Ok(Expectation::FailingSteps(steps)) => steps.into_iter().collect(),
        Err(error) => {
            let message = format!("fixture {}: {error}", dir.display());
            return vec![Trial::test(format!("{folder}::{case}"), move || {
                Err(message.into())
            })];
        }
    };
    let failing = Arc::new(failing);
    steps
        .iter()
        .map(|&step| {
            let (cache, graded, failing) = (cache.clone(), graded.clone(), failing.clone());
            let (folder, dir) = (folder.to_string(), dir.to_path_buf());
            Trial::test(format!("{folder}::fixture-{case}::step{step}"), move || {
                let slot = graded
                    .lock()
                    .map_err(|_| Failed::from("poisoned"))?
                    .entry(dir.clone())
                    .or_default()
                    .clone();
                let scores = slot.get_or_init(|| grade_case(&cache, &folder, &dir));
                let scores = scores
                    .as_ref()
                    .map_err(|error| Failed::from(error.as_str()))?;
                let (score, max) = scores.get(&step).copied().unwrap_or((0.0, 0.0));
                match (score < max, failing.contains(&step)) {
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
            })
        })
        .collect()
}

fn main() {
    let args = Arguments::from_args();
    let cache_dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("cannot create a temporary cache dir: {error}");
            std::process::exit(2);
        }
    };
    let cache = Arc::new(cache_dir.path().to_path_buf());
    let labs = proctor::scenario::lookup::list_labs(Some(&scenarios()));
    let fixtures = common::repo().join("tests/fixtures/submissions");
    let graded: Arc<Mutex<HashMap<PathBuf, Graded>>> = Arc::default();
    let mut trials = Vec::new();
    if labs.is_empty() {
        trials.push(Trial::test("labs-found", || {
            Err("no scenarios/<lab>/scenario.yaml".into())
        }));
    }
    // Fixtures of a lab that is not there would silently test nothing.
    for dir in subdirs(&fixtures) {
        let name = file_name(&dir);
        if !labs.iter().any(|(lab, _)| *lab == name) {
            trials.push(Trial::test(format!("fixtures::{name}"), move || {
                Err(
                    format!("tests/fixtures/submissions/{name}: no lab {name} in scenarios/")
                        .into(),
                )
            }));
        }
    }
    for (folder, file) in labs {
        let lab = match Lab::load(&file) {
            Ok(lab) => Arc::new(lab),
            Err(error) => {
                let message = format!("{error:#}");
                trials.push(Trial::test(format!("{folder}::load"), move || {
                    Err(message.into())
                }));
                continue;
            }
        };
        let steps: Vec<u32> = lab.scenario.steps.iter().map(|step| step.id).collect();
        let (c, f) = (cache.clone(), folder.clone());
        trials.push(Trial::test(format!("{folder}::lint"), move || lint(&c, &f)));
        let (c, f) = (cache.clone(), folder.clone());
        trials.push(Trial::test(format!("{folder}::selftest"), move || {
            exits(&run(&c, &["selftest", &f]), 0, "selftest")
        }));
        let (c, f, l) = (cache.clone(), folder.clone(), lab.clone());
        trials.push(Trial::test(format!("{folder}::bundled"), move || {
            bundled(&c, &l, &f)
        }));
        let (c, f, l) = (cache.clone(), folder.clone(), lab.clone());
        trials.push(Trial::test(format!("{folder}::batch"), move || {
            batch(&c, &l, &f)
        }));
        let (c, f, l) = (cache.clone(), folder.clone(), lab.clone());
        // Minutes of grading on a saturated machine: the load tier runs it (`--ignored`).
        trials.push(
            Trial::test(format!("{folder}::batch-under-load"), move || {
                batch_under_load(&c, &l, &f)
            })
            .with_ignored_flag(true),
        );
        let (c, f, s) = (cache.clone(), folder.clone(), steps.clone());
        trials.push(Trial::test(format!("{folder}::self-check"), move || {
            self_check(&c, &f, &s)
        }));
        for dir in subdirs(&fixtures.join(&folder)) {
            trials.extend(fixture_trials(&cache, &folder, &steps, &dir, &graded));
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    drop(cache_dir);
    conclusion.exit();
}
