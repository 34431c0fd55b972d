//! How long a restore waits for the cluster to settle, and what it says while it waits.

use std::time::Duration;

use super::objects::ObjectKey;
use crate::cluster::kubectl::Kubectl;

/// How long the pods' placement may stay the same, not yet as in the snapshot, before a restore
/// stops waiting for it: three times the scheduler's longest backoff.
pub(super) const PLACEMENT_STILL: Duration = Duration::from_secs(30);

/// The longest a restore waits for the pods' placement, however it moves.
pub(super) const PLACEMENT_CEILING: Duration = Duration::from_secs(300);

/// How long a deleted object may take to go. A namespace waits for the namespace controller to
/// empty it, which polls again only after half the longest grace period of the pods still in it
/// (`namespace_controller.go`, `ResourcesRemainingError.Estimate`), so it gets far longer.
pub(super) fn removal_budget(key: &ObjectKey) -> Duration {
    if key.0 == "namespaces" {
        Duration::from_secs(300)
    } else {
        Duration::from_secs(60)
    }
}

/// A bounded wait of the restore, which says once (at info) what it is waiting for when that
/// takes a while.
pub(super) struct Waiting {
    pub(super) started: tokio::time::Instant,
    budget: Duration,
    said: bool,
}

impl Waiting {
    pub(super) fn new(budget: Duration) -> Waiting {
        Waiting {
            started: tokio::time::Instant::now(),
            budget,
            said: false,
        }
    }

    /// Counts the budget again from now (the thing waited for moved).
    pub(super) fn restart(&mut self) {
        self.started = tokio::time::Instant::now();
    }

    pub(super) fn over(&self) -> bool {
        self.started.elapsed() >= self.budget
    }

    pub(super) fn tell_once_slow(&mut self, after: Duration, what: impl FnOnce() -> String) {
        if !self.said && self.started.elapsed() >= after {
            tracing::info!("restore: waiting for {}", what());
            self.said = true;
        }
    }
}

/// Waits (bounded, per object) until deleted objects are gone.
pub(super) async fn wait_gone(kubectl: &Kubectl, keys: &[ObjectKey]) {
    for key in keys {
        let mut waiting = Waiting::new(removal_budget(key));
        loop {
            let (resource, namespace, name) = key;
            match kubectl.get_object(resource, namespace, name).await {
                Ok(None) => break,
                _ if waiting.over() => {
                    tracing::warn!(
                        "restore: {} {} still present after {} s",
                        key.0,
                        key.2,
                        waiting.budget.as_secs()
                    );
                    break;
                }
                _ => {
                    waiting.tell_once_slow(Duration::from_secs(5), || {
                        format!("{} {} to be gone", key.0, key.2)
                    });
                    tokio::time::sleep(Duration::from_millis(250)).await
                }
            }
        }
    }
}
