use chrono::TimeDelta;

use super::*;
use crate::api::DeleteOptions;
use crate::podutil::{condition, parse_time};

/// Controllers off: each test drives the controller's passes itself, at the times it picks.
fn bare_api() -> Api {
    Api::bootstrapped()
}

fn get(api: &Api, res: &'static crate::resource::ResourceDef, ns: &str, name: &str) -> Value {
    api.store()
        .get(res, ns, name)
        .unwrap_or_else(|| panic!("{name} is gone"))
        .value
        .clone()
}

/// A node with the conditions a kubelet posts (Ready as given), in zone `zone` if not empty.
fn node(api: &Api, name: &str, ready: Option<&str>, zone: &str) -> DateTime<Utc> {
    let mut labels = json!({});
    if !zone.is_empty() {
        labels["topology.kubernetes.io/zone"] = json!(zone);
    }
    let created = api
        .create(
            &registry::NODES,
            "",
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}),
            &WriteOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let t0 = parse_time(&created.value["metadata"]["creationTimestamp"]).expect("created");
    if let Some(ready) = ready {
        set_ready(api, name, ready);
    }
    t0
}

fn set_ready(api: &Api, name: &str, ready: &str) {
    let mut node = get(api, &registry::NODES, "", name);
    let stamp = meta::now();
    let c = |t: &str, s: &str| {
        json!({"type": t, "status": s, "reason": "Kubelet", "message": "posted",
        "lastHeartbeatTime": stamp, "lastTransitionTime": stamp})
    };
    node["status"]["conditions"] = json!([
        c("Ready", ready),
        c("MemoryPressure", "False"),
        c("DiskPressure", "False"),
        c("PIDPressure", "False"),
        c("NetworkUnavailable", "False"),
    ]);
    api.update_status(&registry::NODES, node)
        .unwrap_or_else(|e| panic!("{e}"));
}

fn renew_lease(api: &Api, name: &str, at: DateTime<Utc>) {
    let renew = at.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string();
    let mut lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": name, "namespace": NODE_LEASES},
        "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": renew}});
    let options = WriteOptions::default();
    let written = match api.store().get(&registry::LEASES, NODE_LEASES, name) {
        None => api.create(&registry::LEASES, NODE_LEASES, lease, &options),
        Some(old) => {
            lease["metadata"] = old.value["metadata"].clone();
            api.update(&registry::LEASES, NODE_LEASES, name, lease, None, &options)
        }
    };
    written.unwrap_or_else(|e| panic!("{e}"));
}

/// A running, ready pod bound to `node`.
fn ready_pod(api: &Api, name: &str, node: &str) {
    let created = api
        .create(
            &registry::PODS,
            "default",
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                   "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]}}),
            &WriteOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let mut pod = created.value.clone();
    let stamp = meta::now();
    pod["status"] = json!({"phase": "Running", "conditions": [
        {"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": stamp}]});
    api.update_status(&registry::PODS, pod)
        .unwrap_or_else(|e| panic!("{e}"));
}

fn condition_of(api: &Api, node: &str, type_: &str) -> Value {
    condition(&get(api, &registry::NODES, "", node), type_)
        .cloned()
        .unwrap_or(Value::Null)
}

/// The node's taints as `key:effect`, in order.
fn taint_keys(api: &Api, node: &str) -> Vec<String> {
    get(api, &registry::NODES, "", node)["spec"]["taints"]
        .as_array()
        .map(|ts| {
            ts.iter()
                .map(|t| {
                    format!(
                        "{}:{}",
                        t["key"].as_str().unwrap_or(""),
                        t["effect"].as_str().unwrap_or("")
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Events of `reason`, as (involved object, message), sorted.
fn events(api: &Api, reason: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = api
        .store()
        .list(&registry::EVENTS, None)
        .0
        .iter()
        .filter(|e| e.value["reason"] == reason)
        .map(|e| {
            let text = |p: &str| {
                e.value
                    .pointer(p)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            (text("/involvedObject/name"), text("/message"))
        })
        .collect();
    found.sort();
    found
}

/// One pass at `at`, every write of it done; when it asks to look again.
fn pass(
    controller: &mut NodeLifecycle,
    api: &Api,
    at: DateTime<Utc>,
) -> Option<std::time::Duration> {
    let pass = controller.reconcile_at(api, at);
    assert!(!pass.failed(), "a write failed at {at}");
    pass.wake_after()
}

#[test]
fn cordon_adds_the_unschedulable_taint_and_uncordon_removes_it() {
    let node = json!({"spec": {"unschedulable": true, "taints": [{"key": "gpu", "value": "x", "effect": "NoSchedule"}]},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
    let t = taints::no_schedule_pass(&node, "now").expect("tainted");
    assert_eq!(t.len(), 2);
    assert_eq!(
        t[1],
        json!({"key": UNSCHEDULABLE, "effect": "NoSchedule", "timeAdded": "now"})
    );
    let uncordoned = json!({"spec": {"taints": t}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
    assert_eq!(
        taints::no_schedule_pass(&uncordoned, "later"),
        Some(vec![
            json!({"key": "gpu", "value": "x", "effect": "NoSchedule"})
        ])
    );
}

#[test]
fn pressure_conditions_bring_their_no_schedule_taints() {
    let node = json!({"status": {"conditions": [
        {"type": "Ready", "status": "True"}, {"type": "MemoryPressure", "status": "True"},
        {"type": "DiskPressure", "status": "False"}, {"type": "PIDPressure", "status": "True"},
        {"type": "NetworkUnavailable", "status": "True"}]}});
    let keys: Vec<Value> = taints::no_schedule_pass(&node, "now")
        .expect("tainted")
        .iter()
        .map(|t| t["key"].clone())
        .collect();
    assert_eq!(
        keys,
        [
            "node.kubernetes.io/memory-pressure",
            "node.kubernetes.io/network-unavailable",
            "node.kubernetes.io/pid-pressure"
        ]
    );
}

#[test]
fn the_beta_os_and_arch_labels_follow_the_stable_ones() {
    let node = json!({"metadata": {"labels": {"kubernetes.io/os": "linux", "kubernetes.io/arch": "arm64",
        "beta.kubernetes.io/arch": "amd64"}}});
    assert_eq!(
        labels_to_update(&node),
        vec![
            ("beta.kubernetes.io/os", "linux".to_string()),
            ("beta.kubernetes.io/arch", "arm64".to_string())
        ]
    );
    let bare = json!({"metadata": {"labels": {"gpu": "true"}}});
    assert!(
        labels_to_update(&bare).is_empty(),
        "no primary label, nothing to add"
    );
}

#[test]
fn a_ready_node_loses_the_admission_not_ready_taint() {
    let node = json!({"spec": {"taints": [{"key": NOT_READY, "effect": "NoSchedule"}]},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
    assert_eq!(taints::no_schedule_pass(&node, "now"), Some(vec![]));
    let not_ready = json!({"status": {"conditions": [{"type": "Ready", "status": "False"}]}});
    let t = taints::no_schedule_pass(&not_ready, "now").expect("tainted");
    assert_eq!(
        (t[0]["key"].as_str(), t[0]["effect"].as_str()),
        (Some(NOT_READY), Some("NoSchedule"))
    );
}

/// The events of `monitorNodeHealth`, as the node lifecycle controller test reads them
/// (`TestMonitorNodeHealthMarkPodsNotReady…`: reason RegisteredNode, from node-controller).
#[test]
fn nodes_coming_and_going_are_recorded_as_events() {
    let api = bare_api();
    let t0 = node(&api, "a", Some("True"), "");
    let a = get(&api, &registry::NODES, "", "a");
    let mut controller = NodeLifecycle::default();
    pass(&mut controller, &api, t0);
    node(&api, "b", Some("True"), "");
    api.delete(&registry::NODES, "", "a", &DeleteOptions::default())
        .expect("gone");
    pass(&mut controller, &api, t0);
    pass(&mut controller, &api, t0);

    let mut seen = events(&api, "RegisteredNode");
    seen.extend(events(&api, "RemovingNode"));
    assert_eq!(
        seen,
        [
            (
                "a".into(),
                "Node a event: Registered Node a in Controller".into()
            ),
            (
                "b".into(),
                "Node b event: Registered Node b in Controller".into()
            ),
            (
                "a".into(),
                "Node a event: Removing Node a from Controller".into()
            ),
        ]
    );
    let registered = api
        .store()
        .list(&registry::EVENTS, Some("default"))
        .0
        .into_iter()
        .map(|e| e.value.clone())
        .find(|e| e["reason"] == "RegisteredNode" && e["involvedObject"]["name"] == "a")
        .expect("a registered");
    assert_eq!(
        registered["source"],
        json!({"component": "node-controller"})
    );
    assert_eq!(registered["involvedObject"]["uid"], a["metadata"]["uid"]);
    assert_eq!(registered["involvedObject"]["kind"], "Node");
    assert!(registered["involvedObject"]
        .get("resourceVersion")
        .is_none());
}

/// `TestMonitorNodeHealthUpdateStatus`: a node whose kubelet stops renewing its lease is Unknown
/// once the 50 s grace period is over, its pods are marked not ready, and it gets the
/// unreachable taints (another node of its zone is still Ready).
#[test]
fn a_node_whose_lease_is_not_renewed_goes_unknown_after_fifty_seconds() {
    let api = bare_api();
    let t0 = node(&api, "silent", Some("True"), "");
    node(&api, "alive", Some("True"), "");
    renew_lease(&api, "silent", t0);
    renew_lease(&api, "alive", t0);
    ready_pod(&api, "web", "silent");
    let mut controller = NodeLifecycle::default();
    let first = pass(&mut controller, &api, t0);
    assert!(first.is_some_and(|w| w <= std::time::Duration::from_secs(51)));

    // Renewed at 30 s: the grace period runs from when the renewal was seen.
    renew_lease(&api, "silent", t0 + TimeDelta::seconds(30));
    for at in [30, 60, 80] {
        renew_lease(&api, "alive", t0 + TimeDelta::seconds(at));
        pass(&mut controller, &api, t0 + TimeDelta::seconds(at));
    }
    assert_eq!(condition_of(&api, "silent", "Ready")["status"], "True");

    pass(&mut controller, &api, t0 + TimeDelta::seconds(81));
    for type_ in ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"] {
        let c = condition_of(&api, "silent", type_);
        assert_eq!(c["status"], "Unknown", "{type_}");
        assert_eq!(c["reason"], "NodeStatusUnknown");
        assert_eq!(c["message"], "Kubelet stopped posting node status.");
    }
    assert_eq!(
        condition_of(&api, "silent", "NetworkUnavailable")["status"],
        "False",
        "the control plane's condition is left alone"
    );
    assert_eq!(condition_of(&api, "alive", "Ready")["status"], "True");
    let web = get(&api, &registry::PODS, "default", "web");
    assert_eq!(condition(&web, "Ready").expect("ready")["status"], "False");
    assert_eq!(
        events(&api, "NodeNotReady"),
        [
            (
                "silent".into(),
                "Node silent status is now: NodeNotReady".into()
            ),
            ("web".into(), "Node is not ready".into()),
        ]
    );

    pass(&mut controller, &api, t0 + TimeDelta::seconds(82));
    assert_eq!(
        taint_keys(&api, "silent"),
        [
            "node.kubernetes.io/unreachable:NoSchedule",
            "node.kubernetes.io/unreachable:NoExecute"
        ]
    );
    assert!(taint_keys(&api, "alive").is_empty());
}

/// `TestMonitorNodeHealthUpdateStatus`' never-posted case: the startup grace period (60 s) runs
/// from the node's creation, and every kubelet condition is added as never updated.
#[test]
fn a_node_that_never_posted_status_is_unknown_after_the_startup_grace_period() {
    let api = bare_api();
    let t0 = node(&api, "new", None, "");
    let mut controller = NodeLifecycle::default();
    pass(&mut controller, &api, t0 + TimeDelta::seconds(59));
    assert_eq!(condition_of(&api, "new", "Ready"), Value::Null);

    pass(&mut controller, &api, t0 + TimeDelta::seconds(61));
    let created = get(&api, &registry::NODES, "", "new")["metadata"]["creationTimestamp"].clone();
    for type_ in ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"] {
        let c = condition_of(&api, "new", type_);
        assert_eq!(c["status"], "Unknown", "{type_}");
        assert_eq!(c["reason"], "NodeStatusNeverUpdated");
        assert_eq!(c["message"], "Kubelet never posted node status.");
        assert_eq!(c["lastHeartbeatTime"], created);
    }
    assert!(
        events(&api, "NodeNotReady").is_empty(),
        "it never was Ready"
    );
}

/// `handleDisruption`: with no Ready node left the controller assumes it is cut off itself and
/// puts no NoExecute taint on, though the NoSchedule one follows the condition.
#[test]
fn a_cluster_with_no_ready_node_gets_no_no_execute_taint() {
    let api = bare_api();
    let t0 = node(&api, "only", Some("True"), "");
    let mut controller = NodeLifecycle::default();
    pass(&mut controller, &api, t0);
    set_ready(&api, "only", "False");
    for at in [1, 2, 20] {
        pass(&mut controller, &api, t0 + TimeDelta::seconds(at));
    }
    assert_eq!(
        taint_keys(&api, "only"),
        ["node.kubernetes.io/not-ready:NoSchedule"]
    );

    // A second, Ready node ends the disruption; the zone's limiter starts drained, as
    // `SwapLimiter` leaves it when the old one had no token, so the taint comes ten seconds on.
    node(&api, "other", Some("True"), "");
    for at in [21, 22] {
        pass(&mut controller, &api, t0 + TimeDelta::seconds(at));
    }
    assert_eq!(
        taint_keys(&api, "only"),
        ["node.kubernetes.io/not-ready:NoSchedule"]
    );
    pass(&mut controller, &api, t0 + TimeDelta::seconds(32));
    assert_eq!(
        taint_keys(&api, "only"),
        [
            "node.kubernetes.io/not-ready:NoSchedule",
            "node.kubernetes.io/not-ready:NoExecute"
        ]
    );
}

/// The zone's limiter: one node tainted, the next ten seconds later (`--node-eviction-rate`).
#[test]
fn unhealthy_nodes_of_a_zone_are_tainted_ten_seconds_apart() {
    let api = bare_api();
    let t0 = node(&api, "a", Some("True"), "z");
    for name in ["b", "c", "d"] {
        node(&api, name, Some("True"), "z");
    }
    let mut controller = NodeLifecycle::default();
    pass(&mut controller, &api, t0);
    set_ready(&api, "a", "False");
    set_ready(&api, "b", "False");
    let tainted = |api: &Api| {
        ["a", "b"]
            .iter()
            .filter(|n| {
                taint_keys(api, n).contains(&"node.kubernetes.io/not-ready:NoExecute".to_string())
            })
            .count()
    };
    let next = pass(&mut controller, &api, t0 + TimeDelta::seconds(1));
    assert_eq!(tainted(&api), 1);
    assert!(next.is_some_and(|w| w <= std::time::Duration::from_secs(11)));
    pass(&mut controller, &api, t0 + TimeDelta::seconds(9));
    assert_eq!(tainted(&api), 1);
    pass(&mut controller, &api, t0 + TimeDelta::seconds(11));
    assert_eq!(tainted(&api), 2);

    // Ready again: both NoExecute taints go at once.
    set_ready(&api, "a", "True");
    pass(&mut controller, &api, t0 + TimeDelta::seconds(12));
    assert!(taint_keys(&api, "a").is_empty());
}

/// `ReducedQPSFunc`: three of five nodes unready is a partial disruption, and a small cluster
/// stops tainting; other zones go on.
#[test]
fn a_partly_disrupted_zone_of_a_small_cluster_is_not_tainted() {
    let api = bare_api();
    let t0 = node(&api, "a", Some("True"), "z");
    for name in ["b", "c", "d", "e"] {
        node(&api, name, Some("True"), "z");
    }
    node(&api, "x", Some("True"), "other");
    node(&api, "y", Some("True"), "other");
    let mut controller = NodeLifecycle::default();
    pass(&mut controller, &api, t0);
    for name in ["a", "b", "c", "x"] {
        set_ready(&api, name, "False");
    }
    for at in [1, 12, 23, 34] {
        pass(&mut controller, &api, t0 + TimeDelta::seconds(at));
    }
    for name in ["a", "b", "c"] {
        assert_eq!(
            taint_keys(&api, name),
            ["node.kubernetes.io/not-ready:NoSchedule"],
            "{name}"
        );
    }
    assert_eq!(
        taint_keys(&api, "x"),
        [
            "node.kubernetes.io/not-ready:NoSchedule",
            "node.kubernetes.io/not-ready:NoExecute"
        ]
    );
}
