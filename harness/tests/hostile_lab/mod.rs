//! A five-step lab written on the fly for the hostile-submission corpus, its correct submission,
//! and what the tests need around a grade: the binary run with a private reference cache, the
//! JSON report read per check and per step, the grader's files hashed before and after, leftover
//! processes found by their unique command line, and what this machine's sandbox offers.
//!
//! Everything lives under one root dir that is *not* a temp dir when it can be helped (under
//! `$HOME`): temp dirs are hidden from scripts anyway, so only a root elsewhere proves that the
//! scenario dir, the reference cache and the submission are protected for what they are.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

/// The limits of the default run: small, so that runaway scripts are stopped quickly, but with
/// time for a correct script's two kubectl calls on a loaded shared CI machine. Memory
/// leaves kubectl room when the sandbox has no memory cgroup and falls back to `RLIMIT_AS`: the
/// Go runtime reserves ~600 MiB of address space at start and fails below that.
pub const SMALL_LIMITS: &str =
    "limits:\n  timeout: 5s\n  output: 64KiB\n  processes: 64\n  memory: 768MiB\n";

const SCENARIO: &str = r#"apiVersion: proctor/v1
kind: Scenario
name: hostile
title: Five small scripts
# {secret}
labDir: {lab_dir}
cluster:
  nodes:
    - name: lab-node-0
      labels: {tier: gold}
    - name: lab-node-1
      labels: {tier: silver}
    - name: lab-node-2
      labels: {tier: bronze}
    - name: lab-node-3
      labels: {tier: silver}
  manifests: [k8s/hostile.yaml]
  # What `kubectl exec` runs in the lab's pod: a hostile script's way to have the API server run
  # its commands.
  exec:
    - namespaces: [hostile]
      commands:
        lab-tool: |
          declared output
{limits}
perturbations:
  extra:
    namePrefix: extra-node-
    labels: {tier: copper}
# Every check shows its whole diff: the tests read what each run did from it.
steps:
  - id: 1
    title: Nodes
    reference: |
      install -m 0755 "$SCENARIO_DIR/reference/nodes.sh" nodes.sh
      install -m 0755 "$SCENARIO_DIR/reference/count.sh" count.sh
      mkdir -p out
      ./nodes.sh > out/nodes.txt
    artifacts: [nodes.sh, count.sh, out/nodes.txt]
    checks:
      - id: nodes-script
        title: nodes.sh lists the nodes
        feedback: diff
        points: 2
        script: {path: nodes.sh}
      - id: nodes-file
        title: out/nodes.txt
        feedback: diff
        file: {path: out/nodes.txt}
      - id: count-script
        title: count.sh counts nodes and settings
        feedback: diff
        script: {path: count.sh}
  - id: 2
    title: Tiers
    reference: |
      install -m 0755 "$SCENARIO_DIR/reference/tier.sh" tier.sh
      install -m 0755 "$SCENARIO_DIR/reference/gold.sh" gold.sh
      for n in lab-node-0 lab-node-1 lab-node-2 lab-node-3; do echo "$n $(./tier.sh $n)"; done > out/tiers.txt
    artifacts: [tier.sh, gold.sh, out/tiers.txt]
    checks:
      - id: tier-script
        title: tier.sh reads the tier label
        feedback: diff
        points: 2
        script:
          path: tier.sh
          args: ["{node}"]
          nodes: {selector: tier, includeInjected: true}
          inject: [extra]
      - id: tiers-file
        title: out/tiers.txt
        feedback: diff
        file: {path: out/tiers.txt}
      - id: gold-script
        title: gold.sh lists the gold nodes
        feedback: diff
        script: {path: gold.sh}
  - id: 3
    title: Settings
    reference: |
      install -m 0755 "$SCENARIO_DIR/reference/ns.sh" ns.sh
      ./ns.sh > out/ns.txt
    artifacts: [ns.sh, out/ns.txt]
    checks:
      - id: ns-script
        title: ns.sh prints the settings
        feedback: diff
        points: 2
        script: {path: ns.sh}
      - id: ns-file
        title: out/ns.txt
        feedback: diff
        file: {path: out/ns.txt}
  - id: 4
    title: Greeting
    reference: |
      install -m 0755 "$SCENARIO_DIR/reference/echo.sh" echo.sh
      ./echo.sh > out/echo.txt
    artifacts: [echo.sh, out/echo.txt]
    checks:
      - id: echo-script
        title: echo.sh greets
        feedback: diff
        points: 2
        script: {path: echo.sh}
      - id: echo-file
        title: out/echo.txt
        feedback: diff
        file: {path: out/echo.txt}
  - id: 5
    title: Summary
    reference: |
      install -m 0755 "$SCENARIO_DIR/reference/summary.sh" summary.sh
      ./summary.sh > out/summary.txt
      # The last reference state holds the secret: a script that reads a saved reference state
      # (in a temp dir or the reference cache) would show it.
      cp "$SCENARIO_DIR/reference/secret.txt" .reference-only
    artifacts: [summary.sh, out/summary.txt]
    checks:
      - id: summary-script
        title: summary.sh counts everything
        feedback: diff
        points: 2
        script: {path: summary.sh}
      - id: summary-file
        title: out/summary.txt
        feedback: diff
        file: {path: out/summary.txt}
"#;

const NAMESPACE: &str = "apiVersion: v1
kind: Namespace
metadata:
  name: hostile
---
apiVersion: v1
kind: Pod
metadata:
  name: box
  namespace: hostile
spec:
  containers: [{name: box, image: busybox}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: alpha
  namespace: hostile
  labels: {app: hostile}
data:
  value: one
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: beta
  namespace: hostile
  labels: {app: hostile}
data:
  value: two
";

pub const NODES_SH: &str = "#!/bin/bash\nset -o pipefail\nkubectl get nodes -o name | sort\n";
// The reference's scripts fail when kubectl does (rather than count nothing), so that a broken
// reference run shows as one, never as an answer key of zeros.
pub const COUNT_SH: &str = "#!/bin/bash\nset -euo pipefail\nnodes=$(kubectl get nodes -o name | wc -l)\nsettings=$(kubectl get configmaps -n hostile -l app=hostile -o name | wc -l)\necho \"nodes $nodes\"\necho \"settings $settings\"\n";
pub const TIER_SH: &str =
    "#!/bin/bash\nkubectl get node \"$1\" -o jsonpath='{.metadata.labels.tier}'\necho\n";
pub const GOLD_SH: &str =
    "#!/bin/bash\nset -o pipefail\nkubectl get nodes -l tier=gold -o name | sort\n";
pub const NS_SH: &str = "#!/bin/bash\nkubectl get configmaps -n hostile -l app=hostile -o jsonpath='{range .items[*]}{.metadata.name}={.data.value}{\"\\n\"}{end}'\n";
pub const ECHO_SH: &str = "#!/bin/bash\necho 'hello from the hostile lab'\n";
pub const SUMMARY_SH: &str = "#!/bin/bash\nset -euo pipefail\ntiers=$(kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.labels.tier}{\"\\n\"}{end}')\nsettings=$(kubectl get configmaps -n hostile -l app=hostile -o name | wc -l)\nprintf 'nodes=%s gold=%s settings=%s\\n' \"$(grep -c . <<<\"$tiers\")\" \"$(grep -c '^gold$' <<<\"$tiers\" || true)\" \"$settings\"\n";

/// What the reference writes, which a correct submission holds too.
pub const OUT_NODES: &str = "node/lab-node-0\nnode/lab-node-1\nnode/lab-node-2\nnode/lab-node-3\n";
pub const OUT_TIERS: &str =
    "lab-node-0 gold\nlab-node-1 silver\nlab-node-2 bronze\nlab-node-3 silver\n";
pub const OUT_NS: &str = "alpha=one\nbeta=two\n";
pub const OUT_ECHO: &str = "hello from the hostile lab\n";
pub const OUT_SUMMARY: &str = "nodes=4 gold=1 settings=2\n";

/// Every check of the lab and its points, in report order.
pub const CHECKS: [(&str, f64); 12] = [
    ("1.1", 2.0),
    ("1.2", 1.0),
    ("1.3", 1.0),
    ("2.1", 2.0),
    ("2.2", 1.0),
    ("2.3", 1.0),
    ("3.1", 2.0),
    ("3.2", 1.0),
    ("4.1", 2.0),
    ("4.2", 1.0),
    ("5.1", 2.0),
    ("5.2", 1.0),
];

fn token() -> String {
    format!("{:08x}", rand::random::<u32>())
}

fn write(path: &Path, bytes: &[u8], mode: u32) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(path, bytes).expect("write");
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

/// The lab on disk, with the grader's surroundings a hostile script will aim at.
pub struct Lab {
    root: tempfile::TempDir,
    /// In the reference only (never in a lab dir a learner's script runs in).
    pub secret: String,
    /// A `sleep` argument nobody else uses: every process a hostile script leaves is a `sleep`
    /// with it, so leftovers are found by command line.
    pub sentinel: String,
    /// What a hostile script writes wherever it can; must appear nowhere afterwards.
    pub pwned: String,
    /// The `HOME` every grade runs with, when it is not the test's own: the reference cache is
    /// then its default, `$HOME/.cache/proctor`.
    home: Option<PathBuf>,
}

impl Lab {
    pub fn new(limits: &str) -> Lab {
        let root = match std::env::var_os("HOME").map(PathBuf::from) {
            Some(home) if home.is_dir() => tempfile::Builder::new()
                .prefix(".proctor-hostile-")
                .tempdir_in(home)
                .or_else(|_| tempfile::tempdir()),
            _ => tempfile::tempdir(),
        }
        .expect("root dir");
        Lab::at(root, None, limits)
    }

    /// Everything under `/tmp`, grades run with `HOME=<root>/home` (as in a container with a
    /// throwaway home) and the reference cache at its default place under that HOME.
    pub fn with_home_in_tmp(limits: &str) -> Lab {
        // Private, as a grader's folders are (without namespaces, learners' uids see the host).
        let root = tempfile::Builder::new()
            .prefix("proctor-hostile-")
            .permissions(fs::Permissions::from_mode(0o700))
            .tempdir_in("/tmp")
            .expect("root dir");
        let home = root.path().join("home");
        fs::create_dir_all(&home).expect("home dir");
        Lab::at(root, Some(home), limits)
    }

    fn at(root: tempfile::TempDir, home: Option<PathBuf>, limits: &str) -> Lab {
        let lab = Lab {
            root,
            secret: format!("SECRET-{}", token()),
            sentinel: format!("987654.{}", rand::random::<u32>()),
            pwned: format!("PWNED-{}", token()),
            home,
        };
        let dir = lab.scenario_dir();
        let scenario = SCENARIO
            .replace("{lab_dir}", lab_dir())
            .replace("{secret}", &lab.secret)
            .replace("{limits}", limits);
        write(&dir.join("scenario.yaml"), scenario.as_bytes(), 0o644);
        write(&dir.join("k8s/hostile.yaml"), NAMESPACE.as_bytes(), 0o644);
        for (name, text) in [
            ("nodes.sh", NODES_SH),
            ("count.sh", COUNT_SH),
            ("tier.sh", TIER_SH),
            ("gold.sh", GOLD_SH),
            ("ns.sh", NS_SH),
            ("echo.sh", ECHO_SH),
            ("summary.sh", SUMMARY_SH),
        ] {
            write(&dir.join("reference").join(name), text.as_bytes(), 0o755);
        }
        write(
            &dir.join("reference/secret.txt"),
            format!("{}\n", lab.secret).as_bytes(),
            0o644,
        );
        write(&lab.cache_sentinel(), b"the cache's own file\n", 0o644);
        write(
            &lab.outside_sentinel(),
            b"a file of the grading host\n",
            0o644,
        );
        lab
    }

    pub fn root(&self) -> &Path {
        self.root.path()
    }

    pub fn scenarios(&self) -> PathBuf {
        self.root().join("scenarios")
    }

    pub fn scenario_dir(&self) -> PathBuf {
        self.scenarios().join("hostile")
    }

    /// `$PROCTOR_CACHE` of every grade (the reference runs are kept there).
    pub fn cache(&self) -> PathBuf {
        match &self.home {
            Some(home) => home.join(".cache/proctor"),
            None => self.root().join("cache"),
        }
    }

    pub fn cache_sentinel(&self) -> PathBuf {
        self.cache().join("sentinel.txt")
    }

    pub fn outside_sentinel(&self) -> PathBuf {
        self.root().join("outside/sentinel.txt")
    }

    pub fn submission_dir(&self, case: &str) -> PathBuf {
        self.root().join("submissions").join(case)
    }

    /// Writes `files` as submission `case`.
    pub fn submission(&self, case: &str, files: &Files) -> PathBuf {
        let dir = self.submission_dir(case);
        files.write(&dir);
        dir
    }

    /// `proctor grade hostile` of `submission` in `format`, with this lab's cache.
    pub fn grade(&self, submission: &Path, format: &str) -> Graded {
        self.grade_from(&self.scenarios(), submission, format)
    }

    /// The same, with the lab read from `scenarios`.
    pub fn grade_from(&self, scenarios: &Path, submission: &Path, format: &str) -> Graded {
        let mut command = cargo_bin_cmd!("proctor");
        command
            .args(["grade", "hostile", "--quiet", "--color", "never"])
            .args(["--format", format])
            .arg("--scenarios")
            .arg(scenarios)
            .arg("--submission")
            .arg(submission)
            .env_remove("PROCTOR_PRIVATE_PATHS")
            .env_remove("RUST_LOG");
        match &self.home {
            Some(home) => command
                .env("HOME", home)
                .env_remove("PROCTOR_CACHE")
                .env_remove("XDG_CACHE_HOME"),
            None => command.env("PROCTOR_CACHE", self.cache()),
        };
        match isolation() {
            Some(forced) => command.env("PROCTOR_SANDBOX", forced),
            // Grading without isolation must be asked for.
            None if std::env::var("PROCTOR_SANDBOX").is_ok_and(|v| v == "none") => command
                .env("PROCTOR_SANDBOX", "none")
                .env("PROCTOR_ACCEPT_UNISOLATED", "1"),
            None => command.env_remove("PROCTOR_SANDBOX"),
        };
        let started = Instant::now();
        let output = command.output().expect("proctor runs");
        Graded {
            code: output.status.code(),
            stdout: output.stdout,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            took: started.elapsed(),
        }
    }

    /// Every file under the root (scenario, cache, submissions, outside) holding `needle`.
    pub fn files_containing(&self, needle: &str) -> Vec<PathBuf> {
        let mut found = Vec::new();
        for (path, entry) in tree(self.root()) {
            if let Entry::File { bytes, .. } = entry {
                if String::from_utf8_lossy(&bytes).contains(needle) {
                    found.push(path);
                }
            }
        }
        found
    }
}

/// A submission: relative path -> file or link.
#[derive(Clone)]
pub struct Files(BTreeMap<String, Entry>);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    File { bytes: Vec<u8>, mode: u32 },
    Link(PathBuf),
    Dir { mode: u32 },
}

impl Files {
    /// What the reference solution leaves in the lab dir: full marks.
    pub fn correct() -> Files {
        let mut files = Files(BTreeMap::new());
        for (name, text) in [
            ("nodes.sh", NODES_SH),
            ("count.sh", COUNT_SH),
            ("tier.sh", TIER_SH),
            ("gold.sh", GOLD_SH),
            ("ns.sh", NS_SH),
            ("echo.sh", ECHO_SH),
            ("summary.sh", SUMMARY_SH),
        ] {
            files = files.script(name, text);
        }
        for (name, text) in [
            ("out/nodes.txt", OUT_NODES),
            ("out/tiers.txt", OUT_TIERS),
            ("out/ns.txt", OUT_NS),
            ("out/echo.txt", OUT_ECHO),
            ("out/summary.txt", OUT_SUMMARY),
        ] {
            files.0.insert(
                name.to_string(),
                Entry::File {
                    bytes: text.as_bytes().to_vec(),
                    mode: 0o644,
                },
            );
        }
        files
    }

    /// Replaces (or adds) an executable script.
    pub fn script(mut self, name: &str, text: &str) -> Files {
        self.0.insert(
            name.to_string(),
            Entry::File {
                bytes: text.as_bytes().to_vec(),
                mode: 0o755,
            },
        );
        self
    }

    /// Leaves `name` out.
    pub fn without(mut self, name: &str) -> Files {
        self.0.remove(name);
        self
    }

    /// Replaces `name` by a symbolic link to `target`.
    pub fn link(mut self, name: &str, target: &Path) -> Files {
        self.0
            .insert(name.to_string(), Entry::Link(target.to_path_buf()));
        self
    }

    fn write(&self, dir: &Path) {
        fs::create_dir_all(dir).expect("submission dir");
        for (name, entry) in &self.0 {
            let path = dir.join(name);
            match entry {
                Entry::File { bytes, mode } => write(&path, bytes, *mode),
                Entry::Link(target) => {
                    if let Some(parent) = path.parent() {
                        fs::create_dir_all(parent).expect("mkdir");
                    }
                    symlink(target, &path).expect("symlink");
                }
                Entry::Dir { mode } => {
                    fs::create_dir_all(&path).expect("mkdir");
                    fs::set_permissions(&path, fs::Permissions::from_mode(*mode)).expect("chmod");
                }
            }
        }
    }
}

/// Every entry under `dir` (links not followed), for before/after comparisons.
pub fn tree(dir: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Entry>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path.strip_prefix(base).unwrap_or(&path).to_path_buf();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        let mode = meta.permissions().mode() & 0o7777;
        if meta.file_type().is_symlink() {
            let target = fs::read_link(&path).unwrap_or_default();
            out.insert(relative, Entry::Link(target));
        } else if meta.is_dir() {
            out.insert(relative, Entry::Dir { mode });
            walk(base, &path, out);
        } else {
            let bytes = fs::read(&path).unwrap_or_default();
            out.insert(relative, Entry::File { bytes, mode });
        }
    }
}

/// Asserts that `after` holds exactly the entries of `before`, naming the first difference.
pub fn assert_same_tree(
    what: &str,
    before: &BTreeMap<PathBuf, Entry>,
    after: &BTreeMap<PathBuf, Entry>,
) {
    for (path, entry) in before {
        match after.get(path) {
            Some(now) => assert_eq!(now, entry, "{what}: {} changed", path.display()),
            None => panic!("{what}: {} was removed", path.display()),
        }
    }
    for path in after.keys() {
        assert!(
            before.contains_key(path),
            "{what}: {} was added",
            path.display()
        );
    }
}

/// A finished grade.
pub struct Graded {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub took: Duration,
}

impl Graded {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// The Gradescope JSON report; fails the test when it is not valid JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.stdout).unwrap_or_else(|error| {
            panic!(
                "the report is not valid JSON ({error}): {}\nstderr: {}",
                self.text(),
                self.stderr
            )
        })
    }

    /// A graded run of a lab whose submission lost points: exit 1 (never 2, which is a grader
    /// error), no panic.
    pub fn assert_graded_with_failures(&self) {
        assert!(
            !self.stderr.contains("panicked"),
            "the grader panicked: {}",
            self.stderr
        );
        assert_eq!(
            self.code,
            Some(1),
            "exit code (1 = graded, some checks failed)\nstdout: {}\nstderr: {}",
            self.text(),
            self.stderr
        );
    }
}

/// The test of number `number` ("2.3") in a JSON report.
pub fn test<'a>(json: &'a Value, number: &str) -> &'a Value {
    json["tests"]
        .as_array()
        .and_then(|tests| tests.iter().find(|test| test["number"] == number))
        .unwrap_or_else(|| panic!("no test {number} in {json:#}"))
}

/// The output (message, diff, hints) of test `number`.
pub fn output<'a>(json: &'a Value, number: &str) -> &'a str {
    test(json, number)["output"].as_str().unwrap_or("")
}

/// Asserts that exactly the checks `failing` lost their points and every other check of the lab
/// got all of its points (so every other step kept its score).
pub fn assert_failing_exactly(json: &Value, failing: &[&str]) {
    for (number, points) in CHECKS {
        let test = test(json, number);
        assert_eq!(test["max_score"], points, "points of {number}");
        if failing.contains(&number) {
            assert_eq!(
                (&test["status"], &test["score"]),
                (&Value::from("failed"), &Value::from(0.0)),
                "{number} must fail: {test:#}"
            );
        } else {
            assert_eq!(
                (&test["status"], &test["score"]),
                (&Value::from("passed"), &Value::from(points)),
                "{number} must pass (only {failing:?} may fail): {test:#}"
            );
        }
    }
    let lost: f64 = CHECKS
        .iter()
        .filter(|(number, _)| failing.contains(number))
        .map(|(_, points)| points)
        .sum();
    assert_eq!(json["max_score"], 17.0);
    assert_eq!(json["score"], 17.0 - lost, "{json:#}");
}

/// Processes whose command line contains `needle`, waiting up to 3 s for them to go (a killed
/// process may still be in the middle of exiting when the grader has finished).
pub fn processes_left(needle: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let found = processes_with(needle);
        if found.is_empty() || Instant::now() >= deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn processes_with(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.to_string();
            if pid == me || pid.parse::<u32>().is_err() {
                return None;
            }
            let cmdline = fs::read(entry.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            cmdline
                .contains(needle)
                .then(|| format!("{pid}: {cmdline}"))
        })
        .collect()
}

/// The sandbox the grades are forced to use, or `None` when this machine has no PID namespace to
/// offer: then the grader picks what it can, and the tests skip what only isolation makes safe
/// (`kill -9 -1` would reach every process of the machine) or true (unreadable grader files).
/// `PROCTOR_SANDBOX=mount-namespace|unprivileged-uid` (or `none`) in the test's environment picks
/// another one; `.ci/run` runs the suite once in each mode the machine offers.
pub fn isolation() -> Option<&'static str> {
    static FOUND: std::sync::OnceLock<Option<&'static str>> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| match std::env::var("PROCTOR_SANDBOX").ok().as_deref() {
        Some("mount-namespace") => Some("mount-namespace"),
        Some("unprivileged-uid") => Some("unprivileged-uid"),
        Some("none") => None,
        _ => {
            let works = Command::new("bwrap")
                .args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"])
                .args([
                    "--tmpfs",
                    "/tmp",
                    "--unshare-pid",
                    "--die-with-parent",
                    "--",
                    "true",
                ])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|status| status.success());
            works.then_some("bubblewrap")
        }
    })
}

/// Where the lab is worked on. Without namespaces the learner's uid reaches it on the host, so it
/// lies under a directory other users may search (`/root` is closed on most machines, and the
/// tests do not open it).
fn lab_dir() -> &'static str {
    match isolation() {
        Some("unprivileged-uid") => {
            // Debian has it; a machine without it gets one any user may search.
            use std::os::unix::fs::DirBuilderExt;
            let _ = fs::DirBuilder::new().mode(0o755).create("/srv");
            "/srv/proctor-hostile"
        }
        _ => "/root/hostile",
    }
}

pub fn skip(what: &str) {
    eprintln!("SKIP {what}: the script sandbox has no PID namespace here");
}

/// Whether script runs here get a cgroup with `controller` (`pids` or `memory`): the sandbox's
/// own answer, from creating a run cgroup as a run does.
pub fn cgroup_limits(controller: &str) -> bool {
    let (processes, memory) = proctor::sandbox::cgroup_limits();
    match controller {
        "pids" => processes,
        _ => memory,
    }
}
