//! `--cluster kwokctl`: a real control plane (kube-apiserver, etcd, controller manager, scheduler,
//! kwok) per run, from the binaries `upstream/build.sh` builds. Every shipped lab's full-score
//! submissions get full marks there, and the cluster is gone afterwards, also when `proctor up`
//! is stopped with Ctrl-C and when a grade is stopped with SIGTERM.
//!
//! Without the binaries every test says so in one line and returns; `PROCTOR_REQUIRE_UPSTREAM=1`
//! (set by CI) makes that a failure.

// Test code: an unmet expectation is the test failing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use proctor::cluster::upstream::Upstream;
use proctor::scenario::lab::BundledSubmission;

mod common;

fn upstream_or_skip() -> bool {
    match Upstream::find() {
        Ok(_) => true,
        Err(error) if std::env::var("PROCTOR_REQUIRE_UPSTREAM").is_ok_and(|v| v == "1") => {
            panic!("the kwokctl tests need the upstream binaries: {error:#}")
        }
        Err(error) => {
            eprintln!("SKIP kwokctl: {error:#}");
            false
        }
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// A test's own temporary dir: Proctor keeps its kwokctl work dirs there, so the control-plane
/// processes a test looks for are its own, whatever else runs on the machine.
struct Own(tempfile::TempDir);

impl Own {
    fn new() -> Own {
        Own(tempfile::tempdir().expect("a temporary dir"))
    }

    fn proctor(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_proctor"));
        command
            .current_dir(repo())
            .env("PROCTOR_CLUSTER", "kwokctl")
            .env("TMPDIR", self.0.path())
            .env_remove("KUBECONFIG")
            .env_remove("RUST_LOG");
        command
    }

    fn control_plane_processes(&self) -> Vec<String> {
        control_plane_processes(&self.0.path().display().to_string())
    }

    /// Waits (briefly: components take a moment to exit) until none is left.
    fn assert_nothing_left(&self, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let left = self.control_plane_processes();
            if left.is_empty() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: control-plane processes still running:\n{}",
                left.join("\n")
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// Control-plane processes started from a Proctor kwokctl work dir under `tmp`.
fn control_plane_processes(tmp: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (cmdline.contains(&format!("{tmp}/proctor-kwokctl-"))
                && [
                    "kube-apiserver",
                    "etcd",
                    "kwok-controller",
                    "kube-scheduler",
                ]
                .iter()
                .any(|name| cmdline.contains(name)))
            .then_some(cmdline)
        })
        .collect()
}

/// The trials: one per lab found in `scenarios/` (a new lab is covered without Rust), so that
/// the labs' gradings on their own control planes run side by side, and the two clean-ups.
fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let mut trials = Vec::new();
    for (lab, file) in common::real_labs() {
        // The fixtures are thirty more gradings one at a time on kwokctl: opt-in
        // (`--run-ignored only`), run for a change that could set the runtimes apart.
        let fixtures = common::repo().join("tests/fixtures/submissions").join(&lab);
        for (set, cases, ignored) in [
            ("", common::bundled(&lab, &file), false),
            (
                "::fixtures",
                fixture_cases(
                    &fixtures,
                    &common::repo()
                        .join("scenarios")
                        .join(&lab)
                        .join("submissions"),
                ),
                true,
            ),
        ] {
            // kwokctl grades one submission at a time: a set of many is split so that its parts
            // run side by side, each on control planes of its own.
            let parts: Vec<Vec<BundledSubmission>> =
                cases.chunks(PER_TRIAL).map(<[_]>::to_vec).collect();
            let count = parts.len();
            for (part, cases) in parts.into_iter().enumerate() {
                let lab = lab.clone();
                let name = match (part, count) {
                    (_, 1) => format!("gradebooks_agree_across_runtimes::{lab}{set}"),
                    _ => format!(
                        "gradebooks_agree_across_runtimes::{lab}{set}::part-{}",
                        part + 1
                    ),
                };
                let trial = libtest_mimic::Trial::test(name, move || {
                    gradebooks_agree_across_runtimes(&lab, &cases);
                    Ok(())
                });
                trials.push(trial.with_ignored_flag(ignored));
            }
        }
    }
    for (name, test) in [
        (
            "ctrl_c_on_up_deletes_the_cluster",
            ctrl_c_on_up_deletes_the_cluster as fn(),
        ),
        (
            "sigterm_mid_grade_deletes_the_cluster",
            sigterm_mid_grade_deletes_the_cluster,
        ),
        (
            "a_noexecute_lab_selftests_on_both_runtimes",
            a_noexecute_lab_selftests_on_both_runtimes,
        ),
        (
            "a_pod_logs_lab_selftests_on_both_runtimes",
            a_pod_logs_lab_selftests_on_both_runtimes,
        ),
        (
            "a_usage_lab_selftests_on_both_runtimes",
            a_usage_lab_selftests_on_both_runtimes,
        ),
    ] {
        trials.push(libtest_mimic::Trial::test(name, move || {
            test();
            Ok(())
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}

/// How many submissions one trial grades (a kwokctl batch grades them one at a time).
const PER_TRIAL: usize = 4;

/// The fixtures of a lab (`tests/fixtures/submissions/<lab>/<case>/expect.yaml`), composed from
/// the lab's bundled submissions in `bundled`.
fn fixture_cases(dir: &Path, bundled: &Path) -> Vec<BundledSubmission> {
    proctor::scenario::lab::submissions_in(dir, bundled)
        .unwrap_or_else(|error| panic!("{}: {error:#}", dir.display()))
}

/// Part `part` of a lab's bundled submissions ([`PER_TRIAL`] each) get the same gradebook on a
/// real control plane as on the embedded cluster — score, status and every step — and the same
/// verdict check by check; each gets what its expect.yaml says. The kwokctl batch stores its
/// reference run in the cache; a grading of the full-score submission after it reads it back
/// and agrees with the batch.
fn gradebooks_agree_across_runtimes(lab: &str, bundled: &[BundledSubmission]) {
    if !upstream_or_skip() {
        return;
    }
    let work = tempfile::tempdir().expect("work dir");
    let cache = work.path().join("cache");
    let class = work.path().join("class");
    for submission in bundled {
        copy_tree(&submission.dir, &class.join(&submission.name));
    }
    let own = Own::new();
    let mut books = Vec::new();
    for cluster in ["embedded", "kwokctl"] {
        let reports = work.path().join(format!("reports-{cluster}"));
        let book = work.path().join(format!("{cluster}.json"));
        let output = own
            .proctor()
            .env("PROCTOR_CLUSTER", cluster)
            .args(["grade", lab, "--quiet", "--format", "json"])
            .arg("--no-report-html")
            .arg("--submissions")
            .arg(&class)
            .arg("--reports")
            .arg(&reports)
            .arg("--gradebook")
            .arg(&book)
            .env("PROCTOR_CACHE", &cache)
            .output()
            .expect("proctor runs");
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{lab} on {cluster}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = std::fs::read_to_string(&book).expect("the gradebook");
        let book: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        books.push((book, reports));
    }
    own.assert_nothing_left(&format!("after the batches of {lab}"));
    let [(embedded, embedded_reports), (kwokctl, kwokctl_reports)] = &books[..] else {
        unreachable!("two runtimes");
    };
    assert_eq!(rows(embedded).len(), bundled.len(), "{lab}: {embedded:#}");
    assert_eq!(rows(kwokctl), rows(embedded), "{lab}: gradebooks");
    for submission in bundled {
        let report = |dir: &Path| {
            let file = dir.join(format!("{}.json", submission.name));
            let text = std::fs::read_to_string(&file).expect("a report");
            serde_json::from_str::<serde_json::Value>(&text).expect("JSON")
        };
        let (on_embedded, on_kwokctl) = (report(embedded_reports), report(kwokctl_reports));
        assert!(!verdicts(&on_embedded).is_empty());
        assert_eq!(
            verdicts(&on_kwokctl),
            verdicts(&on_embedded),
            "{lab} {}",
            submission.name
        );
        let failing: std::collections::BTreeSet<u32> = on_kwokctl["tests"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|test| test["status"] != "passed")
            .filter_map(|test| test["extra_data"]["step"].as_u64())
            .filter_map(|step| u32::try_from(step).ok())
            .collect();
        let failing: Vec<u32> = failing.into_iter().collect();
        assert!(
            submission.expect.holds(&failing),
            "{lab} {}: failing steps {failing:?}, expected {:?}",
            submission.name,
            submission.expect
        );
    }

    // The kwokctl batch stored its reference run: a grading of its own reads it back.
    let Some(perfect) = bundled
        .iter()
        .find(|submission| common::exit_for(&submission.expect) == 0)
    else {
        return;
    };
    let output = own
        .proctor()
        .args(["grade", lab, "--quiet", "--format", "json"])
        .arg("--submission")
        .arg(class.join(&perfect.name))
        .env("PROCTOR_CACHE", &cache)
        .output()
        .expect("proctor runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let single = common::report_json(&output);
    own.assert_nothing_left(&format!("after grading {lab}"));
    let entries = std::fs::read_dir(&cache)
        .expect("the cache dir")
        .flatten()
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.starts_with(&format!("{lab}-kwokctl-")) && !name.ends_with(".lock")
        })
        .count();
    assert_eq!(
        entries, 1,
        "{lab}: one kwokctl entry in the reference cache"
    );
    assert_eq!(single["score"], single["max_score"], "{lab}: {single:#}");
    let report = std::fs::read_to_string(kwokctl_reports.join(format!("{}.json", perfect.name)))
        .expect("the batch's report");
    let batch: serde_json::Value = serde_json::from_str(&report).expect("JSON");
    assert_eq!(
        verdicts(&single),
        verdicts(&batch),
        "{lab}: the cached reference run"
    );
}

/// A gradebook's rows: name, score, status and the steps' scores.
fn rows(book: &serde_json::Value) -> Vec<(String, String, String, String)> {
    book["submissions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|row| {
            let field = |name: &str| row[name].to_string();
            (
                field("name"),
                field("score"),
                field("status"),
                field("steps"),
            )
        })
        .collect()
}

/// A report's checks: name, score and status.
fn verdicts(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["tests"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|test| {
            let field = |name: &str| test[name].to_string();
            (field("name"), field("score"), field("status"))
        })
        .collect()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}

/// A lab whose steps taint a node NoSchedule, then NoExecute, and wait for the evictions
/// (`tests/fixtures/labs/noexecute`) selftests on both runtimes.
fn a_noexecute_lab_selftests_on_both_runtimes() {
    fixture_lab_selftests_on_both_runtimes(
        "noexecute",
        &["perfect", "hardcoded", "saved-too-early"],
    );
}

/// A lab whose steps read the container logs and run the commands it declares
/// (`tests/fixtures/labs/podlogs`: a Job's pod selected by namespace and container, a pod's
/// previous log, `nvidia-smi` in one container) selftests on both runtimes: kwok under kwokctl is
/// given the same `ClusterLogs` and `ClusterExec` as the embedded cluster.
fn a_pod_logs_lab_selftests_on_both_runtimes() {
    fixture_lab_selftests_on_both_runtimes(
        "podlogs",
        &["perfect", "whole-log", "current-log", "guessed-gpus"],
    );
}

/// A lab whose steps read what its containers use through `kubectl top`
/// (`tests/fixtures/labs/usage`) selftests on both runtimes: kwok under kwokctl is given the same
/// `ClusterResourceUsage` documents as the embedded cluster, and metrics-server reads them.
fn a_usage_lab_selftests_on_both_runtimes() {
    fixture_lab_selftests_on_both_runtimes("usage", &["perfect", "by-cpu", "cpu-column"]);
}

/// The fixture lab selftests with `--cluster both`, and its reference, empty and bundled
/// submissions get the same verdict on every check on each runtime.
fn fixture_lab_selftests_on_both_runtimes(lab: &str, submissions: &[&str]) {
    if !upstream_or_skip() {
        return;
    }
    let own = Own::new();
    let cache = own.0.path().join("cache");
    let output = own
        .proctor()
        .args(["selftest", lab, "--color", "never", "--cluster", "both"])
        .arg("--scenarios")
        .arg(repo().join("tests/fixtures/labs"))
        .env("PROCTOR_CACHE", &cache)
        .output()
        .expect("proctor runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    for runtime in ["embedded", "kwokctl"] {
        assert!(
            stdout.contains(&format!("selftest of {lab} on {runtime}")),
            "{stdout}"
        );
    }
    let named = submissions.iter().map(|s| format!("submission {s}"));
    for graded in [
        "the reference solution".to_string(),
        "an empty submission".to_string(),
    ]
    .into_iter()
    .chain(named)
    {
        let line = format!("✓ {graded} grades the same on embedded and kwokctl");
        assert!(stdout.contains(&line), "{line}\n{stdout}");
    }
    assert_eq!(
        stdout.matches("✓ step 2 passes when done").count(),
        2,
        "{stdout}"
    );
    assert!(!stdout.contains('✗'), "{stdout}");
    own.assert_nothing_left("after the selftest on both runtimes");
}

fn ctrl_c_on_up_deletes_the_cluster() {
    if !upstream_or_skip() {
        return;
    }
    let own = Own::new();
    let dir = tempfile::tempdir().expect("dir");
    let kubeconfig = dir.path().join("kubeconfig");
    let mut child = own
        .proctor()
        .args(["up", "--kubeconfig"])
        .arg(&kubeconfig)
        .env("PROCTOR_CACHE", dir.path().join("cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("proctor up starts");
    let stdout = child.stdout.take().expect("stdout");
    let line = BufReader::new(stdout)
        .lines()
        .next()
        .and_then(Result::ok)
        .unwrap_or_default();
    assert_eq!(line, format!("export KUBECONFIG={}", kubeconfig.display()));
    let nodes = Command::new("kubectl")
        .args(["get", "nodes", "-o", "name"])
        .env("KUBECONFIG", &kubeconfig)
        .output()
        .expect("kubectl runs");
    assert_eq!(
        String::from_utf8_lossy(&nodes.stdout),
        "node/lab-node-0\nnode/lab-node-1\nnode/lab-node-2\n"
    );
    assert!(
        !own.control_plane_processes().is_empty(),
        "the cluster runs"
    );
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).expect("SIGINT");
    let status = child.wait().expect("proctor up exits");
    assert_eq!(status.code(), Some(0), "up ends normally on Ctrl-C");
    own.assert_nothing_left("after Ctrl-C on proctor up");
    assert!(!kubeconfig.exists(), "the kubeconfig is removed");
}

fn sigterm_mid_grade_deletes_the_cluster() {
    if !upstream_or_skip() {
        return;
    }
    let own = Own::new();
    let cache = tempfile::tempdir().expect("cache dir");
    // Any lab will do: the first one, and a submission of it.
    let (lab, file) = common::real_labs().remove(0);
    let submission = common::bundled(&lab, &file).remove(0);
    let mut child = own
        .proctor()
        .args(["grade", &lab, "--quiet", "--format", "json"])
        .arg("--submission")
        .arg(&submission.dir)
        .env("PROCTOR_CACHE", cache.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("proctor grade starts");
    // Well into the reference run: the cluster is up and scripts are running.
    let deadline = Instant::now() + Duration::from_secs(60);
    while own.control_plane_processes().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(8));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).expect("SIGTERM");
    let status = child.wait().expect("proctor grade exits");
    assert_eq!(status.code(), Some(130), "interrupted");
    own.assert_nothing_left("after SIGTERM mid-grade");
}
