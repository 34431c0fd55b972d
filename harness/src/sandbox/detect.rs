//! Which isolation this machine offers, probed once per process.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isolation {
    Bubblewrap,
    MountNamespace,
    None,
}

impl Isolation {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Isolation::Bubblewrap => "bubblewrap",
            Isolation::MountNamespace => "mount-namespace",
            Isolation::None => "none",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Detected {
    pub isolation: Isolation,
    /// The `bwrap` binary, when isolation is bubblewrap.
    pub bwrap: Option<PathBuf>,
}

/// `"bubblewrap"`, `"mount-namespace"` or `"none"`: what [`super::run`] will use. Probed once (a
/// `bwrap` that is installed but cannot create namespaces, e.g. in a restricted container, is not
/// used). The environment variable `PROCTOR_SANDBOX` forces a choice.
pub fn isolation_available() -> &'static str {
    detected().isolation.name()
}

pub(crate) fn detected() -> &'static Detected {
    static DETECTED: OnceLock<Detected> = OnceLock::new();
    DETECTED.get_or_init(|| {
        let bwrap = find_bwrap();
        let forced = std::env::var("PROCTOR_SANDBOX").ok();
        let detected = match forced.as_deref() {
            Some("bubblewrap") if bwrap.is_some() => Detected {
                isolation: Isolation::Bubblewrap,
                bwrap,
            },
            Some("mount-namespace") => Detected {
                isolation: Isolation::MountNamespace,
                bwrap: None,
            },
            Some("none") => Detected {
                isolation: Isolation::None,
                bwrap: None,
            },
            _ => probe_best(bwrap),
        };
        tracing::debug!(isolation = detected.isolation.name(), "script sandbox");
        detected
    })
}

fn probe_best(bwrap: Option<PathBuf>) -> Detected {
    if let Some(path) = bwrap {
        if bwrap_works(&path) {
            return Detected {
                isolation: Isolation::Bubblewrap,
                bwrap: Some(path),
            };
        }
        tracing::debug!(bwrap = %path.display(), "bwrap is installed but cannot create a sandbox here");
    }
    if super::mountns::probe() {
        return Detected {
            isolation: Isolation::MountNamespace,
            bwrap: None,
        };
    }
    Detected {
        isolation: Isolation::None,
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

/// Runs `true` in the same kind of sandbox the real runs use.
pub(crate) fn bwrap_works(bwrap: &Path) -> bool {
    let spawned = Command::new(bwrap)
        .args([
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
        ])
        .args(["--unshare-pid", "--die-with-parent", "--", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match spawned {
        Ok(child) => wait_briefly(child),
        Err(_) => false,
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
