//! Runs a learner's (or the reference's) script the way the lab would, without letting it harm the
//! grader: the run dir appears at the lab's absolute path (`/root/gpudrv`), the rest of the file
//! system is read-only, the grader's own files (repository, scenarios, reference outputs, temp dirs)
//! are hidden, and every process the script starts is killed when it ends, times out or floods its
//! output. Loopback networking is kept: scripts talk to the cluster through `kubectl`.
//!
//! Isolation, best first (see [`isolation_available`]; `PROCTOR_SANDBOX=bubblewrap|mount-namespace|none`
//! forces one):
//! - `bubblewrap`: `bwrap` builds the view (read-only `/`, private `/tmp`, run dir bound at the lab
//!   path) in new mount and PID namespaces; `--die-with-parent` and the PID namespace guarantee that
//!   nothing survives the run, and `kill -9 -1` only reaches the sandbox's own processes.
//! - `mount-namespace`: the same view built with `unshare(2)` and `mount(2)` in the child before exec
//!   (plus a user namespace when not root), and a PID namespace whose init is the script.
//! - `none`: no privilege for either; the script runs with cwd = run dir and literal `/root/<lab>`
//!   paths are not rewritten. Leftover processes are still found and killed (by session and by an
//!   environment marker), but the file system is not protected.
//!
//! Resource limits. A fork bomb and memory hogs are stopped by a per-run cgroup when one can be
//! created (cgroup v2 `pids.max`/`memory.max`, or the v1 `pids` and `memory` hierarchies, as on hosts
//! with a hybrid layout). Without a cgroup, `RLIMIT_AS` bounds memory and `RLIMIT_NPROC` bounds
//! processes — but `RLIMIT_NPROC` counts per user and is not enforced for root, so a root grader
//! without a writable cgroup is protected from a fork bomb only by the timeout.

mod bwrap;
mod cgroup;
mod detect;
mod env;
mod kube_cache;
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
}

/// A time limit set while a run goes, counted from the run's start: the learner's run of a pair
/// is given a multiple of the time the reference's run took, known only once that one ends. The
/// run ends at the earlier of its [`Limits::timeout`] and the cutoff.
#[derive(Debug, Clone, Default)]
pub struct Cutoff(Arc<Mutex<Option<Duration>>>);

impl Cutoff {
    /// A cutoff set from the start.
    pub fn after(limit: Duration) -> Cutoff {
        let cutoff = Cutoff::default();
        cutoff.set(limit);
        cutoff
    }

    pub fn set(&self, after: Duration) {
        if let Ok(mut cutoff) = self.0.lock() {
            *cutoff = Some(after);
        }
    }

    pub fn get(&self) -> Option<Duration> {
        self.0.lock().ok().and_then(|cutoff| *cutoff)
    }
}

/// Per-run limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
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
    /// `"bubblewrap"`, `"mount-namespace"` or `"none"`.
    pub isolation: &'static str,
    pub duration: Duration,
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
