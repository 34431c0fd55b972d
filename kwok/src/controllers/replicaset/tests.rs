//! Tests of the ReplicaSet controller: the pure decisions, then whole clusters.

use chrono::DateTime;

use super::access::{is_pod_active, parse_time};
use super::*;
use crate::api::{DeleteOptions, WriteOptions};

fn pod(name: &str, node: &str, phase: &str, ready: bool, restarts: i64, created: &str) -> Stored {
    let mut conditions = vec![];
    if phase == "Running" {
        conditions.push(json!({"type": "Ready", "status": if ready {"True"} else {"False"}, "lastTransitionTime": created}));
    }
    crate::store::Object::new(json!({
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"), "creationTimestamp": created},
        "spec": {"nodeName": node},
        "status": {"phase": phase, "conditions": conditions, "containerStatuses": [{"name": "c", "restartCount": restarts}]}
    }))
}

fn names(pods: Vec<&Stored>) -> Vec<String> {
    pods.iter().map(|p| p.name().to_string()).collect()
}

fn at(s: &str) -> DateTime<Utc> {
    parse_time(&json!(s)).expect("test timestamp")
}

#[test]
fn surplus_pods_go_in_upstream_rank_order() {
    let now = at("2025-01-01T12:00:00Z");
    let pods = vec![
        pod(
            "ready-old",
            "n1",
            "Running",
            true,
            0,
            "2025-01-01T00:00:00Z",
        ),
        pod(
            "unscheduled",
            "",
            "Pending",
            false,
            0,
            "2025-01-01T00:00:00Z",
        ),
        pod("pending", "n1", "Pending", false, 0, "2025-01-01T00:00:00Z"),
        pod(
            "not-ready",
            "n1",
            "Running",
            false,
            0,
            "2025-01-01T00:00:00Z",
        ),
        pod(
            "restarting",
            "n2",
            "Running",
            true,
            7,
            "2025-01-01T00:00:00Z",
        ),
        pod(
            "ready-new",
            "n3",
            "Running",
            true,
            0,
            "2025-01-01T11:59:00Z",
        ),
    ];
    let order = names(pods_to_delete(&pods, &[], 5, now));
    assert_eq!(
        order,
        ["unscheduled", "pending", "not-ready", "ready-new", "restarting"],
        "unscheduled < scheduled, pending < running, not ready < ready, recently ready first, then restarts"
    );
}

#[test]
fn restarts_then_age_break_ties_among_equally_ready_pods() {
    let now = at("2025-01-01T12:00:00Z");
    let pods = vec![
        pod("calm", "n1", "Running", true, 0, "2025-01-01T00:00:00Z"),
        pod("crashy", "n2", "Running", true, 3, "2025-01-01T00:00:00Z"),
    ];
    assert_eq!(names(pods_to_delete(&pods, &[], 1, now)), ["crashy"]);
}

#[test]
fn doubled_up_pods_go_first() {
    let now = at("2025-01-01T12:00:00Z");
    let pods = vec![
        pod("alone", "n1", "Running", true, 0, "2025-01-01T00:00:00Z"),
        pod("crowded", "n2", "Running", true, 0, "2025-01-01T00:00:00Z"),
    ];
    let other = pod("sibling", "n2", "Running", true, 0, "2025-01-01T00:00:00Z");
    let related: Vec<&Stored> = vec![&pods[0], &pods[1], &other];
    assert_eq!(names(pods_to_delete(&pods, &related, 1, now)), ["crowded"]);
}

#[test]
fn all_pods_go_unsorted_when_every_one_is_surplus() {
    let now = at("2025-01-01T12:00:00Z");
    let pods = vec![
        pod("b", "n1", "Running", true, 0, "2025-01-01T00:00:00Z"),
        pod("a", "", "Pending", false, 0, "2025-01-01T00:00:00Z"),
    ];
    assert_eq!(names(pods_to_delete(&pods, &[], 2, now)), ["b", "a"]);
}

#[test]
fn claiming_follows_the_controller_ref_manager() {
    let rs = json!({"metadata": {"name": "rs", "namespace": "ns", "uid": "u1"}});
    let orphan = json!({"metadata": {"name": "p", "namespace": "ns"}});
    let ours = json!({"metadata": {"name": "p", "namespace": "ns", "ownerReferences": [{"uid": "u1", "controller": true}]}});
    let theirs = json!({"metadata": {"name": "p", "namespace": "ns", "ownerReferences": [{"uid": "u2", "controller": true}]}});
    assert_eq!(claim(&rs, &orphan, true), Claim::Adopt);
    assert_eq!(claim(&rs, &orphan, false), Claim::Ignore);
    assert_eq!(claim(&rs, &ours, true), Claim::Owned);
    assert_eq!(claim(&rs, &ours, false), Claim::Release);
    assert_eq!(claim(&rs, &theirs, true), Claim::Ignore);
    let deleting = json!({"metadata": {"name": "rs", "namespace": "ns", "uid": "u1", "deletionTimestamp": "2025-01-01T00:00:00Z"}});
    assert_eq!(claim(&deleting, &ours, false), Claim::Ignore);
    assert_eq!(claim(&deleting, &orphan, true), Claim::Ignore);
}

#[test]
fn a_failing_create_sets_replica_failure_and_success_clears_it() {
    let rs =
        json!({"metadata": {"generation": 1}, "spec": {"replicas": 3}, "status": {"replicas": 1}});
    let counts = PodCounts {
        replicas: 1,
        fully_labeled: 1,
        ..Default::default()
    };
    let msg = "pods \"web-abcde\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1";
    let failed = calculate_status(&rs, &counts, Some(msg), "2025-01-01T00:00:00Z");
    assert_eq!(
        failed["conditions"],
        json!([{"type": "ReplicaFailure", "status": "True", "lastTransitionTime": "2025-01-01T00:00:00Z", "reason": "FailedCreate", "message": msg}])
    );
    let mut again = rs.clone();
    again["status"] = with_observed_generation(failed, &rs);
    assert_eq!(again["status"]["observedGeneration"], 1);
    assert!(!status_changed(
        &again,
        &calculate_status(&again, &counts, Some("other"), "later")
    ));
    let cleared = calculate_status(&again, &counts, None, "later");
    assert!(cleared.get("conditions").is_none());
    assert!(status_changed(&again, &cleared));
}

#[test]
fn min_ready_seconds_delays_availability() {
    let now = at("2025-01-01T12:00:00Z");
    let rs = json!({"spec": {"minReadySeconds": 30, "template": {"metadata": {"labels": {"app": "a"}}}}});
    let mut p = pod("p", "n1", "Running", true, 0, "2025-01-01T11:59:50Z");
    let mut v = p.value.clone();
    v["metadata"]["labels"] = json!({"app": "a", "extra": "x"});
    p = crate::store::Object::new(v);
    let c = PodCounts::of(&rs, &[p], now);
    assert_eq!(
        (c.replicas, c.fully_labeled, c.ready, c.available),
        (1, 1, 1, 0)
    );
    assert_eq!(c.next_available, Some(at("2025-01-01T12:00:20Z")));
}

#[test]
fn pods_from_templates_carry_the_controller_reference() {
    let rs = json!({"metadata": {"name": "web-5d4f", "namespace": "ns", "uid": "u1"},
        "spec": {"template": {"metadata": {"labels": {"b": "2", "a": "1"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    let pod = pod_from_template(&rs, &registry::REPLICASETS);
    assert_eq!(pod["metadata"]["generateName"], "web-5d4f-");
    assert_eq!(
        serde_json::to_string(&pod["metadata"]["labels"]).unwrap_or_default(),
        r#"{"a":"1","b":"2"}"#
    );
    assert_eq!(
        pod["metadata"]["ownerReferences"],
        json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d4f", "uid": "u1", "controller": true, "blockOwnerDeletion": true}])
    );
    assert_eq!(pod["spec"], rs["spec"]["template"]["spec"]);
}

// ---------------------------------------------------------------------------------------------
// Whole clusters (shared with the Deployment controller's tests).

use std::future::Future;

use crate::cluster::{Cluster, ClusterConfig};

/// An in-process cluster with four kwok fake nodes `n0`..`n3`.
pub(crate) async fn start_cluster() -> Cluster {
    Cluster::start(ClusterConfig::default().with_fake_nodes("n", 4))
        .await
        .expect("cluster starts")
}

pub(crate) fn create(api: &Api, res: &'static ResourceDef, ns: &str, obj: Value) -> Stored {
    api.create(res, ns, obj, &WriteOptions::default())
        .unwrap_or_else(|e| panic!("creating {}: {e}", res.kind))
}

pub(crate) fn get(api: &Api, res: &'static ResourceDef, ns: &str, name: &str) -> Value {
    api.get(res, ns, name)
        .unwrap_or_else(|e| panic!("getting {} {name}: {e}", res.kind))
        .value
        .clone()
}

/// Read-modify-write, retried on conflicts with the controllers.
pub(crate) fn modify(
    api: &Api,
    res: &'static ResourceDef,
    ns: &str,
    name: &str,
    f: impl Fn(&mut Value),
) {
    for _ in 0..20 {
        let mut v = get(api, res, ns, name);
        f(&mut v);
        match api.update(res, ns, name, v, None, &WriteOptions::default()) {
            Ok(_) => return,
            Err(e) if e.code == 409 => continue,
            Err(e) => panic!("updating {} {name}: {e}", res.kind),
        }
    }
    panic!("updating {} {name}: conflicts did not stop", res.kind);
}

/// Pods of `ns` labelled `key=value`, terminating ones included.
pub(crate) fn pods_labelled(api: &Api, ns: &str, key: &str, value: &str) -> Vec<Value> {
    api.store()
        .list(&registry::PODS, Some(ns))
        .0
        .iter()
        .filter(|p| meta::label(&p.value, key) == Some(value))
        .map(|p| p.value.clone())
        .collect()
}

pub(crate) fn active_pods(pods: &[Value]) -> Vec<&Value> {
    pods.iter().filter(|p| is_pod_active(p)).collect()
}

/// (type, status, reason, message) of an object's conditions, in order.
pub(crate) fn conditions(obj: &Value) -> Vec<(String, String, String, String)> {
    obj["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or("").to_string();
            (s("type"), s("status"), s("reason"), s("message"))
        })
        .collect()
}

/// The events about the `kind` object `name`, oldest first.
pub(crate) fn events_of(api: &Api, ns: &str, kind: &str, name: &str) -> Vec<Value> {
    let mut evs: Vec<Value> = api
        .store()
        .list(&registry::EVENTS, Some(ns))
        .0
        .iter()
        .filter(|e| {
            e.value["involvedObject"]["name"] == name && e.value["involvedObject"]["kind"] == kind
        })
        .map(|e| e.value.clone())
        .collect();
    evs.sort_by(|a, b| meta::name(a).cmp(meta::name(b)));
    evs
}

/// (reason, message, source component, count) of the events about `name`, oldest first.
pub(crate) fn events_about(
    api: &Api,
    ns: &str,
    kind: &str,
    name: &str,
) -> Vec<(String, String, String, i64)> {
    events_of(api, ns, kind, name)
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
            (
                s("reason"),
                s("message"),
                e["source"]["component"].as_str().unwrap_or("").to_string(),
                e["count"].as_i64().unwrap_or(0),
            )
        })
        .collect()
}

/// Wait (up to 15 s) until `check` holds, letting the controllers settle in between.
pub(crate) async fn eventually<F, Fut>(cluster: &Cluster, what: &str, check: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        cluster.settle().await;
        if check().await {
            return;
        }
        if std::time::Instant::now() > deadline {
            panic!("timed out waiting for: {what}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn web_rs(name: &str, replicas: i64, app: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": app}},
            "template": {"metadata": {"labels": {"app": app, "tier": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}
        }
    })
}

#[tokio::test]
async fn a_replica_set_runs_its_pods_and_scales_down_the_right_ones() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    let rs = create(
        api,
        &registry::REPLICASETS,
        "default",
        web_rs("web", 3, "web"),
    );
    let uid = meta::uid(&rs.value).to_string();
    eventually(&cluster, "3 running pods", || async {
        let pods = pods_labelled(api, "default", "app", "web");
        pods.len() == 3 && pods.iter().all(|p| p["status"]["phase"] == "Running")
    })
    .await;
    let pods = pods_labelled(api, "default", "app", "web");
    for p in &pods {
        let name = meta::name(p);
        assert!(
            name.starts_with("web-") && name.len() == "web-".len() + 5,
            "{name}"
        );
        assert_eq!(p["metadata"]["generateName"], "web-");
        assert_eq!(
            p["metadata"]["ownerReferences"],
            json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": uid, "controller": true, "blockOwnerDeletion": true}])
        );
        assert_eq!(
            p["metadata"]["labels"],
            json!({"app": "web", "tier": "web"})
        );
    }
    let mut created: Vec<(String, String, String, i64)> = pods
        .iter()
        .map(|p| {
            (
                "SuccessfulCreate".to_string(),
                format!("Created pod: {}", meta::name(p)),
                "replicaset-controller".to_string(),
                1,
            )
        })
        .collect();
    created.sort();
    let mut seen = events_about(api, "default", "ReplicaSet", "web");
    seen.sort();
    assert_eq!(seen, created);
    assert_eq!(
        get(api, &registry::REPLICASETS, "default", "web")["status"],
        json!({"replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 3, "availableReplicas": 3, "observedGeneration": 1})
    );

    modify(api, &registry::REPLICASETS, "default", "web", |v| {
        v["spec"]["replicas"] = json!(1)
    });
    eventually(&cluster, "one pod left", || async {
        pods_labelled(api, "default", "app", "web").len() == 1
    })
    .await;
    let left = meta::name(&pods_labelled(api, "default", "app", "web")[0]).to_string();
    let deletes: Vec<String> = events_about(api, "default", "ReplicaSet", "web")
        .into_iter()
        .filter(|e| e.0 == "SuccessfulDelete")
        .map(|e| e.1)
        .collect();
    let mut expected: Vec<String> = pods
        .iter()
        .map(meta::name)
        .filter(|n| *n != left)
        .map(|n| format!("Deleted pod: {n}"))
        .collect();
    expected.sort();
    let mut deletes_sorted = deletes.clone();
    deletes_sorted.sort();
    assert_eq!(deletes_sorted, expected);
    assert_eq!(
        get(api, &registry::REPLICASETS, "default", "web")["status"],
        json!({"replicas": 1, "fullyLabeledReplicas": 1, "readyReplicas": 1, "availableReplicas": 1, "observedGeneration": 2})
    );
    cluster.shutdown().await;
}

#[tokio::test]
async fn orphans_are_adopted_and_relabelled_pods_released() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::PODS,
        "default",
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "stray", "labels": {"app": "api"}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}
        }),
    );
    let rs = create(
        api,
        &registry::REPLICASETS,
        "default",
        web_rs("api", 2, "api"),
    );
    let uid = meta::uid(&rs.value).to_string();
    eventually(&cluster, "two pods, the stray adopted", || async {
        let stray = get(api, &registry::PODS, "default", "stray");
        controller_uid(&stray) == Some(uid.as_str())
            && pods_labelled(api, "default", "app", "api").len() == 2
    })
    .await;
    let creates = |api: &Api| {
        events_about(api, "default", "ReplicaSet", "api")
            .into_iter()
            .filter(|e| e.0 == "SuccessfulCreate")
            .count()
    };
    assert_eq!(creates(api), 1, "only the missing pod is created");

    modify(api, &registry::PODS, "default", "stray", |v| {
        v["metadata"]["labels"]["app"] = json!("other")
    });
    eventually(&cluster, "the stray released and replaced", || async {
        let stray = get(api, &registry::PODS, "default", "stray");
        stray["metadata"].get("ownerReferences").is_none()
            && pods_labelled(api, "default", "app", "api").len() == 2
    })
    .await;
    assert_eq!(creates(api), 2);
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_deleted_pod_is_replaced() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::REPLICASETS,
        "default",
        web_rs("solo", 1, "solo"),
    );
    eventually(&cluster, "the pod runs", || async {
        pods_labelled(api, "default", "app", "solo")
            .iter()
            .any(|p| p["status"]["phase"] == "Running")
    })
    .await;
    let first = meta::name(&pods_labelled(api, "default", "app", "solo")[0]).to_string();
    api.delete(
        &registry::PODS,
        "default",
        &first,
        &DeleteOptions::default(),
    )
    .expect("delete");
    eventually(&cluster, "a replacement runs", || async {
        let pods = pods_labelled(api, "default", "app", "solo");
        pods.len() == 1 && meta::name(&pods[0]) != first && pods[0]["status"]["phase"] == "Running"
    })
    .await;
    cluster.shutdown().await;
}
