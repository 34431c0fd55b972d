//! Defaults as a 1.32 apiserver returns them for fresh objects.

use serde_json::json;

use crate::kinds::default as apply;
use crate::registry::{
    DAEMONSETS, DEPLOYMENTS, EVENTS, EVENTS_V1, NAMESPACES, NODES, PODDISRUPTIONBUDGETS, PODS,
    REPLICASETS, SECRETS,
};

#[test]
fn pod_gets_scheme_defaults() {
    let mut pod = json!({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}]}
    });
    apply(&PODS, &mut pod);
    assert_eq!(
        pod["spec"],
        json!({
            "containers": [{
                "name": "c", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "imagePullPolicy": "Always", "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File", "resources": {}
            }],
            "dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "securityContext": {},
            "terminationGracePeriodSeconds": 30, "schedulerName": "default-scheduler",
            "enableServiceLinks": true
        })
    );
}

#[test]
fn pod_defaults_are_idempotent_and_keep_given_values() {
    let mut pod = json!({"spec": {
        "restartPolicy": "Never", "serviceAccount": "builder",
        "tolerations": [{"operator": "Exists"}],
        "containers": [{"name": "c", "image": "nginx:1.25", "imagePullPolicy": "Never",
                        "resources": {"limits": {"nvidia.com/gpu": "1", "cpu": "1"}, "requests": {"cpu": "500m"}}}]
    }});
    apply(&PODS, &mut pod);
    let once = pod.clone();
    apply(&PODS, &mut pod);
    assert_eq!(pod, once);
    let spec = &pod["spec"];
    assert_eq!(spec["restartPolicy"], json!("Never"));
    assert_eq!(spec["serviceAccountName"], json!("builder"));
    assert_eq!(spec["serviceAccount"], json!("builder"));
    let c = &spec["containers"][0];
    assert_eq!(c["imagePullPolicy"], json!("Never"));
    assert_eq!(
        c["resources"]["requests"],
        json!({"cpu": "500m", "nvidia.com/gpu": "1"})
    );
}

#[test]
fn templates_get_pod_spec_defaults_but_no_admission() {
    let mut d = json!({"metadata": {"name": "d"}, "spec": {
        "selector": {"matchLabels": {"app": "a"}},
        "template": {"metadata": {"labels": {"app": "a"}},
                     "spec": {"containers": [{"name": "c", "image": "nginx:1.25",
                                              "resources": {"limits": {"cpu": "1"}}}]}}}});
    apply(&DEPLOYMENTS, &mut d);
    let spec = &d["spec"];
    assert_eq!(spec["replicas"], json!(1));
    assert_eq!(
        spec["strategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
    );
    assert_eq!(spec["revisionHistoryLimit"], json!(10));
    assert_eq!(spec["progressDeadlineSeconds"], json!(600));
    let t = &spec["template"];
    assert_eq!(
        t["metadata"],
        json!({"labels": {"app": "a"}, "creationTimestamp": null})
    );
    let ps = &t["spec"];
    assert_eq!(ps["restartPolicy"], json!("Always"));
    assert_eq!(ps["schedulerName"], json!("default-scheduler"));
    for pod_only in [
        "enableServiceLinks",
        "priority",
        "preemptionPolicy",
        "serviceAccountName",
        "tolerations",
    ] {
        assert!(
            ps.get(pod_only).is_none(),
            "{pod_only} must not be defaulted in templates"
        );
    }
    assert_eq!(
        ps["containers"][0]["imagePullPolicy"],
        json!("IfNotPresent")
    );
    // Requests default to limits only in pods.
    assert!(ps["containers"][0]["resources"].get("requests").is_none());
}

#[test]
fn daemonset_and_replicaset_defaults() {
    let mut ds =
        json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    apply(&DAEMONSETS, &mut ds);
    assert_eq!(
        ds["spec"]["updateStrategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}})
    );
    assert_eq!(ds["spec"]["revisionHistoryLimit"], json!(10));

    let mut ondelete = json!({"spec": {"updateStrategy": {"type": "OnDelete"}}});
    apply(&DAEMONSETS, &mut ondelete);
    assert_eq!(
        ondelete["spec"]["updateStrategy"],
        json!({"type": "OnDelete"})
    );

    let mut rs = json!({"spec": {}});
    apply(&REPLICASETS, &mut rs);
    assert_eq!(rs["spec"]["replicas"], json!(1));
}

#[test]
fn namespace_node_secret_and_pdb() {
    let mut ns = json!({"metadata": {"name": "gpu-drv"}});
    apply(&NAMESPACES, &mut ns);
    assert_eq!(
        ns["metadata"]["labels"],
        json!({"kubernetes.io/metadata.name": "gpu-drv"})
    );
    // The `kubernetes` finalizer is the strategy's, on create.
    assert_eq!(ns["spec"], json!({}));
    assert_eq!(ns["status"], json!({"phase": "Active"}));
    // A stored namespace whose finalizer was removed keeps it removed.
    let mut finalized = json!({"metadata": {"name": "gpu-drv", "uid": "u1"}, "spec": {}, "status": {"phase": "Terminating"}});
    apply(&NAMESPACES, &mut finalized);
    assert_eq!(finalized["spec"], json!({}));
    assert_eq!(finalized["status"], json!({"phase": "Terminating"}));

    let mut node = json!({"status": {"capacity": {"cpu": "4", "pods": "110"}}});
    apply(&NODES, &mut node);
    assert_eq!(
        node["status"]["allocatable"],
        json!({"cpu": "4", "pods": "110"})
    );

    let mut secret = json!({"data": {"a": "eA=="}, "stringData": {"b": "hello"}});
    apply(&SECRETS, &mut secret);
    assert_eq!(
        secret,
        json!({"data": {"a": "eA==", "b": "aGVsbG8="}, "type": "Opaque"})
    );

    // PodDisruptionBudget has no defaults (unhealthyPodEvictionPolicy stays unset).
    let mut pdb = json!({"spec": {"minAvailable": 1}});
    apply(&PODDISRUPTIONBUDGETS, &mut pdb);
    assert_eq!(pdb, json!({"spec": {"minAvailable": 1}}));
}

#[test]
fn probes_and_volumes() {
    let mut pod = json!({"spec": {
        "volumes": [{"name": "a"}, {"name": "b", "configMap": {"name": "cm"}}],
        "containers": [{"name": "c", "image": "i",
            "livenessProbe": {"httpGet": {"port": 8080}},
            "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}]}});
    apply(&PODS, &mut pod);
    assert_eq!(
        pod["spec"]["volumes"][0],
        json!({"name": "a", "emptyDir": {}})
    );
    assert_eq!(
        pod["spec"]["volumes"][1]["configMap"],
        json!({"name": "cm", "defaultMode": 420})
    );
    let c = &pod["spec"]["containers"][0];
    assert_eq!(
        c["livenessProbe"],
        json!({"httpGet": {"port": 8080, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1,
               "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3})
    );
    assert_eq!(
        c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"],
        json!("v1")
    );
}

/// kwok's pod-ready stage writes `{image, name, ready, restartCount, state}`; upstream reads it
/// back with `imageID: ""` and `lastState: {}` (found by the differential suite).
#[test]
fn container_statuses_read_back_in_the_go_encoders_shape() {
    let mut pod = json!({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        "status": {"containerStatuses": [{"name": "c", "image": "nginx", "ready": true,
            "restartCount": 0, "state": {"running": {"startedAt": "2026-12-01T00:00:00Z"}}}]}
    });
    apply(&PODS, &mut pod);
    assert_eq!(
        pod["status"]["containerStatuses"][0],
        json!({"name": "c", "image": "nginx", "imageID": "", "ready": true, "restartCount": 0,
            "state": {"running": {"startedAt": "2026-12-01T00:00:00Z"}}, "lastState": {}})
    );
}

/// What a 1.32 apiserver returned for these bodies (`kubectl create` then `get -o json` on a
/// kwokctl cluster).
#[test]
fn nodes_and_events_read_back_in_the_go_encoders_shape() {
    let mut node = json!({"metadata": {"name": "n1"}, "spec": {"podCIDRs": ["10.1.0.0/24"]}});
    apply(&NODES, &mut node);
    assert_eq!(
        node["spec"],
        json!({"podCIDR": "10.1.0.0/24", "podCIDRs": ["10.1.0.0/24"]})
    );
    assert_eq!(
        node["status"],
        json!({"daemonEndpoints": {"kubeletEndpoint": {"Port": 0}}, "nodeInfo": {
            "architecture": "", "bootID": "", "containerRuntimeVersion": "", "kernelVersion": "",
            "kubeProxyVersion": "", "kubeletVersion": "", "machineID": "", "operatingSystem": "",
            "osImage": "", "systemUUID": ""}})
    );
    let mut node = json!({"status": {"conditions": [{"type": "Ready", "status": "False"}]}});
    apply(&NODES, &mut node);
    assert_eq!(
        node["status"]["conditions"],
        json!([{"type": "Ready", "status": "False", "lastHeartbeatTime": null, "lastTransitionTime": null}])
    );
    // podCIDR wins over a podCIDRs that disagrees, and fills an empty one.
    let mut node = json!({"spec": {"podCIDR": "10.2.0.0/24", "podCIDRs": ["10.3.0.0/24"]}});
    apply(&NODES, &mut node);
    assert_eq!(node["spec"]["podCIDRs"], json!(["10.2.0.0/24"]));
    let mut node = json!({"spec": {"podCIDR": "10.2.0.0/24"}});
    apply(&NODES, &mut node);
    assert_eq!(node["spec"]["podCIDRs"], json!(["10.2.0.0/24"]));

    let mut event = json!({"metadata": {"name": "e1"}, "involvedObject": {"kind": "Pod", "name": "x"}, "reason": "R"});
    apply(&EVENTS, &mut event);
    assert_eq!(
        event,
        json!({"metadata": {"name": "e1"}, "involvedObject": {"kind": "Pod", "name": "x"}, "reason": "R",
               "source": {}, "firstTimestamp": null, "lastTimestamp": null, "eventTime": null,
               "reportingComponent": "", "reportingInstance": ""})
    );
    let mut event = json!({"reason": "R"});
    apply(&EVENTS_V1, &mut event);
    assert_eq!(
        event,
        json!({"reason": "R", "regarding": {}, "deprecatedSource": {}, "eventTime": null,
               "deprecatedFirstTimestamp": null, "deprecatedLastTimestamp": null})
    );
}
