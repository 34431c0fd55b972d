//! Validation messages as the 1.32 apiserver returns them (docs/kubernetes-behaviors.md 5.1 and the upstream
//! validation sources).

use serde_json::{json, Value};

use crate::error::{ApiError, FieldError};
use crate::registry::{
    CONFIGMAPS, DAEMONSETS, DEPLOYMENTS, LEASES, NAMESPACES, NODES, PODDISRUPTIONBUDGETS, PODS,
    REPLICASETS, REPLICATIONCONTROLLERS, STATEFULSETS,
};
use crate::validation::*;

use crate::resource::ResourceDef;

fn defaulted(res: &'static ResourceDef, mut obj: Value) -> Value {
    crate::kinds::default(res, &mut obj);
    obj
}

fn validate_create(res: &ResourceDef, obj: &Value) -> Vec<FieldError> {
    res.strategy.validate(obj)
}

fn validate_update(res: &ResourceDef, new: &Value, old: &Value) -> Vec<FieldError> {
    res.strategy.validate_update(new, old)
}

/// Each error as `field: body`, the way messages quote it (shared by the validators' tests).
pub(super) use crate::validation::messages;

fn daemon_set(selector: Value, template_labels: Value) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "x", "namespace": "gpu-drv"},
        "spec": {
            "selector": selector,
            "template": {"metadata": {"labels": template_labels},
                         "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        }
    })
}

#[test]
fn daemonset_selector_must_match_template() {
    let ds = defaulted(
        &DAEMONSETS,
        daemon_set(json!({"matchLabels": {"app": "x"}}), json!({"app": "y"})),
    );
    let errs = validate_create(&DAEMONSETS, &ds);
    let e = ApiError::invalid(&DAEMONSETS, "x", &errs);
    assert_eq!(e.code, 422);
    assert_eq!(
        e.message,
        "DaemonSet.apps \"x\" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"y\"}: `selector` does not match template `labels`"
    );
    let ok = defaulted(
        &DAEMONSETS,
        daemon_set(
            json!({"matchLabels": {"app": "x"}}),
            json!({"app": "x", "tier": "t"}),
        ),
    );
    assert!(
        validate_create(&DAEMONSETS, &ok).is_empty(),
        "{:?}",
        validate_create(&DAEMONSETS, &ok)
    );
}

#[test]
fn daemonset_empty_selector() {
    let ds = defaulted(&DAEMONSETS, daemon_set(json!({}), json!({"app": "x"})));
    assert_eq!(
        messages(validate_create(&DAEMONSETS, &ds)),
        vec!["spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset"]
    );
}

#[test]
fn bad_label_value() {
    let pod = defaulted(
        &PODS,
        json!({"metadata": {"name": "p", "namespace": "default", "labels": {"app": "bad value!"}},
               "spec": {"containers": [{"name": "c", "image": "nginx"}]}}),
    );
    assert_eq!(
        messages(validate_create(&PODS, &pod)),
        vec!["metadata.labels: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]
    );
}

#[test]
fn pdb_min_and_max_both_set() {
    let pdb = json!({"metadata": {"name": "p", "namespace": "default"},
                     "spec": {"minAvailable": 1, "maxUnavailable": 1, "selector": {"matchLabels": {"app": "a"}}}});
    let errs = validate_create(&PODDISRUPTIONBUDGETS, &pdb);
    let e = ApiError::invalid(&PODDISRUPTIONBUDGETS, "p", &errs);
    let prefix = "PodDisruptionBudget.policy \"p\" is invalid: spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc";
    let suffix = "UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable cannot be both set";
    assert!(e.message.starts_with(prefix), "{}", e.message);
    assert!(e.message.ends_with(suffix), "{}", e.message);
    assert!(
        e.message.contains("Selector:(*v1.LabelSelector)(0xc"),
        "{}",
        e.message
    );

    let bad = json!({"metadata": {"name": "p", "namespace": "default"}, "spec": {"maxUnavailable": "150%"}});
    assert_eq!(
        messages(validate_create(&PODDISRUPTIONBUDGETS, &bad)),
        vec!["spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"150%\"}: must not be greater than 100%"]
    );
    let bad = json!({"metadata": {"name": "p", "namespace": "default"}, "spec": {"minAvailable": "half"}});
    assert_eq!(
        messages(validate_create(&PODDISRUPTIONBUDGETS, &bad)),
        vec!["spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"half\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"]
    );
}

fn deployment(selector: Value, restart: &str) -> Value {
    json!({"metadata": {"name": "d", "namespace": "default"},
           "spec": {"selector": selector,
                    "template": {"metadata": {"labels": {"app": "a"}},
                                 "spec": {"restartPolicy": restart, "containers": [{"name": "c", "image": "nginx"}]}}}})
}

#[test]
fn deployment_template_must_restart_always() {
    let d = defaulted(
        &DEPLOYMENTS,
        deployment(json!({"matchLabels": {"app": "a"}}), "OnFailure"),
    );
    assert_eq!(
        messages(validate_create(&DEPLOYMENTS, &d)),
        vec!["spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\""]
    );
}

#[test]
fn deployment_without_selector_and_negative_replicas() {
    let mut d = defaulted(&DEPLOYMENTS, deployment(Value::Null, "Always"));
    d["spec"]["replicas"] = json!(-1);
    d["spec"].as_object_mut().unwrap().remove("selector");
    assert_eq!(
        messages(validate_create(&DEPLOYMENTS, &d)),
        vec![
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            "spec.selector: Required value",
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"a\"}: `selector` does not match template `labels`",
        ]
    );
    let rs = defaulted(&REPLICASETS, deployment(json!({}), "Always"));
    assert_eq!(
        messages(validate_create(&REPLICASETS, &rs)),
        vec!["spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"]
    );
}

#[test]
fn selector_is_immutable() {
    let mut old = defaulted(
        &DEPLOYMENTS,
        deployment(json!({"matchLabels": {"app": "a"}}), "Always"),
    );
    old["metadata"]["resourceVersion"] = json!("5");
    let mut new = old.clone();
    new["spec"]["selector"] = json!({"matchLabels": {"app": "b"}});
    new["spec"]["template"]["metadata"]["labels"] = json!({"app": "b"});
    assert_eq!(
        messages(validate_update(&DEPLOYMENTS, &new, &old)),
        vec!["spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"b\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"]
    );
}

#[test]
fn pod_spec_rules() {
    let pod = defaulted(
        &PODS,
        json!({"metadata": {"name": "Web", "namespace": "default"},
               "spec": {"containers": [{"name": "c"}, {"name": "c", "image": "x", "ports": [{"containerPort": 70000}]}],
                        "tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}}),
    );
    let msgs = messages(validate_create(&PODS, &pod));
    assert_eq!(
        msgs[0],
        "metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    );
    assert!(
        msgs.contains(&"spec.containers[0].image: Required value".to_string()),
        "{msgs:?}"
    );
    assert!(msgs.contains(&"spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive".to_string()), "{msgs:?}");
    assert!(
        msgs.contains(&"spec.containers[1].name: Duplicate value: \"c\"".to_string()),
        "{msgs:?}"
    );
    assert!(
        msgs.contains(&"spec.tolerations[0].operator: Invalid value: core.Toleration{Key:\"k\", Operator:\"Exists\", Value:\"v\", Effect:\"\", TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is 'Exists'".to_string()),
        "{msgs:?}"
    );

    let empty = defaulted(
        &PODS,
        json!({"metadata": {"name": "p", "namespace": "default"}, "spec": {}}),
    );
    assert_eq!(
        messages(validate_create(&PODS, &empty)),
        vec!["spec.containers: Required value"]
    );
}

#[test]
fn pod_updates_are_restricted() {
    let mut old = defaulted(
        &PODS,
        json!({"metadata": {"name": "p", "namespace": "default", "resourceVersion": "3"},
               "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}),
    );
    old["spec"]["nodeName"] = json!("node-a");
    let mut image_only = old.clone();
    image_only["spec"]["containers"][0]["image"] = json!("nginx:2");
    assert!(validate_update(&PODS, &image_only, &old).is_empty());

    let mut moved = old.clone();
    moved["spec"]["nodeName"] = json!("node-b");
    let errs = validate_update(&PODS, &moved, &old);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].field, "spec");
    assert!(
        errs[0].to_string().starts_with("spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"),
        "{}",
        errs[0]
    );
}

/// `ValidatePodEphemeralContainersUpdate` as kube-apiserver v1.32.13 answered `kubectl debug`
/// and patches of `pods/ephemeralcontainers` (differential session `debug`).
#[test]
fn ephemeral_containers_are_added_never_changed_or_removed() {
    let old = defaulted(
        &PODS,
        json!({"metadata": {"name": "app", "namespace": "default", "resourceVersion": "3"},
               "spec": {"initContainers": [{"name": "init", "image": "busybox"}],
                        "containers": [{"name": "main", "image": "busybox"}],
                        "ephemeralContainers": [{"name": "dbg", "image": "busybox"}]}}),
    );
    let update = |ephemeral: Value| {
        let mut new = old.clone();
        new["spec"]["ephemeralContainers"] = ephemeral;
        let new = defaulted(&PODS, new);
        messages(
            PODS.strategy
                .validate_ephemeral_containers_update(&new, &old),
        )
    };
    let dbg = old["spec"]["ephemeralContainers"][0].clone();
    assert_eq!(
        update(json!([dbg, {"name": "more", "image": "busybox", "targetContainerName": "main"}])),
        Vec::<String>::new()
    );
    assert_eq!(
        update(json!([dbg, {"name": "main", "image": "busybox"},
                      {"name": "t", "image": "busybox", "targetContainerName": "dbg"}])),
        [
            "spec.ephemeralContainers[1].name: Duplicate value: \"main\"",
            "spec.ephemeralContainers[2].targetContainerName: Not found: \"dbg\"",
        ]
    );
    assert_eq!(
        update(json!([dbg, {"name": "w", "image": "busybox", "ports": [{"containerPort": 80}],
                            "resources": {"limits": {"cpu": "1"}},
                            "readinessProbe": {"exec": {"command": ["true"]}},
                            "lifecycle": {"preStop": {"exec": {"command": ["true"]}}}}])),
        [
            "spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container",
            "spec.ephemeralContainers[1].resources: Forbidden: cannot be set for an Ephemeral Container",
            "spec.ephemeralContainers[1].readinessProbe: Forbidden: cannot be set for an Ephemeral Container",
            "spec.ephemeralContainers[1].lifecycle: Forbidden: cannot be set for an Ephemeral Container",
        ]
    );
    // Sent empty, a list or a pointer is still set; `resources` as defaulted (`{}`) is not.
    assert_eq!(
        update(json!([dbg, {"name": "e", "image": "busybox", "ports": [], "lifecycle": {},
                            "resources": {}}])),
        [
            "spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container",
            "spec.ephemeralContainers[1].lifecycle: Forbidden: cannot be set for an Ephemeral Container",
        ]
    );
    assert_eq!(
        update(json!([])),
        ["spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be removed\n"]
    );
    let mut changed = dbg.clone();
    changed["image"] = json!("alpine");
    let errs = update(json!([changed]));
    assert!(
        errs.len() == 1
            && errs[0].starts_with(
                "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be changed\n"
            ),
        "{errs:?}"
    );
}

#[test]
fn namespaces_nodes_configmaps_leases() {
    let ns = defaulted(&NAMESPACES, json!({"metadata": {"name": "My_NS"}}));
    let msgs = messages(validate_create(&NAMESPACES, &ns));
    assert_eq!(
        msgs[0],
        "metadata.name: Invalid value: \"My_NS\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
    );

    let node = json!({"metadata": {"name": "n1"}, "spec": {"taints": [{"key": "gpu", "effect": "NoScheduleX"}]}});
    assert_eq!(
        messages(validate_create(&NODES, &node)),
        vec!["metadata.taints[0].effect: Unsupported value: \"NoScheduleX\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""]
    );

    let cm = json!({"metadata": {"name": "c", "namespace": "default"}, "data": {"a b": "x"}});
    assert_eq!(
        messages(validate_create(&CONFIGMAPS, &cm)),
        vec!["data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]
    );

    let lease = json!({"metadata": {"name": "l", "namespace": "kube-node-lease"}, "spec": {"leaseDurationSeconds": 0}});
    assert_eq!(
        messages(validate_create(&LEASES, &lease)),
        vec!["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"]
    );
}

#[test]
fn invalid_renders_causes_for_kubectl() {
    let ds = defaulted(
        &DAEMONSETS,
        daemon_set(json!({"matchLabels": {"app": "x"}}), json!({"app": "y"})),
    );
    let e = ApiError::invalid(&DAEMONSETS, "x", &validate_create(&DAEMONSETS, &ds));
    assert_eq!(
        e.details.unwrap()["causes"],
        json!([{"reason": "FieldValueInvalid", "field": "spec.template.metadata.labels",
                "message": "Invalid value: map[string]string{\"app\":\"y\"}: `selector` does not match template `labels`"}])
    );
}

#[test]
fn delete_options_rules() {
    let errs = validate_delete_options(&json!({"propagationPolicy": "Cascade"}));
    let e = ApiError::invalid_kind(
        "DeleteOptions.meta.k8s.io",
        "DeleteOptions",
        "meta.k8s.io",
        "",
        &errs,
    );
    assert_eq!(
        e.message,
        "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Cascade\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
    );
    assert!(validate_delete_options(
        &json!({"propagationPolicy": "Background", "dryRun": ["All"]})
    )
    .is_empty());
}

/// `ValidatePodTemplateSpecFor{StatefulSet,DaemonSet,ReplicaSet}` (apps validation.go) and
/// `ValidatePodTemplateSpecForRC` (core): a controller's pods restart always and have no deadline.
#[test]
fn controllers_pods_restart_always_and_have_no_deadline() {
    let template = json!({
        "metadata": {"labels": {"app": "a"}},
        "spec": {"restartPolicy": "OnFailure", "activeDeadlineSeconds": 5,
                 "containers": [{"name": "c", "image": "busybox"}]}
    });
    let by_labels = json!({"matchLabels": {"app": "a"}});
    for (res, api_version, selector) in [
        (&STATEFULSETS, "apps/v1", by_labels.clone()),
        (&DAEMONSETS, "apps/v1", by_labels.clone()),
        (&REPLICASETS, "apps/v1", by_labels),
        (&REPLICATIONCONTROLLERS, "v1", json!({"app": "a"})),
    ] {
        let kind = res.kind;
        let obj = defaulted(
            res,
            json!({"apiVersion": api_version, "kind": kind,
                "metadata": {"name": "x", "namespace": "d"},
                "spec": {"selector": selector, "serviceName": "s", "template": template}}),
        );
        let got = messages(validate_create(res, &obj));
        for want in [
            "spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\"".to_string(),
            format!("spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in {kind} is not Supported"),
        ] {
            assert!(got.contains(&want), "{kind}: {want} not in {got:#?}");
        }
    }
    let empty = defaulted(
        &STATEFULSETS,
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "x", "namespace": "d"},
            "spec": {"selector": {}, "serviceName": "s", "template": {
                "metadata": {"labels": {"app": "a"}},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}),
    );
    assert_eq!(
        messages(validate_create(&STATEFULSETS, &empty)),
        vec!["spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset"]
    );
}
