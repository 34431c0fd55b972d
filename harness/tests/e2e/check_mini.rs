//! End to end: `proctor up` serving a lab, `proctor solve` applying the reference to it and
//! `proctor check` judging the live cluster and lab dir.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::lab;
use assert_cmd::cargo::cargo_bin_cmd;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// A running `proctor up`; stopped with SIGINT when dropped.
struct Up {
    child: Child,
    kubeconfig: PathBuf,
}

impl Up {
    fn start(scenarios: &Path, kubeconfig: &Path, lab_dir: &Path) -> Up {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("proctor"))
            .env("PROCTOR_CACHE", crate::common::cache_in(scenarios))
            .args(["up", "mini", "--scenarios"])
            .arg(scenarios)
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .arg("--dir")
            .arg(lab_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("proctor up starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("reads the export line");
        let path = line
            .trim_end()
            .strip_prefix("export KUBECONFIG=")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
        assert_eq!(
            Path::new(path),
            kubeconfig,
            "the printed kubeconfig is the requested file"
        );
        Up {
            child,
            kubeconfig: kubeconfig.to_path_buf(),
        }
    }

    fn stop(&mut self) -> Option<i32> {
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGINT);
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        None
    }
}

impl Drop for Up {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.stop();
        }
    }
}

#[test]
fn up_serves_the_lab_nodes_until_sigint() {
    let root = lab();
    let work = tempfile::tempdir().expect("tempdir");
    let kubeconfig = work.path().join("kubeconfig");
    let mut up = Up::start(root.path(), &kubeconfig, &work.path().join("lab"));
    let nodes = Command::new("kubectl")
        .args(["get", "nodes", "-o", "name"])
        .env("KUBECONFIG", &up.kubeconfig)
        .output()
        .expect("kubectl runs");
    assert_eq!(
        String::from_utf8_lossy(&nodes.stdout),
        "node/lab-node-0\nnode/lab-node-1\n"
    );
    assert_eq!(up.stop(), Some(0), "a clean shutdown exits 0");
    assert!(
        !kubeconfig.exists(),
        "the kubeconfig of a stopped cluster is removed"
    );
}

#[test]
fn check_fails_before_solve_and_passes_after() {
    let root = lab();
    let work = tempfile::tempdir().expect("tempdir");
    let kubeconfig = work.path().join("kubeconfig");
    let lab_dir = work.path().join("lab");
    let cache = work.path().join("cache");
    let up = Up::start(root.path(), &kubeconfig, &lab_dir);

    let before = cargo_bin_cmd!("proctor")
        .args([
            "check",
            "mini",
            "--quiet",
            "--color",
            "never",
            "--scenarios",
        ])
        .arg(root.path())
        .arg("--dir")
        .arg(&lab_dir)
        .env("KUBECONFIG", &up.kubeconfig)
        .env("PROCTOR_CACHE", &cache)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&before.stdout);
    assert_eq!(before.status.code(), Some(1), "{text}");
    assert!(text.contains("✗ 1.1 lab-node-0 is gold"), "{text}");
    assert!(text.contains("✗ 1.2 out/tier.txt"), "{text}");
    assert!(
        !text.contains("1.3"),
        "hidden checks are not self-checked: {text}"
    );
    // Where the learner is, what only grading judges, and how much runs on unseen nodes.
    assert!(
        text.contains("You are at step 1: Tier tool (the first step with a failing check)."),
        "{text}"
    );
    assert!(
        text.contains("Checked at grading only, in step 1: 1 hidden check (3 points)."),
        "{text}"
    );
    assert!(
        text.contains("3 points of grading run your scripts on nodes you have not seen"),
        "{text}"
    );

    cargo_bin_cmd!("proctor")
        .env("PROCTOR_CACHE", crate::common::cache_in(root.path()))
        .args(["solve", "mini", "--scenarios"])
        .arg(root.path())
        .arg("--dir")
        .arg(&lab_dir)
        .env("KUBECONFIG", &up.kubeconfig)
        .assert()
        .success();

    let after = cargo_bin_cmd!("proctor")
        .args([
            "check",
            "mini",
            "--quiet",
            "--color",
            "never",
            "--scenarios",
        ])
        .arg(root.path())
        .arg("--dir")
        .arg(&lab_dir)
        .env("KUBECONFIG", &up.kubeconfig)
        .env("PROCTOR_CACHE", &cache)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&after.stdout);
    assert_eq!(after.status.code(), Some(0), "{text}");
    assert!(text.contains("✓ 2.2 ConfigMap settings exists"), "{text}");
    assert!(
        text.contains("Every check you can run here passes."),
        "{text}"
    );

    let only_step_2 = cargo_bin_cmd!("proctor")
        .args(["check", "mini", "--step", "2", "--quiet", "--scenarios"])
        .arg(root.path())
        .arg("--dir")
        .arg(&lab_dir)
        .env("KUBECONFIG", &up.kubeconfig)
        .env("PROCTOR_CACHE", &cache)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&only_step_2.stdout);
    assert!(!text.contains("Step 1"), "{text}");
    assert!(text.contains("Step 2: Settings"), "{text}");
    assert!(!text.contains("You are at step"), "{text}");
    assert!(!text.contains("nodes you have not seen"), "{text}");
    let nodes = Command::new("kubectl")
        .args(["get", "nodes", "-o", "name"])
        .env("KUBECONFIG", &up.kubeconfig)
        .output()
        .expect("kubectl runs");
    assert_eq!(
        String::from_utf8_lossy(&nodes.stdout),
        "node/lab-node-0\nnode/lab-node-1\n",
        "injected nodes are removed from the learner's cluster"
    );
}

#[test]
fn grading_on_an_external_cluster_leaves_it_as_found() {
    let root = lab();
    let work = tempfile::tempdir().expect("tempdir");
    let kubeconfig = work.path().join("kubeconfig");
    let up = Up::start(root.path(), &kubeconfig, &work.path().join("lab"));
    let good = crate::common::submission(
        Some((crate::common::TIER_SH, 0o755)),
        Some("gold\n"),
        Some(crate::common::SETTINGS),
    );
    let graded = cargo_bin_cmd!("proctor")
        .env("PROCTOR_CACHE", crate::common::cache_in(root.path()))
        .args([
            "grade",
            "mini",
            "--format",
            "json",
            "--quiet",
            "--scenarios",
        ])
        .arg(root.path())
        .arg("--submission")
        .arg(good.path())
        .arg("--kubeconfig")
        .arg(&up.kubeconfig)
        .output()
        .expect("runs");
    let json: serde_json::Value = serde_json::from_slice(&graded.stdout).expect("JSON report");
    assert_eq!(graded.status.code(), Some(0), "{json:#}");
    assert_eq!(json["score"], json["max_score"]);
    let kubectl = |args: &[&str]| {
        let output = Command::new("kubectl")
            .args(args)
            .env("KUBECONFIG", &up.kubeconfig)
            .output()
            .expect("kubectl runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    assert_eq!(
        kubectl(&["get", "nodes", "-o", "name"]),
        "node/lab-node-0\nnode/lab-node-1\n"
    );
    assert_eq!(
        kubectl(&["get", "nodes", "-l", "tier", "-o", "name"]),
        "",
        "labels set by the reference are undone"
    );
    assert_eq!(
        kubectl(&[
            "get",
            "configmap",
            "settings",
            "--ignore-not-found",
            "-o",
            "name"
        ]),
        ""
    );
}

/// A self-check whose shadow reference fails is the scenario's failure: exit 2, the failing
/// reference command named, no checks reported.
#[test]
fn check_with_a_failing_reference_exits_2() {
    let root = lab();
    let broken = crate::common::SCENARIO.replace(
        "      ./tier.sh lab-node-0 > out/tier.txt\n",
        "      ./tier.sh lab-node-0 > out/tier.txt\n      [ \"$(cat out/tier.txt)\" = silver ]\n",
    );
    assert_ne!(broken, crate::common::SCENARIO, "the scenario changed");
    crate::common::write(&root.path().join("mini/scenario.yaml"), &broken, 0o644);
    let work = tempfile::tempdir().expect("tempdir");
    let kubeconfig = work.path().join("kubeconfig");
    let lab_dir = work.path().join("lab");
    let up = Up::start(root.path(), &kubeconfig, &lab_dir);
    let output = cargo_bin_cmd!("proctor")
        .args(["check", "mini", "--color", "never", "--scenarios"])
        .arg(root.path())
        .arg("--dir")
        .arg(&lab_dir)
        .env("KUBECONFIG", &up.kubeconfig)
        .env("PROCTOR_CACHE", work.path().join("cache"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "mini: the reference of step 1 failed (exit 1) at `[ \"$(cat out/tier.txt)\" = silver ]`"
        ),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&output.stdout).contains("✓"));
}

/// `check` against a folder that is not there says so and makes nothing; against the cluster
/// `up` started for another lab it refuses, naming that lab.
#[test]
fn check_refuses_a_missing_folder_and_another_labs_cluster() {
    let root = lab();
    proctor::tree::copy_dir(&root.path().join("mini"), &root.path().join("other"))
        .expect("a second lab");
    crate::common::write(
        &root.path().join("other/scenario.yaml"),
        &crate::common::SCENARIO.replace("name: mini", "name: other"),
        0o644,
    );
    let work = tempfile::tempdir().expect("tempdir");
    let kubeconfig = work.path().join("kubeconfig");
    let lab_dir = work.path().join("lab");
    let mut up = Up::start(root.path(), &kubeconfig, &lab_dir);
    let kc = up.kubeconfig.clone();
    let check = |lab: &str, dir: &Path| {
        let output = cargo_bin_cmd!("proctor")
            .args(["check", lab, "--color", "never", "--scenarios"])
            .arg(root.path())
            .arg("--dir")
            .arg(dir)
            .env("KUBECONFIG", &kc)
            .env("PROCTOR_CACHE", work.path().join("cache"))
            .output()
            .expect("runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let typo = work.path().join("lba");
    let (code, stderr) = check("mini", &typo);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("the lab folder {} does not exist", typo.display())),
        "{stderr}"
    );
    assert!(!typo.exists(), "check made the mistyped folder");

    let (code, stderr) = check("other", &lab_dir);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("was started for lab mini (`proctor up mini`)"),
        "{stderr}"
    );
    // kubectl reads the kubeconfig with its mark as before.
    let nodes = Command::new("kubectl")
        .args(["get", "nodes", "-o", "name"])
        .env("KUBECONFIG", &kc)
        .output()
        .expect("kubectl");
    assert!(
        nodes.status.success(),
        "{}",
        String::from_utf8_lossy(&nodes.stderr)
    );

    // `up` killed (a closed terminal): its kubeconfig stays, its server is gone.
    up.child.kill().expect("kill -9 proctor up");
    up.child.wait().expect("reaped");
    let (code, stderr) = check("mini", &lab_dir);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("is not running (its API server refuses connections): run `proctor up mini` again where you started it"),
        "{stderr}"
    );
}

fn kubectl(kubeconfig: &Path, args: &[&str]) -> std::process::Output {
    Command::new("kubectl")
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .output()
        .expect("kubectl runs")
}

/// Waits (up to a minute, polling) until `path` holds `text`.
fn wait_for_text(path: &Path, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(path).is_ok_and(|held| held.contains(text)) {
        assert!(
            Instant::now() < deadline,
            "{} never held {text:?}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A learner's cluster survives `up` being stopped (Ctrl-C) or killed (a closed terminal): the
/// next `up` in the folder brings it back, `--fresh` starts over, and a second `up` while one
/// runs is refused with the way to reach the first.
#[test]
fn up_keeps_the_learners_cluster_and_refuses_a_second_up() {
    let root = lab();
    let work = tempfile::tempdir().expect("tempdir");
    let kubeconfig = work.path().join(".proctor/kubeconfig");
    let lab_dir = work.path().join("lab");
    let state = work.path().join(".proctor/mini.state.json");
    let mut up = Up::start(root.path(), &kubeconfig, &lab_dir);

    let second = cargo_bin_cmd!("proctor")
        .args(["up", "mini", "--scenarios"])
        .arg(root.path())
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .output()
        .expect("runs");
    let said = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{said}");
    assert!(
        said.contains(&format!(
            "a cluster is already up for {0} (process {1}): use it with `export KUBECONFIG={0}`",
            kubeconfig.display(),
            up.child.id()
        )),
        "{said}"
    );

    // The learner's own kubeconfig edits work while `up` runs (client-go locks the file with
    // `<kubeconfig>.lock`, a name `up` must leave alone).
    let edited = kubectl(
        &kubeconfig,
        &["config", "set-context", "--current", "--namespace=default"],
    );
    assert!(
        edited.status.success(),
        "{}",
        String::from_utf8_lossy(&edited.stderr)
    );

    // Stopped with Ctrl-C: kept, and brought back.
    let created = kubectl(
        &kubeconfig,
        &["create", "configmap", "work", "--from-literal=a=b"],
    );
    assert!(created.status.success());
    assert_eq!(up.stop(), Some(0));
    assert!(state.is_file(), "no state kept at {}", state.display());
    let mut up = Up::start(root.path(), &kubeconfig, &lab_dir);
    let found = kubectl(
        &kubeconfig,
        &["get", "configmap", "work", "-o", "jsonpath={.data.a}"],
    );
    assert_eq!(String::from_utf8_lossy(&found.stdout), "b");

    // Killed: what was kept while it ran is brought back.
    let labelled = kubectl(&kubeconfig, &["label", "node", "lab-node-1", "seen=yes"]);
    assert!(labelled.status.success());
    wait_for_text(&state, "\"seen\":\"yes\"");
    up.child.kill().expect("kill -9 proctor up");
    let _ = up.child.wait();
    let up = Up::start(root.path(), &kubeconfig, &lab_dir);
    let label = kubectl(
        &kubeconfig,
        &[
            "get",
            "node",
            "lab-node-1",
            "-o",
            "jsonpath={.metadata.labels.seen}",
        ],
    );
    assert_eq!(String::from_utf8_lossy(&label.stdout), "yes");
    drop(up);

    // --fresh: the lab's starting state.
    let mut fresh = Command::new(assert_cmd::cargo::cargo_bin!("proctor"))
        .args(["up", "mini", "--fresh", "--scenarios"])
        .arg(root.path())
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("proctor up starts");
    let mut line = String::new();
    BufReader::new(fresh.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("reads the export line");
    let gone = kubectl(&kubeconfig, &["get", "configmap", "work"]);
    assert!(
        !gone.status.success(),
        "a fresh cluster holds the kept ConfigMap"
    );
    let _ = kill(Pid::from_raw(fresh.id() as i32), Signal::SIGINT);
    let _ = fresh.wait();
}

/// `solve --until N` catches a learner up: their folder and cluster end as the reference leaves
/// them after step N, and no further.
#[test]
fn solve_until_catches_a_learner_up_to_a_step() {
    let root = lab();
    let work = tempfile::tempdir().expect("tempdir");
    let kubeconfig = work.path().join("kubeconfig");
    let lab_dir = work.path().join("lab");
    let cache = work.path().join("cache");
    let up = Up::start(root.path(), &kubeconfig, &lab_dir);
    let solve = |args: &[&str]| {
        cargo_bin_cmd!("proctor")
            .args(["solve", "mini", "--scenarios"])
            .arg(root.path())
            .arg("--dir")
            .arg(&lab_dir)
            .args(args)
            .env("KUBECONFIG", &up.kubeconfig)
            .env("PROCTOR_CACHE", &cache)
            .output()
            .expect("runs")
    };
    let wrong = solve(&["--until", "9"]);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&wrong.stderr)
            .contains("--until 9: mini has no step 9 (its steps: 1, 2)"),
        "{}",
        String::from_utf8_lossy(&wrong.stderr)
    );
    let solved = solve(&["--until", "1"]);
    assert_eq!(
        solved.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&solved.stderr)
    );
    assert!(String::from_utf8_lossy(&solved.stderr).contains("mini: reference's step 1 written to"));
    let check = |step: &str| {
        cargo_bin_cmd!("proctor")
            .args([
                "check",
                "mini",
                "--quiet",
                "--color",
                "never",
                "--step",
                step,
                "--scenarios",
            ])
            .arg(root.path())
            .arg("--dir")
            .arg(&lab_dir)
            .env("KUBECONFIG", &up.kubeconfig)
            .env("PROCTOR_CACHE", &cache)
            .output()
            .expect("runs")
    };
    let one = check("1");
    assert_eq!(
        one.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&one.stdout)
    );
    let two = check("2");
    assert_eq!(
        two.status.code(),
        Some(1),
        "step 2 was not solved: {}",
        String::from_utf8_lossy(&two.stdout)
    );
    assert!(!lab_dir.join("k8s/settings.yaml").exists());
}
