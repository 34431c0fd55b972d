//! Puts a run together: preflight, environment, view, cgroup and rlimits, the command for the chosen
//! isolation, then supervision and the outcome.

use super::cgroup::RunCgroup;
use super::detect::{Detected, Isolation};
use super::supervise::{supervise, Ended};
use super::view::View;
use super::{
    bwrap, env, kube_cache, limit, mountns, preflight, sweep, view, ExitStatus, Limits, RunOutcome,
    RunSpec,
};
use nix::sys::resource::{setrlimit, Resource};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::ffi::{CString, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The shell the lab's learner types commands into. The script is run from it as `./name args`
/// (so a missing exec bit or a CRLF shebang fails exactly as it does in the lab), as a child rather
/// than with `exec`: in the mount-namespace sandbox that child is the PID namespace's init.
const WRAPPER: &str = r#""$@"; exit $?"#;

pub(crate) fn run_with(spec: &RunSpec, detected: &Detected) -> RunOutcome {
    let start = Instant::now();
    // bwrap and the mount namespace resolve the run dir after changing to `/`: a relative one
    // (`proctor solve --dir out`) must be made absolute first.
    let absolute;
    let spec = match std::path::absolute(&spec.run_dir) {
        Ok(run_dir) if run_dir != spec.run_dir => {
            absolute = RunSpec {
                run_dir,
                ..spec.clone()
            };
            &absolute
        }
        _ => spec,
    };
    let isolation = detected.isolation;
    let mut problems = Vec::new();
    let fail = |problems: Vec<String>, message: String| RunOutcome {
        stdout: Vec::new(),
        stderr: Vec::new(),
        exit: ExitStatus::SpawnError(message),
        problems,
        isolation: isolation.name(),
        duration: start.elapsed(),
    };

    if !spec.run_dir.is_dir() {
        return fail(
            problems,
            format!("the run dir {} does not exist", spec.run_dir.display()),
        );
    }
    if spec.shell.is_none() {
        problems.extend(preflight::check(&spec.run_dir, &spec.program));
    }
    let Some(bash) = ["/bin/bash", "/usr/bin/bash"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
    else {
        return fail(problems, "bash is not installed".to_string());
    };
    let argv = script_argv(spec, &bash);

    // Without a PID namespace, leftovers are found by session and by this marker.
    let marker = (isolation == Isolation::None).then(new_marker);
    let kube_cache = kube_cache::for_run(spec.kube_cache_seed.as_deref(), isolation);
    let environment = env::build(spec, &kube_cache.path, marker.as_deref());

    let mut command;
    let mut mount_report = None;
    let mut mount_setup = None;
    match isolation {
        Isolation::Bubblewrap => {
            let view = match plan(spec, &environment) {
                Ok(view) => view,
                Err(e) => return fail(problems, e),
            };
            let Some(bwrap_path) = detected.bwrap.as_ref() else {
                return fail(problems, "bwrap is not installed".to_string());
            };
            command = Command::new(bwrap_path);
            command
                .args(bwrap::args(&view))
                .arg("--")
                .args(&argv)
                .current_dir("/");
        }
        Isolation::MountNamespace => {
            let view = match plan(spec, &environment) {
                Ok(view) => view,
                Err(e) => return fail(problems, e),
            };
            let (setup, report) = match mountns::setup(&view) {
                Ok(pair) => pair,
                Err(e) => return fail(problems, e),
            };
            command = Command::new(&argv[0]);
            command.args(&argv[1..]).current_dir("/");
            mount_setup = Some(setup);
            mount_report = Some(report);
        }
        Isolation::None => {
            command = Command::new(&argv[0]);
            command.args(&argv[1..]).current_dir(&spec.run_dir);
        }
    }
    command
        .env_clear()
        .envs(environment.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());

    let cgroup = RunCgroup::create(&spec.limits);
    let mut child_setup = ChildSetup::new(&spec.limits, cgroup.as_ref());
    let rlimits = (child_setup.address_space, child_setup.processes);
    // SAFETY: the closure only issues raw syscalls on data prepared before the fork (see
    // `ChildSetup::apply` and `mountns::Setup::apply`).
    unsafe {
        command.pre_exec(move || {
            child_setup.apply()?;
            if let Some(setup) = mount_setup.as_mut() {
                setup.apply()?;
            }
            Ok(())
        });
    }
    let spawned = command.spawn();
    // The command owns the pre_exec closure, which holds the write end of the mount setup's error
    // pipe: drop it so the pipe can be read to its end.
    drop(command);
    let child = match spawned {
        Ok(child) => child,
        Err(e) => {
            let step = mount_report.and_then(|r| r.failed_step());
            let message = match step {
                Some(step) => format!(
                    "could not start the {} sandbox: {step}: {e}",
                    isolation.name()
                ),
                None => format!("could not start the {} sandbox: {e}", isolation.name()),
            };
            return fail(problems, message);
        }
    };
    drop(mount_report);

    let mut kill_everything = |pid: i32| {
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        if let Some(cgroup) = &cgroup {
            cgroup.kill_all();
        }
        sweep::kill_leftovers(pid, marker.as_deref());
    };
    let captured = supervise(
        child,
        &spec.limits,
        spec.cutoff.as_ref(),
        &mut kill_everything,
    );
    problems.extend(captured.problems);
    if let Some(cgroup) = &cgroup {
        problems.extend(cgroup.problems(&spec.limits));
    }
    // Without a cgroup the rlimits refuse instead of kill: only what the script printed tells.
    if rlimits.0.is_some() && limit::says_memory_was_refused(&captured.stderr) {
        problems.push(limit::memory_refused(spec.limits.memory_bytes));
    }
    if rlimits.1.is_some() && limit::says_fork_was_refused(&captured.stderr) {
        problems.push(limit::processes_exceeded(spec.limits.processes));
    }
    let exit = match captured.ended {
        Ended::Exited(status) => {
            use std::os::unix::process::ExitStatusExt;
            match (status.code(), status.signal()) {
                (Some(code), _) => ExitStatus::Code(code),
                (None, Some(signal)) => ExitStatus::Signal(signal),
                (None, None) => ExitStatus::Code(-1),
            }
        }
        Ended::TimedOut(after) => {
            problems.push(limit::timed_out(after));
            ExitStatus::TimedOut
        }
        Ended::OutputLimit => {
            problems.push(limit::output_exceeded(spec.limits.output_bytes));
            ExitStatus::OutputLimit
        }
    };
    drop(cgroup);
    drop(kube_cache);
    RunOutcome {
        stdout: captured.stdout,
        stderr: captured.stderr,
        exit,
        problems,
        isolation: isolation.name(),
        duration: start.elapsed(),
    }
}

fn plan(spec: &RunSpec, environment: &[(String, String)]) -> Result<View, String> {
    view::plan(
        &spec.run_dir,
        &spec.map_at,
        &env::named_paths(environment),
        &spec.hidden,
    )
}

/// `bash -c '"$@"; exit $?' bash ./drv-tag.sh args...`, or for a shell snippet
/// `bash -c '"$@"; exit $?' bash /bin/bash -c <snippet>`.
fn script_argv(spec: &RunSpec, bash: &Path) -> Vec<OsString> {
    let mut argv: Vec<OsString> = vec![bash.into(), "-c".into(), WRAPPER.into(), "bash".into()];
    match &spec.shell {
        Some(snippet) => {
            argv.push(bash.into());
            argv.push("-c".into());
            argv.push(snippet.into());
        }
        None => {
            let program = if spec.program.is_absolute() {
                spec.program.clone().into_os_string()
            } else {
                let mut p = OsString::from("./");
                p.push(spec.program.as_os_str());
                p
            };
            argv.push(program);
            argv.extend(spec.args.iter().map(OsString::from));
        }
    }
    argv
}

fn new_marker() -> String {
    format!("{}-{}", std::process::id(), rand::random::<u64>())
}

/// What every child does before exec, whatever the isolation.
struct ChildSetup {
    cgroup_procs: Vec<CString>,
    address_space: Option<u64>,
    processes: Option<u64>,
}

impl ChildSetup {
    fn new(limits: &Limits, cgroup: Option<&RunCgroup>) -> ChildSetup {
        let memory_in_cgroup = cgroup.is_some_and(RunCgroup::limits_memory);
        let processes_in_cgroup = cgroup.is_some_and(RunCgroup::limits_processes);
        // RLIMIT_NPROC counts every task of the user, the grader's included, and root ignores it.
        let processes = if processes_in_cgroup || nix::unistd::geteuid().is_root() {
            None
        } else {
            Some(tasks_of_current_user() + limits.processes)
        };
        ChildSetup {
            cgroup_procs: cgroup.map(RunCgroup::join_files).unwrap_or_default(),
            address_space: (!memory_in_cgroup).then_some(limits.memory_bytes),
            processes,
        }
    }

    /// Runs in the child between fork and exec: raw syscalls only.
    fn apply(&mut self) -> std::io::Result<()> {
        nix::unistd::setsid()?;
        // Dies with the grader.
        nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)?;
        for procs in &self.cgroup_procs {
            // SAFETY: `procs` is a live NUL-terminated path; the buffer is a static byte string.
            unsafe {
                let fd =
                    nix::libc::open(procs.as_ptr(), nix::libc::O_WRONLY | nix::libc::O_CLOEXEC);
                if fd >= 0 {
                    nix::libc::write(fd, b"0".as_ptr().cast(), 1);
                    nix::libc::close(fd);
                }
            }
        }
        if let Some(bytes) = self.address_space {
            setrlimit(Resource::RLIMIT_AS, bytes, bytes)?;
        }
        if let Some(n) = self.processes {
            setrlimit(Resource::RLIMIT_NPROC, n, n)?;
        }
        Ok(())
    }
}

/// Threads of all processes owned by this user (what RLIMIT_NPROC counts).
fn tasks_of_current_user() -> u64 {
    let uid = nix::unistd::getuid().as_raw().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut total = 0;
    for entry in entries.flatten() {
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(str::trim)
        };
        let owner = field("Uid:").and_then(|v| v.split_whitespace().next());
        if owner == Some(uid.as_str()) {
            total += field("Threads:")
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(1);
        }
    }
    total
}
