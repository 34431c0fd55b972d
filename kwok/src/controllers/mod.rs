//! Control loops of the embedded cluster. Each controller is a task fed by the store's change
//! stream; they share the [`Api`] so their writes are validated, versioned and watched like any
//! client's.
//!
//! Like kube-runtime's controllers, every loop is level-triggered: a burst of changes is drained
//! and answered by one reconcile of the whole state, so a controller can never act on a stale
//! event, and a thousand label flips cost one pass, not a thousand.

pub mod apiservice_registration;
pub mod clusterrole_aggregation;
pub mod crd_cleanup;
pub mod crd_status;
pub mod cronjob;
pub mod csr_signing;
pub mod daemonset;
pub mod deployment;
pub mod disruption;
pub mod endpoints;
pub mod endpointslice;
pub mod ephemeral_volume;
pub mod events;
pub mod fake_node;
pub mod garbage;
pub mod job;
pub mod kubelet;
pub mod namespace;
pub mod node_lifecycle;
pub(crate) mod ownership;
pub mod persistentvolume;
pub(crate) mod pod_control;
pub mod podautoscaler;
pub mod replicaset;
pub mod resourcequota;
pub mod root_ca;
pub mod scheduler;
pub mod service_account;
pub mod statefulset;
pub mod taint_eviction;
pub mod ttl;
pub mod ttl_after_finished;
pub mod typed;
pub mod volume_protection;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::TryRecvError;

use crate::api::Api;
use crate::error::ApiResult;
use crate::store::Event;

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
    /// Bring the world closer to the desired state. The pass says when to look again even without
    /// a change (timers: grace periods, heartbeats) and which writes failed; a pass with failures
    /// is run again on the loop's backoff.
    fn reconcile(&mut self, api: &Api) -> Pass;
}

/// What one reconcile pass leaves behind. A whole-state pass goes on past a failed write (one
/// object's conflict must not starve the others, as upstream's per-key queues ensure) and reports
/// the failures at the end, like kube-runtime's reconcile `Result` with one retry policy.
#[derive(Debug, Default)]
#[must_use]
pub struct Pass {
    after: Option<Duration>,
    failures: usize,
}

impl Pass {
    /// A pass that wants to look again after `after` (or only on a change).
    pub fn after(after: Option<Duration>) -> Self {
        Self { after, failures: 0 }
    }

    /// Look again no later than `after`.
    pub fn wake(&mut self, after: Option<Duration>) {
        self.after = earliest(self.after, after);
    }

    /// Take a write's outcome: a failure is logged and makes the loop retry. A NotFound counts as
    /// done — the object is gone already, as upstream's controllers ignore `IsNotFound` on their
    /// deletes and the next change brings any new one.
    pub fn check<T>(&mut self, what: &str, result: ApiResult<T>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(e) if e.code == 404 => None,
            Err(e) => {
                tracing::debug!(error = %e, "{what}");
                self.failures += 1;
                None
            }
        }
    }

    /// A failure that is not one write's (a step that gave up part-way).
    pub fn fail(&mut self, what: &str, error: impl std::fmt::Display) {
        tracing::debug!(%error, "{what}");
        self.failures += 1;
    }

    /// Merge the outcome of a sub-pass.
    pub fn absorb(&mut self, other: Pass) {
        self.wake(other.after);
        self.failures += other.failures;
    }

    pub fn failed(&self) -> bool {
        self.failures > 0
    }

    /// When the pass asked to look again without a change.
    pub fn wake_after(&self) -> Option<Duration> {
        self.after
    }
}

/// The one retry policy, for a loop whose pass failed and for a controller that tracks failures
/// per object: client-go's `ItemExponentialFailureRateLimiter` (5 ms, doubling with each
/// consecutive failure), capped at a second since nothing here waits on a slow network.
pub(crate) fn retry_delay(consecutive_failures: u32) -> Duration {
    const BASE: Duration = Duration::from_millis(5);
    const CAP: Duration = Duration::from_secs(1);
    BASE.saturating_mul(1u32 << consecutive_failures.min(16))
        .min(CAP)
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

/// Running controllers: their own thread and runtime, so a long pass never holds a worker thread
/// the API server answers requests on.
pub struct Handle {
    thread: Option<std::thread::JoinHandle<()>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    busy: Arc<AtomicUsize>,
    /// Per loop: the store revision up to which it has taken in every change (acted on the ones
    /// that interest it, with a pass that has ended).
    seen: Vec<Arc<AtomicU64>>,
}

impl Handle {
    /// Has every controller taken in every change up to `revision`, and none is in a pass? A
    /// change a loop has not yet received (its thread not scheduled yet, on a loaded machine)
    /// counts as work still to do, so a caller waiting for the cluster to settle cannot take a
    /// quiet moment for a settled one.
    pub fn caught_up(&self, revision: u64) -> bool {
        self.busy.load(Ordering::SeqCst) == 0
            && self
                .seen
                .iter()
                .all(|seen| seen.load(Ordering::SeqCst) >= revision)
    }

    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            // Joining blocks until the current passes end; keep that off the caller's runtime.
            let joined = tokio::task::spawn_blocking(move || thread.join()).await;
            if !matches!(joined, Ok(Ok(()))) {
                tracing::warn!("the controllers' thread ended abnormally");
            }
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

/// Run one pass, timed for `-vvv`.
fn pass(ctrl: &mut dyn Controller, api: &Api, busy: &AtomicUsize) -> Pass {
    let _g = BusyGuard::new(busy);
    let started = std::time::Instant::now();
    let pass = ctrl.reconcile(api);
    tracing::trace!(controller = ctrl.name(), elapsed = ?started.elapsed(), failed = pass.failures, "reconciled");
    pass
}

/// One loop: a pass, then wait for an interesting change, the pass's timer or its retry. `seen`
/// records how far into the change stream the loop has caught up (see [`Handle::caught_up`]).
async fn run(
    mut ctrl: Box<dyn Controller>,
    api: Api,
    busy: Arc<AtomicUsize>,
    seen: Arc<AtomicU64>,
) {
    let mut rx = api.store().subscribe();
    let mut failed_passes = 0;
    // Every change up to here is in the state the first pass reads.
    let mut upto = api.store().revision();
    let mut last = pass(ctrl.as_mut(), &api, &busy);
    seen.store(upto, Ordering::SeqCst);
    loop {
        let retry = if last.failed() {
            failed_passes += 1;
            Some(retry_delay(failed_passes - 1))
        } else {
            failed_passes = 0;
            None
        };
        let wait = earliest(last.after, retry).unwrap_or(Duration::from_secs(3600));
        // The timer runs from the pass, not from the last change that did not interest us.
        let due = tokio::time::Instant::now() + wait;
        let mut woke = false;
        while !woke {
            woke = tokio::select! {
                r = rx.recv() => match r {
                    Ok(ev) => {
                        upto = upto.max(ev.rv);
                        ctrl.observe(&ev);
                        let interested = ctrl.interested(&ev);
                        if !interested {
                            // Nothing to do for it: taken in.
                            seen.store(upto, Ordering::SeqCst);
                        }
                        interested
                    }
                    // Fell behind the change stream: a full reconcile catches up.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        upto = upto.max(api.store().revision());
                        ctrl.resync();
                        true
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                },
                _ = tokio::time::sleep_until(due) => true,
            };
        }
        // Coalesce the burst: everything already queued is covered by one pass.
        loop {
            match rx.try_recv() {
                Ok(ev) => {
                    upto = upto.max(ev.rv);
                    ctrl.observe(&ev);
                }
                Err(TryRecvError::Lagged(_)) => {
                    upto = upto.max(api.store().revision());
                    ctrl.resync();
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Closed) => return,
            }
        }
        last = pass(ctrl.as_mut(), &api, &busy);
        seen.store(upto, Ordering::SeqCst);
        // Let the other loops of this thread have their turn between passes.
        tokio::task::yield_now().await;
    }
}

/// Start every controller of the embedded cluster; `ca` is the cluster's CA, `usage` the
/// declared resource usage the autoscaler reads through the metrics API.
/// They stop on [`Handle::stop`] or when `shutdown` changes.
pub fn start(
    api: Api,
    ca: Arc<crate::tls::ClusterCa>,
    usage: &crate::debugging::Config,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) -> std::io::Result<Handle> {
    let busy = Arc::new(AtomicUsize::new(0));
    let controllers: Vec<Box<dyn Controller>> = vec![
        Box::new(node_lifecycle::NodeLifecycle::default()),
        Box::new(taint_eviction::TaintEviction::default()),
        Box::new(ttl::TtlController::default()),
        Box::new(kubelet::FakeKubelet::default()),
        Box::new(scheduler::SchedulerLoop::default()),
        Box::new(garbage::GarbageCollector),
        Box::new(namespace::NamespaceController),
        Box::new(service_account::ServiceAccountController),
        Box::new(endpoints::EndpointsController::default()),
        Box::new(clusterrole_aggregation::ClusterRoleAggregation),
        Box::new(crd_status::CrdStatus),
        Box::new(crd_cleanup::CrdCleanup),
        Box::new(apiservice_registration::ApiServiceRegistration),
        Box::new(endpointslice::EndpointSliceController),
        Box::new(root_ca::RootCaPublisher::new(ca.cert_pem.clone())),
        Box::new(csr_signing::CsrSigning::new(ca)),
        Box::new(daemonset::DaemonSetController::default()),
        Box::new(disruption::DisruptionController::default()),
        Box::new(replicaset::ReplicaSetController::default()),
        Box::new(replicaset::ReplicaSetController::replication_controllers()),
        Box::new(deployment::DeploymentController::default()),
        Box::new(job::JobController::default()),
        Box::new(cronjob::CronJobController::default()),
        Box::new(ttl_after_finished::TtlAfterFinished),
        Box::new(resourcequota::ResourceQuotaController::default()),
        Box::new(statefulset::StatefulSetController::default()),
        Box::new(persistentvolume::PersistentVolumeController::default()),
        Box::new(ephemeral_volume::EphemeralVolumeController::default()),
        Box::new(volume_protection::VolumeProtection),
        Box::new(podautoscaler::HorizontalPodAutoscalerController::reading(
            usage,
        )),
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    let loops_busy = busy.clone();
    let seen: Vec<Arc<AtomicU64>> = controllers
        .iter()
        .map(|_| Arc::new(AtomicU64::new(0)))
        .collect();
    let loops_seen = seen.clone();
    let thread = std::thread::Builder::new()
        .name("kwok-controllers".into())
        .spawn(move || {
            runtime.block_on(async move {
                let mut loops = tokio::task::JoinSet::new();
                for (c, seen) in controllers.into_iter().zip(loops_seen) {
                    loops.spawn(run(c, api.clone(), loops_busy.clone(), seen));
                }
                tokio::select! {
                    _ = &mut stop_rx => {}
                    _ = shutdown.changed() => {}
                    _ = loops.join_all() => {}
                }
            });
        })?;
    Ok(Handle {
        thread: Some(thread),
        stop: Some(stop_tx),
        busy,
        seen,
    })
}
