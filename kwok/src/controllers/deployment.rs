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

pub mod util;

#[cfg(test)]
mod tests;

use std::cell::OnceCell;
use std::collections::HashMap;
use std::time::Duration;

use chrono::Utc;
use serde_json::{json, Map, Value};

use self::util::*;
use super::replicaset::{
    adopt, claim, controller_ref, controller_uid, earliest, namespace_terminating, release,
    spec_replicas, status_int, Claim,
};
use super::typed::template_hash;
use super::{events, Controller};
use crate::api::{meta, Api, DeleteOptions, WriteOptions};
use crate::error::{go_quote, ApiError, ApiResult};
use crate::registry;
use crate::selectors::LabelSelector;
use crate::store::{Event, EventKind, Stored};

/// The event source of this controller.
pub const COMPONENT: &str = "deployment-controller";
/// The longest wait between retries of a failing sync.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

#[derive(Default)]
pub struct DeploymentController {
    /// Consecutive passes with a failed sync, for the retry backoff.
    failures: u32,
    /// Whether any Deployment uses Recreate, the only strategy that waits on pod deletions.
    has_recreate: bool,
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

    fn reconcile(&mut self, api: &Api) -> Option<Duration> {
        let store = api.store();
        let (deployments, _) = store.list(&registry::DEPLOYMENTS, None);
        self.has_recreate = deployments
            .iter()
            .any(|d| Spec::of(&d.value).strategy == Strategy::Recreate);
        if deployments.is_empty() {
            self.failures = 0;
            return None;
        }
        let (sets, _) = store.list(&registry::REPLICASETS, None);
        let index = SetIndex::new(&sets);
        let pods = LazyPods::default();
        let mut next = None;
        let mut failed = false;
        for d in &deployments {
            match sync_deployment(api, d, &index, &pods) {
                Ok(after) => next = earliest(next, after),
                Err(e) => {
                    tracing::debug!(error = %e, deployment = d.name(), "deployment sync");
                    failed = true;
                }
            }
        }
        if failed {
            // Upstream requeues failed syncs with exponential backoff.
            self.failures = self.failures.saturating_add(1);
            let backoff = Duration::from_millis(5)
                .saturating_mul(1u32 << self.failures.min(20))
                .min(MAX_BACKOFF);
            next = earliest(next, Some(backoff));
        } else {
            self.failures = 0;
        }
        next
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
    api: &Api,
    d: &Stored,
    index: &SetIndex<'_>,
    pods: &LazyPods,
) -> ApiResult<Option<Duration>> {
    let selector_json = &d.value["spec"]["selector"];
    if selector_json.as_object().is_some_and(|s| s.is_empty()) {
        select_all_warning(api, d)?;
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
fn select_all_warning(api: &Api, d: &Stored) -> ApiResult<()> {
    events::record(
        api,
        &registry::DEPLOYMENTS,
        &d.value,
        "Warning",
        "SelectingAll",
        "This deployment is selecting all pods. A non-empty selector is required.",
        COMPONENT,
    );
    let generation = d.value["metadata"]["generation"].as_i64().unwrap_or(0);
    if status_int(&d.value, "observedGeneration") < generation {
        let mut v = d.value.clone();
        v["status"]["observedGeneration"] = json!(generation);
        api.update(
            &registry::DEPLOYMENTS,
            d.namespace(),
            d.name(),
            v,
            Some("status"),
            &WriteOptions::default(),
        )?;
    }
    Ok(())
}

/// One Deployment being synced: its last stored version, a working copy whose annotations and
/// status run ahead until written, and the ReplicaSets it owns (kept current after each write).
struct DeploymentSync<'a> {
    api: &'a Api,
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
    /// Deployment. (The real status subresource also takes annotations; here the annotations go
    /// through the main resource, which leaves the generation alone.)
    fn write_deployment(&mut self) -> ApiResult<()> {
        let ns = self.d.namespace().to_string();
        let name = self.d.name().to_string();
        let opts = WriteOptions::default();
        let annotations = |v: &Value| v["metadata"].get("annotations").cloned();
        if annotations(&self.dv) != annotations(&self.d.value) {
            let mut v = self.d.value.clone();
            match annotations(&self.dv) {
                Some(a) => {
                    meta::meta_mut(&mut v).insert("annotations".into(), a);
                }
                None => {
                    meta::meta_mut(&mut v).remove("annotations");
                }
            }
            self.d = self
                .api
                .update(&registry::DEPLOYMENTS, &ns, &name, v, None, &opts)?;
        }
        if self.dv.get("status") != self.d.value.get("status") {
            let mut v = self.d.value.clone();
            v["status"] = self.dv["status"].clone();
            self.d =
                self.api
                    .update(&registry::DEPLOYMENTS, &ns, &name, v, Some("status"), &opts)?;
        }
        self.dv = self.d.value.clone();
        Ok(())
    }

    fn event(&self, type_: &str, reason: &str, message: &str) {
        events::record(
            self.api,
            &registry::DEPLOYMENTS,
            &self.dv,
            type_,
            reason,
            message,
            COMPONENT,
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

    // -- the new ReplicaSet -------------------------------------------------------------------

    /// `getNewReplicaSet`.
    fn get_new_replica_set(
        &mut self,
        existing: Option<usize>,
        old: &[usize],
        create: bool,
    ) -> ApiResult<Option<usize>> {
        let max_old = old
            .iter()
            .filter_map(|&i| revision(self.rs(i)))
            .max()
            .unwrap_or(0);
        let new_revision = max_old + 1;
        if let Some(i) = existing {
            let mut rs = self.rs(i).clone();
            let annotations_updated =
                set_new_rs_annotations(&self.dv, &self.spec, &mut rs, new_revision, true);
            let min_ready = rs["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
            if annotations_updated || min_ready != self.spec.min_ready_seconds {
                set_min_ready_seconds(&mut rs, self.spec.min_ready_seconds);
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
                return Ok(Some(i));
            }
            let rev = meta::annotation(&rs, REVISION).unwrap_or("").to_string();
            let mut needs_update = set_deployment_revision(&mut self.dv, &rev);
            if self.spec.progress_deadline.is_some()
                && get_condition(&self.conditions(), PROGRESSING).is_none()
            {
                let msg = format!("Found new replica set {}", go_quote(self.sets[i].name()));
                self.set_condition(new_condition(
                    PROGRESSING,
                    "True",
                    REASON_FOUND_NEW_RS,
                    &msg,
                    &meta::now(),
                ));
                needs_update = true;
            }
            if needs_update {
                self.write_deployment()?;
            }
            return Ok(Some(i));
        }
        if !create {
            return Ok(None);
        }
        self.create_new_replica_set(old, new_revision).map(Some)
    }

    fn create_new_replica_set(&mut self, old: &[usize], new_revision: i64) -> ApiResult<usize> {
        let collision = self.dv["status"]["collisionCount"].as_i64();
        let template = self.dv["spec"]["template"].clone();
        let hash = template_hash(&template, collision);
        let mut rs_template = template;
        add_template_label(&mut rs_template, &hash);
        let selector = selector_with_hash(&self.dv["spec"]["selector"], &hash);
        let name = format!("{}-{}", self.d.name(), hash);
        let ns = self.d.namespace().to_string();
        let total = self.sum(old, spec_replicas);
        let replicas = self
            .spec
            .new_rs_replicas(total, 0)
            .map_err(ApiError::bad_request)?;
        let mut m = Map::new();
        m.insert("name".into(), json!(name));
        m.insert("namespace".into(), json!(ns));
        m.insert("labels".into(), rs_template["metadata"]["labels"].clone());
        m.insert("annotations".into(), json!({}));
        m.insert(
            "ownerReferences".into(),
            json!([controller_ref(&self.dv, &registry::DEPLOYMENTS)]),
        );
        let mut spec = Map::new();
        spec.insert("replicas".into(), json!(replicas));
        if self.spec.min_ready_seconds != 0 {
            spec.insert("minReadySeconds".into(), json!(self.spec.min_ready_seconds));
        }
        spec.insert("selector".into(), selector);
        spec.insert("template".into(), rs_template);
        let mut rs =
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": m, "spec": spec});
        set_new_rs_annotations(&self.dv, &self.spec, &mut rs, new_revision, false);

        let (created, already_exists) =
            match self
                .api
                .create(&registry::REPLICASETS, &ns, rs, &WriteOptions::default())
            {
                Ok(created) => (created, false),
                Err(e) if e.code == 409 && e.reason == "AlreadyExists" => {
                    let existing = self.api.get(&registry::REPLICASETS, &ns, &name)?;
                    let ours = controller_uid(&existing.value) == Some(meta::uid(&self.dv));
                    if ours
                        && equal_ignore_hash(
                            &self.dv["spec"]["template"],
                            &existing.value["spec"]["template"],
                        )
                    {
                        (existing, true)
                    } else {
                        // A hash collision: bump collisionCount so the next try hashes differently.
                        self.dv["status"]["collisionCount"] = json!(collision.unwrap_or(0) + 1);
                        self.write_deployment()?;
                        return Err(e);
                    }
                }
                Err(e) if namespace_terminating(&e) => return Err(e),
                Err(e) => {
                    let msg = format!(
                        "Failed to create new replica set {}: {}",
                        go_quote(&name),
                        e.message
                    );
                    if self.spec.progress_deadline.is_some() {
                        self.set_condition(new_condition(
                            PROGRESSING,
                            "False",
                            REASON_RS_CREATE_ERROR,
                            &msg,
                            &meta::now(),
                        ));
                        // The bigger problem is reported below; a failed status write adds nothing.
                        let _ = self.write_deployment();
                    }
                    self.event("Warning", REASON_RS_CREATE_ERROR, &msg);
                    return Err(e);
                }
            };
        if !already_exists && replicas > 0 {
            self.event(
                "Normal",
                "ScalingReplicaSet",
                &format!(
                    "Scaled up replica set {} from 0 to {}",
                    created.name(),
                    replicas
                ),
            );
        }
        let mut needs_update = set_deployment_revision(&mut self.dv, &new_revision.to_string());
        if !already_exists && self.spec.progress_deadline.is_some() {
            let msg = format!("Created new replica set {}", go_quote(created.name()));
            self.set_condition(new_condition(
                PROGRESSING,
                "True",
                REASON_NEW_RS,
                &msg,
                &meta::now(),
            ));
            needs_update = true;
        }
        self.sets.push(created);
        if needs_update {
            self.write_deployment()?;
        }
        Ok(self.sets.len() - 1)
    }

    // -- scaling ------------------------------------------------------------------------------

    /// `scaleReplicaSet`: new size and replica annotations in one write, and the event when the
    /// size moved.
    fn scale_replica_set(&mut self, i: usize, new_scale: i64, operation: &str) -> ApiResult<bool> {
        let old_scale = self.replicas(i);
        let desired = self.spec.replicas;
        let max = desired + self.spec.max_surge();
        let size_changes = old_scale != new_scale;
        if !size_changes && !replicas_annotations_need_update(self.rs(i), desired, max) {
            return Ok(false);
        }
        let mut rs = self.rs(i).clone();
        rs["spec"]["replicas"] = json!(new_scale);
        set_replicas_annotations(&mut rs, desired, max);
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
        if size_changes {
            self.event(
                "Normal",
                "ScalingReplicaSet",
                &format!("Scaled {operation} replica set {name} from {old_scale} to {new_scale}"),
            );
        }
        Ok(size_changes)
    }

    /// `scaleReplicaSetAndRecordEvent`.
    fn scale_and_record(&mut self, i: usize, new_scale: i64) -> ApiResult<bool> {
        let current = self.replicas(i);
        if current == new_scale {
            return Ok(false);
        }
        let op = if current < new_scale { "up" } else { "down" };
        self.scale_replica_set(i, new_scale, op)
    }

    /// `isScalingEvent`: an active ReplicaSet was sized for another replica count.
    fn is_scaling_event(&mut self) -> ApiResult<bool> {
        let (new, old) = self.get_all(false)?;
        let all = self.active(&with_new(&old, new));
        Ok(all.iter().any(|&i| {
            desired_replicas_annotation(self.rs(i)).is_some_and(|d| d != self.spec.replicas)
        }))
    }

    /// `sync`: scaling (and, when paused, history cleanup) without rolling out.
    fn sync(&mut self) -> ApiResult<()> {
        let (new, mut old) = self.get_all(false)?;
        self.scale(new, &mut old)?;
        if self.spec.paused {
            self.cleanup(&old)?;
        }
        let all = with_new(&old, new);
        self.sync_deployment_status(&all, new)
    }

    /// `FindActiveOrLatest` (which sorts the old sets newest first, as upstream does in place).
    fn find_active_or_latest(&self, new: Option<usize>, old: &mut [usize]) -> Option<usize> {
        if new.is_none() && old.is_empty() {
            return None;
        }
        old.sort_by(|&a, &b| by_creation(self.rs(b), self.rs(a)));
        let all = self.active(&with_new(old, new));
        match all.len() {
            0 => new.or_else(|| old.first().copied()),
            1 => Some(all[0]),
            _ => None,
        }
    }

    /// `IsSaturated`: the new ReplicaSet is at full, available size.
    fn is_saturated(&self, new: Option<usize>) -> bool {
        let Some(i) = new else { return false };
        let rs = self.rs(i);
        desired_replicas_annotation(rs) == Some(self.spec.replicas)
            && spec_replicas(rs) == self.spec.replicas
            && status_int(rs, "availableReplicas") == self.spec.replicas
    }

    /// `scale`: one active ReplicaSet takes the whole size; otherwise a rolling deployment's
    /// change in size is shared out in proportion to the ReplicaSets' sizes.
    fn scale(&mut self, new: Option<usize>, old: &mut [usize]) -> ApiResult<()> {
        if let Some(i) = self.find_active_or_latest(new, old) {
            if self.replicas(i) == self.spec.replicas {
                return Ok(());
            }
            self.scale_and_record(i, self.spec.replicas)?;
            return Ok(());
        }
        if self.is_saturated(new) {
            for i in self.active(old) {
                self.scale_and_record(i, 0)?;
            }
            return Ok(());
        }
        if !self.spec.rolling() {
            return Ok(());
        }
        let mut all = self.active(&with_new(old, new));
        let all_replicas = self.sum(&all, spec_replicas);
        let allowed = if self.spec.replicas > 0 {
            self.spec.replicas + self.spec.max_surge()
        } else {
            0
        };
        let to_add = allowed - all_replicas;
        // Bigger first; among equals, newer first when growing and older first when shrinking.
        let operation = match to_add.signum() {
            1 => {
                all.sort_by(|&a, &b| {
                    self.replicas(b)
                        .cmp(&self.replicas(a))
                        .then_with(|| by_creation(self.rs(b), self.rs(a)))
                });
                "up"
            }
            -1 => {
                all.sort_by(|&a, &b| {
                    self.replicas(b)
                        .cmp(&self.replicas(a))
                        .then_with(|| by_creation(self.rs(a), self.rs(b)))
                });
                "down"
            }
            _ => "",
        };
        let status_replicas = status_int(&self.dv, "replicas");
        let mut added = 0;
        let mut sizes: Vec<i64> = Vec::with_capacity(all.len());
        for &i in &all {
            if to_add != 0 {
                let p = proportion(self.rs(i), &self.spec, status_replicas, to_add, added);
                sizes.push(self.replicas(i) + p);
                added += p;
            } else {
                sizes.push(self.replicas(i));
            }
        }
        for (n, &i) in all.iter().enumerate() {
            let mut size = sizes[n];
            if n == 0 && to_add != 0 {
                // Leftovers go to the biggest ReplicaSet.
                size = (size + to_add - added).max(0);
            }
            self.scale_replica_set(i, size, operation)?;
        }
        Ok(())
    }

    /// `cleanupDeployment`: delete the oldest idle ReplicaSets beyond revisionHistoryLimit.
    fn cleanup(&mut self, old: &[usize]) -> ApiResult<()> {
        let Some(limit) = self.spec.revision_history_limit else {
            return Ok(());
        };
        let mut cleanable: Vec<usize> = old
            .iter()
            .copied()
            .filter(|&i| !meta::is_deleting(self.rs(i)))
            .collect();
        let diff = cleanable.len() as i64 - limit;
        if diff <= 0 {
            return Ok(());
        }
        cleanable.sort_by(|&a, &b| by_revision(self.rs(a), self.rs(b)));
        for &i in cleanable.iter().take(usize::try_from(diff).unwrap_or(0)) {
            let rs = self.rs(i);
            let generation = rs["metadata"]["generation"].as_i64().unwrap_or(0);
            if status_int(rs, "replicas") != 0
                || spec_replicas(rs) != 0
                || generation > status_int(rs, "observedGeneration")
                || meta::is_deleting(rs)
            {
                continue;
            }
            let (ns, name) = (
                self.sets[i].namespace().to_string(),
                self.sets[i].name().to_string(),
            );
            match self.api.delete(
                &registry::REPLICASETS,
                &ns,
                &name,
                &DeleteOptions::default(),
            ) {
                Ok(_) => {}
                Err(e) if e.code == 404 => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    // -- rollouts -----------------------------------------------------------------------------

    /// `rolloutRolling`.
    fn rollout_rolling(&mut self) -> ApiResult<()> {
        let (new, old) = self.get_all(true)?;
        let Some(new_i) = new else {
            return Err(ApiError::internal("new replica set missing after creation"));
        };
        let all = with_new(&old, new);
        if self.reconcile_new_replica_set(&all, new_i)? {
            return self.sync_rollout_status(&all, new);
        }
        let active_old = self.active(&old);
        if self.reconcile_old_replica_sets(&all, active_old, new_i)? {
            return self.sync_rollout_status(&all, new);
        }
        if deployment_complete(&self.spec, &self.dv["status"]) {
            self.cleanup(&old)?;
        }
        self.sync_rollout_status(&all, new)
    }

    /// `reconcileNewReplicaSet`.
    fn reconcile_new_replica_set(&mut self, all: &[usize], new: usize) -> ApiResult<bool> {
        let current = self.replicas(new);
        if current == self.spec.replicas {
            return Ok(false);
        }
        if current > self.spec.replicas {
            return self.scale_and_record(new, self.spec.replicas);
        }
        let total = self.sum(all, spec_replicas);
        let count = self
            .spec
            .new_rs_replicas(total, current)
            .map_err(ApiError::bad_request)?;
        self.scale_and_record(new, count)
    }

    /// `reconcileOldReplicaSets`: scale old ReplicaSets down as far as availability allows,
    /// unhealthy replicas first.
    fn reconcile_old_replica_sets(
        &mut self,
        all: &[usize],
        mut old: Vec<usize>,
        new: usize,
    ) -> ApiResult<bool> {
        if self.sum(&old, spec_replicas) == 0 {
            return Ok(false);
        }
        let all_pods = self.sum(all, spec_replicas);
        let min_available = self.spec.replicas - self.spec.max_unavailable();
        let new_unavailable = self.replicas(new) - status_int(self.rs(new), "availableReplicas");
        let max_scaled_down = all_pods - min_available - new_unavailable;
        if max_scaled_down <= 0 {
            return Ok(false);
        }
        // Upstream swallows these errors (the sync is retried on the next change).
        let Ok(cleaned) = self.cleanup_unhealthy_replicas(&mut old, max_scaled_down) else {
            return Ok(false);
        };
        let all = with_new(&old, Some(new));
        let Ok(scaled) = self.scale_down_old_for_rolling_update(&all, &mut old) else {
            return Ok(false);
        };
        Ok(cleaned + scaled > 0)
    }

    /// `cleanupUnhealthyReplicas`.
    fn cleanup_unhealthy_replicas(
        &mut self,
        old: &mut [usize],
        max_cleanup: i64,
    ) -> ApiResult<i64> {
        self.sort_by_creation(old);
        let mut total = 0;
        for &i in old.iter() {
            if total >= max_cleanup {
                break;
            }
            let replicas = self.replicas(i);
            let available = status_int(self.rs(i), "availableReplicas");
            if replicas == 0 || replicas == available {
                continue;
            }
            let count = (max_cleanup - total).min(replicas - available);
            let new_count = replicas - count;
            if new_count > replicas {
                // Status behind spec (more available than asked for): never scale up here.
                return Err(ApiError::internal(format!(
                    "when cleaning up unhealthy replicas, got invalid request to scale down {}/{} {replicas} -> {new_count}",
                    self.sets[i].namespace(),
                    self.sets[i].name()
                )));
            }
            self.scale_and_record(i, new_count)?;
            total += count;
        }
        Ok(total)
    }

    /// `scaleDownOldReplicaSetsForRollingUpdate`.
    fn scale_down_old_for_rolling_update(
        &mut self,
        all: &[usize],
        old: &mut [usize],
    ) -> ApiResult<i64> {
        let min_available = self.spec.replicas - self.spec.max_unavailable();
        let available = self.sum(all, |rs| status_int(rs, "availableReplicas"));
        if available <= min_available {
            return Ok(0);
        }
        self.sort_by_creation(old);
        let target = available - min_available;
        let mut total = 0;
        for &i in old.iter() {
            if total >= target {
                break;
            }
            let replicas = self.replicas(i);
            if replicas == 0 {
                continue;
            }
            let count = replicas.min(target - total);
            let new_count = replicas - count;
            if new_count > replicas {
                return Err(ApiError::internal(format!(
                    "when scaling down old replica set, got invalid request to scale down {}/{} {replicas} -> {new_count}",
                    self.sets[i].namespace(),
                    self.sets[i].name()
                )));
            }
            self.scale_and_record(i, new_count)?;
            total += count;
        }
        Ok(total)
    }

    /// `rolloutRecreate`: all old pods gone before the new ReplicaSet scales up.
    fn rollout_recreate(&mut self) -> ApiResult<()> {
        let (mut new, mut old) = self.get_all(false)?;
        let mut all = with_new(&old, new);
        let mut scaled_down = false;
        for i in self.active(&old) {
            if self.scale_and_record(i, 0)? {
                scaled_down = true;
            }
        }
        if scaled_down || self.old_pods_running(new, &old) {
            return self.sync_rollout_status(&all, new);
        }
        if new.is_none() {
            (new, old) = self.get_all(true)?;
            all = with_new(&old, new);
        }
        if let Some(i) = new {
            self.scale_and_record(i, self.spec.replicas)?;
        }
        if deployment_complete(&self.spec, &self.dv["status"]) {
            self.cleanup(&old)?;
        }
        self.sync_rollout_status(&all, new)
    }

    /// `oldPodsRunning`: old ReplicaSets still report pods, or non-terminal pods of theirs exist.
    fn old_pods_running(&self, new: Option<usize>, old: &[usize]) -> bool {
        if self.sum(old, |rs| status_int(rs, "replicas")) > 0 {
            return true;
        }
        let new_uid = new.map(|i| meta::uid(self.rs(i)));
        let old_uids: Vec<&str> = old.iter().map(|&i| meta::uid(self.rs(i))).collect();
        self.pods.get(self.api).iter().any(|p| {
            p.namespace() == self.d.namespace()
                && self.selector.matches(meta::labels(&p.value))
                && controller_uid(&p.value)
                    .is_some_and(|u| old_uids.contains(&u) && Some(u) != new_uid)
                && !matches!(
                    p.value["status"]["phase"].as_str(),
                    Some("Succeeded" | "Failed")
                )
        })
    }

    // -- status -------------------------------------------------------------------------------

    /// `calculateStatus`: counts from the ReplicaSets, and the Available condition.
    fn calculate_status(&self, all: &[usize], new: Option<usize>) -> (Counts, Vec<Value>) {
        let available = self.sum(all, |rs| status_int(rs, "availableReplicas"));
        let total = self.sum(all, spec_replicas);
        let counts = Counts {
            observed_generation: self.spec.generation,
            replicas: self.sum(all, |rs| status_int(rs, "replicas")),
            updated: new.map_or(0, |i| status_int(self.rs(i), "replicas")),
            ready: self.sum(all, |rs| status_int(rs, "readyReplicas")),
            available,
            unavailable: (total - available).max(0),
        };
        let mut conditions = self.conditions();
        let now = meta::now();
        let cond = if available >= self.spec.replicas - self.spec.max_unavailable() {
            new_condition(
                AVAILABLE,
                "True",
                REASON_MIN_AVAILABLE,
                "Deployment has minimum availability.",
                &now,
            )
        } else {
            new_condition(
                AVAILABLE,
                "False",
                REASON_MIN_UNAVAILABLE,
                "Deployment does not have minimum availability.",
                &now,
            )
        };
        set_condition(&mut conditions, cond);
        (counts, conditions)
    }

    fn status_value(&self, counts: &Counts, conditions: &[Value]) -> Value {
        status_json(counts, conditions, self.dv["status"].get("collisionCount"))
    }

    /// `syncDeploymentStatus`.
    fn sync_deployment_status(&mut self, all: &[usize], new: Option<usize>) -> ApiResult<()> {
        let (counts, conditions) = self.calculate_status(all, new);
        let status = self.status_value(&counts, &conditions);
        if status == self.dv["status"] {
            return Ok(());
        }
        self.dv["status"] = status;
        self.write_deployment()
    }

    /// `syncRolloutStatus`: the status plus the Progressing condition and replica failures.
    fn sync_rollout_status(&mut self, all: &[usize], new: Option<usize>) -> ApiResult<()> {
        let (counts, mut conditions) = self.calculate_status(all, new);
        let (now_s, now) = now_pair();
        let deadline = self.spec.progress_deadline;
        if deadline.is_none() {
            remove_condition(&mut conditions, PROGRESSING);
        }
        let current = get_condition(&self.conditions(), PROGRESSING).cloned();
        let provisional = self.status_value(&counts, &conditions);
        let complete_already = counts.replicas == counts.updated
            && current
                .as_ref()
                .is_some_and(|c| c["reason"] == REASON_NEW_RS_AVAILABLE);
        let new_name = new.map(|i| self.sets[i].name().to_string());
        let describe = |what: &str| match &new_name {
            Some(n) => format!("ReplicaSet {} {what}", go_quote(n)),
            None => format!("Deployment {} {what}", go_quote(self.d.name())),
        };
        if deadline.is_some() && !complete_already {
            if deployment_complete(&self.spec, &provisional) {
                let msg = describe("has successfully progressed.");
                set_condition(
                    &mut conditions,
                    new_condition(PROGRESSING, "True", REASON_NEW_RS_AVAILABLE, &msg, &now_s),
                );
            } else if deployment_progressing(&self.dv["status"], &provisional) {
                let msg = describe("is progressing.");
                let mut cond = new_condition(PROGRESSING, "True", REASON_RS_UPDATED, &msg, &now_s);
                if let Some(cur) = &current {
                    if cur["status"] == "True" {
                        cond["lastTransitionTime"] = cur["lastTransitionTime"].clone();
                    }
                    remove_condition(&mut conditions, PROGRESSING);
                }
                set_condition(&mut conditions, cond);
            } else if deployment_timed_out(&self.spec, &conditions, now) {
                let msg = describe("has timed out progressing.");
                set_condition(
                    &mut conditions,
                    new_condition(PROGRESSING, "False", REASON_TIMED_OUT, &msg, &now_s),
                );
            }
        }
        match self.replica_failure(all, new) {
            Some(c) => set_condition(&mut conditions, c),
            None => remove_condition(&mut conditions, REPLICA_FAILURE),
        }
        let status = self.status_value(&counts, &conditions);
        if status == self.dv["status"] {
            self.requeue = self.requeue_stuck(&status);
            return Ok(());
        }
        self.dv["status"] = status;
        self.write_deployment()
    }

    /// `getReplicaFailures`: the new ReplicaSet's failure first, else any old one's.
    fn replica_failure(&self, all: &[usize], new: Option<usize>) -> Option<Value> {
        let failure = |i: usize| {
            self.rs(i)["status"]["conditions"]
                .as_array()
                .and_then(|cs| cs.iter().find(|c| c["type"] == REPLICA_FAILURE))
                .map(rs_condition_to_deployment)
        };
        new.and_then(failure)
            .or_else(|| all.iter().find_map(|&i| failure(i)))
    }

    /// `requeueStuckDeployment`: look again when the progress deadline would pass.
    fn requeue_stuck(&self, status: &Value) -> Option<Duration> {
        let deadline = self.spec.progress_deadline?;
        let conditions = self.conditions();
        let cur = get_condition(&conditions, PROGRESSING)?;
        if deployment_complete(&self.spec, status) || cur["reason"] == REASON_TIMED_OUT {
            return None;
        }
        let last = super::replicaset::parse_time(&cur["lastUpdateTime"])?;
        let after = (last + chrono::Duration::seconds(deadline) - Utc::now())
            .to_std()
            .unwrap_or_default();
        Some(if after < Duration::from_secs(1) {
            Duration::from_secs(1)
        } else {
            after + Duration::from_secs(1)
        })
    }

    /// `checkPausedConditions`: Progressing=Unknown while paused, and on resume.
    fn check_paused_conditions(&mut self) -> ApiResult<()> {
        if self.spec.progress_deadline.is_none() {
            return Ok(());
        }
        let conditions = self.conditions();
        let cond = get_condition(&conditions, PROGRESSING);
        if cond.is_some_and(|c| c["reason"] == REASON_TIMED_OUT) {
            return Ok(());
        }
        let paused_exists = cond.is_some_and(|c| c["reason"] == REASON_PAUSED);
        let now = meta::now();
        if self.spec.paused && !paused_exists {
            self.set_condition(new_condition(
                PROGRESSING,
                "Unknown",
                REASON_PAUSED,
                "Deployment is paused",
                &now,
            ));
        } else if !self.spec.paused && paused_exists {
            self.set_condition(new_condition(
                PROGRESSING,
                "Unknown",
                REASON_RESUMED,
                "Deployment is resumed",
                &now,
            ));
        } else {
            return Ok(());
        }
        self.write_deployment()
    }
}

/// `append(oldRSs, newRS)` without the nil.
fn with_new(old: &[usize], new: Option<usize>) -> Vec<usize> {
    let mut all = old.to_vec();
    all.extend(new);
    all
}

/// `spec.minReadySeconds` (omitted when zero, as Go's omitempty).
fn set_min_ready_seconds(rs: &mut Value, seconds: i64) {
    if let Some(spec) = rs["spec"].as_object_mut() {
        if seconds == 0 {
            spec.remove("minReadySeconds");
        } else {
            spec.insert("minReadySeconds".into(), json!(seconds));
        }
    }
}
