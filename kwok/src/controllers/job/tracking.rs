//! Counting each terminated pod exactly once (`pkg/controller/job/tracking_utils.go` and the
//! finalizer half of `job_controller.go`): pods are created with the tracking finalizer; a
//! terminated pod's uid is first written to `status.uncountedTerminatedPods`, then its finalizer
//! comes off, then the uid moves into `succeeded` or `failed`. A crash between any two steps
//! leaves enough in the status to finish the count without counting twice.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use crate::api::{Api, PatchKind, WriteOptions};
use crate::meta;
use crate::registry;
use crate::store::Stored;

/// `batch.JobTrackingFinalizer`.
pub const TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";

pub(super) fn has_finalizer(pod: &Stored) -> bool {
    meta::finalizers(&pod.value)
        .iter()
        .any(|f| f == TRACKING_FINALIZER)
}

/// The tracking finalizer off a pod, by the strategic-merge patch of
/// `removeTrackingFinalizerPatch`, so a concurrent write to the pod does not conflict.
pub(super) fn remove_finalizer(api: &Api, pod: &Stored) -> crate::ApiResult<Stored> {
    let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER]}});
    api.patch(
        &registry::PODS,
        pod.namespace(),
        pod.name(),
        PatchKind::Strategic,
        patch.to_string().as_bytes(),
        None,
        &WriteOptions::default(),
    )
}

/// `status.uncountedTerminatedPods`: the uids of terminated pods not yet in the counters.
pub(super) struct Uncounted {
    pub succeeded: Vec<String>,
    pub failed: Vec<String>,
}

impl Uncounted {
    pub(super) fn of(status: &Map<String, Value>) -> Self {
        let uids = |key: &str| -> Vec<String> {
            status
                .get("uncountedTerminatedPods")
                .and_then(|u| u[key].as_array())
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        };
        Self {
            succeeded: uids("succeeded"),
            failed: uids("failed"),
        }
    }

    pub(super) fn has(&self, pod: &Value) -> bool {
        let uid = meta::uid(pod);
        self.succeeded.iter().chain(&self.failed).any(|u| u == uid)
    }

    pub(super) fn add(&mut self, succeeded: &[&Stored], failed: &[&Stored]) {
        for p in succeeded {
            self.succeeded.push(meta::uid(&p.value).to_string());
        }
        for p in failed {
            self.failed.push(meta::uid(&p.value).to_string());
        }
    }

    /// Move every uid but the `held` ones into its counter; false when none moved.
    pub(super) fn count_all_but(
        &mut self,
        status: &mut Map<String, Value>,
        held: &BTreeSet<String>,
    ) -> bool {
        let mut moved = false;
        for (list, key) in [
            (&mut self.succeeded, "succeeded"),
            (&mut self.failed, "failed"),
        ] {
            let before = list.len();
            list.retain(|uid| held.contains(uid));
            let n = (before - list.len()) as i64;
            if n > 0 {
                let counted = status.get(key).and_then(Value::as_i64).unwrap_or(0);
                status.insert(key.into(), json!(counted + n));
                moved = true;
            }
        }
        moved
    }

    pub(super) fn is_empty(&self) -> bool {
        self.succeeded.is_empty() && self.failed.is_empty()
    }

    /// Empty lists are omitted, as Go's `omitempty` does.
    pub(super) fn to_json(&self) -> Value {
        let mut m = Map::new();
        if !self.succeeded.is_empty() {
            m.insert("succeeded".into(), json!(self.succeeded));
        }
        if !self.failed.is_empty() {
            m.insert("failed".into(), json!(self.failed));
        }
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(succeeded: &[&str], failed: &[&str], counted: i64) -> Map<String, Value> {
        json!({"succeeded": counted, "uncountedTerminatedPods": {"succeeded": succeeded, "failed": failed}})
            .as_object()
            .cloned()
            .unwrap_or_default()
    }

    #[test]
    fn uids_move_into_their_counters_except_held_ones() {
        let mut s = status(&["a", "b"], &["c"], 2);
        let mut u = Uncounted::of(&s);
        assert!(u.has(&json!({"metadata": {"uid": "c"}})));
        let held: BTreeSet<String> = ["b".to_string()].into();
        assert!(u.count_all_but(&mut s, &held));
        assert_eq!(s["succeeded"], 3);
        assert_eq!(s["failed"], 1);
        assert_eq!(u.to_json(), json!({"succeeded": ["b"]}));
        assert!(!u.is_empty());
    }

    #[test]
    fn nothing_uncounted_is_an_empty_object() {
        let mut s = status(&[], &[], 0);
        let mut u = Uncounted::of(&s);
        assert!(u.is_empty());
        assert!(!u.count_all_but(&mut s, &BTreeSet::new()));
        assert_eq!(u.to_json(), json!({}));
    }
}
