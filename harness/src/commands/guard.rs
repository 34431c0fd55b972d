//! Running work on a cluster so that Ctrl-C / SIGTERM, an error or a normal end all leave an
//! external cluster as it was found.

use std::future::Future;

use crate::cluster::Target;

/// Runs `work`; `None` when interrupted. With `restore_after`, the cluster's state from before
/// `work` is restored afterwards in every case.
pub async fn guarded<T>(
    target: &Target,
    restore_after: bool,
    work: impl Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<Option<T>> {
    let initial = if restore_after {
        Some(target.snapshot().await?)
    } else {
        None
    };
    let result = tokio::select! {
        result = work => result.map(Some),
        _ = super::common::interrupted() => {
            eprintln!("interrupted: cleaning up");
            target.remove_leftover_nodes().await;
            Ok(None)
        }
    };
    if let Some(initial) = initial {
        if let Err(error) = target.restore(&initial).await {
            tracing::error!("could not restore the cluster's starting state: {error:#}");
        }
    }
    result
}
