//! Who a learner's code runs as when the grader is root: a dedicated, unprivileged uid and gid,
//! one per run that is going at the same time, so that two learners' runs can neither signal,
//! trace nor read each other through `/proc`, and `RLIMIT_NPROC` counts exactly one run.
//!
//! The ids come from a range (`PROCTOR_SANDBOX_UID`, default 62000, and the 64 after it) that
//! `/etc/passwd` does not name; the gid of a run is its uid. A run leases an id for its whole
//! life; once the run has ended every process still owned by the id is killed, so the next lease
//! starts from nothing.

use std::path::Path;
use std::sync::OnceLock;

use nix::unistd::{Gid, Uid};

/// The first uid of the default range; above the ids distributions hand out to people and below
/// the ones systemd allocates dynamically.
const DEFAULT_BASE: u32 = 62000;
/// How many runs may hold an id at once (more wait for one).
const POOL_SIZE: u32 = 64;

/// An unprivileged uid/gid pair a run owns until it is dropped. Ownership is an exclusive
/// `flock` on a file named for the uid in a directory only root can write, so that two graders
/// on one machine (shards, a test suite's processes) never hand out the same id.
#[derive(Debug)]
pub(crate) struct Lease {
    pub uid: Uid,
    pub gid: Gid,
    _lock: nix::fcntl::Flock<std::fs::File>,
}

impl Drop for Lease {
    fn drop(&mut self) {
        // Before the lock goes: the next holder of the id must find nothing of this run.
        kill_all_of(self.uid);
    }
}

fn base() -> u32 {
    static BASE: OnceLock<u32> = OnceLock::new();
    *BASE.get_or_init(|| {
        std::env::var("PROCTOR_SANDBOX_UID")
            .ok()
            .and_then(|value| value.trim().parse::<u32>().ok())
            .filter(|base| *base > 0)
            .unwrap_or(DEFAULT_BASE)
    })
}

/// Takes a free id, waiting for one when every id is in use.
pub(crate) fn lease() -> std::io::Result<Lease> {
    static NAMED: OnceLock<Vec<u32>> = OnceLock::new();
    let named = NAMED.get_or_init(named_ids);
    let dir = lock_dir()?;
    loop {
        for offset in 0..POOL_SIZE {
            let id = base() + offset;
            if named.contains(&id) {
                continue;
            }
            let lock = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(dir.join(id.to_string()))?;
            let Ok(lock) =
                nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusiveNonblock)
            else {
                continue;
            };
            let uid = Uid::from_raw(id);
            // A grader killed before it cleaned up may have left processes behind.
            kill_all_of(uid);
            return Ok(Lease {
                uid,
                gid: Gid::from_raw(id),
                _lock: lock,
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// `/run/proctor-sandbox-ids` (or the same under the temp dir): made by root, mode 0700, so no run
/// can take or hold a lock itself.
pub(crate) fn lock_dir() -> std::io::Result<std::path::PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let parent = if Path::new("/run").is_dir() {
        std::path::PathBuf::from("/run")
    } else {
        std::env::temp_dir()
    };
    let dir = parent.join("proctor-sandbox-ids");
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(error),
    }
    let meta = std::fs::symlink_metadata(&dir)?;
    if !meta.is_dir() || meta.uid() != nix::unistd::geteuid().as_raw() || meta.mode() & 0o077 != 0 {
        return Err(std::io::Error::other(format!(
            "{} is not a private directory of this user: remove it",
            dir.display()
        )));
    }
    Ok(dir)
}

/// Uids and gids the system's databases name: the pool never hands one of them out.
fn named_ids() -> Vec<u32> {
    let mut ids = Vec::new();
    for database in ["/etc/passwd", "/etc/group"] {
        let Ok(text) = std::fs::read_to_string(database) else {
            continue;
        };
        ids.extend(
            text.lines()
                .filter_map(|line| line.split(':').nth(2)?.parse::<u32>().ok()),
        );
    }
    ids
}

/// Kills every process whose real or effective uid is `uid` (a run's leftovers, wherever they
/// went: another session, another process group, a cleared environment).
pub(crate) fn kill_all_of(uid: Uid) {
    // Repeat: a process may fork while the scan runs.
    for _ in 0..20 {
        let found = processes_of(uid);
        if found.is_empty() {
            return;
        }
        for pid in found {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

fn processes_of(uid: Uid) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let wanted = uid.as_raw().to_string();
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
                return false;
            };
            let alive = status
                .lines()
                .find_map(|line| line.strip_prefix("State:"))
                .is_some_and(|state| !state.trim_start().starts_with(['Z', 'X']));
            let owned = status
                .lines()
                .find_map(|line| line.strip_prefix("Uid:"))
                .is_some_and(|ids| ids.split_whitespace().take(2).any(|id| id == wanted));
            alive && owned
        })
        .collect()
}

/// Gives `root` and everything below it to `lease` (links themselves, not their targets), so the
/// run can write its lab dir and nothing else, and closes `root` to everyone else: another run,
/// under another uid, must not read it. Iterative: a deep tree cannot exhaust the stack.
pub(crate) fn give(root: &Path, lease: &Lease) -> std::io::Result<()> {
    use std::os::unix::fs::{lchown, PermissionsExt};
    std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o700))?;
    let (uid, gid) = (Some(lease.uid.as_raw()), Some(lease.gid.as_raw()));
    let mut pending = vec![root.to_path_buf()];
    while let Some(path) = pending.pop() {
        lchown(&path, uid, gid)?;
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path)? {
                pending.push(entry?.path());
            }
        }
    }
    Ok(())
}
