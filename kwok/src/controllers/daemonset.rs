//! The DaemonSet controller (`k/k pkg/controller/daemon`): one daemon pod on every node the
//! template may run on, ControllerRevisions for the template history, rolling updates and the
//! DaemonSet status.
//!
//! One pass looks at every DaemonSet against one snapshot of nodes, pods and revisions, indexed
//! once, so the cost of a pass is linear in pods + DaemonSets × nodes. Placement decisions
//! (`NodeShouldRunDaemonPod`) are remembered per node resourceVersion and DaemonSet generation, and
//! nothing is written unless it changes. Like upstream's informer cache, the status written in a
//! pass reflects the pods seen at its start; the pass that our own creates and deletes trigger
//! brings it up to date.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, PodSpec, PodTemplateSpec, Toleration};
use serde_json::{json, Map, Value};

use super::typed::{sorted_keys, template_hash, TypedCache};
use super::{events, Controller};
use crate::api::{meta, Api, DeleteOptions, WriteOptions};
use crate::error::ApiError;
use crate::intstr::scaled_value;
use crate::registry;
use crate::scheduler::{add_daemon_tolerations, node_should_run_daemon_pod};
use crate::selectors::LabelSelector;
use crate::store::{Event, Stored};

/// The event source of the controller (`NewDaemonSetsController`).
pub const COMPONENT: &str = "daemonset-controller";
/// `apps.DefaultDaemonSetUniqueLabelKey` / `ControllerRevisionHashLabelKey`.
pub const REVISION_HASH_LABEL: &str = "controller-revision-hash";
/// `extensions.DaemonSetTemplateGenerationKey`.
pub const TEMPLATE_GENERATION_LABEL: &str = "pod-template-generation";
/// The annotation the API server keeps the template generation in (daemonset strategy).
pub const TEMPLATE_GENERATION_ANNOTATION: &str = "deprecated.daemonset.template.generation";

/// `--concurrent-daemonset-syncs` burst: at most this many creates or deletes per sync.
const BURST_REPLICAS: usize = 250;
/// `controller.SlowStartInitialBatchSize`.
const SLOW_START_INITIAL_BATCH_SIZE: usize = 1;
/// The `spec.revisionHistoryLimit` default (apps/v1 defaults).
const DEFAULT_REVISION_HISTORY_LIMIT: i64 = 10;
/// `failedPodsBackoff = flowcontrol.NewBackOff(1*time.Second, 15*time.Minute)`.
const FAILED_POD_BACKOFF_INITIAL: Duration = Duration::from_secs(1);
const FAILED_POD_BACKOFF_MAX: Duration = Duration::from_secs(15 * 60);
/// The workqueue's per-item rate limiter (`DefaultControllerRateLimiter`: 5 ms doubling to 1000 s).
const ERROR_BACKOFF_BASE: Duration = Duration::from_millis(5);
const ERROR_BACKOFF_MAX: Duration = Duration::from_secs(1000);

#[derive(Default)]
pub struct DaemonSetController {
    nodes: TypedCache<Node>,
    daemonsets: TypedCache<DaemonSet>,
    /// `NodeShouldRunDaemonPod` answers by DaemonSet uid, valid for one generation.
    placement: HashMap<String, Placement>,
    failed_pods: Backoff,
    /// The last sync of each DaemonSet, by uid.
    synced: HashMap<String, Synced>,
    /// The resourceVersion a `SelectingAll` event was last recorded for, by uid (one event per
    /// change of the DaemonSet, as upstream syncs it once per change).
    selecting_all: HashMap<String, u64>,
}

/// `NodeShouldRunDaemonPod`'s (shouldRun, shouldContinueRunning) for one node object.
type Asked = (Stored, (bool, bool));

struct Placement {
    generation: i64,
    /// The node objects asked about, with the answers, in node-list order.
    answers: Vec<Asked>,
}

/// `flowcontrol.Backoff` over real time.
#[derive(Default)]
struct Backoff {
    entries: HashMap<String, (Duration, Instant)>,
}

impl Backoff {
    fn expired(last: Instant, now: Instant) -> bool {
        now.duration_since(last) > 2 * FAILED_POD_BACKOFF_MAX
    }

    /// `IsInBackOffSinceUpdate`: the remaining wait, if still backing off.
    fn remaining(&self, key: &str, now: Instant) -> Option<Duration> {
        let (delay, last) = self.entries.get(key)?;
        if Self::expired(*last, now) {
            return None;
        }
        let elapsed = now.duration_since(*last);
        (elapsed < *delay).then(|| *delay - elapsed)
    }

    /// `Next`: start at the initial delay, else double up to the maximum.
    fn next(&mut self, key: &str, now: Instant) {
        let delay = match self.entries.get(key) {
            Some((d, last)) if !Self::expired(*last, now) => (*d * 2).min(FAILED_POD_BACKOFF_MAX),
            _ => FAILED_POD_BACKOFF_INITIAL,
        };
        self.entries.insert(key.to_string(), (delay, now));
    }

    /// `GC`: forget entries not touched for twice the maximum delay.
    fn gc(&mut self, now: Instant) {
        self.entries
            .retain(|_, (_, last)| !Self::expired(*last, now));
    }
}

// ---------------------------------------------------------------------------------------------
// Pod helpers shared with the disruption controller.

fn condition<'a>(pod: &'a Value, type_: &str) -> Option<&'a Value> {
    pod["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == type_))
}

/// `podutil.IsPodReady`.
pub(super) fn is_pod_ready(pod: &Value) -> bool {
    condition(pod, "Ready").is_some_and(|c| c["status"] == "True")
}

pub(super) fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// `podutil.IsPodAvailable`: Ready, and Ready for longer than `min_ready` seconds. `Err(at)` when
/// the pod is Ready but becomes available only at `at`.
fn availability(pod: &Value, min_ready: i64, now: DateTime<Utc>) -> Result<bool, DateTime<Utc>> {
    if !is_pod_ready(pod) {
        return Ok(false);
    }
    if min_ready <= 0 {
        return Ok(true);
    }
    let Some(since) = condition(pod, "Ready")
        .and_then(|c| c["lastTransitionTime"].as_str())
        .and_then(parse_time)
    else {
        return Ok(false);
    };
    let at = since + chrono::Duration::seconds(min_ready);
    if at < now {
        Ok(true)
    } else {
        Err(at)
    }
}

fn is_available(pod: &Value, min_ready: i64, now: DateTime<Utc>) -> bool {
    availability(pod, min_ready, now) == Ok(true)
}

fn phase(pod: &Value) -> &str {
    pod["status"]["phase"].as_str().unwrap_or("")
}

fn is_terminal(pod: &Value) -> bool {
    matches!(phase(pod), "Succeeded" | "Failed")
}

fn node_name_of(pod: &Value) -> &str {
    pod["spec"]["nodeName"].as_str().unwrap_or("")
}

/// `util.GetTargetNodeName` over pod JSON: `spec.nodeName`, else the single value of the first
/// `metadata.name In` matchFields requirement of the required node affinity.
pub fn target_node_name(pod: &Value) -> Option<&str> {
    let name = node_name_of(pod);
    if !name.is_empty() {
        return Some(name);
    }
    let terms = pod["spec"]["affinity"]["nodeAffinity"]
        ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        .as_array()?;
    for term in terms {
        for exp in term["matchFields"].as_array().into_iter().flatten() {
            if exp["key"] == "metadata.name" && exp["operator"] == "In" {
                return match exp["values"].as_array().map(Vec::as_slice) {
                    Some([only]) => only.as_str(),
                    _ => None,
                };
            }
        }
    }
    None
}

fn object_entry<'a>(map: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    let entry = map.entry(key).or_insert_with(|| json!({}));
    if !entry.is_object() {
        *entry = json!({});
    }
    entry.as_object_mut().expect("object ensured above")
}

/// `util.ReplaceDaemonSetPodNodeNameNodeAffinity` over pod spec JSON: the required node selector
/// becomes the single `metadata.name In [node]` term; preferred terms and pod (anti-)affinity stay.
pub fn replace_node_name_affinity(spec: &mut Value, node: &str) {
    if !spec.is_object() {
        *spec = json!({});
    }
    let spec = spec.as_object_mut().expect("object ensured above");
    let affinity = object_entry(spec, "affinity");
    let node_affinity = object_entry(affinity, "nodeAffinity");
    let required = object_entry(
        node_affinity,
        "requiredDuringSchedulingIgnoredDuringExecution",
    );
    required.insert(
        "nodeSelectorTerms".into(),
        json!([{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]),
    );
}

/// A toleration as the API server prints it (Go field order, empty fields omitted).
fn toleration_json(t: &Toleration) -> Value {
    let mut m = Map::new();
    for (key, value) in [
        ("key", &t.key),
        ("operator", &t.operator),
        ("value", &t.value),
        ("effect", &t.effect),
    ] {
        if let Some(s) = value.as_deref().filter(|s| !s.is_empty()) {
            m.insert(key.into(), json!(s));
        }
    }
    if let Some(s) = t.toleration_seconds {
        m.insert("tolerationSeconds".into(), json!(s));
    }
    Value::Object(m)
}

/// `getPatch`: the ControllerRevision data, `{"spec":{"template":{..., "$patch":"replace"}}}`
/// with keys sorted as upstream's round trip through a Go map leaves them.
pub fn revision_data(ds: &Value) -> Value {
    let mut template = ds["spec"]["template"].clone();
    if let Some(t) = template.as_object_mut() {
        t.insert("$patch".into(), json!("replace"));
    }
    sorted_keys(&json!({"spec": {"template": template}}))
}

fn controller_ref(ds: &Value) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "name": meta::name(ds),
        "uid": meta::uid(ds),
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

fn controller_uid(obj: &Value) -> Option<&str> {
    meta::controller_ref(obj).and_then(|r| r["uid"].as_str())
}

/// `util.GetTemplateGeneration`.
fn template_generation(ds: &Value) -> Option<i64> {
    meta::annotation(ds, TEMPLATE_GENERATION_ANNOTATION).and_then(|s| s.parse().ok())
}

/// `util.IsPodUpdated`: the pod carries the current revision hash or template generation.
fn is_pod_updated(pod: &Value, hash: &str, generation: Option<&str>) -> bool {
    let template_matches =
        generation.is_some_and(|g| meta::label(pod, TEMPLATE_GENERATION_LABEL) == Some(g));
    let hash_matches = !hash.is_empty() && meta::label(pod, REVISION_HASH_LABEL) == Some(hash);
    hash_matches || template_matches
}

/// `podByCreationTimestampAndPhase`: scheduled pods first, then the oldest, then by name.
fn sort_oldest_first(pods: &mut [Stored]) {
    pods.sort_by(|a, b| {
        let unscheduled = |p: &Stored| node_name_of(&p.value).is_empty();
        let created = |p: &Stored| {
            p.value["metadata"]["creationTimestamp"]
                .as_str()
                .unwrap_or("")
                .to_string()
        };
        unscheduled(a)
            .cmp(&unscheduled(b))
            .then_with(|| created(a).cmp(&created(b)))
            .then_with(|| a.name().cmp(b.name()))
    });
}

// ---------------------------------------------------------------------------------------------
// The pods a DaemonSet creates.

/// `util.CreatePodTemplate` + `controller.GetPodFromTemplate`, prepared once per sync.
struct PodBlueprint {
    namespace: String,
    generate_name: String,
    labels: Value,
    annotations: Option<Value>,
    finalizers: Option<Value>,
    owner: Value,
    spec: Value,
}

impl PodBlueprint {
    fn new(ds: &Value, hash: &str) -> Self {
        let template = &ds["spec"]["template"];
        let mut labels: BTreeMap<String, Value> = template["metadata"]["labels"]
            .as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        if let Some(g) = template_generation(ds) {
            labels.insert(TEMPLATE_GENERATION_LABEL.into(), json!(g.to_string()));
        }
        if !hash.is_empty() {
            labels.insert(REVISION_HASH_LABEL.into(), json!(hash));
        }
        let annotations = template["metadata"]["annotations"]
            .as_object()
            .filter(|m| !m.is_empty())
            .map(|m| sorted_keys(&Value::Object(m.clone())));
        let finalizers = template["metadata"]["finalizers"]
            .as_array()
            .filter(|f| !f.is_empty())
            .map(|f| Value::Array(f.clone()));
        let mut spec = template["spec"].clone();
        if !spec.is_object() {
            spec = json!({});
        }
        let tolerations: Vec<Toleration> =
            serde_json::from_value(spec["tolerations"].clone()).unwrap_or_default();
        let mut typed = PodSpec {
            tolerations: Some(tolerations),
            host_network: spec["hostNetwork"].as_bool(),
            ..Default::default()
        };
        add_daemon_tolerations(&mut typed);
        spec["tolerations"] = Value::Array(
            typed
                .tolerations
                .iter()
                .flatten()
                .map(toleration_json)
                .collect(),
        );
        Self {
            namespace: meta::namespace(ds).to_string(),
            generate_name: format!("{}-", meta::name(ds)),
            labels: Value::Object(labels.into_iter().collect()),
            annotations,
            finalizers,
            owner: controller_ref(ds),
            spec,
        }
    }

    /// The pod for one node: created without `nodeName`, pinned by node affinity.
    fn pod_for(&self, node: &str) -> Value {
        let mut metadata = Map::new();
        metadata.insert("generateName".into(), json!(self.generate_name));
        metadata.insert("namespace".into(), json!(self.namespace));
        metadata.insert("labels".into(), self.labels.clone());
        if let Some(a) = &self.annotations {
            metadata.insert("annotations".into(), a.clone());
        }
        metadata.insert("ownerReferences".into(), json!([self.owner]));
        if let Some(f) = &self.finalizers {
            metadata.insert("finalizers".into(), f.clone());
        }
        let mut spec = self.spec.clone();
        replace_node_name_affinity(&mut spec, node);
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
    }
}

// ---------------------------------------------------------------------------------------------
// One pass.

/// A cheap summary of a set of objects: any add or update raises the highest resourceVersion
/// (they only grow), any removal lowers the count. Equal summaries mean an unchanged set.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct SetVersion {
    count: usize,
    max_rv: u64,
}

impl SetVersion {
    fn add(&mut self, o: &Stored) {
        self.count += 1;
        self.max_rv = self.max_rv.max(o.resource_version());
    }

    fn of<'a>(objs: impl IntoIterator<Item = &'a Stored>) -> Self {
        let mut v = Self::default();
        for o in objs {
            v.add(o);
        }
        v
    }
}

/// Objects grouped by a key borrowed from the pass's lists, with their summaries.
struct Grouped<'a> {
    groups: HashMap<&'a str, (Vec<&'a Stored>, SetVersion)>,
}

impl<'a> Grouped<'a> {
    fn new() -> Self {
        Self {
            groups: HashMap::new(),
        }
    }

    fn push(&mut self, key: &'a str, o: &'a Stored) {
        let (items, version) = self.groups.entry(key).or_default();
        items.push(o);
        version.add(o);
    }

    fn get(&self, key: &str) -> &[&'a Stored] {
        self.groups
            .get(key)
            .map_or(&[], |(items, _)| items.as_slice())
    }

    fn version(&self, key: &str) -> SetVersion {
        self.groups.get(key).map(|(_, v)| *v).unwrap_or_default()
    }
}

/// What one pass sees: pods by controller uid, ownerless pods and revisions by namespace.
struct Snapshot<'a> {
    nodes: &'a [Stored],
    node_index: HashMap<&'a str, usize>,
    nodes_version: SetVersion,
    owned_pods: Grouped<'a>,
    orphan_pods: Grouped<'a>,
    revisions: Grouped<'a>,
    now: DateTime<Utc>,
    instant: Instant,
}

impl<'a> Snapshot<'a> {
    fn build(nodes: &'a [Stored], pods: &'a [Stored], revisions: &'a [Stored]) -> Self {
        let mut owned_pods = Grouped::new();
        let mut orphan_pods = Grouped::new();
        for p in pods {
            match controller_uid(&p.value) {
                Some(uid) => owned_pods.push(uid, p),
                None => orphan_pods.push(p.namespace(), p),
            }
        }
        let mut by_ns = Grouped::new();
        for cr in revisions {
            by_ns.push(cr.namespace(), cr);
        }
        Self {
            nodes,
            node_index: nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.name(), i))
                .collect(),
            nodes_version: SetVersion::of(nodes),
            owned_pods,
            orphan_pods,
            revisions: by_ns,
            now: Utc::now(),
            instant: Instant::now(),
        }
    }

    /// Everything a sync of `ds` reads. While it is unchanged (and no timer is due), a sync would
    /// decide the same and is skipped.
    fn inputs_of(&self, ds: &Stored) -> Inputs {
        Inputs {
            ds_rv: ds.resource_version(),
            nodes: self.nodes_version,
            owned: self.owned_pods.version(meta::uid(&ds.value)),
            orphans: self.orphan_pods.version(ds.namespace()),
            revisions: self.revisions.version(ds.namespace()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Inputs {
    ds_rv: u64,
    nodes: SetVersion,
    owned: SetVersion,
    orphans: SetVersion,
    revisions: SetVersion,
}

/// The last sync of a DaemonSet: its inputs, when it must run again regardless (timers, error
/// backoff), and how many syncs in a row failed.
struct Synced {
    inputs: Inputs,
    due: Option<Instant>,
    failures: u32,
}

/// The DaemonSet status counters (`updateDaemonSetStatus`).
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    desired: i64,
    current: i64,
    misscheduled: i64,
    ready: i64,
    updated: i64,
    available: i64,
    unavailable: i64,
}

/// What a sync of one DaemonSet asks of the loop.
#[derive(Default)]
struct Outcome {
    requeue: Option<Duration>,
    error: Option<String>,
}

fn earliest(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

fn until(at: DateTime<Utc>, now: DateTime<Utc>) -> Duration {
    // Availability is `Before(now)` at second precision: look again just after the instant.
    (at - now).to_std().unwrap_or_default() + Duration::from_millis(5)
}

impl DaemonSetController {
    /// `NodeShouldRunDaemonPod` for every node, in node-list order. Answers are kept per
    /// DaemonSet generation and node version (the same stored object), so a pass only asks
    /// about nodes that changed; nodes are decoded only then.
    fn placements<'n>(
        &mut self,
        ds: &Value,
        template: &PodTemplateSpec,
        nodes: &'n [Stored],
    ) -> Vec<(&'n Stored, (bool, bool))> {
        let generation = ds["metadata"]["generation"].as_i64().unwrap_or(0);
        let Self {
            placement,
            nodes: typed_nodes,
            ..
        } = self;
        let entry = placement
            .entry(meta::uid(ds).to_string())
            .or_insert_with(|| Placement {
                generation,
                answers: Vec::new(),
            });
        if entry.generation != generation {
            entry.generation = generation;
            entry.answers.clear();
        }
        let previous = std::mem::take(&mut entry.answers);
        let mut by_name: Option<HashMap<&str, &Asked>> = None;
        let mut out = Vec::with_capacity(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            let known = match previous.get(i) {
                Some((n, a)) if Arc::ptr_eq(n, node) => Some(*a),
                // Nodes came or went: find the node by name instead.
                _ => by_name
                    .get_or_insert_with(|| previous.iter().map(|e| (e.0.name(), e)).collect())
                    .get(node.name())
                    .filter(|(n, _)| Arc::ptr_eq(n, node))
                    .map(|(_, a)| *a),
            };
            let answer = known.unwrap_or_else(|| match typed_nodes.get(node) {
                Some(typed) => node_should_run_daemon_pod(template, &typed),
                // Never expected for a stored node: neither create nor delete there.
                None => (false, true),
            });
            out.push((node, answer));
        }
        entry.answers = out.iter().map(|(n, a)| ((*n).clone(), *a)).collect();
        out
    }

    /// `getDaemonPods` / `ClaimPods`: owned pods that still match, orphans that match (adopted),
    /// owned pods that no longer match (released).
    fn claim_pods(
        &self,
        api: &Api,
        ds: &Stored,
        selector: &LabelSelector,
        snap: &Snapshot,
    ) -> Vec<Stored> {
        let ns = ds.namespace();
        let mut claimed = Vec::new();
        for pod in snap.owned_pods.get(meta::uid(&ds.value)) {
            if pod.namespace() != ns {
                continue;
            }
            if selector.matches(meta::labels(&pod.value)) {
                claimed.push((*pod).clone());
                continue;
            }
            let mut released = pod.value.clone();
            let uid = meta::uid(&ds.value).to_string();
            if let Some(refs) = meta::meta_mut(&mut released)
                .get_mut("ownerReferences")
                .and_then(Value::as_array_mut)
            {
                refs.retain(|r| r["uid"].as_str() != Some(uid.as_str()));
            }
            if let Err(e) = api.update(
                &registry::PODS,
                ns,
                pod.name(),
                released,
                None,
                &WriteOptions::default(),
            ) {
                tracing::debug!(error = %e, pod = pod.name(), "releasing pod");
            }
        }
        for pod in snap.orphan_pods.get(ns) {
            if meta::is_deleting(&pod.value) || !selector.matches(meta::labels(&pod.value)) {
                continue;
            }
            let mut adopted = pod.value.clone();
            let m = meta::meta_mut(&mut adopted);
            let refs = m.entry("ownerReferences").or_insert_with(|| json!([]));
            if !refs.is_array() {
                *refs = json!([]);
            }
            if let Some(list) = refs.as_array_mut() {
                list.push(controller_ref(&ds.value));
            }
            match api.update(
                &registry::PODS,
                ns,
                pod.name(),
                adopted,
                None,
                &WriteOptions::default(),
            ) {
                Ok(p) => claimed.push(p),
                Err(e) => tracing::debug!(error = %e, pod = pod.name(), "adopting pod"),
            }
        }
        claimed
    }

    /// `controlledHistories` + `constructHistory`: the current revision's hash and the old ones.
    fn construct_history(
        &self,
        api: &Api,
        ds: &Stored,
        selector: &LabelSelector,
        claimed_pods: &[Stored],
        snap: &Snapshot,
    ) -> Result<(String, Vec<Stored>), String> {
        let ns = ds.namespace();
        let uid = meta::uid(&ds.value);
        let opts = WriteOptions::default();
        let mut histories = Vec::new();
        for cr in snap.revisions.get(ns) {
            let matches = selector.matches(meta::labels(&cr.value));
            match controller_uid(&cr.value) {
                Some(owner) if owner == uid => {
                    if matches {
                        histories.push((*cr).clone());
                    } else {
                        let mut released = cr.value.clone();
                        if let Some(refs) = meta::meta_mut(&mut released)
                            .get_mut("ownerReferences")
                            .and_then(Value::as_array_mut)
                        {
                            refs.retain(|r| r["uid"].as_str() != Some(uid));
                        }
                        let _ = api.update(
                            &registry::CONTROLLERREVISIONS,
                            ns,
                            cr.name(),
                            released,
                            None,
                            &opts,
                        );
                    }
                }
                Some(_) => {}
                None if matches && !meta::is_deleting(&cr.value) => {
                    let mut adopted = cr.value.clone();
                    let m = meta::meta_mut(&mut adopted);
                    let refs = m.entry("ownerReferences").or_insert_with(|| json!([]));
                    if let Some(list) = refs.as_array_mut() {
                        list.push(controller_ref(&ds.value));
                    }
                    match api.update(
                        &registry::CONTROLLERREVISIONS,
                        ns,
                        cr.name(),
                        adopted,
                        None,
                        &opts,
                    ) {
                        Ok(c) => histories.push(c),
                        Err(e) => return Err(format!("adopting {}: {e}", cr.name())),
                    }
                }
                None => {}
            }
        }
        let data = revision_data(&ds.value);
        let mut current = Vec::new();
        let mut old = Vec::new();
        for mut h in histories {
            // Histories without the unique label get their name as its value.
            if meta::label(&h.value, REVISION_HASH_LABEL).is_none() {
                let mut v = h.value.clone();
                let name = h.name().to_string();
                let labels = object_entry(meta::meta_mut(&mut v), "labels");
                labels.insert(REVISION_HASH_LABEL.into(), json!(name));
                h = api
                    .update(&registry::CONTROLLERREVISIONS, ns, &name, v, None, &opts)
                    .map_err(|e| e.to_string())?;
            }
            if h.value["data"] == data {
                current.push(h);
            } else {
                old.push(h);
            }
        }
        let revision = |h: &Stored| h.value["revision"].as_i64().unwrap_or(0);
        let next_revision = old.iter().map(revision).max().unwrap_or(0) + 1;
        let cur = if current.is_empty() {
            self.snapshot_revision(api, ds, &data, next_revision)?
        } else {
            let cur = self.dedup_histories(api, ds, current, claimed_pods)?;
            if revision(&cur) < next_revision {
                let mut v = cur.value.clone();
                v["revision"] = json!(next_revision);
                api.update(
                    &registry::CONTROLLERREVISIONS,
                    ns,
                    cur.name(),
                    v,
                    None,
                    &opts,
                )
                .map_err(|e| e.to_string())?
            } else {
                cur
            }
        };
        let hash = meta::label(&cur.value, REVISION_HASH_LABEL)
            .unwrap_or("")
            .to_string();
        Ok((hash, old))
    }

    /// `snapshot`: create `<ds>-<hash>`; a name taken by another template bumps collisionCount.
    fn snapshot_revision(
        &self,
        api: &Api,
        ds: &Stored,
        data: &Value,
        revision: i64,
    ) -> Result<Stored, String> {
        let ns = ds.namespace();
        let collision = ds.value["status"]["collisionCount"].as_i64();
        let hash = template_hash(&ds.value["spec"]["template"], collision);
        let name = format!("{}-{}", ds.name(), hash);
        let mut labels: BTreeMap<String, Value> = ds.value["spec"]["template"]["metadata"]
            ["labels"]
            .as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        labels.insert(REVISION_HASH_LABEL.into(), json!(hash));
        let mut metadata = Map::new();
        metadata.insert("name".into(), json!(name));
        metadata.insert("namespace".into(), json!(ns));
        metadata.insert("labels".into(), Value::Object(labels.into_iter().collect()));
        if let Some(a) = ds.value["metadata"]["annotations"]
            .as_object()
            .filter(|a| !a.is_empty())
        {
            metadata.insert("annotations".into(), Value::Object(a.clone()));
        }
        metadata.insert("ownerReferences".into(), json!([controller_ref(&ds.value)]));
        let cr = json!({
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": metadata,
            "data": data,
            "revision": revision,
        });
        match api.create(
            &registry::CONTROLLERREVISIONS,
            ns,
            cr,
            &WriteOptions::default(),
        ) {
            Ok(c) => Ok(c),
            Err(e) if e.code == 409 => {
                let existing = api
                    .get(&registry::CONTROLLERREVISIONS, ns, &name)
                    .map_err(|e| e.to_string())?;
                if existing.value["data"] == *data {
                    return Ok(existing);
                }
                let mut v = ds.value.clone();
                v["status"]["collisionCount"] = json!(collision.unwrap_or(0) + 1);
                api.update(
                    &registry::DAEMONSETS,
                    ns,
                    ds.name(),
                    v,
                    Some("status"),
                    &WriteOptions::default(),
                )
                .map_err(|e| e.to_string())?;
                Err(e.to_string())
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// `dedupCurHistories`: keep the highest revision, relabel pods to it, delete the others.
    fn dedup_histories(
        &self,
        api: &Api,
        ds: &Stored,
        current: Vec<Stored>,
        pods: &[Stored],
    ) -> Result<Stored, String> {
        let Some(keep) = current
            .iter()
            .fold(None::<&Stored>, |best, h| match best {
                Some(b)
                    if h.value["revision"].as_i64().unwrap_or(0)
                        < b.value["revision"].as_i64().unwrap_or(0) =>
                {
                    Some(b)
                }
                _ => Some(h),
            })
            .cloned()
        else {
            return Err("no current revision".into());
        };
        if current.len() == 1 {
            return Ok(keep);
        }
        let ns = ds.namespace();
        let keep_hash = meta::label(&keep.value, REVISION_HASH_LABEL)
            .unwrap_or("")
            .to_string();
        for pod in pods {
            if meta::label(&pod.value, REVISION_HASH_LABEL) != Some(keep_hash.as_str()) {
                let patch = json!({"metadata": {"labels": {REVISION_HASH_LABEL: keep_hash}}});
                let body = serde_json::to_vec(&patch).map_err(|e| e.to_string())?;
                api.patch(
                    &registry::PODS,
                    ns,
                    pod.name(),
                    crate::api::PatchKind::Merge,
                    &body,
                    None,
                    &WriteOptions::default(),
                )
                .map_err(|e| e.to_string())?;
            }
        }
        for h in &current {
            if h.name() != keep.name() {
                api.delete(
                    &registry::CONTROLLERREVISIONS,
                    ns,
                    h.name(),
                    &DeleteOptions::default(),
                )
                .map_err(|e| e.to_string())?;
            }
        }
        Ok(keep)
    }

    /// `cleanupHistory`: drop the oldest revisions beyond revisionHistoryLimit that no pod uses.
    fn cleanup_history(&self, api: &Api, ds: &Stored, mut old: Vec<Stored>, pods: &[Stored]) {
        let keep = ds.value["spec"]["revisionHistoryLimit"]
            .as_i64()
            .unwrap_or(DEFAULT_REVISION_HISTORY_LIMIT);
        let mut to_kill = old.len() as i64 - keep;
        if to_kill <= 0 {
            return;
        }
        let live: HashSet<&str> = pods
            .iter()
            .filter_map(|p| meta::label(&p.value, REVISION_HASH_LABEL))
            .filter(|h| !h.is_empty())
            .collect();
        old.sort_by_key(|h| h.value["revision"].as_i64().unwrap_or(0));
        for h in &old {
            if to_kill <= 0 {
                break;
            }
            if meta::label(&h.value, REVISION_HASH_LABEL).is_some_and(|x| live.contains(x)) {
                continue;
            }
            if let Err(e) = api.delete(
                &registry::CONTROLLERREVISIONS,
                ds.namespace(),
                h.name(),
                &DeleteOptions::default(),
            ) {
                tracing::debug!(error = %e, revision = h.name(), "cleaning up history");
                return;
            }
            to_kill -= 1;
        }
    }

    /// `syncNodes`: deletes and slow-start batched creates, each capped at the burst size.
    /// Returns whether anything was written and the errors met.
    fn sync_nodes(
        &self,
        api: &Api,
        ds: &Stored,
        deletes: &[String],
        creates: &[String],
        blueprint: &PodBlueprint,
    ) -> (bool, Vec<String>) {
        let ns = ds.namespace();
        let mut wrote = false;
        let mut errors = Vec::new();
        let create_count = creates.len().min(BURST_REPLICAS);
        let delete_count = deletes.len().min(BURST_REPLICAS);
        let mut batch = create_count.min(SLOW_START_INITIAL_BATCH_SIZE);
        let mut pos = 0;
        while pos < create_count {
            let errors_before = errors.len();
            for node in &creates[pos..pos + batch] {
                match api.create(
                    &registry::PODS,
                    ns,
                    blueprint.pod_for(node),
                    &WriteOptions::default(),
                ) {
                    Ok(pod) => {
                        wrote = true;
                        events::record(
                            api,
                            &registry::DAEMONSETS,
                            &ds.value,
                            "Normal",
                            "SuccessfulCreate",
                            &format!("Created pod: {}", pod.name()),
                            COMPONENT,
                        );
                    }
                    Err(e) if is_namespace_terminating(&e) => {}
                    Err(e) => {
                        events::record(
                            api,
                            &registry::DAEMONSETS,
                            &ds.value,
                            "Warning",
                            "FailedCreate",
                            &format!("Error creating: {}", e.message),
                            COMPONENT,
                        );
                        errors.push(e.message);
                    }
                }
            }
            pos += batch;
            // Slow start: a failing batch stops the rest until the next sync.
            if errors.len() > errors_before {
                break;
            }
            batch = (2 * batch).min(create_count - pos);
        }
        for name in &deletes[..delete_count] {
            match api.delete(&registry::PODS, ns, name, &DeleteOptions::default()) {
                Ok(_) => {
                    wrote = true;
                    events::record(
                        api,
                        &registry::DAEMONSETS,
                        &ds.value,
                        "Normal",
                        "SuccessfulDelete",
                        &format!("Deleted pod: {name}"),
                        COMPONENT,
                    );
                }
                Err(e) if e.code == 404 => {}
                Err(e) => {
                    events::record(
                        api,
                        &registry::DAEMONSETS,
                        &ds.value,
                        "Warning",
                        "FailedDelete",
                        &format!("Error deleting: {}", e.message),
                        COMPONENT,
                    );
                    errors.push(e.message);
                }
            }
        }
        (wrote, errors)
    }

    /// Sync one DaemonSet (`syncDaemonSet`).
    fn sync(&mut self, api: &Api, ds: &Stored, typed: &DaemonSet, snap: &Snapshot) -> Outcome {
        let mut out = Outcome::default();
        // A DaemonSet being deleted is left alone: its history may already be gone.
        if meta::is_deleting(&ds.value) {
            return out;
        }
        let uid = meta::uid(&ds.value).to_string();
        let selector_json = &ds.value["spec"]["selector"];
        if selector_json
            .as_object()
            .is_some_and(|m| m.values().all(Value::is_null))
        {
            if self.selecting_all.get(&uid) != Some(&ds.resource_version()) {
                self.selecting_all.insert(uid, ds.resource_version());
                events::record(
                    api,
                    &registry::DAEMONSETS,
                    &ds.value,
                    "Warning",
                    "SelectingAll",
                    "This daemon set is selecting all pods. A non-empty selector is required.",
                    COMPONENT,
                );
            }
            return out;
        }
        let Some(template) = typed.spec.as_ref().map(|s| &s.template) else {
            return out;
        };
        let selector = match LabelSelector::from_api(selector_json) {
            Ok(s) => s,
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        };
        let claimed = self.claim_pods(api, ds, &selector, snap);
        let (hash, old_revisions) = match self.construct_history(api, ds, &selector, &claimed, snap)
        {
            Ok(x) => x,
            Err(e) => {
                out.error = Some(format!("failed to construct revisions of DaemonSet: {e}"));
                return out;
            }
        };
        let generation = template_generation(&ds.value).map(|g| g.to_string());
        let generation = generation.as_deref();
        let min_ready = ds.value["spec"]["minReadySeconds"].as_i64().unwrap_or(0);

        // nodeToDaemonPods, without pods that are both terminal and being deleted: by position
        // in the node list, and for nodes that are gone.
        let mut per_node: Vec<Vec<Stored>> = vec![Vec::new(); snap.nodes.len()];
        let mut elsewhere: BTreeMap<&str, Vec<Stored>> = BTreeMap::new();
        for pod in &claimed {
            if is_terminal(&pod.value) && meta::is_deleting(&pod.value) {
                continue;
            }
            let Some(node) = target_node_name(&pod.value) else {
                continue;
            };
            match snap.node_index.get(node) {
                Some(&i) => per_node[i].push(pod.clone()),
                None => elsewhere.entry(node).or_default().push(pod.clone()),
            }
        }
        for pods in per_node.iter_mut().filter(|p| p.len() > 1) {
            sort_oldest_first(pods);
        }

        let strategy = &ds.value["spec"]["updateStrategy"];
        let rolling = strategy["type"]
            .as_str()
            .is_none_or(|t| t == "RollingUpdate");
        let surge_allowed = rolling && surge_count(strategy, 1).is_ok_and(|n| n != 0);

        // manage(): what each node needs.
        let placements = self.placements(&ds.value, template, snap.nodes);
        let mut creates: Vec<String> = Vec::new();
        let mut deletes: Vec<String> = Vec::new();
        for ((node, (should_run, should_continue)), pods) in placements.iter().zip(&per_node) {
            let name = node.name();
            let pods = Some(pods).filter(|p| !p.is_empty());
            match pods {
                None if *should_run => creates.push(name.to_string()),
                Some(pods) if *should_continue => {
                    let mut running: Vec<&Stored> = Vec::new();
                    for pod in pods {
                        if meta::is_deleting(&pod.value) {
                            continue;
                        }
                        match phase(&pod.value) {
                            "Failed" => {
                                let key = format!(
                                    "{}/{}/{}",
                                    uid,
                                    ds.value["status"]["observedGeneration"]
                                        .as_i64()
                                        .unwrap_or(0),
                                    name
                                );
                                if let Some(wait) = self.failed_pods.remaining(&key, snap.instant) {
                                    out.requeue = earliest(out.requeue, Some(wait));
                                    continue;
                                }
                                self.failed_pods.next(&key, snap.instant);
                                events::record(
                                    api,
                                    &registry::DAEMONSETS,
                                    &ds.value,
                                    "Warning",
                                    "FailedDaemonPod",
                                    &format!(
                                        "Found failed daemon pod {}/{} on node {}, will try to kill it",
                                        pod.namespace(),
                                        pod.name(),
                                        name
                                    ),
                                    COMPONENT,
                                );
                                deletes.push(pod.name().to_string());
                            }
                            "Succeeded" => {
                                events::record(
                                    api,
                                    &registry::DAEMONSETS,
                                    &ds.value,
                                    "Normal",
                                    "SucceededDaemonPod",
                                    &format!(
                                        "Found succeeded daemon pod {}/{} on node {}, will try to delete it",
                                        pod.namespace(),
                                        pod.name(),
                                        name
                                    ),
                                    COMPONENT,
                                );
                                deletes.push(pod.name().to_string());
                            }
                            _ => running.push(pod),
                        }
                    }
                    if !surge_allowed {
                        // Keep the oldest (pods are sorted oldest first).
                        deletes.extend(running.iter().skip(1).map(|p| p.name().to_string()));
                        continue;
                    }
                    if running.len() <= 1 {
                        if running.is_empty() && *should_run {
                            creates.push(name.to_string());
                        }
                        continue;
                    }
                    // Surging: keep the oldest new and the oldest old pod while the new one is
                    // not yet available.
                    let mut oldest_new: Option<&Stored> = None;
                    let mut oldest_old: Option<&Stored> = None;
                    for pod in running {
                        let slot = if meta::label(&pod.value, REVISION_HASH_LABEL)
                            == Some(hash.as_str())
                        {
                            &mut oldest_new
                        } else {
                            &mut oldest_old
                        };
                        if slot.is_none() {
                            *slot = Some(pod);
                        } else {
                            deletes.push(pod.name().to_string());
                        }
                    }
                    if let (Some(new), Some(old)) = (oldest_new, oldest_old) {
                        if !is_pod_ready(&old.value)
                            || is_available(&new.value, min_ready, snap.now)
                        {
                            deletes.push(old.name().to_string());
                        }
                    }
                }
                Some(pods) if !*should_continue => {
                    deletes.extend(
                        pods.iter()
                            .filter(|p| !meta::is_deleting(&p.value))
                            .map(|p| p.name().to_string()),
                    );
                }
                _ => {}
            }
        }
        // Unscheduled pods aimed at nodes that no longer exist (pod GC cannot see them).
        for pods in elsewhere.values() {
            deletes.extend(
                pods.iter()
                    .filter(|p| node_name_of(&p.value).is_empty())
                    .map(|p| p.name().to_string()),
            );
        }
        let blueprint = PodBlueprint::new(&ds.value, &hash);
        let (wrote, mut errors) = self.sync_nodes(api, ds, &deletes, &creates, &blueprint);

        // Rolling updates run once the creates and deletes above have been observed.
        let outdated = claimed
            .iter()
            .any(|p| !meta::is_deleting(&p.value) && !is_pod_updated(&p.value, &hash, generation));
        if !wrote && errors.is_empty() && rolling && outdated {
            // updatedDesiredNodeCounts: the nodes with pods, and those that want one.
            let entries: Vec<(&str, bool, &[Stored])> = placements
                .iter()
                .zip(&per_node)
                .filter(|((_, (run, _)), pods)| *run || !pods.is_empty())
                .map(|((node, (run, _)), pods)| (node.name(), *run, pods.as_slice()))
                .chain(
                    elsewhere
                        .iter()
                        .map(|(node, pods)| (*node, false, pods.as_slice())),
                )
                .collect();
            let (deletes, creates) =
                rolling_update(ds, &entries, &hash, generation, min_ready, snap.now);
            let (_, e) = self.sync_nodes(api, ds, &deletes, &creates, &blueprint);
            errors.extend(e);
        }
        self.cleanup_history(api, ds, old_revisions, &claimed);

        // Status, from the pods this pass started with.
        let mut counts = Counts::default();
        let mut next_available: Option<DateTime<Utc>> = None;
        for ((_, (should_run, _)), pods) in placements.iter().zip(&per_node) {
            let pods = Some(pods).filter(|p| !p.is_empty());
            if *should_run {
                counts.desired += 1;
                let Some(pods) = pods else { continue };
                counts.current += 1;
                let pod = &pods[0];
                if is_pod_ready(&pod.value) {
                    counts.ready += 1;
                    match availability(&pod.value, min_ready, snap.now) {
                        Ok(true) => counts.available += 1,
                        Ok(false) => {}
                        Err(at) => next_available = Some(next_available.map_or(at, |n| n.min(at))),
                    }
                }
                if is_pod_updated(&pod.value, &hash, generation) {
                    counts.updated += 1;
                }
            } else if pods.is_some() {
                counts.misscheduled += 1;
            }
        }
        counts.unavailable = counts.desired - counts.available;
        if let Err(e) = store_status(api, ds, &counts) {
            errors.push(e.to_string());
        }
        if let Some(at) = next_available {
            out.requeue = earliest(out.requeue, Some(until(at, snap.now)));
        }
        if !errors.is_empty() {
            out.error = Some(errors.join("; "));
        }
        out
    }
}

fn is_namespace_terminating(e: &ApiError) -> bool {
    e.details
        .as_ref()
        .and_then(|d| d["causes"].as_array())
        .is_some_and(|cs| cs.iter().any(|c| c["reason"] == "NamespaceTerminating"))
}

/// `util.SurgeCount` over `spec.updateStrategy` (a missing maxSurge is 0).
fn surge_count(strategy: &Value, desired: i64) -> Result<i64, String> {
    match &strategy["rollingUpdate"]["maxSurge"] {
        Value::Null => Ok(0),
        v => scaled_value(v, desired, true),
    }
}

/// `util.UnavailableCount` (a missing maxUnavailable is the API default, 1).
fn unavailable_count(strategy: &Value, desired: i64) -> Result<i64, String> {
    match &strategy["rollingUpdate"]["maxUnavailable"] {
        Value::Null => Ok(1),
        v => scaled_value(v, desired, true),
    }
}

/// `findUpdatedPodsOnNode`: at most one new and one old non-deleted pod, or `None` when there
/// are more (manage prunes those first).
fn updated_pods_on_node<'a>(
    pods: &'a [Stored],
    hash: &str,
    generation: Option<&str>,
) -> Option<(Option<&'a Stored>, Option<&'a Stored>)> {
    let mut new = None;
    let mut old = None;
    for pod in pods.iter().filter(|p| !meta::is_deleting(&p.value)) {
        let slot = if is_pod_updated(&pod.value, hash, generation) {
            &mut new
        } else {
            &mut old
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(pod);
    }
    Some((new, old))
}

/// `rollingUpdate`: old pods to delete (and, when surging, nodes to create on) within
/// maxUnavailable / maxSurge.
fn rolling_update(
    ds: &Stored,
    entries: &[(&str, bool, &[Stored])],
    hash: &str,
    generation: Option<&str>,
    min_ready: i64,
    now: DateTime<Utc>,
) -> (Vec<String>, Vec<String>) {
    let strategy = &ds.value["spec"]["updateStrategy"];
    let desired = entries.iter().filter(|(_, run, _)| *run).count() as i64;
    let (Ok(mut max_unavailable), Ok(max_surge)) = (
        unavailable_count(strategy, desired),
        surge_count(strategy, desired),
    ) else {
        return (Vec::new(), Vec::new());
    };
    if desired > 0 && max_unavailable == 0 && max_surge == 0 {
        max_unavailable = 1;
    }
    let available = |p: &Stored| is_available(&p.value, min_ready, now);

    if max_surge == 0 {
        let mut num_unavailable = 0;
        let mut replacements = Vec::new();
        let mut candidates = Vec::new();
        for (_, _, pods) in entries {
            let Some((new, old)) = updated_pods_on_node(pods, hash, generation) else {
                num_unavailable += 1;
                continue;
            };
            match (new, old) {
                (None, None) | (Some(_), Some(_)) => num_unavailable += 1,
                (Some(new), None) => {
                    if !available(new) {
                        num_unavailable += 1;
                    }
                }
                (None, Some(old)) => {
                    if !available(old) {
                        replacements.push(old.name().to_string());
                        num_unavailable += 1;
                    } else if num_unavailable < max_unavailable {
                        candidates.push(old.name().to_string());
                    }
                }
            }
        }
        let remaining =
            (max_unavailable - num_unavailable).clamp(0, candidates.len() as i64) as usize;
        replacements.extend(candidates.into_iter().take(remaining));
        return (replacements, Vec::new());
    }

    let mut old_to_delete = Vec::new();
    let mut should_not_run = Vec::new();
    let mut candidate_nodes = Vec::new();
    let mut allowed_nodes = Vec::new();
    let mut num_surge = 0;
    let mut num_available = 0;
    for (node, runs, pods) in entries {
        let Some((new, old)) = updated_pods_on_node(pods, hash, generation) else {
            num_surge += 1;
            continue;
        };
        if let Some(p) = old.or(new) {
            if available(p) {
                num_available += 1;
            }
        }
        match (new, old) {
            (_, None) => {}
            (None, Some(old)) => {
                if !available(old) {
                    if !*runs {
                        old_to_delete.push(old.name().to_string());
                        continue;
                    }
                    allowed_nodes.push(node.to_string());
                } else {
                    if !*runs {
                        should_not_run.push(old.name().to_string());
                        continue;
                    }
                    if num_surge >= max_surge {
                        continue;
                    }
                    candidate_nodes.push(node.to_string());
                }
            }
            (Some(new), Some(old)) => {
                if !available(new) {
                    num_surge += 1;
                    continue;
                }
                old_to_delete.push(old.name().to_string());
            }
        }
    }
    let deletable = (num_available - desired).min(should_not_run.len() as i64);
    if deletable > 0 {
        old_to_delete.extend(should_not_run.into_iter().take(deletable as usize));
    }
    let remaining = (max_surge - num_surge).clamp(0, candidate_nodes.len() as i64) as usize;
    allowed_nodes.extend(candidate_nodes.into_iter().take(remaining));
    (old_to_delete, allowed_nodes)
}

/// `storeDaemonSetStatus`: a status update only when a counter or observedGeneration moved.
fn store_status(api: &Api, ds: &Stored, c: &Counts) -> Result<(), ApiError> {
    let status = &ds.value["status"];
    let get = |k: &str| status[k].as_i64().unwrap_or(0);
    let generation = ds.value["metadata"]["generation"].as_i64().unwrap_or(0);
    let stored = Counts {
        desired: get("desiredNumberScheduled"),
        current: get("currentNumberScheduled"),
        misscheduled: get("numberMisscheduled"),
        ready: get("numberReady"),
        updated: get("updatedNumberScheduled"),
        available: get("numberAvailable"),
        unavailable: get("numberUnavailable"),
    };
    if stored == *c && get("observedGeneration") >= generation {
        return Ok(());
    }
    // DaemonSetStatus field order; the omitempty fields are left out at zero.
    let mut s = Map::new();
    s.insert("currentNumberScheduled".into(), json!(c.current));
    s.insert("numberMisscheduled".into(), json!(c.misscheduled));
    s.insert("desiredNumberScheduled".into(), json!(c.desired));
    s.insert("numberReady".into(), json!(c.ready));
    for (key, value) in [
        ("observedGeneration", generation),
        ("updatedNumberScheduled", c.updated),
        ("numberAvailable", c.available),
        ("numberUnavailable", c.unavailable),
    ] {
        if value != 0 {
            s.insert(key.into(), json!(value));
        }
    }
    for key in ["collisionCount", "conditions"] {
        if let Some(v) = status.get(key).filter(|v| !v.is_null()) {
            s.insert(key.into(), v.clone());
        }
    }
    let mut updated = ds.value.clone();
    updated["status"] = Value::Object(s);
    let opts = WriteOptions::default();
    match api.update(
        &registry::DAEMONSETS,
        ds.namespace(),
        ds.name(),
        updated.clone(),
        Some("status"),
        &opts,
    ) {
        Ok(_) => Ok(()),
        // One retry against the latest version (StatusUpdateRetries).
        Err(e) if e.code == 409 => {
            let fresh = api.get(&registry::DAEMONSETS, ds.namespace(), ds.name())?;
            let mut retry = fresh.value.clone();
            retry["status"] = updated["status"].clone();
            for key in ["collisionCount", "conditions"] {
                if let Some(v) = fresh.value["status"].get(key).filter(|v| !v.is_null()) {
                    retry["status"][key] = v.clone();
                }
            }
            api.update(
                &registry::DAEMONSETS,
                ds.namespace(),
                ds.name(),
                retry,
                Some("status"),
                &opts,
            )
            .map(|_| ())
        }
        Err(e) => Err(e),
    }
}

impl Controller for DaemonSetController {
    fn name(&self) -> &'static str {
        "daemonset-controller"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::DAEMONSETS)
            || std::ptr::eq(ev.res, &registry::PODS)
            || std::ptr::eq(ev.res, &registry::NODES)
            || std::ptr::eq(ev.res, &registry::CONTROLLERREVISIONS)
    }

    fn reconcile(&mut self, api: &Api) -> Option<Duration> {
        let store = api.store();
        let (ds_objs, _) = store.list(&registry::DAEMONSETS, None);
        if ds_objs.is_empty() {
            self.placement.clear();
            self.synced.clear();
            return None;
        }
        let (nodes, _) = store.list(&registry::NODES, None);
        self.nodes.retain(&nodes);
        let (pods, _) = store.list(&registry::PODS, None);
        let (revisions, _) = store.list(&registry::CONTROLLERREVISIONS, None);
        let snap = Snapshot::build(&nodes, &pods, &revisions);
        let mut next: Option<Duration> = None;
        for ds in &ds_objs {
            let uid = meta::uid(&ds.value);
            let inputs = snap.inputs_of(ds);
            let mut failures = 0;
            if let Some(last) = self.synced.get(uid) {
                let due = last.due.is_some_and(|d| snap.instant >= d);
                if last.inputs == inputs && !due {
                    next = earliest(next, last.due.map(|d| d - snap.instant));
                    continue;
                }
                failures = last.failures;
            }
            let Some(typed) = self.daemonsets.get(ds) else {
                continue;
            };
            let out = self.sync(api, ds, &typed, &snap);
            let mut requeue = out.requeue;
            match &out.error {
                Some(e) => {
                    tracing::debug!(error = %e, daemonset = ds.name(), "syncing daemon set");
                    let delay = ERROR_BACKOFF_BASE
                        .saturating_mul(1u32 << failures.min(20))
                        .min(ERROR_BACKOFF_MAX);
                    requeue = earliest(requeue, Some(delay));
                    failures += 1;
                }
                None => failures = 0,
            }
            next = earliest(next, requeue);
            let due = requeue.map(|d| snap.instant + d);
            self.synced.insert(
                uid.to_string(),
                Synced {
                    inputs,
                    due,
                    failures,
                },
            );
        }
        let live: HashSet<&str> = ds_objs.iter().map(|d| meta::uid(&d.value)).collect();
        self.daemonsets.retain(&ds_objs);
        self.placement.retain(|uid, _| live.contains(uid.as_str()));
        self.synced.retain(|uid, _| live.contains(uid.as_str()));
        self.selecting_all
            .retain(|uid, _| live.contains(uid.as_str()));
        self.failed_pods.gc(snap.instant);
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::PatchKind;
    use crate::cluster::{fake_node, Cluster, ClusterConfig};
    use crate::store::Store;

    const NS: &str = "gpu-operator";
    const TOOLKIT: &str = "nvidia.com/gpu.deploy.container-toolkit";

    fn daemonset(name: &str, label_key: &str, image: &str) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": name, "namespace": NS},
            "spec": {
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}, "annotations": {"team": "gpu"}},
                    "spec": {
                        "nodeSelector": {label_key: "true"},
                        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                        "containers": [{"name": "main", "image": image}]
                    }
                }
            }
        })
    }

    async fn start(nodes: usize) -> Cluster {
        let cluster = Cluster::start(ClusterConfig::default().with_fake_nodes("n", nodes))
            .await
            .expect("cluster starts");
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}});
        cluster
            .api()
            .create(&registry::NAMESPACES, "", ns, &WriteOptions::default())
            .expect("namespace");
        cluster
    }

    fn patch(
        api: &Api,
        res: &'static crate::registry::ResourceDef,
        ns: &str,
        name: &str,
        body: Value,
    ) {
        let bytes = serde_json::to_vec(&body).expect("encodes");
        api.patch(
            res,
            ns,
            name,
            PatchKind::Merge,
            &bytes,
            None,
            &WriteOptions::default(),
        )
        .expect("patch applies");
    }

    fn label(api: &Api, node: &str, key: &str, value: &str) {
        patch(
            api,
            &registry::NODES,
            "",
            node,
            json!({"metadata": {"labels": {key: value}}}),
        );
    }

    /// The DaemonSet's live pods as (node, pod) sorted by node.
    fn placed(api: &Api, app: &str) -> Vec<(String, Stored)> {
        let mut out: Vec<(String, Stored)> = api
            .store()
            .list(&registry::PODS, Some(NS))
            .0
            .into_iter()
            .filter(|p| meta::label(&p.value, "app") == Some(app) && !meta::is_deleting(&p.value))
            .map(|p| (node_name_of(&p.value).to_string(), p))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    fn nodes_of(api: &Api, app: &str) -> Vec<String> {
        placed(api, app).into_iter().map(|(n, _)| n).collect()
    }

    fn status(api: &Api, name: &str) -> Value {
        api.get(&registry::DAEMONSETS, NS, name)
            .expect("daemonset")
            .value["status"]
            .clone()
    }

    fn event_messages(api: &Api, reason: &str) -> Vec<String> {
        api.store()
            .list(&registry::EVENTS, Some(NS))
            .0
            .iter()
            .filter(|e| e.value["reason"] == reason)
            .map(|e| e.value["message"].as_str().unwrap_or("").to_string())
            .collect()
    }

    #[test]
    fn json_affinity_helpers_agree_with_the_typed_ones() {
        use k8s_openapi::api::core::v1::Pod;
        let mut spec = json!({
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}]}]},
                    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchExpressions": [{"key": "b", "operator": "Exists"}]}}]
                },
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "x"}}}]}
            },
            "containers": [{"name": "c", "image": "i"}]
        });
        let mut typed: PodSpec = serde_json::from_value(spec.clone()).expect("decodes");
        crate::scheduler::daemon_pod_node_affinity(&mut typed, "lab-node-1");
        replace_node_name_affinity(&mut spec, "lab-node-1");
        let ours: PodSpec = serde_json::from_value(spec.clone()).expect("decodes");
        assert_eq!(ours.affinity, typed.affinity);
        let pod: Pod = serde_json::from_value(json!({"spec": spec})).expect("decodes");
        assert_eq!(
            crate::scheduler::target_node_name(&pod).as_deref(),
            Some("lab-node-1")
        );
        assert_eq!(target_node_name(&json!({"spec": spec})), Some("lab-node-1"));
        // spec.nodeName wins; two values name no node.
        assert_eq!(
            target_node_name(&json!({"spec": {"nodeName": "n2"}})),
            Some("n2")
        );
        let two = json!({"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]}}}}});
        assert_eq!(target_node_name(&two), None);
    }

    #[test]
    fn revision_data_is_the_replace_patch_with_sorted_keys() {
        let ds = daemonset("gpu-agent", TOOLKIT, "img:1");
        let data = revision_data(&ds);
        let text = serde_json::to_string(&data).expect("encodes");
        assert!(
            text.starts_with(r#"{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"team":"gpu"},"labels":{"app":"gpu-agent"}},"spec":{"containers":"#),
            "{text}"
        );
    }

    #[test]
    fn the_pod_blueprint_is_the_template_plus_daemon_fields() {
        let mut ds = daemonset("gpu-agent", TOOLKIT, "img:1");
        ds["metadata"]["uid"] = json!("u-1");
        ds["metadata"]["annotations"] = json!({TEMPLATE_GENERATION_ANNOTATION: "3"});
        let pod = PodBlueprint::new(&ds, "5d4b8c7f9").pod_for("n1");
        assert_eq!(pod["metadata"]["generateName"], "gpu-agent-");
        assert!(pod["metadata"].get("name").is_none());
        assert_eq!(
            pod["metadata"]["labels"],
            json!({"app": "gpu-agent", "controller-revision-hash": "5d4b8c7f9", "pod-template-generation": "3"})
        );
        assert_eq!(pod["metadata"]["annotations"], json!({"team": "gpu"}));
        assert_eq!(
            pod["metadata"]["ownerReferences"],
            json!([{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "gpu-agent", "uid": "u-1", "controller": true, "blockOwnerDeletion": true}])
        );
        assert!(pod["spec"].get("nodeName").is_none());
        assert_eq!(
            pod["spec"]["affinity"],
            json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}})
        );
        let keys: Vec<(&str, &str)> = pod["spec"]["tolerations"]
            .as_array()
            .expect("tolerations")
            .iter()
            .map(|t| {
                (
                    t["key"].as_str().unwrap_or(""),
                    t["effect"].as_str().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                ("nvidia.com/gpu", "NoSchedule"),
                ("node.kubernetes.io/not-ready", "NoExecute"),
                ("node.kubernetes.io/unreachable", "NoExecute"),
                ("node.kubernetes.io/disk-pressure", "NoSchedule"),
                ("node.kubernetes.io/memory-pressure", "NoSchedule"),
                ("node.kubernetes.io/pid-pressure", "NoSchedule"),
                ("node.kubernetes.io/unschedulable", "NoSchedule"),
            ]
        );
        assert_eq!(
            pod["spec"]["tolerations"][1],
            json!({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"})
        );
    }

    fn synthetic_pod(name: &str, node: &str, hash: &str, ready: bool) -> Stored {
        crate::store::Object::new(json!({
            "metadata": {"name": name, "namespace": NS, "creationTimestamp": "2024-01-01T00:00:00Z",
                         "labels": {REVISION_HASH_LABEL: hash}},
            "spec": {"nodeName": node},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": if ready {"True"} else {"False"},
                        "lastTransitionTime": "2024-01-01T00:00:00Z"}]}
        }))
    }

    /// Four nodes that all want the pod; `pods` holds (node, hash, ready) per existing pod.
    fn plan(max_unavailable: Value, pods: &[(&str, &str, bool)]) -> Vec<String> {
        let ds =
            crate::store::Object::new(json!({"spec": {"updateStrategy": {"type": "RollingUpdate",
            "rollingUpdate": {"maxUnavailable": max_unavailable}}}}));
        let names: Vec<String> = (0..4).map(|i| format!("n{i}")).collect();
        let mut per_node: Vec<Vec<Stored>> = vec![Vec::new(); names.len()];
        for (i, (node, hash, ready)) in pods.iter().enumerate() {
            let at = names.iter().position(|n| n == node).expect("known node");
            per_node[at].push(synthetic_pod(&format!("p{i}"), node, hash, *ready));
        }
        let entries: Vec<(&str, bool, &[Stored])> = names
            .iter()
            .zip(&per_node)
            .map(|(n, p)| (n.as_str(), true, p.as_slice()))
            .collect();
        let (deletes, creates) = rolling_update(&ds, &entries, "new", None, 0, Utc::now());
        assert!(creates.is_empty());
        deletes
    }

    #[test]
    fn rolling_updates_respect_max_unavailable() {
        let all_old = [
            ("n0", "old", true),
            ("n1", "old", true),
            ("n2", "old", true),
            ("n3", "old", true),
        ];
        assert_eq!(plan(json!(1), &all_old), ["p0"]);
        assert_eq!(plan(json!("50%"), &all_old), ["p0", "p1"]);
        // 25% of 4 rounds up to 1; 10% of 4 rounds up to 1 as well.
        assert_eq!(plan(json!("10%"), &all_old).len(), 1);
        // A new pod still coming up uses the budget.
        let one_updating = [
            ("n0", "new", false),
            ("n1", "old", true),
            ("n2", "old", true),
            ("n3", "old", true),
        ];
        assert!(plan(json!(1), &one_updating).is_empty());
        assert_eq!(plan(json!(2), &one_updating), ["p1"]);
        // An unavailable old pod is replaced regardless of the budget; a node without a pod counts
        // as unavailable.
        let broken = [
            ("n0", "old", false),
            ("n1", "old", true),
            ("n2", "old", true),
        ];
        assert_eq!(plan(json!(1), &broken), ["p0"]);
    }

    #[tokio::test]
    async fn pods_follow_the_node_selector_and_status_counts_them() {
        let cluster = start(3).await;
        let api = cluster.api();
        label(api, "n0", TOOLKIT, "true");
        label(api, "n1", TOOLKIT, "true");
        label(api, "n2", TOOLKIT, "false");
        api.create(
            &registry::DAEMONSETS,
            NS,
            daemonset("toolkit", TOOLKIT, "img:1"),
            &WriteOptions::default(),
        )
        .expect("daemonset");
        cluster.settle().await;

        assert_eq!(nodes_of(api, "toolkit"), ["n0", "n1"]);
        assert_eq!(
            status(api, "toolkit"),
            json!({"currentNumberScheduled": 2, "numberMisscheduled": 0, "desiredNumberScheduled": 2, "numberReady": 2,
                   "observedGeneration": 1, "updatedNumberScheduled": 2, "numberAvailable": 2})
        );
        // One ControllerRevision named after the hash the pods carry.
        let revisions = api.store().list(&registry::CONTROLLERREVISIONS, Some(NS)).0;
        assert_eq!(revisions.len(), 1);
        let cr = &revisions[0].value;
        let hash = cr["metadata"]["labels"][REVISION_HASH_LABEL]
            .as_str()
            .expect("hash label")
            .to_string();
        assert_eq!(cr["metadata"]["name"], format!("toolkit-{hash}"));
        assert_eq!(cr["metadata"]["labels"]["app"], "toolkit");
        assert_eq!(cr["revision"], 1);
        assert_eq!(cr["data"]["spec"]["template"]["$patch"], "replace");
        assert_eq!(cr["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
        for (node, pod) in placed(api, "toolkit") {
            assert!(pod.name().starts_with("toolkit-"));
            assert_eq!(pod.name().len(), "toolkit-".len() + 5);
            assert_eq!(
                meta::label(&pod.value, REVISION_HASH_LABEL),
                Some(hash.as_str())
            );
            assert_eq!(
                meta::label(&pod.value, TEMPLATE_GENERATION_LABEL),
                Some("1")
            );
            assert_eq!(pod.value["status"]["phase"], "Running");
            assert_eq!(target_node_name(&pod.value), Some(node.as_str()));
        }
        let mut created = event_messages(api, "SuccessfulCreate");
        created.sort();
        let mut expected: Vec<String> = placed(api, "toolkit")
            .iter()
            .map(|(_, p)| format!("Created pod: {}", p.name()))
            .collect();
        expected.sort();
        assert_eq!(created, expected);
        let ev = api
            .store()
            .list(&registry::EVENTS, Some(NS))
            .0
            .into_iter()
            .find(|e| e.value["reason"] == "SuccessfulCreate")
            .expect("event");
        assert_eq!(ev.value["source"]["component"], COMPONENT);
        assert_eq!(ev.value["involvedObject"]["kind"], "DaemonSet");
        assert_eq!(ev.value["type"], "Normal");

        // Opting a node out removes its pod and fixes the counts (gpuops step 5).
        let before: Vec<String> = placed(api, "toolkit")
            .iter()
            .map(|(_, p)| p.name().to_string())
            .collect();
        label(api, "n1", TOOLKIT, "false");
        cluster.settle().await;
        assert_eq!(nodes_of(api, "toolkit"), ["n0"]);
        assert_eq!(
            status(api, "toolkit"),
            json!({"currentNumberScheduled": 1, "numberMisscheduled": 0, "desiredNumberScheduled": 1, "numberReady": 1,
                   "observedGeneration": 1, "updatedNumberScheduled": 1, "numberAvailable": 1})
        );
        assert_eq!(
            event_messages(api, "SuccessfulDelete"),
            [format!("Deleted pod: {}", before[1])]
        );
        cluster.shutdown().await;
    }

    #[tokio::test]
    async fn cordon_keeps_pods_and_untolerated_taints_keep_them_away() {
        let cluster = start(3).await;
        let api = cluster.api();
        for n in ["n0", "n1", "n2"] {
            label(api, n, TOOLKIT, "true");
        }
        patch(
            api,
            &registry::NODES,
            "",
            "n1",
            json!({"spec": {"unschedulable": true}}),
        );
        patch(
            api,
            &registry::NODES,
            "",
            "n2",
            json!({"spec": {"taints": [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]}}),
        );
        cluster.settle().await;
        api.create(
            &registry::DAEMONSETS,
            NS,
            daemonset("toolkit", TOOLKIT, "img:1"),
            &WriteOptions::default(),
        )
        .expect("daemonset");
        cluster.settle().await;
        // The cordoned node gets (and keeps) its pod: the unschedulable taint is tolerated.
        assert_eq!(nodes_of(api, "toolkit"), ["n0", "n1"]);
        assert_eq!(status(api, "toolkit")["desiredNumberScheduled"], 2);

        // A NoSchedule taint added later does not evict: the pod continues running, counted as
        // misscheduled since the node no longer wants a new one.
        patch(
            api,
            &registry::NODES,
            "",
            "n0",
            json!({"spec": {"taints": [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]}}),
        );
        cluster.settle().await;
        assert_eq!(nodes_of(api, "toolkit"), ["n0", "n1"]);
        let s = status(api, "toolkit");
        assert_eq!(
            (
                s["desiredNumberScheduled"].as_i64(),
                s["numberMisscheduled"].as_i64()
            ),
            (Some(1), Some(1))
        );
        // NoExecute does evict.
        patch(
            api,
            &registry::NODES,
            "",
            "n0",
            json!({"spec": {"taints": [{"key": "dedicated", "value": "infra", "effect": "NoExecute"}]}}),
        );
        cluster.settle().await;
        assert_eq!(nodes_of(api, "toolkit"), ["n1"]);
        assert_eq!(status(api, "toolkit")["numberMisscheduled"], 0);
        cluster.shutdown().await;
    }

    #[tokio::test]
    async fn a_node_without_a_fake_kubelet_gets_a_pod_that_stays_pending() {
        let cluster = start(1).await;
        let api = cluster.api();
        label(api, "n0", TOOLKIT, "true");
        let mut labels = BTreeMap::new();
        labels.insert(TOOLKIT.to_string(), "true".to_string());
        let mut node = fake_node("orphan-node", &labels, &BTreeMap::new());
        meta::meta_mut(&mut node).remove("annotations");
        api.create(&registry::NODES, "", node, &WriteOptions::default())
            .expect("node");
        api.create(
            &registry::DAEMONSETS,
            NS,
            daemonset("toolkit", TOOLKIT, "img:1"),
            &WriteOptions::default(),
        )
        .expect("daemonset");
        cluster.settle().await;
        let pods = placed(api, "toolkit");
        assert_eq!(
            pods.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
            ["n0", "orphan-node"]
        );
        assert_eq!(pods[1].1.value["status"]["phase"], "Pending");
        assert_eq!(
            status(api, "toolkit"),
            json!({"currentNumberScheduled": 2, "numberMisscheduled": 0, "desiredNumberScheduled": 2, "numberReady": 1,
                   "observedGeneration": 1, "updatedNumberScheduled": 2, "numberAvailable": 1, "numberUnavailable": 1})
        );
        cluster.shutdown().await;
    }

    #[tokio::test]
    async fn a_template_change_rolls_every_pod_to_the_new_revision() {
        let cluster = start(3).await;
        let api = cluster.api();
        for n in ["n0", "n1", "n2"] {
            label(api, n, TOOLKIT, "true");
        }
        api.create(
            &registry::DAEMONSETS,
            NS,
            daemonset("toolkit", TOOLKIT, "img:1"),
            &WriteOptions::default(),
        )
        .expect("daemonset");
        cluster.settle().await;
        let old: HashSet<String> = placed(api, "toolkit")
            .iter()
            .map(|(_, p)| p.name().to_string())
            .collect();
        assert_eq!(old.len(), 3);

        patch(
            api,
            &registry::DAEMONSETS,
            NS,
            "toolkit",
            json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "img:2"}]}}}}),
        );
        for _ in 0..50 {
            cluster.settle().await;
            let s = status(api, "toolkit");
            if s["updatedNumberScheduled"] == 3
                && s["numberAvailable"] == 3
                && placed(api, "toolkit").len() == 3
            {
                break;
            }
        }
        let now = placed(api, "toolkit");
        assert_eq!(now.len(), 3);
        assert!(now.iter().all(|(_, p)| !old.contains(p.name())));
        assert!(now
            .iter()
            .all(|(_, p)| p.value["spec"]["containers"][0]["image"] == "img:2"));
        assert!(now
            .iter()
            .all(|(_, p)| meta::label(&p.value, TEMPLATE_GENERATION_LABEL) == Some("2")));
        let mut revisions: Vec<(i64, String)> = api
            .store()
            .list(&registry::CONTROLLERREVISIONS, Some(NS))
            .0
            .iter()
            .map(|c| {
                (
                    c.value["revision"].as_i64().unwrap_or(0),
                    meta::label(&c.value, REVISION_HASH_LABEL)
                        .unwrap_or("")
                        .to_string(),
                )
            })
            .collect();
        revisions.sort();
        assert_eq!(revisions.len(), 2);
        assert_eq!(revisions[0].0, 1);
        assert_eq!(revisions[1].0, 2);
        assert!(now
            .iter()
            .all(|(_, p)| meta::label(&p.value, REVISION_HASH_LABEL)
                == Some(revisions[1].1.as_str())));
        let s = status(api, "toolkit");
        assert_eq!(
            (
                s["observedGeneration"].as_i64(),
                s["updatedNumberScheduled"].as_i64()
            ),
            (Some(2), Some(3))
        );
        assert_eq!(event_messages(api, "SuccessfulDelete").len(), 3);
        cluster.shutdown().await;
    }

    #[tokio::test]
    async fn failed_daemon_pods_are_replaced_with_a_warning() {
        let cluster = start(1).await;
        let api = cluster.api();
        label(api, "n0", TOOLKIT, "true");
        api.create(
            &registry::DAEMONSETS,
            NS,
            daemonset("toolkit", TOOLKIT, "img:1"),
            &WriteOptions::default(),
        )
        .expect("daemonset");
        cluster.settle().await;
        let (_, pod) = placed(api, "toolkit").pop().expect("pod");
        let mut failed = pod.value.clone();
        failed["status"]["phase"] = json!("Failed");
        api.update(
            &registry::PODS,
            NS,
            pod.name(),
            failed,
            Some("status"),
            &WriteOptions::default(),
        )
        .expect("status");
        cluster.settle().await;
        assert_eq!(
            event_messages(api, "FailedDaemonPod"),
            [format!(
                "Found failed daemon pod {NS}/{} on node n0, will try to kill it",
                pod.name()
            )]
        );
        let now = placed(api, "toolkit");
        assert_eq!(now.len(), 1);
        assert_ne!(now[0].1.name(), pod.name());
        cluster.shutdown().await;
    }

    /// Controllers off: the pass itself, deterministic.
    fn bare_api() -> Api {
        let api = Api::new(std::sync::Arc::new(Store::new()));
        api.bootstrap().expect("bootstrap");
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}});
        api.create(&registry::NAMESPACES, "", ns, &WriteOptions::default())
            .expect("namespace");
        api
    }

    #[test]
    fn an_empty_selector_is_refused_with_a_warning_event() {
        let api = bare_api();
        let mut ds = daemonset("all", TOOLKIT, "img:1");
        ds["spec"]["selector"] = json!({});
        ds["metadata"]["uid"] = json!("u-all");
        ds["metadata"]["resourceVersion"] = Value::Null;
        // Straight into the store: validation would refuse it, older objects may still have it.
        api.store()
            .create(&registry::DAEMONSETS, ds)
            .expect("stored");
        let mut ctrl = DaemonSetController::default();
        ctrl.reconcile(&api);
        ctrl.reconcile(&api);
        assert_eq!(
            event_messages(&api, "SelectingAll"),
            ["This daemon set is selecting all pods. A non-empty selector is required."]
        );
        let ev = api.store().list(&registry::EVENTS, Some(NS)).0;
        assert_eq!(ev[0].value["count"], 1);
        assert_eq!(ev[0].value["type"], "Warning");
        assert!(api.store().list(&registry::PODS, Some(NS)).0.is_empty());
    }

    #[test]
    fn unscheduled_pods_of_vanished_nodes_are_deleted_and_orphans_adopted() {
        let api = bare_api();
        for n in ["n0", "n1"] {
            let mut labels = BTreeMap::new();
            labels.insert(TOOLKIT.to_string(), "true".to_string());
            // Straight into the store: no admission taint, as if the lifecycle controller had run.
            api.store()
                .create(&registry::NODES, fake_node(n, &labels, &BTreeMap::new()))
                .expect("node");
        }
        // An orphan with the DaemonSet's labels on n1 gets adopted instead of a new pod.
        let orphan = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "stray", "labels": {"app": "toolkit"}},
            "spec": {"nodeName": "n1", "containers": [{"name": "main", "image": "img:1"}]}});
        api.create(&registry::PODS, NS, orphan, &WriteOptions::default())
            .expect("orphan");
        api.create(
            &registry::DAEMONSETS,
            NS,
            daemonset("toolkit", TOOLKIT, "img:1"),
            &WriteOptions::default(),
        )
        .expect("daemonset");
        let mut ctrl = DaemonSetController::default();
        ctrl.reconcile(&api);
        let stray = api.get(&registry::PODS, NS, "stray").expect("stray");
        assert_eq!(
            meta::controller_ref(&stray.value).and_then(|r| r["kind"].as_str()),
            Some("DaemonSet")
        );
        let pods = api.store().list(&registry::PODS, Some(NS)).0;
        assert_eq!(pods.len(), 2);
        let new = pods.iter().find(|p| p.name() != "stray").expect("created");
        assert_eq!(target_node_name(&new.value), Some("n0"));
        assert!(node_name_of(&new.value).is_empty());
        // n0 goes away before the pod was scheduled: the DaemonSet deletes it.
        api.delete(&registry::NODES, "", "n0", &DeleteOptions::default())
            .expect("node deleted");
        ctrl.reconcile(&api);
        let names: Vec<String> = api
            .store()
            .list(&registry::PODS, Some(NS))
            .0
            .iter()
            .map(|p| p.name().to_string())
            .collect();
        assert_eq!(names, ["stray"]);
        // A second pass with nothing new writes nothing.
        ctrl.reconcile(&api);
        let rv = api.store().revision();
        ctrl.reconcile(&api);
        assert_eq!(api.store().revision(), rv);
    }

    #[test]
    fn extra_pods_on_a_node_keep_the_scheduled_oldest() {
        let api = bare_api();
        let mut labels = BTreeMap::new();
        labels.insert(TOOLKIT.to_string(), "true".to_string());
        api.store()
            .create(&registry::NODES, fake_node("n0", &labels, &BTreeMap::new()))
            .expect("node");
        let ds = api
            .create(
                &registry::DAEMONSETS,
                NS,
                daemonset("toolkit", TOOLKIT, "img:1"),
                &WriteOptions::default(),
            )
            .expect("daemonset");
        let mut ctrl = DaemonSetController::default();
        ctrl.reconcile(&api);
        let created = api.store().list(&registry::PODS, Some(NS)).0;
        assert_eq!(created.len(), 1);
        // A second pod of the DaemonSet, already bound to n0: bound pods sort first, so it stays.
        let bound = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "toolkit-bound", "labels": {"app": "toolkit"}, "ownerReferences": [controller_ref(&ds.value)]},
            "spec": {"nodeName": "n0", "containers": [{"name": "main", "image": "img:1"}]}});
        api.create(&registry::PODS, NS, bound, &WriteOptions::default())
            .expect("pod");
        ctrl.reconcile(&api);
        let names: Vec<String> = api
            .store()
            .list(&registry::PODS, Some(NS))
            .0
            .iter()
            .map(|p| p.name().to_string())
            .collect();
        assert_eq!(names, ["toolkit-bound"]);
        assert_eq!(
            event_messages(&api, "SuccessfulDelete"),
            [format!("Deleted pod: {}", created[0].name())]
        );
    }

    #[tokio::test]
    async fn on_delete_waits_for_the_user_to_delete_pods() {
        let cluster = start(2).await;
        let api = cluster.api();
        label(api, "n0", TOOLKIT, "true");
        label(api, "n1", TOOLKIT, "true");
        let mut ds = daemonset("toolkit", TOOLKIT, "img:1");
        ds["spec"]["updateStrategy"] = json!({"type": "OnDelete"});
        api.create(&registry::DAEMONSETS, NS, ds, &WriteOptions::default())
            .expect("daemonset");
        cluster.settle().await;
        patch(
            api,
            &registry::DAEMONSETS,
            NS,
            "toolkit",
            json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "img:2"}]}}}}),
        );
        cluster.settle().await;
        let pods = placed(api, "toolkit");
        assert!(pods
            .iter()
            .all(|(_, p)| p.value["spec"]["containers"][0]["image"] == "img:1"));
        // Nothing is up to date: updatedNumberScheduled is omitted at zero.
        assert_eq!(
            status(api, "toolkit"),
            json!({"currentNumberScheduled": 2, "numberMisscheduled": 0, "desiredNumberScheduled": 2, "numberReady": 2,
                   "observedGeneration": 2, "numberAvailable": 2})
        );
        api.delete(
            &registry::PODS,
            NS,
            pods[0].1.name(),
            &DeleteOptions::default(),
        )
        .expect("deleted");
        cluster.settle().await;
        let pods = placed(api, "toolkit");
        assert_eq!(pods.len(), 2);
        assert_eq!(pods[0].1.value["spec"]["containers"][0]["image"], "img:2");
        assert_eq!(pods[1].1.value["spec"]["containers"][0]["image"], "img:1");
        assert_eq!(status(api, "toolkit")["updatedNumberScheduled"], 1);
        cluster.shutdown().await;
    }

    /// 1,000 nodes × 5 DaemonSets: every pod Running and every status settled, in 2 s with
    /// optimisations (debug builds get a minute). Run with
    /// `cargo test -p kwok --lib daemonset -- --ignored --nocapture`.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore]
    async fn benchmark_thousand_nodes_five_daemonsets() {
        let cluster = start(1000).await;
        let api = cluster.api();
        cluster.settle().await;
        let keys = ["a", "b", "c", "d", "e"];
        let budget = if cfg!(debug_assertions) {
            Duration::from_secs(60)
        } else {
            Duration::from_secs(2)
        };
        let started = Instant::now();
        for k in keys {
            api.create(
                &registry::DAEMONSETS,
                NS,
                daemonset(k, "type", "img:1"),
                &WriteOptions::default(),
            )
            .map(|_| ())
            .unwrap_or_else(|e| panic!("{e}"));
        }
        // Every fake node carries type=kwok: make the selector match it.
        for k in keys {
            patch(
                api,
                &registry::DAEMONSETS,
                NS,
                k,
                json!({"spec": {"template": {"spec": {"nodeSelector": {"type": "kwok"}}}}}),
            );
        }
        loop {
            let done = keys.iter().all(|k| {
                let s = status(api, k);
                s["numberAvailable"] == 1000
                    && s["updatedNumberScheduled"] == 1000
                    && s["observedGeneration"] == 2
            });
            let running = api
                .store()
                .list(&registry::PODS, Some(NS))
                .0
                .iter()
                .filter(|p| p.value["status"]["phase"] == "Running" && !meta::is_deleting(&p.value))
                .count();
            if done && running == 5000 {
                break;
            }
            assert!(
                started.elapsed() < budget,
                "not settled after {budget:?}: {running} running"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        eprintln!("settled in {:?}", started.elapsed());
        cluster.shutdown().await;
    }
}
