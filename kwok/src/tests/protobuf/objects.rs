//! The other kinds clients send, built by field number from the upstream `generated.proto`
//! files (core/v1, apps/v1, policy/v1, autoscaling/v1, coordination/v1, events/v1, meta/v1).

use serde_json::json;

use super::encoder::{body, int_val, meta, quantity, str_val, time, Pb};
use crate::protobuf::decode;

/// A kwok/kubelet-style Node update with spec and status.
#[test]
fn node_with_status() {
    let spec = Pb::new()
        .str(1, "10.244.1.0/24")
        .str(3, "kwok://gpu-node-1")
        .bool(4, true)
        .msg(
            5,
            Pb::new()
                .str(1, "nvidia.com/gpu")
                .str(2, "present")
                .str(3, "NoSchedule")
                .msg(4, time(1_700_000_000, 0)),
        )
        .str(7, "10.244.1.0/24");
    let capacity = |p: Pb| {
        p.entry_msg(1, "cpu", quantity("32"))
            .entry_msg(1, "memory", quantity("256Gi"))
            .entry_msg(1, "nvidia.com/gpu", quantity("8"))
            .entry_msg(2, "cpu", quantity("31500m"))
    };
    let condition = Pb::new()
        .str(1, "Ready")
        .str(2, "True")
        .msg(3, time(1_700_000_000, 0))
        .msg(4, time(1_699_999_000, 0))
        .str(5, "KubeletReady")
        .str(6, "kubelet is posting ready status");
    let info = Pb::new()
        .str(1, "")
        .str(2, "")
        .str(3, "")
        .str(4, "5.15.0")
        .str(5, "Ubuntu 22.04")
        .str(6, "containerd://1.7.0")
        .str(7, "v1.32.0")
        .str(8, "")
        .str(9, "linux")
        .str(10, "amd64");
    let status = capacity(Pb::new())
        .str(3, "")
        .msg(4, condition)
        .msg(5, Pb::new().str(1, "InternalIP").str(2, "10.0.0.5"))
        .msg(5, Pb::new().str(1, "Hostname").str(2, "gpu-node-1"))
        .msg(6, Pb::new().msg(1, Pb::new().int(1, 10250)))
        .msg(7, info)
        .msg(
            8,
            Pb::new()
                .str(1, "nvidia/cuda:12")
                .str(1, "sha256:abc")
                .int(2, 0),
        );
    let node = Pb::new()
        .msg(1, meta("gpu-node-1", "").entry(11, "type", "kwok"))
        .msg(2, spec)
        .msg(3, status);
    let expected = json!({
        "kind": "Node",
        "apiVersion": "v1",
        "metadata": {"name": "gpu-node-1", "creationTimestamp": null, "labels": {"type": "kwok"}},
        "spec": {
            "podCIDR": "10.244.1.0/24",
            "podCIDRs": ["10.244.1.0/24"],
            "providerID": "kwok://gpu-node-1",
            "unschedulable": true,
            "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule", "timeAdded": "2023-11-14T22:13:20Z"}]
        },
        "status": {
            "capacity": {"cpu": "32", "memory": "256Gi", "nvidia.com/gpu": "8"},
            "allocatable": {"cpu": "31500m"},
            "conditions": [{
                "type": "Ready", "status": "True",
                "lastHeartbeatTime": "2023-11-14T22:13:20Z",
                "lastTransitionTime": "2023-11-14T21:56:40Z",
                "reason": "KubeletReady", "message": "kubelet is posting ready status"
            }],
            "addresses": [{"type": "InternalIP", "address": "10.0.0.5"}, {"type": "Hostname", "address": "gpu-node-1"}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": "", "systemUUID": "", "bootID": "", "kernelVersion": "5.15.0",
                "osImage": "Ubuntu 22.04", "containerRuntimeVersion": "containerd://1.7.0",
                "kubeletVersion": "v1.32.0", "kubeProxyVersion": "", "operatingSystem": "linux",
                "architecture": "amd64"
            },
            "images": [{"names": ["nvidia/cuda:12", "sha256:abc"]}]
        }
    });
    assert_eq!(
        decode(&body("v1", "Node", node), crate::registry::SCHEME).unwrap(),
        expected
    );
}

/// `kubectl drain` evicting a pod: policy/v1 Eviction with DeleteOptions.
#[test]
fn eviction_with_delete_options() {
    let options = Pb::new()
        .int(1, 0)
        .msg(2, Pb::new().str(1, "u-1").str(2, "7"))
        .bool(3, false)
        .str(4, "Foreground")
        .str(5, "All");
    let eviction = Pb::new().msg(1, meta("p1", "default")).msg(2, options);
    let expected = json!({
        "kind": "Eviction",
        "apiVersion": "policy/v1",
        "metadata": {"name": "p1", "namespace": "default", "creationTimestamp": null},
        "deleteOptions": {
            "gracePeriodSeconds": 0,
            "preconditions": {"uid": "u-1", "resourceVersion": "7"},
            "orphanDependents": false,
            "propagationPolicy": "Foreground",
            "dryRun": ["All"]
        }
    });
    assert_eq!(
        decode(
            &body("policy/v1", "Eviction", eviction),
            crate::registry::SCHEME
        )
        .unwrap(),
        expected
    );
}

/// DeleteOptions arrive under the apiVersion of whichever typed client sent them.
#[test]
fn delete_options_under_any_group_version() {
    for api_version in ["v1", "apps/v1", "policy/v1"] {
        let options = Pb::new().int(1, 30).str(4, "Background");
        let expected = json!({
            "kind": "DeleteOptions",
            "apiVersion": api_version,
            "gracePeriodSeconds": 30,
            "propagationPolicy": "Background"
        });
        assert_eq!(
            decode(
                &body(api_version, "DeleteOptions", options),
                crate::registry::SCHEME
            )
            .unwrap(),
            expected
        );
    }
}

/// ScaleSpec.replicas is `int32 json:"replicas,omitempty"` but ScaleStatus.replicas has no
/// `omitempty`: zero disappears from the spec and stays in the status.
#[test]
fn scale_zero_replicas() {
    let scale = Pb::new()
        .msg(1, meta("web", "default"))
        .msg(2, Pb::new().int(1, 0))
        .msg(3, Pb::new().int(1, 0).str(2, "app=web"));
    let expected = json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {"name": "web", "namespace": "default", "creationTimestamp": null},
        "spec": {},
        "status": {"replicas": 0, "selector": "app=web"}
    });
    assert_eq!(
        decode(
            &body("autoscaling/v1", "Scale", scale),
            crate::registry::SCHEME
        )
        .unwrap(),
        expected
    );
}

/// The scheduler's pods/binding request.
#[test]
fn binding() {
    let target = Pb::new()
        .str(1, "Node")
        .str(2, "")
        .str(3, "gpu-node-1")
        .str(4, "")
        .str(5, "v1")
        .str(6, "")
        .str(7, "");
    let binding = Pb::new()
        .msg(1, meta("p1", "default").str(5, "u-1"))
        .msg(2, target);
    let expected = json!({
        "kind": "Binding",
        "apiVersion": "v1",
        "metadata": {"name": "p1", "namespace": "default", "uid": "u-1", "creationTimestamp": null},
        "target": {"kind": "Node", "name": "gpu-node-1", "apiVersion": "v1"}
    });
    assert_eq!(
        decode(&body("v1", "Binding", binding), crate::registry::SCHEME).unwrap(),
        expected
    );
}

/// core/v1 Event: zero Time fields are null, `reportingComponent`/`reportingInstance` have no
/// `omitempty`, MicroTime keeps microseconds.
#[test]
fn core_event() {
    let involved = Pb::new()
        .str(1, "Pod")
        .str(2, "default")
        .str(3, "p1")
        .str(4, "u-1");
    let event = Pb::new()
        .msg(1, meta("p1.17a", "default"))
        .msg(2, involved)
        .str(3, "Scheduled")
        .str(4, "Successfully assigned default/p1 to gpu-node-1")
        .msg(5, Pb::new().str(1, "default-scheduler").str(2, ""))
        .msg(6, Pb::new())
        .msg(7, Pb::new())
        .int(8, 0)
        .str(9, "Normal")
        .msg(10, time(1_700_000_000, 123_456_789))
        .str(12, "Binding")
        .str(14, "default-scheduler")
        .str(15, "");
    let expected = json!({
        "kind": "Event",
        "apiVersion": "v1",
        "metadata": {"name": "p1.17a", "namespace": "default", "creationTimestamp": null},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p1", "uid": "u-1"},
        "reason": "Scheduled",
        "message": "Successfully assigned default/p1 to gpu-node-1",
        "source": {"component": "default-scheduler"},
        "firstTimestamp": null,
        "lastTimestamp": null,
        "type": "Normal",
        "eventTime": "2023-11-14T22:13:20.123456Z",
        "action": "Binding",
        "reportingComponent": "default-scheduler",
        "reportingInstance": ""
    });
    assert_eq!(
        decode(&body("v1", "Event", event), crate::registry::SCHEME).unwrap(),
        expected
    );
}

#[test]
fn events_v1_event() {
    let event = Pb::new()
        .msg(1, meta("p1.17b", "default"))
        .msg(2, time(1_700_000_000, 5_000))
        .str(4, "default-scheduler")
        .str(5, "sched-1")
        .str(6, "Binding")
        .str(7, "Scheduled")
        .msg(8, Pb::new().str(1, "Pod").str(3, "p1"))
        .str(10, "assigned")
        .str(11, "Normal")
        .msg(13, Pb::new())
        .msg(14, Pb::new())
        .int(15, 0);
    let expected = json!({
        "kind": "Event",
        "apiVersion": "events.k8s.io/v1",
        "metadata": {"name": "p1.17b", "namespace": "default", "creationTimestamp": null},
        "eventTime": "2023-11-14T22:13:20.000005Z",
        "reportingController": "default-scheduler",
        "reportingInstance": "sched-1",
        "action": "Binding",
        "reason": "Scheduled",
        "regarding": {"kind": "Pod", "name": "p1"},
        "note": "assigned",
        "type": "Normal",
        "deprecatedFirstTimestamp": null,
        "deprecatedLastTimestamp": null
    });
    assert_eq!(
        decode(
            &body("events.k8s.io/v1", "Event", event),
            crate::registry::SCHEME
        )
        .unwrap(),
        expected
    );
}

/// A node heartbeat lease.
#[test]
fn lease() {
    let owner = Pb::new()
        .str(1, "Node")
        .str(3, "gpu-node-1")
        .str(4, "n-1")
        .str(5, "v1");
    let spec = Pb::new()
        .str(1, "gpu-node-1")
        .int(2, 40)
        .msg(4, time(1_700_000_000, 500_000));
    let lease = Pb::new()
        .msg(1, meta("gpu-node-1", "kube-node-lease").msg(13, owner))
        .msg(2, spec);
    let expected = json!({
        "kind": "Lease",
        "apiVersion": "coordination.k8s.io/v1",
        "metadata": {
            "name": "gpu-node-1", "namespace": "kube-node-lease", "creationTimestamp": null,
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "gpu-node-1", "uid": "n-1"}]
        },
        "spec": {"holderIdentity": "gpu-node-1", "leaseDurationSeconds": 40, "renewTime": "2023-11-14T22:13:20.000500Z"}
    });
    assert_eq!(
        decode(
            &body("coordination.k8s.io/v1", "Lease", lease),
            crate::registry::SCHEME
        )
        .unwrap(),
        expected
    );
}

fn template(app: &str) -> Pb {
    Pb::new()
        .msg(1, Pb::new().msg(8, Pb::new()).entry(11, "app", app))
        .msg(
            2,
            Pb::new().msg(2, Pb::new().str(1, "c").str(2, "img").msg(8, Pb::new())),
        )
}

fn template_json(app: &str) -> serde_json::Value {
    json!({
        "metadata": {"creationTimestamp": null, "labels": {"app": app}},
        "spec": {"containers": [{"name": "c", "image": "img", "resources": {}}]}
    })
}

#[test]
fn daemon_set_with_update_strategy() {
    let strategy = Pb::new()
        .str(1, "RollingUpdate")
        .msg(2, Pb::new().msg(1, str_val("10%")).msg(2, int_val(0)));
    let spec = Pb::new()
        .msg(1, Pb::new().entry(1, "app", "ds"))
        .msg(2, template("ds"))
        .msg(3, strategy)
        .int(4, 0)
        .int(6, 10);
    let ds = Pb::new()
        .msg(1, meta("ds", "kube-system"))
        .msg(2, spec)
        .msg(3, Pb::new().int(1, 0).int(2, 0).int(3, 0).int(4, 0));
    let expected = json!({
        "kind": "DaemonSet",
        "apiVersion": "apps/v1",
        "metadata": {"name": "ds", "namespace": "kube-system", "creationTimestamp": null},
        "spec": {
            "selector": {"matchLabels": {"app": "ds"}},
            "template": template_json("ds"),
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "10%", "maxSurge": 0}},
            "revisionHistoryLimit": 10
        },
        "status": {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0, "numberReady": 0}
    });
    assert_eq!(
        decode(&body("apps/v1", "DaemonSet", ds), crate::registry::SCHEME).unwrap(),
        expected
    );
}

#[test]
fn replica_set_with_status() {
    let spec = Pb::new()
        .int(1, 3)
        .msg(2, Pb::new().entry(1, "app", "web"))
        .msg(3, template("web"))
        .int(4, 0);
    let status = Pb::new().int(1, 3).int(2, 0).int(3, 2).int(4, 3).int(5, 3);
    let rs = Pb::new()
        .msg(1, meta("web-abc", "default"))
        .msg(2, spec)
        .msg(3, status);
    let expected = json!({
        "kind": "ReplicaSet",
        "apiVersion": "apps/v1",
        "metadata": {"name": "web-abc", "namespace": "default", "creationTimestamp": null},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": template_json("web")},
        "status": {"replicas": 3, "readyReplicas": 3, "availableReplicas": 3, "observedGeneration": 2}
    });
    assert_eq!(
        decode(&body("apps/v1", "ReplicaSet", rs), crate::registry::SCHEME).unwrap(),
        expected
    );
}

#[test]
fn deployment_with_strategy() {
    let strategy = Pb::new()
        .str(1, "RollingUpdate")
        .msg(2, Pb::new().msg(1, str_val("25%")).msg(2, str_val("25%")));
    let spec = Pb::new()
        .int(1, 1)
        .msg(2, Pb::new().entry(1, "app", "web"))
        .msg(3, template("web"))
        .msg(4, strategy)
        .int(5, 0)
        .int(6, 10)
        .bool(7, false)
        .int(9, 600);
    let deployment = Pb::new()
        .msg(1, meta("web", "default"))
        .msg(2, spec)
        .msg(3, Pb::new());
    let expected = json!({
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {"name": "web", "namespace": "default", "creationTimestamp": null},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": template_json("web"),
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600
        },
        "status": {}
    });
    assert_eq!(
        decode(
            &body("apps/v1", "Deployment", deployment),
            crate::registry::SCHEME
        )
        .unwrap(),
        expected
    );
}

/// Secret.data values are `[]byte` (base64 in JSON); `immutable` is a pointer.
#[test]
fn secret_with_string_data_and_immutable() {
    let secret = Pb::new()
        .msg(1, meta("s", ""))
        .msg(2, Pb::new().str(1, "bin").bytes(2, &[0, 1, 0xff]))
        .str(3, "Opaque")
        .entry(4, "plain", "text")
        .bool(5, false);
    let expected = json!({
        "kind": "Secret",
        "apiVersion": "v1",
        "metadata": {"name": "s", "creationTimestamp": null},
        "immutable": false,
        "data": {"bin": "AAH/"},
        "stringData": {"plain": "text"},
        "type": "Opaque"
    });
    assert_eq!(
        decode(&body("v1", "Secret", secret), crate::registry::SCHEME).unwrap(),
        expected
    );
}

/// ControllerRevision.data is a RawExtension holding JSON.
#[test]
fn controller_revision_raw_extension() {
    let revision = Pb::new()
        .msg(1, meta("ds-5d8f", "kube-system"))
        .msg(
            2,
            Pb::new().bytes(1, br#"{"spec":{"template":{"$patch":"replace"}}}"#),
        )
        .int(3, 2);
    let expected = json!({
        "kind": "ControllerRevision",
        "apiVersion": "apps/v1",
        "metadata": {"name": "ds-5d8f", "namespace": "kube-system", "creationTimestamp": null},
        "data": {"spec": {"template": {"$patch": "replace"}}},
        "revision": 2
    });
    assert_eq!(
        decode(
            &body("apps/v1", "ControllerRevision", revision),
            crate::registry::SCHEME
        )
        .unwrap(),
        expected
    );
}

/// PodDisruptionBudgetStatus.disruptedPods is a map of Time values.
#[test]
fn pdb_status_disrupted_pods() {
    let status = Pb::new()
        .int(1, 1)
        .entry_msg(2, "p1", time(1_700_000_000, 0))
        .int(3, 0)
        .int(4, 2)
        .int(5, 2)
        .int(6, 3);
    let pdb = Pb::new()
        .msg(1, meta("pdb", "default"))
        .msg(
            2,
            Pb::new()
                .msg(1, int_val(2))
                .msg(2, Pb::new().entry(1, "app", "x")),
        )
        .msg(3, status);
    let expected = json!({
        "kind": "PodDisruptionBudget",
        "apiVersion": "policy/v1",
        "metadata": {"name": "pdb", "namespace": "default", "creationTimestamp": null},
        "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "x"}}},
        "status": {
            "observedGeneration": 1,
            "disruptedPods": {"p1": "2023-11-14T22:13:20Z"},
            "disruptionsAllowed": 0,
            "currentHealthy": 2,
            "desiredHealthy": 2,
            "expectedPods": 3
        }
    });
    assert_eq!(
        decode(
            &body("policy/v1", "PodDisruptionBudget", pdb),
            crate::registry::SCHEME
        )
        .unwrap(),
        expected
    );
}

/// ObjectMeta completely: managedFields carry raw JSON (FieldsV1) and a Time.
#[test]
fn object_meta_complete() {
    let managed = Pb::new()
        .str(1, "kubectl-create")
        .str(2, "Update")
        .str(3, "v1")
        .msg(4, time(1_700_000_000, 0))
        .str(6, "FieldsV1")
        .msg(7, Pb::new().bytes(1, br#"{"f:data":{".":{},"f:a":{}}}"#))
        .str(8, "");
    let metadata = Pb::new()
        .str(1, "c")
        .str(2, "")
        .str(3, "default")
        .str(4, "")
        .str(5, "uid-1")
        .str(6, "42")
        .int(7, 3)
        .msg(8, time(1_700_000_000, 0))
        .msg(9, time(1_700_000_300, 0))
        .int(10, 30)
        .entry(11, "l", "v")
        .entry(12, "kubectl.kubernetes.io/last-applied-configuration", "{}")
        .msg(
            13,
            Pb::new()
                .str(1, "Deployment")
                .str(3, "web")
                .str(4, "d-1")
                .str(5, "apps/v1")
                .bool(6, false),
        )
        .str(14, "kubernetes.io/pv-protection")
        .str(14, "example.com/hold")
        .msg(17, managed);
    let cm = Pb::new().msg(1, metadata).entry(2, "a", "b");
    let expected = json!({
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {
            "name": "c",
            "namespace": "default",
            "uid": "uid-1",
            "resourceVersion": "42",
            "generation": 3,
            "creationTimestamp": "2023-11-14T22:13:20Z",
            "deletionTimestamp": "2023-11-14T22:18:20Z",
            "deletionGracePeriodSeconds": 30,
            "labels": {"l": "v"},
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d-1", "controller": false}],
            "finalizers": ["kubernetes.io/pv-protection", "example.com/hold"],
            "managedFields": [{
                "manager": "kubectl-create",
                "operation": "Update",
                "apiVersion": "v1",
                "time": "2023-11-14T22:13:20Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:data": {".": {}, "f:a": {}}}
            }]
        },
        "data": {"a": "b"}
    });
    assert_eq!(
        decode(&body("v1", "ConfigMap", cm), crate::registry::SCHEME).unwrap(),
        expected
    );
}

/// A PodTemplate as a typed client sends it: its template at field 2.
#[test]
fn pod_template() {
    let container = Pb::new().str(1, "probe").str(2, "busybox");
    let template = Pb::new()
        .msg(1, Pb::new().entry(11, "app", "probe"))
        .msg(2, Pb::new().msg(2, container));
    let object = Pb::new().msg(1, meta("t", "default")).msg(2, template);
    let expected = json!({
        "kind": "PodTemplate",
        "apiVersion": "v1",
        "metadata": {"name": "t", "namespace": "default", "creationTimestamp": null},
        "template": {
            "metadata": {"labels": {"app": "probe"}},
            "spec": {"containers": [{"name": "probe", "image": "busybox"}]}
        }
    });
    assert_eq!(
        decode(&body("v1", "PodTemplate", object), crate::registry::SCHEME).unwrap(),
        expected
    );
}

/// A CustomResourceDefinition as the apiextensions clientset sends it in protobuf: its schema
/// holds the forms upstream writes by hand (`JSON`, `JSONSchemaPropsOrArray`, `OrBool`) and
/// doubles, field numbers from apiextensions/v1's `generated.proto`.
#[test]
fn custom_resource_definition_with_a_schema() {
    let schema = |kind: &str| Pb::new().str(5, kind);
    let properties = Pb::new()
        .str(5, "object")
        .entry_msg(29, "replicas", schema("integer").double(9, 10.0))
        .entry_msg(29, "ratio", schema("number").double(9, 2.5))
        .entry_msg(
            29,
            "tags",
            schema("array").msg(24, Pb::new().msg(1, schema("string"))),
        )
        .entry_msg(
            29,
            "labels",
            schema("object").msg(30, Pb::new().msg(2, schema("string"))),
        )
        .entry_msg(
            29,
            "closed",
            schema("object").msg(30, Pb::new().bool(1, false)),
        )
        .entry_msg(
            29,
            "mode",
            schema("string")
                .msg(20, Pb::new().bytes(1, br#""fast""#))
                .msg(20, Pb::new().bytes(1, br#""safe""#)),
        )
        .str(23, "replicas")
        .bool(38, true);
    let version = Pb::new()
        .str(1, "v1")
        .bool(2, true)
        .bool(3, true)
        .msg(4, Pb::new().msg(1, properties));
    let spec = Pb::new()
        .str(1, "example.com")
        .msg(3, Pb::new().str(1, "widgets").str(4, "Widget"))
        .str(4, "Namespaced")
        .msg(7, version);
    let crd = Pb::new()
        .msg(1, meta("widgets.example.com", ""))
        .msg(2, spec);
    let decoded = decode(
        &body("apiextensions.k8s.io/v1", "CustomResourceDefinition", crd),
        crate::registry::SCHEME,
    )
    .unwrap();
    assert_eq!(
        decoded["spec"]["versions"][0]["schema"]["openAPIV3Schema"],
        json!({
            "type": "object",
            "required": ["replicas"],
            "properties": {
                "replicas": {"type": "integer", "maximum": 10},
                "ratio": {"type": "number", "maximum": 2.5},
                "tags": {"type": "array", "items": {"type": "string"}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "closed": {"type": "object", "additionalProperties": false},
                "mode": {"type": "string", "enum": ["fast", "safe"]}
            },
            "x-kubernetes-preserve-unknown-fields": true
        })
    );
    assert_eq!(
        decoded["spec"]["names"],
        json!({"plural": "widgets", "kind": "Widget"})
    );
}

/// A SubjectAccessReview's `extra` values are `ExtraValue` (a named `[]string`): a message of
/// one repeated string in protobuf, a plain array in JSON.
#[test]
fn subject_access_review_extra_values_are_arrays() {
    let spec = Pb::new()
        .str(3, "alice")
        .entry_msg(5, "scopes", Pb::new().str(1, "read").str(1, "write"))
        .entry_msg(5, "none", Pb::new());
    let review = Pb::new().msg(1, meta("", "")).msg(2, spec);
    let decoded = decode(
        &body("authorization.k8s.io/v1", "SubjectAccessReview", review),
        crate::registry::SCHEME,
    )
    .unwrap();
    assert_eq!(
        decoded["spec"]["extra"],
        json!({"scopes": ["read", "write"], "none": null})
    );
}
