//! The ReplicaSet controller (`pkg/controller/replicaset/replica_set.go`): every ReplicaSet keeps
//! `spec.replicas` active pods. It claims pods by controller reference (adopting matching orphans,
//! releasing owned pods whose labels stopped matching), creates the missing ones from the template
//! in slow-start batches, deletes the surplus in the order `getPodsToDelete` ranks them, and
//! reports replicas / fullyLabeledReplicas / readyReplicas / availableReplicas and the
//! ReplicaFailure condition — writing the status only when it changed.
//!
//! The helpers shared with the Deployment controller (controller references, claiming, pod
//! readiness) live here too, as `pub(crate)` items.

// The errors are the API's own Status values, returned at most once per sync: boxing them
// would buy nothing.
#![allow(clippy::result_large_err)]

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::{events, Controller};
use crate::api::{meta, Api, DeleteOptions, WriteOptions};
use crate::error::{ApiError, ApiResult};
use crate::registry::{self, ResourceDef};
use crate::selectors::LabelSelector;
use crate::store::{Event, Stored};

/// The event source of this controller.
pub const COMPONENT: &str = "replicaset-controller";
/// `controller.kubernetes.io/pod-deletion-cost` (feature PodDeletionCost, on by default).
const DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";
/// kube-controller-manager's `burstReplicas` for ReplicaSets: at most this many creates or
/// deletes per sync.
const BURST_REPLICAS: usize = 500;
/// `controller.SlowStartInitialBatchSize`.
const SLOW_START_INITIAL_BATCH: usize = 1;
const REPLICA_FAILURE: &str = "ReplicaFailure";

#[derive(Default)]
pub struct ReplicaSetController;

impl Controller for ReplicaSetController {
    fn name(&self) -> &'static str {
        COMPONENT
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::REPLICASETS) || std::ptr::eq(ev.res, &registry::PODS)
    }

    fn reconcile(&mut self, api: &Api) -> Option<Duration> {
        let store = api.store();
        let (sets, _) = store.list(&registry::REPLICASETS, None);
        if sets.is_empty() {
            return None;
        }
        let (pods, _) = store.list(&registry::PODS, None);
        let index = PodIndex::new(&pods);
        let mut siblings: HashMap<&str, Vec<&Stored>> = HashMap::new();
        for rs in &sets {
            if let Some(owner) = controller_uid(&rs.value) {
                siblings.entry(owner).or_default().push(rs);
            }
        }
        let mut next: Option<Duration> = None;
        for rs in &sets {
            let after = sync_replica_set(api, rs, &index, &siblings);
            next = earliest(next, after);
        }
        next
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers shared with the Deployment controller.

/// The sooner of two optional wake-ups.
pub(crate) fn earliest(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// `metav1.NewControllerRef`: the reference a controller puts on what it creates or adopts.
pub(crate) fn controller_ref(owner: &Value, res: &ResourceDef) -> Value {
    json!({
        "apiVersion": res.api_version(),
        "kind": res.kind,
        "name": meta::name(owner),
        "uid": meta::uid(owner),
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

/// The uid of the object's managing controller, if it has one.
pub(crate) fn controller_uid(obj: &Value) -> Option<&str> {
    meta::controller_ref(obj).and_then(|r| r["uid"].as_str())
}

/// What `ControllerRefManager.ClaimObject` decides for one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    /// Already ours and still selected.
    Owned,
    /// An orphan we select: take it.
    Adopt,
    /// Ours, but no longer selected: let it go.
    Release,
    /// Someone else's, or not for us.
    Ignore,
}

/// `BaseControllerRefManager.ClaimObject` (`pkg/controller/controller_ref_manager.go`).
pub(crate) fn claim(owner: &Value, candidate: &Value, selected: bool) -> Claim {
    let owner_deleting = meta::is_deleting(owner);
    match controller_uid(candidate) {
        Some(uid) if uid != meta::uid(owner) => Claim::Ignore,
        Some(_) if selected => Claim::Owned,
        // Owned but no longer selected: release, unless we are being deleted.
        Some(_) if owner_deleting => Claim::Ignore,
        Some(_) => Claim::Release,
        None if owner_deleting || !selected || meta::is_deleting(candidate) => Claim::Ignore,
        None if !meta::namespace(owner).is_empty()
            && meta::namespace(owner) != meta::namespace(candidate) =>
        {
            Claim::Ignore
        }
        None => Claim::Adopt,
    }
}

/// Adopt `obj`: add the controller reference (the adoption patch of `ClaimObject`). The write is
/// conditional on the version read, so two controllers racing for an orphan cannot both win.
pub(crate) fn adopt(
    api: &Api,
    res: &'static ResourceDef,
    obj: &Stored,
    owner_ref: Value,
) -> ApiResult<Stored> {
    let mut v = obj.value.clone();
    let m = meta::meta_mut(&mut v);
    let refs = m.entry("ownerReferences").or_insert_with(|| json!([]));
    if !refs.is_array() {
        *refs = json!([]);
    }
    if let Some(list) = refs.as_array_mut() {
        list.push(owner_ref);
    }
    api.update(
        res,
        obj.namespace(),
        obj.name(),
        v,
        None,
        &WriteOptions::default(),
    )
}

/// Release `obj`: drop the owner's reference (the `$patch: delete` of `ClaimObject`).
pub(crate) fn release(
    api: &Api,
    res: &'static ResourceDef,
    obj: &Stored,
    owner_uid: &str,
) -> ApiResult<Stored> {
    let mut v = obj.value.clone();
    let m = meta::meta_mut(&mut v);
    let keep: Vec<Value> = m
        .get("ownerReferences")
        .and_then(Value::as_array)
        .map(|refs| {
            refs.iter()
                .filter(|r| r["uid"].as_str() != Some(owner_uid))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    if keep.is_empty() {
        m.remove("ownerReferences");
    } else {
        m.insert("ownerReferences".into(), Value::Array(keep));
    }
    api.update(
        res,
        obj.namespace(),
        obj.name(),
        v,
        None,
        &WriteOptions::default(),
    )
}

/// RFC 3339 timestamps as metav1.Time serialises them.
pub(crate) fn parse_time(v: &Value) -> Option<DateTime<Utc>> {
    v.as_str()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// A JSON object with its keys sorted, as Go encodes a `map[string]string`.
pub(crate) fn sorted(map: &Map<String, Value>) -> Map<String, Value> {
    let mut pairs: Vec<(&String, &Value)> = map.iter().collect();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    pairs
        .into_iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `controller.IsPodActive`: not terminal and not being deleted.
pub(crate) fn is_pod_active(pod: &Value) -> bool {
    !matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    ) && !meta::is_deleting(pod)
}

fn ready_condition(pod: &Value) -> Option<&Value> {
    pod["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Ready"))
}

/// `podutil.IsPodReady`.
pub(crate) fn is_pod_ready(pod: &Value) -> bool {
    ready_condition(pod).is_some_and(|c| c["status"] == "True")
}

/// When a ready pod counts as available (`podutil.IsPodAvailable`): at once without
/// minReadySeconds, else strictly after being ready that long. `None` for pods that are not ready.
pub(crate) fn available_at(pod: &Value, min_ready_seconds: i64) -> Option<Option<DateTime<Utc>>> {
    if !is_pod_ready(pod) {
        return None;
    }
    if min_ready_seconds <= 0 {
        return Some(None);
    }
    let since = ready_condition(pod).and_then(|c| parse_time(&c["lastTransitionTime"]));
    // A zero lastTransitionTime never becomes available (IsPodAvailable checks !IsZero).
    Some(Some(since.map_or(DateTime::<Utc>::MAX_UTC, |t| {
        t + chrono::Duration::seconds(min_ready_seconds)
    })))
}

/// `spec.replicas` with the API default of 1.
pub(crate) fn spec_replicas(obj: &Value) -> i64 {
    obj["spec"]["replicas"].as_i64().unwrap_or(1)
}

/// An integer status field (absent = 0, as Go's omitempty zero).
pub(crate) fn status_int(obj: &Value, field: &str) -> i64 {
    obj["status"][field].as_i64().unwrap_or(0)
}

/// Did a create fail because its namespace is being deleted (`NamespaceTerminatingCause`)?
pub(crate) fn namespace_terminating(e: &ApiError) -> bool {
    e.details.as_ref().is_some_and(|d| {
        d["causes"]
            .as_array()
            .is_some_and(|cs| cs.iter().any(|c| c["reason"] == "NamespaceTerminating"))
    })
}

// ---------------------------------------------------------------------------------------------
// The sync of one ReplicaSet.

/// The pods of one pass, indexed once.
struct PodIndex<'a> {
    /// Active pods by the uid of their controller.
    controlled: HashMap<&'a str, Vec<&'a Stored>>,
    /// Active pods without a controller, by namespace.
    orphans: HashMap<&'a str, Vec<&'a Stored>>,
    /// Every pod, by namespace.
    by_namespace: HashMap<&'a str, Vec<&'a Stored>>,
}

impl<'a> PodIndex<'a> {
    fn new(pods: &'a [Stored]) -> Self {
        let mut index = PodIndex {
            controlled: HashMap::new(),
            orphans: HashMap::new(),
            by_namespace: HashMap::new(),
        };
        for pod in pods {
            index
                .by_namespace
                .entry(pod.namespace())
                .or_default()
                .push(pod);
            if !is_pod_active(&pod.value) {
                continue;
            }
            match controller_uid(&pod.value) {
                Some(uid) => index.controlled.entry(uid).or_default().push(pod),
                None => index.orphans.entry(pod.namespace()).or_default().push(pod),
            }
        }
        index
    }

    fn controlled_by(&self, uid: &str) -> &[&'a Stored] {
        self.controlled.get(uid).map_or(&[], Vec::as_slice)
    }

    fn orphans_in(&self, ns: &str) -> &[&'a Stored] {
        self.orphans.get(ns).map_or(&[], Vec::as_slice)
    }

    fn in_namespace(&self, ns: &str) -> &[&'a Stored] {
        self.by_namespace.get(ns).map_or(&[], Vec::as_slice)
    }
}

fn sync_replica_set(
    api: &Api,
    rs: &Stored,
    index: &PodIndex<'_>,
    siblings: &HashMap<&str, Vec<&Stored>>,
) -> Option<Duration> {
    let v = &rs.value;
    // An invalid selector matches nothing; upstream logs it and gives up on the set.
    let Ok(selector) = LabelSelector::from_api(&v["spec"]["selector"]) else {
        return None;
    };
    let active = claim_pods(api, rs, &selector, index);
    let manage_err = if meta::is_deleting(v) {
        None
    } else {
        manage_replicas(api, rs, &active, index, siblings).err()
    };
    let now = Utc::now();
    let counts = PodCounts::of(v, &active, now);
    let status = calculate_status(v, &counts, manage_err.as_deref(), &meta::now());
    if status_changed(v, &status) {
        let mut updated = v.clone();
        updated["status"] = with_observed_generation(status, v);
        if let Err(e) = api.update(
            &registry::REPLICASETS,
            rs.namespace(),
            rs.name(),
            updated,
            Some("status"),
            &WriteOptions::default(),
        ) {
            tracing::debug!(error = %e, rs = rs.name(), "replica set status");
        }
    }
    if manage_err.is_some() {
        // Upstream requeues with backoff on errors; look again shortly.
        return Some(Duration::from_secs(1));
    }
    // Wake when the next ready pod passes minReadySeconds (upstream resyncs after
    // minReadySeconds for the same reason).
    counts
        .next_available
        .map(|at| (at - now).to_std().unwrap_or_default() + Duration::from_millis(10))
}

/// `ReplicaSetController.claimPods` over the active pods of the namespace.
fn claim_pods(
    api: &Api,
    rs: &Stored,
    selector: &LabelSelector,
    index: &PodIndex<'_>,
) -> Vec<Stored> {
    let v = &rs.value;
    let mut claimed = Vec::new();
    for pod in index.controlled_by(meta::uid(v)) {
        if pod.namespace() != rs.namespace() {
            continue;
        }
        let selected = selector.matches(meta::labels(&pod.value));
        match claim(v, &pod.value, selected) {
            Claim::Owned => claimed.push((*pod).clone()),
            Claim::Release => {
                if let Err(e) = release(api, &registry::PODS, pod, meta::uid(v)) {
                    tracing::debug!(error = %e, pod = pod.name(), "releasing pod");
                }
            }
            Claim::Adopt | Claim::Ignore => {}
        }
    }
    for pod in index.orphans_in(rs.namespace()) {
        let selected = selector.matches(meta::labels(&pod.value));
        if claim(v, &pod.value, selected) != Claim::Adopt {
            continue;
        }
        match adopt(
            api,
            &registry::PODS,
            pod,
            controller_ref(v, &registry::REPLICASETS),
        ) {
            Ok(adopted) => claimed.push(adopted),
            // Another controller adopted it first, or it is gone: not ours this pass.
            Err(e) => tracing::debug!(error = %e, pod = pod.name(), "adopting pod"),
        }
    }
    claimed
}

/// `ReplicaSetController.manageReplicas`: the error message becomes the ReplicaFailure condition.
fn manage_replicas(
    api: &Api,
    rs: &Stored,
    active: &[Stored],
    index: &PodIndex<'_>,
    siblings: &HashMap<&str, Vec<&Stored>>,
) -> Result<(), String> {
    let want = usize::try_from(spec_replicas(&rs.value)).unwrap_or(0);
    if active.len() < want {
        let diff = (want - active.len()).min(BURST_REPLICAS);
        return create_pods(api, rs, diff);
    }
    if active.len() > want {
        let diff = (active.len() - want).min(BURST_REPLICAS);
        let related = related_pods(rs, index, siblings);
        let victims = pods_to_delete(active, &related, diff, Utc::now());
        let mut first_err = None;
        for pod in victims {
            if let Err(e) = delete_pod(api, rs, pod) {
                first_err.get_or_insert(e);
            }
        }
        return first_err.map_or(Ok(()), Err);
    }
    Ok(())
}

/// `slowStartBatch`: batches of 1, 2, 4, ... stopping after the first batch with a failure.
fn create_pods(api: &Api, rs: &Stored, count: usize) -> Result<(), String> {
    let mut remaining = count;
    let mut batch = SLOW_START_INITIAL_BATCH;
    while remaining > 0 {
        let size = batch.min(remaining);
        let mut first_err: Option<String> = None;
        for _ in 0..size {
            if let Err(e) = create_pod(api, rs) {
                first_err.get_or_insert(e);
            }
        }
        if let Some(e) = first_err {
            return Err(e);
        }
        remaining -= size;
        batch *= 2;
    }
    Ok(())
}

/// `controller.GetPodFromTemplate`: the template's labels, annotations, finalizers and spec, a
/// `<rs>-` generateName and the controller reference.
pub(crate) fn pod_from_template(rs: &Value, res: &ResourceDef) -> Value {
    let template = &rs["spec"]["template"];
    let tmeta = &template["metadata"];
    let mut m = Map::new();
    m.insert("generateName".into(), json!(format!("{}-", meta::name(rs))));
    for key in ["labels", "annotations"] {
        if let Some(map) = tmeta[key].as_object().filter(|m| !m.is_empty()) {
            m.insert(key.into(), Value::Object(sorted(map)));
        }
    }
    m.insert("ownerReferences".into(), json!([controller_ref(rs, res)]));
    if let Some(f) = tmeta["finalizers"].as_array().filter(|f| !f.is_empty()) {
        m.insert("finalizers".into(), Value::Array(f.clone()));
    }
    let mut pod = Map::new();
    pod.insert("apiVersion".into(), json!("v1"));
    pod.insert("kind".into(), json!("Pod"));
    pod.insert("metadata".into(), Value::Object(m));
    pod.insert("spec".into(), template["spec"].clone());
    Value::Object(pod)
}

/// `RealPodControl.CreatePods` with its events.
fn create_pod(api: &Api, rs: &Stored) -> Result<(), String> {
    let pod = pod_from_template(&rs.value, &registry::REPLICASETS);
    if meta::labels(&pod).is_none_or(|l| l.is_empty()) {
        return Err("unable to create pods, no labels".into());
    }
    match api.create(
        &registry::PODS,
        rs.namespace(),
        pod,
        &WriteOptions::default(),
    ) {
        Ok(created) => {
            events::record(
                api,
                &registry::REPLICASETS,
                &rs.value,
                "Normal",
                "SuccessfulCreate",
                &format!("Created pod: {}", created.name()),
                COMPONENT,
            );
            Ok(())
        }
        // Every create fails in a terminating namespace; that is not a replica failure.
        Err(e) if namespace_terminating(&e) => Ok(()),
        Err(e) => {
            events::record(
                api,
                &registry::REPLICASETS,
                &rs.value,
                "Warning",
                "FailedCreate",
                &format!("Error creating: {}", e.message),
                COMPONENT,
            );
            Err(e.message)
        }
    }
}

/// `RealPodControl.DeletePod` with its events; a pod already gone is no error.
fn delete_pod(api: &Api, rs: &Stored, pod: &Stored) -> Result<(), String> {
    match api.delete(
        &registry::PODS,
        pod.namespace(),
        pod.name(),
        &DeleteOptions::default(),
    ) {
        Ok(_) => {
            events::record(
                api,
                &registry::REPLICASETS,
                &rs.value,
                "Normal",
                "SuccessfulDelete",
                &format!("Deleted pod: {}", pod.name()),
                COMPONENT,
            );
            Ok(())
        }
        Err(e) if e.code == 404 => Ok(()),
        Err(e) => {
            events::record(
                api,
                &registry::REPLICASETS,
                &rs.value,
                "Warning",
                "FailedDelete",
                &format!("Error deleting: {}", e.message),
                COMPONENT,
            );
            Err(format!("unable to delete pods: {}", e.message))
        }
    }
}

/// `getIndirectlyRelatedPods`: the pods selected by every ReplicaSet sharing this one's
/// controller (the Deployment's other revisions), each counted once.
fn related_pods<'a>(
    rs: &Stored,
    index: &PodIndex<'a>,
    siblings: &HashMap<&str, Vec<&Stored>>,
) -> Vec<&'a Stored> {
    let Some(owner) = controller_uid(&rs.value) else {
        return Vec::new();
    };
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for sibling in siblings.get(owner).into_iter().flatten() {
        let Ok(selector) = LabelSelector::from_api(&sibling.value["spec"]["selector"]) else {
            continue;
        };
        for pod in index.in_namespace(sibling.namespace()) {
            if selector.matches(meta::labels(&pod.value)) && seen.insert(meta::uid(&pod.value)) {
                out.push(*pod);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Choosing the pods to delete (`getPodsToDelete`, `controller.ActivePodsWithRanks`).

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
                ready_condition(pod).and_then(|c| parse_time(&c["lastTransitionTime"]))
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
fn pods_to_delete<'p>(
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

// ---------------------------------------------------------------------------------------------
// Status (`replica_set_utils.go`).

#[derive(Debug, Default, PartialEq)]
struct PodCounts {
    replicas: i64,
    fully_labeled: i64,
    ready: i64,
    available: i64,
    /// When the next ready-but-not-yet-available pod becomes available.
    next_available: Option<DateTime<Utc>>,
}

impl PodCounts {
    fn of(rs: &Value, pods: &[Stored], now: DateTime<Utc>) -> Self {
        let template_labels = rs["spec"]["template"]["metadata"]["labels"].as_object();
        let min_ready = rs["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
        let mut c = PodCounts {
            replicas: pods.len() as i64,
            ..Default::default()
        };
        for pod in pods {
            let labels = meta::labels(&pod.value);
            let fully = template_labels
                .into_iter()
                .flatten()
                .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v));
            if fully {
                c.fully_labeled += 1;
            }
            match available_at(&pod.value, min_ready) {
                None => {}
                Some(None) => {
                    c.ready += 1;
                    c.available += 1;
                }
                Some(Some(at)) => {
                    c.ready += 1;
                    if at < now {
                        c.available += 1;
                    } else if at != DateTime::<Utc>::MAX_UTC {
                        c.next_available =
                            Some(c.next_available.map_or(at, |n: DateTime<Utc>| n.min(at)));
                    }
                }
            }
        }
        c
    }
}

/// `calculateStatus`: the counts, plus a ReplicaFailure condition while creates or deletes fail.
/// `observedGeneration` is left as it was ([`with_observed_generation`] sets it on write).
fn calculate_status(rs: &Value, counts: &PodCounts, manage_err: Option<&str>, now: &str) -> Value {
    let old = &rs["status"];
    let mut conditions: Vec<Value> = old["conditions"].as_array().cloned().unwrap_or_default();
    let failure = conditions.iter().position(|c| c["type"] == REPLICA_FAILURE);
    match (manage_err, failure) {
        (Some(message), None) => {
            let want = spec_replicas(rs);
            let reason = match counts.replicas.cmp(&want) {
                std::cmp::Ordering::Less => "FailedCreate",
                std::cmp::Ordering::Greater => "FailedDelete",
                std::cmp::Ordering::Equal => "",
            };
            let mut c = Map::new();
            c.insert("type".into(), json!(REPLICA_FAILURE));
            c.insert("status".into(), json!("True"));
            c.insert("lastTransitionTime".into(), json!(now));
            if !reason.is_empty() {
                c.insert("reason".into(), json!(reason));
            }
            c.insert("message".into(), json!(message));
            conditions.push(Value::Object(c));
        }
        (None, Some(i)) => {
            conditions.remove(i);
        }
        _ => {}
    }
    // Zeros are omitted (omitempty), except `replicas`.
    let mut s = old.as_object().cloned().unwrap_or_default();
    s.insert("replicas".into(), json!(counts.replicas));
    for (key, n) in [
        ("fullyLabeledReplicas", counts.fully_labeled),
        ("readyReplicas", counts.ready),
        ("availableReplicas", counts.available),
    ] {
        if n != 0 {
            s.insert(key.into(), json!(n));
        } else {
            s.remove(key);
        }
    }
    if conditions.is_empty() {
        s.remove("conditions");
    } else {
        s.insert("conditions".into(), Value::Array(conditions));
    }
    Value::Object(go_order(s))
}

/// The status keys in the order Go encodes `ReplicaSetStatus`, unknown ones after.
fn go_order(mut s: Map<String, Value>) -> Map<String, Value> {
    const ORDER: [&str; 7] = [
        "replicas",
        "fullyLabeledReplicas",
        "readyReplicas",
        "availableReplicas",
        "terminatingReplicas",
        "observedGeneration",
        "conditions",
    ];
    let mut out = Map::new();
    for key in ORDER {
        if let Some(v) = s.remove(key) {
            out.insert(key.into(), v);
        }
    }
    out.extend(s);
    out
}

/// `updateReplicaSetStatus`'s steady-state check: counts, observed generation and conditions.
fn status_changed(rs: &Value, new: &Value) -> bool {
    let old = &rs["status"];
    let n = |v: &Value, k: &str| v[k].as_i64().unwrap_or(0);
    let generation = rs["metadata"]["generation"].as_i64().unwrap_or(0);
    let conds = |v: &Value| v["conditions"].as_array().cloned().unwrap_or_default();
    [
        "replicas",
        "fullyLabeledReplicas",
        "readyReplicas",
        "availableReplicas",
    ]
    .iter()
    .any(|k| n(old, k) != n(new, k))
        || generation != n(old, "observedGeneration")
        || conds(old) != conds(new)
}

/// The status as written: it records the generation acted on.
fn with_observed_generation(status: Value, rs: &Value) -> Value {
    let generation = rs["metadata"]["generation"].as_i64().unwrap_or(0);
    let mut s = status.as_object().cloned().unwrap_or_default();
    if generation != 0 {
        s.insert("observedGeneration".into(), json!(generation));
    } else {
        s.remove("observedGeneration");
    }
    Value::Object(go_order(s))
}

#[cfg(test)]
pub(crate) mod tests;
