//! The shadow reference for `check` mode: the reference lab dirs R_0..R_N, computed on a private
//! embedded cluster and cached, because a learner self-checks often and the reference run
//! waits on the cluster (a refused drain alone takes its full `--timeout`).
//!
//! The cache key covers every file of the scenario dir and the proctor build, so editing a
//! scenario or upgrading proctor recomputes it. Location: `$PROCTOR_CACHE`, else
//! `$XDG_CACHE_HOME/proctor`, else `~/.cache/proctor`. Any cache problem falls back to an
//! uncached run.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::reference::{run_reference, ReferenceDirs};
use super::workdir::copy_dir;
use crate::cluster::Target;
use crate::report::Progress;
use crate::runner::{prepare_cluster, starting_nodes};
use crate::scenario::Lab;

const COMPLETE_MARKER: &str = "complete";

pub fn cache_root() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PROCTOR_CACHE").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir).join("proctor"));
    }
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache").join("proctor"))
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

/// Key of a lab's reference: its files, and this proctor build.
pub fn cache_key(lab: &Lab) -> String {
    let mut hasher = DefaultHasher::new();
    env!("CARGO_PKG_VERSION").hash(&mut hasher);
    if let Ok(meta) = std::env::current_exe().and_then(std::fs::metadata) {
        meta.len().hash(&mut hasher);
        meta.modified().ok().hash(&mut hasher);
    }
    hash_tree(&lab.dir, &lab.dir, &mut hasher);
    format!("{}-{:016x}", lab.name(), hasher.finish())
}

fn load(entry: &Path, steps: usize) -> Option<ReferenceDirs> {
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

fn store(entry: &Path, reference: &ReferenceDirs) -> anyhow::Result<ReferenceDirs> {
    let parent = entry.parent().context("cache entry without a parent")?;
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".staging-")
        .tempdir_in(parent)
        .context("creating a cache staging dir")?;
    for (n, dir) in reference.dirs.iter().enumerate() {
        copy_dir(dir, &staging.path().join(format!("state-{n}")))?;
    }
    std::fs::write(staging.path().join(COMPLETE_MARKER), &reference.isolation)
        .context("writing the cache marker")?;
    let staged = staging.keep();
    if let Err(error) = std::fs::rename(&staged, entry) {
        let _ = std::fs::remove_dir_all(&staged);
        // Another check filled the entry meanwhile; use it.
        if !entry.join(COMPLETE_MARKER).is_file() {
            return Err(error).with_context(|| format!("storing {}", entry.display()));
        }
    }
    prune_siblings(entry);
    load(entry, reference.dirs.len().saturating_sub(1)).context("reading back the cache entry")
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
        let same_lab = sibling_name
            .rsplit_once('-')
            .is_some_and(|(other, key)| other == lab && key.len() == 16);
        if same_lab && sibling.path() != entry {
            let _ = std::fs::remove_dir_all(sibling.path());
        }
    }
}

/// R_0..R_N for `lab`, from the cache when possible.
pub async fn shadow_reference(
    lab: &Lab,
    progress: &mut dyn Progress,
) -> anyhow::Result<ReferenceDirs> {
    let steps = lab.scenario.steps.len();
    let entry = cache_root().map(|root| root.join(cache_key(lab)));
    if let Some(found) = entry.as_deref().and_then(|entry| load(entry, steps)) {
        tracing::info!("using the cached reference of {}", lab.name());
        return Ok(found);
    }
    progress.phase(&format!(
        "{}: preparing the reference on a private cluster (cached afterwards)",
        lab.name()
    ));
    let target = Target::embedded(&starting_nodes(lab)).await?;
    let run = match prepare_cluster(lab, &target).await {
        Ok(()) => run_reference(lab, &target, progress).await,
        Err(error) => Err(error),
    };
    target.shutdown().await;
    let run = run?;
    let mut dirs = run.dirs();
    if let Some(entry) = entry {
        match store(&entry, &dirs) {
            Ok(cached) => return Ok(cached),
            Err(error) => tracing::warn!("not caching the reference: {error:#}"),
        }
    }
    dirs._run = Some(run);
    Ok(dirs)
}
