//! Lab directories on disk: copies of reference states, learner files overlaid on them.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;

pub use crate::tree::{copy_dir, copy_file, remove_entry};

/// Copies the files of `from` that `to` does not have (a learner's helper files next to the
/// reference state), leaving every existing file of `to` as it is. Iterative, like every walk of
/// a learner's tree.
pub fn copy_missing(from: &Path, to: &Path) -> anyhow::Result<()> {
    let mut pending = vec![(from.to_path_buf(), to.to_path_buf())];
    while let Some((from, to)) = pending.pop() {
        let Ok(entries) = fs::read_dir(&from) else {
            continue;
        };
        for entry in entries.flatten() {
            let source = entry.path();
            let target = to.join(entry.file_name());
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => {
                    if target.exists() && !target.is_dir() {
                        continue;
                    }
                    fs::create_dir_all(&target)
                        .with_context(|| format!("creating {}", target.display()))?;
                    pending.push((source, target));
                }
                Ok(kind) if kind.is_file() && !target.exists() => copy_file(&source, &target)?,
                _ => {}
            }
        }
    }
    Ok(())
}

/// A fresh temporary directory holding a copy of `base` (which may be absent: then empty).
pub fn scratch_copy(base: &Path) -> anyhow::Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new()
        .prefix("proctor-run-")
        .tempdir()
        .context("creating a run directory")?;
    copy_dir(base, dir.path())?;
    Ok(dir)
}

/// Files compared or parsed are read up to this size; an output file bigger than that is
/// wrong anyway, and must not exhaust the grader's memory.
pub const MAX_LAB_FILE: u64 = 16 << 20;

/// Reads a file of a lab dir, or None when it is missing (a directory counts as missing).
pub fn read_lab_file(dir: &Path, relative: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let path = dir.join(relative);
    if !path.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    fs::File::open(path)
        .and_then(|file| file.take(MAX_LAB_FILE).read_to_end(&mut bytes))
        .ok()?;
    Some(bytes)
}

/// `dir/relative` if it is a file.
pub fn lab_file(dir: &Path, relative: &Path) -> Option<PathBuf> {
    let path = dir.join(relative);
    path.is_file().then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn copies_keep_exec_bits() {
        let from = tempfile::tempdir().expect("tempdir");
        fs::create_dir_all(from.path().join("out")).expect("mkdir");
        fs::write(from.path().join("run.sh"), "#!/bin/sh\n").expect("write");
        fs::set_permissions(
            from.path().join("run.sh"),
            fs::Permissions::from_mode(0o755),
        )
        .expect("chmod");
        fs::write(from.path().join("out/a.txt"), "a").expect("write");
        let to = scratch_copy(from.path()).expect("copy");
        let mode = fs::metadata(to.path().join("run.sh"))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111);
        assert_eq!(
            read_lab_file(to.path(), Path::new("out/a.txt")),
            Some(b"a".to_vec())
        );
        assert_eq!(read_lab_file(to.path(), Path::new("out")), None);
    }

    #[test]
    fn fifos_are_skipped() {
        let from = tempfile::tempdir().expect("tempdir");
        nix::unistd::mkfifo(&from.path().join("pipe"), nix::sys::stat::Mode::S_IRWXU)
            .expect("mkfifo");
        fs::write(from.path().join("a.txt"), "a").expect("write");
        let to = scratch_copy(from.path()).expect("copy does not block on the FIFO");
        assert!(to.path().join("a.txt").is_file());
        assert!(!to.path().join("pipe").exists());
    }

    #[test]
    fn copying_a_missing_dir_gives_an_empty_one() {
        let to = scratch_copy(Path::new("/nonexistent/proctor")).expect("copy");
        assert_eq!(fs::read_dir(to.path()).expect("read").count(), 0);
    }
}
