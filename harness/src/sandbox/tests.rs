//! Sandbox tests. Each property is checked under every isolation this machine offers (bubblewrap,
//! mount namespace, none); a property that a level does not promise is skipped there with a printed
//! reason, as are tests that would be unsafe without it (a fork bomb without a process limit,
//! `kill -9 -1` without a PID namespace).

use super::detect::{bwrap_works, find_bwrap, Detected, Isolation};

/// Runs `spec` as `d` would; without a view of its own the lab path must be one the run's uid can
/// reach, so it is moved from `/root` (0700 on most machines) to the temp dir.
fn run_with(spec: &RunSpec, d: &Detected) -> RunOutcome {
    if d.isolation.has_view() || !spec.map_at.starts_with("/root") {
        return super::launch::run_with(spec, d);
    }
    let spec = RunSpec {
        map_at: std::env::temp_dir().join(format!("sbx-lab-{}", token())),
        ..spec.clone()
    };
    super::launch::run_with(&spec, d)
}
use super::{mountns, ExitStatus, Limits, RunOutcome, RunSpec};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn isolations() -> Vec<Detected> {
    let mut out = Vec::new();
    let root = nix::unistd::geteuid().is_root();
    match find_bwrap() {
        Some(path) if bwrap_works(&path, root.then_some(65534)) && bwrap_works(&path, None) => {
            out.push(Detected {
                isolation: Isolation::Bubblewrap,
                bwrap: Some(path),
            });
        }
        _ => eprintln!("SKIP bubblewrap: bwrap is not installed or cannot create namespaces here"),
    }
    if mountns::probe() {
        out.push(Detected {
            isolation: Isolation::MountNamespace,
            bwrap: None,
        });
    } else {
        eprintln!("SKIP mount-namespace: this process cannot create mount namespaces");
    }
    if root {
        out.push(Detected {
            isolation: Isolation::UnprivilegedUid,
            bwrap: None,
        });
    } else {
        eprintln!("SKIP unprivileged-uid: only a root grader can run scripts as another uid");
    }
    out.push(Detected {
        isolation: Isolation::None,
        bwrap: None,
    });
    out
}

/// The isolations that give a run a file-system view of its own.
fn isolated() -> Vec<Detected> {
    isolations()
        .into_iter()
        .filter(|d| d.isolation.has_view())
        .collect()
}

/// The isolations that keep a learner's code from the grader's identity: every one but `none`.
fn confined() -> Vec<Detected> {
    isolations()
        .into_iter()
        .filter(|d| d.isolation != Isolation::None)
        .collect()
}

fn token() -> String {
    format!("{:016x}", rand::random::<u64>())
}

/// A lab dir: a temp run dir and the absolute path it is mapped at (a path under /root that does not
/// exist on this machine, like /root/gpudrv on a grading host).
struct Lab {
    dir: tempfile::TempDir,
    map_at: PathBuf,
}

impl Lab {
    fn new() -> Lab {
        let dir = tempfile::Builder::new()
            .prefix("sbx-run-")
            .tempdir()
            .expect("temp dir");
        Lab {
            dir,
            map_at: PathBuf::from(format!("/root/proctor-sbx-{}", token())),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn script(&self, name: &str, body: &str) {
        let path = self.path().join(name);
        std::fs::write(&path, body).expect("write script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    fn spec(&self, program: &str, args: &[&str]) -> RunSpec {
        RunSpec {
            program: program.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            run_dir: self.path().to_path_buf(),
            map_at: self.map_at.clone(),
            env: vec![("KUBECONFIG".into(), "/root/.kube/config".into())],
            limits: Limits::default(),
            shell: None,
            kube_cache_seed: None,
            hidden: Vec::new(),
            cutoff: None,
            awaited: None,
            trust: super::Trust::Learner,
            stdin: None,
        }
    }

    fn shell(&self, snippet: &str) -> RunSpec {
        RunSpec {
            shell: Some(snippet.into()),
            ..self.spec("", &[])
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn show(o: &RunOutcome) -> String {
    format!(
        "[{}] exit {:?}, problems {:?}\nstdout: {}\nstderr: {}",
        o.isolation,
        o.exit,
        o.problems,
        text(&o.stdout),
        text(&o.stderr)
    )
}

/// Processes whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains(needle))
                .unwrap_or(false)
        })
        .collect()
}

/// A `sleep` duration nobody else uses, to find leftovers by command line.
fn unique_sleep() -> String {
    format!("1000.{}", rand::random::<u32>())
}

#[test]
fn runs_script_with_args_and_exit_code() {
    for d in isolations() {
        let lab = Lab::new();
        lab.script("drv-tag.sh", "#!/bin/bash\necho \"tag for $1\"\nexit 3\n");
        let o = run_with(&lab.spec("drv-tag.sh", &["lab-node-0"]), &d);
        assert_eq!(o.exit, ExitStatus::Code(3), "{}", show(&o));
        assert_eq!(text(&o.stdout), "tag for lab-node-0\n", "{}", show(&o));
        assert!(o.problems.is_empty(), "{}", show(&o));
        assert_eq!(o.isolation, d.isolation.name());
    }
}

/// What a run is given on stdin reaches it (an exec's input), and a large input does not block a
/// run that never reads it.
#[test]
fn stdin_reaches_the_run() {
    for d in isolations() {
        let lab = Lab::new();
        let spec = RunSpec {
            stdin: Some(b"line one\nline two\n".to_vec()),
            ..lab.shell("wc -l; echo done")
        };
        let o = run_with(&spec, &d);
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        assert_eq!(text(&o.stdout), "2\ndone\n", "{}", show(&o));
        let spec = RunSpec {
            stdin: Some(vec![b'x'; 4 * 1024 * 1024]),
            ..lab.shell("echo ignored")
        };
        let o = run_with(&spec, &d);
        assert_eq!(text(&o.stdout), "ignored\n", "{}", show(&o));
    }
}

#[test]
fn script_without_shebang_runs_as_in_bash() {
    for d in isolations() {
        let lab = Lab::new();
        lab.script("audit.sh", "echo no shebang \"$@\"\n");
        let o = run_with(&lab.spec("audit.sh", &["x"]), &d);
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        assert_eq!(text(&o.stdout), "no shebang x\n");
    }
}

/// A cutoff set while the run goes ends it early, and the message names the limit applied.
#[test]
fn a_cutoff_set_during_the_run_stops_it() {
    let d = &isolations()[0];
    let lab = Lab::new();
    let sleep = unique_sleep();
    lab.script("hang.sh", &format!("#!/bin/bash\nsleep {sleep}\n"));
    let mut spec = lab.spec("hang.sh", &[]);
    let cutoff = crate::sandbox::Cutoff::default();
    spec.cutoff = Some(cutoff.clone());
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        cutoff.set(crate::sandbox::CutoffLimit {
            wall: Duration::from_millis(800),
            cpu: Duration::from_secs(5),
        });
    });
    let o = run_with(&spec, d);
    let _ = setter.join();
    assert_eq!(o.exit, ExitStatus::TimedOut, "{}", show(&o));
    // Well before the 30 s timeout of the default limits.
    assert!(o.duration < Duration::from_secs(20), "{}", show(&o));
    assert!(
        o.problems
            .iter()
            .any(|p| p == "the script did not finish within 800ms and was stopped"),
        "{}",
        show(&o)
    );
    assert_eq!(processes_with(&sleep), Vec::<i32>::new(), "{}", show(&o));
}

#[test]
fn infinite_loop_times_out_and_nothing_is_left() {
    for d in isolations() {
        let lab = Lab::new();
        let sleep = unique_sleep();
        lab.script(
            "loop.sh",
            &format!("#!/bin/bash\nsleep {sleep} &\nwhile :; do :; done\n"),
        );
        let mut spec = lab.spec("loop.sh", &[]);
        spec.limits.timeout = Duration::from_millis(700);
        let o = run_with(&spec, &d);
        assert_eq!(o.exit, ExitStatus::TimedOut, "{}", show(&o));
        assert!(o.duration < Duration::from_secs(120), "{}", show(&o));
        assert!(
            o.problems
                .iter()
                .any(|p| p == "the script did not finish within 700ms and was stopped"),
            "{}",
            show(&o)
        );
        assert_eq!(processes_with(&sleep), Vec::<i32>::new(), "{}", show(&o));
    }
}

#[test]
fn background_leftovers_are_killed_when_the_script_exits() {
    for d in isolations() {
        let lab = Lab::new();
        let (plain, detached) = (unique_sleep(), unique_sleep());
        // `setsid` leaves the run's session: only a PID namespace or the environment marker finds it.
        lab.script(
            "bg.sh",
            &format!("#!/bin/bash\nsleep {plain} &\nsetsid sleep {detached} &\nnohup sleep {plain} >/dev/null 2>&1 &\necho started\n"),
        );
        let start = Instant::now();
        // The bound only proves the run did not wait for its 1000 s sleeps; it is generous because
        // CI machines are shared.
        let o = run_with(&lab.spec("bg.sh", &[]), &d);
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        assert_eq!(text(&o.stdout), "started\n");
        assert!(start.elapsed() < Duration::from_secs(120), "{}", show(&o));
        assert_eq!(processes_with(&plain), Vec::<i32>::new(), "{}", show(&o));
        assert_eq!(processes_with(&detached), Vec::<i32>::new(), "{}", show(&o));
    }
}

#[test]
fn output_flood_is_cut_quickly() {
    for d in isolations() {
        for stream in ["", ">&2"] {
            let lab = Lab::new();
            lab.script(
                "flood.sh",
                &format!("#!/bin/bash\nhead -c 100000000 /dev/zero {stream}\necho done\n"),
            );
            let o = run_with(&lab.spec("flood.sh", &[]), &d);
            assert_eq!(
                o.exit,
                ExitStatus::OutputLimit,
                "[{}] {:?} {:?}",
                o.isolation,
                o.exit,
                o.problems
            );
            assert!(
                o.duration < Duration::from_secs(120),
                "[{}] took {:?}",
                o.isolation,
                o.duration
            );
            assert!(o.stdout.len() + o.stderr.len() <= 1024 * 1024);
            assert_eq!(
                o.stdout.len() + o.stderr.len(),
                1024 * 1024,
                "keeps exactly the first MiB"
            );
            // Only the limit: the reader that went over is not mistaken for a background
            // process holding the pipe open (which cost two grace periods per flood).
            assert_eq!(
                o.problems,
                vec!["the script wrote more than 1 MiB of output and was stopped".to_string()],
                "[{}]",
                o.isolation
            );
        }
    }
}

#[test]
fn relative_run_dir_is_resolved_before_the_sandbox_changes_dir() {
    for d in isolations() {
        let lab = Lab::new();
        lab.script("rel.sh", "#!/bin/bash\necho relative ok\n");
        let cwd = std::env::current_dir().expect("cwd");
        let relative = pathdiff(lab.path(), &cwd);
        let mut spec = lab.spec("rel.sh", &[]);
        spec.run_dir = relative;
        let o = run_with(&spec, &d);
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        assert_eq!(text(&o.stdout), "relative ok\n", "{}", show(&o));
    }
}

/// `path` relative to `base` (both absolute), with as many `..` as needed.
fn pathdiff(path: &Path, base: &Path) -> PathBuf {
    let mut relative = PathBuf::new();
    let mut rest = base;
    loop {
        if let Ok(below) = path.strip_prefix(rest) {
            relative.push(below);
            return relative;
        }
        relative.push("..");
        match rest.parent() {
            Some(parent) => rest = parent,
            None => return path.to_path_buf(),
        }
    }
}

#[test]
fn output_within_the_limit_is_complete() {
    for d in isolations() {
        let lab = Lab::new();
        lab.script("big.sh", "#!/bin/bash\nhead -c 1048576 /dev/zero\n");
        let o = run_with(&lab.spec("big.sh", &[]), &d);
        assert_eq!(
            o.exit,
            ExitStatus::Code(0),
            "[{}] {:?}",
            o.isolation,
            o.problems
        );
        assert_eq!(o.stdout.len(), 1024 * 1024);
    }
}

#[test]
fn fork_bomb_is_contained() {
    let probe = super::cgroup::RunCgroup::create(&Limits::default());
    let has_pids_limit = probe.as_ref().is_some_and(|c| c.limits_processes());
    drop(probe);
    if !has_pids_limit && nix::unistd::geteuid().is_root() {
        eprintln!("SKIP fork bomb: no writable pids cgroup and running as root (RLIMIT_NPROC does not apply)");
        return;
    }
    for d in isolations() {
        let lab = Lab::new();
        // The script stays alive, so the bomb runs until the timeout (when the script ends, a PID
        // namespace would end the bomb by itself).
        let name = format!("bomb-{}.sh", token());
        lab.script(
            &name,
            "#!/bin/bash\nb() { b | b & }; b\nwhile :; do sleep 1; done\n",
        );
        let mut spec = lab.spec(&name, &[]);
        spec.limits.timeout = Duration::from_secs(3);
        spec.limits.processes = 64;
        let o = run_with(&spec, &d);
        // A bomb held at its process limit mostly sleeps in bash's fork retries, so on a loaded
        // machine it may neither sit idle nor reach its CPU limit: what is promised is the
        // ceiling, however slow the machine (a few seconds more for the kill and the drain).
        let bound =
            spec.limits.timeout * super::supervise::TIMEOUT_CEILING + Duration::from_secs(10);
        assert!(
            o.duration < bound,
            "[{}] took {:?}, more than the ceiling {bound:?}",
            o.isolation,
            o.duration
        );
        assert!(
            matches!(o.exit, ExitStatus::TimedOut | ExitStatus::OutputLimit),
            "[{}] {:?}",
            o.isolation,
            o.exit
        );
        if has_pids_limit {
            assert!(
                o.problems
                    .iter()
                    .any(|p| p == "the script hit the limit of 64 processes (a fork was refused)"),
                "[{}] {:?} {:?}",
                o.isolation,
                o.exit,
                o.problems
            );
        }
        assert_eq!(
            processes_with(&name),
            Vec::<i32>::new(),
            "[{}] bomb processes left",
            o.isolation
        );
        // The machine can still start processes.
        let ok = std::process::Command::new("true")
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "the grader can no longer fork after the run");
    }
}

/// A run's process limit counts its own processes, not those the grader's user starts beside it
/// while the run goes on (other runs of a batch, other tests): a plain user's grader shares its
/// uid with every bubblewrap run it starts.
#[test]
fn a_runs_process_limit_ignores_the_graders_other_processes() {
    let root = nix::unistd::geteuid().is_root();
    for d in confined() {
        if !root && !super::launch::nproc_counted_per_user_namespace() {
            eprintln!(
                "SKIP [{}]: before Linux 5.14 a plain user's runs share one process count",
                d.isolation.name()
            );
            continue;
        }
        let lab = Lab::new();
        let sentinel = unique_sleep();
        lab.script(
            "fork.sh",
            &format!(
                "#!/bin/bash
: > ready
until [ -e go ]; do sleep 0.05; done
for i in $(seq 20); do sleep {sentinel} & done
kill $(jobs -p)
wait
echo forked
"
            ),
        );
        let mut spec = lab.spec("fork.sh", &[]);
        spec.limits.processes = 64;
        spec.limits.timeout = Duration::from_secs(60);
        let run = std::thread::spawn({
            let d = d.clone();
            move || run_with(&spec, &d)
        });
        let waited = Instant::now();
        while !lab.path().join("ready").exists() && waited.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(20));
        }
        // More processes of the grader's user than the run's whole limit, started after the run.
        let mut others: Vec<std::process::Child> = (0..100)
            .map(|_| {
                std::process::Command::new("sleep")
                    .arg(&sentinel)
                    .spawn()
                    .expect("spawn sleep")
            })
            .collect();
        std::fs::write(lab.path().join("go"), "").expect("write go");
        let o = run.join().expect("run thread");
        for other in &mut others {
            let _ = other.kill();
            let _ = other.wait();
        }
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        assert_eq!(text(&o.stdout), "forked\n", "{}", show(&o));
        assert!(o.problems.is_empty(), "{}", show(&o));
    }
}

#[test]
fn writes_outside_the_run_dir_do_not_reach_the_host() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for d in isolated() {
        let lab = Lab::new();
        let t = token();
        let targets = [
            PathBuf::from(format!("/etc/proctor-probe-{t}")),
            repo.join(format!("proctor-probe-{t}")),
            PathBuf::from(format!("/tmp/proctor-probe-{t}")),
            PathBuf::from(format!("/root/proctor-probe-{t}")),
        ];
        let body: String = targets
            .iter()
            .map(|p| format!("echo x > {} 2>/dev/null\n", p.display()))
            .collect();
        lab.script(
            "escape.sh",
            &format!("#!/bin/bash\n{body}mkdir -p out && echo inside > out/ok.txt\n"),
        );
        let o = run_with(&lab.spec("escape.sh", &[]), &d);
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        for target in &targets {
            assert!(
                !target.exists(),
                "[{}] {} was written on the host",
                o.isolation,
                target.display()
            );
        }
        assert_eq!(
            std::fs::read_to_string(lab.path().join("out/ok.txt"))
                .ok()
                .as_deref(),
            Some("inside\n")
        );
    }
}

#[test]
fn grader_files_are_not_visible() {
    let reference = tempfile::Builder::new()
        .prefix("sbx-reference-")
        .tempdir()
        .expect("temp dir");
    let secret = reference.path().join("tags.txt");
    std::fs::write(&secret, "lab-node-0 550-5.15.0-119-generic-ubuntu22.04\n").expect("write");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    for d in isolated() {
        let lab = Lab::new();
        lab.script(
            "peek.sh",
            &format!(
                "#!/bin/bash\ncat {} ; test -e {} && echo VISIBLE\nexit 0\n",
                secret.display(),
                manifest.display()
            ),
        );
        let o = run_with(&lab.spec("peek.sh", &[]), &d);
        assert!(!text(&o.stdout).contains("550-5.15.0"), "{}", show(&o));
        assert!(!text(&o.stdout).contains("VISIBLE"), "{}", show(&o));
        assert!(
            text(&o.stderr).contains("No such file or directory"),
            "{}",
            show(&o)
        );
    }
}

#[test]
fn lab_path_is_usable_literally() {
    for d in isolated() {
        let lab = Lab::new();
        std::fs::write(
            lab.path().join("support-matrix.csv"),
            "driver_branch,kernel,os_tag\n",
        )
        .expect("write");
        let map_at = lab.map_at.display().to_string();
        lab.script(
            "drv-audit.sh",
            &format!("#!/bin/bash\nhead -1 {map_at}/support-matrix.csv\nmkdir -p {map_at}/out\npwd > {map_at}/out/where.txt\n"),
        );
        let o = run_with(&lab.spec("drv-audit.sh", &[]), &d);
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        assert_eq!(
            text(&o.stdout),
            "driver_branch,kernel,os_tag\n",
            "{}",
            show(&o)
        );
        let written = std::fs::read_to_string(lab.path().join("out/where.txt")).unwrap_or_default();
        assert_eq!(written, format!("{map_at}\n"));
        assert!(!lab.map_at.exists(), "the lab path was created on the host");
    }
}

#[test]
fn existing_lab_path_on_the_host_is_shadowed_not_changed() {
    for d in isolated() {
        // Under /root as on a grading host; a plain user's temp dir otherwise.
        let host_dir = tempfile::Builder::new()
            .prefix("proctor-sbx-host-")
            .tempdir_in("/root")
            .or_else(|_| {
                tempfile::Builder::new()
                    .prefix("proctor-sbx-host-")
                    .tempdir()
            })
            .expect("a dir on the host");
        std::fs::write(host_dir.path().join("drv-tag.sh"), "host copy\n").expect("write");
        let mut lab = Lab::new();
        lab.map_at = host_dir.path().to_path_buf();
        lab.script(
            "drv-tag.sh",
            "#!/bin/bash\necho run copy; echo changed > \"$PWD/drv-tag.sh\"\n",
        );
        let o = run_with(&lab.spec("drv-tag.sh", &[]), &d);
        assert_eq!(text(&o.stdout), "run copy\n", "{}", show(&o));
        assert_eq!(
            std::fs::read_to_string(host_dir.path().join("drv-tag.sh"))
                .ok()
                .as_deref(),
            Some("host copy\n")
        );
        assert_eq!(
            std::fs::read_to_string(lab.path().join("drv-tag.sh"))
                .ok()
                .as_deref(),
            Some("changed\n")
        );
    }
}

#[test]
fn missing_script_is_named() {
    for d in isolations() {
        let lab = Lab::new();
        let o = run_with(&lab.spec("drv-tag.sh", &["lab-node-0"]), &d);
        assert_eq!(o.exit, ExitStatus::Code(127), "{}", show(&o));
        assert_eq!(
            o.problems,
            vec!["drv-tag.sh: no such file in the submission".to_string()]
        );
        assert!(
            text(&o.stderr).contains("./drv-tag.sh: No such file or directory"),
            "{}",
            show(&o)
        );
    }
}

#[test]
fn missing_exec_bit_fails_like_in_the_lab() {
    for d in isolations() {
        let lab = Lab::new();
        lab.script("drv-tag.sh", "#!/bin/bash\necho should not run\n");
        std::fs::set_permissions(
            lab.path().join("drv-tag.sh"),
            std::fs::Permissions::from_mode(0o644),
        )
        .expect("chmod");
        let o = run_with(&lab.spec("drv-tag.sh", &["lab-node-0"]), &d);
        assert_eq!(o.exit, ExitStatus::Code(126), "{}", show(&o));
        assert_eq!(o.stdout, b"");
        assert!(
            text(&o.stderr).contains("./drv-tag.sh: Permission denied"),
            "{}",
            show(&o)
        );
        assert_eq!(
            o.problems,
            vec!["drv-tag.sh is not executable: the grader runs it as ./drv-tag.sh, as the lab does (chmod +x drv-tag.sh)".to_string()]
        );
    }
}

#[test]
fn crlf_script_fails_like_in_the_lab_and_is_named() {
    for d in isolations() {
        let lab = Lab::new();
        lab.script("drv-tag.sh", "#!/bin/bash\r\necho 550\r\n");
        let o = run_with(&lab.spec("drv-tag.sh", &["lab-node-0"]), &d);
        // The kernel looks for an interpreter called "/bin/bash\r"; bash 5.2 reports
        // "cannot execute: required file not found" (127), older bash "bad interpreter" (126).
        assert!(
            matches!(o.exit, ExitStatus::Code(126 | 127)),
            "{}",
            show(&o)
        );
        assert_eq!(o.stdout, b"");
        assert_eq!(
            o.problems,
            vec!["drv-tag.sh has Windows (CRLF) line endings, so its first line names no interpreter: convert it (dos2unix drv-tag.sh, or sed -i 's/\\r$//' drv-tag.sh)".to_string()]
        );
    }
}

#[test]
fn binary_output_is_kept_as_bytes() {
    for d in isolations() {
        let lab = Lab::new();
        lab.script(
            "bin.sh",
            "#!/bin/bash\nprintf '\\xff\\xfe\\x00abc\\r\\n'\nprintf '\\x80' >&2\n",
        );
        let o = run_with(&lab.spec("bin.sh", &[]), &d);
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        assert_eq!(o.stdout, b"\xff\xfe\x00abc\r\n".to_vec());
        assert_eq!(o.stderr, b"\x80".to_vec());
    }
}

#[test]
fn kill_all_from_inside_does_not_reach_the_grader() {
    for d in confined() {
        let mut sentinel = std::process::Command::new("sleep")
            .arg(unique_sleep())
            .spawn()
            .expect("sentinel");
        let lab = Lab::new();
        lab.script("kill.sh", "#!/bin/bash\nkill -9 -1\necho still here\n");
        let o = run_with(&lab.spec("kill.sh", &[]), &d);
        assert!(
            matches!(sentinel.try_wait(), Ok(None)),
            "[{}] kill -9 -1 reached a host process",
            o.isolation
        );
        let _ = sentinel.kill();
        let _ = sentinel.wait();
    }
    if !isolations().iter().any(|d| d.isolation != Isolation::None) {
        eprintln!("SKIP kill -9 -1: no PID namespace available; running it would kill the machine's processes");
    }
}

#[test]
fn loopback_network_is_reachable() {
    for d in isolations() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
        let port = listener.local_addr().expect("addr").port();
        let server = std::thread::spawn(move || {
            use std::io::Read;
            let (mut conn, _) = listener.accept().ok()?;
            let mut got = String::new();
            conn.read_to_string(&mut got).ok()?;
            Some(got)
        });
        let lab = Lab::new();
        lab.script(
            "net.sh",
            &format!("#!/bin/bash\nexec 3<>/dev/tcp/127.0.0.1/{port}\necho hello >&3\nexec 3>&-\n"),
        );
        let o = run_with(&lab.spec("net.sh", &[]), &d);
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        assert_eq!(
            server.join().ok().flatten().as_deref(),
            Some("hello\n"),
            "[{}]",
            o.isolation
        );
    }
}

#[test]
fn environment_is_clean_and_stdin_is_empty() {
    for d in isolations() {
        let lab = Lab::new();
        lab.script("env.sh", "#!/bin/bash\ncat\nenv | sort\n");
        let mut spec = lab.spec("env.sh", &[]);
        spec.env.push(("EXTRA".into(), "1".into()));
        let o = run_with(&spec, &d);
        let out = text(&o.stdout);
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        let has = |line: &str| out.lines().any(|l| l == line);
        assert!(has("KUBECONFIG=/root/.kube/config"), "{out}");
        assert!(has("LANG=C.UTF-8"), "{out}");
        assert!(has("EXTRA=1"), "{out}");
        assert!(!out.contains("CARGO"), "grader environment leaked: {out}");
        assert!(!out.contains("RUST_"), "grader environment leaked: {out}");
        let path = out
            .lines()
            .find_map(|l| l.strip_prefix("PATH="))
            .unwrap_or_default();
        if let Ok(kubectl) = which("kubectl") {
            let dir = kubectl
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            assert!(path.split(':').any(|p| p == dir), "PATH {path} lacks {dir}");
        }
    }
}

fn which(tool: &str) -> Result<PathBuf, ()> {
    super::on_path(tool).ok_or(())
}

#[test]
fn paths_named_in_env_stay_visible_read_only() {
    let cluster = tempfile::Builder::new()
        .prefix("sbx-cluster-")
        .tempdir()
        .expect("temp dir");
    let kubeconfig = cluster.path().join("kubeconfig");
    std::fs::write(&kubeconfig, "apiVersion: v1\nkind: Config\n").expect("write");
    std::fs::write(cluster.path().join("server.key"), "secret").expect("write");
    for d in isolated() {
        for trust in [super::Trust::Learner, super::Trust::Reference] {
            let lab = Lab::new();
            let mut spec = lab.shell("cat \"$KUBECONFIG\"; cat \"$(dirname \"$KUBECONFIG\")/server.key\"; echo x >> \"$KUBECONFIG\"; exit 0");
            spec.env = vec![("KUBECONFIG".into(), kubeconfig.display().to_string())];
            spec.trust = trust;
            let o = run_with(&spec, &d);
            assert_eq!(
                text(&o.stdout),
                "apiVersion: v1\nkind: Config\n",
                "{trust:?} {}",
                show(&o)
            );
            assert_eq!(
                std::fs::read_to_string(&kubeconfig).ok().as_deref(),
                Some("apiVersion: v1\nkind: Config\n")
            );
        }
    }
}

#[test]
fn shell_snippet_runs_in_the_lab_dir() {
    for d in isolations() {
        let lab = Lab::new();
        std::fs::write(lab.path().join("node3.yaml"), "kind: Node\n").expect("write");
        let o = run_with(
            &lab.shell("set -e\nmkdir -p k8s\ncp node3.yaml k8s/\necho one\necho two\n"),
            &d,
        );
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        assert_eq!(text(&o.stdout), "one\ntwo\n");
        assert!(lab.path().join("k8s/node3.yaml").is_file());
        if d.isolation.has_view() {
            let o = run_with(&lab.shell("pwd"), &d);
            assert_eq!(text(&o.stdout), format!("{}\n", lab.map_at.display()));
        }
    }
}

/// kubectl collects garbage only near an eighth of the run's memory limit, and a scenario's own
/// variables still win.
#[test]
fn go_programs_collect_near_an_eighth_of_the_memory_limit() {
    for d in isolations() {
        let lab = Lab::new();
        let mut spec = lab.shell("echo \"$GOGC $GOMEMLIMIT\"");
        spec.limits.memory_bytes = 512 * 1024 * 1024;
        let o = run_with(&spec, &d);
        assert_eq!(text(&o.stdout), "off 67108864B\n", "{}", show(&o));
        spec.env.push(("GOGC".into(), "100".into()));
        let o = run_with(&spec, &d);
        assert_eq!(text(&o.stdout), "100 67108864B\n", "{}", show(&o));
    }
}

#[test]
fn missing_run_dir_is_a_spawn_error() {
    for d in isolations() {
        let lab = Lab::new();
        let mut spec = lab.spec("drv-tag.sh", &[]);
        spec.run_dir = lab.path().join("nope");
        let o = run_with(&spec, &d);
        assert!(matches!(o.exit, ExitStatus::SpawnError(_)), "{}", show(&o));
    }
}

#[test]
fn isolation_name_is_one_of_the_four() {
    assert!(
        ["bubblewrap", "mount-namespace", "unprivileged-uid", "none"]
            .contains(&super::isolation_available())
    );
}

/// A learner's run gets the files its kubeconfig names inline (it may not read the grader's
/// files, and under its own uid could not); a reference run reads them where they are.
#[test]
fn files_a_kubeconfig_refers_to_reach_the_run() {
    let cluster = tempfile::Builder::new()
        .prefix("sbx-cluster-")
        .tempdir()
        .expect("temp dir");
    let key = cluster.path().join("client.key");
    std::fs::write(cluster.path().join("ca.crt"), "CA\n").expect("write");
    std::fs::write(&key, "KEY\n").expect("write");
    std::fs::write(cluster.path().join("other"), "OTHER\n").expect("write");
    let kubeconfig = cluster.path().join("config");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority: ca.crt\n    server: https://127.0.0.1:6443\n  name: c\nusers:\n- name: u\n  user:\n    client-key: \"{}\"\n",
            key.display()
        ),
    )
    .expect("write");
    let dir = cluster.path().display();
    for d in isolated() {
        let lab = Lab::new();
        let mut spec = lab.shell(&format!(
            "cat {dir}/ca.crt {dir}/client.key {dir}/other 2>/dev/null; grep -o 'certificate-authority-data: Q0EK' \"$KUBECONFIG\"; exit 0"
        ));
        spec.env = vec![("KUBECONFIG".into(), kubeconfig.display().to_string())];
        let learner = run_with(&spec, &d);
        let expected = if nix::unistd::geteuid().is_root() {
            "certificate-authority-data: Q0EK\n"
        } else {
            "CA\nKEY\n"
        };
        assert_eq!(text(&learner.stdout), expected, "{}", show(&learner));
        spec.trust = super::Trust::Reference;
        let reference = run_with(&spec, &d);
        assert_eq!(text(&reference.stdout), "CA\nKEY\n", "{}", show(&reference));
    }
}

/// Nothing outside the allow list exists for a run: not the grader's home, not a class kept
/// under `/home` or `/srv`, not the host's secrets — even when world-readable — unless the run's
/// environment names it (a reference shell's `$SCENARIO_DIR`).
#[test]
fn only_what_the_view_allows_is_there() {
    let mut places = vec![tempfile::Builder::new()
        .prefix("sbx-grader-")
        .tempdir_in(std::env::temp_dir())
        .expect("temp dir")];
    for parent in ["/home", "/srv", "/root", "/opt"] {
        let _ = std::fs::create_dir_all(parent);
        if let Ok(dir) = tempfile::Builder::new()
            .prefix("sbx-class-")
            .tempdir_in(parent)
        {
            places.push(dir);
        }
    }
    let token = token();
    let mut secrets = Vec::new();
    for place in &places {
        let secret = place.path().join("alice/drv-tag.sh");
        std::fs::create_dir_all(secret.parent().expect("parent")).expect("mkdir");
        std::fs::write(&secret, format!("SECRET-{token}\n")).expect("write");
        // World-readable on purpose: the view, not the permissions, keeps it out.
        crate::tree::make_world_readable(place.path()).expect("chmod");
        secrets.push(secret);
    }
    let shadow_readable = std::fs::read("/etc/shadow").is_ok_and(|b| !b.is_empty());
    for d in isolated() {
        let lab = Lab::new();
        let cat: String = secrets
            .iter()
            .map(|s| format!("cat '{}' 2>/dev/null\n", s.display()))
            .collect();
        let spec = lab.shell(&format!(
            "{cat}grep -rhs {token} /home /srv /root /opt /tmp 2>/dev/null\nhead -c 100 /etc/shadow 2>/dev/null\nexit 0"
        ));
        let o = run_with(&spec, &d);
        assert_eq!(text(&o.stdout), "", "{}", show(&o));
        if !shadow_readable {
            eprintln!("SKIP /etc/shadow: not readable here anyway");
        }
        // A reference run that names a dir reads it.
        let mut spec = lab.shell("cat \"$SCENARIO_DIR/alice/drv-tag.sh\"");
        spec.trust = super::Trust::Reference;
        spec.env.push((
            "SCENARIO_DIR".into(),
            places[0].path().display().to_string(),
        ));
        let o = run_with(&spec, &d);
        assert_eq!(text(&o.stdout), format!("SECRET-{token}\n"), "{}", show(&o));
    }
}

/// A grader path named by a run but hidden (the reference cache inside a named dir) stays
/// hidden inside it.
#[test]
fn hidden_paths_inside_named_ones_stay_hidden() {
    let base = tempfile::Builder::new()
        .prefix("sbx-layout-")
        .tempdir()
        .expect("temp dir");
    let scenario = base.path().join("s");
    let cache = scenario.join(".cache/proctor");
    std::fs::create_dir_all(&cache).expect("mkdir");
    std::fs::write(cache.join("tags.txt"), "cached answer\n").expect("write");
    std::fs::write(scenario.join("lab.yaml"), "scenario\n").expect("write");
    for d in isolated() {
        let lab = Lab::new();
        let mut spec = lab.shell("cat \"$SCENARIO_DIR/lab.yaml\" \"$SCENARIO_DIR/.cache/proctor/tags.txt\" 2>/dev/null; exit 0");
        spec.trust = super::Trust::Reference;
        spec.hidden = vec![cache.clone()];
        spec.env
            .push(("SCENARIO_DIR".into(), scenario.display().to_string()));
        let o = run_with(&spec, &d);
        assert_eq!(text(&o.stdout), "scenario\n", "{}", show(&o));
    }
}

/// A run reads the kubectl cache seed it is given, and whatever it writes there, the next run
/// (the reference's, say) still finds the seed as the grader filled it.
#[test]
fn the_kubectl_cache_seed_is_read_and_never_changed() {
    let seed = tempfile::Builder::new()
        .prefix("sbx-seed-")
        .tempdir()
        .expect("seed dir");
    let file = seed
        .path()
        .join("discovery/127.0.0.1_6443/servergroups.json");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    std::fs::write(&file, "filled by the grader\n").expect("write seed");
    // As the grader shares it (see `cluster::target`).
    crate::tree::make_world_readable(seed.path()).expect("share the seed");
    for d in isolations() {
        let lab = Lab::new();
        lab.script(
            "poison.sh",
            "#!/bin/bash\ncat \"$KUBECACHEDIR/discovery/127.0.0.1_6443/servergroups.json\"\n\
             echo poisoned > \"$KUBECACHEDIR/discovery/127.0.0.1_6443/servergroups.json\" 2>/dev/null\n\
             rm -rf \"$KUBECACHEDIR/discovery\" 2>/dev/null\nexit 0\n",
        );
        let mut spec = lab.spec("poison.sh", &[]);
        spec.kube_cache_seed = Some(seed.path().to_path_buf());
        let o = run_with(&spec, &d);
        assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
        assert_eq!(text(&o.stdout), "filled by the grader\n", "{}", show(&o));
        assert_eq!(
            std::fs::read_to_string(&file).expect("seed still there"),
            "filled by the grader\n",
            "[{}] the run changed the seed",
            d.isolation.name()
        );
    }
}

mod hostile;

/// Busy loops on every core, four per core, for as long as the value lives: a loaded grading
/// machine.
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

/// `script` as the lab's `run.sh`, run with no arguments.
fn run_sh(lab: &Lab, script: &str) -> RunSpec {
    lab.script("run.sh", script);
    lab.spec("run.sh", &[])
}

fn with_timeout(lab: &Lab, script: &str, timeout: Duration) -> RunSpec {
    let mut spec = run_sh(lab, script);
    spec.limits.timeout = timeout;
    spec
}

fn with_cutoff(lab: &Lab, script: &str, wall: Duration, cpu: Duration) -> RunSpec {
    let mut spec = run_sh(lab, script);
    spec.cutoff = Some(crate::sandbox::Cutoff::after(crate::sandbox::CutoffLimit {
        wall,
        cpu,
    }));
    spec
}

/// The cutoff decides the same at load 0 and at four jobs per core: a run past its wall time
/// that keeps working finishes, one that sits idle is stopped, one that spins is stopped on its
/// CPU time.
#[test]
fn the_cutoff_gives_the_same_verdict_idle_and_under_load() {
    let d = &isolations()[0];
    let working = "#!/bin/bash\nfor i in $(seq 1 25); do head -c 3000000 /dev/urandom | md5sum >/dev/null; done\necho done\n";
    let sleeping = format!("#!/bin/bash\nsleep {}\n", unique_sleep());
    let spinning = "#!/bin/bash\nwhile :; do :; done\n";
    for loaded in [false, true] {
        let _hog = loaded.then(CpuHog::start);
        let lab = Lab::new();
        let wall = Duration::from_millis(300);
        let o = run_with(
            &with_cutoff(&lab, working, wall, Duration::from_secs(60)),
            d,
        );
        assert_eq!(o.exit, ExitStatus::Code(0), "loaded {loaded}: {}", show(&o));
        assert_eq!(text(&o.stdout), "done\n");

        let lab = Lab::new();
        let o = run_with(
            &with_cutoff(&lab, &sleeping, wall, Duration::from_secs(60)),
            d,
        );
        assert_eq!(
            o.exit,
            ExitStatus::TimedOut,
            "loaded {loaded}: {}",
            show(&o)
        );
        assert_eq!(
            o.problems,
            vec!["the script did not finish within 300ms and was stopped".to_string()]
        );

        let lab = Lab::new();
        let mut spec = with_cutoff(
            &lab,
            spinning,
            Duration::from_secs(2),
            Duration::from_millis(500),
        );
        spec.limits.timeout = Duration::from_secs(60);
        let o = run_with(&spec, d);
        assert_eq!(
            o.exit,
            ExitStatus::TimedOut,
            "loaded {loaded}: {}",
            show(&o)
        );
        assert_eq!(
            o.problems,
            vec!["the script did not finish within 2s and was stopped".to_string()]
        );
        assert!(o.cpu >= Duration::from_millis(500), "{:?}", o.cpu);
    }
}

/// The scenario's timeout is judged as a cutoff is, at load 0 and at four jobs per core: a run
/// that keeps working past it (and stays within its CPU time) finishes, one that sits idle past it
/// is stopped, one that spins is stopped on its CPU time or at the ceiling.
#[test]
fn the_timeout_gives_the_same_verdict_idle_and_under_load() {
    let d = &isolations()[0];
    // About 3 s of wall time, a little CPU every 0.2 s: past a 2 s timeout, never idle for 3 s,
    // far within the ceiling at ten times the timeout.
    let working = "#!/bin/bash\nfor i in $(seq 1 15); do head -c 1000000 /dev/urandom | md5sum >/dev/null; sleep 0.2; done\necho done\n";
    let sleeping = format!("#!/bin/bash\nsleep {}\n", unique_sleep());
    let spinning = "#!/bin/bash\nwhile :; do :; done\n";
    for loaded in [false, true] {
        let _hog = loaded.then(CpuHog::start);
        let lab = Lab::new();
        let o = run_with(&with_timeout(&lab, working, Duration::from_secs(2)), d);
        assert_eq!(o.exit, ExitStatus::Code(0), "loaded {loaded}: {}", show(&o));
        assert_eq!(text(&o.stdout), "done\n");
        assert!(o.duration > Duration::from_secs(2), "{:?}", o.duration);

        for (script, timeout, message) in [
            (
                sleeping.as_str(),
                Duration::from_millis(300),
                "the script did not finish within 300ms and was stopped",
            ),
            (
                spinning,
                Duration::from_secs(1),
                "the script did not finish within 1s and was stopped",
            ),
        ] {
            let lab = Lab::new();
            let o = run_with(&with_timeout(&lab, script, timeout), d);
            assert_eq!(
                o.exit,
                ExitStatus::TimedOut,
                "loaded {loaded}: {}",
                show(&o)
            );
            assert_eq!(o.problems, vec![message.to_string()]);
        }
    }
}

/// A run that uses no CPU while what it may be waiting on (the API server) is busy is waiting for
/// an answer a loaded machine delays: it is not stopped as idle, and is once nothing is busy.
#[test]
fn a_run_waiting_on_a_busy_server_is_not_idle() {
    let d = &isolations()[0];
    let script = "#!/bin/bash\nsleep 5\necho done\n";
    let wall = Duration::from_millis(300);

    let lab = Lab::new();
    let mut spec = with_cutoff(&lab, script, wall, Duration::from_secs(60));
    spec.awaited = Some(crate::sandbox::Awaited::new(|| true));
    let o = run_with(&spec, d);
    assert_eq!(o.exit, ExitStatus::Code(0), "{}", show(&o));
    assert_eq!(text(&o.stdout), "done\n");

    let lab = Lab::new();
    let mut spec = with_cutoff(&lab, script, wall, Duration::from_secs(60));
    spec.awaited = Some(crate::sandbox::Awaited::new(|| false));
    let o = run_with(&spec, d);
    assert_eq!(o.exit, ExitStatus::TimedOut, "{}", show(&o));
    assert_eq!(
        o.problems,
        vec!["the script did not finish within 300ms and was stopped".to_string()]
    );
}
