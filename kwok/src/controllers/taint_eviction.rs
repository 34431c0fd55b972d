//! The taint eviction controller (`pkg/controller/tainteviction`): a pod bound to a node with a
//! NoExecute taint it does not tolerate is deleted at once; one that tolerates every such taint
//! is deleted when the shortest `tolerationSeconds` of the tolerations it uses runs out, and never
//! when none of them sets one. Before the delete the pod gets `DisruptionTarget=True`
//! (`DeletionByTaintManager`), and a `TaintManagerEviction` event says "Marking for deletion
//! Pod ns/name"; an eviction called off (the taint removed, the pod gone or now tolerating it)
//! says "Cancelling deletion of Pod ns/name".
//!
//! Like upstream's timed worker queue, an eviction is keyed by the pod's namespace and name, its
//! countdown runs from when the controller first saw the pod on the tainted node, and a pod it
//! has deleted is not deleted again until the eviction is called off.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, TimeDelta, Utc};
use k8s_openapi::api::core::v1::{Taint, Toleration};
use serde_json::{json, Value};

use super::events::Recorder;
use super::{just_after, Controller, Pass};
use crate::api::subresources::disruption_target;
use crate::api::Api;
use crate::registry;
use crate::scheduler::{tolerates, EFFECT_NO_EXECUTE};
use crate::store::Event;

/// The controller's name, its events' source component.
const COMPONENT: &str = "taint-eviction-controller";

/// A pod's eviction: planned (when it fires) or carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Eviction {
    Planned { at: DateTime<Utc> },
    Done,
}

pub struct TaintEviction {
    /// By pod (namespace, name).
    evictions: BTreeMap<(String, String), Eviction>,
    recorder: Recorder,
}

impl Default for TaintEviction {
    fn default() -> Self {
        Self {
            evictions: BTreeMap::new(),
            recorder: Recorder::new(COMPONENT),
        }
    }
}

/// `getNoExecuteTaints`.
fn no_execute_taints(node: &Value) -> Vec<Taint> {
    let taints: Vec<Taint> =
        serde_json::from_value(node["spec"]["taints"].clone()).unwrap_or_default();
    taints
        .into_iter()
        .filter(|taint| taint.effect == EFFECT_NO_EXECUTE)
        .collect()
}

/// `v1helper.GetMatchingTolerations`: whether every taint is tolerated, and for each taint the
/// first toleration that tolerates it.
fn matching_tolerations<'t>(
    taints: &[Taint],
    tolerations: &'t [Toleration],
) -> Option<Vec<&'t Toleration>> {
    taints
        .iter()
        .map(|taint| tolerations.iter().find(|t| tolerates(t, taint)))
        .collect()
}

/// `getMinTolerationTime`: the shortest `tolerationSeconds` of `used` (zero when one is zero or
/// less, or when there are none), `None` when no toleration sets one: tolerated forever.
fn min_toleration_time(used: &[&Toleration]) -> Option<TimeDelta> {
    if used.is_empty() {
        return Some(TimeDelta::zero());
    }
    used.iter()
        .filter_map(|t| t.toleration_seconds)
        .min()
        .map(|seconds| TimeDelta::seconds(seconds.max(0)))
}

/// What an eviction event says about a pod (`emitPodDeletionEvent`,
/// `emitCancelPodDeletionEvent`): a reference with no uid, built from the key.
fn pod_event(recorder: &Recorder, api: &Api, (ns, name): &(String, String), message: &str) {
    let reference = json!({"apiVersion": "v1", "kind": "Pod", "name": name, "namespace": ns});
    recorder.event_about(
        api,
        reference,
        "Normal",
        "TaintManagerEviction",
        &format!("{message} Pod {ns}/{name}"),
    );
}

impl TaintEviction {
    /// `cancelWorkWithEvent`: an eviction still planned is called off with an event; one carried
    /// out is forgotten quietly.
    fn cancel(&mut self, api: &Api, key: &(String, String)) {
        if let Some(Eviction::Planned { .. }) = self.evictions.remove(key) {
            pod_event(&self.recorder, api, key, "Cancelling deletion of");
        }
    }

    /// `deletePodHandler` / `addConditionAndDeletePod`.
    fn evict(&mut self, api: &Api, key: (String, String), pass: &mut Pass) {
        pod_event(&self.recorder, api, &key, "Marking for deletion");
        self.evictions.insert(key.clone(), Eviction::Done);
        let (ns, name) = &key;
        let Some(pod) = api.store().get(&registry::PODS, ns, name) else {
            return;
        };
        let marked = disruption_target(
            &pod.value,
            "DeletionByTaintManager",
            "Taint manager: deleting due to NoExecute taint",
        );
        if marked != pod.value {
            let written = api.update_status(&registry::PODS, marked);
            pass.check("marking a pod for taint eviction", written);
        }
        let deleted = api.delete(&registry::PODS, ns, name, &Default::default());
        pass.check("deleting a pod for a NoExecute taint", deleted);
    }

    /// One pass at `now`: `handleNodeUpdate` and `handlePodUpdate` over the whole state, then
    /// the evictions due.
    fn reconcile_at(&mut self, api: &Api, now: DateTime<Utc>) -> Pass {
        let mut pass = Pass::default();
        let tainted: BTreeMap<String, Vec<Taint>> = api
            .store()
            .list(&registry::NODES, None)
            .0
            .iter()
            .map(|node| (node.name().to_string(), no_execute_taints(&node.value)))
            .filter(|(_, taints)| !taints.is_empty())
            .collect();
        // Most of the time no node has a NoExecute taint: nothing to look at.
        if tainted.is_empty() && self.evictions.is_empty() {
            return pass;
        }
        let mut on_tainted = BTreeSet::new();
        let mut due = Vec::new();
        for pod in api.store().list(&registry::PODS, None).0 {
            let node = pod.value["spec"]["nodeName"].as_str().unwrap_or_default();
            let Some(taints) = tainted.get(node) else {
                continue;
            };
            let key = (pod.namespace().to_string(), pod.name().to_string());
            on_tainted.insert(key.clone());
            let tolerations: Vec<Toleration> =
                serde_json::from_value(pod.value["spec"]["tolerations"].clone())
                    .unwrap_or_default();
            let planned = self.evictions.get(&key).copied();
            let Some(used) = matching_tolerations(taints, &tolerations) else {
                // Not every taint tolerated: evicted now, unless that was done already.
                if planned != Some(Eviction::Done) {
                    self.cancel(api, &key);
                    due.push(key);
                }
                continue;
            };
            match (min_toleration_time(&used), planned) {
                (None, _) => self.cancel(api, &key),
                // Planned already: the countdown keeps its start.
                (Some(_), Some(Eviction::Planned { at })) if at <= now => due.push(key),
                (Some(_), Some(_)) => {}
                (Some(wait), None) => {
                    let at = now + wait;
                    if at <= now {
                        due.push(key);
                    } else {
                        self.evictions.insert(key, Eviction::Planned { at });
                    }
                }
            }
        }
        // Pods gone, moved, or on nodes whose NoExecute taints were all removed.
        let stale: Vec<(String, String)> = self
            .evictions
            .keys()
            .filter(|key| !on_tainted.contains(*key))
            .cloned()
            .collect();
        for key in stale {
            self.cancel(api, &key);
        }
        for key in due {
            self.evict(api, key, &mut pass);
        }
        for eviction in self.evictions.values() {
            if let Eviction::Planned { at } = eviction {
                pass.wake(Some(just_after(*at, now)));
            }
        }
        pass
    }
}

impl Controller for TaintEviction {
    fn name(&self) -> &'static str {
        COMPONENT
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::NODES) || std::ptr::eq(ev.res, &registry::PODS)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        self.reconcile_at(api, Utc::now())
    }
}

#[cfg(test)]
mod tests;
