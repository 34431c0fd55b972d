use super::*;
use crate::api::subresources::evict;
use crate::api::{PatchKind, WriteOptions};
use crate::cluster::{Cluster, ClusterConfig};
use crate::resource::ResourceDef;

const NS: &str = "default";

/// Controllers off: each test drives the disruption controller's passes itself.
fn bare_api() -> Api {
    Api::bootstrapped()
}

fn create(api: &Api, res: &'static ResourceDef, obj: Value) -> Stored {
    api.create(res, NS, obj, &WriteOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn owner_ref(o: &Stored) -> Value {
    json!({"apiVersion": o.value["apiVersion"], "kind": o.value["kind"], "name": o.name(),
           "uid": meta::uid(&o.value), "controller": true, "blockOwnerDeletion": true})
}

/// A bound pod labelled app=web, Ready or not, optionally controlled by `owner`.
fn pod(api: &Api, name: &str, owner: Option<&Stored>, ready: bool) -> Stored {
    let mut metadata = json!({"name": name, "labels": {"app": "web"}});
    if let Some(o) = owner {
        metadata["ownerReferences"] = json!([owner_ref(o)]);
    }
    let p = create(
        api,
        &registry::PODS,
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata,
               "spec": {"nodeName": "n0", "containers": [{"name": "c", "image": "nginx"}]}}),
    );
    let mut v = p.value.clone();
    v["status"]["phase"] = json!("Running");
    v["status"]["conditions"] = json!([{"type": "Ready", "status": if ready {"True"} else {"False"},
        "lastProbeTime": null, "lastTransitionTime": meta::now()}]);
    write_status(api, &registry::PODS, name, v)
}

/// Write `v` as the status of `name` in the test namespace.
fn write_status(api: &Api, res: &'static ResourceDef, name: &str, v: Value) -> Stored {
    let opts = WriteOptions::default();
    api.update(res, NS, name, v, Some("status"), &opts)
        .expect("status written")
}

/// Deployment `web` (replicas 3) → ReplicaSet → 3 Ready pods.
fn deployment_pods(api: &Api) {
    let d = create(
        api,
        &registry::DEPLOYMENTS,
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
               "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}),
    );
    let rs = create(
        api,
        &registry::REPLICASETS,
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
               "metadata": {"name": "web-5d4b8c7f9", "ownerReferences": [owner_ref(&d)]},
               "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}),
    );
    for i in 0..3 {
        pod(api, &format!("web-5d4b8c7f9-{i}"), Some(&rs), true);
    }
}

fn pdb(api: &Api, spec: Value) {
    let mut spec = spec;
    spec["selector"] = json!({"matchLabels": {"app": "web"}});
    create(
        api,
        &registry::PODDISRUPTIONBUDGETS,
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web-pdb"}, "spec": spec}),
    );
}

fn pdb_status(api: &Api) -> Value {
    api.get(&registry::PODDISRUPTIONBUDGETS, NS, "web-pdb")
        .expect("pdb")
        .value["status"]
        .clone()
}

/// The status numbers (disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods).
fn numbers(api: &Api) -> [i64; 4] {
    let s = pdb_status(api);
    [
        "disruptionsAllowed",
        "currentHealthy",
        "desiredHealthy",
        "expectedPods",
    ]
    .map(|k| s[k].as_i64().unwrap_or(-1))
}

fn condition(api: &Api) -> Value {
    pdb_status(api)["conditions"][0].clone()
}

fn events_with(api: &Api, reason: &str) -> Vec<Value> {
    api.store()
        .list(&registry::EVENTS, Some(NS))
        .0
        .iter()
        .filter(|e| e.value["reason"] == reason)
        .map(|e| e.value.clone())
        .collect()
}

fn synced(spec: Value, pods: impl Fn(&Api)) -> Api {
    let api = bare_api();
    pods(&api);
    pdb(&api, spec);
    assert!(!DisruptionController::default().reconcile(&api).failed());
    api
}

// The examples of the reference (all pods Ready, 3 replicas).

#[test]
fn min_available_integer_counts_the_matching_pods() {
    let api = synced(json!({"minAvailable": 2}), |api| {
        for i in 0..3 {
            pod(api, &format!("web-{i}"), None, true);
        }
    });
    assert_eq!(numbers(&api), [1, 3, 2, 3]);
    let status = pdb_status(&api);
    let keys: Vec<&String> = status.as_object().expect("status").keys().collect();
    assert_eq!(
        keys,
        [
            "observedGeneration",
            "disruptionsAllowed",
            "currentHealthy",
            "desiredHealthy",
            "expectedPods",
            "conditions"
        ]
    );
    assert_eq!(status["observedGeneration"], 1);
    let c = condition(&api);
    assert_eq!(
        (
            c["type"].as_str(),
            c["status"].as_str(),
            c["reason"].as_str(),
            c["message"].as_str(),
            c["observedGeneration"].as_i64()
        ),
        (
            Some("DisruptionAllowed"),
            Some("True"),
            Some("SufficientPods"),
            Some(""),
            Some(1)
        )
    );
    assert!(c["lastTransitionTime"].is_string());
    // Unmanaged pods do not matter for an integer minAvailable.
    assert!(events_with(&api, "UnmanagedPods").is_empty());
}

#[test]
fn min_available_percent_uses_the_deployment_scale() {
    let api = synced(json!({"minAvailable": "50%"}), deployment_pods);
    assert_eq!(numbers(&api), [1, 3, 2, 3]);
}

#[test]
fn max_unavailable_integer_and_percent() {
    let api = synced(json!({"maxUnavailable": 1}), deployment_pods);
    assert_eq!(numbers(&api), [1, 3, 2, 3]);
    let api = synced(json!({"maxUnavailable": "50%"}), deployment_pods);
    assert_eq!(numbers(&api), [2, 3, 1, 3]);
}

#[test]
fn a_bare_replica_set_counts_its_own_replicas() {
    let api = synced(json!({"minAvailable": "100%"}), |api| {
        let rs = create(
            api,
            &registry::REPLICASETS,
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"},
                   "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}},
                            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}),
        );
        for i in 0..3 {
            pod(api, &format!("web-{i}"), Some(&rs), true);
        }
    });
    // 4 expected, 3 healthy: nothing may be disrupted.
    assert_eq!(numbers(&api), [0, 3, 4, 4]);
    let c = condition(&api);
    assert_eq!(
        (c["status"].as_str(), c["reason"].as_str()),
        (Some("False"), Some("InsufficientPods"))
    );
}

#[test]
fn daemon_set_pods_with_a_percentage_fail_safe() {
    let api = synced(json!({"maxUnavailable": "10%"}), |api| {
        let ds = create(
            api,
            &registry::DAEMONSETS,
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
                   "spec": {"selector": {"matchLabels": {"app": "web"}},
                            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "a"}]}}}}),
        );
        pod(api, "agent-x7k2p", Some(&ds), true);
    });
    let status = pdb_status(&api);
    assert_eq!(status["disruptionsAllowed"], 0);
    // failSafe does not raise observedGeneration.
    assert!(status.get("observedGeneration").is_none());
    let c = condition(&api);
    assert_eq!(
        (
            c["status"].as_str(),
            c["reason"].as_str(),
            c["message"].as_str()
        ),
        (
            Some("False"),
            Some("SyncFailed"),
            Some("daemonsets.apps does not implement the scale subresource")
        )
    );
    let ev = events_with(&api, "CalculateExpectedPodCountFailed");
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0]["type"], "Warning");
    assert_eq!(
        ev[0]["message"],
        "Failed to calculate the number of expected pods: daemonsets.apps does not implement the scale subresource"
    );
    assert_eq!(ev[0]["source"]["component"], COMPONENT);
    assert_eq!(ev[0]["involvedObject"]["kind"], "PodDisruptionBudget");
}

#[test]
fn unmanaged_pods_are_reported_with_the_go_selector_text() {
    let api = synced(json!({"minAvailable": "50%"}), |api| {
        pod(api, "web-0", None, true);
    });
    let ev = events_with(&api, "UnmanagedPods");
    assert_eq!(ev.len(), 1);
    assert_eq!(
        ev[0]["message"],
        "Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value."
    );
    // Nothing owns the pod, so nothing is expected.
    assert_eq!(numbers(&api), [0, 1, 0, 0]);
}

#[test]
fn no_pods_gives_an_event_and_a_closed_budget() {
    let api = synced(json!({"minAvailable": 1}), |_| {});
    let ev = events_with(&api, "NoPods");
    assert_eq!(ev.len(), 1);
    assert_eq!(
        (ev[0]["type"].as_str(), ev[0]["message"].as_str()),
        (Some("Normal"), Some("No matching pods found"))
    );
    assert_eq!(numbers(&api), [0, 0, 1, 0]);
    assert_eq!(condition(&api)["reason"], "InsufficientPods");
}

#[test]
fn writes_happen_only_on_change_and_transition_time_only_on_flips() {
    let api = bare_api();
    for i in 0..3 {
        pod(&api, &format!("web-{i}"), None, true);
    }
    pdb(&api, json!({"minAvailable": 2}));
    let mut ctrl = DisruptionController::default();
    assert!(!ctrl.reconcile(&api).failed());
    assert!(!ctrl.reconcile(&api).failed());
    let rv = api.store().revision();
    assert!(!ctrl.reconcile(&api).failed());
    assert_eq!(
        api.store().revision(),
        rv,
        "a settled budget is not rewritten"
    );

    // Pretend the condition flipped long ago, then lose a pod's readiness: the condition flips
    // and its transition time moves.
    let stored = api
        .get(&registry::PODDISRUPTIONBUDGETS, NS, "web-pdb")
        .expect("pdb");
    let mut v = stored.value.clone();
    v["status"]["conditions"][0]["lastTransitionTime"] = json!("2020-01-01T00:00:00Z");
    write_status(&api, &registry::PODDISRUPTIONBUDGETS, "web-pdb", v);
    assert!(!ctrl.reconcile(&api).failed());
    assert_eq!(
        condition(&api)["lastTransitionTime"],
        "2020-01-01T00:00:00Z",
        "same status keeps its time"
    );
    let p = api.get(&registry::PODS, NS, "web-0").expect("pod");
    let mut unready = p.value.clone();
    unready["status"]["conditions"][0]["status"] = json!("False");
    write_status(&api, &registry::PODS, "web-0", unready);
    assert!(!ctrl.reconcile(&api).failed());
    assert_eq!(numbers(&api), [0, 2, 2, 3]);
    let c = condition(&api);
    assert_eq!(
        (c["status"].as_str(), c["reason"].as_str()),
        (Some("False"), Some("InsufficientPods"))
    );
    assert_ne!(c["lastTransitionTime"], "2020-01-01T00:00:00Z");
}

#[test]
fn disrupted_pods_hold_for_two_minutes_and_are_pruned() {
    let api = bare_api();
    for i in 0..3 {
        pod(&api, &format!("web-{i}"), None, true);
    }
    pdb(&api, json!({"minAvailable": 1}));
    let mut ctrl = DisruptionController::default();
    assert!(!ctrl.reconcile(&api).failed());
    let fresh = meta::now();
    let stale = (Utc::now() - chrono::Duration::seconds(180))
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let stored = api
        .get(&registry::PODDISRUPTIONBUDGETS, NS, "web-pdb")
        .expect("pdb");
    let mut v = stored.value.clone();
    v["status"]["disruptedPods"] = json!({"web-0": fresh, "web-1": stale, "gone": fresh});
    write_status(&api, &registry::PODDISRUPTIONBUDGETS, "web-pdb", v);
    let next = ctrl.reconcile(&api);
    let status = pdb_status(&api);
    assert_eq!(status["disruptedPods"], json!({"web-0": fresh}));
    // web-0 is expected to go: 2 healthy, 1 desired.
    assert_eq!(numbers(&api), [1, 2, 1, 3]);
    let wait = next.wake_after().expect("requeued for the expiry");
    assert!(
        wait > Duration::from_secs(100) && wait <= Duration::from_secs(121),
        "{wait:?}"
    );
    let ev = events_with(&api, "NotDeleted");
    assert_eq!(ev.len(), 1);
    assert_eq!(
        ev[0]["message"],
        "Pod was expected by PDB default/default to be deleted but it wasn't"
    );
    assert_eq!(ev[0]["involvedObject"]["name"], "web-1");
}

#[test]
fn a_stale_disruption_target_is_reset() {
    let api = bare_api();
    let p = pod(&api, "web-0", None, true);
    let mut v = p.value.clone();
    set_condition(
        &mut v,
        json!({"type": "DisruptionTarget", "status": "True", "lastProbeTime": null,
        "lastTransitionTime": "2020-01-01T00:00:00Z", "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting"}),
    );
    write_status(&api, &registry::PODS, "web-0", v);
    assert!(!DisruptionController::default().reconcile(&api).failed());
    let p = api.get(&registry::PODS, NS, "web-0").expect("pod");
    let c = p.value["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "DisruptionTarget"))
        .cloned()
        .expect("condition");
    assert_eq!(c["status"], "False");
    assert!(c.get("reason").is_none());
}

#[test]
fn selector_strings_print_like_go() {
    let sel = json!({"matchLabels": {"b": "2", "a": "1"},
                     "matchExpressions": [{"key": "tier", "operator": "In", "values": ["x", "y"]}]});
    assert_eq!(
        go_label_selector_string(&sel),
        "&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:tier,Operator:In,Values:[x y],},},}"
    );
    assert_eq!(go_label_selector_string(&Value::Null), "nil");
}

/// gpudrv steps 6–7: a Deployment of 4 under `minAvailable: 4` cannot lose a pod; with
/// `minAvailable: 3` it can.
#[tokio::test]
async fn the_budget_blocks_then_allows_an_eviction() {
    let cluster = Cluster::start(ClusterConfig::default().with_fake_nodes("lab-node-", 4))
        .await
        .expect("cluster");
    let api = cluster.api();
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu-drv"}});
    api.create(&registry::NAMESPACES, "", ns, &WriteOptions::default())
        .expect("namespace");
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "trainer", "namespace": "gpu-drv"},
        "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "trainer"}},
            "template": {"metadata": {"labels": {"app": "trainer"}}, "spec": {
                "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "trainer"}}, "topologyKey": "kubernetes.io/hostname"}]}},
                "containers": [{"name": "trainer", "image": "nvcr.io/nvidia/pytorch:24.07-py3"}]}}}});
    api.create(
        &registry::DEPLOYMENTS,
        "gpu-drv",
        deployment,
        &WriteOptions::default(),
    )
    .expect("deployment");
    let budget = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "trainer-pdb", "namespace": "gpu-drv"},
        "spec": {"minAvailable": 4, "selector": {"matchLabels": {"app": "trainer"}}}});
    api.create(
        &registry::PODDISRUPTIONBUDGETS,
        "gpu-drv",
        budget,
        &WriteOptions::default(),
    )
    .expect("pdb");
    cluster.settle().await;

    let pods = api.store().list(&registry::PODS, Some("gpu-drv")).0;
    assert_eq!(pods.len(), 4, "the Deployment runs 4 pods");
    let victim = pods
        .iter()
        .find(|p| p.value["spec"]["nodeName"] == "lab-node-1")
        .expect("pod on lab-node-1");
    let status = api
        .get(&registry::PODDISRUPTIONBUDGETS, "gpu-drv", "trainer-pdb")
        .expect("pdb")
        .value["status"]
        .clone();
    assert_eq!(
        [
            "disruptionsAllowed",
            "currentHealthy",
            "desiredHealthy",
            "expectedPods"
        ]
        .map(|k| status[k].as_i64()),
        [Some(0), Some(4), Some(4), Some(4)]
    );
    let eviction = json!({"kind": "Eviction", "apiVersion": "policy/v1", "metadata": {"name": victim.name(), "namespace": "gpu-drv"}, "deleteOptions": {}});
    let err = evict(api, "gpu-drv", victim.name(), &eviction).expect_err("blocked");
    assert_eq!(err.code, 429);
    assert_eq!(
        err.message,
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    assert_eq!(
        err.details
            .as_ref()
            .map(|d| d["causes"][0]["message"].clone()),
        Some(json!(
            "The disruption budget trainer-pdb needs 4 healthy pods and has 4 currently"
        ))
    );

    let body = serde_json::to_vec(&json!({"spec": {"minAvailable": 3}})).expect("encodes");
    api.patch(
        &registry::PODDISRUPTIONBUDGETS,
        "gpu-drv",
        "trainer-pdb",
        PatchKind::Merge,
        &body,
        None,
        &WriteOptions::default(),
    )
    .expect("patched");
    cluster.settle().await;
    evict(api, "gpu-drv", victim.name(), &eviction).expect("allowed");
    cluster.shutdown().await;
}
