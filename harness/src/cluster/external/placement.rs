//! Where pods stand: a node the learner cordoned or tainted is relaxed until the snapshot's pods
//! are placed as they were, and the pods placed since go.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde_json::Value;

use super::objects::{terminating, text, ObjectKey, ObjectSet, SYSTEM_NAMESPACES};
use super::waiting::{Waiting, PLACEMENT_CEILING, PLACEMENT_STILL};
use crate::cluster::kubectl::Kubectl;

/// Taint effects that keep the scheduler from placing a pod that does not tolerate them.
const REPELLING_EFFECTS: &[&str] = &["NoSchedule", "NoExecute"];

/// A node that new pods cannot land on: cordoned, or tainted NoSchedule or NoExecute.
fn restricted(node: &Value) -> bool {
    node.pointer("/spec/unschedulable") == Some(&Value::Bool(true))
        || node
            .pointer("/spec/taints")
            .and_then(Value::as_array)
            .is_some_and(|taints| {
                taints
                    .iter()
                    .any(|taint| REPELLING_EFFECTS.contains(&text(taint, "/effect")))
            })
}

/// The node without what keeps new pods off it (the cordon and the repelling taints).
pub(super) fn relaxed(node: &Value) -> Value {
    let mut node = node.clone();
    if let Some(spec) = node.get_mut("spec").and_then(Value::as_object_mut) {
        spec.remove("unschedulable");
        if let Some(Value::Array(taints)) = spec.get_mut("taints") {
            taints.retain(|taint| !REPELLING_EFFECTS.contains(&text(taint, "/effect")));
        }
    }
    node
}

/// The pods of `pods` on the `relaxed` nodes beyond what `target` has there, owner by owner
/// and phase by phase: the newest of each group.
pub(super) fn surplus(
    target: &ObjectSet,
    pods: &[Value],
    relaxed: &BTreeSet<&str>,
) -> Vec<ObjectKey> {
    let pinned = restricted_nodes(target);
    let want = placement(pods_of(target), &pinned);
    let mut groups: BTreeMap<PlacementKey, Vec<&Value>> = BTreeMap::new();
    for pod in pods {
        if !relaxed.contains(text(pod, "/spec/nodeName")) {
            continue;
        }
        if let Some(key) = placed_as(pod, &pinned) {
            groups.entry(key).or_default().push(pod);
        }
    }
    let mut extra = Vec::new();
    for (key, mut pods) in groups {
        let wanted = want.get(&key).copied().unwrap_or(0);
        if pods.len() <= wanted {
            continue;
        }
        // RFC 3339 times in UTC compare as text; the name breaks a tie.
        pods.sort_by_key(|pod| {
            (
                text(pod, "/metadata/creationTimestamp"),
                text(pod, "/metadata/name"),
            )
        });
        for pod in &pods[wanted..] {
            extra.push((
                "pods".to_string(),
                text(pod, "/metadata/namespace").to_string(),
                text(pod, "/metadata/name").to_string(),
            ));
        }
    }
    extra
}

/// When [`wait_placed`] is satisfied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Fit {
    /// The pods are placed as in the snapshot.
    Exact,
    /// The nodes that take no new pods have at least the snapshot's pods of each owner (while
    /// they are relaxed: others may land there too, see [`surplus`]).
    PinnedTakenBack,
}

impl Fit {
    pub(super) fn holds(self, want: &Placement, now: &Placement) -> bool {
        match self {
            Fit::Exact => now == want,
            Fit::PinnedTakenBack => want
                .iter()
                .filter(|(key, _)| !key.2.is_empty() && key.2 != BOUND_ELSEWHERE)
                .all(|(key, count)| now.get(key).copied().unwrap_or(0) >= *count),
        }
    }
}

/// Where pods are: how many pods of each owner (a bare pod stands for itself) are in each phase,
/// by namespace, and whether they are bound to a node — to which one only for the nodes that
/// `pinned` names (nodes that take no new pods, where the scheduler could not put a pod back:
/// elsewhere it may choose another node as well as the first time). Pods on their way out are
/// not counted.
pub(super) type Placement = BTreeMap<PlacementKey, usize>;

/// (namespace, owner, node, phase) of [`Placement`].
type PlacementKey = (String, String, String, String);

/// The node part of a pod's [`Placement`] key.
const BOUND_ELSEWHERE: &str = "*";

pub(super) fn placement<'a>(
    pods: impl Iterator<Item = &'a Value>,
    pinned: &BTreeSet<String>,
) -> Placement {
    let mut placed = Placement::new();
    for key in pods.filter_map(|pod| placed_as(pod, pinned)) {
        *placed.entry(key).or_default() += 1;
    }
    placed
}

/// The [`Placement`] key `pod` counts under; `None` for a pod on its way out or in a system
/// namespace, which are not counted.
fn placed_as(pod: &Value, pinned: &BTreeSet<String>) -> Option<PlacementKey> {
    let namespace = text(pod, "/metadata/namespace");
    if terminating(pod) || SYSTEM_NAMESPACES.contains(&namespace) {
        return None;
    }
    let owner = pod
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .and_then(|owners| owners.iter().find(|o| o["controller"] == true))
        .map(|o| format!("{}/{}", text(o, "/kind"), text(o, "/name")))
        .unwrap_or_else(|| format!("Pod/{}", text(pod, "/metadata/name")));
    let node = match text(pod, "/spec/nodeName") {
        "" => "",
        node if pinned.contains(node) => node,
        _ => BOUND_ELSEWHERE,
    };
    Some((
        namespace.to_string(),
        owner,
        node.to_string(),
        text(pod, "/status/phase").to_string(),
    ))
}

/// The nodes of `set` that take no new pods (see [`restricted`]).
pub(super) fn restricted_nodes(set: &ObjectSet) -> BTreeSet<String> {
    set.objects
        .iter()
        .filter(|(key, node)| key.0 == "nodes" && restricted(node))
        .map(|(key, _)| key.2.clone())
        .collect()
}

pub(super) fn pods_of(set: &ObjectSet) -> impl Iterator<Item = &Value> {
    set.objects
        .iter()
        .filter(|(key, _)| key.0 == "pods")
        .map(|(_, pod)| pod)
}

/// After a restore, waits until the pods are placed as in `target`: the controllers make pods
/// again under new names, and the scheduler may retry a pod that was unschedulable only after its
/// backoff (up to 10 s), long after the cluster looked quiet. Off the nodes that take no new pods,
/// any node will do (see [`Placement`]).
///
/// The wait gives up once the placement has not changed for [`PLACEMENT_STILL`] — a loaded
/// machine makes the cluster slower, not still, so it changes when the wait ends, never how it
/// ends — and at the latest after [`PLACEMENT_CEILING`].
pub(super) async fn wait_placed(kubectl: &Kubectl, target: &ObjectSet, fit: Fit) {
    let pinned = restricted_nodes(target);
    let want = placement(pods_of(target), &pinned);
    let mut ceiling = Waiting::new(PLACEMENT_CEILING);
    let mut waiting = Waiting::new(PLACEMENT_STILL);
    let mut last: Option<Placement> = None;
    loop {
        let now = match kubectl.list_all("pods").await {
            Ok(pods) => placement(pods.unwrap_or_default().iter(), &pinned),
            Err(error) => {
                tracing::warn!("restore: listing pods: {error:#}");
                return;
            }
        };
        if fit.holds(&want, &now) {
            return;
        }
        if last.as_ref().is_some_and(|last| *last != now) {
            waiting.restart();
        }
        if waiting.over() || ceiling.over() {
            let keys: BTreeSet<_> = want.keys().chain(now.keys()).collect();
            let differing: Vec<String> = keys
                .into_iter()
                .filter(|key| want.get(*key) != now.get(*key))
                .map(|key| {
                    let (namespace, owner, node, phase) = key;
                    let node = if node.is_empty() { "no node" } else { node };
                    let count = |placed: &Placement| placed.get(key).copied().unwrap_or(0);
                    format!(
                        "{namespace} {owner} on {node} {phase}: {} now, {} in the snapshot",
                        count(&now),
                        count(&want)
                    )
                })
                .collect();
            tracing::warn!(
                "restore: pods are not placed as in the snapshot after {} s ({})",
                ceiling.started.elapsed().as_secs(),
                differing.join("; ")
            );
            return;
        }
        ceiling.tell_once_slow(Duration::from_secs(3), || {
            "pods to be placed as in the snapshot".to_string()
        });
        last = Some(now);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}
