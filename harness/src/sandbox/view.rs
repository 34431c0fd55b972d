//! The file-system view a sandboxed script gets, computed on the host side and then realised either
//! by bubblewrap or by our own mount namespace:
//! - everything read-only;
//! - *masked* (replaced by an empty private tmpfs, or `/dev/null` for a file): the temp dirs (`/tmp`,
//!   `/var/tmp`, `$TMPDIR`), the grader's repository (found from the executable and the cwd: a dir
//!   holding `Cargo.toml` and `scenarios/`), the run's hidden paths (the lab's dir, the reference
//!   cache: [`super::RunSpec::hidden`]), the host's secrets (see `private`), and any dir listed in
//!   `PROCTOR_PRIVATE_PATHS` (colon-separated);
//! - *exposed* again, read-only at the same path: absolute paths named in the run's environment that
//!   lie under a mask (the kubeconfig of an embedded cluster in `/tmp`, `$HOME`, `$SCENARIO_DIR`);
//! - the run dir bound read-write at `map_at`. When `map_at` does not exist on the host, its deepest
//!   existing ancestor is *expanded*: replaced by a tmpfs in which each of its entries is bound back,
//!   so the mount point can be created without touching the host.
//!
//! Masks and exposures nest: `HOME=/tmp/x` is exposed under the `/tmp` mask, and a reference cache
//! at `/tmp/x/.cache/proctor` is masked again inside that exposure. What a path shows is decided by
//! the deepest mask or exposure above it, so the layers are mounted outermost first
//! ([`View::layers`]) and a layer that would repeat the one above it is left out.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub(crate) struct View {
    pub run_dir: PathBuf,
    pub map_at: PathBuf,
    /// What to mount, in order: every layer comes after the layers whose paths enclose its own.
    pub layers: Vec<Layer>,
}

#[derive(Debug, Clone)]
pub(crate) enum Layer {
    /// Hide a path: a private tmpfs over a directory, `/dev/null` over a file.
    Mask(Entry),
    /// Bind a host path back, read-only, at the same path.
    Expose(Entry),
    /// Replace an existing ancestor of `map_at` by a tmpfs holding its entries.
    Expand(Expansion),
    /// Bind the run dir, read-write, at `map_at`.
    Lab,
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

impl View {
    pub(crate) fn expansion(&self) -> Option<&Expansion> {
        self.layers.iter().find_map(|layer| match layer {
            Layer::Expand(expansion) => Some(expansion),
            _ => None,
        })
    }

    pub(crate) fn exposes(&self) -> impl Iterator<Item = &Entry> {
        self.layers.iter().filter_map(|layer| match layer {
            Layer::Expose(entry) => Some(entry),
            _ => None,
        })
    }
}

/// Builds the view for a run. `named` are the absolute paths named in the run's environment,
/// `hidden` the grader's paths this run must not see unless it names them.
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
    let candidates = candidates(&map_at, named, hidden);
    let mut layers: Vec<(PathBuf, Layer)> = needed(&candidates)
        .into_iter()
        .map(|c| {
            let entry = Entry {
                path: c.path.clone(),
                is_dir: c.is_dir,
            };
            let layer = if c.mask {
                Layer::Mask(entry)
            } else {
                Layer::Expose(entry)
            };
            (c.path, layer)
        })
        .collect();
    if let Some(expansion) = expansion(&map_at, &layers)? {
        layers.push((expansion.at.clone(), Layer::Expand(expansion)));
    }
    layers.push((map_at.clone(), Layer::Lab));
    // Outermost first; at one path a mask or exposure comes before what is built on it.
    layers.sort_by_key(|(path, layer)| (path.components().count(), rank(layer)));
    Ok(View {
        run_dir: run_dir.to_path_buf(),
        map_at,
        layers: layers.into_iter().map(|(_, layer)| layer).collect(),
    })
}

fn rank(layer: &Layer) -> u8 {
    match layer {
        Layer::Mask(_) => 0,
        Layer::Expose(_) => 1,
        Layer::Expand(_) => 2,
        Layer::Lab => 3,
    }
}

/// A mask or an exposure before pruning. `path` is where it is mounted (for an exposure, the path
/// as the run names it), `real` where it leads on the host.
#[derive(Debug, Clone)]
struct Candidate {
    path: PathBuf,
    real: PathBuf,
    is_dir: bool,
    mask: bool,
}

fn candidates(map_at: &Path, named: &[PathBuf], hidden: &[PathBuf]) -> Vec<Candidate> {
    let exposes = exposures(named, map_at);
    let mut out: Vec<Candidate> = masks(map_at, hidden)
        .into_iter()
        // A path the run names that is itself a mask (a reference shell's `$SCENARIO_DIR`) stays
        // as the host has it: hiding it and binding it back would, in a mount namespace, bind the
        // mask along with it (binds are recursive).
        .filter(|mask| !exposes.iter().any(|e| e.real == mask.real))
        .collect();
    out.extend(exposes);
    out
}

/// The candidates that change what a path shows: a mask whose nearest enclosing layer is an
/// exposure (or that has none), an exposure whose nearest enclosing layer is a mask. The others
/// repeat what the layer above them already shows.
fn needed(candidates: &[Candidate]) -> Vec<Candidate> {
    let nearest = |path: &Path, me: usize| {
        candidates
            .iter()
            .enumerate()
            .filter(|(i, o)| *i != me && o.is_dir && o.real != path && path.starts_with(&o.real))
            .max_by_key(|(_, o)| o.real.components().count())
            .map(|(_, o)| o.mask)
    };
    candidates
        .iter()
        .enumerate()
        .filter(|(i, c)| {
            if c.mask {
                nearest(&c.real, *i) != Some(true)
            } else {
                // Named through a link out of a hidden place (`/tmp/kubeconfig` → elsewhere), the
                // path itself must be made in the mask even when its target is visible.
                nearest(&c.real, *i) == Some(true)
                    || (c.path != c.real && nearest(&c.path, *i) == Some(true))
            }
        })
        .map(|(_, c)| c.clone())
        .collect()
}

fn masks(map_at: &Path, hidden: &[PathBuf]) -> Vec<Candidate> {
    let mut paths: Vec<PathBuf> = vec![
        "/tmp".into(),
        "/var/tmp".into(),
        "/dev/shm".into(),
        std::env::temp_dir(),
    ];
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
    let mut out: Vec<Candidate> = Vec::new();
    for path in paths {
        let Ok(real) = std::fs::canonicalize(&path) else {
            continue;
        };
        let Ok(meta) = std::fs::metadata(&real) else {
            continue;
        };
        // Never hide the root, the lab dir or anything inside it.
        if real == Path::new("/") || real.starts_with(map_at) {
            continue;
        }
        if !out.iter().any(|c| c.real == real) {
            out.push(Candidate {
                path: real.clone(),
                real,
                is_dir: meta.is_dir(),
                mask: true,
            });
        }
    }
    out
}

fn exposures(named: &[PathBuf], map_at: &Path) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    for path in named {
        let path = lexically_normal(path);
        // Only what exists can be bound back; a path the run would create is its own business.
        let Ok(real) = std::fs::canonicalize(&path) else {
            continue;
        };
        if path == Path::new("/") || path.starts_with(map_at) || real.starts_with(map_at) {
            continue;
        }
        if !out.iter().any(|c| c.path == path) {
            out.push(Candidate {
                is_dir: real.is_dir(),
                path,
                real,
                mask: false,
            });
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

fn expansion(map_at: &Path, layers: &[(PathBuf, Layer)]) -> Result<Option<Expansion>, String> {
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
    // Under a mask the mount point is created in the private tmpfs; under an exposure (a
    // read-only host dir) or nothing, an ancestor must be expanded.
    let under_mask = layers
        .iter()
        .filter(|(path, _)| map_at.starts_with(path))
        .max_by_key(|(path, _)| path.components().count())
        .is_some_and(|(_, layer)| matches!(layer, Layer::Mask(entry) if entry.is_dir));
    if under_mask {
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
