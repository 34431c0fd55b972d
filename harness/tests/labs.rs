//! Every lab found in `scenarios/` (a new lab is covered without a line of Rust), as named
//! trials (`cargo test -p proctor --test labs -- --list`):
//!
//! - `<lab>::lint`: the scenario lints clean;
//! - `<lab>::selftest`: the scenario proves that it tells done from not done (its bundled
//!   submissions are left to the batch);
//! - `<lab>::self-check`: a learner's session on `proctor up`, every step self-checked;
//! - `<lab>::batch`: the lab's bundled submissions (`scenarios/<lab>/submissions/`) and its
//!   fixtures (`tests/fixtures/submissions/<lab>/`) graded as one class, with one reference run
//!   and one worker pool: the gradebook holds each once, passed exactly when it lost nothing;
//! - `<lab>::bundled-<case>::step<N>`, `<lab>::fixture-<case>::step<N>`: in that one grading,
//!   each step of each submission loses points exactly when its expect.yaml says so;
//! - `<lab>::batch-under-load` (ignored: the load tier): the same class graded again under a CPU
//!   hog gives the same gradebook;
//! - `fixture-lab::<lab>::selftest`: each small lab of `tests/fixtures/labs/` (a feature's lab,
//!   also selftested on both runtimes by the kwokctl suite) selftests with its submissions.
//!
//! The trials of one test run share its work: one reference cache, and one grading of each lab's
//! class, made by whichever trial needs it first. `cargo test` runs the trials as threads of one
//! process; nextest runs each in a process of its own, and `NEXTEST_RUN_ID` names the run they
//! belong to (see [`Shared`]).

// Test code: an unmet expectation is the test failing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use libtest_mimic::{Arguments, Failed, Trial};
use proctor::batch::gradebook::{Gradebook, Row};
use proctor::scenario::expect::load_expectation;
use proctor::scenario::{Expectation, Lab};

fn scenarios() -> PathBuf {
    common::repo().join("scenarios")
}

fn fixtures() -> PathBuf {
    common::repo().join("tests/fixtures/submissions")
}

fn run(cache: &Path, args: &[&str]) -> Output {
    run_in(&scenarios(), cache, args)
}

fn run_in(scenarios: &Path, cache: &Path, args: &[&str]) -> Output {
    common::proctor_process(cache)
        .args(args)
        .args(["--color", "never", "--scenarios"])
        .arg(scenarios)
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

/// What the trials of one test run share: a directory with the reference cache and each lab's
/// class and gradebook. Under nextest it is named for the run (`NEXTEST_RUN_ID`) below Cargo's
/// scratch dir for tests, so that the run's processes find it; runs of over a day ago are
/// removed. Under `cargo test` it is a temporary dir, gone with the process.
struct Shared {
    dir: PathBuf,
    _temporary: Option<tempfile::TempDir>,
}

impl Shared {
    fn for_this_run() -> std::io::Result<Shared> {
        let run = std::env::var("NEXTEST_RUN_ID").ok().filter(|id| {
            !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
        let Some(run) = run else {
            let temporary = tempfile::tempdir()?;
            return Ok(Shared {
                dir: temporary.path().to_path_buf(),
                _temporary: Some(temporary),
            });
        };
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("labs-runs");
        let day_ago = SystemTime::now() - Duration::from_secs(24 * 3600);
        for old in subdirs(&root) {
            let modified = old.metadata().and_then(|m| m.modified());
            if modified.is_ok_and(|time| time < day_ago) {
                let _ = std::fs::remove_dir_all(&old);
            }
        }
        let dir = root.join(run);
        std::fs::create_dir_all(&dir)?;
        Ok(Shared {
            dir,
            _temporary: None,
        })
    }

    fn cache(&self) -> PathBuf {
        self.dir.join("cache")
    }

    /// `make`'s answer for `key`, made once per run: the first trial to ask makes it under an
    /// exclusive lock and leaves it in `<key>.json` (an error too, so that it is not made again
    /// for every trial); the others wait for the lock and read it.
    fn once<T: serde::Serialize + serde::de::DeserializeOwned>(
        &self,
        key: &str,
        make: impl FnOnce() -> Result<T, String>,
    ) -> Result<T, String> {
        let answer = self.dir.join(format!("{key}.json"));
        let lock = File::create(self.dir.join(format!("{key}.lock")))
            .map_err(|error| format!("the lock for {key}: {error}"))?;
        let _held = nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusive)
            .map_err(|(_, error)| format!("the lock for {key}: {error}"))?;
        if let Ok(text) = std::fs::read_to_string(&answer) {
            let stored: Result<T, String> = serde_json::from_str(&text)
                .map_err(|error| format!("{}: {error}", answer.display()))?;
            return stored;
        }
        let made = make();
        let text = serde_json::to_string(&made).map_err(|error| error.to_string())?;
        let partial = answer.with_extension("partial");
        std::fs::write(&partial, text)
            .and_then(|()| std::fs::rename(&partial, &answer))
            .map_err(|error| format!("{}: {error}", answer.display()))?;
        made
    }
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

/// A submission of the lab's class: a bundled one or a fixture, and what its expect.yaml says.
struct Case {
    /// Its folder name in the class, `bundled-<case>` or `fixture-<case>`.
    name: String,
    dir: PathBuf,
    /// The steps its expect.yaml says lose points (none for a full score), or why it cannot be
    /// read.
    failing: Result<BTreeSet<u32>, String>,
}

fn cases(lab: &Lab, folder: &str) -> Vec<Case> {
    let bundled = subdirs(&lab.dir.join("submissions"))
        .into_iter()
        .map(|dir| ("bundled", dir));
    let fixtures = subdirs(&fixtures().join(folder))
        .into_iter()
        .map(|dir| ("fixture", dir));
    bundled
        .chain(fixtures)
        .map(|(kind, dir)| Case {
            name: format!("{kind}-{}", file_name(&dir)),
            failing: match load_expectation(&dir.join("expect.yaml")) {
                Ok(Expectation::FullScore) => Ok(BTreeSet::new()),
                Ok(Expectation::FailingSteps(steps)) => Ok(steps.into_iter().collect()),
                Err(error) => Err(format!("{}: {error:#}", dir.display())),
            },
            dir,
        })
        .collect()
}

/// `proctor grade <folder> --submissions DIR` into `reports` and a JSON `gradebook`, which it
/// returns; anything but exit 0 is an error.
fn grade_batch(
    cache: &Path,
    folder: &str,
    submissions: &Path,
    reports: &Path,
    gradebook: &Path,
) -> Result<Gradebook, String> {
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
        .output()
        .map_err(|error| format!("running proctor: {error}"))?;
    exits(&output, 0, "grade --submissions").map_err(|failed| format!("{failed:?}"))?;
    let text = std::fs::read_to_string(gradebook)
        .map_err(|error| format!("{}: {error}", gradebook.display()))?;
    let mut book: Gradebook =
        serde_json::from_str(&text).map_err(|error| format!("{}: {error}", gradebook.display()))?;
    // What may differ between two gradings of the same class: nothing about the verdicts.
    for row in &mut book.submissions {
        row.message = None;
        row.graded_at = None;
    }
    Ok(book)
}

/// The lab's class folder (each case copied under its class name), made once per run.
fn class_dir(shared: &Shared, lab: &Lab, folder: &str) -> Result<PathBuf, String> {
    let class = shared.dir.join(folder).join("class");
    shared.once(&format!("{folder}-class"), || {
        let _ = std::fs::remove_dir_all(&class);
        for case in cases(lab, folder) {
            proctor::scenario::compose::materialize(
                &case.dir,
                &lab.dir.join("submissions"),
                &class.join(&case.name),
            )
            .map_err(|error| format!("copying {}: {error:#}", case.dir.display()))?;
        }
        Ok(())
    })?;
    Ok(class)
}

/// The lab's class graded as one batch on an idle machine, once per run.
fn class_gradebook(shared: &Shared, lab: &Lab, folder: &str) -> Result<Gradebook, String> {
    shared.once(&format!("{folder}-gradebook"), || {
        let class = class_dir(shared, lab, folder)?;
        let work = shared.dir.join(folder);
        grade_batch(
            &shared.cache(),
            folder,
            &class,
            &work.join("reports"),
            &work.join("grades.json"),
        )
    })
}

/// The gradebook holds each case of the class once, and nothing else; a row passed exactly when
/// its submission lost no points.
fn batch(shared: &Shared, lab: &Lab, folder: &str) -> Result<(), Failed> {
    let book = class_gradebook(shared, lab, folder)?;
    let cases = cases(lab, folder);
    if !cases.iter().any(|case| case.name.starts_with("bundled-")) {
        return Err("no submissions/<case>/expect.yaml: a lab ships examples".into());
    }
    let mut names: Vec<&str> = book
        .submissions
        .iter()
        .map(|row| row.name.as_str())
        .collect();
    names.sort_unstable();
    let mut want: Vec<&str> = cases.iter().map(|case| case.name.as_str()).collect();
    want.sort_unstable();
    if names != want {
        return Err(format!("gradebook rows {names:?}, expected one per case {want:?}").into());
    }
    for row in &book.submissions {
        let lost = row.steps.values().any(|step| step.score < step.max_score);
        let want = if lost { "failed" } else { "passed" };
        if row.status.name() != want || row.steps.is_empty() {
            return Err(format!("{}: {row:?}, expected {want}", row.name).into());
        }
    }
    Ok(())
}

/// Step `step` of `case` lost points in the class's grading exactly when its expect.yaml says so.
fn step_held(
    shared: &Shared,
    lab: &Lab,
    folder: &str,
    case: &Case,
    step: u32,
) -> Result<(), Failed> {
    let failing = case.failing.as_ref().map_err(|error| error.as_str())?;
    let book = class_gradebook(shared, lab, folder)?;
    let row: &Row = book
        .submissions
        .iter()
        .find(|row| row.name == case.name)
        .ok_or_else(|| format!("no gradebook row for {}", case.name))?;
    // A step worth no points at grading (a self-check-only one) is not in the row: it passes.
    let (score, max) = row
        .steps
        .get(&step)
        .map_or((0.0, 0.0), |step| (step.score, step.max_score));
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
}

/// Busy loops, four per core, for as long as the value lives: a loaded grading machine. Each
/// dies with the test process too, so that a test stopped by a signal (nextest's timeout, a
/// Ctrl-C) leaves no loop taking the machine from whatever runs next.
struct CpuHog(Vec<std::process::Child>);

impl CpuHog {
    fn start() -> CpuHog {
        use std::os::unix::process::CommandExt;
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        CpuHog(
            (0..4 * cores)
                .filter_map(|_| {
                    let mut command = std::process::Command::new("sh");
                    command.args(["-c", "while :; do :; done"]);
                    // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
                    unsafe {
                        command.pre_exec(|| {
                            nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
                                .map_err(std::io::Error::from)
                        });
                    }
                    command.spawn().ok()
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

/// The lab's class graded again under a CPU hog (four busy loops per core), against the
/// reference the idle grading ran (the cutoffs of the loaded scripts are measured from it):
/// every row — score, status, each step's score — must be what the idle grading gave. The
/// verdict may not depend on the load.
fn batch_under_load(shared: &Shared, lab: &Lab, folder: &str) -> Result<(), Failed> {
    let idle = class_gradebook(shared, lab, folder)?;
    let class = class_dir(shared, lab, folder)?;
    let work = tempfile::tempdir()?;
    let loaded = {
        let _hog = CpuHog::start();
        grade_batch(
            &shared.cache(),
            folder,
            &class,
            &work.path().join("reports"),
            &work.path().join("grades.json"),
        )?
    };
    if idle == loaded {
        return Ok(());
    }
    let reports = (
        shared.dir.join(folder).join("reports"),
        work.path().join("reports"),
    );
    Err(gradebook_differences(&idle, &loaded, &reports).into())
}

/// What differs between the idle and the loaded gradebook, row by row, with each differing step
/// as both reports tell it: the reason a verdict moved is in the check's message.
fn gradebook_differences(
    idle: &Gradebook,
    loaded: &Gradebook,
    reports: &(PathBuf, PathBuf),
) -> String {
    let mut out = String::from("the gradebooks differ (idle, then loaded):\n");
    if idle.submissions.len() != loaded.submissions.len() {
        out.push_str(&format!(
            "{} rows idle, {} loaded\n",
            idle.submissions.len(),
            loaded.submissions.len()
        ));
    }
    for (was, now) in idle.submissions.iter().zip(&loaded.submissions) {
        if was == now {
            continue;
        }
        out.push_str(&format!(
            "{}: {} {:?} / {} {:?}\n",
            was.name, was.score, was.status, now.score, now.status
        ));
        let steps: BTreeSet<u32> = was.steps.keys().chain(now.steps.keys()).copied().collect();
        for step in steps {
            if was.steps.get(&step) == now.steps.get(&step) {
                continue;
            }
            for (when, dir) in [("idle", &reports.0), ("loaded", &reports.1)] {
                let report = std::fs::read_to_string(dir.join(format!("{}.txt", was.name)))
                    .unwrap_or_default();
                out.push_str(&format!("  [{when}] {}\n", step_block(&report, step)));
            }
        }
    }
    out
}

/// Step `step`'s lines of a text report.
fn step_block(report: &str, step: u32) -> String {
    let head = format!("Step {step}:");
    let mut lines = report
        .lines()
        .skip_while(|line| !line.starts_with(&head))
        .take_while(|line| !line.is_empty());
    let mut block: Vec<&str> = lines.by_ref().take(40).collect();
    if block.is_empty() {
        block.push("(not in the report)");
    }
    block.join("\n  ")
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

fn main() {
    let args = Arguments::from_args();
    let shared = match Shared::for_this_run() {
        Ok(shared) => Arc::new(shared),
        Err(error) => {
            eprintln!("cannot create the run's shared dir: {error}");
            std::process::exit(2);
        }
    };
    let labs = proctor::scenario::lookup::list_labs(Some(&scenarios()));
    let mut trials = Vec::new();
    if labs.is_empty() {
        trials.push(Trial::test("labs-found", || {
            Err("no scenarios/<lab>/scenario.yaml".into())
        }));
    }
    // Fixtures of a lab that is not there would silently test nothing.
    for dir in subdirs(&fixtures()) {
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
        let (s, f) = (shared.clone(), folder.clone());
        trials.push(Trial::test(format!("{folder}::lint"), move || {
            lint(&s.cache(), &f)
        }));
        let (s, f) = (shared.clone(), folder.clone());
        trials.push(Trial::test(format!("{folder}::selftest"), move || {
            // The bundled submissions are the batch trial's: graded once, held to expect.yaml.
            exits(
                &run(&s.cache(), &["selftest", &f, "--no-submissions"]),
                0,
                "selftest",
            )
        }));
        let (s, f, st) = (shared.clone(), folder.clone(), steps.clone());
        trials.push(Trial::test(format!("{folder}::self-check"), move || {
            self_check(&s.cache(), &f, &st)
        }));
        let (s, f, l) = (shared.clone(), folder.clone(), lab.clone());
        trials.push(Trial::test(format!("{folder}::batch"), move || {
            batch(&s, &l, &f)
        }));
        // `lint` holds the bundled submissions' composition; the fixtures' is held here.
        let (f, l) = (folder.clone(), lab.clone());
        trials.push(Trial::test(
            format!("{folder}::fixtures-composed"),
            move || {
                let bundled = l.dir.join("submissions");
                let problems: Vec<String> = subdirs(&fixtures().join(&f))
                    .iter()
                    .flat_map(|case| {
                        proctor::scenario::compose::problems(case, &bundled)
                            .into_iter()
                            .map(move |p| format!("{}: {p}", case.display()))
                    })
                    .collect();
                match problems.is_empty() {
                    true => Ok(()),
                    false => Err(problems.join("\n").into()),
                }
            },
        ));
        for case in cases(&lab, &folder).into_iter().map(Arc::new) {
            for &step in &steps {
                let (s, f, l, c) = (shared.clone(), folder.clone(), lab.clone(), case.clone());
                trials.push(Trial::test(
                    format!("{folder}::{}::step{step}", case.name),
                    move || step_held(&s, &l, &f, &c, step),
                ));
            }
        }
        let (s, f, l) = (shared.clone(), folder.clone(), lab.clone());
        // Minutes of grading on a saturated machine: the load tier runs it (`--ignored`).
        trials.push(
            Trial::test(format!("{folder}::batch-under-load"), move || {
                batch_under_load(&s, &l, &f)
            })
            .with_ignored_flag(true),
        );
    }
    let fixture_labs = common::repo().join("tests/fixtures/labs");
    for (folder, _) in proctor::scenario::lookup::list_labs(Some(&fixture_labs)) {
        let (s, dir) = (shared.clone(), fixture_labs.clone());
        trials.push(Trial::test(
            format!("fixture-lab::{folder}::selftest"),
            move || {
                exits(
                    &run_in(&dir, &s.cache(), &["selftest", &folder]),
                    0,
                    "selftest",
                )
            },
        ));
    }
    let conclusion = libtest_mimic::run(&args, trials);
    drop(shared);
    conclusion.exit();
}
