//! The file-system view a sandboxed script gets, computed on the host side and then realised either
//! by bubblewrap or by our own mount namespace:
//! - everything read-only;
//! - *masked* (replaced by an empty private tmpfs): the temp dirs (`/tmp`, `/var/tmp`, `$TMPDIR`),
//!   the grader's repository (found from the executable and the cwd: a dir holding `Cargo.toml` and
//!   `scenarios/`), the loaded labs' dirs and the reference cache (see `private`), and any dir
//!   listed in `PROCTOR_PRIVATE_PATHS` (colon-separated);
//! - *exposed* again, read-only at the same path: absolute paths named in the run's environment that
//!   lie under a mask (the kubeconfig of an embedded cluster in `/tmp`, `$SCENARIO_DIR`);
//! - the run dir bound read-write at `map_at`. When `map_at` does not exist on the host, its deepest
//!   existing ancestor is *expanded*: replaced by a tmpfs in which each of its entries is bound back,
//!   so the mount point can be created without touching the host.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub(crate) struct View {
    pub run_dir: PathBuf,
    pub map_at: PathBuf,
    pub masks: Vec<Entry>,
    pub exposes: Vec<Entry>,
    pub expand: Option<Expansion>,
}

/// A host path and whether it is a directory (directories are masked by a tmpfs, files by
/// `/dev/null`; the mount point created for an exposed path has the same type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub path: PathBuf,
    pub is_dir: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Expansion {
    pub at: PathBuf,
    pub children: Vec<Child>,
}

#[derive(Debug, Clone)]
pub(crate) struct Child {
    pub name: OsString,
    pub kind: ChildKind,
}

#[derive(Debug, Clone)]
pub(crate) enum ChildKind {
    Dir,
    File,
    Symlink(PathBuf),
}

/// Builds the view for a run. `named` are the absolute paths named in the run's environment.
pub(crate) fn plan(run_dir: &Path, map_at: &Path, named: &[PathBuf]) -> Result<View, String> {
    if !map_at.is_absolute() {
        return Err(format!(
            "the lab dir {} is not an absolute path",
            map_at.display()
        ));
    }
    let map_at = lexically_normal(map_at);
    let mut masks = masks(&map_at);
    let mut exposes = exposes(named, &masks, &map_at);
    // A path the run names that is itself a mask (a reference shell's `$SCENARIO_DIR`, a private
    // dir) simply stays as the host has it, read-only: hiding it and binding it back would, in a
    // mount namespace, bind the mask along with it (binds are recursive).
    let exact = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    masks.retain(|mask| !exposes.iter().any(|e| exact(&e.path) == mask.path));
    exposes.retain(|e| {
        masks
            .iter()
            .any(|mask| e.path.starts_with(&mask.path) || exact(&e.path).starts_with(&mask.path))
    });
    let expand = expansion(&map_at, &masks)?;
    Ok(View {
        run_dir: run_dir.to_path_buf(),
        map_at,
        masks,
        exposes,
        expand,
    })
}

fn masks(map_at: &Path) -> Vec<Entry> {
    let mut candidates: Vec<PathBuf> = vec![
        "/tmp".into(),
        "/var/tmp".into(),
        "/dev/shm".into(),
        std::env::temp_dir(),
    ];
    if let Ok(exe) = std::env::current_exe() {
        candidates.extend(repository_root(&exe));
    }
    if let Ok(cwd) = std::env::current_dir() {
        candidates.extend(repository_root(&cwd));
    }
    candidates.extend(super::private::private_paths());
    if let Some(extra) = std::env::var_os("PROCTOR_PRIVATE_PATHS") {
        candidates.extend(std::env::split_paths(&extra).filter(|p| p.is_absolute()));
    }
    let mut resolved: Vec<Entry> = Vec::new();
    for candidate in candidates {
        let Ok(path) = std::fs::canonicalize(&candidate) else {
            continue;
        };
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        // Never hide the root, the lab dir or anything inside it.
        if path == Path::new("/") || path.starts_with(map_at) {
            continue;
        }
        if !resolved.iter().any(|e| e.path == path) {
            resolved.push(Entry {
                path,
                is_dir: meta.is_dir(),
            });
        }
    }
    // A mask inside another mask is already hidden.
    let outer: Vec<Entry> = resolved
        .iter()
        .filter(|e| {
            !resolved
                .iter()
                .any(|o| o.path != e.path && e.path.starts_with(&o.path))
        })
        .cloned()
        .collect();
    outer
}

/// The nearest ancestor of `start` that looks like the grader's repository.
fn repository_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join("Cargo.toml").is_file() && dir.join("scenarios").is_dir())
        .map(Path::to_path_buf)
}

fn exposes(named: &[PathBuf], masks: &[Entry], map_at: &Path) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for path in named {
        let path = lexically_normal(path);
        let hidden = masks.iter().any(|m| path.starts_with(&m.path))
            || std::fs::canonicalize(&path)
                .map(|real| masks.iter().any(|m| real.starts_with(&m.path)))
                .unwrap_or(false);
        if !hidden || path.starts_with(map_at) || path == Path::new("/") {
            continue;
        }
        let is_dir = path.is_dir();
        if !out.iter().any(|e| e.path == path) {
            out.push(Entry { path, is_dir });
        }
    }
    let all = out.clone();
    out.retain(|e| {
        !all.iter()
            .any(|o| o.path != e.path && o.is_dir && e.path.starts_with(&o.path))
    });
    out
}

fn expansion(map_at: &Path, masks: &[Entry]) -> Result<Option<Expansion>, String> {
    match std::fs::metadata(map_at) {
        Ok(meta) if meta.is_dir() => return Ok(None),
        Ok(_) => {
            return Err(format!(
                "the lab dir {} exists on this machine and is not a directory",
                map_at.display()
            ))
        }
        Err(_) => {}
    }
    // Inside a mask the mount point is created in the private tmpfs.
    if masks
        .iter()
        .any(|m| m.is_dir && map_at.starts_with(&m.path))
    {
        return Ok(None);
    }
    let Some(at) = map_at.ancestors().skip(1).find(|a| a.exists()) else {
        return Err(format!("no parent of {} exists", map_at.display()));
    };
    if !at.is_dir() {
        return Err(format!(
            "{} is not a directory, so {} cannot be created",
            at.display(),
            map_at.display()
        ));
    }
    let entries =
        std::fs::read_dir(at).map_err(|e| format!("cannot list {}: {e}", at.display()))?;
    let mut children = Vec::new();
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let kind = if kind.is_symlink() {
            match std::fs::read_link(entry.path()) {
                Ok(target) => ChildKind::Symlink(target),
                Err(_) => continue,
            }
        } else if kind.is_dir() {
            ChildKind::Dir
        } else {
            ChildKind::File
        };
        children.push(Child {
            name: entry.file_name(),
            kind,
        });
    }
    Ok(Some(Expansion {
        at: at.to_path_buf(),
        children,
    }))
}

/// Removes `.` and resolves `..` without touching the file system.
fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
