//! The resource quota controller (`pkg/controller/resourcequota/resource_quota_controller.go`):
//! a quota's `status.hard` follows its `spec.hard`, and `status.used` is recalculated from the
//! namespace's objects when the quota is added or its hard limits change, when an object it may
//! count is deleted or a pod stops running (the replenishment the quota monitor triggers), and
//! on every full sync (`--resource-quota-sync-period`, 5 minutes). Admission charges new objects
//! itself, so an added object does not trigger a recalculation.

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::Utc;
use serde_json::{json, Value};

use super::{Controller, Pass};
use crate::api::Api;
use crate::meta;
use crate::quota::{self, Evaluator};
use crate::registry;
use crate::store::{Event, EventKind};

/// `--resource-quota-sync-period`'s default.
const FULL_SYNC: Duration = Duration::from_secs(5 * 60);

pub struct ResourceQuotaController {
    /// Namespaces whose quotas need a recalculation; `None` means all of them.
    dirty: Option<BTreeSet<String>>,
    last_full: std::time::Instant,
}

impl Default for ResourceQuotaController {
    fn default() -> Self {
        Self {
            dirty: None,
            last_full: std::time::Instant::now(),
        }
    }
}

/// The change's namespace, when it may change a quota's usage or limits.
fn replenishes(ev: &Event) -> Option<&str> {
    let ns = ev.object.namespace();
    if ns.is_empty() {
        return None;
    }
    if std::ptr::eq(ev.res, &registry::RESOURCEQUOTAS) {
        // `addQuota` on an add; on an update only when the hard limits changed.
        let hard_changed = ev.prev.as_ref().is_none_or(|p| {
            let hard = |v: &Value| crate::quantity::parse_list(&v["spec"]["hard"]);
            !quota::equals(&hard(&p.value), &hard(&ev.object.value))
        });
        return (ev.kind != EventKind::Deleted && hard_changed).then_some(ns);
    }
    Evaluator::of(ev.res)?;
    let changed = match (ev.kind, &ev.prev) {
        (EventKind::Deleted, _) => true,
        // `DefaultUpdateFilter`: a pod that stops counting, a service whose type counts otherwise.
        (EventKind::Modified, Some(prev)) if std::ptr::eq(ev.res, &registry::PODS) => {
            let now = Utc::now();
            quota::pod_charged(&prev.value, now) && !quota::pod_charged(&ev.object.value, now)
        }
        (EventKind::Modified, Some(prev)) if std::ptr::eq(ev.res, &registry::SERVICES) => {
            let ty = |s: &Value| match s["spec"]["type"].as_str() {
                Some(t @ ("NodePort" | "LoadBalancer")) => t.to_string(),
                _ => String::new(),
            };
            ty(&prev.value) != ty(&ev.object.value)
        }
        _ => false,
    };
    changed.then_some(ns)
}

/// `syncResourceQuota`: `status.hard` from the spec, `status.used` from a recalculation (kept
/// for what no evaluator measures, dropped for what is no longer limited).
fn sync(api: &Api, q: &Value) -> crate::ApiResult<()> {
    let spec_hard = crate::quantity::parse_list(&q["spec"]["hard"]);
    let status = &q["status"];
    let dirty = status.get("hard").is_none()
        || status.get("used").is_none()
        || !quota::equals(&spec_hard, &crate::quantity::parse_list(&status["hard"]));
    let old_used = crate::quantity::parse_list(&status["used"]);
    let mut used = old_used.clone();
    used.extend(quota::calculate_usage(api.store(), q, Utc::now()));
    let used = quota::mask(&used, &quota::names(&spec_hard));
    if !dirty && quota::equals(&used, &old_used) {
        return Ok(());
    }
    let mut updated = q.clone();
    updated["status"] = json!({
        "hard": q["spec"].get("hard").cloned().unwrap_or_else(|| json!({})),
        "used": crate::quantity::list_value(&used),
    });
    for key in ["hard", "used"] {
        if updated["status"][key]
            .as_object()
            .is_some_and(|m| m.is_empty())
        {
            if let Some(s) = updated["status"].as_object_mut() {
                s.remove(key);
            }
        }
    }
    api.update_status(&registry::RESOURCEQUOTAS, updated)
        .map(drop)
}

impl Controller for ResourceQuotaController {
    fn name(&self) -> &'static str {
        "resourcequota"
    }

    fn interested(&self, ev: &Event) -> bool {
        replenishes(ev).is_some()
    }

    fn observe(&mut self, ev: &Event) {
        if let (Some(ns), Some(dirty)) = (replenishes(ev), self.dirty.as_mut()) {
            dirty.insert(ns.to_string());
        }
    }

    fn resync(&mut self) {
        self.dirty = None;
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        if self.last_full.elapsed() >= FULL_SYNC {
            self.dirty = None;
        }
        let namespaces = self.dirty.replace(BTreeSet::new());
        if namespaces.is_none() {
            self.last_full = std::time::Instant::now();
        }
        let quotas = match &namespaces {
            None => api.store().list(&registry::RESOURCEQUOTAS, None).0,
            Some(set) => set
                .iter()
                .flat_map(|ns| api.store().list(&registry::RESOURCEQUOTAS, Some(ns)).0)
                .collect(),
        };
        for q in quotas {
            if meta::is_deleting(&q.value) {
                continue;
            }
            let synced = sync(api, &q.value);
            if pass.check("syncing a resource quota", synced).is_none() {
                // Retried on the next pass: keep its namespace dirty.
                if let Some(dirty) = self.dirty.as_mut() {
                    dirty.insert(q.namespace().to_string());
                }
            }
        }
        pass.wake(Some(FULL_SYNC.saturating_sub(self.last_full.elapsed())));
        pass
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::api::{DeleteOptions, WriteOptions};

    fn api() -> Api {
        Api::bootstrapped()
    }

    fn status(api: &Api) -> Value {
        api.store()
            .get(&registry::RESOURCEQUOTAS, "default", "q")
            .expect("quota")
            .value["status"]
            .clone()
    }

    #[test]
    fn status_follows_the_spec_and_deletions_release_usage() {
        let api = api();
        let w = WriteOptions::default();
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "i",
                "resources": {"requests": {"memory": "64Mi"}}}]}});
        api.create(&registry::PODS, "default", pod, &w)
            .expect("pod");
        let q = json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
            "spec": {"hard": {"pods": "2", "requests.memory": "1Gi", "limits.nvidia.com/gpu": "1"}}});
        api.create(&registry::RESOURCEQUOTAS, "default", q, &w)
            .expect("quota");
        let mut ctrl = ResourceQuotaController::default();
        assert!(!ctrl.reconcile(&api).failed());
        // No evaluator measures limits of an extended resource: no usage entry for it.
        assert_eq!(
            status(&api),
            json!({"hard": {"pods": "2", "requests.memory": "1Gi", "limits.nvidia.com/gpu": "1"},
                   "used": {"pods": "1", "requests.memory": "64Mi"}})
        );
        let now = DeleteOptions {
            grace_period_seconds: Some(0),
            ..DeleteOptions::default()
        };
        api.delete(&registry::PODS, "default", "p", &now)
            .expect("delete");
        ctrl.resync();
        assert!(!ctrl.reconcile(&api).failed());
        assert_eq!(
            status(&api)["used"],
            json!({"pods": "0", "requests.memory": "0"})
        );
    }
}
