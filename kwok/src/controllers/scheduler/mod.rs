//! The scheduling loop (kube-scheduler's queue and binding cycle) over the pure decisions in
//! [`crate::scheduler`]: pending pods are tried in priority then age order, bound through the
//! binding subresource with a `Scheduled` event, or marked `PodScheduled=False` with the exact
//! aggregated message and a `FailedScheduling` event. Every change to nodes, pods, claims,
//! volumes or classes retries the pending ones, like the scheduler's queueing hints.

mod volumes;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::{json, Value};

use super::events::Recorder;
use super::typed::TypedCache;
use super::{Controller, Pass};
use crate::api::subresources::{bind, disruption_target, set_condition};
use crate::api::{Api, WriteOptions, KUBE_SCHEDULER};
use crate::meta;
use crate::registry;
use crate::scheduler::{self, NodeInfo, SchedulingContext};
use crate::store::{Event, EventKind, Stored};

pub const SCHEDULER_NAME: &str = "default-scheduler";

pub struct SchedulerLoop {
    recorder: Recorder,
    nodes: TypedCache<Node>,
    pods: TypedCache<Pod>,
    /// When each pod entered the queue (the store revision of its creation, by uid): the
    /// queue's `podInfo.Timestamp`, which orders pods of equal priority finer than the
    /// one-second creationTimestamp does.
    queued: HashMap<String, u64>,
}

impl Default for SchedulerLoop {
    fn default() -> Self {
        Self {
            recorder: Recorder::new(SCHEDULER_NAME),
            nodes: TypedCache::default(),
            pods: TypedCache::default(),
            queued: HashMap::new(),
        }
    }
}

fn is_pending(pod: &Value) -> bool {
    pod["spec"]["nodeName"].as_str().is_none_or(str::is_empty)
        && !meta::is_deleting(pod)
        && pod["spec"]["schedulerName"]
            .as_str()
            .is_none_or(|s| s == SCHEDULER_NAME)
        && pod["spec"]["schedulingGates"]
            .as_array()
            .is_none_or(|g| g.is_empty())
        && !crate::podutil::is_pod_terminal(pod)
}

impl Controller for SchedulerLoop {
    fn name(&self) -> &'static str {
        "scheduler"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::PODS)
            || std::ptr::eq(ev.res, &registry::NODES)
            || std::ptr::eq(ev.res, &registry::NAMESPACES)
            || std::ptr::eq(ev.res, &registry::PERSISTENTVOLUMECLAIMS)
            || std::ptr::eq(ev.res, &registry::PERSISTENTVOLUMES)
            || std::ptr::eq(ev.res, &registry::STORAGECLASSES)
    }

    fn observe(&mut self, ev: &Event) {
        if std::ptr::eq(ev.res, &registry::PODS) && matches!(ev.kind, EventKind::Added) {
            self.queued
                .entry(meta::uid(&ev.object.value).to_string())
                .or_insert(ev.rv);
        }
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let store = api.store();
        let (pod_objs, _) = store.list(&registry::PODS, None);
        let live: std::collections::HashSet<&str> =
            pod_objs.iter().map(|p| meta::uid(&p.value)).collect();
        self.queued.retain(|uid, _| live.contains(uid.as_str()));
        if !pod_objs.iter().any(|p| is_pending(&p.value)) {
            return pass;
        }
        let (node_objs, _) = store.list(&registry::NODES, None);
        let nodes: Vec<Arc<Node>> = node_objs.iter().filter_map(|n| self.nodes.get(n)).collect();
        let pods: Vec<(Stored, Arc<Pod>)> = pod_objs
            .iter()
            .filter_map(|p| self.pods.get(p).map(|t| (p.clone(), t)))
            .collect();
        self.pods.retain(&pod_objs);
        self.nodes.retain(&node_objs);

        let index: HashMap<&str, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.metadata.name.as_deref().unwrap_or(""), i))
            .collect();
        let mut infos: Vec<NodeInfo<'_>> = nodes
            .iter()
            .map(|n| NodeInfo {
                node: n,
                pods: Vec::new(),
            })
            .collect();
        let mut pending: Vec<usize> = Vec::new();
        for (i, (stored, typed)) in pods.iter().enumerate() {
            let node = stored.value["spec"]["nodeName"].as_str().unwrap_or("");
            if node.is_empty() {
                if is_pending(&stored.value) {
                    pending.push(i);
                }
                continue;
            }
            if crate::podutil::is_pod_terminal(&stored.value) {
                continue;
            }
            if let Some(&n) = index.get(node) {
                infos[n].pods.push(typed);
            }
        }
        // PrioritySort: higher priority first, then the pod queued first (pods this loop did not
        // see created, as after a restore, by creation time and name).
        let queued = |i: usize| {
            self.queued
                .get(meta::uid(&pods[i].0.value))
                .copied()
                .unwrap_or(u64::MAX)
        };
        pending.sort_by(|&a, &b| {
            let pa = scheduler::pod_priority(&pods[a].1);
            let pb = scheduler::pod_priority(&pods[b].1);
            pb.cmp(&pa)
                .then_with(|| queued(a).cmp(&queued(b)))
                .then_with(|| {
                    let ta = pods[a].0.value["metadata"]["creationTimestamp"]
                        .as_str()
                        .unwrap_or("");
                    let tb = pods[b].0.value["metadata"]["creationTimestamp"]
                        .as_str()
                        .unwrap_or("");
                    ta.cmp(tb)
                })
                .then_with(|| {
                    (pods[a].0.namespace(), pods[a].0.name())
                        .cmp(&(pods[b].0.namespace(), pods[b].0.name()))
                })
        });
        let cx = SchedulingContext {
            namespace_labels: namespace_labels(api),
            pdbs: api
                .store()
                .list(&registry::PODDISRUPTIONBUDGETS, None)
                .0
                .iter()
                .filter_map(|p| serde_json::from_value(p.value.clone()).ok())
                .collect(),
        };
        for i in pending {
            let (stored, typed) = &pods[i];
            let pod_volumes = volumes::pod_volumes(store, &stored.value);
            match scheduler::schedule_with(typed, &infos, &cx, &pod_volumes) {
                Ok(node) => {
                    // PreBind: the pod waits until its claims are bound.
                    let plan = index
                        .get(node.as_str())
                        .and_then(|&n| pod_volumes.plan(infos[n].node))
                        .unwrap_or_default();
                    if plan != scheduler::VolumePlan::default() {
                        pass.absorb(volumes::bind_pod_volumes(api, &stored.value, &node, &plan));
                        continue;
                    }
                    let opts = WriteOptions::by(KUBE_SCHEDULER);
                    let binding = json!({"metadata": {"name": stored.name()}, "target": {"kind": "Node", "name": node}});
                    let bound = bind(api, stored.namespace(), stored.name(), &binding, &opts);
                    if pass.check("binding a pod", bound).is_some() {
                        self.recorder.event(
                            api,
                            &registry::PODS,
                            &stored.value,
                            "Normal",
                            "Scheduled",
                            &format!(
                                "Successfully assigned {}/{} to {}",
                                stored.namespace(),
                                stored.name(),
                                node
                            ),
                        );
                        if let Some(&n) = index.get(node.as_str()) {
                            infos[n].pods.push(typed);
                        }
                    }
                }
                Err(fit) => {
                    if let Some(plan) = fit.preemption() {
                        pass.absorb(preempt(&self.recorder, api, stored, plan));
                    }
                    let message = fit.message();
                    let current = stored.value["status"]["conditions"]
                        .as_array()
                        .and_then(|cs| cs.iter().find(|c| c["type"] == "PodScheduled"))
                        .and_then(|c| c["message"].as_str())
                        .unwrap_or("");
                    if current == message {
                        continue;
                    }
                    let mut updated = stored.value.clone();
                    set_condition(
                        &mut updated,
                        json!({
                            "type": "PodScheduled", "status": "False", "lastProbeTime": null,
                            "lastTransitionTime": meta::now(), "reason": fit.reason(), "message": message,
                        }),
                    );
                    let written = api.update_status_as(KUBE_SCHEDULER, &registry::PODS, updated);
                    if pass
                        .check("writing a pod's PodScheduled condition", written)
                        .is_some()
                    {
                        self.recorder.event(
                            api,
                            &registry::PODS,
                            &stored.value,
                            "Warning",
                            "FailedScheduling",
                            &scheduler::failed_scheduling_note(&message),
                        );
                    }
                }
            }
        }
        pass
    }
}

/// Carry out a preemption (`prepareCandidate`): nominate the node, mark and delete the victims.
fn preempt(
    recorder: &Recorder,
    api: &Api,
    preemptor: &Stored,
    plan: &scheduler::PreemptionPlan,
) -> Pass {
    let mut pass = Pass::default();
    let mut nominated = preemptor.value.clone();
    nominated["status"]["nominatedNodeName"] = json!(plan.node_name);
    let written = api.update_status_as(KUBE_SCHEDULER, &registry::PODS, nominated);
    pass.check("nominating a node", written);
    for v in &plan.victims {
        let Some(victim) = api.store().get(&registry::PODS, &v.namespace, &v.name) else {
            continue;
        };
        if meta::uid(&victim.value) != v.uid {
            continue;
        }
        let marked = disruption_target(
            &victim.value,
            "PreemptionByScheduler",
            &format!("{SCHEDULER_NAME}: preempting to accommodate a higher priority pod"),
        );
        let written = api.update_status_as(KUBE_SCHEDULER, &registry::PODS, marked);
        pass.check("marking a preemption victim", written);
        recorder.event(
            api,
            &registry::PODS,
            &victim.value,
            "Normal",
            "Preempted",
            &format!(
                "Preempted by pod {} on node {}",
                meta::uid(&preemptor.value),
                plan.node_name
            ),
        );
        let deleted = api.delete(&registry::PODS, &v.namespace, &v.name, &Default::default());
        pass.check("deleting a preemption victim", deleted);
    }
    pass
}

fn namespace_labels(api: &Api) -> BTreeMap<String, BTreeMap<String, String>> {
    api.store()
        .list(&registry::NAMESPACES, None)
        .0
        .iter()
        .map(|ns| {
            let labels = meta::labels(&ns.value)
                .map(|l| {
                    l.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                        .collect()
                })
                .unwrap_or_default();
            (ns.name().to_string(), labels)
        })
        .collect()
}
