//! The submissions of a batch: every entry of the submissions folder, one per learner, and what
//! identifies a grading of one (for `--resume`).

use std::path::{Path, PathBuf};

use anyhow::Context;

/// One learner's submission: a folder holding what their lab dir held at the end. Anything else
/// found in the submissions folder is listed too, to be reported as malformed, not skipped.
#[derive(Debug, Clone)]
pub struct Submission {
    pub name: String,
    pub path: PathBuf,
}

/// The entries of `dir` in name order; names starting with a dot (editor and VCS files, the
/// batch's own bookkeeping) are not submissions.
pub fn list(dir: &Path) -> anyhow::Result<Vec<Submission>> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("reading the submissions folder {}", dir.display()))?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        found.push(Submission {
            name,
            path: entry.path(),
        });
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

/// Whether `submission` is, or holds, one of the batch's own outputs (its reports folder, a
/// gradebook), given as [`resolve`]d paths: `--submissions .` must not grade its own reports.
pub fn holds_output(submission: &Submission, outputs: &[PathBuf]) -> bool {
    let path = resolve(&submission.path);
    outputs.iter().any(|output| output.starts_with(&path))
}

/// `path` made absolute with links and `..` resolved as far as it exists (an output may not exist
/// yet: its existing ancestor is resolved and the rest appended).
pub fn resolve(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut missing = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        if let Ok(found) = existing.canonicalize() {
            return missing
                .iter()
                .rev()
                .fold(found, |path, part| path.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// Whether `dir` holds no file at any depth (folders only, or nothing): a learner who handed
/// nothing in, told apart from one whose work failed. Unreadable folders are left to
/// [`malformed`] and the digest.
pub fn is_empty(dir: &Path) -> bool {
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            return false;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => folders.push(entry.path()),
                _ => return false,
            }
        }
    }
    true
}

/// Why `submission` cannot be graded at all, if it cannot: it must be a readable folder (a
/// symlink to one is the grader's own arrangement and is followed).
pub fn malformed(submission: &Submission) -> Option<String> {
    let path = &submission.path;
    match std::fs::metadata(path) {
        Err(error) => Some(format!("cannot read {}: {error}", path.display())),
        Ok(meta) if !meta.is_dir() => Some(format!(
            "{} is a file, not a lab folder (unpack archives before grading)",
            path.display()
        )),
        Ok(_) => std::fs::read_dir(path)
            .err()
            .map(|error| format!("cannot list {}: {error}", path.display())),
    }
}

/// SHA-256 of a submission's tree (see [`crate::intake`]): two submissions with the same digest
/// are graded alike. A tree over the intake's limits, or with an unreadable entry, is refused with
/// the reason.
pub fn digest(dir: &Path) -> Result<String, crate::intake::Refused> {
    crate::intake::digest(dir, &crate::intake::Limits::default())
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_of_empty_folders_is_empty() {
        let dir = tempfile::tempdir().expect("tmp");
        assert!(is_empty(dir.path()));
        std::fs::create_dir_all(dir.path().join("out/k8s")).expect("mkdir");
        assert!(is_empty(dir.path()));
        std::fs::write(dir.path().join("out/k8s/.keep"), "").expect("write");
        assert!(!is_empty(dir.path()));
    }

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tmp");
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        dir
    }

    #[test]
    fn digest_follows_content_names_and_modes() {
        let a = tree(&[("out/a.txt", "1\n"), ("s.sh", "echo\n")]);
        let same = tree(&[("s.sh", "echo\n"), ("out/a.txt", "1\n")]);
        let digest = |dir: &tempfile::TempDir| super::digest(dir.path()).expect("digest");
        assert_eq!(digest(&a), digest(&same));

        let content = tree(&[("out/a.txt", "2\n"), ("s.sh", "echo\n")]);
        let renamed = tree(&[("out/b.txt", "1\n"), ("s.sh", "echo\n")]);
        // Moving bytes between a name and a content must change the digest.
        let shifted = tree(&[("out/a.txt1", "\n"), ("s.sh", "echo\n")]);
        for other in [&content, &renamed, &shifted] {
            assert_ne!(digest(&a), digest(other));
        }

        use std::os::unix::fs::PermissionsExt;
        let executable = tree(&[("out/a.txt", "1\n"), ("s.sh", "echo\n")]);
        let script = executable.path().join("s.sh");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert_ne!(digest(&a), digest(&executable));
    }

    #[test]
    fn a_fifo_is_hashed_without_being_read() {
        let a = tree(&[("x", "1")]);
        let fifo = a.path().join("pipe");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
        // Reading the FIFO would block this test forever.
        let with = digest(a.path()).expect("digest");
        std::fs::remove_file(&fifo).expect("rm");
        assert_ne!(with, digest(a.path()).expect("digest"));
    }

    #[test]
    fn a_batch_knows_its_own_outputs() {
        let root = tree(&[("alice/s.sh", "x"), ("reports/alice.json", "{}")]);
        let found = list(root.path()).expect("list");
        let outputs = [
            resolve(&root.path().join("reports/../reports")),
            resolve(&root.path().join("grades/new.csv")),
        ];
        let holds: Vec<bool> = found.iter().map(|s| holds_output(s, &outputs)).collect();
        assert_eq!(holds, [false, true]);
        assert_eq!(
            resolve(&root.path().join("grades/new.csv")),
            root.path()
                .canonicalize()
                .expect("canonical")
                .join("grades/new.csv")
        );
    }

    #[test]
    fn links_are_hashed_not_followed() {
        let a = tree(&[("x", "1")]);
        std::os::unix::fs::symlink("/etc/hostname", a.path().join("link")).expect("symlink");
        let b = tree(&[("x", "1")]);
        std::os::unix::fs::symlink("/etc/hosts", b.path().join("link")).expect("symlink");
        assert_ne!(digest(a.path()).expect("a"), digest(b.path()).expect("b"));
    }

    #[test]
    fn lists_folders_and_files_skips_dotfiles_and_flags_the_malformed() {
        let root = tree(&[
            ("bob/s.sh", "x"),
            ("alice/out/a.txt", "1"),
            ("carol.zip", "PK"),
        ]);
        std::fs::create_dir(root.path().join(".git")).expect("mkdir");
        let found = list(root.path()).expect("list");
        let names: Vec<_> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["alice", "bob", "carol.zip"]);
        assert!(malformed(&found[0]).is_none());
        let why = malformed(&found[2]).expect("a file is malformed");
        assert!(why.contains("is a file"), "{why}");
        assert!(list(&root.path().join("missing")).is_err());
    }
}
