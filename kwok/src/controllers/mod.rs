//! Control loops of the embedded cluster. Each controller is a task fed by the store's change
//! stream; they share the [`Api`] so their writes are validated, versioned and watched like any
//! client's.
//!
//! Like kube-runtime's controllers, every loop is level-triggered: a burst of changes is drained
//! and answered by one reconcile of the whole state, so a controller can never act on a stale
//! event, and a thousand label flips cost one pass, not a thousand.

pub mod daemonset;
pub mod deployment;
pub mod disruption;
pub mod events;
pub mod fake_node;
pub mod garbage;
pub mod kubelet;
pub mod namespace;
pub mod node_lifecycle;
pub mod replicaset;
pub mod root_ca;
pub mod scheduler;
pub mod service_account;
pub mod ttl;
pub mod typed;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::TryRecvError;
use tokio::task::JoinHandle;

use crate::api::Api;
use crate::store::Event;

/// How soon a controller looks again after a write that failed.
pub(crate) const RETRY: Duration = Duration::from_secs(1);

/// One control loop.
pub trait Controller: Send + 'static {
    fn name(&self) -> &'static str;
    /// Does this change concern the controller?
    fn interested(&self, ev: &Event) -> bool;
    /// See every change, interesting or not, before the next reconcile (for controllers that keep
    /// a dirty set instead of rescanning everything).
    fn observe(&mut self, _ev: &Event) {}
    /// The change stream was lost (the controller fell behind): forget any dirty set and look at
    /// everything on the next pass.
    fn resync(&mut self) {}
    /// Bring the world closer to the desired state. Returns when to look again even without a
    /// change (timers: grace periods, heartbeats).
    fn reconcile(&mut self, api: &Api) -> Option<Duration>;
}

/// The sooner of two optional wake-ups.
pub(crate) fn earliest(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// How long until just after `at`: timestamps have second precision and the deadlines upstream
/// checks are strict (`Before(now)`), so look again a moment after the instant.
pub(crate) fn just_after(
    at: chrono::DateTime<chrono::Utc>,
    now: chrono::DateTime<chrono::Utc>,
) -> Duration {
    (at - now).to_std().unwrap_or_default() + Duration::from_millis(5)
}

/// Running controllers.
pub struct Handle {
    tasks: Vec<JoinHandle<()>>,
    busy: Arc<AtomicUsize>,
}

impl Handle {
    /// Is any controller in the middle of work?
    pub fn busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst) > 0
    }

    pub async fn stop(self) {
        for t in &self.tasks {
            t.abort();
        }
        for t in self.tasks {
            let _ = t.await;
        }
    }
}

struct BusyGuard<'a>(&'a AtomicUsize);

impl<'a> BusyGuard<'a> {
    fn new(c: &'a AtomicUsize) -> Self {
        c.fetch_add(1, Ordering::SeqCst);
        Self(c)
    }
}

impl Drop for BusyGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn spawn(
    mut ctrl: Box<dyn Controller>,
    api: Api,
    busy: Arc<AtomicUsize>,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut rx = api.store().subscribe();
        let mut next: Option<Duration> = {
            let _g = BusyGuard::new(&busy);
            ctrl.reconcile(&api)
        };
        loop {
            let wait = next.unwrap_or(Duration::from_secs(3600));
            let woke = tokio::select! {
                r = rx.recv() => match r {
                    Ok(ev) => {
                        ctrl.observe(&ev);
                        ctrl.interested(&ev)
                    }
                    // Fell behind the change stream: a full reconcile catches up.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        ctrl.resync();
                        true
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                },
                _ = tokio::time::sleep(wait) => true,
                _ = shutdown.changed() => return,
            };
            if !woke {
                continue;
            }
            let _g = BusyGuard::new(&busy);
            // Coalesce the burst: everything already queued is covered by one pass.
            loop {
                match rx.try_recv() {
                    Ok(ev) => ctrl.observe(&ev),
                    Err(TryRecvError::Lagged(_)) => ctrl.resync(),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Closed) => return,
                }
            }
            let name = ctrl.name();
            let started = std::time::Instant::now();
            next = ctrl.reconcile(&api);
            tracing::trace!(controller = name, elapsed = ?started.elapsed(), "reconciled");
            // Yield so the API server and other loops get the cores between passes.
            tokio::task::yield_now().await;
        }
    })
}

/// Start every controller of the embedded cluster; `root_ca` is the PEM of the cluster's CA.
pub fn start(api: Api, root_ca: &str, shutdown: tokio::sync::watch::Receiver<bool>) -> Handle {
    let busy = Arc::new(AtomicUsize::new(0));
    let controllers: Vec<Box<dyn Controller>> = vec![
        Box::new(node_lifecycle::NodeLifecycle::default()),
        Box::new(ttl::TtlController::default()),
        Box::new(kubelet::FakeKubelet::default()),
        Box::new(scheduler::SchedulerLoop::default()),
        Box::new(garbage::GarbageCollector),
        Box::new(namespace::NamespaceController),
        Box::new(service_account::ServiceAccountController),
        Box::new(root_ca::RootCaPublisher::new(root_ca)),
        Box::new(daemonset::DaemonSetController::default()),
        Box::new(disruption::DisruptionController::default()),
        Box::new(replicaset::ReplicaSetController),
        Box::new(deployment::DeploymentController::default()),
    ];
    let tasks = controllers
        .into_iter()
        .map(|c| spawn(c, api.clone(), busy.clone(), shutdown.clone()))
        .collect();
    Handle { tasks, busy }
}
