//! The node lifecycle controller (`pkg/controller/nodelifecycle`):
//! - its NoSchedule pass (`doNoScheduleTaintingPass`): `node.kubernetes.io/unschedulable`
//!   follows `spec.unschedulable` and the not-ready, unreachable and pressure taints follow the
//!   conditions, so the scheduler and the DaemonSet controller see cordoned and unhealthy nodes as
//!   on a real cluster;
//! - its label pass (`reconcileNodeLabels`): the deprecated `beta.kubernetes.io/os` and `/arch`
//!   labels equal to the stable ones;
//! - its health monitor (`monitorNodeHealth`): `RegisteredNode` / `RemovingNode` events, the
//!   conditions of a node whose kubelet went silent set to Unknown ([`health`]), its pods marked
//!   not ready with a `NodeNotReady` event, and the not-ready / unreachable NoExecute taints that
//!   make the taint eviction controller evict, added at the rate and in the zone states of
//!   [`zones`].

mod health;
mod taints;
mod zones;

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::events::Recorder;
use super::{just_after, Controller, Pass};
use crate::api::{Api, WriteOptions};
use crate::meta;
use crate::registry;
use crate::store::{Event, Stored};
use health::HealthMap;
use taints::NO_EXECUTE;
pub use taints::{NOT_READY, UNREACHABLE, UNSCHEDULABLE};
use zones::{Outcome, Tainter, ZoneState};

/// The controller's source component (`v1.EventSource{Component: "node-controller"}`).
const COMPONENT: &str = "node-controller";
/// The namespace of the kubelets' heartbeat leases.
const NODE_LEASES: &str = "kube-node-lease";

const NOT_READY_NO_EXECUTE: (&str, &str) = (NOT_READY, NO_EXECUTE);
const UNREACHABLE_NO_EXECUTE: (&str, &str) = (UNREACHABLE, NO_EXECUTE);

pub struct NodeLifecycle {
    /// `knownNodeSet`: the nodes seen on the last pass, by name, with their uid.
    known: BTreeMap<String, String>,
    health: HealthMap,
    zone_states: BTreeMap<String, ZoneState>,
    /// `zoneNoExecuteTainter`: a zone's queue and limiter, made anew when the zone is seen
    /// again after `handle_disruption` dropped its state (as `addPodEvictorForNewZone` does).
    tainters: BTreeMap<String, Tainter>,
    /// `nodesToRetry`: nodes whose pods could not all be marked not ready.
    retry: BTreeSet<String>,
    recorder: Recorder,
}

impl Default for NodeLifecycle {
    fn default() -> Self {
        Self {
            known: BTreeMap::new(),
            health: HealthMap::default(),
            zone_states: BTreeMap::new(),
            tainters: BTreeMap::new(),
            retry: BTreeSet::new(),
            recorder: Recorder::new(COMPONENT),
        }
    }
}

/// `RecordNodeEvent`: an event about a node, named by a reference built from its name and uid
/// (no resourceVersion), worded "Node <name> event: <event>".
fn record_node_event(
    recorder: &Recorder,
    api: &Api,
    name: &str,
    uid: &str,
    reason: &str,
    event: &str,
) {
    let reference = json!({"kind": "Node", "name": name, "uid": uid, "apiVersion": "v1"});
    let message = format!("Node {name} event: {event}");
    recorder.event_about(api, reference, "Normal", reason, &message);
}

/// `labelReconcileInfo`: (primary, secondary); the secondary label follows the primary and is
/// added when missing (`ensureSecondaryExists`).
const LABEL_PAIRS: [(&str, &str); 2] = [
    ("kubernetes.io/os", "beta.kubernetes.io/os"),
    ("kubernetes.io/arch", "beta.kubernetes.io/arch"),
];

/// `reconcileNodeLabels`: the labels to set, if any.
pub fn labels_to_update(node: &Value) -> Vec<(&'static str, String)> {
    let labels = &node["metadata"]["labels"];
    LABEL_PAIRS
        .iter()
        .filter_map(|(primary, secondary)| {
            let value = labels[*primary].as_str()?;
            (labels[*secondary].as_str() != Some(value)).then(|| (*secondary, value.to_string()))
        })
        .collect()
}

/// Write `taints` as the node's taints.
fn write_taints(api: &Api, node: &Value, taints: Vec<Value>, pass: &mut Pass) -> Option<Stored> {
    let mut updated = node.clone();
    if taints.is_empty() {
        if let Some(spec) = updated["spec"].as_object_mut() {
            spec.remove("taints");
        }
    } else {
        updated["spec"]["taints"] = json!(taints);
    }
    let written = api.update(
        &registry::NODES,
        "",
        meta::name(node),
        updated,
        None,
        &WriteOptions::default(),
    );
    pass.check("tainting a node", written)
}

/// `SwapNodeControllerTaint` on the node as stored now; false when the write failed.
fn swap_taints(
    api: &Api,
    name: &str,
    add: &[(&str, &str)],
    remove: &[(&str, &str)],
    now: DateTime<Utc>,
    pass: &mut Pass,
) -> bool {
    let Some(node) = api.store().get(&registry::NODES, "", name) else {
        return true;
    };
    match taints::swap(&node.value, add, remove, &meta::time(now)) {
        None => true,
        Some(taints) => write_taints(api, &node.value, taints, pass).is_some(),
    }
}

/// `MarkPodsNotReady`: each pod on the node whose Ready condition is not False yet gets it False
/// and a `NodeNotReady` warning.
fn mark_pods_not_ready(
    recorder: &Recorder,
    api: &Api,
    node: &str,
    now: DateTime<Utc>,
    pass: &mut Pass,
) {
    for pod in api.store().list(&registry::PODS, None).0 {
        if pod.value["spec"]["nodeName"].as_str() != Some(node) {
            continue;
        }
        let mut updated = pod.value.clone();
        let Some(ready) = updated["status"]["conditions"]
            .as_array_mut()
            .and_then(|cs| cs.iter_mut().find(|c| c["type"] == "Ready"))
        else {
            continue;
        };
        if ready["status"] == "False" {
            continue;
        }
        ready["status"] = json!("False");
        ready["lastTransitionTime"] = json!(meta::time(now));
        let written = api.update_status(&registry::PODS, updated);
        if pass.check("marking a pod not ready", written).is_some() {
            recorder.event(
                api,
                &registry::PODS,
                &pod.value,
                "Warning",
                "NodeNotReady",
                "Node is not ready",
            );
        }
    }
}

impl NodeLifecycle {
    /// `classifyNodes`, with the events `monitorNodeHealth` records for nodes added and deleted
    /// since the last pass (compared by name, as `knownNodeSet` is) and the zones first seen.
    fn classify(&mut self, api: &Api, nodes: &[Stored], now: DateTime<Utc>, pass: &mut Pass) {
        let seen: BTreeMap<&str, &Stored> = nodes.iter().map(|n| (n.name(), n)).collect();
        for (name, node) in &seen {
            self.add_zone(&zones::zone_key(&node.value), now);
            if self.known.contains_key(*name) {
                continue;
            }
            let uid = meta::uid(&node.value).to_string();
            let event = format!("Registered Node {name} in Controller");
            record_node_event(&self.recorder, api, name, &uid, "RegisteredNode", &event);
            self.known.insert(name.to_string(), uid);
            self.mark_reachable(api, &node.value, now, pass);
        }
        let gone: Vec<(String, String)> = self
            .known
            .iter()
            .filter(|(name, _)| !seen.contains_key(name.as_str()))
            .map(|(name, uid)| (name.clone(), uid.clone()))
            .collect();
        for (name, uid) in gone {
            let event = format!("Removing Node {name} from Controller");
            record_node_event(&self.recorder, api, &name, &uid, "RemovingNode", &event);
            self.known.remove(&name);
            self.health.forget(&name);
        }
    }

    /// `addPodEvictorForNewZone`.
    fn add_zone(&mut self, zone: &str, now: DateTime<Utc>) {
        if !self.zone_states.contains_key(zone) {
            self.zone_states
                .insert(zone.to_string(), ZoneState::Initial);
            self.tainters.insert(zone.to_string(), Tainter::new(now));
        }
    }

    fn tainter(&mut self, node: &Value, now: DateTime<Utc>) -> &mut Tainter {
        self.tainters
            .entry(zones::zone_key(node))
            .or_insert_with(|| Tainter::new(now))
    }

    /// `markNodeAsReachable`: both NoExecute taints off, and out of the tainting queue.
    fn mark_reachable(&mut self, api: &Api, node: &Value, now: DateTime<Utc>, pass: &mut Pass) {
        let removed = [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE];
        if swap_taints(api, meta::name(node), &[], &removed, now, pass) {
            self.tainter(node, now).remove(meta::name(node));
        }
    }

    /// `processTaintBaseEviction`, on the Ready status the node showed at the start of the pass.
    fn process_taint_based_eviction(
        &mut self,
        api: &Api,
        node: &Value,
        observed: &str,
        now: DateTime<Utc>,
        pass: &mut Pass,
    ) {
        let (wanted, opposite) = match observed {
            "False" => (NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE),
            "Unknown" => (UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE),
            "True" => return self.mark_reachable(api, node, now, pass),
            _ => return,
        };
        let name = meta::name(node);
        // The opposite taint is swapped at once; a first one waits for the zone's limiter.
        if taints::has_taint(node, opposite) {
            swap_taints(api, name, &[wanted], &[opposite], now, pass);
            return;
        }
        let tainter = self.tainter(node, now);
        if !taints::has_taint(node, wanted) {
            tainter.remove(name);
        }
        tainter.add(name, now);
    }

    /// `handleDisruption`: the zones' new states, and what entering or leaving them changes.
    fn handle_disruption(
        &mut self,
        api: &Api,
        zone_ready: &BTreeMap<String, Vec<Option<String>>>,
        now: DateTime<Utc>,
        pass: &mut Pass,
    ) {
        let new_states: BTreeMap<&String, ZoneState> = zone_ready
            .iter()
            .map(|(zone, ready)| (zone, zones::compute_zone_state(ready)))
            .collect();
        let all_are_fully_disrupted = new_states.values().all(|s| *s == ZoneState::FullDisruption);
        for zone in zone_ready.keys() {
            self.add_zone(zone, now);
        }
        self.zone_states
            .retain(|zone, _| zone_ready.contains_key(zone));
        let all_were_fully_disrupted = self
            .zone_states
            .values()
            .all(|s| *s == ZoneState::FullDisruption);
        if all_are_fully_disrupted && all_were_fully_disrupted {
            return;
        }
        let size = |zone: &str| zone_ready.get(zone).map_or(0, Vec::len);
        if all_are_fully_disrupted {
            // Every zone lost: the controller assumes it is the one cut off and stops evicting.
            tracing::info!("every node is not ready: entering master disruption mode");
            for node in api.store().list(&registry::NODES, None).0 {
                self.mark_reachable(api, &node.value, now, pass);
            }
            for tainter in self.tainters.values_mut() {
                tainter.swap_limiter(0.0, now);
            }
            for state in self.zone_states.values_mut() {
                *state = ZoneState::FullDisruption;
            }
            return;
        }
        if all_were_fully_disrupted {
            tracing::info!("some nodes are ready: leaving master disruption mode");
            self.health.reset_probes(now);
        }
        let zones: Vec<String> = self.zone_states.keys().cloned().collect();
        for zone in zones {
            let new = new_states.get(&zone).copied().unwrap_or(ZoneState::Normal);
            if !all_were_fully_disrupted && self.zone_states.get(&zone) == Some(&new) {
                continue;
            }
            if let Some(tainter) = self.tainters.get_mut(&zone) {
                tainter.swap_limiter(zones::qps_for(new, size(&zone)), now);
            }
            self.zone_states.insert(zone, new);
        }
    }

    /// `doNoExecuteTaintingPass`: the queued nodes each zone's limiter lets through get the
    /// NoExecute taint their Ready condition calls for.
    fn taint_queued(&mut self, api: &Api, now: DateTime<Utc>, pass: &mut Pass) {
        for tainter in self.tainters.values_mut() {
            tainter.try_each(now, |name| {
                let Some(node) = api.store().get(&registry::NODES, "", name) else {
                    return Outcome::Done;
                };
                let (add, remove) = match taints::ready_status(&node.value) {
                    None => return Outcome::RetryAfter(chrono::TimeDelta::milliseconds(50)),
                    Some("False") => (NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE),
                    Some("Unknown") => (UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE),
                    // Ready again: nothing to taint.
                    Some(_) => return Outcome::Done,
                };
                if swap_taints(api, name, &[add], &[remove], now, pass) {
                    Outcome::Done
                } else {
                    Outcome::RetryAfter(chrono::TimeDelta::zero())
                }
            });
            if let Some(at) = tainter.next_try(now) {
                pass.wake(Some(just_after(at, now)));
            }
        }
    }

    /// The NoSchedule and label passes, for every node whose taints or labels are off.
    fn sync_no_schedule_and_labels(&self, api: &Api, now: DateTime<Utc>, pass: &mut Pass) {
        for node in api.store().list(&registry::NODES, None).0 {
            let taints = taints::no_schedule_pass(&node.value, &meta::time(now));
            let labels = labels_to_update(&node.value);
            if taints.is_none() && labels.is_empty() {
                continue;
            }
            let mut updated = node.value.clone();
            if let Some(map) = updated["metadata"].as_object_mut().and_then(|m| {
                m.entry("labels")
                    .or_insert_with(|| json!({}))
                    .as_object_mut()
            }) {
                for (key, value) in labels {
                    map.insert(key.into(), value.into());
                }
            }
            let taints = taints.unwrap_or_else(|| {
                node.value["spec"]["taints"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            });
            write_taints(api, &updated, taints, pass);
        }
    }

    /// One pass at `now`.
    fn reconcile_at(&mut self, api: &Api, now: DateTime<Utc>) -> Pass {
        let mut pass = Pass::default();
        self.sync_no_schedule_and_labels(api, now, &mut pass);
        let nodes = api.store().list(&registry::NODES, None).0;
        self.classify(api, &nodes, now, &mut pass);

        let mut zone_ready: BTreeMap<String, Vec<Option<String>>> = BTreeMap::new();
        for node in api.store().list(&registry::NODES, None).0 {
            let name = node.name().to_string();
            let lease = api.store().get(&registry::LEASES, NODE_LEASES, &name);
            let health = self
                .health
                .check(&node.value, lease.as_ref().map(|l| &l.value), now);
            if let Some(deadline) = health.deadline {
                pass.wake(Some(just_after(deadline, now)));
            }
            let node = match health.update {
                None => node,
                Some(updated) => {
                    let written = api.update_status(&registry::NODES, updated);
                    match pass.check("setting a silent node's conditions to Unknown", written) {
                        Some(node) => node,
                        // Upstream skips the node for this pass: no pod is evicted.
                        None => continue,
                    }
                }
            };
            if !zones::excluded_from_disruption(&node.value) {
                zone_ready
                    .entry(zones::zone_key(&node.value))
                    .or_default()
                    .push(health.current.clone());
            }
            let Some(current) = health.current else {
                continue;
            };
            self.process_taint_based_eviction(api, &node.value, &health.observed, now, &mut pass);
            let transition = current != "True" && health.observed == "True";
            if transition {
                let reference = json!({"kind": "Node", "name": name, "uid": meta::uid(&node.value), "apiVersion": "v1"});
                let message = format!("Node {name} status is now: NodeNotReady");
                self.recorder
                    .event_about(api, reference, "Normal", "NodeNotReady", &message);
            }
            if transition || (self.retry.contains(&name) && health.observed != "True") {
                let mut marking = Pass::default();
                mark_pods_not_ready(&self.recorder, api, &name, now, &mut marking);
                if marking.failed() {
                    self.retry.insert(name.clone());
                } else {
                    self.retry.remove(&name);
                }
                pass.absorb(marking);
            } else {
                self.retry.remove(&name);
            }
        }
        self.handle_disruption(api, &zone_ready, now, &mut pass);
        self.taint_queued(api, now, &mut pass);
        pass
    }
}

impl Controller for NodeLifecycle {
    fn name(&self) -> &'static str {
        "node-lifecycle"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::NODES)
    }

    /// A kubelet's lease renewal is a probe, timed when it is seen; it needs no pass of its own.
    fn observe(&mut self, ev: &Event) {
        if std::ptr::eq(ev.res, &registry::LEASES) && ev.object.namespace() == NODE_LEASES {
            self.health
                .lease_seen(ev.object.name(), &ev.object.value, Utc::now());
        }
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        self.reconcile_at(api, Utc::now())
    }
}

#[cfg(test)]
mod tests;
