//! The ReplicaSet controller (`pkg/controller/replicaset/replica_set.go`): every ReplicaSet keeps
//! `spec.replicas` active pods. It claims pods by controller reference (adopting matching orphans,
//! releasing owned pods whose labels stopped matching), creates the missing ones from the template
//! in slow-start batches, deletes the surplus in the order `getPodsToDelete` ranks them, and
//! reports replicas / fullyLabeledReplicas / readyReplicas / availableReplicas and the
//! ReplicaFailure condition — writing the status only when it changed.
//!
//! Claiming goes through [`super::ownership`], shared with the Deployment and DaemonSet
//! controllers; the helpers shared with the Deployment controller live in [`access`] (pod
//! readiness, replica counts).

// The errors are the API's own Status values, returned at most once per sync: boxing them
// would buy nothing.
#![allow(clippy::result_large_err)]

pub(crate) mod access;
mod status;
mod victims;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use chrono::Utc;
use serde_json::{json, Map, Value};

use super::events::Recorder;
use super::pod_control::PodControl;
use super::{Controller, Pass};
use crate::api::Api;
use crate::meta;
use crate::registry;
use crate::resource::ResourceDef;
use crate::selectors::LabelSelector;
use crate::store::{Event, Stored};

pub(crate) use super::ownership::{adopt, claim, controller_ref, controller_uid, release, Claim};
pub(crate) use access::{is_pod_active, parse_time, sorted, spec_replicas, status_int};
use status::{calculate_status, status_changed, with_observed_generation, PodCounts};
use victims::pods_to_delete;

/// The event source of this controller.
pub const COMPONENT: &str = "replicaset-controller";
/// kube-controller-manager's `burstReplicas` for ReplicaSets: at most this many creates or
/// deletes per sync.
const BURST_REPLICAS: usize = 500;
/// `controller.SlowStartInitialBatchSize`.
const SLOW_START_INITIAL_BATCH: usize = 1;
const REPLICA_FAILURE: &str = "ReplicaFailure";

/// The controller of ReplicaSets, or of ReplicationControllers: upstream runs the same code for
/// both (`pkg/controller/replication` wraps the ReplicaSet controller), with its own event source.
pub struct ReplicaSetController {
    ctl: Ctl,
}

/// What differs between the two: the resource and the event source.
struct Ctl {
    recorder: Recorder,
    res: &'static ResourceDef,
}

impl Ctl {
    fn pods<'a>(&'a self, api: &'a Api, rs: &'a Stored) -> PodControl<'a> {
        PodControl {
            api,
            recorder: &self.recorder,
            kind: self.res,
            owner: &rs.value,
        }
    }
}

impl Default for ReplicaSetController {
    fn default() -> Self {
        Self {
            ctl: Ctl {
                recorder: Recorder::new(COMPONENT),
                res: &registry::REPLICASETS,
            },
        }
    }
}

impl ReplicaSetController {
    /// The replication controller manager (`NewReplicationManager`).
    pub fn replication_controllers() -> Self {
        Self {
            ctl: Ctl {
                recorder: Recorder::new(RC_COMPONENT),
                res: &registry::REPLICATIONCONTROLLERS,
            },
        }
    }
}

/// The event source of the ReplicationController manager.
pub const RC_COMPONENT: &str = "replication-controller";

fn selector_of(res: &ResourceDef, set: &Value) -> Result<LabelSelector, String> {
    LabelSelector::from_api(&crate::kinds::core::replicationcontroller::label_selector(
        res, set,
    ))
}

impl Controller for ReplicaSetController {
    fn name(&self) -> &'static str {
        if std::ptr::eq(self.ctl.res, &registry::REPLICASETS) {
            COMPONENT
        } else {
            RC_COMPONENT
        }
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, self.ctl.res) || std::ptr::eq(ev.res, &registry::PODS)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let store = api.store();
        let (sets, _) = store.list(self.ctl.res, None);
        if sets.is_empty() {
            return pass;
        }
        let (pods, _) = store.list(&registry::PODS, None);
        let index = PodIndex::new(&pods);
        let mut siblings: HashMap<&str, Vec<&Stored>> = HashMap::new();
        for rs in &sets {
            if let Some(owner) = controller_uid(&rs.value) {
                siblings.entry(owner).or_default().push(rs);
            }
        }
        for rs in &sets {
            pass.absorb(sync_replica_set(&self.ctl, api, rs, &index, &siblings));
        }
        pass
    }
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
    ctl: &Ctl,
    api: &Api,
    rs: &Stored,
    index: &PodIndex<'_>,
    siblings: &HashMap<&str, Vec<&Stored>>,
) -> Pass {
    let mut pass = Pass::default();
    let v = &rs.value;
    // An invalid selector matches nothing; upstream logs it and gives up on the set.
    let Ok(selector) = selector_of(ctl.res, v) else {
        return pass;
    };
    let active = claim_pods(ctl, api, rs, &selector, index, &mut pass);
    let manage_err = if meta::is_deleting(v) {
        None
    } else {
        manage_replicas(ctl, api, rs, &active, index, siblings).err()
    };
    let now = Utc::now();
    let counts = PodCounts::of(v, &active, now);
    let status = calculate_status(v, &counts, manage_err.as_deref(), &meta::now());
    if status_changed(v, &status) {
        let mut updated = v.clone();
        updated["status"] = with_observed_generation(status, v);
        let written = api.update_status(ctl.res, updated);
        pass.check("writing a replica set's status", written);
    }
    if let Some(e) = manage_err {
        pass.fail("managing a replica set's pods", e);
    }
    // Wake when the next ready pod passes minReadySeconds (upstream resyncs after
    // minReadySeconds for the same reason).
    pass.wake(
        counts
            .next_available
            .map(|at| (at - now).to_std().unwrap_or_default() + Duration::from_millis(10)),
    );
    pass
}

/// `ReplicaSetController.claimPods` over the active pods of the namespace.
fn claim_pods(
    ctl: &Ctl,
    api: &Api,
    rs: &Stored,
    selector: &LabelSelector,
    index: &PodIndex<'_>,
    pass: &mut Pass,
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
                let released = release(api, &registry::PODS, pod, meta::uid(v));
                pass.check("releasing a pod", released);
            }
            Claim::Adopt | Claim::Ignore => {}
        }
    }
    for pod in index.orphans_in(rs.namespace()) {
        let selected = selector.matches(meta::labels(&pod.value));
        if claim(v, &pod.value, selected) != Claim::Adopt {
            continue;
        }
        let adopted = adopt(api, &registry::PODS, pod, controller_ref(v, ctl.res));
        // Another controller adopted it first, or it is gone: not ours this pass.
        if let Some(adopted) = pass.check("adopting a pod", adopted) {
            claimed.push(adopted);
        }
    }
    claimed
}

/// `ReplicaSetController.manageReplicas`: the error message becomes the ReplicaFailure condition.
fn manage_replicas(
    ctl: &Ctl,
    api: &Api,
    rs: &Stored,
    active: &[Stored],
    index: &PodIndex<'_>,
    siblings: &HashMap<&str, Vec<&Stored>>,
) -> Result<(), String> {
    let want = usize::try_from(spec_replicas(&rs.value)).unwrap_or(0);
    if active.len() < want {
        let diff = (want - active.len()).min(BURST_REPLICAS);
        return create_pods(ctl, api, rs, diff);
    }
    if active.len() > want {
        let diff = (active.len() - want).min(BURST_REPLICAS);
        let related = related_pods(rs, index, siblings);
        let victims = pods_to_delete(active, &related, diff, Utc::now());
        let mut first_err = None;
        for pod in victims {
            if let Err(e) = delete_pod(ctl, api, rs, pod) {
                first_err.get_or_insert(e);
            }
        }
        return first_err.map_or(Ok(()), Err);
    }
    Ok(())
}

/// `slowStartBatch`: batches of 1, 2, 4, ... stopping after the first batch with a failure.
fn create_pods(ctl: &Ctl, api: &Api, rs: &Stored, count: usize) -> Result<(), String> {
    let mut remaining = count;
    let mut batch = SLOW_START_INITIAL_BATCH;
    while remaining > 0 {
        let size = batch.min(remaining);
        let mut first_err: Option<String> = None;
        for _ in 0..size {
            if let Err(e) = create_pod(ctl, api, rs) {
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

/// `manageReplicas`' create, through `RealPodControl.CreatePods`.
fn create_pod(ctl: &Ctl, api: &Api, rs: &Stored) -> Result<(), String> {
    let pod = pod_from_template(&rs.value, ctl.res);
    if meta::labels(&pod).is_none_or(|l| l.is_empty()) {
        return Err("unable to create pods, no labels".into());
    }
    match ctl.pods(api, rs).create(rs.namespace(), pod) {
        Ok(_) => Ok(()),
        // Every create fails in a terminating namespace; that is not a replica failure.
        Err(e) if e.has_cause("NamespaceTerminating") => Ok(()),
        Err(e) => Err(e.message),
    }
}

/// `manageReplicas`' delete, through `RealPodControl.DeletePod`; a pod already gone is no error.
fn delete_pod(ctl: &Ctl, api: &Api, rs: &Stored, pod: &Stored) -> Result<(), String> {
    match ctl.pods(api, rs).delete(pod.namespace(), pod.name()) {
        Ok(_) => Ok(()),
        Err(e) => Err(format!("unable to delete pods: {}", e.message)),
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

#[cfg(test)]
pub(crate) mod tests;
