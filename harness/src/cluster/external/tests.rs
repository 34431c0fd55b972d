use serde_json::{json, Value};

use super::compare::{comparable, keeping_binding, sanitized};
use super::objects::{
    automatic, custom_resource_of, custom_resources, text, ObjectKey, ObjectSet, CRDS,
};
use super::placement::{placement, pods_of, relaxed, restricted_nodes, surplus, Fit};
use super::plan::{plan, recreate_order, Plan, PutBack};
use super::writes::api_path;
use super::*;

#[test]
fn sanitized_drops_server_fields() {
    let pod = json!({"kind": "Pod", "metadata": {"name": "p", "uid": "u", "resourceVersion": "7", "managedFields": []}, "spec": {}, "status": {"phase": "Running"}});
    let clean = sanitized("pods", &pod);
    assert_eq!(
        clean,
        json!({"kind": "Pod", "metadata": {"name": "p"}, "spec": {}})
    );
    let node = json!({"kind": "Node", "metadata": {"name": "n", "uid": "u"}, "status": {"conditions": []}});
    assert!(sanitized("nodes", &node).get("status").is_some());
}

#[test]
fn a_job_is_put_back_without_its_generated_selector() {
    let job = json!({"kind": "Job", "metadata": {"name": "j", "uid": "u1"},
        "spec": {"selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u1"}},
            "template": {"metadata": {"labels": {"app": "a", "controller-uid": "u1",
                "batch.kubernetes.io/controller-uid": "u1", "job-name": "j"}}}}});
    let clean = sanitized("jobs.batch", &job);
    let mut again = job.clone();
    again["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"] = json!("u2");
    assert_eq!(comparable(&job), comparable(&again));
    assert!(clean["spec"].get("selector").is_none());
    assert_eq!(
        clean["spec"]["template"]["metadata"]["labels"],
        json!({"app": "a", "job-name": "j"})
    );
    let mut manual = job.clone();
    manual["spec"]["manualSelector"] = json!(true);
    assert!(sanitized("jobs.batch", &manual)["spec"]
        .get("selector")
        .is_some());
}

#[test]
fn a_patched_node_capacity_is_a_change() {
    let before =
        json!({"metadata": {"name": "n"}, "status": {"capacity": {"nvidia.com/gpu": "1"}}});
    let after = json!({"metadata": {"name": "n"}, "status": {"capacity": {"nvidia.com/gpu": "4"}}});
    assert_ne!(comparable(&before), comparable(&after));
}

#[test]
fn label_changes_are_changes() {
    let a = json!({"metadata": {"labels": {"a": "1"}, "resourceVersion": "1"}, "spec": {"x": 1}, "status": {"p": 1}});
    let b = json!({"metadata": {"labels": {"a": "1"}, "resourceVersion": "9"}, "spec": {"x": 1}, "status": {"p": 2}});
    let c = json!({"metadata": {"labels": {"a": "2"}}, "spec": {"x": 1}});
    assert_eq!(comparable(&a), comparable(&b));
    assert_ne!(comparable(&a), comparable(&c));
}

fn object(kind: &str, namespace: &str, name: &str, uid: &str) -> Value {
    let mut metadata = json!({"name": name, "uid": uid});
    if !namespace.is_empty() {
        metadata["namespace"] = json!(namespace);
    }
    json!({"kind": kind, "metadata": metadata, "spec": {}})
}

fn set(objects: &[(&str, Value)]) -> ObjectSet {
    let mut set = ObjectSet::default();
    for (resource, object) in objects {
        let key = (
            resource.to_string(),
            text(object, "/metadata/namespace").to_string(),
            text(object, "/metadata/name").to_string(),
        );
        set.objects.insert(key, object.clone());
    }
    set
}

fn key(resource: &str, namespace: &str, name: &str) -> ObjectKey {
    (resource.into(), namespace.into(), name.into())
}

fn crd(plural: &str, group: &str, kind: &str) -> Value {
    let mut crd = object(
        "CustomResourceDefinition",
        "",
        &format!("{plural}.{group}"),
        "d1",
    );
    crd["spec"] = json!({"group": group, "names": {"plural": plural, "kind": kind}});
    crd["status"] = json!({"conditions": [{"type": "Established", "status": "True"}]});
    crd
}

fn custom(group: &str, kind: &str, namespace: &str, name: &str, spec: Value) -> Value {
    let mut object = object(kind, namespace, name, name);
    object["apiVersion"] = json!(format!("{group}/v1"));
    object["spec"] = spec;
    object
}

/// A lab whose starter ships a CRD: its custom resources are state like any object, made
/// again after their CRD and before pods; a CRD that appeared takes its objects with it.
#[test]
fn custom_resources_come_back_after_their_crd() {
    let monitors = "servicemonitors.monitoring.coreos.com";
    let monitor = |name: &str, port: &str| {
        custom(
            "monitoring.coreos.com",
            "ServiceMonitor",
            "lab",
            name,
            json!({"port": port}),
        )
    };
    let target = set(&[
        ("namespaces", object("Namespace", "", "lab", "n1")),
        (
            CRDS,
            crd("servicemonitors", "monitoring.coreos.com", "ServiceMonitor"),
        ),
        (monitors, monitor("dcgm", "metrics")),
        (monitors, monitor("gone", "metrics")),
        ("pods", object("Pod", "lab", "p", "p1")),
    ]);
    assert_eq!(custom_resources(&target), vec![monitors.to_string()]);
    assert_eq!(
        custom_resource_of(&target, &monitor("x", "y")).as_deref(),
        Some(monitors)
    );
    let order = recreate_order(&[&target]);
    let at = |resource: &str| order.iter().position(|r| r == resource);
    assert!(at("namespaces") < at(CRDS) && at(CRDS) < at(monitors));
    assert!(at("horizontalpodautoscalers.autoscaling") < at(monitors));
    assert!(at(monitors) < at("pods"));

    // Without its CRD: all of it comes back, the CRD first.
    let bare = set(&[
        ("namespaces", object("Namespace", "", "lab", "n1")),
        ("pods", object("Pod", "lab", "p", "p1")),
    ]);
    assert_eq!(
        plan(&target, &bare).put_back,
        vec![
            (key(CRDS, "", monitors), PutBack::Create),
            (key(monitors, "lab", "dcgm"), PutBack::Create),
            (key(monitors, "lab", "gone"), PutBack::Create),
        ]
    );

    // One changed, one deleted, one added, and another CRD with an object of its own.
    let alerts = "alerts.example.com";
    let changed = set(&[
        ("namespaces", object("Namespace", "", "lab", "n1")),
        (
            CRDS,
            crd("servicemonitors", "monitoring.coreos.com", "ServiceMonitor"),
        ),
        (CRDS, crd("alerts", "example.com", "Alert")),
        (monitors, monitor("dcgm", "web")),
        (monitors, monitor("new", "metrics")),
        (
            alerts,
            custom("example.com", "Alert", "lab", "a", json!({})),
        ),
        ("pods", object("Pod", "lab", "p", "p1")),
    ]);
    let plan = plan(&target, &changed);
    assert_eq!(
        plan.delete,
        vec![
            (key(CRDS, "", alerts), false),
            (key(monitors, "lab", "new"), false)
        ],
        "the alert goes with its CRD"
    );
    assert_eq!(
        plan.wait,
        vec![key(CRDS, "", alerts), key(monitors, "lab", "new")]
    );
    assert_eq!(
        plan.put_back,
        vec![
            (key(monitors, "lab", "dcgm"), PutBack::Replace),
            (key(monitors, "lab", "gone"), PutBack::Create),
        ]
    );
}

#[test]
fn a_vanished_namespace_comes_back_before_what_lives_in_it() {
    let target = set(&[
        ("configmaps", object("ConfigMap", "legacy", "old", "c1")),
        ("namespaces", object("Namespace", "", "legacy", "n1")),
        ("secrets", object("Secret", "legacy", "token", "s1")),
    ]);
    let plan = plan(&target, &ObjectSet::default());
    assert_eq!(
        plan.put_back,
        vec![
            (key("namespaces", "", "legacy"), PutBack::Create),
            (key("configmaps", "legacy", "old"), PutBack::Create),
            (key("secrets", "legacy", "token"), PutBack::Create),
        ]
    );
    assert!(plan.delete.is_empty() && plan.wait.is_empty());
}

#[test]
fn a_terminating_namespace_is_waited_for_and_made_again() {
    let target = set(&[
        ("namespaces", object("Namespace", "", "legacy", "n1")),
        ("configmaps", object("ConfigMap", "legacy", "old", "c1")),
    ]);
    let mut going = object("Namespace", "", "legacy", "n1");
    going["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
    let current = set(&[
        ("namespaces", going),
        ("configmaps", object("ConfigMap", "legacy", "old", "c1")),
    ]);
    let plan = plan(&target, &current);
    assert!(plan.delete.is_empty(), "{plan:?}");
    // The namespace is gone only once its content is.
    assert_eq!(plan.wait, vec![key("namespaces", "", "legacy")]);
    assert_eq!(
        plan.put_back,
        vec![
            (key("namespaces", "", "legacy"), PutBack::Create),
            (key("configmaps", "legacy", "old"), PutBack::Create),
        ]
    );
}

/// After a restore made them again, the namespace and its content have new uids: they are the
/// target's objects all the same, and the next restore leaves them alone.
#[test]
fn objects_made_again_under_new_uids_stay() {
    let target = set(&[
        ("namespaces", object("Namespace", "", "legacy", "n1")),
        ("configmaps", object("ConfigMap", "legacy", "old", "c1")),
    ]);
    let current = set(&[
        ("namespaces", object("Namespace", "", "legacy", "n2")),
        ("configmaps", object("ConfigMap", "legacy", "old", "c2")),
    ]);
    assert_eq!(plan(&target, &current), Plan::default());
}

/// Pods made again by their controllers have other names; what counts is how many of each
/// owner are bound, and which run on the nodes that take no new pods.
#[test]
fn placement_counts_pods_by_owner_node_and_phase() {
    let pod = |name: &str, node: &str, phase: &str| {
        let mut pod = object("Pod", "lab", name, name);
        pod["metadata"]["ownerReferences"] =
            json!([{"kind": "ReplicaSet", "name": "web-1", "controller": true}]);
        pod["spec"] = json!({"nodeName": node});
        pod["status"] = json!({"phase": phase});
        pod
    };
    let before = [
        pod("web-1-a", "n1", "Running"),
        pod("web-1-b", "n2", "Running"),
    ];
    let mut leaving = pod("web-1-c", "n1", "Running");
    leaving["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
    let remade = [
        pod("web-1-x", "n2", "Running"),
        pod("web-1-y", "n1", "Running"),
        leaving,
    ];
    let pinned = BTreeSet::from(["n1".to_string()]);
    let placed = |pods: &[Value]| placement(pods.iter(), &pinned);
    assert_eq!(placed(&before), placed(&remade));
    // Off the pinned nodes, any node will do; a pod not bound is not placed.
    let moved = [
        pod("web-1-x", "n3", "Running"),
        pod("web-1-y", "n1", "Running"),
    ];
    assert_eq!(placed(&before), placed(&moved));
    let off_pinned = [
        pod("web-1-x", "n2", "Running"),
        pod("web-1-y", "n3", "Running"),
    ];
    assert_ne!(placed(&before), placed(&off_pinned));
    let pending = [
        pod("web-1-x", "n1", "Running"),
        pod("web-1-y", "", "Pending"),
    ];
    assert_ne!(placed(&before), placed(&pending));
}

/// gpudrv step 6: a refused drain leaves lab-node-1 cordoned with its trainer still on it.
/// Made again from nothing, the trainer could never go back there while the node is cordoned.
#[test]
fn a_cordoned_node_is_relaxed_until_its_pods_are_back() {
    let mut cordoned = object("Node", "", "n1", "u1");
    cordoned["spec"] = json!({"unschedulable": true, "taints": [
        {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"},
        {"key": "soft", "effect": "PreferNoSchedule"}]});
    let mut trainer = object("Pod", "lab", "trainer-a", "p1");
    trainer["metadata"]["ownerReferences"] =
        json!([{"kind": "ReplicaSet", "name": "trainer-1", "controller": true}]);
    trainer["spec"] = json!({"nodeName": "n1"});
    trainer["status"] = json!({"phase": "Running"});
    let target = set(&[("nodes", cordoned.clone()), ("pods", trainer.clone())]);

    let bare = set(&[("nodes", object("Node", "", "n1", "u1"))]);
    let plan_from_bare = plan(&target, &bare);
    assert_eq!(plan_from_bare.relax, vec![key("nodes", "", "n1")]);
    assert_eq!(
        plan_from_bare.put_back,
        vec![(key("nodes", "", "n1"), PutBack::Replace)]
    );
    assert_eq!(
        relaxed(&cordoned)["spec"],
        json!({"taints": [{"key": "soft", "effect": "PreferNoSchedule"}]})
    );

    // The pod is already where it was: nothing to relax.
    let mut remade = trainer;
    remade["metadata"]["name"] = json!("trainer-b");
    let same = set(&[("nodes", cordoned), ("pods", remade)]);
    assert_eq!(plan(&target, &same), Plan::default());
}

/// A cordoned node with one trainer on it and a second trainer Pending (the cordon keeps it
/// off): while the node is relaxed both land there; closed again, the one made last goes,
/// and its replacement waits Pending as in the snapshot.
#[test]
fn a_relaxed_node_gives_back_the_pods_the_snapshot_has_pending() {
    let mut cordoned = object("Node", "", "n1", "u1");
    cordoned["spec"] = json!({"unschedulable": true});
    let trainer = |name: &str, node: &str, phase: &str, created: &str| {
        let mut pod = object("Pod", "lab", name, name);
        pod["metadata"]["ownerReferences"] =
            json!([{"kind": "ReplicaSet", "name": "trainer-1", "controller": true}]);
        pod["metadata"]["creationTimestamp"] = json!(created);
        pod["spec"] = json!({"nodeName": node});
        pod["status"] = json!({"phase": phase});
        pod
    };
    let target = set(&[
        ("nodes", cordoned),
        (
            "pods",
            trainer("trainer-a", "n1", "Running", "2026-01-01T00:00:00Z"),
        ),
        (
            "pods",
            trainer("trainer-b", "", "Pending", "2026-01-01T00:00:01Z"),
        ),
    ]);
    let relaxed = BTreeSet::from(["n1"]);
    let both_on_n1 = [
        trainer("trainer-c", "n1", "Running", "2026-01-01T00:01:00Z"),
        trainer("trainer-d", "n1", "Running", "2026-01-01T00:01:01Z"),
    ];
    assert_eq!(
        surplus(&target, &both_on_n1, &relaxed),
        vec![key("pods", "lab", "trainer-d")]
    );
    // Not on a relaxed node, or as many as the snapshot has: nothing to give back.
    assert!(surplus(&target, &both_on_n1, &BTreeSet::new()).is_empty());
    assert!(surplus(&target, &both_on_n1[..1], &relaxed).is_empty());

    let pinned = restricted_nodes(&target);
    let want = placement(pods_of(&target), &pinned);
    let now = |pods: &[Value]| placement(pods.iter(), &pinned);
    // While relaxed, the wait is over once the node has its pod back, extra or not.
    assert!(Fit::PinnedTakenBack.holds(&want, &now(&both_on_n1)));
    assert!(!Fit::Exact.holds(&want, &now(&both_on_n1)));
    let pending = trainer("trainer-e", "", "Pending", "2026-01-01T00:01:02Z");
    assert!(!Fit::PinnedTakenBack.holds(&want, &now(std::slice::from_ref(&pending))));
    // Given back, the replacement waits Pending: placed as in the snapshot.
    let settled = [both_on_n1[0].clone(), pending];
    assert!(Fit::Exact.holds(&want, &now(&settled)));
}

#[test]
fn what_appeared_goes_and_what_changed_is_replaced() {
    let mut labelled = object("Node", "", "lab-node-1", "u1");
    labelled["metadata"]["labels"] = json!({"owner": "ops"});
    let target = set(&[
        ("nodes", labelled),
        ("namespaces", object("Namespace", "", "team", "t1")),
    ]);
    let mut relabelled = object("Node", "", "lab-node-1", "u1");
    relabelled["metadata"]["labels"] = json!({"owner": "lab"});
    let mut pod = object("Pod", "team", "api-1", "p1");
    pod["metadata"]["ownerReferences"] = json!([{"kind": "ReplicaSet", "name": "api"}]);
    let current = set(&[
        ("nodes", relabelled),
        ("nodes", object("Node", "", "spare-node-x2k4p", "u9")),
        ("namespaces", object("Namespace", "", "team", "t1")),
        ("namespaces", object("Namespace", "", "halt-lab", "h1")),
        (
            "configmaps",
            object("ConfigMap", "halt-lab", "settings", "c2"),
        ),
        ("secrets", object("Secret", "team", "token", "s2")),
        ("pods", pod),
    ]);
    let plan = plan(&target, &current);
    // The new namespace's content goes with it; owned pods are left to their controllers.
    assert_eq!(
        plan.delete,
        vec![
            (key("namespaces", "", "halt-lab"), false),
            (key("nodes", "", "spare-node-x2k4p"), true),
            (key("secrets", "team", "token"), false),
        ]
    );
    assert_eq!(
        plan.put_back,
        vec![(key("nodes", "", "lab-node-1"), PutBack::Replace)]
    );
}

#[test]
fn objects_are_sent_to_their_api_paths() {
    let mut deployment = object("Deployment", "lab", "web", "d1");
    deployment["apiVersion"] = json!("apps/v1");
    assert_eq!(
        api_path(&key("deployments.apps", "lab", "web"), &deployment, true),
        "/apis/apps/v1/namespaces/lab/deployments/web"
    );
    let mut node = object("Node", "", "lab-node-0", "n1");
    node["apiVersion"] = json!("v1");
    assert_eq!(
        api_path(&key("nodes", "", "lab-node-0"), &node, false),
        "/api/v1/nodes"
    );
    let monitor = custom(
        "monitoring.example.com",
        "ServiceMonitor",
        "lab",
        "m",
        json!({}),
    );
    assert_eq!(
        api_path(
            &key("servicemonitors.monitoring.example.com", "lab", "m"),
            &monitor,
            false
        ),
        "/apis/monitoring.example.com/v1/namespaces/lab/servicemonitors"
    );
}

fn volume(claim_uid: &str) -> Value {
    let mut pv = object("PersistentVolume", "", "pv-a", "v1");
    pv["metadata"]["annotations"] = json!({"pv.kubernetes.io/bound-by-controller": "yes"});
    pv["spec"] = json!({"capacity": {"storage": "1Gi"}, "storageClassName": "manual",
        "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "lab", "name": "data",
                     "uid": claim_uid, "resourceVersion": "7"}});
    pv
}

fn claim(uid: &str, bound_by_controller: bool) -> Value {
    let mut pvc = object("PersistentVolumeClaim", "lab", "data", uid);
    let mut annotations = json!({"pv.kubernetes.io/bind-completed": "yes"});
    if bound_by_controller {
        annotations["pv.kubernetes.io/bound-by-controller"] = json!("yes");
    }
    pvc["metadata"]["annotations"] = annotations;
    pvc["spec"] = json!({"storageClassName": "manual", "volumeName": "pv-a"});
    pvc
}

/// A claim bound again under a new uid (pre-bound by name after a restore, so without the
/// binder's `bound-by-controller`) is the claim of the snapshot: nothing to do.
#[test]
fn a_binding_made_again_under_new_uids_is_no_change() {
    let target = set(&[
        ("persistentvolumes", volume("c1")),
        ("persistentvolumeclaims", claim("c1", true)),
    ]);
    let current = set(&[
        ("persistentvolumes", volume("c2")),
        ("persistentvolumeclaims", claim("c2", false)),
    ]);
    assert_eq!(plan(&target, &current), Plan::default());
}

/// The learner deleted the claim: it comes back pre-bound to its volume (no binder marks),
/// and the volume, released with the old claim's uid, is put back before it without that uid.
#[test]
fn a_deleted_claim_comes_back_after_its_volume_pre_bound_by_name() {
    let target = set(&[
        ("persistentvolumes", volume("c1")),
        ("persistentvolumeclaims", claim("c1", true)),
    ]);
    let current = set(&[("persistentvolumes", volume("c1"))]);
    let plan = plan(&target, &current);
    assert_eq!(
        plan.put_back,
        vec![
            (key("persistentvolumes", "", "pv-a"), PutBack::Rebind),
            (
                key("persistentvolumeclaims", "lab", "data"),
                PutBack::Create
            ),
        ]
    );
    let body = sanitized("persistentvolumes", &volume("c1"));
    assert_eq!(
        body["spec"]["claimRef"],
        json!({"kind": "PersistentVolumeClaim", "namespace": "lab", "name": "data"})
    );
    let body = sanitized("persistentvolumeclaims", &claim("c1", true));
    assert_eq!(body["metadata"]["annotations"], json!({}));
    assert_eq!(body["spec"]["volumeName"], "pv-a");
}

/// The learner deleted the claim and applied it again: the volume still names the old
/// claim's uid, which the new claim never matches; it is put back pre-bound by name.
#[test]
fn a_volume_bound_to_an_older_claim_of_the_name_is_pre_bound_again() {
    let target = set(&[
        ("persistentvolumes", volume("c1")),
        ("persistentvolumeclaims", claim("c1", true)),
    ]);
    let mut pending = claim("c2", false);
    pending["metadata"]["annotations"] = json!({});
    let current = set(&[
        ("persistentvolumes", volume("c1")),
        ("persistentvolumeclaims", pending),
    ]);
    let plan = plan(&target, &current);
    assert_eq!(
        plan.put_back,
        vec![(key("persistentvolumes", "", "pv-a"), PutBack::Rebind)]
    );
    assert!(plan.delete.is_empty());
}

/// A claim applied again without the volume it had: made again, and deleted before its
/// volume is put back (which the volume controller would otherwise bind to it once more).
#[test]
fn a_claim_with_another_spec_goes_before_its_volume_is_put_back() {
    let target = set(&[
        ("persistentvolumes", volume("c1")),
        ("persistentvolumeclaims", claim("c1", true)),
    ]);
    let mut unbound = claim("c2", false);
    unbound["spec"] = json!({"storageClassName": "manual"});
    let current = set(&[
        ("persistentvolumes", volume("c2")),
        ("persistentvolumeclaims", unbound),
    ]);
    let plan = plan(&target, &current);
    let claim_key = key("persistentvolumeclaims", "lab", "data");
    assert_eq!(plan.delete, vec![(claim_key.clone(), false)]);
    assert_eq!(plan.wait, vec![claim_key.clone()]);
    assert_eq!(
        plan.put_back,
        vec![
            (key("persistentvolumes", "", "pv-a"), PutBack::Rebind),
            (claim_key, PutBack::Create),
        ]
    );
}

/// Only the claim's labels changed: replaced, not made again.
#[test]
fn a_relabelled_claim_is_replaced() {
    let target = set(&[("persistentvolumeclaims", claim("c1", true))]);
    let mut labelled = claim("c1", true);
    labelled["metadata"]["labels"] = json!({"tier": "fast"});
    let current = set(&[("persistentvolumeclaims", labelled)]);
    assert_eq!(
        plan(&target, &current).put_back,
        vec![(
            key("persistentvolumeclaims", "lab", "data"),
            PutBack::Replace
        )]
    );
}

/// A volume replaced while its claim stays keeps the claim's uid, or the bound claim would
/// count it lost.
#[test]
fn a_volume_replaced_under_a_staying_claim_keeps_its_uid() {
    let mut labelled = volume("c1");
    labelled["metadata"]["labels"] = json!({"tier": "fast"});
    let target = set(&[
        ("persistentvolumes", labelled.clone()),
        ("persistentvolumeclaims", claim("c2", true)),
    ]);
    let current = set(&[
        ("persistentvolumes", volume("c2")),
        ("persistentvolumeclaims", claim("c2", true)),
    ]);
    assert_eq!(
        plan(&target, &current).put_back,
        vec![(key("persistentvolumes", "", "pv-a"), PutBack::Replace)]
    );
    let body = keeping_binding(
        sanitized("persistentvolumes", &labelled),
        Some(&volume("c2")),
    );
    assert_eq!(body["spec"]["claimRef"]["uid"], "c2");
}

/// gpushare step 2: the learner's cuda-burst (requests and limits) holds both GPUs when the
/// reference's (limits only) is put back. Rolled, its surge pod would wait for a GPU forever.
#[test]
fn a_workload_with_another_template_is_made_again_not_rolled() {
    let deployment = |replicas: u32, requests: bool| {
        let mut resources = json!({"limits": {"nvidia.com/gpu": "1"}});
        if requests {
            resources["requests"] = json!({"nvidia.com/gpu": "1"});
        }
        let mut object = object("Deployment", "lab", "burst", "d1");
        object["spec"] = json!({"replicas": replicas, "template": {"spec": {
            "containers": [{"name": "cuda", "resources": resources}]}}});
        object
    };
    let namespace = ("namespaces", object("Namespace", "", "lab", "n1"));
    let target = set(&[
        namespace.clone(),
        ("deployments.apps", deployment(3, false)),
    ]);
    let learner = set(&[namespace.clone(), ("deployments.apps", deployment(3, true))]);
    assert_eq!(
        plan(&target, &learner).put_back,
        vec![(key("deployments.apps", "lab", "burst"), PutBack::Recreate)]
    );
    // Scaled only: scaled back.
    let scaled = set(&[namespace, ("deployments.apps", deployment(8, false))]);
    assert_eq!(
        plan(&target, &scaled).put_back,
        vec![(key("deployments.apps", "lab", "burst"), PutBack::Replace)]
    );
}

#[test]
fn a_changed_role_is_replaced_and_a_rebound_binding_made_again() {
    let role = |verbs: Value| {
        let mut role = object("ClusterRole", "", "auditor", "r1");
        role["rules"] = json!([{"apiGroups": [""], "resources": ["pods"], "verbs": verbs}]);
        role
    };
    let binding = |kind: &str| {
        let mut binding = object("ClusterRoleBinding", "", "auditor", "b1");
        binding["roleRef"] = json!({"kind": kind, "name": "auditor"});
        binding
    };
    const ROLES: &str = "clusterroles.rbac.authorization.k8s.io";
    const BINDINGS: &str = "clusterrolebindings.rbac.authorization.k8s.io";
    let target = set(&[
        (ROLES, role(json!(["get", "list"]))),
        (BINDINGS, binding("ClusterRole")),
    ]);
    let current = set(&[(ROLES, role(json!(["*"]))), (BINDINGS, binding("Role"))]);
    assert_eq!(
        plan(&target, &current).put_back,
        vec![
            (key(ROLES, "", "auditor"), PutBack::Replace),
            (key(BINDINGS, "", "auditor"), PutBack::Recreate),
        ]
    );
}

#[test]
fn the_control_planes_own_objects_are_not_state() {
    let mut view = object("ClusterRole", "", "view", "u");
    view["metadata"]["labels"] = json!({"kubernetes.io/bootstrapping": "rbac-defaults"});
    assert!(automatic("clusterroles.rbac.authorization.k8s.io", &view));
    assert!(automatic(
        "clusterrolebindings.rbac.authorization.k8s.io",
        &object(
            "ClusterRoleBinding",
            "",
            "system:controller:job-controller",
            "u"
        )
    ));
    assert!(!automatic(
        "clusterroles.rbac.authorization.k8s.io",
        &object("ClusterRole", "", "gpu-auditor", "u")
    ));
    assert!(automatic(
        "priorityclasses.scheduling.k8s.io",
        &object("PriorityClass", "", "system-node-critical", "u")
    ));
    let token = json!({"kind": "Secret", "type": "kubernetes.io/service-account-token",
        "metadata": {"name": "robot-token-x2k4p", "annotations": {"kubernetes.io/service-account.uid": "u"}}});
    assert!(automatic("secrets", &token));
    assert!(automatic(
        "serviceaccounts",
        &object("ServiceAccount", "team", "default", "u")
    ));
    assert!(!automatic(
        "serviceaccounts",
        &object("ServiceAccount", "team", "robot", "u")
    ));
    assert!(!automatic(
        "secrets",
        &object("Secret", "default", "token", "u")
    ));
}
