//! Which nodes run a daemon pod, which pods a DaemonSet owns, and the creates and deletes that
//! bring them together (`daemon_controller.go`: `getDaemonPods`, `podsShouldBeOnNode`, `syncNodes`).

use std::collections::HashMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::PodTemplateSpec;
use serde_json::Value;

use super::pass::Snapshot;
use super::util::{node_name_of, PodBlueprint};
use super::{Asked, DaemonSetController, Placement};
use crate::api::Api;
use crate::controllers::ownership::{adopt, claim, release, Claim};
use crate::controllers::pod_control::PodControl;
pub(super) use crate::controllers::replicaset::controller_uid;
use crate::meta;
use crate::registry;
use crate::scheduler::node_should_run_daemon_pod;
use crate::selectors::LabelSelector;
use crate::store::Stored;

/// `--concurrent-daemonset-syncs` burst: at most this many creates or deletes per sync.
pub(super) const BURST_REPLICAS: usize = 250;
/// `controller.SlowStartInitialBatchSize`.
pub(super) const SLOW_START_INITIAL_BATCH_SIZE: usize = 1;

/// `metav1.NewControllerRef(ds, controllerKind)`.
pub(super) fn controller_ref(ds: &Value) -> Value {
    crate::controllers::ownership::controller_ref(ds, &registry::DAEMONSETS)
}

/// `podByCreationTimestampAndPhase`: scheduled pods first, then the oldest, then by name.
pub(super) fn sort_oldest_first(pods: &mut [Stored]) {
    pods.sort_by(|a, b| {
        let unscheduled = |p: &Stored| node_name_of(&p.value).is_empty();
        let created = |p: &Stored| {
            p.value["metadata"]["creationTimestamp"]
                .as_str()
                .unwrap_or("")
                .to_string()
        };
        unscheduled(a)
            .cmp(&unscheduled(b))
            .then_with(|| created(a).cmp(&created(b)))
            .then_with(|| a.name().cmp(b.name()))
    });
}

impl DaemonSetController {
    /// `NodeShouldRunDaemonPod` for every node, in node-list order. Answers are kept per
    /// DaemonSet generation and node version (the same stored object), so a pass only asks
    /// about nodes that changed; nodes are decoded only then.
    pub(super) fn placements<'n>(
        &mut self,
        ds: &Value,
        template: &PodTemplateSpec,
        nodes: &'n [Stored],
    ) -> Vec<(&'n Stored, (bool, bool))> {
        let generation = ds["metadata"]["generation"].as_i64().unwrap_or(0);
        let Self {
            placement,
            nodes: typed_nodes,
            ..
        } = self;
        let entry = placement
            .entry(meta::uid(ds).to_string())
            .or_insert_with(|| Placement {
                generation,
                answers: Vec::new(),
            });
        if entry.generation != generation {
            entry.generation = generation;
            entry.answers.clear();
        }
        let previous = std::mem::take(&mut entry.answers);
        let mut by_name: Option<HashMap<&str, &Asked>> = None;
        let mut out = Vec::with_capacity(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            let known = match previous.get(i) {
                Some((n, a)) if Arc::ptr_eq(n, node) => Some(*a),
                // Nodes came or went: find the node by name instead.
                _ => by_name
                    .get_or_insert_with(|| previous.iter().map(|e| (e.0.name(), e)).collect())
                    .get(node.name())
                    .filter(|(n, _)| Arc::ptr_eq(n, node))
                    .map(|(_, a)| *a),
            };
            let answer = known.unwrap_or_else(|| match typed_nodes.get(node) {
                Some(typed) => node_should_run_daemon_pod(template, &typed),
                // Never expected for a stored node: neither create nor delete there.
                None => (false, true),
            });
            out.push((node, answer));
        }
        entry.answers = out.iter().map(|(n, a)| ((*n).clone(), *a)).collect();
        out
    }

    /// `getDaemonPods` / `ClaimPods`: owned pods that still match, orphans that match (adopted),
    /// owned pods that no longer match (released). Failed writes are added to `errors`.
    pub(super) fn claim_pods(
        &self,
        api: &Api,
        ds: &Stored,
        selector: &LabelSelector,
        snap: &Snapshot,
        errors: &mut Vec<String>,
    ) -> Vec<Stored> {
        let v = &ds.value;
        let ns = ds.namespace();
        let mut claimed = Vec::new();
        for pod in snap.owned_pods.get(meta::uid(v)) {
            if pod.namespace() != ns {
                continue;
            }
            match claim(v, &pod.value, selector.matches(meta::labels(&pod.value))) {
                Claim::Owned => claimed.push((*pod).clone()),
                Claim::Release => {
                    if let Err(e) = release(api, &registry::PODS, pod, meta::uid(v)) {
                        errors.push(e.to_string());
                    }
                }
                Claim::Adopt | Claim::Ignore => {}
            }
        }
        for pod in snap.orphan_pods.get(ns) {
            if claim(v, &pod.value, selector.matches(meta::labels(&pod.value))) != Claim::Adopt {
                continue;
            }
            match adopt(api, &registry::PODS, pod, controller_ref(v)) {
                Ok(p) => claimed.push(p),
                // Another controller adopted it first, or it is gone: not ours this pass.
                Err(e) if e.code == 404 => {}
                Err(e) => errors.push(e.to_string()),
            }
        }
        claimed
    }

    /// `syncNodes`: deletes and slow-start batched creates, each capped at the burst size.
    /// Returns whether anything was written and the errors met.
    pub(super) fn sync_nodes(
        &self,
        api: &Api,
        ds: &Stored,
        deletes: &[String],
        creates: &[String],
        blueprint: &PodBlueprint,
    ) -> (bool, Vec<String>) {
        let ns = ds.namespace();
        let pods = PodControl {
            api,
            recorder: &self.recorder,
            kind: &registry::DAEMONSETS,
            owner: &ds.value,
        };
        let mut wrote = false;
        let mut errors = Vec::new();
        let create_count = creates.len().min(BURST_REPLICAS);
        let delete_count = deletes.len().min(BURST_REPLICAS);
        let mut batch = create_count.min(SLOW_START_INITIAL_BATCH_SIZE);
        let mut pos = 0;
        while pos < create_count {
            let errors_before = errors.len();
            for node in &creates[pos..pos + batch] {
                match pods.create(ns, blueprint.pod_for(node)) {
                    Ok(_) => wrote = true,
                    Err(e) if e.has_cause("NamespaceTerminating") => {}
                    Err(e) => errors.push(e.message),
                }
            }
            pos += batch;
            // Slow start: a failing batch stops the rest until the next sync.
            if errors.len() > errors_before {
                break;
            }
            batch = (2 * batch).min(create_count - pos);
        }
        for name in &deletes[..delete_count] {
            match pods.delete(ns, name) {
                Ok(deleted) => wrote |= deleted,
                Err(e) => errors.push(e.message),
            }
        }
        (wrote, errors)
    }
}
