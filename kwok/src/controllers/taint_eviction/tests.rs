use super::*;
use crate::api::WriteOptions;
use crate::meta;

const NS: &str = "default";

/// Controllers off: each test drives the controller's passes itself, at the times it picks.
fn bare_api() -> Api {
    Api::bootstrapped()
}

fn node(api: &Api, name: &str, taints: Value) {
    api.create(
        &registry::NODES,
        "",
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
               "spec": {"taints": taints}}),
        &WriteOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

fn set_taints(api: &Api, name: &str, taints: Value) {
    let mut updated = api
        .store()
        .get(&registry::NODES, "", name)
        .expect("node")
        .value
        .clone();
    updated["spec"]["taints"] = taints;
    api.update(
        &registry::NODES,
        "",
        name,
        updated,
        None,
        &WriteOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

fn pod(api: &Api, name: &str, node: &str, tolerations: Value) {
    api.create(
        &registry::PODS,
        NS,
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
               "spec": {"nodeName": node, "tolerations": tolerations,
                        "containers": [{"name": "c", "image": "nginx"}]}}),
        &WriteOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// Whether the pod is being deleted (no kubelet here finishes a graceful delete).
fn deleting(api: &Api, name: &str) -> bool {
    api.store()
        .get(&registry::PODS, NS, name)
        .is_none_or(|pod| meta::is_deleting(&pod.value))
}

/// The controller's event messages, in order of their text (events written within the same
/// second have no order between them).
fn messages(api: &Api) -> Vec<String> {
    let mut found: Vec<String> = api
        .store()
        .list(&registry::EVENTS, Some(NS))
        .0
        .iter()
        .filter(|e| e.value["reason"] == "TaintManagerEviction")
        .map(|e| e.value["message"].as_str().unwrap_or("").to_string())
        .collect();
    found.sort();
    found
}

fn broken() -> Value {
    json!([{"key": "example.com/broken", "value": "yes", "effect": "NoExecute"}])
}

#[test]
fn an_untolerated_no_execute_taint_evicts_at_once_and_no_schedule_does_not() {
    let api = bare_api();
    node(&api, "n0", broken());
    node(
        &api,
        "n1",
        json!([{"key": "example.com/broken", "value": "yes", "effect": "NoSchedule"}]),
    );
    pod(&api, "on-broken", "n0", json!([]));
    pod(&api, "on-cordoned", "n1", json!([]));
    let mut controller = TaintEviction::default();
    let now = Utc::now();
    let pass = controller.reconcile_at(&api, now);
    assert!(!pass.failed());
    assert!(deleting(&api, "on-broken"));
    assert!(!deleting(&api, "on-cordoned"));
    let evicted = api
        .store()
        .get(&registry::PODS, NS, "on-broken")
        .expect("graceful delete keeps the pod");
    let condition = evicted.value["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "DisruptionTarget"))
        .cloned()
        .expect("DisruptionTarget");
    assert_eq!(condition["status"], "True");
    assert_eq!(condition["reason"], "DeletionByTaintManager");
    assert_eq!(
        condition["message"],
        "Taint manager: deleting due to NoExecute taint"
    );
    assert_eq!(
        messages(&api),
        ["Marking for deletion Pod default/on-broken"]
    );
    // Evicted once: the next pass does not delete it again.
    let _ = controller.reconcile_at(&api, now + TimeDelta::seconds(1));
    assert_eq!(messages(&api).len(), 1);
}

#[test]
fn toleration_seconds_delay_the_eviction_and_a_toleration_without_them_stops_it() {
    let api = bare_api();
    node(&api, "n0", broken());
    pod(
        &api,
        "for-a-minute",
        "n0",
        json!([{"key": "example.com/broken", "operator": "Exists", "effect": "NoExecute",
                "tolerationSeconds": 60}]),
    );
    pod(
        &api,
        "forever",
        "n0",
        json!([{"key": "example.com/broken", "operator": "Exists", "effect": "NoExecute"}]),
    );
    // The shortest tolerationSeconds of the tolerations used counts.
    pod(
        &api,
        "shortest",
        "n0",
        json!([{"key": "example.com/broken", "operator": "Equal", "value": "yes",
                "effect": "NoExecute", "tolerationSeconds": 10},
               {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}]),
    );
    let mut controller = TaintEviction::default();
    let start = Utc::now();
    let pass = controller.reconcile_at(&api, start);
    let wake = pass.wake_after().expect("a timer for the tolerated pods");
    assert!(wake >= std::time::Duration::from_secs(10), "{wake:?}");
    assert!(wake < std::time::Duration::from_secs(11), "{wake:?}");
    assert!(!deleting(&api, "for-a-minute") && !deleting(&api, "shortest"));

    let _ = controller.reconcile_at(&api, start + TimeDelta::seconds(11));
    assert!(deleting(&api, "shortest"));
    assert!(!deleting(&api, "for-a-minute"));
    let _ = controller.reconcile_at(&api, start + TimeDelta::seconds(61));
    assert!(deleting(&api, "for-a-minute"));
    assert!(!deleting(&api, "forever"));
    assert_eq!(
        messages(&api),
        [
            "Marking for deletion Pod default/for-a-minute",
            "Marking for deletion Pod default/shortest"
        ]
    );
}

#[test]
fn removing_the_taint_calls_the_eviction_off() {
    let api = bare_api();
    node(&api, "n0", broken());
    pod(
        &api,
        "spared",
        "n0",
        json!([{"key": "example.com/broken", "operator": "Exists", "effect": "NoExecute",
                "tolerationSeconds": 30}]),
    );
    let mut controller = TaintEviction::default();
    let start = Utc::now();
    let _ = controller.reconcile_at(&api, start);
    set_taints(&api, "n0", json!([]));
    let pass = controller.reconcile_at(&api, start + TimeDelta::seconds(5));
    assert_eq!(pass.wake_after(), None);
    let _ = controller.reconcile_at(&api, start + TimeDelta::seconds(31));
    assert!(!deleting(&api, "spared"));
    assert_eq!(
        messages(&api),
        ["Cancelling deletion of Pod default/spared"]
    );
}

#[test]
fn tolerations_are_matched_as_upstream_matches_them() {
    let taint = |key: &str, value: &str| Taint {
        key: key.into(),
        value: Some(value.into()),
        effect: EFFECT_NO_EXECUTE.into(),
        ..Default::default()
    };
    let toleration = |key: &str, seconds: Option<i64>| Toleration {
        key: Some(key.into()),
        operator: Some("Exists".into()),
        toleration_seconds: seconds,
        ..Default::default()
    };
    let taints = [taint("a", "1"), taint("b", "2")];
    let tolerations = [toleration("a", Some(30)), toleration("b", None)];
    let used = matching_tolerations(&taints, &tolerations).expect("all tolerated");
    assert_eq!(min_toleration_time(&used), Some(TimeDelta::seconds(30)));
    assert!(matching_tolerations(&taints, &tolerations[..1]).is_none());
    assert_eq!(
        min_toleration_time(&[&toleration("b", None)]),
        None,
        "tolerated forever"
    );
    assert_eq!(
        min_toleration_time(&[&toleration("a", Some(-5))]),
        Some(TimeDelta::zero())
    );
    assert_eq!(min_toleration_time(&[]), Some(TimeDelta::zero()));
}
