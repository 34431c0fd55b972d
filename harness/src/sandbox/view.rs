//! The file system a sandboxed script sees, computed on the host side and then realised either by
//! bubblewrap or by our own mount namespace. It is built up from nothing (an allow list, not a
//! list of what to hide), so a class kept under `/home`, `/srv` or `/root` is simply not there:
//! - the system directories a shell and its tools need, read-only (`/usr`, `/etc`, the `/bin` and
//!   `/lib` links or directories), with the host's secrets inside them masked (see `private`);
//! - the directories holding the tools on the run's `PATH` that lie elsewhere, read-only;
//! - the absolute paths named in the run's environment (its kubeconfig and the files it names,
//!   the kubectl cache seed, a reference shell's `$SCENARIO_DIR`), read-only at the same path;
//! - a private, writable `/tmp` and `HOME`, and a fresh `/dev` and `/proc` (made by the backend);
//! - the run dir, read-write, at the lab's absolute path.
//!
//! A grader path the run must not see ([`super::RunSpec::hidden`], the grader's repository,
//! `PROCTOR_PRIVATE_PATHS`) is masked wherever it lies inside something shown. Mounts are listed
//! outermost first ([`View::mounts`]), so that a path is always mounted after the ones enclosing it.

use std::path::{Path, PathBuf};

/// The host directories every run sees read-only (or as the host's symlinks, on merged-`/usr`
/// systems).
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
];

#[derive(Debug, Clone)]
pub(crate) struct View {
    pub run_dir: PathBuf,
    pub map_at: PathBuf,
    /// What to mount, outermost first.
    pub mounts: Vec<Mount>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mount {
    /// A host path bound read-only at the same path.
    ReadOnly { path: PathBuf, is_dir: bool },
    /// A host symlink made again (`/bin -> usr/bin`).
    Symlink { path: PathBuf, target: PathBuf },
    /// A private, writable tmpfs: `/tmp` (sticky, for everyone) or the run's home (its own).
    Tmpfs { path: PathBuf, shared: bool },
    /// A path inside something shown that the run must not see: an empty tmpfs over a
    /// directory, `/dev/null` over a file.
    Mask { path: PathBuf, is_dir: bool },
    /// The run dir, read-write, at `map_at`.
    Lab,
}

impl Mount {
    pub(crate) fn path<'a>(&'a self, view: &'a View) -> &'a Path {
        match self {
            Mount::ReadOnly { path, .. }
            | Mount::Symlink { path, .. }
            | Mount::Tmpfs { path, .. }
            | Mount::Mask { path, .. } => path,
            Mount::Lab => &view.map_at,
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Mount::Symlink { .. } | Mount::ReadOnly { .. } | Mount::Tmpfs { .. } => 0,
            Mount::Mask { .. } => 1,
            Mount::Lab => 2,
        }
    }
}

/// The home a run gets: the directory holding the lab dir, as in the lab (`/root` for
/// `/root/gpudrv`), unless that is `/` or a system directory.
pub(crate) fn home_for(map_at: &Path) -> PathBuf {
    match map_at.parent() {
        Some(parent) if parent != Path::new("/") && !is_system(parent) => parent.to_path_buf(),
        _ => PathBuf::from("/tmp/home"),
    }
}

fn is_system(path: &Path) -> bool {
    SYSTEM.iter().any(|dir| path.starts_with(dir))
}

/// Builds the view for a run. `named` are the absolute paths named in the run's environment (the
/// `PATH` entries among them), `hidden` the grader's paths no run may see.
pub(crate) fn plan(
    run_dir: &Path,
    map_at: &Path,
    named: &[PathBuf],
    hidden: &[PathBuf],
) -> Result<View, String> {
    if !map_at.is_absolute() {
        return Err(format!(
            "the lab dir {} is not an absolute path",
            map_at.display()
        ));
    }
    let map_at = lexically_normal(map_at);
    if map_at == Path::new("/") || is_system(&map_at) {
        return Err(format!(
            "the lab dir {} would hide the system directories a script needs",
            map_at.display()
        ));
    }
    let home = home_for(&map_at);
    let mut mounts = Vec::new();
    for dir in SYSTEM {
        let path = Path::new(dir);
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_symlink() => {
                if let Ok(target) = std::fs::read_link(path) {
                    mounts.push(Mount::Symlink {
                        path: path.to_path_buf(),
                        target,
                    });
                }
            }
            Ok(meta) if meta.is_dir() => mounts.push(Mount::ReadOnly {
                path: path.to_path_buf(),
                is_dir: true,
            }),
            _ => {}
        }
    }
    mounts.push(Mount::Tmpfs {
        path: "/tmp".into(),
        shared: true,
    });
    mounts.push(Mount::Tmpfs {
        path: home.clone(),
        shared: false,
    });
    let shown: Vec<PathBuf> = exposures(named, &map_at, &home);
    for path in &shown {
        mounts.push(Mount::ReadOnly {
            is_dir: path.is_dir(),
            path: path.clone(),
        });
    }
    for (path, is_dir) in masks(hidden) {
        if path.starts_with(&map_at) {
            continue;
        }
        let inside_shown =
            is_system(&path) || shown.iter().any(|s| path != *s && path.starts_with(s));
        if inside_shown {
            mounts.push(Mount::Mask { path, is_dir });
        }
    }
    mounts.push(Mount::Lab);
    let mut view = View {
        run_dir: run_dir.to_path_buf(),
        map_at,
        mounts: Vec::new(),
    };
    mounts.sort_by_key(|mount| (mount.path(&view).components().count(), mount.rank()));
    view.mounts = mounts;
    Ok(view)
}

/// The named paths to bind back: those that exist, outside the system directories (already
/// shown), that do not sit inside the lab dir (the run's own) and hold neither it nor the home.
/// A path named through a symlink is bound at the name, from where it leads.
fn exposures(named: &[PathBuf], map_at: &Path, home: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for path in named {
        let path = lexically_normal(path);
        if !path.exists() || path == Path::new("/") || is_system(&path) {
            continue;
        }
        // Inside the home is fine (bound over its tmpfs); the lab dir is the run's own, and an
        // ancestor of either would cover them.
        let clashes =
            path.starts_with(map_at) || map_at.starts_with(&path) || home.starts_with(&path);
        let special = ["/proc", "/dev", "/sys"]
            .iter()
            .any(|virtual_tree| path.starts_with(virtual_tree));
        if clashes || special || out.contains(&path) {
            continue;
        }
        out.push(path);
    }
    out
}

/// The grader's paths to mask where something shown holds them, resolved on the host.
fn masks(hidden: &[PathBuf]) -> Vec<(PathBuf, bool)> {
    let mut paths: Vec<PathBuf> = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        paths.extend(repository_root(&exe));
    }
    if let Ok(cwd) = std::env::current_dir() {
        paths.extend(repository_root(&cwd));
    }
    paths.extend(hidden.iter().cloned());
    paths.extend(super::private::host_secrets());
    if let Some(extra) = std::env::var_os("PROCTOR_PRIVATE_PATHS") {
        paths.extend(std::env::split_paths(&extra).filter(|p| p.is_absolute()));
    }
    let mut out: Vec<(PathBuf, bool)> = Vec::new();
    for path in paths {
        for candidate in [Some(path.clone()), std::fs::canonicalize(&path).ok()]
            .into_iter()
            .flatten()
        {
            let Ok(meta) = std::fs::metadata(&candidate) else {
                continue;
            };
            if candidate != Path::new("/") && !out.iter().any(|(p, _)| *p == candidate) {
                out.push((candidate, meta.is_dir()));
            }
        }
    }
    out
}

/// The nearest ancestor of `start` that looks like the grader's repository.
fn repository_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join("Cargo.toml").is_file() && dir.join("scenarios").is_dir())
        .map(Path::to_path_buf)
}

/// Removes `.` and resolves `..` without touching the file system.
pub(crate) fn lexically_normal(path: &Path) -> PathBuf {
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
