//! The grader's own files that live where a script could otherwise read them (the file system is
//! visible read-only): the directories of the labs it loaded, which hold the reference solution
//! (`reference/`), and the reference cache, which holds every reference lab dir R_n and cluster
//! snapshot S_n. Both may be anywhere (`--scenarios /srv/labs`, `~/.cache/proctor`), unlike the
//! temp dirs and the repository that [`super::view`] always hides.
//!
//! A run that names one of these paths in its environment (a reference shell gets
//! `SCENARIO_DIR`) still sees it, read-only: `view` exposes named paths again.
//!
//! Also hidden: the grading host's own secrets, which a script run as root could otherwise print
//! into the report its author reads (password hashes, SSH keys). No lab script needs them.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

const HOST_SECRETS: [&str; 5] = [
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssh",
];

/// Hides `path` from every script run from now on (unless the run names it).
pub fn keep_private(path: &Path) {
    let mut registered = REGISTERED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if !registered.iter().any(|p| p == path) {
        registered.push(path.to_path_buf());
    }
}

/// The registered paths and the reference cache.
pub(crate) fn private_paths() -> Vec<PathBuf> {
    let mut paths = REGISTERED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone();
    paths.extend(crate::cache_dir::cache_root());
    paths.extend(HOST_SECRETS.iter().map(PathBuf::from));
    if let Some(home) = std::env::var_os("HOME").filter(|value| !value.is_empty()) {
        paths.push(PathBuf::from(home).join(".ssh"));
    }
    paths
}
