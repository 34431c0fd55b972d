//! End-to-end checks of `patch::apply` on served kinds, with the bodies kubectl and kwok send.

use serde_json::{json, Value};

use crate::patch::{apply, unsupported_patch_type, PatchType};
use crate::registry::{
    CONFIGMAPS, CONTROLLERREVISIONS, DAEMONSETS, DEPLOYMENTS, NODES, PODS, SERVICEACCOUNTS,
};

fn smp(res: &'static crate::resource::ResourceDef, original: &Value, patch: Value) -> Value {
    apply(
        res.strategy.merge_schema(),
        original,
        PatchType::Strategic,
        patch.to_string().as_bytes(),
    )
    .expect("patch applies")
}

#[test]
fn content_types() {
    assert_eq!(
        PatchType::from_content_type("application/strategic-merge-patch+json"),
        Some(PatchType::Strategic)
    );
    assert_eq!(
        PatchType::from_content_type("application/merge-patch+json; charset=utf-8"),
        Some(PatchType::Merge)
    );
    assert_eq!(
        PatchType::from_content_type("application/json-patch+json"),
        Some(PatchType::Json)
    );
    assert_eq!(
        PatchType::from_content_type("application/apply-patch+yaml"),
        Some(PatchType::Apply)
    );
    assert_eq!(PatchType::from_content_type("application/json"), None);
    // The server cuts at ';' without trimming, so a space before it is part of the type.
    assert_eq!(
        PatchType::from_content_type("application/merge-patch+json ;x=y"),
        None
    );
    let e = unsupported_patch_type(true);
    assert_eq!((e.code, e.reason.as_str()), (415, "UnsupportedMediaType"));
    assert_eq!(
        e.message,
        "the body of the request was in an unknown format - accepted media types include: \
         application/json-patch+json, application/merge-patch+json, \
         application/strategic-merge-patch+json, application/apply-patch+yaml"
    );
}

#[test]
fn kubectl_label_and_annotate() {
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "d", "labels": {"a": "1", "b": "2"}, "resourceVersion": "7"},
        "data": {"k": "v"}});
    for pt in [PatchType::Merge, PatchType::Strategic] {
        let out = apply(
            CONFIGMAPS.strategy.merge_schema(),
            &cm,
            pt,
            br#"{"metadata":{"labels":{"a":null,"c":"3"},"annotations":{"note":"x"}}}"#,
        )
        .unwrap();
        assert_eq!(out["metadata"]["labels"], json!({"b": "2", "c": "3"}));
        assert_eq!(out["metadata"]["annotations"], json!({"note": "x"}));
        assert_eq!(out["metadata"]["resourceVersion"], "7");
        assert_eq!(out["data"], json!({"k": "v"}));
    }
}

#[test]
fn kubectl_cordon_and_uncordon() {
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "w1"},
        "spec": {"podCIDR": "10.0.1.0/24", "taints": [{"key": "a", "effect": "NoSchedule"}]}});
    let cordoned = smp(&NODES, &node, json!({"spec": {"unschedulable": true}}));
    assert_eq!(cordoned["spec"]["unschedulable"], true);
    assert_eq!(cordoned["spec"]["podCIDR"], "10.0.1.0/24");
    let uncordoned = smp(&NODES, &cordoned, json!({"spec": {"unschedulable": null}}));
    assert_eq!(uncordoned["spec"], node["spec"]);
    // Taints carry no patch strategy: a patch replaces the whole list.
    let tainted = smp(
        &NODES,
        &node,
        json!({"spec": {"taints": [{"key": "b", "effect": "NoExecute"}]}}),
    );
    assert_eq!(
        tainted["spec"]["taints"],
        json!([{"key": "b", "effect": "NoExecute"}])
    );
}

#[test]
fn kwok_status_patch_merges_conditions_by_type() {
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d"},
    "spec": {"nodeName": "w1", "containers": [{"name": "c", "image": "i"}]},
    "status": {"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-01-01T00:00:00Z"}
    ]}});
    let out = smp(
        &PODS,
        &pod,
        json!({"status": {
            "phase": "Running",
            "podIP": "10.0.1.5",
            "conditions": [
                {"type": "Initialized", "status": "True"},
                {"type": "Ready", "status": "True"},
                {"type": "ContainersReady", "status": "True"}
            ],
            "containerStatuses": [{"name": "c", "ready": true, "restartCount": 0, "image": "i", "imageID": "", "state": {"running": {}}}]
        }}),
    );
    assert_eq!(out["status"]["phase"], "Running");
    let types: Vec<&str> = out["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    // Patch items first in patch order, then the server-only PodScheduled: the order a real
    // cluster shows after the kubelet's status patch.
    assert_eq!(
        types,
        ["Initialized", "Ready", "ContainersReady", "PodScheduled"]
    );
    assert_eq!(
        out["status"]["conditions"][3]["lastTransitionTime"],
        "2024-01-01T00:00:00Z"
    );
    // Updating one condition keeps the others where they are.
    let again = smp(
        &PODS,
        &out,
        json!({"status": {"conditions": [{"type": "Ready", "status": "False", "reason": "x"}]}}),
    );
    assert_eq!(
        again["status"]["conditions"][1],
        json!({"type": "Ready", "status": "False", "reason": "x"})
    );
    assert_eq!(again["status"]["conditions"].as_array().unwrap().len(), 4);
}

/// The live DaemonSet as the server stores it (with defaults the manifest does not have).
fn live_daemonset() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "drv", "namespace": "gpu", "uid": "u1", "generation": 1,
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{old}", "deprecated.daemonset.template.generation": "1"}},
        "spec": {"selector": {"matchLabels": {"app": "drv"}}, "revisionHistoryLimit": 10,
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
            "template": {"metadata": {"labels": {"app": "drv"}}, "spec": {
                "nodeSelector": {"gpu": "true", "zone": "a"},
                "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "containers": [{"name": "drv", "image": "drv:1",
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    "volumeMounts": [{"name": "dev", "mountPath": "/dev"}],
                    "terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent", "resources": {}}],
                "volumes": [{"name": "dev", "hostPath": {"path": "/dev", "type": ""}}],
                "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler"}}},
        "status": {"currentNumberScheduled": 2, "desiredNumberScheduled": 2, "numberMisscheduled": 0, "numberReady": 2}})
}

#[test]
fn kubectl_apply_daemonset() {
    // What `kubectl apply` sends after the manifest changed the image, dropped env A, changed B,
    // added C, dropped the zone selector, replaced the tolerations and added a second mount.
    let patch = json!({
        "metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{new}"}},
        "spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "drv"}],
            "containers": [{
                "$setElementOrder/env": [{"name": "B"}, {"name": "C"}],
                "$setElementOrder/volumeMounts": [{"mountPath": "/dev"}, {"mountPath": "/lib/modules"}],
                "env": [{"name": "B", "value": "3"}, {"name": "C", "value": "4"}, {"$patch": "delete", "name": "A"}],
                "image": "drv:2",
                "name": "drv",
                "volumeMounts": [{"mountPath": "/lib/modules", "name": "mods", "readOnly": true}]
            }],
            "$setElementOrder/volumes": [{"name": "dev"}, {"name": "mods"}],
            "volumes": [{"hostPath": {"path": "/lib/modules"}, "name": "mods"}],
            "nodeSelector": {"zone": null},
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]
        }}}
    });
    let out = smp(&DAEMONSETS, &live_daemonset(), patch);
    let spec = &out["spec"]["template"]["spec"];
    let c = &spec["containers"][0];
    assert_eq!(c["image"], "drv:2");
    assert_eq!(
        c["env"],
        json!([{"name": "B", "value": "3"}, {"name": "C", "value": "4"}])
    );
    assert_eq!(
        c["volumeMounts"],
        json!([{"name": "dev", "mountPath": "/dev"}, {"mountPath": "/lib/modules", "name": "mods", "readOnly": true}])
    );
    // Server-side defaults the manifest never mentioned stay.
    assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
    assert_eq!(spec["dnsPolicy"], "ClusterFirst");
    assert_eq!(spec["nodeSelector"], json!({"gpu": "true"}));
    assert_eq!(
        spec["tolerations"],
        json!([{"key": "nvidia.com/gpu", "operator": "Exists"}])
    );
    assert_eq!(
        spec["volumes"],
        json!([{"name": "dev", "hostPath": {"path": "/dev", "type": ""}}, {"hostPath": {"path": "/lib/modules"}, "name": "mods"}])
    );
    assert_eq!(
        out["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"],
        "{new}"
    );
    assert_eq!(
        out["metadata"]["annotations"]["deprecated.daemonset.template.generation"],
        "1"
    );
    assert_eq!(out["status"], live_daemonset()["status"]);
    // No directive survives.
    assert!(!out.to_string().contains('$'));
}

#[test]
fn kubectl_apply_deployment_with_retain_keys() {
    let live = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "d"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                "containers": [
                    {"name": "web", "image": "nginx:1", "ports": [{"containerPort": 80, "protocol": "TCP"}]},
                    {"name": "side", "image": "busybox"}
                ],
                "volumes": [{"name": "data", "emptyDir": {}}]}}}});
    // The manifest switched to Recreate, moved the port to 8080, dropped the sidecar, turned the
    // volume into a hostPath and scaled to 3.
    let patch = json!({"spec": {
        "replicas": 3,
        "strategy": {"$retainKeys": ["type"], "rollingUpdate": null, "type": "Recreate"},
        "template": {"spec": {
            "$setElementOrder/containers": [{"name": "web"}],
            "containers": [
                {"$setElementOrder/ports": [{"containerPort": 8080}], "name": "web",
                 "ports": [{"containerPort": 8080}, {"$patch": "delete", "containerPort": 80}]},
                {"$patch": "delete", "name": "side"}
            ],
            "$setElementOrder/volumes": [{"name": "data"}],
            "volumes": [{"$retainKeys": ["hostPath", "name"], "hostPath": {"path": "/srv"}, "name": "data"}]
        }}
    }});
    let out = smp(&DEPLOYMENTS, &live, patch);
    assert_eq!(out["spec"]["replicas"], 3);
    assert_eq!(out["spec"]["strategy"], json!({"type": "Recreate"}));
    let spec = &out["spec"]["template"]["spec"];
    assert_eq!(
        spec["containers"],
        json!([{"name": "web", "image": "nginx:1", "ports": [{"containerPort": 8080}]}])
    );
    assert_eq!(
        spec["volumes"],
        json!([{"name": "data", "hostPath": {"path": "/srv"}}])
    );
}

#[test]
fn metadata_lists_merge() {
    let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount",
        "metadata": {"name": "s", "namespace": "d", "finalizers": ["a", "b"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "1"}]},
        "secrets": [{"name": "t1"}]});
    let out = smp(
        &SERVICEACCOUNTS,
        &sa,
        json!({"metadata": {"finalizers": ["c"], "$deleteFromPrimitiveList/finalizers": ["a"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "y", "uid": "2"}]},
          "secrets": [{"name": "t2"}]}),
    );
    // Items only the patch has come first (`mergeSortedSlice` cannot place them in the live
    // order), then the live ones.
    assert_eq!(out["metadata"]["finalizers"], json!(["c", "b"]));
    let uids: Vec<&Value> = out["metadata"]["ownerReferences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["uid"])
        .collect();
    assert_eq!(uids, [&json!("2"), &json!("1")]);
    assert_eq!(out["secrets"], json!([{"name": "t2"}, {"name": "t1"}]));
}

#[test]
fn strategic_errors_are_the_servers() {
    let pod =
        json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}});
    let run = |body: &[u8]| {
        apply(
            PODS.strategy.merge_schema(),
            &pod,
            PatchType::Strategic,
            body,
        )
        .unwrap_err()
    };

    let e = run(b"{\"spec\": ");
    assert_eq!((e.code, e.reason.as_str()), (400, "BadRequest"));
    assert_eq!(e.message, "unexpected end of JSON input");

    let e = run(b"spec: {}");
    assert_eq!(
        e.message,
        "invalid character 's' looking for beginning of value"
    );

    let e = run(b"[]");
    assert_eq!(
        e.message,
        "json: cannot unmarshal array into Go value of type map[string]interface {}"
    );

    let e = run(br#"{"spec":{"containers":[{"image":"j"}]}}"#);
    assert_eq!((e.code, e.reason.as_str()), (500, ""));
    assert_eq!(
        e.message,
        "map: map[image:j] does not contain declared merge key: name"
    );

    let e = run(br#"{"spec":{"$retainKeys":["x"],"nodeName":"n"}}"#);
    assert_eq!(
        (e.code, e.message.as_str()),
        (400, "invalid patch format of retainKeys")
    );

    let e = run(br#"{"spec":{"$setElementOrder/containers":[{"name":"x"}],"containers":[{"name":"c","image":"k"}]}}"#);
    assert_eq!(e.code, 500);
    assert_eq!(
        e.message,
        "The order in patch list:\n[map[image:k name:c]]\n doesn't match $setElementOrder list:\n[map[name:x]]\n"
    );

    // `null` is an empty patch.
    assert_eq!(
        apply(
            PODS.strategy.merge_schema(),
            &pod,
            PatchType::Strategic,
            b"null"
        )
        .unwrap(),
        pod
    );
}

#[test]
fn raw_extension_fields_cannot_be_merged() {
    let rev = json!({"metadata": {"name": "r"}, "data": {"spec": {"template": {}}}, "revision": 1});
    let e = apply(
        CONTROLLERREVISIONS.strategy.merge_schema(),
        &rev,
        PatchType::Strategic,
        br#"{"data":{"spec":{"x":1}}}"#,
    )
    .unwrap_err();
    assert_eq!(e.code, 500);
    assert_eq!(
        e.message,
        "unable to find api field in struct RawExtension for the json field \"spec\""
    );
    // A key the stored data lacks is simply taken.
    let out = smp(&CONTROLLERREVISIONS, &rev, json!({"data": {"other": 1}}));
    assert_eq!(out["data"]["other"], 1);
}

#[test]
fn json_and_merge_patch_errors_are_the_servers() {
    let cm = json!({"metadata": {"name": "c"}, "data": {"k": "v"}});
    let e = apply(
        CONFIGMAPS.strategy.merge_schema(),
        &cm,
        PatchType::Json,
        br#"[{"op":"test","path":"/data/k","value":"w"}]"#,
    )
    .unwrap_err();
    assert_eq!((e.code, e.reason.as_str()), (422, "Invalid"));
    assert_eq!(
        e.message,
        "the server rejected our request due to an error in our request"
    );
    assert_eq!(e.details, Some(json!({})));

    let e = apply(
        CONFIGMAPS.strategy.merge_schema(),
        &cm,
        PatchType::Json,
        b"{}",
    )
    .unwrap_err();
    assert_eq!((e.code, e.reason.as_str()), (400, "BadRequest"));
    assert_eq!(
        e.message,
        "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp"
    );

    let e = apply(
        CONFIGMAPS.strategy.merge_schema(),
        &cm,
        PatchType::Merge,
        b"null",
    )
    .unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (400, "Invalid JSON Patch"));

    let e = apply(
        CONFIGMAPS.strategy.merge_schema(),
        &cm,
        PatchType::Merge,
        b"{",
    )
    .unwrap_err();
    assert_eq!(
        e.message,
        "error decoding patch: unexpected end of JSON input"
    );

    let out = apply(
        CONFIGMAPS.strategy.merge_schema(),
        &cm,
        PatchType::Json,
        br#"[{"op":"add","path":"/data/n","value":"1"}]"#,
    )
    .unwrap();
    assert_eq!(out["data"], json!({"k": "v", "n": "1"}));
}
