//! The disruption controller (`k/k pkg/controller/disruption/disruption.go`): keeps every
//! PodDisruptionBudget's status (expectedPods, desiredHealthy, currentHealthy,
//! disruptionsAllowed, disruptedPods, the `DisruptionAllowed` condition) in step with its pods,
//! which is what the eviction subresource decides by. It also resets `DisruptionTarget` pod
//! conditions that went stale because the evicted pod was never deleted.
//!
//! Upstream syncs a budget when it or one of its pods changes, or when a `disruptedPods` entry
//! expires. Here a pass fingerprints each budget's inputs (its resourceVersion and those of the
//! pods it selects) and syncs only budgets whose inputs moved or whose recheck time came, so the
//! events a sync records (`NoPods`, ...) come as often as upstream's.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::daemonset::{is_pod_ready, parse_time};
use super::{events, Controller};
use crate::api::subresources::set_condition;
use crate::api::{meta, Api, WriteOptions};
use crate::error::go_quote;
use crate::intstr::scaled_value;
use crate::registry::{self, ResourceDef};
use crate::selectors::LabelSelector;
use crate::store::{Event, Stored};

/// The event source of the controller (`NewDisruptionControllerInternal`).
pub const COMPONENT: &str = "controllermanager";
/// `DeletionTimeout`: how long a `disruptedPods` entry holds without the pod being deleted.
const DELETION_TIMEOUT: i64 = 120;
/// `stalePodDisruptionTimeout`.
const STALE_POD_DISRUPTION_TIMEOUT: i64 = 120;
/// Retry delay after a conflicting status write.
const CONFLICT_RETRY: Duration = Duration::from_millis(50);

pub const DISRUPTION_ALLOWED: &str = "DisruptionAllowed";

#[derive(Default)]
pub struct DisruptionController {
    synced: HashMap<(String, String), Synced>,
}

/// What a budget was last synced against.
struct Synced {
    fingerprint: u64,
    recheck_at: Option<Instant>,
}

/// Why a sync did not finish.
enum SyncError {
    /// The status write lost a race: sync again without the failSafe.
    Conflict,
    Failed(String),
}

fn earliest(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

fn after(at: DateTime<Utc>, now: DateTime<Utc>) -> Duration {
    // Timestamps have second precision and expiry is strict: look just after the instant.
    (at - now).to_std().unwrap_or_default() + Duration::from_millis(5)
}

fn record(api: &Api, res: &ResourceDef, obj: &Value, type_: &str, reason: &str, message: &str) {
    events::record(api, res, obj, type_, reason, message, COMPONENT);
}

/// `metav1.LabelSelector`'s generated `String()`, which `%v` prints in the UnmanagedPods event.
pub fn go_label_selector_string(sel: &Value) -> String {
    if sel.is_null() {
        return "nil".to_string();
    }
    let mut labels: Vec<(&String, &Value)> = sel["matchLabels"]
        .as_object()
        .map(|m| m.iter().collect())
        .unwrap_or_default();
    labels.sort_by(|a, b| a.0.cmp(b.0));
    let labels: String = labels
        .iter()
        .map(|(k, v)| format!("{k}: {},", v.as_str().unwrap_or("")))
        .collect();
    let exprs: String = sel["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let values: Vec<&str> = e["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            format!(
                "LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
                e["key"].as_str().unwrap_or(""),
                e["operator"].as_str().unwrap_or(""),
                values.join(" ")
            )
        })
        .collect();
    format!("&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")
}

/// `schema.ParseGroupVersion` → (group, version).
fn parse_group_version(gv: &str) -> Result<(&str, &str), String> {
    if gv.is_empty() || gv == "/" {
        return Ok(("", ""));
    }
    match gv.matches('/').count() {
        0 => Ok(("", gv)),
        1 => Ok(gv.split_once('/').unwrap_or(("", gv))),
        _ => Err(format!("unexpected GroupVersion string: {gv}")),
    }
}

/// `verifyGroupKind`.
fn is_group_kind(owner: &Value, kind: &str, groups: &[&str]) -> Result<bool, String> {
    let (group, _) = parse_group_version(owner["apiVersion"].as_str().unwrap_or(""))?;
    Ok(owner["kind"] == kind && groups.contains(&group))
}

fn replicas(obj: &Value) -> i64 {
    obj["spec"]["replicas"].as_i64().unwrap_or(1)
}

/// The owner named by `r` in `ns`, if it exists with that uid.
fn lookup(api: &Api, res: &'static ResourceDef, ns: &str, r: &Value) -> Option<Stored> {
    let o = api.store().get(res, ns, r["name"].as_str().unwrap_or(""))?;
    (meta::uid(&o.value) == r["uid"].as_str().unwrap_or("")).then_some(o)
}

type Found = Result<Option<(String, i64)>, String>;

/// `getPodDeployment`: a ReplicaSet owned by a Deployment counts the Deployment's replicas.
fn deployment_of(api: &Api, owner: &Value, ns: &str) -> Found {
    if !is_group_kind(owner, "ReplicaSet", &["apps", "extensions"])? {
        return Ok(None);
    }
    let Some(rs) = lookup(api, &registry::REPLICASETS, ns, owner) else {
        return Ok(None);
    };
    let Some(rs_owner) = meta::controller_ref(&rs.value) else {
        return Ok(None);
    };
    if !is_group_kind(rs_owner, "Deployment", &["apps", "extensions"])? {
        return Ok(None);
    }
    let Some(d) = lookup(api, &registry::DEPLOYMENTS, ns, rs_owner) else {
        return Ok(None);
    };
    Ok(Some((meta::uid(&d.value).to_string(), replicas(&d.value))))
}

/// `getPodReplicaSet`: a ReplicaSet no Deployment controls.
fn replicaset_of(api: &Api, owner: &Value, ns: &str) -> Found {
    if !is_group_kind(owner, "ReplicaSet", &["apps", "extensions"])? {
        return Ok(None);
    }
    let Some(rs) = lookup(api, &registry::REPLICASETS, ns, owner) else {
        return Ok(None);
    };
    if meta::controller_ref(&rs.value).is_some_and(|r| r["kind"] == "Deployment") {
        return Ok(None);
    }
    Ok(Some((
        meta::uid(&rs.value).to_string(),
        replicas(&rs.value),
    )))
}

/// `getScaleController`: anything else through its `/scale` subresource.
fn scale_of(api: &Api, owner: &Value, ns: &str) -> Found {
    let api_version = owner["apiVersion"].as_str().unwrap_or("");
    let (group, version) = parse_group_version(api_version)?;
    let kind = owner["kind"].as_str().unwrap_or("");
    let Some(res) = registry::by_kind(group, kind).filter(|r| r.version == version) else {
        let gv = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        return Err(format!(
            "no matches for kind {} in version {}",
            go_quote(kind),
            go_quote(&gv)
        ));
    };
    if res.subresource("scale").is_none() {
        return Err(format!(
            "{} does not implement the scale subresource",
            res.group_resource()
        ));
    }
    let Some(o) = lookup(api, res, ns, owner) else {
        return Ok(None);
    };
    Ok(Some((meta::uid(&o.value).to_string(), replicas(&o.value))))
}

/// `getExpectedScale`: the sum of the scales of the pods' controllers, and the pods without one.
fn expected_scale(api: &Api, ns: &str, pods: &[&Stored]) -> Result<(i64, Vec<String>), String> {
    let mut scales: BTreeMap<String, i64> = BTreeMap::new();
    let mut unmanaged = Vec::new();
    for pod in pods {
        let Some(owner) = meta::controller_ref(&pod.value) else {
            unmanaged.push(pod.name().to_string());
            continue;
        };
        if owner["uid"]
            .as_str()
            .is_some_and(|u| scales.contains_key(u))
        {
            continue;
        }
        // ReplicationControllers and StatefulSets are not served here, so their finders never
        // match; the rest run in upstream's order.
        let mut found = None;
        for finder in [
            deployment_of as fn(&Api, &Value, &str) -> Found,
            replicaset_of,
            scale_of,
        ] {
            if let Some(f) = finder(api, owner, ns)? {
                found = Some(f);
                break;
            }
        }
        match found {
            Some((uid, n)) => {
                scales.insert(uid, n);
            }
            None => {
                return Err(format!(
                    "found no controllers for pod {}",
                    go_quote(pod.name())
                ))
            }
        }
    }
    Ok((scales.values().sum(), unmanaged))
}

/// `getExpectedPodCount` → (expectedPods, desiredHealthy, unmanaged pods).
fn expected_pod_count(
    api: &Api,
    pdb: &Value,
    pods: &[&Stored],
) -> Result<(i64, i64, Vec<String>), String> {
    let spec = &pdb["spec"];
    let ns = meta::namespace(pdb);
    if !spec["maxUnavailable"].is_null() {
        let (expected, unmanaged) = expected_scale(api, ns, pods)?;
        let max_unavailable = scaled_value(&spec["maxUnavailable"], expected, true)?;
        return Ok((expected, (expected - max_unavailable).max(0), unmanaged));
    }
    match &spec["minAvailable"] {
        Value::Number(n) => Ok((pods.len() as i64, n.as_i64().unwrap_or(0), Vec::new())),
        v @ Value::String(_) => {
            let (expected, unmanaged) = expected_scale(api, ns, pods)?;
            Ok((expected, scaled_value(v, expected, true)?, unmanaged))
        }
        _ => Ok((0, 0, Vec::new())),
    }
}

fn disruption_time(v: &Value) -> Option<DateTime<Utc>> {
    v.as_str().and_then(parse_time)
}

/// `buildDisruptedPodMap`: the entries still waiting for their pod's deletion, and when the first
/// of them expires. Expired entries get a `NotDeleted` event on the pod.
fn build_disrupted_pod_map(
    api: &Api,
    pdb: &Value,
    pods: &[&Stored],
    now: DateTime<Utc>,
) -> (BTreeMap<String, Value>, Option<DateTime<Utc>>) {
    let mut result = BTreeMap::new();
    let mut recheck: Option<DateTime<Utc>> = None;
    let Some(disrupted) = pdb["status"]["disruptedPods"].as_object() else {
        return (result, recheck);
    };
    for pod in pods {
        if meta::is_deleting(&pod.value) {
            continue;
        }
        let Some(raw) = disrupted.get(pod.name()) else {
            continue;
        };
        let Some(at) = disruption_time(raw) else {
            continue;
        };
        let expected = at + chrono::Duration::seconds(DELETION_TIMEOUT);
        if expected < now {
            // Upstream prints the budget's namespace twice.
            let ns = meta::namespace(pdb);
            record(
                api,
                &registry::PODS,
                &pod.value,
                "Warning",
                "NotDeleted",
                &format!("Pod was expected by PDB {ns}/{ns} to be deleted but it wasn't"),
            );
        } else {
            recheck = Some(recheck.map_or(expected, |r| r.min(expected)));
            result.insert(pod.name().to_string(), raw.clone());
        }
    }
    (result, recheck)
}

/// `countHealthyPods`.
fn count_healthy(pods: &[&Stored], disrupted: &BTreeMap<String, Value>, now: DateTime<Utc>) -> i64 {
    pods.iter()
        .filter(|p| !meta::is_deleting(&p.value))
        .filter(|p| {
            disrupted
                .get(p.name())
                .and_then(disruption_time)
                .is_none_or(|at| at + chrono::Duration::seconds(DELETION_TIMEOUT) <= now)
        })
        .filter(|p| is_pod_ready(&p.value))
        .count() as i64
}

/// `apimeta.SetStatusCondition` on JSON conditions: lastTransitionTime moves only when the status
/// does; reason, message and observedGeneration always follow.
fn set_status_condition(
    conditions: &mut Vec<Value>,
    status: &str,
    reason: &str,
    message: &str,
    observed: i64,
) {
    let now = meta::now();
    if let Some(c) = conditions
        .iter_mut()
        .find(|c| c["type"] == DISRUPTION_ALLOWED)
    {
        if let Some(m) = c.as_object_mut() {
            if m.get("status").and_then(Value::as_str) != Some(status) {
                m.insert("status".into(), json!(status));
                m.insert("lastTransitionTime".into(), json!(now));
            }
            if observed != 0 {
                m.insert("observedGeneration".into(), json!(observed));
            } else {
                m.remove("observedGeneration");
            }
            m.insert("reason".into(), json!(reason));
            m.insert("message".into(), json!(message));
        }
        return;
    }
    // metav1.Condition field order.
    let mut m = Map::new();
    m.insert("type".into(), json!(DISRUPTION_ALLOWED));
    m.insert("status".into(), json!(status));
    if observed != 0 {
        m.insert("observedGeneration".into(), json!(observed));
    }
    m.insert("lastTransitionTime".into(), json!(now));
    m.insert("reason".into(), json!(reason));
    m.insert("message".into(), json!(message));
    conditions.push(Value::Object(m));
}

/// `pdbhelper.ConditionsAreUpToDate`.
fn conditions_up_to_date(pdb: &Value) -> bool {
    let status = &pdb["status"];
    let Some(c) = status["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == DISRUPTION_ALLOWED))
    else {
        return false;
    };
    if status["observedGeneration"].as_i64().unwrap_or(0)
        != pdb["metadata"]["generation"].as_i64().unwrap_or(0)
    {
        return false;
    }
    if status["disruptionsAllowed"].as_i64().unwrap_or(0) > 0 {
        c["status"] == "True" && c["reason"] == "SufficientPods"
    } else {
        c["status"] == "False" && c["reason"] == "InsufficientPods"
    }
}

fn write_status(api: &Api, pdb: &Stored, status: Value) -> Result<(), SyncError> {
    let mut updated = pdb.value.clone();
    updated["status"] = status;
    match api.update(
        &registry::PODDISRUPTIONBUDGETS,
        pdb.namespace(),
        pdb.name(),
        updated,
        Some("status"),
        &WriteOptions::default(),
    ) {
        Ok(_) => Ok(()),
        Err(e) if e.code == 409 => Err(SyncError::Conflict),
        Err(e) => Err(SyncError::Failed(e.message)),
    }
}

/// `updatePdbStatus`: write only when a number, the disrupted pods, observedGeneration or the
/// condition is out of date.
fn update_pdb_status(
    api: &Api,
    pdb: &Stored,
    current: i64,
    desired: i64,
    expected: i64,
    disrupted: &BTreeMap<String, Value>,
) -> Result<(), SyncError> {
    let v = &pdb.value;
    let status = &v["status"];
    let generation = v["metadata"]["generation"].as_i64().unwrap_or(0);
    let allowed = if expected <= 0 || current - desired <= 0 {
        0
    } else {
        current - desired
    };
    let get = |k: &str| status[k].as_i64().unwrap_or(0);
    let old_disrupted: BTreeMap<String, Value> = status["disruptedPods"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    if get("currentHealthy") == current
        && get("desiredHealthy") == desired
        && get("expectedPods") == expected
        && get("disruptionsAllowed") == allowed
        && old_disrupted == *disrupted
        && get("observedGeneration") == generation
        && conditions_up_to_date(v)
    {
        return Ok(());
    }
    let mut conditions: Vec<Value> = status["conditions"].as_array().cloned().unwrap_or_default();
    // UpdateDisruptionAllowedCondition, against the new observedGeneration.
    if allowed > 0 {
        set_status_condition(&mut conditions, "True", "SufficientPods", "", generation);
    } else {
        set_status_condition(&mut conditions, "False", "InsufficientPods", "", generation);
    }
    // PodDisruptionBudgetStatus field order; omitempty fields left out when empty.
    let mut s = Map::new();
    if generation != 0 {
        s.insert("observedGeneration".into(), json!(generation));
    }
    if !disrupted.is_empty() {
        s.insert(
            "disruptedPods".into(),
            Value::Object(disrupted.clone().into_iter().collect()),
        );
    }
    s.insert("disruptionsAllowed".into(), json!(allowed));
    s.insert("currentHealthy".into(), json!(current));
    s.insert("desiredHealthy".into(), json!(desired));
    s.insert("expectedPods".into(), json!(expected));
    s.insert("conditions".into(), json!(conditions));
    write_status(api, pdb, Value::Object(s))
}

/// `failSafe`: at least stop evictions — disruptionsAllowed 0 and `DisruptionAllowed=False`,
/// reason SyncFailed, with the error as message. observedGeneration is left as it was.
fn fail_safe(api: &Api, pdb: &Stored, err: &str) -> Result<(), SyncError> {
    let mut status = pdb.value["status"].clone();
    if !status.is_object() {
        status = json!({});
    }
    status["disruptionsAllowed"] = json!(0);
    let observed = status["observedGeneration"].as_i64().unwrap_or(0);
    let mut conditions: Vec<Value> = status["conditions"].as_array().cloned().unwrap_or_default();
    set_status_condition(&mut conditions, "False", "SyncFailed", err, observed);
    status["conditions"] = json!(conditions);
    write_status(api, pdb, status)
}

/// `trySync` (and `sync`'s failSafe on errors): returns when to look again for an expiring
/// `disruptedPods` entry.
fn sync(
    api: &Api,
    pdb: &Stored,
    pods: Result<Vec<&Stored>, String>,
    now: DateTime<Utc>,
) -> Result<Option<Duration>, SyncError> {
    let v = &pdb.value;
    let pods = match pods {
        Ok(p) => p,
        Err(e) => {
            record(
                api,
                &registry::PODDISRUPTIONBUDGETS,
                v,
                "Warning",
                "NoPods",
                &format!("Failed to get pods: {e}"),
            );
            return fail_safe(api, pdb, &e).map(|_| None);
        }
    };
    if pods.is_empty() {
        record(
            api,
            &registry::PODDISRUPTIONBUDGETS,
            v,
            "Normal",
            "NoPods",
            "No matching pods found",
        );
    }
    let (expected, desired, unmanaged) = match expected_pod_count(api, v, &pods) {
        Ok(x) => x,
        Err(e) => {
            record(
                api,
                &registry::PODDISRUPTIONBUDGETS,
                v,
                "Warning",
                "CalculateExpectedPodCountFailed",
                &format!("Failed to calculate the number of expected pods: {e}"),
            );
            return fail_safe(api, pdb, &e).map(|_| None);
        }
    };
    if !unmanaged.is_empty() {
        record(
            api,
            &registry::PODDISRUPTIONBUDGETS,
            v,
            "Warning",
            "UnmanagedPods",
            &format!(
                "Pods selected by this PodDisruptionBudget (selector: {}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value.",
                go_label_selector_string(&v["spec"]["selector"])
            ),
        );
    }
    let (disrupted, recheck) = build_disrupted_pod_map(api, v, &pods, now);
    let current = count_healthy(&pods, &disrupted, now);
    match update_pdb_status(api, pdb, current, desired, expected, &disrupted) {
        Ok(()) => Ok(recheck.map(|at| after(at, now))),
        Err(SyncError::Conflict) => Err(SyncError::Conflict),
        Err(SyncError::Failed(e)) => fail_safe(api, pdb, &e).map(|_| None),
    }
}

/// The stale-DisruptionTarget worker: a pod that has carried `DisruptionTarget=True` for two
/// minutes without being deleted gets the condition set to False. Returns when to look again.
fn reset_stale_disruption_targets(
    api: &Api,
    pods: &[Stored],
    now: DateTime<Utc>,
) -> Option<Duration> {
    let mut next = None;
    for pod in pods {
        let v = &pod.value;
        if meta::is_deleting(v)
            || matches!(v["status"]["phase"].as_str(), Some("Succeeded" | "Failed"))
        {
            continue;
        }
        let Some(cond) = v["status"]["conditions"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["type"] == "DisruptionTarget"))
        else {
            continue;
        };
        if cond["status"] != "True" || cond["reason"] == "TerminationByKubelet" {
            continue;
        }
        let since = cond["lastTransitionTime"]
            .as_str()
            .and_then(parse_time)
            .unwrap_or(now);
        let due = since + chrono::Duration::seconds(STALE_POD_DISRUPTION_TIMEOUT);
        if due > now {
            next = earliest(next, Some(after(due, now)));
            continue;
        }
        let mut updated = v.clone();
        set_condition(
            &mut updated,
            json!({"type": "DisruptionTarget", "status": "False", "lastProbeTime": null, "lastTransitionTime": meta::now()}),
        );
        if let Err(e) = api.update(
            &registry::PODS,
            pod.namespace(),
            pod.name(),
            updated,
            Some("status"),
            &WriteOptions::default(),
        ) {
            tracing::debug!(error = %e, pod = pod.name(), "resetting DisruptionTarget");
        }
    }
    next
}

fn fingerprint(pdb: &Stored, pods: &Result<Vec<&Stored>, String>) -> u64 {
    let mut h = DefaultHasher::new();
    pdb.resource_version().hash(&mut h);
    if let Ok(pods) = pods {
        for p in pods {
            p.name().hash(&mut h);
            p.resource_version().hash(&mut h);
        }
    }
    h.finish()
}

impl Controller for DisruptionController {
    fn name(&self) -> &'static str {
        "disruption-controller"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::PODDISRUPTIONBUDGETS)
            || std::ptr::eq(ev.res, &registry::PODS)
    }

    fn reconcile(&mut self, api: &Api) -> Option<Duration> {
        let store = api.store();
        let now = Utc::now();
        let instant = Instant::now();
        let (pods, _) = store.list(&registry::PODS, None);
        let mut next = reset_stale_disruption_targets(api, &pods, now);
        let (pdbs, _) = store.list(&registry::PODDISRUPTIONBUDGETS, None);
        if pdbs.is_empty() {
            self.synced.clear();
            return next;
        }
        let mut by_ns: HashMap<&str, Vec<&Stored>> =
            pdbs.iter().map(|p| (p.namespace(), Vec::new())).collect();
        for pod in &pods {
            if let Some(list) = by_ns.get_mut(pod.namespace()) {
                list.push(pod);
            }
        }
        let mut live = Vec::with_capacity(pdbs.len());
        for pdb in &pdbs {
            let key = (pdb.namespace().to_string(), pdb.name().to_string());
            live.push(key.clone());
            // In policy/v1 an empty selector selects every pod of the namespace, a missing one none.
            let selected: Result<Vec<&Stored>, String> =
                LabelSelector::from_api(&pdb.value["spec"]["selector"]).map(|sel| {
                    by_ns
                        .get(pdb.namespace())
                        .into_iter()
                        .flatten()
                        .filter(|p| sel.matches(meta::labels(&p.value)))
                        .copied()
                        .collect()
                });
            let fp = fingerprint(pdb, &selected);
            if let Some(s) = self.synced.get(&key) {
                let due = s.recheck_at.is_some_and(|t| instant >= t);
                if s.fingerprint == fp && !due {
                    next = earliest(next, s.recheck_at.map(|t| t - instant));
                    continue;
                }
            }
            match sync(api, pdb, selected, now) {
                Ok(recheck) => {
                    next = earliest(next, recheck);
                    self.synced.insert(
                        key,
                        Synced {
                            fingerprint: fp,
                            recheck_at: recheck.map(|d| instant + d),
                        },
                    );
                }
                Err(SyncError::Conflict) => {
                    self.synced.remove(&key);
                    next = earliest(next, Some(CONFLICT_RETRY));
                }
                Err(SyncError::Failed(e)) => {
                    tracing::debug!(error = %e, pdb = pdb.name(), "syncing PodDisruptionBudget");
                    self.synced.remove(&key);
                    next = earliest(next, Some(Duration::from_secs(1)));
                }
            }
        }
        self.synced.retain(|k, _| live.contains(k));
        next
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::api::subresources::evict;
    use crate::api::PatchKind;
    use crate::cluster::{Cluster, ClusterConfig};
    use crate::store::Store;

    const NS: &str = "default";

    /// Controllers off: each test drives the disruption controller's passes itself.
    fn bare_api() -> Api {
        let api = Api::new(Arc::new(Store::new()));
        api.bootstrap().expect("bootstrap");
        api
    }

    fn create(api: &Api, res: &'static ResourceDef, obj: Value) -> Stored {
        api.create(res, NS, obj, &WriteOptions::default())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn owner_ref(o: &Stored) -> Value {
        json!({"apiVersion": o.value["apiVersion"], "kind": o.value["kind"], "name": o.name(),
               "uid": meta::uid(&o.value), "controller": true, "blockOwnerDeletion": true})
    }

    /// A bound pod labelled app=web, Ready or not, optionally controlled by `owner`.
    fn pod(api: &Api, name: &str, owner: Option<&Stored>, ready: bool) -> Stored {
        let mut metadata = json!({"name": name, "labels": {"app": "web"}});
        if let Some(o) = owner {
            metadata["ownerReferences"] = json!([owner_ref(o)]);
        }
        let p = create(
            api,
            &registry::PODS,
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata,
                   "spec": {"nodeName": "n0", "containers": [{"name": "c", "image": "nginx"}]}}),
        );
        let mut v = p.value.clone();
        v["status"]["phase"] = json!("Running");
        v["status"]["conditions"] = json!([{"type": "Ready", "status": if ready {"True"} else {"False"},
            "lastProbeTime": null, "lastTransitionTime": meta::now()}]);
        api.update(
            &registry::PODS,
            NS,
            name,
            v,
            Some("status"),
            &WriteOptions::default(),
        )
        .expect("pod status")
    }

    /// Deployment `web` (replicas 3) → ReplicaSet → 3 Ready pods.
    fn deployment_pods(api: &Api) {
        let d = create(
            api,
            &registry::DEPLOYMENTS,
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                   "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}),
        );
        let rs = create(
            api,
            &registry::REPLICASETS,
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                   "metadata": {"name": "web-5d4b8c7f9", "ownerReferences": [owner_ref(&d)]},
                   "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}),
        );
        for i in 0..3 {
            pod(api, &format!("web-5d4b8c7f9-{i}"), Some(&rs), true);
        }
    }

    fn pdb(api: &Api, spec: Value) {
        let mut spec = spec;
        spec["selector"] = json!({"matchLabels": {"app": "web"}});
        create(
            api,
            &registry::PODDISRUPTIONBUDGETS,
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web-pdb"}, "spec": spec}),
        );
    }

    fn pdb_status(api: &Api) -> Value {
        api.get(&registry::PODDISRUPTIONBUDGETS, NS, "web-pdb")
            .expect("pdb")
            .value["status"]
            .clone()
    }

    /// The status numbers (disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods).
    fn numbers(api: &Api) -> [i64; 4] {
        let s = pdb_status(api);
        [
            "disruptionsAllowed",
            "currentHealthy",
            "desiredHealthy",
            "expectedPods",
        ]
        .map(|k| s[k].as_i64().unwrap_or(-1))
    }

    fn condition(api: &Api) -> Value {
        pdb_status(api)["conditions"][0].clone()
    }

    fn events_with(api: &Api, reason: &str) -> Vec<Value> {
        api.store()
            .list(&registry::EVENTS, Some(NS))
            .0
            .iter()
            .filter(|e| e.value["reason"] == reason)
            .map(|e| e.value.clone())
            .collect()
    }

    fn synced(spec: Value, pods: impl Fn(&Api)) -> Api {
        let api = bare_api();
        pods(&api);
        pdb(&api, spec);
        DisruptionController::default().reconcile(&api);
        api
    }

    // The examples of the reference (all pods Ready, 3 replicas).

    #[test]
    fn min_available_integer_counts_the_matching_pods() {
        let api = synced(json!({"minAvailable": 2}), |api| {
            for i in 0..3 {
                pod(api, &format!("web-{i}"), None, true);
            }
        });
        assert_eq!(numbers(&api), [1, 3, 2, 3]);
        let status = pdb_status(&api);
        let keys: Vec<&String> = status.as_object().expect("status").keys().collect();
        assert_eq!(
            keys,
            [
                "observedGeneration",
                "disruptionsAllowed",
                "currentHealthy",
                "desiredHealthy",
                "expectedPods",
                "conditions"
            ]
        );
        assert_eq!(status["observedGeneration"], 1);
        let c = condition(&api);
        assert_eq!(
            (
                c["type"].as_str(),
                c["status"].as_str(),
                c["reason"].as_str(),
                c["message"].as_str(),
                c["observedGeneration"].as_i64()
            ),
            (
                Some("DisruptionAllowed"),
                Some("True"),
                Some("SufficientPods"),
                Some(""),
                Some(1)
            )
        );
        assert!(c["lastTransitionTime"].is_string());
        // Unmanaged pods do not matter for an integer minAvailable.
        assert!(events_with(&api, "UnmanagedPods").is_empty());
    }

    #[test]
    fn min_available_percent_uses_the_deployment_scale() {
        let api = synced(json!({"minAvailable": "50%"}), deployment_pods);
        assert_eq!(numbers(&api), [1, 3, 2, 3]);
    }

    #[test]
    fn max_unavailable_integer_and_percent() {
        let api = synced(json!({"maxUnavailable": 1}), deployment_pods);
        assert_eq!(numbers(&api), [1, 3, 2, 3]);
        let api = synced(json!({"maxUnavailable": "50%"}), deployment_pods);
        assert_eq!(numbers(&api), [2, 3, 1, 3]);
    }

    #[test]
    fn a_bare_replica_set_counts_its_own_replicas() {
        let api = synced(json!({"minAvailable": "100%"}), |api| {
            let rs = create(
                api,
                &registry::REPLICASETS,
                json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"},
                       "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}},
                                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}),
            );
            for i in 0..3 {
                pod(api, &format!("web-{i}"), Some(&rs), true);
            }
        });
        // 4 expected, 3 healthy: nothing may be disrupted.
        assert_eq!(numbers(&api), [0, 3, 4, 4]);
        let c = condition(&api);
        assert_eq!(
            (c["status"].as_str(), c["reason"].as_str()),
            (Some("False"), Some("InsufficientPods"))
        );
    }

    #[test]
    fn daemon_set_pods_with_a_percentage_fail_safe() {
        let api = synced(json!({"maxUnavailable": "10%"}), |api| {
            let ds = create(
                api,
                &registry::DAEMONSETS,
                json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
                       "spec": {"selector": {"matchLabels": {"app": "web"}},
                                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "a"}]}}}}),
            );
            pod(api, "agent-x7k2p", Some(&ds), true);
        });
        let status = pdb_status(&api);
        assert_eq!(status["disruptionsAllowed"], 0);
        // failSafe does not raise observedGeneration.
        assert!(status.get("observedGeneration").is_none());
        let c = condition(&api);
        assert_eq!(
            (
                c["status"].as_str(),
                c["reason"].as_str(),
                c["message"].as_str()
            ),
            (
                Some("False"),
                Some("SyncFailed"),
                Some("daemonsets.apps does not implement the scale subresource")
            )
        );
        let ev = events_with(&api, "CalculateExpectedPodCountFailed");
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0]["type"], "Warning");
        assert_eq!(
            ev[0]["message"],
            "Failed to calculate the number of expected pods: daemonsets.apps does not implement the scale subresource"
        );
        assert_eq!(ev[0]["source"]["component"], COMPONENT);
        assert_eq!(ev[0]["involvedObject"]["kind"], "PodDisruptionBudget");
    }

    #[test]
    fn unmanaged_pods_are_reported_with_the_go_selector_text() {
        let api = synced(json!({"minAvailable": "50%"}), |api| {
            pod(api, "web-0", None, true);
        });
        let ev = events_with(&api, "UnmanagedPods");
        assert_eq!(ev.len(), 1);
        assert_eq!(
            ev[0]["message"],
            "Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value."
        );
        // Nothing owns the pod, so nothing is expected.
        assert_eq!(numbers(&api), [0, 1, 0, 0]);
    }

    #[test]
    fn no_pods_gives_an_event_and_a_closed_budget() {
        let api = synced(json!({"minAvailable": 1}), |_| {});
        let ev = events_with(&api, "NoPods");
        assert_eq!(ev.len(), 1);
        assert_eq!(
            (ev[0]["type"].as_str(), ev[0]["message"].as_str()),
            (Some("Normal"), Some("No matching pods found"))
        );
        assert_eq!(numbers(&api), [0, 0, 1, 0]);
        assert_eq!(condition(&api)["reason"], "InsufficientPods");
    }

    #[test]
    fn writes_happen_only_on_change_and_transition_time_only_on_flips() {
        let api = bare_api();
        for i in 0..3 {
            pod(&api, &format!("web-{i}"), None, true);
        }
        pdb(&api, json!({"minAvailable": 2}));
        let mut ctrl = DisruptionController::default();
        ctrl.reconcile(&api);
        ctrl.reconcile(&api);
        let rv = api.store().revision();
        ctrl.reconcile(&api);
        assert_eq!(
            api.store().revision(),
            rv,
            "a settled budget is not rewritten"
        );

        // Pretend the condition flipped long ago, then lose a pod's readiness: the condition flips
        // and its transition time moves.
        let stored = api
            .get(&registry::PODDISRUPTIONBUDGETS, NS, "web-pdb")
            .expect("pdb");
        let mut v = stored.value.clone();
        v["status"]["conditions"][0]["lastTransitionTime"] = json!("2020-01-01T00:00:00Z");
        api.update(
            &registry::PODDISRUPTIONBUDGETS,
            NS,
            "web-pdb",
            v,
            Some("status"),
            &WriteOptions::default(),
        )
        .expect("status");
        ctrl.reconcile(&api);
        assert_eq!(
            condition(&api)["lastTransitionTime"],
            "2020-01-01T00:00:00Z",
            "same status keeps its time"
        );
        let p = api.get(&registry::PODS, NS, "web-0").expect("pod");
        let mut unready = p.value.clone();
        unready["status"]["conditions"][0]["status"] = json!("False");
        api.update(
            &registry::PODS,
            NS,
            "web-0",
            unready,
            Some("status"),
            &WriteOptions::default(),
        )
        .expect("status");
        ctrl.reconcile(&api);
        assert_eq!(numbers(&api), [0, 2, 2, 3]);
        let c = condition(&api);
        assert_eq!(
            (c["status"].as_str(), c["reason"].as_str()),
            (Some("False"), Some("InsufficientPods"))
        );
        assert_ne!(c["lastTransitionTime"], "2020-01-01T00:00:00Z");
    }

    #[test]
    fn disrupted_pods_hold_for_two_minutes_and_are_pruned() {
        let api = bare_api();
        for i in 0..3 {
            pod(&api, &format!("web-{i}"), None, true);
        }
        pdb(&api, json!({"minAvailable": 1}));
        let mut ctrl = DisruptionController::default();
        ctrl.reconcile(&api);
        let fresh = meta::now();
        let stale = (Utc::now() - chrono::Duration::seconds(180))
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        let stored = api
            .get(&registry::PODDISRUPTIONBUDGETS, NS, "web-pdb")
            .expect("pdb");
        let mut v = stored.value.clone();
        v["status"]["disruptedPods"] = json!({"web-0": fresh, "web-1": stale, "gone": fresh});
        api.update(
            &registry::PODDISRUPTIONBUDGETS,
            NS,
            "web-pdb",
            v,
            Some("status"),
            &WriteOptions::default(),
        )
        .expect("status");
        let next = ctrl.reconcile(&api);
        let status = pdb_status(&api);
        assert_eq!(status["disruptedPods"], json!({"web-0": fresh}));
        // web-0 is expected to go: 2 healthy, 1 desired.
        assert_eq!(numbers(&api), [1, 2, 1, 3]);
        let wait = next.expect("requeued for the expiry");
        assert!(
            wait > Duration::from_secs(100) && wait <= Duration::from_secs(121),
            "{wait:?}"
        );
        let ev = events_with(&api, "NotDeleted");
        assert_eq!(ev.len(), 1);
        assert_eq!(
            ev[0]["message"],
            "Pod was expected by PDB default/default to be deleted but it wasn't"
        );
        assert_eq!(ev[0]["involvedObject"]["name"], "web-1");
    }

    #[test]
    fn a_stale_disruption_target_is_reset() {
        let api = bare_api();
        let p = pod(&api, "web-0", None, true);
        let mut v = p.value.clone();
        set_condition(
            &mut v,
            json!({"type": "DisruptionTarget", "status": "True", "lastProbeTime": null,
            "lastTransitionTime": "2020-01-01T00:00:00Z", "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting"}),
        );
        api.update(
            &registry::PODS,
            NS,
            "web-0",
            v,
            Some("status"),
            &WriteOptions::default(),
        )
        .expect("status");
        DisruptionController::default().reconcile(&api);
        let p = api.get(&registry::PODS, NS, "web-0").expect("pod");
        let c = p.value["status"]["conditions"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["type"] == "DisruptionTarget"))
            .cloned()
            .expect("condition");
        assert_eq!(c["status"], "False");
        assert!(c.get("reason").is_none());
    }

    #[test]
    fn selector_strings_print_like_go() {
        let sel = json!({"matchLabels": {"b": "2", "a": "1"},
                         "matchExpressions": [{"key": "tier", "operator": "In", "values": ["x", "y"]}]});
        assert_eq!(
            go_label_selector_string(&sel),
            "&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:tier,Operator:In,Values:[x y],},},}"
        );
        assert_eq!(go_label_selector_string(&Value::Null), "nil");
    }

    /// gpudrv steps 6–7: a Deployment of 4 under `minAvailable: 4` cannot lose a pod; with
    /// `minAvailable: 3` it can.
    #[tokio::test]
    async fn the_budget_blocks_then_allows_an_eviction() {
        let cluster = Cluster::start(ClusterConfig::default().with_fake_nodes("lab-node-", 4))
            .await
            .expect("cluster");
        let api = cluster.api();
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu-drv"}});
        api.create(&registry::NAMESPACES, "", ns, &WriteOptions::default())
            .expect("namespace");
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "trainer", "namespace": "gpu-drv"},
            "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "trainer"}},
                "template": {"metadata": {"labels": {"app": "trainer"}}, "spec": {
                    "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "trainer"}}, "topologyKey": "kubernetes.io/hostname"}]}},
                    "containers": [{"name": "trainer", "image": "nvcr.io/nvidia/pytorch:24.07-py3"}]}}}});
        api.create(
            &registry::DEPLOYMENTS,
            "gpu-drv",
            deployment,
            &WriteOptions::default(),
        )
        .expect("deployment");
        let budget = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "trainer-pdb", "namespace": "gpu-drv"},
            "spec": {"minAvailable": 4, "selector": {"matchLabels": {"app": "trainer"}}}});
        api.create(
            &registry::PODDISRUPTIONBUDGETS,
            "gpu-drv",
            budget,
            &WriteOptions::default(),
        )
        .expect("pdb");
        cluster.settle().await;

        let pods = api.store().list(&registry::PODS, Some("gpu-drv")).0;
        assert_eq!(pods.len(), 4, "the Deployment runs 4 pods");
        let victim = pods
            .iter()
            .find(|p| p.value["spec"]["nodeName"] == "lab-node-1")
            .expect("pod on lab-node-1");
        let status = api
            .get(&registry::PODDISRUPTIONBUDGETS, "gpu-drv", "trainer-pdb")
            .expect("pdb")
            .value["status"]
            .clone();
        assert_eq!(
            [
                "disruptionsAllowed",
                "currentHealthy",
                "desiredHealthy",
                "expectedPods"
            ]
            .map(|k| status[k].as_i64()),
            [Some(0), Some(4), Some(4), Some(4)]
        );
        let eviction = json!({"kind": "Eviction", "apiVersion": "policy/v1", "metadata": {"name": victim.name(), "namespace": "gpu-drv"}, "deleteOptions": {}});
        let err = evict(api, "gpu-drv", victim.name(), &eviction).expect_err("blocked");
        assert_eq!(err.code, 429);
        assert_eq!(
            err.message,
            "Cannot evict pod as it would violate the pod's disruption budget."
        );
        assert_eq!(
            err.details
                .as_ref()
                .map(|d| d["causes"][0]["message"].clone()),
            Some(json!(
                "The disruption budget trainer-pdb needs 4 healthy pods and has 4 currently"
            ))
        );

        let body = serde_json::to_vec(&json!({"spec": {"minAvailable": 3}})).expect("encodes");
        api.patch(
            &registry::PODDISRUPTIONBUDGETS,
            "gpu-drv",
            "trainer-pdb",
            PatchKind::Merge,
            &body,
            None,
            &WriteOptions::default(),
        )
        .expect("patched");
        cluster.settle().await;
        evict(api, "gpu-drv", victim.name(), &eviction).expect("allowed");
        cluster.shutdown().await;
    }
}
