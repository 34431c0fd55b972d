//! Which isolation this machine offers, probed once per process.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isolation {
    /// bubblewrap: user, mount, PID, IPC and UTS namespaces.
    Bubblewrap,
    /// Our own mount, PID, IPC and UTS namespaces (needs root).
    MountNamespace,
    /// No namespaces, but a root grader runs the learner's code as a dedicated unprivileged uid.
    UnprivilegedUid,
    /// Nothing: the learner's code runs as the grader (only when the grader says so).
    None,
}

impl Isolation {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Isolation::Bubblewrap => "bubblewrap",
            Isolation::MountNamespace => "mount-namespace",
            Isolation::UnprivilegedUid => "unprivileged-uid",
            Isolation::None => "none",
        }
    }

    fn from_name(name: &str) -> Option<Isolation> {
        [
            Isolation::Bubblewrap,
            Isolation::MountNamespace,
            Isolation::UnprivilegedUid,
            Isolation::None,
        ]
        .into_iter()
        .find(|isolation| isolation.name() == name)
    }

    /// Whether the file system a run sees is the sandbox's view rather than the host's.
    pub(crate) fn has_view(self) -> bool {
        matches!(self, Isolation::Bubblewrap | Isolation::MountNamespace)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Detected {
    pub isolation: Isolation,
    /// The `bwrap` binary, when isolation is bubblewrap.
    pub bwrap: Option<PathBuf>,
}

/// `"bubblewrap"`, `"mount-namespace"`, `"unprivileged-uid"` or `"none"`: what a learner's runs
/// get from [`super::run`]. Probed once (a `bwrap` that is installed but cannot create namespaces,
/// e.g. in a restricted container, is not used). `PROCTOR_SANDBOX` forces a choice; one this
/// machine cannot give is refused by [`super::grading_isolation`].
pub fn isolation_available() -> &'static str {
    detected().isolation.name()
}

pub(crate) fn detected() -> &'static Detected {
    static DETECTED: OnceLock<Detected> = OnceLock::new();
    DETECTED.get_or_init(|| {
        let bwrap = find_bwrap();
        let forced = std::env::var("PROCTOR_SANDBOX").ok();
        let detected = match forced.as_deref().and_then(Isolation::from_name) {
            Some(Isolation::Bubblewrap) => Detected {
                isolation: Isolation::Bubblewrap,
                bwrap,
            },
            Some(isolation) => Detected {
                isolation,
                bwrap: None,
            },
            None => probe_best(bwrap),
        };
        tracing::debug!(isolation = detected.isolation.name(), "script sandbox");
        detected
    })
}

/// Why the forced or detected isolation cannot run here, if it cannot.
pub(crate) fn unusable(detected: &Detected) -> Option<String> {
    let root = nix::unistd::geteuid().is_root();
    match detected.isolation {
        Isolation::Bubblewrap => match &detected.bwrap {
            None => Some("bubblewrap is not installed (apt-get install bubblewrap)".into()),
            Some(path) if !bwrap_works(path, root.then_some(NOBODY)) => Some(format!(
                "{} cannot create a sandbox here{}",
                path.display(),
                if root {
                    " for an unprivileged user (user namespaces are disabled)"
                } else {
                    " (user namespaces are disabled)"
                }
            )),
            Some(_) => None,
        },
        Isolation::MountNamespace if !root => {
            Some("the mount-namespace sandbox needs a grader running as root".into())
        }
        Isolation::MountNamespace if !super::mountns::probe() => {
            Some("this process cannot create mount namespaces".into())
        }
        Isolation::UnprivilegedUid if !root => {
            Some("running scripts as an unprivileged uid needs a grader running as root".into())
        }
        _ => None,
    }
}

/// The uid probes run as: no run's own id is taken for them.
const NOBODY: u32 = 65534;

fn probe_best(bwrap: Option<PathBuf>) -> Detected {
    let root = nix::unistd::geteuid().is_root();
    if let Some(path) = bwrap {
        // A root grader runs bwrap as the learner's uid, and the reference's as itself.
        let works =
            bwrap_works(&path, root.then_some(NOBODY)) && (!root || bwrap_works(&path, None));
        if works {
            return Detected {
                isolation: Isolation::Bubblewrap,
                bwrap: Some(path),
            };
        }
        tracing::debug!(bwrap = %path.display(), "bwrap is installed but cannot create a sandbox here");
    }
    let isolation = if super::mountns::probe() {
        Isolation::MountNamespace
    } else if root {
        Isolation::UnprivilegedUid
    } else {
        Isolation::None
    };
    Detected {
        isolation,
        bwrap: None,
    }
}

pub(crate) fn find_bwrap() -> Option<PathBuf> {
    let from_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("bwrap"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    from_path
        .into_iter()
        .chain([
            PathBuf::from("/usr/bin/bwrap"),
            PathBuf::from("/usr/local/bin/bwrap"),
        ])
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Runs `true` in the same kind of sandbox the real runs use, as `as_user` when given (a root
/// grader's learner runs).
pub(crate) fn bwrap_works(bwrap: &Path, as_user: Option<u32>) -> bool {
    let mut command = Command::new(bwrap);
    command.args(["--ro-bind", "/usr", "/usr"]);
    for link in ["/bin", "/lib", "/lib64"] {
        if let Ok(target) = std::fs::read_link(link) {
            command.arg("--symlink").arg(target).arg(link);
        } else if Path::new(link).is_dir() {
            command.args(["--ro-bind", link, link]);
        }
    }
    command
        .args(["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"])
        .args(["--unshare-pid", "--die-with-parent"]);
    if as_user.is_some() || !nix::unistd::geteuid().is_root() {
        command.args(["--unshare-user", "--disable-userns"]);
    }
    command
        .args(["--", "true"])
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(uid) = as_user {
        // SAFETY: only raw syscalls between fork and exec.
        unsafe {
            command.pre_exec(move || become_user(uid, uid));
        }
    }
    match command.spawn() {
        Ok(child) => wait_briefly(child),
        Err(_) => false,
    }
}

/// Becomes `uid`/`gid` with no supplementary groups and `no_new_privs`: between fork and exec
/// (raw syscalls only). A root process loses every capability on the way.
pub(crate) fn become_user(uid: u32, gid: u32) -> std::io::Result<()> {
    use nix::libc;
    let check = |result: libc::c_int| {
        if result == -1 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(())
        }
    };
    // SAFETY: plain syscalls on integers.
    unsafe {
        check(libc::setgroups(0, std::ptr::null()))?;
        check(libc::setresgid(gid, gid, gid))?;
        check(libc::setresuid(uid, uid, uid))?;
        check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    }
}

/// Waits up to 10 s for a probe; kills it when it hangs.
pub(crate) fn wait_briefly(mut child: std::process::Child) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return false;
            }
        }
    }
}
