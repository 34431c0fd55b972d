//! Choosing the pods to delete (`getPodsToDelete` in `replica_set.go`,
//! `controller.ActivePodsWithRanks` in `controller_utils.go`).

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::access::{is_pod_active, is_pod_ready, parse_time};
use crate::meta;
use crate::podutil::condition;
use crate::store::Stored;

/// `controller.kubernetes.io/pod-deletion-cost` (feature PodDeletionCost, on by default).
const DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// What `ActivePodsWithRanks.Less` looks at, extracted once per pod.
struct RankedPod<'a> {
    node: &'a str,
    phase: u8,
    ready: bool,
    deletion_cost: i32,
    /// Active related pods on the same node.
    colocated: usize,
    ready_since: Option<DateTime<Utc>>,
    restarts: (i64, i64),
    created: Option<DateTime<Utc>>,
    uid: &'a str,
}

impl<'a> RankedPod<'a> {
    fn new(pod: &'a Value, pods_on_node: &HashMap<&str, usize>) -> Self {
        let node = pod["spec"]["nodeName"].as_str().unwrap_or("");
        let ready = is_pod_ready(pod);
        RankedPod {
            node,
            phase: match pod["status"]["phase"].as_str() {
                Some("Unknown") => 1,
                Some("Running") => 2,
                _ => 0,
            },
            ready,
            deletion_cost: meta::annotation(pod, DELETION_COST)
                .and_then(|s| s.parse::<i32>().ok())
                .unwrap_or(0),
            colocated: pods_on_node.get(node).copied().unwrap_or(0),
            ready_since: if ready {
                condition(pod, "Ready").and_then(|c| parse_time(&c["lastTransitionTime"]))
            } else {
                None
            },
            restarts: max_container_restarts(pod),
            created: parse_time(&pod["metadata"]["creationTimestamp"]),
            uid: meta::uid(pod),
        }
    }
}

/// `maxContainerRestarts`: the most restarts of a regular container, and of a sidecar
/// (an init container with restartPolicy Always).
fn max_container_restarts(pod: &Value) -> (i64, i64) {
    let regular = pod["status"]["containerStatuses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["restartCount"].as_i64())
        .max()
        .unwrap_or(0);
    let sidecars: HashSet<&str> = pod["spec"]["initContainers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["restartPolicy"] == "Always")
        .filter_map(|c| c["name"].as_str())
        .collect();
    let sidecar = pod["status"]["initContainerStatuses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["name"].as_str().is_some_and(|n| sidecars.contains(n)))
        .filter_map(|c| c["restartCount"].as_i64())
        .max()
        .unwrap_or(0);
    (regular, sidecar)
}

/// `afterOrZero`: a zero time sorts first, else the later one.
fn after_or_zero(t1: Option<DateTime<Utc>>, t2: Option<DateTime<Utc>>) -> bool {
    match (t1, t2) {
        (Some(a), Some(b)) => a > b,
        (a, _) => a.is_none(),
    }
}

/// `logarithmicRankDiff`: compare how long ago two times were on a log2 scale of nanoseconds
/// (feature LogarithmicScaleDown, on by default).
fn logarithmic_rank_diff(t1: DateTime<Utc>, t2: DateTime<Utc>, now: DateTime<Utc>) -> i64 {
    let rank = |t: DateTime<Utc>| {
        let d = (now - t).num_nanoseconds().unwrap_or(i64::MAX);
        if d > 0 {
            // Truncation toward zero, as Go's int64(math.Log2(...)).
            (d as f64).log2() as i64
        } else {
            -1
        }
    };
    rank(t1) - rank(t2)
}

/// Compare two timestamps the way steps 6 and 8 of `Less` do: recent (or unset) first, bucketed
/// logarithmically, the uid breaking ties within a bucket. `None` when they are equal.
fn newer_first(
    t1: Option<DateTime<Utc>>,
    t2: Option<DateTime<Utc>>,
    uids: (&str, &str),
    now: DateTime<Utc>,
) -> Option<bool> {
    if t1 == t2 {
        return None;
    }
    match (t1, t2) {
        (Some(a), Some(b)) => {
            let diff = logarithmic_rank_diff(a, b, now);
            Some(if diff == 0 { uids.0 < uids.1 } else { diff < 0 })
        }
        _ => Some(after_or_zero(t1, t2)),
    }
}

/// `ActivePodsWithRanks.Less`: true when `a` should be deleted before `b`.
fn delete_first(a: &RankedPod<'_>, b: &RankedPod<'_>, now: DateTime<Utc>) -> bool {
    // 1. Unassigned < assigned.
    if a.node != b.node && (a.node.is_empty() || b.node.is_empty()) {
        return a.node.is_empty();
    }
    // 2. Pending < Unknown < Running.
    if a.phase != b.phase {
        return a.phase < b.phase;
    }
    // 3. Not ready < ready.
    if a.ready != b.ready {
        return !a.ready;
    }
    // 4. Lower pod-deletion-cost < higher.
    if a.deletion_cost != b.deletion_cost {
        return a.deletion_cost < b.deletion_cost;
    }
    // 5. Doubled up < not doubled up.
    if a.colocated != b.colocated {
        return a.colocated > b.colocated;
    }
    // 6. Ready for less time < more time.
    if a.ready && b.ready {
        if let Some(less) = newer_first(a.ready_since, b.ready_since, (a.uid, b.uid), now) {
            return less;
        }
    }
    // 7. More container restarts < fewer.
    if a.restarts.0 != b.restarts.0 {
        return a.restarts.0 > b.restarts.0;
    }
    if a.restarts.1 != b.restarts.1 {
        return a.restarts.1 > b.restarts.1;
    }
    // 8. Newer < older.
    newer_first(a.created, b.created, (a.uid, b.uid), now).unwrap_or(false)
}

/// A stable merge sort driven by a `less` predicate. Upstream's ordering is not guaranteed to be
/// a total order (the uid tie-break inside a time bucket), which `slice::sort_by` may reject; a
/// merge sort simply produces an order.
fn merge_sort_by<T, F: Fn(&T, &T) -> bool>(items: Vec<T>, less: &F) -> Vec<T> {
    if items.len() <= 1 {
        return items;
    }
    let mut left = items;
    let right = left.split_off(left.len() / 2);
    let left = merge_sort_by(left, less);
    let right = merge_sort_by(right, less);
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut l = left.into_iter().peekable();
    let mut r = right.into_iter().peekable();
    loop {
        let take_right = match (l.peek(), r.peek()) {
            (Some(a), Some(b)) => less(b, a),
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (None, None) => break,
        };
        let next = if take_right { r.next() } else { l.next() };
        out.extend(next);
    }
    out
}

/// `getPodsToDelete`: the first `diff` pods in deletion order (no ranking when all go).
pub(super) fn pods_to_delete<'p>(
    active: &'p [Stored],
    related: &[&Stored],
    diff: usize,
    now: DateTime<Utc>,
) -> Vec<&'p Stored> {
    if diff >= active.len() {
        return active.iter().collect();
    }
    let mut pods_on_node: HashMap<&str, usize> = HashMap::new();
    for pod in related {
        if is_pod_active(&pod.value) {
            *pods_on_node
                .entry(pod.value["spec"]["nodeName"].as_str().unwrap_or(""))
                .or_default() += 1;
        }
    }
    let ranked: Vec<(RankedPod<'_>, &Stored)> = active
        .iter()
        .map(|p| (RankedPod::new(&p.value, &pods_on_node), p))
        .collect();
    merge_sort_by(
        ranked,
        &|a: &(RankedPod<'_>, &Stored), b: &(RankedPod<'_>, &Stored)| delete_first(&a.0, &b.0, now),
    )
    .into_iter()
    .take(diff)
    .map(|(_, p)| p)
    .collect()
}
