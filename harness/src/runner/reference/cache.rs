//! The reference run kept on disk. A reference run waits on the cluster (a refused drain alone
//! takes its full `--timeout`) and depends only on the scenario, the tools, this build and the
//! cluster runtime, so it is computed once on a private cluster and reused: by `check` (the dirs
//! R_0..R_N, embedded cluster) and by `grade` (the dirs and the cluster snapshots S_0..S_N) on the
//! embedded cluster and on private kwokctl clusters of the same upstream build.
//!
//! An entry is a directory `<lab>-<key>/` (`<lab>-kwokctl-<key>/` on kwokctl) holding
//! `state-<n>/` (R_n), `cluster-<n>.json` (S_n: a [`kwok::saved_snapshot`] document, or on
//! kwokctl the objects a restore makes again), `saved-at` (when the run ended) and `complete`
//! (written last; holds the isolation the reference shells ran with). The key covers every file
//! of the scenario dir but its bundled submissions, the kubectl and jq the scripts run, the
//! proctor build and the runtime (the upstream build on kwokctl), so editing a scenario or
//! upgrading a tool recomputes it. Location: `$PROCTOR_CACHE`, else `$XDG_CACHE_HOME/proctor`,
//! else `~/.cache/proctor`. Any cache problem falls back to an uncached run.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cluster::Snapshot;
use crate::runner::reference::run::{ReferenceDirs, ReferenceRun, ReferenceState};
use crate::runner::workdir::copy_dir;
use crate::sandbox::on_path;
use crate::scenario::Lab;

const COMPLETE_MARKER: &str = "complete";
const SAVED_AT: &str = "saved-at";

pub use crate::cache_dir::cache_root;

/// The cache entry of `lab` on the cluster runtime `runtime` (`Target::reference_runtime`:
/// empty for the embedded cluster), which may not exist yet.
pub fn entry_for(lab: &Lab, runtime: &str) -> Option<PathBuf> {
    cache_root().map(|root| root.join(cache_key_on(lab, runtime)))
}

/// Holds the lock of one cache entry: processes grading the same lab at once wait for the one
/// computing its reference instead of all computing it.
pub struct EntryLock {
    _file: std::fs::File,
}

/// Waits for the lock of `entry` (blocking; call from a blocking task). `None` when the cache
/// dir cannot hold a lock file: then nothing is shared and every process computes on its own.
pub fn lock_entry(entry: &Path) -> Option<EntryLock> {
    let parent = entry.parent()?;
    std::fs::create_dir_all(parent).ok()?;
    let mut name = entry.file_name()?.to_os_string();
    name.push(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(parent.join(name))
        .ok()?;
    file.lock().ok()?;
    Some(EntryLock { _file: file })
}

fn hash_tree(dir: &Path, base: &Path, hasher: &mut DefaultHasher) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    paths.sort();
    for path in paths {
        // Bundled submissions do not change the reference.
        if path
            .strip_prefix(base)
            .is_ok_and(|rel| rel.starts_with("submissions"))
        {
            continue;
        }
        path.strip_prefix(base).unwrap_or(&path).hash(hasher);
        if path.is_dir() {
            hash_tree(&path, base, hasher);
        } else if let Ok(bytes) = std::fs::read(&path) {
            bytes.hash(hasher);
        }
    }
}

/// A file's identity without reading it: path, size and modification time.
fn hash_file_identity(path: &Path, hasher: &mut DefaultHasher) {
    path.hash(hasher);
    if let Ok(meta) = std::fs::metadata(path) {
        meta.len().hash(hasher);
        meta.modified().ok().hash(hasher);
    }
}

/// Key of a lab's reference on the embedded cluster: its files, the tools its scripts run (their
/// output is what the reference saves), and this proctor build.
pub fn cache_key(lab: &Lab) -> String {
    cache_key_on(lab, "")
}

/// [`cache_key`] on another runtime: its entries are a family of their own
/// (`<lab>-kwokctl-<hash>`), pruned apart from the embedded cluster's.
fn cache_key_on(lab: &Lab, runtime: &str) -> String {
    let mut hasher = DefaultHasher::new();
    if !runtime.is_empty() {
        runtime.hash(&mut hasher);
    }
    env!("CARGO_PKG_VERSION").hash(&mut hasher);
    if let Ok(exe) = std::env::current_exe() {
        hash_file_identity(&exe, &mut hasher);
    }
    for tool in ["kubectl", "jq"] {
        if let Some(path) = on_path(tool) {
            hash_file_identity(&path, &mut hasher);
        }
    }
    hash_tree(&lab.dir, &lab.dir, &mut hasher);
    match runtime.split_whitespace().next() {
        Some(family) => format!("{}-{family}-{:016x}", lab.name(), hasher.finish()),
        None => format!("{}-{:016x}", lab.name(), hasher.finish()),
    }
}

fn isolation_name(text: &str) -> &'static str {
    match text.trim() {
        "bubblewrap" => "bubblewrap",
        "mount-namespace" => "mount-namespace",
        _ => "none",
    }
}

/// R_0..R_N from `entry`, if it is complete.
pub fn load_dirs(entry: &Path, steps: usize) -> Option<ReferenceDirs> {
    let isolation = std::fs::read_to_string(entry.join(COMPLETE_MARKER)).ok()?;
    let dirs: Vec<PathBuf> = (0..=steps)
        .map(|n| entry.join(format!("state-{n}")))
        .collect();
    dirs.iter().all(|dir| dir.is_dir()).then(|| ReferenceDirs {
        dirs,
        isolation: isolation.trim().to_string(),
        _run: None,
    })
}

/// The whole run (dirs copied to a private temp dir, snapshots with their clock moved to now),
/// if `entry` is complete and holds snapshots.
pub fn load_run(lab: &Lab, entry: &Path, steps: usize) -> anyhow::Result<Option<ReferenceRun>> {
    let Some(dirs) = load_dirs(entry, steps) else {
        return Ok(None);
    };
    let Ok(saved_at) = std::fs::read_to_string(entry.join(SAVED_AT)) else {
        return Ok(None);
    };
    let saved_at = chrono::DateTime::parse_from_rfc3339(saved_at.trim())
        .with_context(|| format!("{}: not a time", entry.join(SAVED_AT).display()))?;
    let age = chrono::Utc::now().signed_duration_since(saved_at);
    let root = tempfile::Builder::new()
        .prefix(&format!("proctor-{}-reference-", lab.name()))
        .tempdir()
        .context("creating the reference directory")?;
    let mut states = Vec::new();
    for (n, cached) in dirs.dirs.iter().enumerate() {
        let file = entry.join(format!("cluster-{n}.json"));
        let Ok(text) = std::fs::read(&file) else {
            // An entry made without snapshots (e.g. by an older build): not usable for grading.
            return Ok(None);
        };
        let doc: serde_json::Value =
            serde_json::from_slice(&text).with_context(|| format!("reading {}", file.display()))?;
        let snapshot = Snapshot::from_document(&doc, age)
            .with_context(|| format!("reading {}", file.display()))?;
        let dir = root.path().join(format!("state-{n}"));
        copy_dir(cached, &dir)?;
        states.push(ReferenceState { snapshot, dir });
    }
    Ok(Some(ReferenceRun::from_parts(
        root,
        states,
        isolation_name(&dirs.isolation),
    )))
}

/// Writes `run` as the entry `entry` (atomically: staged, then renamed), and removes the lab's
/// entries of other keys. Only runs on a private cluster are stored (see
/// `Target::reference_runtime`): a shared cluster's state is its own.
pub fn store(entry: &Path, run: &ReferenceRun) -> anyhow::Result<()> {
    let parent = entry.parent().context("cache entry without a parent")?;
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".staging-")
        .tempdir_in(parent)
        .context("creating a cache staging dir")?;
    for (n, state) in run.states.iter().enumerate() {
        copy_dir(&state.dir, &staging.path().join(format!("state-{n}")))?;
        let doc = state
            .snapshot
            .to_document()
            .context("a snapshot that cannot be kept")?;
        let file = staging.path().join(format!("cluster-{n}.json"));
        std::fs::write(&file, serde_json::to_vec(&doc)?)
            .with_context(|| format!("writing {}", file.display()))?;
    }
    std::fs::write(
        staging.path().join(SAVED_AT),
        run.finished_at
            .to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
    )
    .context("writing the cache time")?;
    std::fs::write(staging.path().join(COMPLETE_MARKER), run.isolation)
        .context("writing the cache marker")?;
    let staged = staging.keep();
    if let Err(error) = std::fs::rename(&staged, entry) {
        let _ = std::fs::remove_dir_all(&staged);
        // Another run filled the entry meanwhile; keep theirs.
        if !entry.join(COMPLETE_MARKER).is_file() {
            return Err(error).with_context(|| format!("storing {}", entry.display()));
        }
    }
    prune_siblings(entry);
    Ok(())
}

/// An entry or lock touched within the last hour may be in use by another process (a `check`
/// reads its dirs in place), so it is left for a later prune.
fn recently_used(path: &Path) -> bool {
    let marker = if path.is_dir() {
        path.join(COMPLETE_MARKER)
    } else {
        path.to_path_buf()
    };
    std::fs::metadata(&marker)
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|modified| modified.elapsed().ok())
        .is_none_or(|age| age < std::time::Duration::from_secs(3600))
}

/// Removes the lab's older entries (made by other builds or scenario versions).
fn prune_siblings(entry: &Path) {
    let (Some(parent), Some(name)) = (entry.parent(), entry.file_name().and_then(|n| n.to_str()))
    else {
        return;
    };
    let Some((lab, _)) = name.rsplit_once('-') else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for sibling in entries.flatten() {
        let sibling_name = sibling.file_name().to_string_lossy().into_owned();
        let (stem, is_lock) = match sibling_name.strip_suffix(".lock") {
            Some(stem) => (stem, true),
            None => (sibling_name.as_str(), false),
        };
        let same_lab = stem
            .rsplit_once('-')
            .is_some_and(|(other, key)| other == lab && key.len() == 16);
        if same_lab && stem != name && !recently_used(&sibling.path()) {
            if is_lock {
                let _ = std::fs::remove_file(sibling.path());
            } else {
                let _ = std::fs::remove_dir_all(sibling.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lab's reference on kwokctl is an entry of its own, named apart from the embedded
    /// cluster's (so neither prunes the other), and another upstream build is another entry.
    #[test]
    fn each_runtime_keeps_its_own_entry() {
        let lab_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/gpudrv");
        let lab = Lab::load(&lab_dir.join("scenario.yaml")).expect("gpudrv");
        let embedded = cache_key(&lab);
        let kwokctl = cache_key_on(&lab, "kwokctl /cache/proctor-upstream/kubernetes-a");
        let other_build = cache_key_on(&lab, "kwokctl /cache/proctor-upstream/kubernetes-b");
        assert_eq!(cache_key_on(&lab, ""), embedded);
        let hash = |key: &str| key.rsplit_once('-').map(|(_, hash)| hash.len());
        assert!(embedded.starts_with("gpudrv-") && hash(&embedded) == Some(16));
        assert!(kwokctl.starts_with("gpudrv-kwokctl-") && hash(&kwokctl) == Some(16));
        assert_ne!(kwokctl, other_build);
        // The embedded family's prune reads `<lab>-<hash>`: a kwokctl entry is another lab's.
        let family = |key: &str| key.rsplit_once('-').map(|(family, _)| family.to_string());
        assert_ne!(family(&embedded), family(&kwokctl));
    }
}
