//! The Deployment controller (`pkg/controller/deployment`): each Deployment owns one ReplicaSet
//! per pod template (`<deployment>-<pod-template-hash>`), rolls from the old ones to the new one
//! with RollingUpdate (within maxSurge / maxUnavailable) or Recreate, scales them proportionally
//! when resized mid-rollout, keeps revision annotations for `kubectl rollout history/undo`, trims
//! old ReplicaSets past revisionHistoryLimit, and reports replicas and the Available/Progressing
//! conditions that `kubectl rollout status` reads.
//!
//! The sync of one Deployment follows `syncDeployment` step by step; the arithmetic lives in
//! [`util`].

// The errors are the API's own Status values, returned at most once per sync: boxing them
// would buy nothing.
#![allow(clippy::result_large_err)]

mod new_rs;
mod rollout;
mod scaling;
mod status;
pub mod util;

#[cfg(test)]
mod tests;

use std::cell::OnceCell;
use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};

use self::util::*;
use super::events::Recorder;
use super::replicaset::{
    adopt, claim, controller_ref, controller_uid, release, spec_replicas, status_int, Claim,
};
use super::{Controller, Pass};
use crate::api::{Api, WriteOptions};
use crate::error::{ApiError, ApiResult};
use crate::meta;
use crate::registry;
use crate::selectors::LabelSelector;
use crate::store::{Event, EventKind, Stored};

/// The event source of this controller.
pub const COMPONENT: &str = "deployment-controller";

pub struct DeploymentController {
    /// Whether any Deployment uses Recreate, the only strategy that waits on pod deletions.
    has_recreate: bool,
    recorder: Recorder,
}

impl Default for DeploymentController {
    fn default() -> Self {
        Self {
            has_recreate: false,
            recorder: Recorder::new(COMPONENT),
        }
    }
}

impl Controller for DeploymentController {
    fn name(&self) -> &'static str {
        COMPONENT
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::DEPLOYMENTS)
            || std::ptr::eq(ev.res, &registry::REPLICASETS)
            // Recreate waits for the old pods to be gone.
            || (self.has_recreate
                && std::ptr::eq(ev.res, &registry::PODS)
                && ev.kind == EventKind::Deleted)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let store = api.store();
        let (deployments, _) = store.list(&registry::DEPLOYMENTS, None);
        self.has_recreate = deployments
            .iter()
            .any(|d| Spec::of(&d.value).strategy == Strategy::Recreate);
        if deployments.is_empty() {
            return pass;
        }
        let (sets, _) = store.list(&registry::REPLICASETS, None);
        let index = SetIndex::new(&sets);
        let pods = LazyPods::default();
        for d in &deployments {
            match sync_deployment(&self.recorder, api, d, &index, &pods) {
                Ok(after) => pass.wake(after),
                Err(e) => pass.fail("syncing a deployment", e),
            }
        }
        pass
    }
}

/// The ReplicaSets of one pass by controller and, for orphans, by namespace.
struct SetIndex<'a> {
    controlled: HashMap<&'a str, Vec<&'a Stored>>,
    orphans: HashMap<&'a str, Vec<&'a Stored>>,
}

impl<'a> SetIndex<'a> {
    fn new(sets: &'a [Stored]) -> Self {
        let mut index = SetIndex {
            controlled: HashMap::new(),
            orphans: HashMap::new(),
        };
        for rs in sets {
            match controller_uid(&rs.value) {
                Some(uid) => index.controlled.entry(uid).or_default().push(rs),
                None => index.orphans.entry(rs.namespace()).or_default().push(rs),
            }
        }
        index
    }
}

/// The pod list, read once per pass and only if a Recreate rollout needs it.
#[derive(Default)]
struct LazyPods {
    all: OnceCell<Vec<Stored>>,
}

impl LazyPods {
    fn get(&self, api: &Api) -> &[Stored] {
        self.all
            .get_or_init(|| api.store().list(&registry::PODS, None).0)
    }
}

/// `getReplicaSetsForDeployment`: owned ReplicaSets still selected, plus adopted orphans;
/// owned ones no longer selected are released.
fn claim_sets(
    api: &Api,
    d: &Stored,
    selector: &LabelSelector,
    index: &SetIndex<'_>,
) -> Vec<Stored> {
    let v = &d.value;
    let mut out = Vec::new();
    for rs in index.controlled.get(meta::uid(v)).into_iter().flatten() {
        if rs.namespace() != d.namespace() {
            continue;
        }
        match claim(v, &rs.value, selector.matches(meta::labels(&rs.value))) {
            Claim::Owned => out.push((*rs).clone()),
            Claim::Release => {
                if let Err(e) = release(api, &registry::REPLICASETS, rs, meta::uid(v)) {
                    tracing::debug!(error = %e, rs = rs.name(), "releasing replica set");
                }
            }
            Claim::Adopt | Claim::Ignore => {}
        }
    }
    for rs in index.orphans.get(d.namespace()).into_iter().flatten() {
        if claim(v, &rs.value, selector.matches(meta::labels(&rs.value))) != Claim::Adopt {
            continue;
        }
        match adopt(
            api,
            &registry::REPLICASETS,
            rs,
            controller_ref(v, &registry::DEPLOYMENTS),
        ) {
            Ok(adopted) => out.push(adopted),
            Err(e) => tracing::debug!(error = %e, rs = rs.name(), "adopting replica set"),
        }
    }
    out
}

/// `syncDeployment`. Returns when to look again without a change (progress deadlines).
fn sync_deployment(
    recorder: &Recorder,
    api: &Api,
    d: &Stored,
    index: &SetIndex<'_>,
    pods: &LazyPods,
) -> ApiResult<Option<Duration>> {
    let selector_json = &d.value["spec"]["selector"];
    if selector_json.as_object().is_some_and(|s| s.is_empty()) {
        select_all_warning(recorder, api, d)?;
        return Ok(None);
    }
    let selector = LabelSelector::from_api(selector_json).map_err(|e| {
        ApiError::bad_request(format!(
            "deployment {}/{} has invalid label selector: {e}",
            d.namespace(),
            d.name()
        ))
    })?;
    let sets = claim_sets(api, d, &selector, index);
    let mut s = DeploymentSync {
        api,
        recorder,
        d: d.clone(),
        dv: d.value.clone(),
        spec: Spec::of(&d.value),
        sets,
        selector,
        pods,
        requeue: None,
    };
    s.run()?;
    Ok(s.requeue)
}

/// An everything-selector is refused (`syncDeployment`): a warning, and the generation noted.
fn select_all_warning(recorder: &Recorder, api: &Api, d: &Stored) -> ApiResult<()> {
    recorder.event(
        api,
        &registry::DEPLOYMENTS,
        &d.value,
        "Warning",
        "SelectingAll",
        "This deployment is selecting all pods. A non-empty selector is required.",
    );
    let generation = d.value["metadata"]["generation"].as_i64().unwrap_or(0);
    if status_int(&d.value, "observedGeneration") < generation {
        let mut v = d.value.clone();
        v["status"]["observedGeneration"] = json!(generation);
        api.update_status(&registry::DEPLOYMENTS, v)?;
    }
    Ok(())
}

/// One Deployment being synced: its last stored version, a working copy whose annotations and
/// status run ahead until written, and the ReplicaSets it owns (kept current after each write).
struct DeploymentSync<'a> {
    api: &'a Api,
    recorder: &'a Recorder,
    d: Stored,
    dv: Value,
    spec: Spec,
    sets: Vec<Stored>,
    selector: LabelSelector,
    pods: &'a LazyPods,
    requeue: Option<Duration>,
}

impl DeploymentSync<'_> {
    fn run(&mut self) -> ApiResult<()> {
        if meta::is_deleting(&self.dv) {
            // syncStatusOnly.
            let (new, old) = self.get_all(false)?;
            let all = with_new(&old, new);
            return self.sync_deployment_status(&all, new);
        }
        self.check_paused_conditions()?;
        if self.spec.paused {
            return self.sync();
        }
        if self.is_scaling_event()? {
            return self.sync();
        }
        match self.spec.strategy {
            Strategy::Recreate => self.rollout_recreate(),
            Strategy::RollingUpdate => self.rollout_rolling(),
            Strategy::Unsupported => Err(ApiError::bad_request(format!(
                "unexpected deployment strategy type: {}",
                self.dv["spec"]["strategy"]["type"].as_str().unwrap_or("")
            ))),
        }
    }

    // -- reading the ReplicaSets --------------------------------------------------------------

    fn rs(&self, i: usize) -> &Value {
        &self.sets[i].value
    }

    fn replicas(&self, i: usize) -> i64 {
        spec_replicas(self.rs(i))
    }

    fn sum(&self, idx: &[usize], f: impl Fn(&Value) -> i64) -> i64 {
        idx.iter().map(|&i| f(self.rs(i))).sum()
    }

    /// `FilterActiveReplicaSets`: those asking for pods.
    fn active(&self, idx: &[usize]) -> Vec<usize> {
        idx.iter()
            .copied()
            .filter(|&i| self.replicas(i) > 0)
            .collect()
    }

    fn sort_by_creation(&self, idx: &mut [usize]) {
        idx.sort_by(|&a, &b| by_creation(self.rs(a), self.rs(b)));
    }

    /// `FindNewReplicaSet`: the oldest ReplicaSet whose template is the deployment's.
    fn find_new(&self) -> Option<usize> {
        let mut idx: Vec<usize> = (0..self.sets.len()).collect();
        self.sort_by_creation(&mut idx);
        let template = &self.dv["spec"]["template"];
        idx.into_iter()
            .find(|&i| equal_ignore_hash(&self.rs(i)["spec"]["template"], template))
    }

    /// `getAllReplicaSetsAndSyncRevision`: the new ReplicaSet (created when asked to) and all
    /// the others.
    fn get_all(&mut self, create: bool) -> ApiResult<(Option<usize>, Vec<usize>)> {
        let existing = self.find_new();
        let old: Vec<usize> = (0..self.sets.len())
            .filter(|&i| Some(i) != existing)
            .collect();
        let new = self.get_new_replica_set(existing, &old, create)?;
        Ok((new, old))
    }

    // -- writing ------------------------------------------------------------------------------

    /// Write the working copy's annotations and status where they differ from the stored
    /// Deployment, in one status write: the Deployment status strategy takes annotations
    /// (`deploymentStatusStrategy.PrepareForUpdate` resets only spec and labels), as the
    /// controller's `syncRolloutStatus` relies on.
    fn write_deployment(&mut self) -> ApiResult<()> {
        let annotations = |v: &Value| v["metadata"].get("annotations").cloned();
        if annotations(&self.dv) != annotations(&self.d.value)
            || self.dv.get("status") != self.d.value.get("status")
        {
            let mut v = self.d.value.clone();
            crate::meta::keep_meta(&mut v, &self.dv, "annotations");
            v["status"] = self.dv["status"].clone();
            self.d = self.api.update_status(&registry::DEPLOYMENTS, v)?;
        }
        self.dv = self.d.value.clone();
        Ok(())
    }

    /// Update the `i`th owned ReplicaSet to `rs`, keeping the stored result.
    fn write_set(&mut self, i: usize, rs: Value) -> ApiResult<()> {
        let (ns, name) = (
            self.sets[i].namespace().to_string(),
            self.sets[i].name().to_string(),
        );
        self.sets[i] = self.api.update(
            &registry::REPLICASETS,
            &ns,
            &name,
            rs,
            None,
            &WriteOptions::default(),
        )?;
        Ok(())
    }

    fn event(&self, type_: &str, reason: &str, message: &str) {
        self.recorder.event(
            self.api,
            &registry::DEPLOYMENTS,
            &self.dv,
            type_,
            reason,
            message,
        );
    }

    fn conditions(&self) -> Vec<Value> {
        self.dv["status"]["conditions"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    fn set_conditions(&mut self, conditions: Vec<Value>) {
        if !self.dv["status"].is_object() {
            self.dv["status"] = json!({});
        }
        if conditions.is_empty() {
            if let Some(s) = self.dv["status"].as_object_mut() {
                s.remove("conditions");
            }
        } else {
            self.dv["status"]["conditions"] = Value::Array(conditions);
        }
    }

    fn set_condition(&mut self, cond: Value) {
        let mut conds = self.conditions();
        set_condition(&mut conds, cond);
        self.set_conditions(conds);
    }
}

/// `append(oldRSs, newRS)` without the nil.
fn with_new(old: &[usize], new: Option<usize>) -> Vec<usize> {
    let mut all = old.to_vec();
    all.extend(new);
    all
}
