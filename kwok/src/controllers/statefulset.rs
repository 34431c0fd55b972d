//! The StatefulSet controller (`pkg/controller/statefulset`): pods with stable names
//! `<set>-<ordinal>`, created in order and one at a time under `OrderedReady` (each waits for
//! the one before to be Running and Ready), all at once under `Parallel`; removed from the
//! highest ordinal down; replaced in reverse ordinal order when the template changes (rolling
//! updates above the partition, one pod at a time), or only when deleted under `OnDelete`.
//! Template history is kept in ControllerRevisions `<set>-<hash>`, as upstream.
//!
//! A pod's claims (`volumeClaimTemplates`) are created before it and outlive it: the default
//! retention policy (Retain, Retain) gives them no owner.

use std::collections::BTreeMap;

use chrono::Utc;
use regex::Regex;
use serde_json::{json, Map, Value};

use super::daemonset::{revision_data, REVISION_HASH_LABEL};
use super::events::Recorder;
use super::replicaset::{claim, controller_ref, pod_from_template, Claim};
use super::{Controller, Pass};
use crate::api::{Api, DeleteOptions, WriteOptions};
use crate::meta;
use crate::podutil::{is_pod_available, is_pod_ready};
use crate::registry;
use crate::selectors::LabelSelector;
use crate::store::{Event, Stored};

/// The event source of this controller.
pub const COMPONENT: &str = "statefulset-controller";
const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

#[derive(Default)]
pub struct StatefulSetController {
    recorder: Option<Recorder>,
}

impl StatefulSetController {
    fn recorder(&mut self) -> &Recorder {
        self.recorder
            .get_or_insert_with(|| Recorder::new(COMPONENT))
    }
}

impl Controller for StatefulSetController {
    fn name(&self) -> &'static str {
        COMPONENT
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::STATEFULSETS)
            || std::ptr::eq(ev.res, &registry::PODS)
            || std::ptr::eq(ev.res, &registry::CONTROLLERREVISIONS)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let (sets, _) = api.store().list(&registry::STATEFULSETS, None);
        let recorder = self.recorder().clone();
        for set in &sets {
            if let Err(e) = sync(&recorder, api, set, &mut pass) {
                pass.fail("syncing a stateful set", e);
            }
        }
        pass
    }
}

/// `fnv.New32` (FNV-1) of the revision data and the collision count, as
/// `history.HashControllerRevision` computes, in the apiserver's safe alphabet.
fn revision_hash(raw: &[u8], collision_count: i64) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut h: u32 = 0x811c_9dc5;
    for b in raw.iter().chain(collision_count.to_string().as_bytes()) {
        h = h.wrapping_mul(0x0100_0193);
        h ^= u32::from(*b);
    }
    h.to_string()
        .bytes()
        .map(|b| ALPHANUMS[usize::from(b) % ALPHANUMS.len()] as char)
        .collect()
}

fn int(v: &Value, path: &[&str]) -> i64 {
    path.iter().fold(v, |v, k| &v[*k]).as_i64().unwrap_or(0)
}

/// `getStatefulSetRevisions`: the revision the pods should run (`update`) and the one they ran
/// last (`current`), creating or renumbering the update revision as upstream does.
fn revisions(api: &Api, set: &Stored, collision: i64) -> Result<(Value, Value), String> {
    let ns = set.namespace();
    let uid = meta::uid(&set.value);
    let (all, _) = api.store().list(&registry::CONTROLLERREVISIONS, Some(ns));
    let mut owned: Vec<Value> = all
        .iter()
        .filter(|r| super::replicaset::controller_uid(&r.value) == Some(uid))
        .map(|r| r.value.clone())
        .collect();
    owned.sort_by_key(|r| r["revision"].as_i64().unwrap_or(0));
    let data = revision_data(&set.value);
    let next = owned
        .last()
        .map_or(1, |r| r["revision"].as_i64().unwrap_or(0) + 1);
    let equal = owned.iter().rposition(|r| r["data"] == data);
    let update = match equal {
        Some(i) if i + 1 == owned.len() => owned[i].clone(),
        Some(i) => {
            let mut r = owned[i].clone();
            r["revision"] = json!(next);
            let name = meta::name(&r).to_string();
            api.update(
                &registry::CONTROLLERREVISIONS,
                ns,
                &name,
                r,
                None,
                &WriteOptions::controller_manager(),
            )
            .map_err(|e| e.to_string())?
            .value
            .clone()
        }
        None => {
            let raw = serde_json::to_vec(&data).map_err(|e| e.to_string())?;
            let hash = revision_hash(&raw, collision);
            let mut labels: Map<String, Value> = set.value["spec"]["template"]["metadata"]
                ["labels"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            labels.insert(REVISION_HASH_LABEL.into(), json!(hash));
            let mut metadata = json!({
                "name": format!("{}-{hash}", set.name()),
                "labels": labels,
                "ownerReferences": [controller_ref(&set.value, &registry::STATEFULSETS)],
            });
            if let Some(a) = set.value["metadata"]["annotations"]
                .as_object()
                .filter(|a| !a.is_empty())
            {
                metadata["annotations"] = Value::Object(a.clone());
            }
            let revision = json!({"apiVersion": "apps/v1", "kind": "ControllerRevision",
                "metadata": metadata, "data": data, "revision": next});
            api.create(
                &registry::CONTROLLERREVISIONS,
                ns,
                revision,
                &WriteOptions::controller_manager(),
            )
            .map_err(|e| e.to_string())?
            .value
            .clone()
        }
    };
    let current_name = set.value["status"]["currentRevision"]
        .as_str()
        .unwrap_or("");
    let current = owned
        .into_iter()
        .find(|r| meta::name(r) == current_name && !current_name.is_empty())
        .unwrap_or_else(|| update.clone());
    Ok((current, update))
}

/// The set with the template a revision recorded (`ApplyRevision`).
fn with_revision(set: &Value, revision: &Value) -> Value {
    let mut applied = set.clone();
    let mut template = revision["data"]["spec"]["template"].clone();
    if let Some(t) = template.as_object_mut() {
        t.remove("$patch");
    }
    applied["spec"]["template"] = template;
    applied
}

/// `newStatefulSetPod` with `setPodRevision`: the template's pod named `<set>-<ordinal>`, with
/// its identity labels, hostname and subdomain, and a volume per claim template.
fn new_pod(set: &Value, ordinal: i64, revision: &str) -> Value {
    let name = format!("{}-{ordinal}", meta::name(set));
    let mut pod = pod_from_template(set, &registry::STATEFULSETS);
    let labels = crate::meta::meta_mut(&mut pod)
        .entry("labels")
        .or_insert_with(|| json!({}));
    labels[POD_NAME_LABEL] = json!(name);
    labels[POD_INDEX_LABEL] = json!(ordinal.to_string());
    labels[REVISION_HASH_LABEL] = json!(revision);
    pod["metadata"]["name"] = json!(name);
    pod["spec"]["hostname"] = json!(name);
    // `subdomain` is omitted when empty, as Go's encoder does.
    if let Some(service) = set["spec"]["serviceName"]
        .as_str()
        .filter(|s| !s.is_empty())
    {
        pod["spec"]["subdomain"] = json!(service);
    }
    let claims = set["spec"]["volumeClaimTemplates"].as_array();
    if let Some(claims) = claims.filter(|c| !c.is_empty()) {
        let claim_names: Vec<&str> = claims
            .iter()
            .map(|c| c["metadata"]["name"].as_str().unwrap_or(""))
            .collect();
        let mut volumes: Vec<Value> = claim_names
            .iter()
            .map(|c| {
                json!({"name": c, "persistentVolumeClaim":
                    {"claimName": format!("{c}-{}-{ordinal}", meta::name(set))}})
            })
            .collect();
        let own = pod["spec"]["volumes"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        volumes.extend(
            own.into_iter()
                .filter(|v| !claim_names.contains(&v["name"].as_str().unwrap_or(""))),
        );
        pod["spec"]["volumes"] = Value::Array(volumes);
    }
    pod
}

fn phase(pod: &Value) -> &str {
    pod["status"]["phase"].as_str().unwrap_or("")
}

fn terminating(pod: &Value) -> bool {
    meta::is_deleting(pod)
}

/// `isHealthy`: Running, Ready and not terminating.
fn healthy(pod: &Value) -> bool {
    phase(pod) == "Running" && is_pod_ready(pod) && !terminating(pod)
}

/// The ordinal of a pod named `<set>-<n>` (`getParentNameAndOrdinal`).
fn ordinal_of(set_name: &str, pod: &str) -> Option<i64> {
    let re = Regex::new(r"^(.*)-([0-9]+)$").ok()?;
    let caps = re.captures(pod)?;
    (caps.get(1)?.as_str() == set_name)
        .then(|| caps.get(2)?.as_str().parse().ok())
        .flatten()
}

fn pod_event(
    recorder: &Recorder,
    api: &Api,
    set: &Value,
    verb: &str,
    pod: &str,
    err: Option<&str>,
) {
    let title = |v: &str| format!("{}{}", v[..1].to_uppercase(), &v[1..]);
    let (type_, reason, message) = match err {
        None => (
            "Normal",
            format!("Successful{}", title(verb)),
            format!(
                "{verb} Pod {pod} in StatefulSet {} successful",
                meta::name(set)
            ),
        ),
        Some(e) => (
            "Warning",
            format!("Failed{}", title(verb)),
            format!(
                "{verb} Pod {pod} in StatefulSet {} failed error: {e}",
                meta::name(set)
            ),
        ),
    };
    recorder.event(api, &registry::STATEFULSETS, set, type_, &reason, &message);
}

/// `getPersistentVolumeClaims`: one claim per template, `<template>-<set>-<ordinal>`, labelled
/// with the set's `matchLabels` over the template's own; in template-name order (upstream's is a
/// map's).
fn pod_claims(set: &Value, ordinal: i64) -> Vec<Value> {
    let mut templates: Vec<&Value> = set["spec"]["volumeClaimTemplates"]
        .as_array()
        .map(|t| t.iter().collect())
        .unwrap_or_default();
    templates.sort_by_key(|t| t["metadata"]["name"].as_str().unwrap_or(""));
    templates
        .into_iter()
        .map(|t| {
            let mut claim = t.clone();
            let template = meta::name(t).to_string();
            let m = meta::meta_mut(&mut claim);
            m.insert(
                "name".into(),
                json!(format!("{template}-{}-{ordinal}", meta::name(set))),
            );
            m.insert("namespace".into(), json!(meta::namespace(set)));
            let labels = m.entry("labels").or_insert_with(|| json!({}));
            if let Some(wanted) = set["spec"]["selector"]["matchLabels"].as_object() {
                for (k, v) in wanted {
                    labels[k] = v.clone();
                }
            }
            claim["apiVersion"] = json!("v1");
            claim["kind"] = json!("PersistentVolumeClaim");
            if let Some(status) = claim.as_object_mut() {
                status.remove("status");
            }
            claim
        })
        .collect()
}

/// `createPersistentVolumeClaims`: each missing claim is created (and the creation recorded);
/// one being deleted holds the pod back.
fn create_claims(
    recorder: &Recorder,
    api: &Api,
    set: &Value,
    pod: &str,
    ordinal: i64,
) -> Vec<String> {
    let mut errs = Vec::new();
    for claim in pod_claims(set, ordinal) {
        let name = meta::name(&claim).to_string();
        match api.store().get(
            &registry::PERSISTENTVOLUMECLAIMS,
            meta::namespace(set),
            &name,
        ) {
            Some(existing) => {
                if meta::is_deleting(&existing.value) {
                    errs.push(format!("pvc {name} is being deleted"));
                }
            }
            None => {
                let created = api.create(
                    &registry::PERSISTENTVOLUMECLAIMS,
                    meta::namespace(set),
                    claim,
                    &WriteOptions::default(),
                );
                let set_name = meta::name(set);
                match created {
                    Ok(_) => recorder.event(
                        api,
                        &registry::STATEFULSETS,
                        set,
                        "Normal",
                        "SuccessfulCreate",
                        &format!("create Claim {name} Pod {pod} in StatefulSet {set_name} success"),
                    ),
                    Err(e) => {
                        if e.code != 409 {
                            recorder.event(
                                api,
                                &registry::STATEFULSETS,
                                set,
                                "Warning",
                                "FailedCreate",
                                &format!(
                                    "create Claim {name} for Pod {pod} in StatefulSet {set_name} failed error: {}",
                                    e.message
                                ),
                            );
                        }
                        errs.push(format!("failed to create PVC {name}: {}", e.message));
                    }
                }
            }
        }
    }
    errs
}

/// `CreateStatefulPod`: its claims first, then the pod.
fn create_pod(recorder: &Recorder, api: &Api, set: &Value, pod: Value) -> Result<(), String> {
    let pod_name = meta::name(&pod).to_string();
    let ordinal = ordinal_of(meta::name(set), &pod_name).unwrap_or(0);
    let errs = create_claims(recorder, api, set, &pod_name, ordinal);
    if !errs.is_empty() {
        let err = crate::error::aggregate(errs);
        pod_event(recorder, api, set, "create", &pod_name, Some(&err));
        return Err(err);
    }
    match api.create(
        &registry::PODS,
        meta::namespace(set),
        pod,
        &WriteOptions::default(),
    ) {
        Ok(_) => {
            pod_event(recorder, api, set, "create", &pod_name, None);
            Ok(())
        }
        Err(e) if e.code == 409 => Err(e.to_string()),
        Err(e) => {
            pod_event(recorder, api, set, "create", &pod_name, Some(&e.message));
            Err(e.to_string())
        }
    }
}

fn delete_pod(recorder: &Recorder, api: &Api, set: &Value, pod: &Value) -> Result<(), String> {
    let name = meta::name(pod).to_string();
    match api.delete(
        &registry::PODS,
        meta::namespace(pod),
        &name,
        &DeleteOptions::default(),
    ) {
        Ok(_) => {
            pod_event(recorder, api, set, "delete", &name, None);
            Ok(())
        }
        Err(e) if e.code == 404 => Ok(()),
        Err(e) => {
            pod_event(recorder, api, set, "delete", &name, Some(&e.message));
            Err(e.to_string())
        }
    }
}

/// `computeReplicaStatus` over the pods that exist.
fn count(
    status: &mut Map<String, Value>,
    pods: &[&Value],
    set: &Value,
    current: &str,
    update: &str,
) {
    let min_ready = int(set, &["spec", "minReadySeconds"]);
    let now = Utc::now();
    let (mut replicas, mut ready, mut available, mut cur, mut upd) = (0, 0, 0, 0, 0);
    for pod in pods.iter().filter(|p| !phase(p).is_empty()) {
        replicas += 1;
        if phase(pod) == "Running" && is_pod_ready(pod) {
            ready += 1;
            if is_pod_available(pod, min_ready, now) {
                available += 1;
            }
        }
        if !terminating(pod) {
            let revision = meta::label(pod, REVISION_HASH_LABEL).unwrap_or("");
            cur += i64::from(revision == current);
            upd += i64::from(revision == update);
        }
    }
    status.insert("replicas".into(), json!(replicas));
    status.insert("availableReplicas".into(), json!(available));
    for (key, n) in [
        ("readyReplicas", ready),
        ("currentReplicas", cur),
        ("updatedReplicas", upd),
    ] {
        if n > 0 {
            status.insert(key.into(), json!(n));
        } else {
            status.remove(key);
        }
    }
}

/// One pass of `updateStatefulSet` for one set.
fn sync(recorder: &Recorder, api: &Api, set: &Stored, pass: &mut Pass) -> Result<(), String> {
    let v = &set.value;
    let Ok(selector) = LabelSelector::from_api(&v["spec"]["selector"]) else {
        return Ok(());
    };
    let collision = int(v, &["status", "collisionCount"]);
    let (current_rev, update_rev) = revisions(api, set, collision)?;
    let (current_name, update_name) = (meta::name(&current_rev), meta::name(&update_rev));
    let current_set = with_revision(v, &current_rev);
    let update_set = with_revision(v, &update_rev);

    // `getPodsForStatefulSet`: owned members whose labels still match.
    let (pods, _) = api.store().list(&registry::PODS, Some(set.namespace()));
    let mut members: Vec<&Value> = Vec::new();
    for pod in &pods {
        let selected = selector.matches(meta::labels(&pod.value));
        if ordinal_of(set.name(), pod.name()).is_some()
            && claim(v, &pod.value, selected) == Claim::Owned
        {
            members.push(&pod.value);
        }
    }
    let start = int(v, &["spec", "ordinals", "start"]);
    let want = int(v, &["spec", "replicas"]);
    let mut slots: BTreeMap<i64, &Value> = BTreeMap::new();
    let mut condemned: Vec<(i64, &Value)> = Vec::new();
    for pod in &members {
        let Some(ord) = ordinal_of(set.name(), meta::name(pod)) else {
            continue;
        };
        if (start..start + want).contains(&ord) {
            slots.insert(ord, pod);
        } else {
            condemned.push((ord, pod));
        }
    }
    condemned.sort_by_key(|c| std::cmp::Reverse(c.0));

    let mut status = Map::new();
    status.insert(
        "observedGeneration".into(),
        json!(v["metadata"]["generation"].as_i64().unwrap_or(0)),
    );
    status.insert("currentRevision".into(), json!(current_name));
    status.insert("updateRevision".into(), json!(update_name));
    status.insert("collisionCount".into(), json!(collision));
    count(&mut status, &members, v, current_name, update_name);

    let result = if meta::is_deleting(v) {
        Ok(())
    } else {
        act(
            recorder,
            api,
            v,
            (&current_set, &update_set),
            (current_name, update_name),
            &slots,
            &condemned,
            &mut status,
        )
    };

    // `completeRollingUpdate`.
    let rolling = v["spec"]["updateStrategy"]["type"] == "RollingUpdate";
    let n = |k: &str| status.get(k).and_then(Value::as_i64).unwrap_or(0);
    if rolling
        && n("updatedReplicas") == want
        && n("readyReplicas") == want
        && n("replicas") == want
    {
        status.insert("currentReplicas".into(), json!(n("updatedReplicas")));
        status.insert("currentRevision".into(), json!(update_name));
    }
    let status = Value::Object(status);
    if v["status"] != status {
        let mut updated = v.clone();
        updated["status"] = status;
        let written = api.update_status(&registry::STATEFULSETS, updated);
        pass.check("writing a stateful set's status", written);
    }
    truncate_history(api, set, &members, current_name, update_name)?;
    result
}

/// The replicas, the condemned pods and the rolling update, in upstream's order; returns at the
/// first step that must wait for a pod.
#[allow(clippy::too_many_arguments)]
fn act(
    recorder: &Recorder,
    api: &Api,
    set: &Value,
    (current_set, update_set): (&Value, &Value),
    (current_name, update_name): (&str, &str),
    slots: &BTreeMap<i64, &Value>,
    condemned: &[(i64, &Value)],
    status: &mut Map<String, Value>,
) -> Result<(), String> {
    let monotonic = set["spec"]["podManagementPolicy"] != "Parallel";
    let start = int(set, &["spec", "ordinals", "start"]);
    let want = int(set, &["spec", "replicas"]);
    let strategy = &set["spec"]["updateStrategy"];
    let rolling = strategy["type"] == "RollingUpdate";
    let partition = strategy["rollingUpdate"]["partition"].as_i64();
    let current_replicas = int(set, &["status", "currentReplicas"]);
    for ord in start..start + want {
        match slots.get(&ord) {
            None => {
                // `newVersionedStatefulSetPod`.
                let below = match partition {
                    None => ord < start + current_replicas,
                    Some(p) => ord < start + p,
                };
                let pod = if rolling && below {
                    new_pod(current_set, ord, current_name)
                } else {
                    new_pod(update_set, ord, update_name)
                };
                create_pod(recorder, api, set, pod)?;
                if monotonic {
                    return Ok(());
                }
            }
            Some(pod) => {
                if matches!(phase(pod), "Failed" | "Succeeded") {
                    if !terminating(pod) {
                        delete_pod(recorder, api, set, pod)?;
                    }
                    if monotonic {
                        return Ok(());
                    }
                    continue;
                }
                let min_ready = int(set, &["spec", "minReadySeconds"]);
                let available = is_pod_available(pod, min_ready, Utc::now());
                if monotonic && (!healthy(pod) || !available) {
                    return Ok(());
                }
            }
        }
    }
    // Scale down, highest ordinal first.
    for (_, pod) in condemned {
        if terminating(pod) {
            if monotonic {
                return Ok(());
            }
            continue;
        }
        delete_pod(recorder, api, set, pod)?;
        if monotonic {
            return Ok(());
        }
    }
    if !rolling {
        return Ok(());
    }
    // Rolling update: reverse ordinal order, one pod at a time, down to the partition.
    let update_min = start + partition.unwrap_or(0);
    for ord in (update_min..start + want).rev() {
        let Some(pod) = slots.get(&ord) else {
            return Ok(());
        };
        if meta::label(pod, REVISION_HASH_LABEL) != Some(update_name) && !terminating(pod) {
            delete_pod(recorder, api, set, pod)?;
            let cur = status
                .get("currentReplicas")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            status.insert("currentReplicas".into(), json!(cur - 1));
            return Ok(());
        }
        if !healthy(pod) {
            return Ok(());
        }
    }
    Ok(())
}

/// `truncateHistory`: revisions no pod runs, beyond `revisionHistoryLimit`, oldest first.
fn truncate_history(
    api: &Api,
    set: &Stored,
    pods: &[&Value],
    current: &str,
    update: &str,
) -> Result<(), String> {
    let uid = meta::uid(&set.value);
    let (all, _) = api
        .store()
        .list(&registry::CONTROLLERREVISIONS, Some(set.namespace()));
    let mut history: Vec<&Stored> = all
        .iter()
        .filter(|r| super::replicaset::controller_uid(&r.value) == Some(uid))
        .filter(|r| {
            let name = r.name();
            name != current
                && name != update
                && !pods
                    .iter()
                    .any(|p| meta::label(p, REVISION_HASH_LABEL) == Some(name))
        })
        .collect();
    let limit = usize::try_from(int(&set.value, &["spec", "revisionHistoryLimit"])).unwrap_or(0);
    if history.len() <= limit {
        return Ok(());
    }
    history.sort_by_key(|r| r.value["revision"].as_i64().unwrap_or(0));
    let excess = history.len() - limit;
    for r in history.into_iter().take(excess) {
        match api.delete(
            &registry::CONTROLLERREVISIONS,
            set.namespace(),
            r.name(),
            &DeleteOptions::default(),
        ) {
            Ok(_) => {}
            Err(e) if e.code == 404 => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_belong_to_their_set_only() {
        assert_eq!(ordinal_of("web", "web-0"), Some(0));
        assert_eq!(ordinal_of("web", "web-12"), Some(12));
        assert_eq!(ordinal_of("web", "web-db-1"), None);
        assert_eq!(ordinal_of("web-db", "web-db-1"), Some(1));
        assert_eq!(ordinal_of("web", "web"), None);
    }

    fn names(api: &Api) -> Vec<String> {
        let (pods, _) = api.store().list(&registry::PODS, Some("default"));
        pods.iter().map(|p| p.name().to_string()).collect()
    }

    #[test]
    fn ordered_ready_waits_for_each_pod_before_the_next() {
        let api = Api::bootstrapped();
        let set = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "web"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
        api.create(
            &registry::STATEFULSETS,
            "default",
            set,
            &WriteOptions::default(),
        )
        .expect("set");
        let mut ctrl = StatefulSetController::default();
        assert!(!ctrl.reconcile(&api).failed());
        assert!(!ctrl.reconcile(&api).failed());
        assert_eq!(names(&api), ["web-0"], "web-1 waits for web-0 to be ready");
        let mut pod = api
            .get(&registry::PODS, "default", "web-0")
            .expect("web-0")
            .value
            .clone();
        pod["status"] = json!({"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True", "lastTransitionTime": "2025-01-01T00:00:00Z"}]});
        api.update_status(&registry::PODS, pod).expect("ready");
        assert!(!ctrl.reconcile(&api).failed());
        assert_eq!(names(&api), ["web-0", "web-1"]);
        let web1 = api.get(&registry::PODS, "default", "web-1").expect("web-1");
        assert_eq!(web1.value["spec"]["hostname"], "web-1");
        assert_eq!(meta::label(&web1.value, POD_INDEX_LABEL), Some("1"));
    }

    #[test]
    fn revision_hashes_use_fnv1_and_the_safe_alphabet() {
        let h = revision_hash(br#"{"spec":{"template":{"$patch":"replace"}}}"#, 0);
        assert!(!h.is_empty() && h.len() <= 10);
        assert!(h
            .bytes()
            .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b)));
        assert_ne!(
            h,
            revision_hash(br#"{"spec":{"template":{"$patch":"replace"}}}"#, 1)
        );
    }
}
