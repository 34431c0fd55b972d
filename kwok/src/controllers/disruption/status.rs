//! The budget's status: healthy pods, disrupted pods, the `DisruptionAllowed` condition, and
//! the write (`countHealthyPods`, `buildDisruptedPodMap`, `updatePdbStatus`, `failSafe`, with
//! component-helpers' `UpdateDisruptionAllowedCondition`).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::{SyncError, DISRUPTION_ALLOWED};
use crate::api::Api;
use crate::controllers::events::Recorder;
use crate::meta;
use crate::podutil::{is_pod_ready, parse_time};
use crate::registry;
use crate::store::Stored;

/// `DeletionTimeout`: how long a `disruptedPods` entry holds without the pod being deleted.
pub(super) const DELETION_TIMEOUT: i64 = 120;

pub(super) fn disruption_time(v: &Value) -> Option<DateTime<Utc>> {
    parse_time(v)
}

/// `buildDisruptedPodMap`: the entries still waiting for their pod's deletion, and when the first
/// of them expires. Expired entries get a `NotDeleted` event on the pod.
pub(super) fn build_disrupted_pod_map(
    recorder: &Recorder,
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
            recorder.event(
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
pub(super) fn count_healthy(
    pods: &[&Stored],
    disrupted: &BTreeMap<String, Value>,
    now: DateTime<Utc>,
) -> i64 {
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
pub(super) fn set_status_condition(
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
pub(super) fn conditions_up_to_date(pdb: &Value) -> bool {
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

pub(super) fn write_status(api: &Api, pdb: &Stored, status: Value) -> Result<(), SyncError> {
    let mut updated = pdb.value.clone();
    updated["status"] = status;
    match api.update_status(&registry::PODDISRUPTIONBUDGETS, updated) {
        Ok(_) => Ok(()),
        Err(e) if e.code == 409 => Err(SyncError::Conflict),
        Err(e) => Err(SyncError::Failed(e.message)),
    }
}

/// `updatePdbStatus`: write only when a number, the disrupted pods, observedGeneration or the
/// condition is out of date.
pub(super) fn update_pdb_status(
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
pub(super) fn fail_safe(api: &Api, pdb: &Stored, err: &str) -> Result<(), SyncError> {
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
