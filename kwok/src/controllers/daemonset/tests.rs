use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use chrono::Utc;
use serde_json::{json, Value};

use super::manage::*;
use super::update::*;
use super::util::*;
use super::*;
use crate::api::PatchKind;
use crate::api::{Api, DeleteOptions, WriteOptions};
use crate::cluster::{fake_node, Cluster, ClusterConfig};
use crate::controllers::Controller;
use crate::meta;
use crate::registry;
use crate::store::Stored;

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

fn patch(api: &Api, res: &'static crate::resource::ResourceDef, ns: &str, name: &str, body: Value) {
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
fn daemon_affinity_replaces_required_terms_and_keeps_the_rest() {
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
    let untouched = spec.clone();
    replace_node_name_affinity(&mut spec, "lab-node-1");
    // ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become the one name term.
    assert_eq!(
        spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"],
        json!({"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["lab-node-1"]}]}]})
    );
    assert_eq!(
        spec["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"],
        untouched["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    );
    assert_eq!(
        spec["affinity"]["podAntiAffinity"],
        untouched["affinity"]["podAntiAffinity"]
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
    let ds = crate::store::Object::new(json!({"spec": {"updateStrategy": {"type": "RollingUpdate",
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
        .all(|(_, p)| meta::label(&p.value, REVISION_HASH_LABEL) == Some(revisions[1].1.as_str())));
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
    let api = Api::bootstrapped();
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
    assert!(!ctrl.reconcile(&api).failed());
    assert!(!ctrl.reconcile(&api).failed());
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
    assert!(!ctrl.reconcile(&api).failed());
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
    assert!(!ctrl.reconcile(&api).failed());
    let names: Vec<String> = api
        .store()
        .list(&registry::PODS, Some(NS))
        .0
        .iter()
        .map(|p| p.name().to_string())
        .collect();
    assert_eq!(names, ["stray"]);
    // A second pass with nothing new writes nothing.
    assert!(!ctrl.reconcile(&api).failed());
    let rv = api.store().revision();
    assert!(!ctrl.reconcile(&api).failed());
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
    assert!(!ctrl.reconcile(&api).failed());
    let created = api.store().list(&registry::PODS, Some(NS)).0;
    assert_eq!(created.len(), 1);
    // A second pod of the DaemonSet, already bound to n0: bound pods sort first, so it stays.
    let bound = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "toolkit-bound", "labels": {"app": "toolkit"}, "ownerReferences": [controller_ref(&ds.value)]},
        "spec": {"nodeName": "n0", "containers": [{"name": "main", "image": "img:1"}]}});
    api.create(&registry::PODS, NS, bound, &WriteOptions::default())
        .expect("pod");
    assert!(!ctrl.reconcile(&api).failed());
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
