//! A learner with a shell, against every sandbox mode this machine offers (run as root, every
//! mode but `none` is tried; as a plain user, bubblewrap): each attack must gain nothing and
//! change nothing outside its own run.

use super::*;

/// A file only the grader can read (as every file a root grader makes is: see
/// `harden_grader_files`), and its text.
fn grader_secret() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::Builder::new()
        .prefix("sbx-grader-secret-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .expect("temp dir");
    let token = format!("GRADER-{}", token());
    let file = dir.path().join("answer.txt");
    std::fs::write(&file, format!("{token}\n")).expect("write");
    (dir, file, token)
}

#[test]
fn a_learners_run_is_never_root() {
    let root = nix::unistd::geteuid().is_root();
    for d in confined() {
        let lab = Lab::new();
        let o = run_with(
            &lab.shell("id -u; grep -E '^(CapEff|CapPrm|NoNewPrivs):' /proc/self/status"),
            &d,
        );
        let out = text(&o.stdout);
        let uid: u32 = out
            .lines()
            .next()
            .and_then(|line| line.trim().parse().ok())
            .unwrap_or(0);
        if root {
            assert_ne!(uid, 0, "{}", show(&o));
        }
        assert!(out.contains("CapEff:\t0000000000000000"), "{}", show(&o));
        assert!(out.contains("CapPrm:\t0000000000000000"), "{}", show(&o));
        assert!(out.contains("NoNewPrivs:\t1"), "{}", show(&o));
    }
}

/// `/proc/<grader>/root` once led to the grader's whole file system.
#[test]
fn the_grader_process_is_out_of_reach() {
    let (_dir, secret, token) = grader_secret();
    let me = std::process::id();
    for d in confined() {
        let lab = Lab::new();
        let attack = format!(
            "cat /proc/{me}/root{s} /proc/1/root{s} 2>/dev/null\n\
             tr '\\0' '\\n' < /proc/{me}/environ 2>/dev/null | head -3\n\
             ls /proc/{me}/cwd/ 2>/dev/null | head -3\n\
             for p in /proc/[0-9]*; do cat \"$p/root{s}\" 2>/dev/null; done\n\
             exit 0",
            s = secret.display()
        );
        let o = run_with(&lab.shell(&attack), &d);
        assert!(!text(&o.stdout).contains(&token), "{}", show(&o));
        assert_eq!(text(&o.stdout), "", "{}", show(&o));
    }
}

/// Unmounting or remounting the view, or making a user namespace to do it, reveals nothing.
#[test]
fn the_view_cannot_be_undone() {
    let (_dir, secret, token) = grader_secret();
    for d in confined() {
        let lab = Lab::new();
        let attack = format!(
            "umount -l /tmp 2>/dev/null; umount -l /root 2>/dev/null; umount -l / 2>/dev/null\n\
             mount -o remount,rw / 2>/dev/null && echo REMOUNTED\n\
             mount -t tmpfs x /usr 2>/dev/null && echo MOUNTED\n\
             unshare -Urm sh -c 'umount -l /tmp; cat {s}' 2>/dev/null\n\
             cat {s} 2>/dev/null\n\
             echo x > /usr/proctor-probe 2>/dev/null && echo WROTE-USR\n\
             echo 1 > /proc/sys/kernel/ctrl-alt-del 2>/dev/null && echo WROTE-PROC\n\
             echo x > /sys/kernel/uevent_helper 2>/dev/null && echo WROTE-SYS\n\
             exit 0",
            s = secret.display()
        );
        let o = run_with(&lab.shell(&attack), &d);
        assert_eq!(text(&o.stdout), "", "{}", show(&o));
        assert!(!Path::new("/usr/proctor-probe").exists());
        let _ = token;
    }
}

/// Two learners' runs at the same time: neither reads, signals or finds the other.
#[test]
fn runs_at_the_same_time_cannot_reach_each_other() {
    for d in confined() {
        let token = token();
        let alice = Lab::new();
        std::fs::write(alice.path().join("answer.txt"), format!("ALICE-{token}\n")).expect("write");
        let alice_sleep = unique_sleep();
        let mut first = alice.shell(&format!("echo $$ > /tmp/pid; sleep {alice_sleep}; exit 0"));
        first.limits.timeout = Duration::from_secs(20);
        let waiter = {
            let d = d.clone();
            std::thread::spawn(move || run_with(&first, &d))
        };
        // Wait for alice's sleep to exist.
        let deadline = Instant::now() + Duration::from_secs(20);
        while processes_with(&alice_sleep).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let alice_pids = processes_with(&alice_sleep);
        let bob = Lab::new();
        let dir = alice.path().display();
        let pids: String = alice_pids.iter().map(|p| format!("{p} ")).collect();
        let attack = format!(
            "cat {dir}/answer.txt 2>/dev/null\n\
             for p in {pids}; do cat /proc/$p/cwd/answer.txt 2>/dev/null; kill -9 $p 2>/dev/null && echo KILLED; done\n\
             grep -rhs ALICE- /tmp /proc/[0-9]*/cwd/ 2>/dev/null\n\
             exit 0"
        );
        let o = run_with(&bob.shell(&attack), &d);
        // Alice's answer is what must not reach bob: other files that merely mention the
        // pattern (this source, in a checkout under /tmp) are the machine's, not hers.
        let seen = text(&o.stdout);
        assert!(
            !seen.contains(&token) && !seen.contains("KILLED"),
            "{}",
            show(&o)
        );
        assert!(
            !processes_with(&alice_sleep).is_empty(),
            "[{}] bob's run ended alice's",
            o.isolation
        );
        for pid in processes_with(&alice_sleep) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = waiter.join();
    }
}

/// Without a view (`unprivileged-uid`), the run's uid reads nothing the grader keeps private.
#[test]
fn without_a_view_grader_files_are_still_private() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("SKIP unprivileged-uid: needs root");
        return;
    }
    let (_dir, secret, token) = grader_secret();
    let d = Detected {
        isolation: Isolation::UnprivilegedUid,
        bwrap: None,
    };
    let lab = Lab {
        map_at: std::env::temp_dir().join(format!("sbx-lab-{}", self::token())),
        ..Lab::new()
    };
    let o = run_with(
        &lab.shell(&format!(
            "cat {} 2>/dev/null; ls {} 2>/dev/null; echo x > /etc/proctor-probe 2>/dev/null && echo WROTE; pwd; exit 0",
            secret.display(),
            secret.parent().map(Path::display).map(|p| p.to_string()).unwrap_or_default()
        )),
        &d,
    );
    assert!(!text(&o.stdout).contains(&token), "{}", show(&o));
    assert_eq!(
        text(&o.stdout),
        format!("{}\n", lab.map_at.display()),
        "{}",
        show(&o)
    );
    assert!(!Path::new("/etc/proctor-probe").exists());
    // The lab path is there for the run's length only.
    assert!(std::fs::symlink_metadata(&lab.map_at).is_err());
}

/// The lab's absolute path works without namespaces too (a symlink, one run at a time), as
/// long as the run's uid can reach it; when it cannot, the run is the grader's error, never the
/// learner's.
#[test]
fn without_a_view_the_lab_path_is_usable_or_refused() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("SKIP unprivileged-uid: needs root");
        return;
    }
    let d = Detected {
        isolation: Isolation::UnprivilegedUid,
        bwrap: None,
    };
    let lab = Lab {
        map_at: std::env::temp_dir().join(format!("sbx-lab-{}", token())),
        ..Lab::new()
    };
    std::fs::write(lab.path().join("support-matrix.csv"), "driver_branch\n").expect("write");
    let map_at = lab.map_at.display();
    let o = run_with(
        &lab.shell(&format!(
            "head -1 {map_at}/support-matrix.csv; echo out > {map_at}/where.txt"
        )),
        &d,
    );
    assert_eq!(text(&o.stdout), "driver_branch\n", "{}", show(&o));
    assert_eq!(
        std::fs::read_to_string(lab.path().join("where.txt"))
            .ok()
            .as_deref(),
        Some("out\n")
    );
    // Under a directory other users cannot search (`/root` is 0700 on most machines).
    let private = tempfile::Builder::new()
        .prefix("sbx-private-")
        .tempdir()
        .expect("temp dir");
    std::fs::set_permissions(private.path(), std::fs::Permissions::from_mode(0o700))
        .expect("chmod");
    let hidden = Lab {
        map_at: private.path().join("gpudrv"),
        ..Lab::new()
    };
    let o = run_with(&hidden.shell("exit 0"), &d);
    match &o.exit {
        ExitStatus::SpawnError(message) => assert!(message.contains("chmod o+x"), "{message}"),
        other => panic!("expected the grader's error, got {other:?}: {}", show(&o)),
    }
}
