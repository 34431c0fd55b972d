//! Helpers of the lab-walk suites (`tests/tests/lab_*.rs`): reference files, running the lab's
//! scripts as a learner does, and polling kubectl until the cluster shows a state.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{kubectl_bin, Run, TestCluster};

/// How long an asynchronous state (scheduler, controllers, fake kubelet) may take to show.
/// The lab's own reference steps poll for up to 60-90 s; the embedded cluster needs far less.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// A file of a lab's reference solution (`scenarios/<lab>/reference/<rel>`).
pub fn reference(lab: &str, rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(lab)
        .join("reference")
        .join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("reference file {}: {e}", p.display()))
}

/// Copy a reference file of `lab` into the lab directory (the kubectl working directory).
pub fn install(c: &TestCluster, lab: &str, from: &str, to: &str) -> PathBuf {
    c.file(to, &reference(lab, from))
}

/// Run a lab script with bash the way the learner does: `kubectl` on PATH, the cluster's
/// kubeconfig, the lab directory as working directory.
pub fn script(c: &TestCluster, path: &Path, args: &[&str]) -> Run {
    c.settle();
    let bin = c.dir().join("bin");
    let link = bin.join("kubectl");
    if !link.exists() {
        std::fs::create_dir_all(&bin).expect("bin dir");
        let real = std::fs::canonicalize(kubectl_bin()).unwrap_or_else(|_| kubectl_bin());
        std::os::unix::fs::symlink(real, &link).expect("kubectl link");
    }
    let path_env = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(path)
        .args(args)
        .env("KUBECONFIG", c.kubeconfig())
        .env("KUBECACHEDIR", c.dir().join("cache"))
        .env("HOME", c.dir())
        .env("PATH", path_env)
        .current_dir(c.dir())
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// stdout of a kubectl run that must succeed.
#[track_caller]
pub fn get(c: &TestCluster, args: &[&str]) -> String {
    c.kubectl(args).ok().stdout
}

/// Re-run `kubectl args` until its stdout, passed through `shape`, equals `want`. Fails with
/// the last output once PATIENCE is over.
#[track_caller]
pub fn eventually_shaped(
    c: &TestCluster,
    args: &[&str],
    shape: impl Fn(&str) -> String,
    want: &str,
) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let r = c.kubectl(args);
        let got = shape(&r.stdout);
        if r.code == 0 && got == want {
            return;
        }
        if Instant::now() >= deadline {
            assert_eq!(
                got,
                want,
                "`kubectl {}` never printed the expected output (exit {}, stderr: {})",
                args.join(" "),
                r.code,
                r.stderr
            );
            panic!(
                "`kubectl {}` exited {}: {}",
                args.join(" "),
                r.code,
                r.stderr
            );
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[track_caller]
pub fn eventually(c: &TestCluster, args: &[&str], want: &str) {
    eventually_shaped(c, args, |s| s.to_string(), want)
}

/// The lines of `s`, sorted and joined with `\n` (no trailing newline).
pub fn sorted_lines(s: &str) -> String {
    let mut v: Vec<&str> = s.lines().filter(|l| !l.is_empty()).collect();
    v.sort_unstable();
    v.join("\n")
}

/// The cells of a table row (AGE and other trailing cells included).
pub fn cells(row: &str) -> Vec<String> {
    row.split_whitespace().map(str::to_string).collect()
}

/// The first `n` cells of every line of `kubectl get ...` output, header included.
pub fn table_prefix(out: &str, n: usize) -> String {
    out.lines()
        .map(|l| {
            let c = cells(l);
            c[..n.min(c.len())].join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}
