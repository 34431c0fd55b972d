//! The admission plugins through the API, as a 1.32 apiserver answers a client's pod create.

use serde_json::{json, Value};

use crate::api::{Api, WriteOptions};
use crate::registry::{PODS, PRIORITYCLASSES, SERVICEACCOUNTS};

fn api() -> Api {
    Api::bootstrapped()
}

fn create(api: &Api, pod: Value) -> Result<Value, crate::ApiError> {
    api.create(&PODS, "default", pod, &WriteOptions::default())
        .map(|stored| stored.value.clone())
}

fn pod(spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec})
}

fn account(api: &Api, body: Value) {
    api.create(&SERVICEACCOUNTS, "default", body, &WriteOptions::default())
        .expect("service account");
}

#[test]
fn a_pod_runs_as_default_and_mounts_a_projected_token_in_every_container() {
    let api = api();
    let created = create(
        &api,
        pod(json!({
            "initContainers": [{"name": "init", "image": "busybox"}],
            "containers": [
                {"name": "app", "image": "nginx", "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
                // A mount at the token path keeps the container out.
                {"name": "own", "image": "nginx", "volumeMounts": [{"name": "data", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]},
            ],
            "volumes": [{"name": "data", "emptyDir": {}}],
        })),
    )
    .expect("created");
    let spec = &created["spec"];
    assert_eq!(spec["serviceAccountName"], "default");
    assert_eq!(spec["serviceAccount"], "default");
    // The controller's work, done on the way: the account now exists.
    assert!(api
        .store()
        .get(&SERVICEACCOUNTS, "default", "default")
        .is_some());

    let volumes = spec["volumes"].as_array().expect("volumes");
    assert_eq!(volumes.len(), 2);
    let name = volumes[1]["name"].as_str().expect("name");
    let suffix = name.strip_prefix("kube-api-access-").expect("prefix");
    assert_eq!(suffix.len(), 5, "{name}");
    assert_eq!(
        volumes[1]["projected"],
        json!({
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
            ],
            "defaultMode": 420,
        })
    );
    let mount = json!({"name": name, "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"});
    assert_eq!(spec["initContainers"][0]["volumeMounts"], json!([mount]));
    assert_eq!(
        spec["containers"][0]["volumeMounts"],
        json!([{"name": "data", "mountPath": "/data"}, mount])
    );
    assert_eq!(
        spec["containers"][1]["volumeMounts"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}

#[test]
fn the_pod_then_the_account_decide_whether_a_token_is_mounted() {
    let api = api();
    account(
        &api,
        json!({"metadata": {"name": "quiet"}, "automountServiceAccountToken": false,
               "imagePullSecrets": [{"name": "registry"}]}),
    );
    let containers = json!([{"name": "c", "image": "nginx"}]);
    let cases = [
        (json!({"serviceAccountName": "quiet"}), false),
        (
            json!({"serviceAccountName": "quiet", "automountServiceAccountToken": true}),
            true,
        ),
        (json!({"automountServiceAccountToken": false}), false),
        (json!({}), true),
    ];
    for (i, (fields, mounted)) in cases.into_iter().enumerate() {
        let mut spec = fields.clone();
        spec["containers"] = containers.clone();
        let mut body = pod(spec);
        body["metadata"]["name"] = json!(format!("p{i}"));
        let created = create(&api, body).expect("created");
        assert_eq!(
            created["spec"]["volumes"].is_array(),
            mounted,
            "{fields}: {}",
            created["spec"]
        );
        assert_eq!(
            created["spec"]["containers"][0]["volumeMounts"].is_array(),
            mounted
        );
        // The account's pull secrets, for pods that have none.
        let pulls = &created["spec"]["imagePullSecrets"];
        if fields["serviceAccountName"] == "quiet" {
            assert_eq!(pulls, &json!([{"name": "registry"}]));
        } else {
            assert!(pulls.is_null(), "{pulls}");
        }
    }
}

#[test]
fn a_pod_naming_a_missing_account_is_forbidden() {
    let api = api();
    let spec = json!({"serviceAccountName": "robot", "containers": [{"name": "c", "image": "i"}]});
    let error = create(&api, pod(spec.clone())).expect_err("forbidden");
    assert_eq!(error.code, 403);
    assert_eq!(
        error.message,
        "pods \"p\" is forbidden: error looking up service account default/robot: serviceaccount \"robot\" not found"
    );
    // Admission runs before a generated name is chosen.
    let mut generated = pod(spec);
    generated["metadata"] = json!({"generateName": "job-"});
    let error = create(&api, generated).expect_err("forbidden");
    assert!(
        error.message.starts_with("pods \"job-\" is forbidden: "),
        "{}",
        error.message
    );
}

#[test]
fn priority_comes_from_the_class_and_may_not_be_given() {
    let api = api();
    let containers = json!([{"name": "c", "image": "i"}]);
    let created = create(
        &api,
        pod(json!({"priorityClassName": "system-node-critical", "containers": containers})),
    )
    .expect("created");
    assert_eq!(created["spec"]["priority"], json!(2_000_001_000));
    assert_eq!(created["spec"]["preemptionPolicy"], "PreemptLowerPriority");

    let error = create(
        &api,
        pod(json!({"priorityClassName": "gold", "containers": containers})),
    )
    .expect_err("forbidden");
    assert_eq!(error.code, 403);
    assert_eq!(
        error.message,
        "pods \"p\" is forbidden: no PriorityClass with name gold was found"
    );
    let error =
        create(&api, pod(json!({"priority": 5, "containers": containers}))).expect_err("forbidden");
    assert_eq!(
        error.message,
        "pods \"p\" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name"
    );
}

fn priority_class(api: &Api, body: Value) -> Result<(), crate::ApiError> {
    api.create(&PRIORITYCLASSES, "", body, &WriteOptions::default())
        .map(|_| ())
}

#[test]
fn the_global_default_class_is_single_and_given_to_pods_without_one() {
    let api = api();
    let class = |name: &str, value: i64| {
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value, "globalDefault": true,
            "preemptionPolicy": "Never"})
    };
    priority_class(&api, class("gpu-default", 100)).expect("first default");
    let error = priority_class(&api, class("second-default", 50)).expect_err("second default");
    assert_eq!(
        error.message,
        "priorityclasses.scheduling.k8s.io \"second-default\" is forbidden: PriorityClass gpu-default is already marked as default. Only one default can exist"
    );
    let containers = json!([{"name": "c", "image": "i"}]);
    let created = create(&api, pod(json!({"containers": containers}))).expect("created");
    assert_eq!(
        (
            &created["spec"]["priorityClassName"],
            &created["spec"]["priority"],
            &created["spec"]["preemptionPolicy"]
        ),
        (&json!("gpu-default"), &json!(100), &json!("Never"))
    );
}

#[test]
fn pods_tolerate_not_ready_and_unreachable_nodes_for_five_minutes_unless_they_say_otherwise() {
    let api = api();
    let created = create(
        &api,
        pod(json!({"containers": [{"name": "c", "image": "i"}]})),
    )
    .expect("created");
    assert_eq!(
        created["spec"]["tolerations"],
        json!([
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
        ])
    );
    // An empty key and effect tolerate every taint: nothing is added.
    let mut body = pod(
        json!({"tolerations": [{"operator": "Exists"}], "containers": [{"name": "c", "image": "i"}]}),
    );
    body["metadata"]["name"] = json!("q");
    let created = create(&api, body).expect("created");
    assert_eq!(
        created["spec"]["tolerations"],
        json!([{"operator": "Exists"}])
    );
}

#[test]
fn an_update_keeps_the_admitted_priority_and_tolerations() {
    let api = api();
    let created = create(
        &api,
        pod(json!({"containers": [{"name": "c", "image": "i"}]})),
    )
    .expect("created");
    let mut replaced = created.clone();
    let spec = replaced["spec"].as_object_mut().expect("spec");
    spec.remove("priority");
    spec.remove("tolerations");
    replaced["metadata"]["labels"] = json!({"touched": "yes"});
    let updated = api
        .update(
            &PODS,
            "default",
            "p",
            replaced,
            None,
            &WriteOptions::default(),
        )
        .expect("updated");
    assert_eq!(updated.value["spec"]["priority"], json!(0));
    assert_eq!(
        updated.value["spec"]["tolerations"],
        created["spec"]["tolerations"]
    );
    assert_eq!(updated.value["metadata"]["labels"]["touched"], "yes");
}
