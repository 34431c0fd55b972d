//! A cgroup per run: the only thing that bounds a fork bomb when the grader runs as root
//! (`RLIMIT_NPROC` is per user and root is exempt), and a memory bound that, unlike `RLIMIT_AS`,
//! does not count the address space Go programs such as kubectl reserve without using.
//!
//! Layouts handled: cgroup v2 mounted at `/sys/fs/cgroup` (runs go under
//! `/sys/fs/cgroup/proctor-sandbox/`, a leaf of the root, because v2 forbids moving processes into a
//! child of a cgroup that has processes and enabled controllers), and cgroup v1 `pids`/`memory`
//! hierarchies (runs go under the grader's own cgroup in each, so the grader's limits still apply).
//! When none is writable the run goes without, and the rlimits in `launch` are the fallback.

use super::Limits;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

const V2_ROOT: &str = "/sys/fs/cgroup";

#[derive(Debug)]
enum Layout {
    V2 {
        parent: PathBuf,
    },
    V1 {
        pids: Option<PathBuf>,
        memory: Option<PathBuf>,
    },
    Unavailable,
}

/// The cgroup(s) of one run; removed (after killing what is left in them) on drop.
#[derive(Debug)]
pub(crate) struct RunCgroup {
    pids: Option<PathBuf>,
    memory: Option<PathBuf>,
    /// v2: one dir holds both controllers.
    unified: bool,
}

impl RunCgroup {
    /// Creates the run's cgroup with `pids.max` and the memory limit set, or `None` when this machine
    /// does not let us.
    pub(crate) fn create(limits: &Limits) -> Option<RunCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "proctor-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        match layout() {
            Layout::V2 { parent } => {
                let dir = parent.join(&name);
                std::fs::create_dir(&dir).ok()?;
                let pids = write(&dir.join("pids.max"), &limits.processes.to_string());
                let memory = write(&dir.join("memory.max"), &limits.memory_bytes.to_string());
                if memory {
                    // Swap would let a memory hog get past memory.max slowly instead of being stopped.
                    write(&dir.join("memory.swap.max"), "0");
                }
                if !pids && !memory {
                    let _ = std::fs::remove_dir(&dir);
                    return None;
                }
                Some(RunCgroup {
                    pids: pids.then(|| dir.clone()),
                    memory: memory.then_some(dir),
                    unified: true,
                })
            }
            Layout::V1 { pids, memory } => {
                let pids = pids.as_ref().and_then(|parent| {
                    make_v1(
                        &parent.join(&name),
                        "pids.max",
                        &limits.processes.to_string(),
                    )
                });
                let memory = memory.as_ref().and_then(|parent| {
                    make_v1(
                        &parent.join(&name),
                        "memory.limit_in_bytes",
                        &limits.memory_bytes.to_string(),
                    )
                });
                if pids.is_none() && memory.is_none() {
                    return None;
                }
                Some(RunCgroup {
                    pids,
                    memory,
                    unified: false,
                })
            }
            Layout::Unavailable => None,
        }
    }

    pub(crate) fn limits_processes(&self) -> bool {
        self.pids.is_some()
    }

    pub(crate) fn limits_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// The `cgroup.procs` files the child writes `0` into (itself) before exec.
    pub(crate) fn join_files(&self) -> Vec<CString> {
        self.dirs()
            .filter_map(|d| {
                CString::new(d.join("cgroup.procs").as_os_str().as_encoded_bytes()).ok()
            })
            .collect()
    }

    fn dirs(&self) -> impl Iterator<Item = &PathBuf> {
        let memory = if self.unified {
            None
        } else {
            self.memory.as_ref()
        };
        self.pids.iter().chain(memory)
    }

    /// Kills every process in the run's cgroup(s), repeating until they are empty (a fork bomb keeps
    /// forking while it is being killed; `pids.max` bounds how long that can go on).
    pub(crate) fn kill_all(&self) {
        for dir in self.dirs() {
            // cgroup v2 (Linux 5.14+) kills the whole subtree atomically.
            let _ = std::fs::write(dir.join("cgroup.kill"), "1");
        }
        for _ in 0..200 {
            let mut found = false;
            for dir in self.dirs() {
                for pid in procs(dir) {
                    found = true;
                    let _ = nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
            }
            if !found {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Limits the run ran into, in learner-facing words.
    pub(crate) fn problems(&self, limits: &Limits) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(dir) = &self.pids {
            if counter(&dir.join("pids.events"), "max") > 0 {
                problems.push(super::limit::processes_exceeded(limits.processes));
            }
        }
        if let Some(dir) = &self.memory {
            let kills = if self.unified {
                counter(&dir.join("memory.events"), "oom_kill")
            } else {
                counter(&dir.join("memory.oom_control"), "oom_kill")
            };
            if kills > 0 {
                problems.push(super::limit::memory_killed(limits.memory_bytes));
            }
        }
        problems
    }
}

/// Which limits script runs get from a cgroup on this machine: (processes, memory). Answered by
/// creating (and removing) a run cgroup as a real run would.
pub fn cgroup_limits() -> (bool, bool) {
    RunCgroup::create(&Limits::default())
        .map(|cgroup| (cgroup.limits_processes(), cgroup.limits_memory()))
        .unwrap_or((false, false))
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        self.kill_all();
        let dirs: Vec<PathBuf> = self.dirs().cloned().collect();
        for dir in dirs {
            // Killed processes leave the cgroup once reaped; give the kernel a moment.
            for _ in 0..100 {
                if std::fs::remove_dir(&dir).is_ok() || !dir.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

fn make_v1(dir: &Path, limit_file: &str, value: &str) -> Option<PathBuf> {
    std::fs::create_dir(dir).ok()?;
    if write(&dir.join(limit_file), value) {
        Some(dir.to_path_buf())
    } else {
        let _ = std::fs::remove_dir(dir);
        None
    }
}

fn write(path: &Path, value: &str) -> bool {
    std::fs::write(path, value).is_ok()
}

fn procs(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .map(|s| s.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// The value of `key` in a flat keyed file such as `pids.events` (`max 3`).
fn counter(path: &Path, key: &str) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                let mut parts = l.split_whitespace();
                (parts.next() == Some(key))
                    .then(|| parts.next().and_then(|v| v.parse().ok()))
                    .flatten()
            })
        })
        .unwrap_or(0)
}

fn layout() -> &'static Layout {
    static LAYOUT: OnceLock<Layout> = OnceLock::new();
    LAYOUT.get_or_init(|| {
        let layout = detect_layout();
        tracing::debug!(?layout, "cgroups for script runs");
        layout
    })
}

fn detect_layout() -> Layout {
    if Path::new(V2_ROOT).join("cgroup.controllers").exists() {
        let parent = Path::new(V2_ROOT).join("proctor-sandbox");
        if std::fs::create_dir_all(&parent).is_err() {
            return Layout::Unavailable;
        }
        for controller in ["+pids", "+memory"] {
            write(
                &Path::new(V2_ROOT).join("cgroup.subtree_control"),
                controller,
            );
            write(&parent.join("cgroup.subtree_control"), controller);
        }
        remove_stale(&parent);
        return Layout::V2 { parent };
    }
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let v1 = |controller: &str| -> Option<PathBuf> {
        let relative = own.lines().find_map(|line| {
            let mut fields = line.splitn(3, ':');
            let _id = fields.next()?;
            let controllers = fields.next()?;
            let path = fields.next()?;
            controllers
                .split(',')
                .any(|c| c == controller)
                .then(|| path.trim_start_matches('/').to_string())
        })?;
        let dir = Path::new(V2_ROOT).join(controller).join(relative);
        if !dir.join("cgroup.procs").exists() {
            return None;
        }
        remove_stale(&dir);
        Some(dir)
    };
    let (pids, memory) = (v1("pids"), v1("memory"));
    if pids.is_none() && memory.is_none() {
        Layout::Unavailable
    } else {
        Layout::V1 { pids, memory }
    }
}

/// Removes empty run cgroups a crashed grader left behind (a busy one refuses removal).
fn remove_stale(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(pid) = name
            .strip_prefix("proctor-")
            .and_then(|r| r.split('-').next())
        else {
            continue;
        };
        let alive = pid
            .parse::<i32>()
            .map(|p| Path::new(&format!("/proc/{p}")).exists())
            .unwrap_or(false);
        if !alive {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}
