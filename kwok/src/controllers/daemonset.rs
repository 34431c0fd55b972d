//! The DaemonSet controller (`k/k pkg/controller/daemon`): one daemon pod on every node the
//! template may run on, ControllerRevisions for the template history, rolling updates and the
//! DaemonSet status.
//!
//! One pass looks at every DaemonSet against one snapshot of nodes, pods and revisions, indexed
//! once, so the cost of a pass is linear in pods + DaemonSets × nodes. Placement decisions
//! (`NodeShouldRunDaemonPod`) are remembered per node resourceVersion and DaemonSet generation, and
//! nothing is written unless it changes. Like upstream's informer cache, the status written in a
//! pass reflects the pods seen at its start; the pass that our own creates and deletes trigger
//! brings it up to date.

mod manage;
mod pass;
mod status;
mod update;
mod util;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Node;
use serde_json::Value;

use super::events::Recorder;
use super::typed::TypedCache;
use super::{earliest, just_after, retry_delay, Controller, Pass};
use crate::api::Api;
use crate::meta;
use crate::podutil::{availability, is_pod_available, is_pod_ready, is_pod_terminal, Availability};
use crate::registry;
use crate::selectors::LabelSelector;
use crate::store::{Event, Stored};

pub use self::update::revision_data;
pub use self::util::{replace_node_name_affinity, target_node_name};
use self::{manage::*, pass::*, status::*, update::*, util::*};

/// The event source of the controller (`NewDaemonSetsController`).
pub const COMPONENT: &str = "daemonset-controller";
/// `apps.DefaultDaemonSetUniqueLabelKey` / `ControllerRevisionHashLabelKey`.
pub const REVISION_HASH_LABEL: &str = "controller-revision-hash";
/// `extensions.DaemonSetTemplateGenerationKey`.
pub const TEMPLATE_GENERATION_LABEL: &str = "pod-template-generation";
/// The annotation v1 DaemonSets carry the template generation in (the kind's strategy keeps it).
pub use crate::kinds::apps::daemonset::TEMPLATE_GENERATION as TEMPLATE_GENERATION_ANNOTATION;

/// `failedPodsBackoff = flowcontrol.NewBackOff(1*time.Second, 15*time.Minute)`.
const FAILED_POD_BACKOFF_INITIAL: Duration = Duration::from_secs(1);
const FAILED_POD_BACKOFF_MAX: Duration = Duration::from_secs(15 * 60);
pub struct DaemonSetController {
    recorder: Recorder,
    nodes: TypedCache<Node>,
    daemonsets: TypedCache<DaemonSet>,
    /// `NodeShouldRunDaemonPod` answers by DaemonSet uid, valid for one generation.
    placement: HashMap<String, Placement>,
    failed_pods: Backoff,
    /// The last sync of each DaemonSet, by uid.
    synced: HashMap<String, Synced>,
    /// The resourceVersion a `SelectingAll` event was last recorded for, by uid (one event per
    /// change of the DaemonSet, as upstream syncs it once per change).
    selecting_all: HashMap<String, u64>,
}

impl Default for DaemonSetController {
    fn default() -> Self {
        Self {
            recorder: Recorder::new(COMPONENT),
            nodes: TypedCache::default(),
            daemonsets: TypedCache::default(),
            placement: HashMap::new(),
            failed_pods: Backoff::default(),
            synced: HashMap::new(),
            selecting_all: HashMap::new(),
        }
    }
}

/// `NodeShouldRunDaemonPod`'s (shouldRun, shouldContinueRunning) for one node object.
type Asked = (Stored, (bool, bool));

struct Placement {
    generation: i64,
    /// The node objects asked about, with the answers, in node-list order.
    answers: Vec<Asked>,
}

/// `flowcontrol.Backoff` over real time.
#[derive(Default)]
struct Backoff {
    entries: HashMap<String, (Duration, Instant)>,
}

impl Backoff {
    fn expired(last: Instant, now: Instant) -> bool {
        now.duration_since(last) > 2 * FAILED_POD_BACKOFF_MAX
    }

    /// `IsInBackOffSinceUpdate`: the remaining wait, if still backing off.
    fn remaining(&self, key: &str, now: Instant) -> Option<Duration> {
        let (delay, last) = self.entries.get(key)?;
        if Self::expired(*last, now) {
            return None;
        }
        let elapsed = now.duration_since(*last);
        (elapsed < *delay).then(|| *delay - elapsed)
    }

    /// `Next`: start at the initial delay, else double up to the maximum.
    fn next(&mut self, key: &str, now: Instant) {
        let delay = match self.entries.get(key) {
            Some((d, last)) if !Self::expired(*last, now) => (*d * 2).min(FAILED_POD_BACKOFF_MAX),
            _ => FAILED_POD_BACKOFF_INITIAL,
        };
        self.entries.insert(key.to_string(), (delay, now));
    }

    /// `GC`: forget entries not touched for twice the maximum delay.
    fn gc(&mut self, now: Instant) {
        self.entries
            .retain(|_, (_, last)| !Self::expired(*last, now));
    }
}

/// What a sync of one DaemonSet asks of the loop.
#[derive(Default)]
struct Outcome {
    requeue: Option<Duration>,
    error: Option<String>,
}

impl DaemonSetController {
    /// Sync one DaemonSet (`syncDaemonSet`).
    fn sync(&mut self, api: &Api, ds: &Stored, typed: &DaemonSet, snap: &Snapshot) -> Outcome {
        let mut out = Outcome::default();
        // A DaemonSet being deleted is left alone: its history may already be gone.
        if meta::is_deleting(&ds.value) {
            return out;
        }
        let uid = meta::uid(&ds.value).to_string();
        let selector_json = &ds.value["spec"]["selector"];
        if selector_json
            .as_object()
            .is_some_and(|m| m.values().all(Value::is_null))
        {
            if self.selecting_all.get(&uid) != Some(&ds.resource_version()) {
                self.selecting_all.insert(uid, ds.resource_version());
                self.recorder.event(
                    api,
                    &registry::DAEMONSETS,
                    &ds.value,
                    "Warning",
                    "SelectingAll",
                    "This daemon set is selecting all pods. A non-empty selector is required.",
                );
            }
            return out;
        }
        let Some(template) = typed.spec.as_ref().map(|s| &s.template) else {
            return out;
        };
        let selector = match LabelSelector::from_api(selector_json) {
            Ok(s) => s,
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        };
        let mut claim_errors = Vec::new();
        let claimed = self.claim_pods(api, ds, &selector, snap, &mut claim_errors);
        let (hash, old_revisions) = match self.construct_history(api, ds, &selector, &claimed, snap)
        {
            Ok(x) => x,
            Err(e) => {
                out.error = Some(format!("failed to construct revisions of DaemonSet: {e}"));
                return out;
            }
        };
        let generation = template_generation(&ds.value).map(|g| g.to_string());
        let generation = generation.as_deref();
        let min_ready = ds.value["spec"]["minReadySeconds"].as_i64().unwrap_or(0);

        // nodeToDaemonPods, without pods that are both terminal and being deleted: by position
        // in the node list, and for nodes that are gone.
        let mut per_node: Vec<Vec<Stored>> = vec![Vec::new(); snap.nodes.len()];
        let mut elsewhere: BTreeMap<&str, Vec<Stored>> = BTreeMap::new();
        for pod in &claimed {
            if is_pod_terminal(&pod.value) && meta::is_deleting(&pod.value) {
                continue;
            }
            let Some(node) = target_node_name(&pod.value) else {
                continue;
            };
            match snap.node_index.get(node) {
                Some(&i) => per_node[i].push(pod.clone()),
                None => elsewhere.entry(node).or_default().push(pod.clone()),
            }
        }
        for pods in per_node.iter_mut().filter(|p| p.len() > 1) {
            sort_oldest_first(pods);
        }

        let strategy = &ds.value["spec"]["updateStrategy"];
        let rolling = strategy["type"]
            .as_str()
            .is_none_or(|t| t == "RollingUpdate");
        let surge_allowed = rolling && surge_count(strategy, 1).is_ok_and(|n| n != 0);

        // manage(): what each node needs.
        let placements = self.placements(&ds.value, template, snap.nodes);
        let mut creates: Vec<String> = Vec::new();
        let mut deletes: Vec<String> = Vec::new();
        for ((node, (should_run, should_continue)), pods) in placements.iter().zip(&per_node) {
            let name = node.name();
            let pods = Some(pods).filter(|p| !p.is_empty());
            match pods {
                None if *should_run => creates.push(name.to_string()),
                Some(pods) if *should_continue => {
                    let mut running: Vec<&Stored> = Vec::new();
                    for pod in pods {
                        if meta::is_deleting(&pod.value) {
                            continue;
                        }
                        match phase(&pod.value) {
                            "Failed" => {
                                let key = format!(
                                    "{}/{}/{}",
                                    uid,
                                    ds.value["status"]["observedGeneration"]
                                        .as_i64()
                                        .unwrap_or(0),
                                    name
                                );
                                if let Some(wait) = self.failed_pods.remaining(&key, snap.instant) {
                                    out.requeue = earliest(out.requeue, Some(wait));
                                    continue;
                                }
                                self.failed_pods.next(&key, snap.instant);
                                self.recorder.event(api, &registry::DAEMONSETS,
                                    &ds.value,
                                    "Warning",
                                    "FailedDaemonPod",
                                    &format!(
                                        "Found failed daemon pod {}/{} on node {}, will try to kill it",
                                        pod.namespace(),
                                        pod.name(),
                                        name
                                    ));
                                deletes.push(pod.name().to_string());
                            }
                            "Succeeded" => {
                                self.recorder.event(api, &registry::DAEMONSETS,
                                    &ds.value,
                                    "Normal",
                                    "SucceededDaemonPod",
                                    &format!(
                                        "Found succeeded daemon pod {}/{} on node {}, will try to delete it",
                                        pod.namespace(),
                                        pod.name(),
                                        name
                                    ));
                                deletes.push(pod.name().to_string());
                            }
                            _ => running.push(pod),
                        }
                    }
                    if !surge_allowed {
                        // Keep the oldest (pods are sorted oldest first).
                        deletes.extend(running.iter().skip(1).map(|p| p.name().to_string()));
                        continue;
                    }
                    if running.len() <= 1 {
                        if running.is_empty() && *should_run {
                            creates.push(name.to_string());
                        }
                        continue;
                    }
                    // Surging: keep the oldest new and the oldest old pod while the new one is
                    // not yet available.
                    let mut oldest_new: Option<&Stored> = None;
                    let mut oldest_old: Option<&Stored> = None;
                    for pod in running {
                        let slot = if meta::label(&pod.value, REVISION_HASH_LABEL)
                            == Some(hash.as_str())
                        {
                            &mut oldest_new
                        } else {
                            &mut oldest_old
                        };
                        if slot.is_none() {
                            *slot = Some(pod);
                        } else {
                            deletes.push(pod.name().to_string());
                        }
                    }
                    if let (Some(new), Some(old)) = (oldest_new, oldest_old) {
                        if !is_pod_ready(&old.value)
                            || is_pod_available(&new.value, min_ready, snap.now)
                        {
                            deletes.push(old.name().to_string());
                        }
                    }
                }
                Some(pods) if !*should_continue => {
                    deletes.extend(
                        pods.iter()
                            .filter(|p| !meta::is_deleting(&p.value))
                            .map(|p| p.name().to_string()),
                    );
                }
                _ => {}
            }
        }
        // Unscheduled pods aimed at nodes that no longer exist (pod GC cannot see them).
        for pods in elsewhere.values() {
            deletes.extend(
                pods.iter()
                    .filter(|p| node_name_of(&p.value).is_empty())
                    .map(|p| p.name().to_string()),
            );
        }
        let blueprint = PodBlueprint::new(&ds.value, &hash);
        let (wrote, mut errors) = self.sync_nodes(api, ds, &deletes, &creates, &blueprint);
        errors.append(&mut claim_errors);

        // Rolling updates run once the creates and deletes above have been observed.
        let outdated = claimed
            .iter()
            .any(|p| !meta::is_deleting(&p.value) && !is_pod_updated(&p.value, &hash, generation));
        if !wrote && errors.is_empty() && rolling && outdated {
            // updatedDesiredNodeCounts: the nodes with pods, and those that want one.
            let entries: Vec<(&str, bool, &[Stored])> = placements
                .iter()
                .zip(&per_node)
                .filter(|((_, (run, _)), pods)| *run || !pods.is_empty())
                .map(|((node, (run, _)), pods)| (node.name(), *run, pods.as_slice()))
                .chain(
                    elsewhere
                        .iter()
                        .map(|(node, pods)| (*node, false, pods.as_slice())),
                )
                .collect();
            let (deletes, creates) =
                rolling_update(ds, &entries, &hash, generation, min_ready, snap.now);
            let (_, e) = self.sync_nodes(api, ds, &deletes, &creates, &blueprint);
            errors.extend(e);
        }
        if let Err(e) = self.cleanup_history(api, ds, old_revisions, &claimed) {
            errors.push(e);
        }

        // Status, from the pods this pass started with.
        let mut counts = Counts::default();
        let mut next_available: Option<DateTime<Utc>> = None;
        for ((_, (should_run, _)), pods) in placements.iter().zip(&per_node) {
            let pods = Some(pods).filter(|p| !p.is_empty());
            if *should_run {
                counts.desired += 1;
                let Some(pods) = pods else { continue };
                counts.current += 1;
                let pod = &pods[0];
                if is_pod_ready(&pod.value) {
                    counts.ready += 1;
                    match availability(&pod.value, min_ready, snap.now) {
                        Availability::Available => counts.available += 1,
                        Availability::After(at) => {
                            next_available = Some(next_available.map_or(at, |n| n.min(at)))
                        }
                        Availability::NotReady | Availability::Never => {}
                    }
                }
                if is_pod_updated(&pod.value, &hash, generation) {
                    counts.updated += 1;
                }
            } else if pods.is_some() {
                counts.misscheduled += 1;
            }
        }
        counts.unavailable = counts.desired - counts.available;
        if let Err(e) = store_status(api, ds, &counts) {
            errors.push(e.to_string());
        }
        if let Some(at) = next_available {
            out.requeue = earliest(out.requeue, Some(just_after(at, snap.now)));
        }
        if !errors.is_empty() {
            out.error = Some(errors.join("; "));
        }
        out
    }
}

impl Controller for DaemonSetController {
    fn name(&self) -> &'static str {
        "daemonset-controller"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::DAEMONSETS)
            || std::ptr::eq(ev.res, &registry::PODS)
            || std::ptr::eq(ev.res, &registry::NODES)
            || std::ptr::eq(ev.res, &registry::CONTROLLERREVISIONS)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let store = api.store();
        let (ds_objs, _) = store.list(&registry::DAEMONSETS, None);
        if ds_objs.is_empty() {
            self.placement.clear();
            self.synced.clear();
            return Pass::default();
        }
        let (nodes, _) = store.list(&registry::NODES, None);
        self.nodes.retain(&nodes);
        let (pods, _) = store.list(&registry::PODS, None);
        let (revisions, _) = store.list(&registry::CONTROLLERREVISIONS, None);
        let snap = Snapshot::build(&nodes, &pods, &revisions);
        let mut next: Option<Duration> = None;
        for ds in &ds_objs {
            let uid = meta::uid(&ds.value);
            let inputs = snap.inputs_of(ds);
            let mut failures = 0;
            if let Some(last) = self.synced.get(uid) {
                let due = last.due.is_some_and(|d| snap.instant >= d);
                if last.inputs == inputs && !due {
                    next = earliest(next, last.due.map(|d| d - snap.instant));
                    continue;
                }
                failures = last.failures;
            }
            let Some(typed) = self.daemonsets.get(ds) else {
                continue;
            };
            let out = self.sync(api, ds, &typed, &snap);
            let mut requeue = out.requeue;
            match &out.error {
                Some(e) => {
                    tracing::debug!(error = %e, daemonset = ds.name(), "syncing daemon set");
                    // Each set keeps its own count, as upstream's per-key queue does.
                    requeue = earliest(requeue, Some(retry_delay(failures)));
                    failures += 1;
                }
                None => failures = 0,
            }
            next = earliest(next, requeue);
            let due = requeue.map(|d| snap.instant + d);
            self.synced.insert(
                uid.to_string(),
                Synced {
                    inputs,
                    due,
                    failures,
                },
            );
        }
        let live: HashSet<&str> = ds_objs.iter().map(|d| meta::uid(&d.value)).collect();
        self.daemonsets.retain(&ds_objs);
        self.placement.retain(|uid, _| live.contains(uid.as_str()));
        self.synced.retain(|uid, _| live.contains(uid.as_str()));
        self.selecting_all
            .retain(|uid, _| live.contains(uid.as_str()));
        self.failed_pods.gc(snap.instant);
        Pass::after(next)
    }
}
