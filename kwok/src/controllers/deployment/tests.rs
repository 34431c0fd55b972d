//! Deployments in whole in-process clusters, checked against what a real cluster shows.

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Value};

use super::util::*;
use crate::api::Api;
use crate::controllers::kubelet::FAULT;
use crate::controllers::replicaset::access::{is_pod_active, is_pod_ready};
use crate::controllers::replicaset::tests::{
    active_pods, conditions, create, events_about, eventually, get, modify, pods_labelled,
    start_cluster,
};
use crate::meta;
use crate::registry;
use crate::store::{Event, EventKind};

fn deployment(name: &str, ns: &str, replicas: i64, image: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": name, "image": image}]}
            }
        }
    })
}

/// The gpudrv lab's trainer: one pod per node through required anti-affinity on the hostname.
fn trainer() -> Value {
    let mut d = deployment("trainer", "gpu-drv", 4, "nvcr.io/nvidia/pytorch:24.07-py3");
    d["spec"]["template"]["spec"]["affinity"] = json!({"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": "trainer"}},
            "topologyKey": "kubernetes.io/hostname"
        }]
    }});
    d
}

/// The ReplicaSets of a deployment, oldest revision first.
fn replica_sets(api: &Api, ns: &str, deployment: &str) -> Vec<Value> {
    let d = get(api, &registry::DEPLOYMENTS, ns, deployment);
    let uid = meta::uid(&d).to_string();
    let mut sets: Vec<Value> = api
        .store()
        .list(&registry::REPLICASETS, Some(ns))
        .0
        .iter()
        .filter(|rs| {
            crate::controllers::replicaset::controller_uid(&rs.value) == Some(uid.as_str())
        })
        .map(|rs| rs.value.clone())
        .collect();
    sets.sort_by_key(|rs| revision(rs).unwrap_or(0));
    sets
}

fn cond(t: &str, s: &str, r: &str, m: &str) -> (String, String, String, String) {
    (t.into(), s.into(), r.into(), m.into())
}

fn scaling_events(api: &Api, ns: &str, name: &str) -> Vec<String> {
    events_about(api, ns, "Deployment", name)
        .into_iter()
        .filter(|e| e.0 == "ScalingReplicaSet")
        .inspect(|e| assert_eq!(e.2, "deployment-controller"))
        .map(|e| e.1)
        .collect()
}

fn complete(api: &Api, ns: &str, name: &str) -> bool {
    let d = get(api, &registry::DEPLOYMENTS, ns, name);
    let want = d["spec"]["replicas"].as_i64().unwrap_or(1);
    let s = &d["status"];
    let n = |k: &str| s[k].as_i64().unwrap_or(0);
    n("observedGeneration") == d["metadata"]["generation"].as_i64().unwrap_or(0)
        && n("updatedReplicas") == want
        && n("replicas") == want
        && n("availableReplicas") == want
        && conditions(&d)
            .iter()
            .any(|c| c.0 == "Progressing" && c.2 == "NewReplicaSetAvailable")
}

fn set_image(api: &Api, ns: &str, name: &str, image: &str) {
    modify(api, &registry::DEPLOYMENTS, ns, name, |v| {
        v["spec"]["template"]["spec"]["containers"][0]["image"] = json!(image)
    });
}

const DRAINED_NODE_MESSAGE: &str = "0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match pod anti-affinity rules. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.";

#[tokio::test]
async fn the_trainer_spreads_one_pod_per_node_and_survives_a_drain() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::NAMESPACES,
        "",
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu-drv"}}),
    );
    create(api, &registry::DEPLOYMENTS, "gpu-drv", trainer());
    eventually(&cluster, "the trainer rolled out", || async {
        complete(api, "gpu-drv", "trainer")
    })
    .await;

    let pods = pods_labelled(api, "gpu-drv", "app", "trainer");
    assert_eq!(pods.len(), 4);
    assert!(pods.iter().all(|p| p["status"]["phase"] == "Running"));
    let nodes: BTreeSet<&str> = pods
        .iter()
        .filter_map(|p| p["spec"]["nodeName"].as_str())
        .collect();
    assert_eq!(nodes, BTreeSet::from(["n0", "n1", "n2", "n3"]));

    let d = get(api, &registry::DEPLOYMENTS, "gpu-drv", "trainer");
    let sets = replica_sets(api, "gpu-drv", "trainer");
    assert_eq!(sets.len(), 1);
    let rs = &sets[0];
    let hash = meta::label(rs, HASH_LABEL).expect("hash label").to_string();
    let rs_name = format!("trainer-{hash}");
    assert_eq!(meta::name(rs), rs_name);
    assert_eq!(
        rs["metadata"]["labels"],
        json!({"app": "trainer", "pod-template-hash": hash})
    );
    assert_eq!(
        rs["spec"]["selector"],
        json!({"matchLabels": {"app": "trainer", "pod-template-hash": hash}})
    );
    assert_eq!(
        rs["spec"]["template"]["metadata"]["labels"],
        json!({"app": "trainer", "pod-template-hash": hash})
    );
    assert_eq!(
        rs["metadata"]["annotations"],
        json!({"deployment.kubernetes.io/desired-replicas": "4", "deployment.kubernetes.io/max-replicas": "5", "deployment.kubernetes.io/revision": "1"})
    );
    assert_eq!(
        rs["metadata"]["ownerReferences"],
        json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "trainer", "uid": meta::uid(&d), "controller": true, "blockOwnerDeletion": true}])
    );
    assert_eq!(
        rs["status"],
        json!({"replicas": 4, "fullyLabeledReplicas": 4, "readyReplicas": 4, "availableReplicas": 4, "observedGeneration": 1})
    );
    assert!(pods
        .iter()
        .all(|p| meta::label(p, HASH_LABEL) == Some(hash.as_str())));
    assert_eq!(meta::annotation(&d, REVISION), Some("1"));
    let s = &d["status"];
    assert_eq!(
        (
            &s["observedGeneration"],
            &s["replicas"],
            &s["updatedReplicas"],
            &s["readyReplicas"],
            &s["availableReplicas"]
        ),
        (&json!(1), &json!(4), &json!(4), &json!(4), &json!(4))
    );
    assert!(s.get("unavailableReplicas").is_none());
    assert_eq!(
        conditions(&d),
        [
            cond(
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability."
            ),
            cond(
                "Progressing",
                "True",
                "NewReplicaSetAvailable",
                &format!("ReplicaSet \"{rs_name}\" has successfully progressed.")
            ),
        ]
    );
    assert_eq!(
        scaling_events(api, "gpu-drv", "trainer"),
        [format!("Scaled up replica set {rs_name} from 0 to 4")]
    );

    // Drain n1: cordon, then evict its trainer pod.
    modify(api, &registry::NODES, "", "n1", |n| {
        n["spec"]["unschedulable"] = json!(true)
    });
    let victim = pods
        .iter()
        .find(|p| p["spec"]["nodeName"] == "n1")
        .expect("a pod on n1");
    crate::api::subresources::evict(api, "gpu-drv", meta::name(victim), &json!({}))
        .expect("eviction");
    eventually(&cluster, "a pending replacement", || async {
        let pods = pods_labelled(api, "gpu-drv", "app", "trainer");
        let active = active_pods(&pods);
        active.len() == 4
            && active.iter().any(|p| {
                p["status"]["conditions"].as_array().is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c["type"] == "PodScheduled" && c["status"] == "False")
                })
            })
    })
    .await;
    let pods = pods_labelled(api, "gpu-drv", "app", "trainer");
    let pending: Vec<&Value> = pods
        .iter()
        .filter(|p| p["spec"].get("nodeName").is_none())
        .collect();
    assert_eq!(pending.len(), 1);
    let scheduled = pending[0]["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "PodScheduled"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(scheduled["reason"], "Unschedulable");
    assert_eq!(scheduled["message"], DRAINED_NODE_MESSAGE);
    let d = get(api, &registry::DEPLOYMENTS, "gpu-drv", "trainer");
    let s = &d["status"];
    assert_eq!(
        (
            &s["replicas"],
            &s["updatedReplicas"],
            &s["readyReplicas"],
            &s["availableReplicas"],
            &s["unavailableReplicas"]
        ),
        (&json!(4), &json!(4), &json!(3), &json!(3), &json!(1))
    );
    assert_eq!(
        conditions(&d),
        [
            cond(
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability."
            ),
            cond(
                "Progressing",
                "True",
                "NewReplicaSetAvailable",
                &format!("ReplicaSet \"{rs_name}\" has successfully progressed.")
            ),
        ],
        "3 of 4 available is within maxUnavailable 25%"
    );
    let creates = events_about(api, "gpu-drv", "ReplicaSet", &rs_name)
        .into_iter()
        .filter(|e| e.0 == "SuccessfulCreate")
        .count();
    assert_eq!(creates, 5);

    // Uncordon: the replacement lands on n1.
    modify(api, &registry::NODES, "", "n1", |n| {
        if let Some(spec) = n["spec"].as_object_mut() {
            spec.remove("unschedulable");
        }
    });
    let replacement = meta::name(pending[0]).to_string();
    eventually(&cluster, "the replacement runs on n1", || async {
        let p = get(api, &registry::PODS, "gpu-drv", &replacement);
        p["spec"]["nodeName"] == "n1" && p["status"]["phase"] == "Running"
    })
    .await;
    eventually(&cluster, "all four available again", || async {
        let d = get(api, &registry::DEPLOYMENTS, "gpu-drv", "trainer");
        d["status"]["availableReplicas"] == 4 && d["status"].get("unavailableReplicas").is_none()
    })
    .await;
    cluster.shutdown().await;
}

#[tokio::test]
async fn scaling_resizes_the_replica_set_with_events() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::DEPLOYMENTS,
        "default",
        deployment("web", "default", 2, "nginx:1.27"),
    );
    eventually(&cluster, "rolled out", || async {
        complete(api, "default", "web")
    })
    .await;
    let rs_name = meta::name(&replica_sets(api, "default", "web")[0]).to_string();

    modify(api, &registry::DEPLOYMENTS, "default", "web", |d| {
        d["spec"]["replicas"] = json!(5)
    });
    eventually(&cluster, "5 replicas", || async {
        complete(api, "default", "web")
    })
    .await;
    assert_eq!(
        active_pods(&pods_labelled(api, "default", "app", "web")).len(),
        5
    );
    let rs = &replica_sets(api, "default", "web")[0];
    assert_eq!(rs["spec"]["replicas"], 5);
    // max-replicas: 5 + ceil(25% of 5).
    assert_eq!(meta::annotation(rs, DESIRED_REPLICAS), Some("5"));
    assert_eq!(meta::annotation(rs, MAX_REPLICAS), Some("7"));

    modify(api, &registry::DEPLOYMENTS, "default", "web", |d| {
        d["spec"]["replicas"] = json!(1)
    });
    eventually(&cluster, "1 replica", || async {
        complete(api, "default", "web") && pods_labelled(api, "default", "app", "web").len() == 1
    })
    .await;
    let rs = &replica_sets(api, "default", "web")[0];
    assert_eq!(
        (
            meta::annotation(rs, DESIRED_REPLICAS),
            meta::annotation(rs, MAX_REPLICAS)
        ),
        (Some("1"), Some("2"))
    );
    assert_eq!(
        scaling_events(api, "default", "web"),
        [
            format!("Scaled up replica set {rs_name} from 0 to 2"),
            format!("Scaled up replica set {rs_name} from 2 to 5"),
            format!("Scaled down replica set {rs_name} from 5 to 1"),
        ]
    );
    let d = get(api, &registry::DEPLOYMENTS, "default", "web");
    assert_eq!(d["metadata"]["generation"], 3);
    assert_eq!(
        d["status"]["observedGeneration"], 3,
        "kubectl rollout status waits for the observed generation"
    );
    let deletes = events_about(api, "default", "ReplicaSet", &rs_name)
        .into_iter()
        .filter(|e| e.0 == "SuccessfulDelete")
        .count();
    assert_eq!(deletes, 4);
    cluster.shutdown().await;
}

/// Replays a rollout from the change stream: the most replicas the ReplicaSets asked for at once
/// (maxSurge bounds `spec.replicas`, as upstream's NewRSNewReplicas) and the fewest ready pods
/// not being deleted (maxUnavailable).
struct Timeline {
    pods: HashMap<String, Value>,
    sets: HashMap<String, i64>,
    max_requested: i64,
    min_ready: usize,
}

impl Timeline {
    fn new(api: &Api, app: &str) -> Self {
        let pods = pods_labelled(api, "default", "app", app)
            .into_iter()
            .map(|p| (meta::name(&p).to_string(), p))
            .collect();
        let sets = replica_sets(api, "default", app)
            .iter()
            .map(|rs| {
                (
                    meta::name(rs).to_string(),
                    rs["spec"]["replicas"].as_i64().unwrap_or(0),
                )
            })
            .collect();
        let mut t = Timeline {
            pods,
            sets,
            max_requested: 0,
            min_ready: usize::MAX,
        };
        t.observe();
        t
    }

    fn observe(&mut self) {
        let ready = self
            .pods
            .values()
            .filter(|p| is_pod_active(p) && is_pod_ready(p))
            .count();
        self.max_requested = self.max_requested.max(self.sets.values().sum());
        self.min_ready = self.min_ready.min(ready);
    }

    fn replay(&mut self, rx: &mut tokio::sync::broadcast::Receiver<Event>, app: &str) {
        while let Ok(ev) = rx.try_recv() {
            let v = &ev.object.value;
            let name = ev.object.name().to_string();
            if std::ptr::eq(ev.res, &registry::PODS) && meta::label(v, "app") == Some(app) {
                match ev.kind {
                    EventKind::Deleted => self.pods.remove(&name),
                    _ => self.pods.insert(name, v.clone()),
                };
            } else if std::ptr::eq(ev.res, &registry::REPLICASETS)
                && meta::label(v, "app") == Some(app)
            {
                match ev.kind {
                    EventKind::Deleted => self.sets.remove(&name),
                    _ => self
                        .sets
                        .insert(name, v["spec"]["replicas"].as_i64().unwrap_or(0)),
                };
            } else {
                continue;
            }
            self.observe();
        }
    }
}

#[tokio::test]
async fn a_rolling_update_respects_max_surge_and_max_unavailable() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    let mut d = deployment("web", "default", 4, "nginx:1.26");
    d["spec"]["strategy"] =
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}});
    create(api, &registry::DEPLOYMENTS, "default", d);
    eventually(&cluster, "rolled out", || async {
        complete(api, "default", "web")
    })
    .await;
    let old_name = meta::name(&replica_sets(api, "default", "web")[0]).to_string();

    let mut rx = api.store().subscribe();
    let mut timeline = Timeline::new(api, "web");
    set_image(api, "default", "web", "nginx:1.27");
    eventually(&cluster, "the new template rolled out", || async {
        complete(api, "default", "web") && pods_labelled(api, "default", "app", "web").len() == 4
    })
    .await;
    timeline.replay(&mut rx, "web");
    assert_eq!(timeline.max_requested, 5, "maxSurge 1: at most 5 replicas");
    assert!(
        timeline.min_ready >= 4,
        "maxUnavailable 0: never under 4 ready, saw {}",
        timeline.min_ready
    );

    let sets = replica_sets(api, "default", "web");
    assert_eq!(sets.len(), 2, "the old ReplicaSet is kept for history");
    let (old, new) = (&sets[0], &sets[1]);
    let new_name = meta::name(new).to_string();
    assert_eq!(meta::name(old), old_name);
    assert_eq!(
        (
            old["spec"]["replicas"].clone(),
            new["spec"]["replicas"].clone()
        ),
        (json!(0), json!(4))
    );
    assert_eq!(
        old["status"],
        json!({"replicas": 0, "observedGeneration": old["metadata"]["generation"]})
    );
    assert_eq!(
        (
            meta::annotation(old, REVISION),
            meta::annotation(new, REVISION)
        ),
        (Some("1"), Some("2"))
    );
    let d = get(api, &registry::DEPLOYMENTS, "default", "web");
    assert_eq!(meta::annotation(&d, REVISION), Some("2"));
    assert_eq!(
        conditions(&d),
        [
            cond(
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability."
            ),
            cond(
                "Progressing",
                "True",
                "NewReplicaSetAvailable",
                &format!("ReplicaSet \"{new_name}\" has successfully progressed.")
            ),
        ]
    );
    let evs = scaling_events(api, "default", "web");
    assert_eq!(
        evs[1],
        format!("Scaled up replica set {new_name} from 0 to 1"),
        "{evs:?}"
    );
    assert_eq!(
        evs[2],
        format!("Scaled down replica set {old_name} from 4 to 3"),
        "{evs:?}"
    );
    assert!(
        evs.last().is_some_and(|e| e
            .starts_with(&format!("Scaled down replica set {old_name} from "))
            && e.ends_with(" to 0")),
        "{evs:?}"
    );
    cluster.shutdown().await;
}

#[tokio::test]
async fn without_surge_the_old_replica_set_shrinks_first() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    let mut d = deployment("web", "default", 4, "nginx:1.26");
    d["spec"]["strategy"] =
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}});
    create(api, &registry::DEPLOYMENTS, "default", d);
    eventually(&cluster, "rolled out", || async {
        complete(api, "default", "web")
    })
    .await;
    let old_name = meta::name(&replica_sets(api, "default", "web")[0]).to_string();
    let mut rx = api.store().subscribe();
    let mut timeline = Timeline::new(api, "web");
    set_image(api, "default", "web", "nginx:1.27");
    eventually(&cluster, "rolled out again", || async {
        complete(api, "default", "web") && pods_labelled(api, "default", "app", "web").len() == 4
    })
    .await;
    timeline.replay(&mut rx, "web");
    assert_eq!(
        timeline.max_requested, 4,
        "maxSurge 0: never more than 4 replicas"
    );
    assert!(
        timeline.min_ready >= 3,
        "maxUnavailable 1: saw {} ready",
        timeline.min_ready
    );
    let new_name = meta::name(&replica_sets(api, "default", "web")[1]).to_string();
    let evs = scaling_events(api, "default", "web");
    assert_eq!(
        evs[1],
        format!("Scaled down replica set {old_name} from 4 to 3"),
        "{evs:?}"
    );
    assert_eq!(
        evs[2],
        format!("Scaled up replica set {new_name} from 0 to 1"),
        "{evs:?}"
    );
    cluster.shutdown().await;
}

#[tokio::test]
async fn recreate_removes_every_old_pod_before_starting_new_ones() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    let mut d = deployment("db", "default", 3, "postgres:16");
    d["spec"]["strategy"] = json!({"type": "Recreate"});
    create(api, &registry::DEPLOYMENTS, "default", d);
    eventually(&cluster, "rolled out", || async {
        complete(api, "default", "db")
    })
    .await;
    let old_name = meta::name(&replica_sets(api, "default", "db")[0]).to_string();
    let mut rx = api.store().subscribe();
    let mut pods = Timeline::new(api, "db");
    set_image(api, "default", "db", "postgres:17");
    eventually(&cluster, "recreated", || async {
        complete(api, "default", "db") && pods_labelled(api, "default", "app", "db").len() == 3
    })
    .await;
    // Every new pod was created when no old pod was left.
    let mut live: HashMap<String, Value> = pods.pods.drain().collect();
    while let Ok(ev) = rx.try_recv() {
        if !std::ptr::eq(ev.res, &registry::PODS)
            || meta::label(&ev.object.value, "app") != Some("db")
        {
            continue;
        }
        let name = ev.object.name().to_string();
        if ev.kind == EventKind::Added {
            let old_left = live
                .values()
                .filter(|p| meta::label(p, HASH_LABEL) != meta::label(&ev.object.value, HASH_LABEL))
                .count();
            assert_eq!(old_left, 0, "{name} created while old pods existed");
        }
        if ev.kind == EventKind::Deleted {
            live.remove(&name);
        } else {
            live.insert(name, ev.object.value.clone());
        }
    }
    let new_name = meta::name(&replica_sets(api, "default", "db")[1]).to_string();
    assert_eq!(
        scaling_events(api, "default", "db")[1..],
        [
            format!("Scaled down replica set {old_name} from 3 to 0"),
            format!("Scaled up replica set {new_name} from 0 to 3"),
        ]
    );
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_resize_mid_rollout_is_shared_proportionally() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::DEPLOYMENTS,
        "default",
        deployment("web", "default", 4, "nginx:1.26"),
    );
    eventually(&cluster, "rolled out", || async {
        complete(api, "default", "web")
    })
    .await;
    // New pods never become ready, so the rollout stops where the budget runs out.
    modify(api, &registry::DEPLOYMENTS, "default", "web", |d| {
        d["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:broken");
        d["spec"]["template"]["metadata"]["annotations"] = json!({FAULT: "ImagePullBackOff"});
    });
    eventually(&cluster, "the rollout is stuck at old 3, new 2", || async {
        let sets = replica_sets(api, "default", "web");
        sets.len() == 2
            && sets[0]["spec"]["replicas"] == 3
            && sets[1]["spec"]["replicas"] == 2
            && sets[1]["status"]["replicas"] == 2
            && sets[0]["status"]["availableReplicas"] == 3
    })
    .await;
    let sets = replica_sets(api, "default", "web");
    let (old_name, new_name) = (
        meta::name(&sets[0]).to_string(),
        meta::name(&sets[1]).to_string(),
    );
    eventually(&cluster, "the status shows the stuck rollout", || async {
        let d = get(api, &registry::DEPLOYMENTS, "default", "web");
        d["status"]["updatedReplicas"] == 2 && d["status"]["unavailableReplicas"] == 2
    })
    .await;
    let d = get(api, &registry::DEPLOYMENTS, "default", "web");
    let s = &d["status"];
    assert_eq!(
        (
            &s["replicas"],
            &s["updatedReplicas"],
            &s["readyReplicas"],
            &s["availableReplicas"],
            &s["unavailableReplicas"]
        ),
        (&json!(5), &json!(2), &json!(3), &json!(3), &json!(2))
    );
    assert_eq!(
        conditions(&d),
        [
            cond(
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability."
            ),
            cond(
                "Progressing",
                "True",
                "ReplicaSetUpdated",
                &format!("ReplicaSet \"{new_name}\" is progressing.")
            ),
        ]
    );

    // 4 -> 8: allowed 8 + 2 surge = 10, 5 more shared 3:2 like the sizes.
    modify(api, &registry::DEPLOYMENTS, "default", "web", |d| {
        d["spec"]["replicas"] = json!(8)
    });
    eventually(&cluster, "old 6, new 4", || async {
        let sets = replica_sets(api, "default", "web");
        sets[0]["spec"]["replicas"] == 6 && sets[1]["spec"]["replicas"] == 4
    })
    .await;
    let evs = scaling_events(api, "default", "web");
    let tail: Vec<&String> = evs.iter().rev().take(2).collect();
    assert_eq!(
        tail,
        [
            &format!("Scaled up replica set {new_name} from 2 to 4"),
            &format!("Scaled up replica set {old_name} from 3 to 6"),
        ]
    );
    let sets = replica_sets(api, "default", "web");
    for rs in &sets {
        assert_eq!(
            (
                meta::annotation(rs, DESIRED_REPLICAS),
                meta::annotation(rs, MAX_REPLICAS)
            ),
            (Some("8"), Some("10"))
        );
    }
    cluster.shutdown().await;
}

#[tokio::test]
async fn history_is_trimmed_and_undo_reuses_the_old_replica_set() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    let mut d = deployment("web", "default", 2, "nginx:1.25");
    d["spec"]["revisionHistoryLimit"] = json!(1);
    d["metadata"]["annotations"] = json!({"kubernetes.io/change-cause": "first"});
    create(api, &registry::DEPLOYMENTS, "default", d);
    eventually(&cluster, "v1", || async { complete(api, "default", "web") }).await;
    let first = replica_sets(api, "default", "web")[0].clone();
    let first_template =
        get(api, &registry::DEPLOYMENTS, "default", "web")["spec"]["template"].clone();
    for (i, image) in ["nginx:1.26", "nginx:1.27"].iter().enumerate() {
        set_image(api, "default", "web", image);
        eventually(&cluster, "next version", || async {
            complete(api, "default", "web")
                && replica_sets(api, "default", "web").len() == 2
                && replica_sets(api, "default", "web")[1]["spec"]["template"]["spec"]["containers"]
                    [0]["image"]
                    == *image
                && meta::annotation(
                    &get(api, &registry::DEPLOYMENTS, "default", "web"),
                    REVISION,
                )
                .map(str::to_string)
                    == Some((i + 2).to_string())
        })
        .await;
    }
    let sets = replica_sets(api, "default", "web");
    let revisions: Vec<Option<&str>> = sets
        .iter()
        .map(|rs| meta::annotation(rs, REVISION))
        .collect();
    assert_eq!(
        revisions,
        [Some("2"), Some("3")],
        "revisionHistoryLimit 1 keeps one old ReplicaSet"
    );
    assert!(sets
        .iter()
        .all(|rs| meta::annotation(rs, "kubernetes.io/change-cause") == Some("first")));
    assert!(api
        .get(&registry::REPLICASETS, "default", meta::name(&first))
        .is_err());

    // kubectl rollout undo --to-revision=2 puts that ReplicaSet's template back.
    let second = sets[0].clone();
    let mut template = second["spec"]["template"].clone();
    if let Some(l) = template["metadata"]["labels"].as_object_mut() {
        l.remove(HASH_LABEL);
    }
    assert_ne!(template, first_template);
    modify(api, &registry::DEPLOYMENTS, "default", "web", |d| {
        d["spec"]["template"] = template.clone()
    });
    eventually(&cluster, "rolled back", || async {
        complete(api, "default", "web")
            && meta::annotation(
                &get(api, &registry::DEPLOYMENTS, "default", "web"),
                REVISION,
            ) == Some("4")
    })
    .await;
    let sets = replica_sets(api, "default", "web");
    assert_eq!(sets.len(), 2);
    let reused = sets
        .iter()
        .find(|rs| meta::name(rs) == meta::name(&second))
        .expect("revision 2 reused");
    assert_eq!(meta::annotation(reused, REVISION), Some("4"));
    assert_eq!(meta::annotation(reused, REVISION_HISTORY), Some("2"));
    assert_eq!(reused["spec"]["replicas"], 2);
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_paused_deployment_waits_and_resumes() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::DEPLOYMENTS,
        "default",
        deployment("web", "default", 2, "nginx:1.26"),
    );
    eventually(&cluster, "rolled out", || async {
        complete(api, "default", "web")
    })
    .await;
    modify(api, &registry::DEPLOYMENTS, "default", "web", |d| {
        d["spec"]["paused"] = json!(true)
    });
    eventually(&cluster, "paused condition", || async {
        conditions(&get(api, &registry::DEPLOYMENTS, "default", "web")).contains(&cond(
            "Progressing",
            "Unknown",
            "DeploymentPaused",
            "Deployment is paused",
        ))
    })
    .await;
    set_image(api, "default", "web", "nginx:1.27");
    modify(api, &registry::DEPLOYMENTS, "default", "web", |d| {
        d["spec"]["replicas"] = json!(3)
    });
    eventually(&cluster, "scaled while paused", || async {
        let sets = replica_sets(api, "default", "web");
        sets.len() == 1
            && sets[0]["spec"]["replicas"] == 3
            && sets[0]["status"]["availableReplicas"] == 3
    })
    .await;
    assert_eq!(
        replica_sets(api, "default", "web").len(),
        1,
        "no rollout while paused"
    );

    modify(api, &registry::DEPLOYMENTS, "default", "web", |d| {
        d["spec"]["paused"] = json!(false)
    });
    eventually(&cluster, "resumed and rolled out", || async {
        complete(api, "default", "web") && replica_sets(api, "default", "web").len() == 2
    })
    .await;
    let sets = replica_sets(api, "default", "web");
    assert_eq!(
        sets[1]["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:1.27"
    );
    assert_eq!(
        (
            sets[0]["spec"]["replicas"].clone(),
            sets[1]["spec"]["replicas"].clone()
        ),
        (json!(0), json!(3))
    );
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_rollout_that_never_becomes_ready_exceeds_its_progress_deadline() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    let mut d = deployment("stuck", "default", 2, "nginx:missing");
    d["spec"]["progressDeadlineSeconds"] = json!(1);
    d["spec"]["template"]["metadata"]["annotations"] = json!({FAULT: "ImagePullBackOff"});
    create(api, &registry::DEPLOYMENTS, "default", d);
    eventually(&cluster, "the deadline passes", || async {
        conditions(&get(api, &registry::DEPLOYMENTS, "default", "stuck"))
            .iter()
            .any(|c| c.0 == "Progressing" && c.1 == "False")
    })
    .await;
    let rs_name = meta::name(&replica_sets(api, "default", "stuck")[0]).to_string();
    let d = get(api, &registry::DEPLOYMENTS, "default", "stuck");
    assert_eq!(
        conditions(&d),
        [
            cond(
                "Available",
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability."
            ),
            cond(
                "Progressing",
                "False",
                "ProgressDeadlineExceeded",
                &format!("ReplicaSet \"{rs_name}\" has timed out progressing.")
            ),
        ]
    );
    let s = &d["status"];
    assert_eq!(
        (
            &s["replicas"],
            &s["updatedReplicas"],
            &s["unavailableReplicas"],
            s.get("availableReplicas")
        ),
        (&json!(2), &json!(2), &json!(2), None)
    );
    cluster.shutdown().await;
}
