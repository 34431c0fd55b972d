//! Reference runs reused from the cache ([`crate::runner::reference::cache`]): the shadow reference of
//! `check` mode (R_0..R_N, computed on a private embedded cluster, since the learner's cluster is
//! theirs) and the grading reference of `grade` on the embedded cluster (R_n and S_n). A learner
//! self-checks often and a class is graded submission after submission; the reference is the same
//! every time.

use std::path::Path;

use crate::cluster::{ClusterKind, Target};
use crate::report::Progress;
use crate::runner::reference::cache::{
    entry_for, load_dirs, load_run, lock_entry, store, EntryLock,
};
use crate::runner::reference::run::{run_reference, ReferenceDirs, ReferenceRun};
use crate::runner::{prepare_cluster, starting_setup};
use crate::scenario::Lab;

/// Looks `entry` up with `load`; when it is not there, waits for the entry's lock (without holding
/// up the embedded cluster's tasks) and looks again, since whoever held the lock may have just
/// filled it. A miss returns the lock, to hold while computing and storing the entry.
async fn find_or_lock<T>(
    entry: Option<&Path>,
    load: impl Fn(&Path) -> Option<T>,
) -> (Option<T>, Option<EntryLock>) {
    let Some(entry) = entry else {
        return (None, None);
    };
    if let Some(found) = load(entry) {
        return (Some(found), None);
    }
    let owned = entry.to_path_buf();
    let lock = tokio::task::spawn_blocking(move || lock_entry(&owned))
        .await
        .ok()
        .flatten();
    match load(entry) {
        Some(found) => (Some(found), None),
        None => (None, lock),
    }
}

/// R_0..R_N for `lab`, computed on a private cluster of `kind`; from the cache when possible (the
/// cache holds runs on the embedded cluster only).
pub async fn shadow_reference(
    lab: &Lab,
    kind: ClusterKind,
    progress: &mut dyn Progress,
) -> anyhow::Result<ReferenceDirs> {
    let steps = lab.scenario.steps.len();
    let entry = entry_for(lab, "").filter(|_| kind == ClusterKind::Embedded);
    let (found, _lock) = find_or_lock(entry.as_deref(), |entry| load_dirs(entry, steps)).await;
    if let Some(found) = found {
        tracing::info!("using the cached reference of {}", lab.name());
        return Ok(found);
    }
    progress.phase(&format!(
        "{}: preparing the reference on a private cluster (cached afterwards)",
        lab.name()
    ));
    let target = Target::private(kind, &starting_setup(lab)).await?;
    let run = match prepare_cluster(lab, &target).await {
        Ok(()) => run_reference(lab, &target, progress).await,
        Err(error) => Err(error),
    };
    target.shutdown().await;
    let run = run?;
    if let Some(entry) = entry {
        match store(&entry, &run) {
            Ok(()) => {
                if let Some(cached) = load_dirs(&entry, steps) {
                    return Ok(cached);
                }
            }
            Err(error) => tracing::warn!("not caching the reference: {error:#}"),
        }
    }
    let mut dirs = run.dirs();
    dirs._run = Some(run);
    Ok(dirs)
}

/// The reference run `grade` compares against. On a private cluster (`target` in the lab's
/// starting state: embedded, or kwokctl from the same upstream build) it comes from the cache
/// when `use_cache` allows, and is stored there after a fresh run; on a shared cluster it always
/// runs there, since the states are that cluster's.
pub async fn grading_reference(
    lab: &Lab,
    target: &Target,
    use_cache: bool,
    progress: &mut dyn Progress,
) -> anyhow::Result<ReferenceRun> {
    let entry = use_cache
        .then(|| target.reference_runtime())
        .flatten()
        .and_then(|runtime| entry_for(lab, &runtime));
    let cached = |entry: &Path| match load_run(lab, entry, lab.scenario.steps.len()) {
        Ok(found) => found,
        Err(error) => {
            tracing::warn!("ignoring the cached reference: {error:#}");
            None
        }
    };
    let (found, _lock) = find_or_lock(entry.as_deref(), cached).await;
    if let (Some(run), Some(entry)) = (found, &entry) {
        progress.phase(&format!(
            "{}: using the cached reference run ({})",
            lab.name(),
            entry.display()
        ));
        return Ok(run);
    }
    let run = run_reference(lab, target, progress).await?;
    if let Some(entry) = &entry {
        if let Err(error) = store(entry, &run) {
            tracing::warn!("not caching the reference: {error:#}");
        }
    }
    Ok(run)
}
