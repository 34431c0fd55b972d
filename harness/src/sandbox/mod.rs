//! Runs a learner's (or the reference's) script the way the lab would, without letting it harm the
//! grader, other learners or the grade: the run dir appears at the lab's absolute path
//! (`/root/gpudrv`), and every process the script starts is killed when it ends, times out or
//! floods its output. Loopback networking is kept: scripts talk to the cluster through `kubectl`.
//!
//! A learner's code ([`Trust::Learner`]: their scripts, and the replays of their files) never runs
//! as root: a root grader gives each run an unprivileged uid of its own (see `identity`), with no
//! capabilities and `no_new_privs`; a grader that is not root runs it as itself inside a user
//! namespace. The reference's shells ([`Trust::Reference`], the scenario author's) run as the
//! grader. Isolation, best first (see [`isolation_available`]; `PROCTOR_SANDBOX=bubblewrap|
//! mount-namespace|unprivileged-uid|none` forces one):
//! - `bubblewrap`: `bwrap` builds the view (see `view`: an allow list of system directories, a
//!   private `/tmp` and home, the run dir at the lab path) in new user, mount, PID, IPC and UTS
//!   namespaces with a fresh `/proc` and no `/sys`; a root grader runs `bwrap` itself as the run's
//!   uid, so the sandbox's user namespace maps to that uid, never to root;
//! - `mount-namespace` (root only): the same view built by our own code, made the root with
//!   `pivot_root`, with a `/proc` that shows only the run's uid, before the run drops to its uid;
//! - `unprivileged-uid` (root, no namespaces — a container that forbids them): the run's own uid
//!   and the host's file system, on which every grader path is private to root (see
//!   [`harden_grader_files`]); the lab path is a link to the run dir, one run at a time;
//! - `none` (not root, no namespaces): the script runs as the grader. Grading refuses this unless
//!   the grader accepts it explicitly (see [`grading_isolation`]), and every report says so.
//!
//! Resource limits. A fork bomb and memory hogs are stopped by a per-run cgroup when one can be
//! created (cgroup v2 `pids.max`/`memory.max`, or the v1 `pids` and `memory` hierarchies, as on hosts
//! with a hybrid layout). Without a cgroup, `RLIMIT_AS` bounds memory and `RLIMIT_NPROC` bounds
//! processes — exactly, for a run with its own uid or (a plain user's bubblewrap run, Linux 5.14 and
//! later) its own user namespace; a plain user's `none` run shares the count with the grader's
//! other processes; for a reference run of a root grader without a writable cgroup only the
//! timeout stops a fork bomb.

mod bwrap;
mod cgroup;
mod cpu;
mod detect;
mod env;
mod identity;
mod kube_cache;
mod kubeconfig;
mod lab_link;
mod launch;
mod limit;
mod mountns;
mod preflight;
mod private;
mod supervise;
mod sweep;
mod view;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use cgroup::cgroup_limits;
pub use detect::isolation_available;
pub use env::on_path;
pub use env::short_lived_go;
pub use env::STANDARD_PATH;
pub use limit::is_limit_problem;

/// What to run and where.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Script path relative to `run_dir` (e.g. `drv-tag.sh`), run as `./drv-tag.sh` from the lab dir.
    pub program: PathBuf,
    pub args: Vec<String>,
    /// The directory the script sees as its lab dir (a reference dir R_n, or R_n with the learner's
    /// files overlaid). Must exist.
    pub run_dir: PathBuf,
    /// The absolute lab path, e.g. `/root/gpudrv`; `run_dir` appears there and is the cwd.
    pub map_at: PathBuf,
    /// Variables added to the clean environment (KUBECONFIG, PATH, HOME, SCENARIO_DIR, ...). Absolute
    /// paths named here stay visible (read-only) even when they lie in a hidden place such as `/tmp`.
    pub env: Vec<(String, String)>,
    pub limits: Limits,
    /// Run this bash snippet (cwd = the lab dir) instead of `program`.
    pub shell: Option<String>,
    /// A kubectl cache already filled for the cluster (see `kube_cache`); never written to.
    pub kube_cache_seed: Option<PathBuf>,
    /// The grader's own paths this run must not see unless `env` names them: the lab's dir (its
    /// reference solution) and the reference cache. The temp dirs, the repository and the host's
    /// secrets are hidden from every run; a hidden path stays hidden inside any path the run
    /// names (`HOME=/tmp/x` does not bring back `/tmp/x/.cache/proctor`).
    pub hidden: Vec<PathBuf>,
    /// A shorter time limit its owner may set while the run goes (see [`Cutoff`]).
    pub cutoff: Option<Cutoff>,
    /// What the run may be waiting on besides its own processes (see [`Awaited`]).
    pub awaited: Option<Awaited>,
    /// Whose code this is: a learner's never runs as root.
    pub trust: Trust,
    /// What the run reads on stdin; nothing (`/dev/null`) when `None`.
    pub stdin: Option<Vec<u8>>,
}

/// Whose code a run runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Trust {
    /// Anything a submission decides: the learner's scripts, a replay of their files.
    #[default]
    Learner,
    /// The scenario author's reference shells.
    Reference,
}

/// A limit set while a run goes: the learner's run of a pair is given a multiple of what the
/// reference's run took, known only once that one ends. The run is stopped once it is past
/// `wall` and has sat idle (used next to no CPU, had no process waiting for a CPU or the disk, and
/// nothing it may be waiting on was busy: see [`Awaited`]) for a few seconds — a script that hangs — or once
/// it has used more than `cpu` of CPU time — a script that spins; one that is merely slowed by a
/// loaded machine keeps using some CPU, never spins for ten times the reference's CPU, and
/// finishes. The run's [`Limits::timeout`] is a limit of the same kind, and the shorter of the
/// two applies.
#[derive(Debug, Clone, Default)]
pub struct Cutoff(Arc<Mutex<Option<CutoffLimit>>>);

/// Says whether something a run may be waiting on is busy now — the embedded API server answering
/// a request. A run past its wall time that uses no CPU while it is busy is waiting for an answer
/// that a loaded machine delays, not hanging (see [`Cutoff`]).
#[derive(Clone)]
pub struct Awaited(Arc<dyn Fn() -> bool + Send + Sync>);

impl Awaited {
    pub fn new(busy: impl Fn() -> bool + Send + Sync + 'static) -> Awaited {
        Awaited(Arc::new(busy))
    }

    pub fn busy(&self) -> bool {
        (self.0)()
    }
}

impl std::fmt::Debug for Awaited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Awaited")
    }
}

/// See [`Cutoff`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutoffLimit {
    pub wall: Duration,
    pub cpu: Duration,
}

impl Cutoff {
    /// A cutoff set from the start.
    pub fn after(limit: CutoffLimit) -> Cutoff {
        let cutoff = Cutoff::default();
        cutoff.set(limit);
        cutoff
    }

    pub fn set(&self, limit: CutoffLimit) {
        if let Ok(mut cutoff) = self.0.lock() {
            *cutoff = Some(limit);
        }
    }

    pub fn get(&self) -> Option<CutoffLimit> {
        self.0.lock().ok().and_then(|cutoff| *cutoff)
    }
}

/// Per-run limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Wall and CPU time, judged as a [`Cutoff`] is: past it, a run is stopped once it sits idle
    /// or has used this much CPU time, and at ten times it whatever it does.
    pub timeout: Duration,
    /// stdout and stderr together.
    pub output_bytes: usize,
    pub processes: u64,
    pub memory_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(30),
            output_bytes: 1024 * 1024,
            processes: 256,
            memory_bytes: 1024 * 1024 * 1024,
        }
    }
}

/// How a run ended. A script that cannot start because of the learner's own mistake (missing file,
/// no exec bit, CRLF shebang) ends as the lab's shell would end it — `Code(127)` / `Code(126)` with
/// bash's message on stderr — and the mistake is named in [`RunOutcome::problems`]. The script runs
/// as a child of a bash, as in the lab, so a script killed by a signal shows as `Code(128 + n)`;
/// `Signal` only appears when the sandbox itself is killed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExitStatus {
    Code(i32),
    Signal(i32),
    TimedOut,
    OutputLimit,
    /// The grader could not start the sandbox at all (not the learner's fault).
    SpawnError(String),
}

/// What a run produced. Output is kept as bytes (it may be binary or not UTF-8).
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit: ExitStatus,
    /// Explanations for the learner or operator: the script's mistakes and any limit that was hit.
    pub problems: Vec<String>,
    /// `"bubblewrap"`, `"mount-namespace"`, `"unprivileged-uid"` or `"none"`.
    pub isolation: &'static str,
    pub duration: Duration,
    /// CPU time the run used (its processes, and the children they reaped).
    pub cpu: Duration,
}

/// Runs `spec` to completion (blocking) in the best isolation available. Never panics; every
/// failure is described in the outcome.
pub fn run(spec: &RunSpec) -> RunOutcome {
    let outcome = launch::run_with(spec, detect::detected());
    tracing::debug!(
        program = %spec.program.display(),
        args = ?spec.args,
        took = ?outcome.duration,
        "script run"
    );
    outcome
}

/// The isolation a grading's learner runs get, or why grading must not start: `none` (a grader
/// that is not root on a machine without namespaces) is refused unless `accept_unisolated`, and a
/// forced isolation this machine cannot give is refused whatever the flag.
pub fn grading_isolation(accept_unisolated: bool) -> Result<&'static str, String> {
    let detected = detect::detected();
    if let Some(why) = detect::unusable(detected) {
        return Err(format!(
            "the {} sandbox cannot run here: {why}",
            detected.isolation.name()
        ));
    }
    if detected.isolation == detect::Isolation::None && !accept_unisolated {
        return Err(
            "learners' scripts would run as this user, able to read and change everything it can: \
             install bubblewrap (apt-get install bubblewrap) on a machine with user namespaces, \
             or run Proctor as root; --accept-unisolated grades anyway, and every report says so"
                .to_string(),
        );
    }
    Ok(detected.isolation.name())
}

/// What a root grader does to its own files before any learner's code runs without a view of its
/// own (`unprivileged-uid`): files it creates from now on are private (umask 077). Its caches and
/// reports are made so where they are created; see `cache_dir`.
pub fn harden_grader_files() {
    if nix::unistd::geteuid().is_root() {
        nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o077));
    }
}

/// Without a view of their own (`unprivileged-uid`), learners' runs see the host's files as
/// their uid may: `path` (the lab with its reference solution, a class folder, a submission) must
/// then be out of reach of other users — some directory on the way to it not searchable by them.
/// `what` names it in the refusal. Elsewhere there is nothing to check.
pub fn check_private(path: &std::path::Path, what: &str) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    if detect::detected().isolation != detect::Isolation::UnprivilegedUid {
        return Ok(());
    }
    let path = std::path::absolute(path).map_err(|error| error.to_string())?;
    let closed = path.ancestors().any(|dir| {
        std::fs::metadata(dir).is_ok_and(|meta| meta.is_dir() && meta.mode() & 0o001 == 0)
    });
    if closed {
        return Ok(());
    }
    Err(format!(
        "learners' scripts run as other users on this machine and could read {what}, {}: make it private first (chmod o-rwx {})",
        path.display(),
        path.display()
    ))
}
