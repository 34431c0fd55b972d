//! A submission taken in: walked once (iteratively, so no depth of folders can exhaust the stack),
//! held to limits on depth, entries and bytes, fingerprinted, and copied into a directory only the
//! grader can reach. Everything after — file checks, replays, script runs — reads that copy; the
//! submission folder itself is never written, and a learner's run cannot change what is graded.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// How much of a tree is taken in. A lab folder holds a few dozen small files; these are far
/// above that and far below what would slow a grading down.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Folders inside folders, the submission itself being depth 0.
    pub depth: usize,
    /// Files, folders, links and other entries together.
    pub entries: usize,
    /// Bytes of regular files together.
    pub bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            depth: 32,
            entries: 10_000,
            bytes: 64 << 20,
        }
    }
}

/// Why a submission was not taken in, in the learner's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// The private copy of a submission, removed when dropped.
#[derive(Debug)]
pub struct Taken {
    dir: tempfile::TempDir,
    pub digest: String,
}

impl Taken {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// SHA-256 of a submission's tree (see [`walk`]) without copying it.
pub fn digest(root: &Path, limits: &Limits) -> Result<String, Refused> {
    walk(root, limits, None)
}

/// Copies `root` into a fresh private directory and fingerprints it on the way.
pub fn take(root: &Path, limits: &Limits) -> Result<Taken, Refused> {
    let dir = tempfile::Builder::new()
        .prefix("proctor-submission-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|error| Refused(format!("cannot make a private copy: {error}")))?;
    let digest = walk(root, limits, Some(dir.path()))?;
    Ok(Taken { dir, digest })
}

/// One folder being walked: its path below the root, its entries in name order, the next one.
struct Frame {
    rel: PathBuf,
    names: Vec<std::ffi::OsString>,
    next: usize,
}

/// Walks `root` depth first in name order, hashing every path with its type, its executable bit
/// and its bytes (a symlink's target, not what it points at), and copying each entry under
/// `copy_to` when given. Lengths go before contents, so that no two trees hash the same bytes.
fn walk(root: &Path, limits: &Limits, copy_to: Option<&Path>) -> Result<String, Refused> {
    let unreadable = |path: &Path, error: std::io::Error| {
        Refused(format!("cannot read {}: {error}", path.display()))
    };
    let mut hasher = Sha256::new();
    let (mut entries, mut bytes) = (0usize, 0u64);
    let mut stack = vec![Frame {
        rel: PathBuf::new(),
        names: sorted_names(root).map_err(|error| unreadable(root, error))?,
        next: 0,
    }];
    while let Some(frame) = stack.last_mut() {
        let Some(name) = frame.names.get(frame.next).cloned() else {
            stack.pop();
            if !stack.is_empty() {
                hasher.update(b"e");
            }
            continue;
        };
        frame.next += 1;
        let rel = frame.rel.join(&name);
        let path = root.join(&rel);
        entries += 1;
        if entries > limits.entries {
            return Err(Refused(format!(
                "the submission holds more than {} files and folders; remove what the lab does not ask for",
                limits.entries
            )));
        }
        let meta = std::fs::symlink_metadata(&path).map_err(|error| unreadable(&path, error))?;
        let rel_bytes = rel.as_os_str().as_encoded_bytes();
        hasher.update((rel_bytes.len() as u64).to_be_bytes());
        hasher.update(rel_bytes);
        let target = copy_to.map(|to| to.join(&rel));
        if meta.is_symlink() {
            let link = std::fs::read_link(&path).map_err(|error| unreadable(&path, error))?;
            hasher.update(b"l");
            let text = link.as_os_str().as_encoded_bytes();
            hasher.update((text.len() as u64).to_be_bytes());
            hasher.update(text);
            if let Some(target) = &target {
                std::os::unix::fs::symlink(&link, target)
                    .map_err(|error| copy_failed(target, error))?;
            }
        } else if meta.is_dir() {
            if rel.components().count() > limits.depth {
                return Err(Refused(format!(
                    "the submission nests folders more than {} deep ({}); submit the lab folder as it was",
                    limits.depth,
                    shorten(&rel)
                )));
            }
            hasher.update(b"d");
            if let Some(target) = &target {
                std::fs::create_dir(target).map_err(|error| copy_failed(target, error))?;
            }
            let names = sorted_names(&path).map_err(|error| unreadable(&path, error))?;
            stack.push(Frame {
                rel,
                names,
                next: 0,
            });
        } else if !meta.is_file() {
            // A FIFO or a device would block or never end: its type is its content; not copied.
            hasher.update(b"o");
        } else {
            bytes += meta.len();
            if bytes > limits.bytes {
                return Err(Refused(format!(
                    "the submission's files add up to more than {} MiB; remove what the lab does not ask for",
                    limits.bytes >> 20
                )));
            }
            let executable = meta.permissions().mode() & 0o111 != 0;
            hasher.update(if executable { b"x" } else { b"f" });
            hasher.update(meta.len().to_be_bytes());
            hash_and_copy(
                &path,
                target.as_deref(),
                &mut hasher,
                meta.permissions().mode(),
            )?;
        }
    }
    Ok(crate::batch::submissions::hex(&hasher.finalize()))
}

fn hash_and_copy(
    path: &Path,
    target: Option<&Path>,
    hasher: &mut Sha256,
    mode: u32,
) -> Result<(), Refused> {
    use std::io::Write;
    let unreadable =
        |error: std::io::Error| Refused(format!("cannot read {}: {error}", path.display()));
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let mut out = match target {
        Some(target) => {
            Some(std::fs::File::create(target).map_err(|error| copy_failed(target, error))?)
        }
        None => None,
    };
    let mut buffer = [0u8; 64 * 1024];
    loop {
        let read = file.read(&mut buffer).map_err(unreadable)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        if let (Some(out), Some(target)) = (out.as_mut(), target) {
            out.write_all(&buffer[..read])
                .map_err(|error| copy_failed(target, error))?;
        }
    }
    if let Some(target) = target {
        // Permission bits are part of what is graded (an exec bit, or its absence).
        std::fs::set_permissions(target, std::fs::Permissions::from_mode(mode & 0o777))
            .map_err(|error| copy_failed(target, error))?;
    }
    Ok(())
}

fn copy_failed(target: &Path, error: std::io::Error) -> Refused {
    Refused(format!(
        "the grader could not copy the submission ({}: {error})",
        target.display()
    ))
}

fn sorted_names(dir: &Path) -> std::io::Result<Vec<std::ffi::OsString>> {
    let mut names = std::fs::read_dir(dir)?
        .map(|entry| entry.map(|entry| entry.file_name()))
        .collect::<Result<Vec<_>, _>>()?;
    names.sort();
    Ok(names)
}

/// The first folders of a long path, for a message.
fn shorten(rel: &Path) -> String {
    let parts: Vec<_> = rel.components().take(4).collect();
    let head: PathBuf = parts.iter().collect();
    format!("{}/…", head.display())
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_copy_is_private_and_equal_and_the_digest_is_the_trees() {
        let original = tree(&[("out/a.txt", "1\n"), ("s.sh", "echo\n")]);
        std::fs::set_permissions(
            original.path().join("s.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .expect("chmod");
        std::os::unix::fs::symlink("out/a.txt", original.path().join("link")).expect("link");
        let taken = take(original.path(), &Limits::default()).expect("taken");
        let mode = |path: &Path| {
            std::fs::symlink_metadata(path)
                .expect("meta")
                .permissions()
                .mode()
        };
        assert_eq!(mode(taken.path()) & 0o777, 0o700);
        assert_eq!(mode(&taken.path().join("s.sh")) & 0o777, 0o755);
        assert_eq!(
            std::fs::read_to_string(taken.path().join("out/a.txt")).expect("read"),
            "1\n"
        );
        assert_eq!(
            std::fs::read_link(taken.path().join("link")).expect("link"),
            Path::new("out/a.txt")
        );
        assert_eq!(
            taken.digest,
            digest(original.path(), &Limits::default()).expect("digest")
        );
        assert_eq!(
            taken.digest,
            digest(taken.path(), &Limits::default()).expect("digest")
        );
    }

    /// 150 folders deep once overflowed a recursive walk's stack and ended the whole batch.
    #[test]
    fn deep_trees_are_refused_not_crashed_on() {
        let root = tempfile::tempdir().expect("tmp");
        let mut path = root.path().to_path_buf();
        for _ in 0..300 {
            path.push("d");
        }
        std::fs::create_dir_all(&path).expect("mkdir");
        let refused = take(root.path(), &Limits::default()).expect_err("refused");
        assert!(refused.0.contains("more than 32 deep"), "{refused}");
        let generous = Limits {
            depth: 1000,
            ..Limits::default()
        };
        // Within the limits, depth alone is no problem for the walk.
        assert!(digest(root.path(), &generous).is_ok());
    }

    #[test]
    fn too_many_entries_or_bytes_are_refused() {
        let root = tree(&[("a", "1"), ("b", "2"), ("c", "3")]);
        let few = Limits {
            entries: 2,
            ..Limits::default()
        };
        assert!(take(root.path(), &few)
            .expect_err("refused")
            .0
            .contains("more than 2 files"));
        let small = Limits {
            bytes: 2,
            ..Limits::default()
        };
        assert!(digest(root.path(), &small)
            .expect_err("refused")
            .0
            .contains("add up to more than"));
    }

    #[test]
    fn fifos_are_fingerprinted_without_being_read_or_copied() {
        let root = tree(&[("x", "1")]);
        nix::unistd::mkfifo(&root.path().join("pipe"), nix::sys::stat::Mode::S_IRWXU)
            .expect("mkfifo");
        let taken = take(root.path(), &Limits::default()).expect("taken");
        assert!(!taken.path().join("pipe").exists());
        std::fs::remove_file(root.path().join("pipe")).expect("rm");
        assert_ne!(
            taken.digest,
            digest(root.path(), &Limits::default()).expect("digest")
        );
    }
}
