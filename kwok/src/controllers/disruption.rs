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

mod expected;
mod status;

#[cfg(test)]
mod tests;

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::events::Recorder;
use super::{just_after, Controller, Pass};
use crate::api::subresources::set_condition;
use crate::api::Api;
use crate::meta;
use crate::podutil::parse_time;
use crate::registry;
use crate::selectors::LabelSelector;
use crate::store::{Event, Stored};

use self::{expected::*, status::*};

/// The event source of the controller (`NewDisruptionControllerInternal`).
pub const COMPONENT: &str = "controllermanager";
/// `stalePodDisruptionTimeout`.
const STALE_POD_DISRUPTION_TIMEOUT: i64 = 120;
pub const DISRUPTION_ALLOWED: &str = "DisruptionAllowed";

pub struct DisruptionController {
    synced: HashMap<(String, String), Synced>,
    recorder: Recorder,
}

impl Default for DisruptionController {
    fn default() -> Self {
        Self {
            synced: HashMap::new(),
            recorder: Recorder::new(COMPONENT),
        }
    }
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

/// `trySync` (and `sync`'s failSafe on errors): returns when to look again for an expiring
/// `disruptedPods` entry.
fn sync(
    recorder: &Recorder,
    api: &Api,
    pdb: &Stored,
    pods: Result<Vec<&Stored>, String>,
    now: DateTime<Utc>,
) -> Result<Option<Duration>, SyncError> {
    let v = &pdb.value;
    let pods = match pods {
        Ok(p) => p,
        Err(e) => {
            recorder.event(
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
        recorder.event(
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
            recorder.event(
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
        recorder.event(
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
    let (disrupted, recheck) = build_disrupted_pod_map(recorder, api, v, &pods, now);
    let current = count_healthy(&pods, &disrupted, now);
    match update_pdb_status(api, pdb, current, desired, expected, &disrupted) {
        Ok(()) => Ok(recheck.map(|at| just_after(at, now))),
        Err(SyncError::Conflict) => Err(SyncError::Conflict),
        Err(SyncError::Failed(e)) => fail_safe(api, pdb, &e).map(|_| None),
    }
}

/// The stale-DisruptionTarget worker: a pod that has carried `DisruptionTarget=True` for two
/// minutes without being deleted gets the condition set to False. Returns when to look again.
fn reset_stale_disruption_targets(api: &Api, pods: &[Stored], now: DateTime<Utc>) -> Pass {
    let mut pass = Pass::default();
    for pod in pods {
        let v = &pod.value;
        if !crate::podutil::is_pod_active(v) {
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
        let since = parse_time(&cond["lastTransitionTime"]).unwrap_or(now);
        let due = since + chrono::Duration::seconds(STALE_POD_DISRUPTION_TIMEOUT);
        if due > now {
            pass.wake(Some(just_after(due, now)));
            continue;
        }
        let mut updated = v.clone();
        set_condition(
            &mut updated,
            json!({"type": "DisruptionTarget", "status": "False", "lastProbeTime": null, "lastTransitionTime": meta::now()}),
        );
        let written = api.update_status(&registry::PODS, updated);
        pass.check("resetting a stale DisruptionTarget", written);
    }
    pass
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

    fn reconcile(&mut self, api: &Api) -> Pass {
        let store = api.store();
        let now = Utc::now();
        let instant = Instant::now();
        let (pods, _) = store.list(&registry::PODS, None);
        let mut pass = reset_stale_disruption_targets(api, &pods, now);
        let (pdbs, _) = store.list(&registry::PODDISRUPTIONBUDGETS, None);
        if pdbs.is_empty() {
            self.synced.clear();
            return pass;
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
                    pass.wake(s.recheck_at.map(|t| t - instant));
                    continue;
                }
            }
            match sync(&self.recorder, api, pdb, selected, now) {
                Ok(recheck) => {
                    pass.wake(recheck);
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
                    pass.fail("syncing a PodDisruptionBudget", "conflict");
                }
                Err(SyncError::Failed(e)) => {
                    self.synced.remove(&key);
                    pass.fail("syncing a PodDisruptionBudget", e);
                }
            }
        }
        self.synced.retain(|k, _| live.contains(k));
        pass
    }
}
