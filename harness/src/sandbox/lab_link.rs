//! The lab's absolute path without namespaces: a root grader makes `/root/gpudrv` a symbolic link
//! to the run dir for the length of one run. There is one such path per lab on the machine, so
//! runs that need it take turns (an exclusive `flock` per path, which also holds between grader
//! processes).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The link, removed (and the turn given up) when dropped.
pub(crate) struct LabLink {
    path: PathBuf,
    _turn: nix::fcntl::Flock<std::fs::File>,
}

impl Drop for LabLink {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Waits for the turn at `map_at`, then links it to `run_dir`. `uid`, the run's own, must be able
/// to reach it: each ancestor must be searchable by other users (the grader's to grant, as the
/// Gradescope bundle does for `/root`; Proctor does not change a host's permissions itself).
pub(crate) fn place(map_at: &Path, run_dir: &Path, uid: Option<u32>) -> Result<LabLink, String> {
    if uid.is_some() {
        for ancestor in map_at.ancestors().skip(1) {
            let Ok(meta) = std::fs::metadata(ancestor) else {
                continue;
            };
            if meta.mode() & 0o001 == 0 {
                return Err(format!(
                    "scripts run as an unprivileged uid cannot reach the lab dir {}: {} is not searchable by other users (chmod o+x {})",
                    map_at.display(),
                    ancestor.display(),
                    ancestor.display()
                ));
            }
        }
    }
    let lock_dir = super::identity::lock_dir().map_err(|error| error.to_string())?;
    let name: String = map_at
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_dir.join(format!("lab{name}")))
        .map_err(|error| format!("taking a turn at {}: {error}", map_at.display()))?;
    let turn = nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, error)| format!("taking a turn at {}: {error}", map_at.display()))?;
    match std::fs::symlink_metadata(map_at) {
        // Left by a grader that was killed mid-run.
        Ok(meta) if meta.is_symlink() => {
            let _ = std::fs::remove_file(map_at);
        }
        Ok(_) => {
            return Err(format!(
                "the lab dir {} exists on this machine: without namespaces the run must be placed there (move it away)",
                map_at.display()
            ))
        }
        Err(_) => {}
    }
    if let Some(parent) = map_at.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|error| format!("creating {}: {error}", parent.display()))?;
    }
    std::os::unix::fs::symlink(run_dir, map_at)
        .map_err(|error| format!("linking {} to the run: {error}", map_at.display()))?;
    Ok(LabLink {
        path: map_at.to_path_buf(),
        _turn: turn,
    })
}
