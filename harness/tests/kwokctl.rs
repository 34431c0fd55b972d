//! `--cluster kwokctl`: a real control plane (kube-apiserver, etcd, controller manager, scheduler,
//! kwok) per run, from the binaries `upstream/build.sh` builds. Every shipped lab's full-score
//! submissions get full marks there, and the cluster is gone afterwards, also when `proctor up`
//! is stopped with Ctrl-C and when a grade is stopped with SIGTERM.
//!
//! Without the binaries every test says so in one line and returns; `PROCTOR_REQUIRE_UPSTREAM=1`
//! (set by CI) makes that a failure.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use proctor::cluster::upstream::Upstream;

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
        trials.push(libtest_mimic::Trial::test(
            format!("full_score_submissions_get_full_marks_on_kwokctl::{lab}"),
            move || {
                full_score_submissions_get_full_marks(&lab, &file);
                Ok(())
            },
        ));
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
    ] {
        trials.push(libtest_mimic::Trial::test(name, move || {
            test();
            Ok(())
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}

/// A lab's full-score submissions get full marks on a real control plane too, and the reference
/// run cached by the first grading gives the next the same verdict, check by check.
fn full_score_submissions_get_full_marks(lab: &str, file: &Path) {
    if !upstream_or_skip() {
        return;
    }
    let cache = tempfile::tempdir().expect("cache dir");
    let full_score: Vec<_> = common::bundled(lab, file)
        .into_iter()
        .filter(|submission| common::exit_for(&submission.expect) == 0)
        .collect();
    let mut first = None;
    for submission in &full_score {
        let report = full_marks_on_kwokctl(lab, &submission.dir, cache.path());
        first.get_or_insert(report);
    }
    let (Some(submission), Some(uncached)) = (full_score.first(), first) else {
        return;
    };
    let entries: Vec<String> = std::fs::read_dir(cache.path())
        .expect("the cache dir")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(&format!("{lab}-kwokctl-")) && !name.ends_with(".lock"))
        .collect();
    assert_eq!(
        entries.len(),
        1,
        "{lab}: one kwokctl entry in the cache: {entries:?}"
    );
    assert!(cache.path().join(&entries[0]).join("complete").is_file());
    let cached = full_marks_on_kwokctl(lab, &submission.dir, cache.path());
    let verdicts = |report: &serde_json::Value| -> Vec<(String, String, String)> {
        report["tests"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|test| {
                let field = |name: &str| test[name].to_string();
                (field("name"), field("score"), field("status"))
            })
            .collect()
    };
    assert!(!verdicts(&uncached).is_empty(), "{lab}: {uncached:#}");
    assert_eq!(
        verdicts(&cached),
        verdicts(&uncached),
        "{lab}: cached reference run"
    );
}

/// Grades `submission` on a kwokctl cluster of its own with the reference cache `cache`, and
/// requires full marks; the JSON report.
fn full_marks_on_kwokctl(lab: &str, submission: &Path, cache: &Path) -> serde_json::Value {
    let own = Own::new();
    let output = own
        .proctor()
        .args(["grade", lab, "--quiet", "--format", "json"])
        .arg("--submission")
        .arg(submission)
        .env("PROCTOR_CACHE", cache)
        .output()
        .expect("proctor runs");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not a JSON report ({e}):\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(report["score"], report["max_score"], "{lab}: {report:#}");
    assert!(report["score"].as_f64().is_some_and(|s| s > 0.0));
    own.assert_nothing_left(&format!("after grading {lab}"));
    report
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
