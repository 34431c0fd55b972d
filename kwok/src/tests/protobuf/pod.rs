//! A Pod exercising most of PodSpec and PodStatus, built by field number from
//! `staging/src/k8s.io/api/core/v1/generated.proto` and compared with the JSON encoding/json
//! writes for the same Go struct (`omitempty` on values, pointers kept even when zero).

use serde_json::json;

use super::encoder::{body, int_val, quantity, str_val, time, Pb};
use crate::protobuf::decode;

fn labels_selector(key: &str, value: &str) -> Pb {
    Pb::new().entry(1, key, value)
}

fn volumes(spec: Pb) -> Pb {
    let empty_dir = Pb::new().str(1, "Memory").msg(2, quantity("1Gi"));
    let config_map = Pb::new()
        .msg(1, Pb::new().str(1, "app-config"))
        .msg(2, Pb::new().str(1, "k").str(2, "p").int(3, 0o400))
        .int(3, 420);
    let secret = Pb::new().str(1, "creds").int(3, 0);
    let host_path = Pb::new().str(1, "/dev").str(2, "Directory");
    let projected = Pb::new()
        .msg(
            1,
            Pb::new().msg(4, Pb::new().str(1, "").int(2, 3600).str(3, "token")),
        )
        .msg(
            1,
            Pb::new().msg(3, Pb::new().msg(1, Pb::new().str(1, "ca")).bool(4, true)),
        );
    spec.msg(
        1,
        Pb::new()
            .str(1, "scratch")
            .msg(2, Pb::new().msg(2, empty_dir)),
    )
    .msg(
        1,
        Pb::new()
            .str(1, "cfg")
            .msg(2, Pb::new().msg(19, config_map)),
    )
    .msg(1, Pb::new().str(1, "sec").msg(2, Pb::new().msg(6, secret)))
    .msg(
        1,
        Pb::new().str(1, "dev").msg(2, Pb::new().msg(1, host_path)),
    )
    .msg(
        1,
        Pb::new()
            .str(1, "proj")
            .msg(2, Pb::new().msg(26, projected)),
    )
}

fn main_container() -> Pb {
    let port = Pb::new()
        .str(1, "http")
        .int(2, 0)
        .int(3, 8080)
        .str(4, "TCP")
        .str(5, "");
    let env_from = Pb::new()
        .str(1, "CFG_")
        .msg(2, Pb::new().msg(1, Pb::new().str(1, "app-config")));
    let field_ref = Pb::new().str(1, "v1").str(2, "spec.nodeName");
    let secret_ref = Pb::new()
        .msg(1, Pb::new().str(1, "creds"))
        .str(2, "pw")
        .bool(3, false);
    let resources = Pb::new()
        .entry_msg(1, "nvidia.com/gpu", quantity("1"))
        .entry_msg(1, "memory", quantity("2Gi"))
        .entry_msg(2, "cpu", quantity("500m"));
    let liveness = Pb::new()
        .msg(
            1,
            Pb::new().msg(
                2,
                Pb::new()
                    .str(1, "/healthz")
                    .msg(2, int_val(8080))
                    .str(3, "")
                    .str(4, "HTTP"),
            ),
        )
        .int(2, 5)
        .int(3, 0)
        .int(4, 10)
        .int(5, 0)
        .int(6, 0);
    let readiness = Pb::new().msg(
        1,
        Pb::new().msg(3, Pb::new().msg(1, str_val("http")).str(2, "")),
    );
    let security = Pb::new()
        .msg(1, Pb::new().str(1, "SYS_ADMIN").str(2, "ALL"))
        .bool(2, false)
        .int(4, 0)
        .bool(5, false);
    Pb::new()
        .str(1, "main")
        .str(2, "nvidia/cuda:12")
        .str(5, "/work")
        .msg(6, port)
        .msg(7, Pb::new().str(1, "A").str(2, "1"))
        .msg(
            7,
            Pb::new()
                .str(1, "NODE")
                .str(2, "")
                .msg(3, Pb::new().msg(1, field_ref)),
        )
        .msg(
            7,
            Pb::new()
                .str(1, "PW")
                .str(2, "")
                .msg(3, Pb::new().msg(4, secret_ref)),
        )
        .msg(8, resources)
        .msg(
            9,
            Pb::new()
                .str(1, "scratch")
                .bool(2, false)
                .str(3, "/scratch")
                .str(4, ""),
        )
        .msg(
            9,
            Pb::new()
                .str(1, "cfg")
                .bool(2, true)
                .str(3, "/etc/app")
                .str(4, "app.yaml"),
        )
        .msg(10, liveness)
        .msg(11, readiness)
        .str(13, "")
        .str(14, "")
        .msg(15, security)
        .bool(16, false)
        .bool(17, false)
        .bool(18, true)
        .msg(19, env_from)
        .str(20, "")
}

fn affinity() -> Pb {
    let term = Pb::new().msg(
        1,
        Pb::new()
            .str(1, "gpu.vendor")
            .str(2, "In")
            .str(3, "nvidia")
            .str(3, "amd"),
    );
    let node = Pb::new().msg(1, Pb::new().msg(1, term)).msg(
        2,
        Pb::new().int(1, 10).msg(
            2,
            Pb::new().msg(1, Pb::new().str(1, "zone").str(2, "Exists")),
        ),
    );
    let pod = Pb::new().msg(
        1,
        Pb::new()
            .msg(1, labels_selector("app", "db"))
            .str(2, "data")
            .str(3, "kubernetes.io/hostname"),
    );
    let anti_term = Pb::new()
        .msg(
            1,
            Pb::new().msg(2, Pb::new().str(1, "app").str(2, "In").str(3, "web")),
        )
        .str(3, "topology.kubernetes.io/zone");
    let anti = Pb::new().msg(2, Pb::new().int(1, 100).msg(2, anti_term));
    Pb::new().msg(1, node).msg(2, pod).msg(3, anti)
}

fn spec() -> Pb {
    let init = Pb::new()
        .str(1, "init")
        .str(2, "busybox")
        .str(3, "sh")
        .str(3, "-c")
        .str(4, "true")
        .msg(8, Pb::new())
        .str(13, "/dev/termination-log")
        .str(14, "Always")
        .str(20, "File");
    let security = Pb::new().int(2, 1000).int(4, 1).int(4, 2).int(5, 2000);
    volumes(Pb::new())
        .msg(2, main_container())
        .str(3, "Always")
        .int(4, 0)
        .str(6, "ClusterFirst")
        .entry(7, "gpu", "true")
        .str(8, "runner")
        .str(9, "")
        .str(10, "")
        .bool(11, true)
        .bool(12, false)
        .bool(13, false)
        .msg(14, security)
        .str(16, "")
        .str(17, "")
        .msg(18, affinity())
        .str(19, "default-scheduler")
        .msg(20, init)
        .bool(21, false)
        .msg(
            22,
            Pb::new()
                .str(1, "nvidia.com/gpu")
                .str(2, "Exists")
                .str(3, "")
                .str(4, "NoSchedule"),
        )
        .msg(
            22,
            Pb::new()
                .str(1, "node.kubernetes.io/not-ready")
                .str(2, "Exists")
                .str(3, "")
                .str(4, "NoExecute")
                .int(5, 300),
        )
        .str(24, "high")
        .int(25, 0)
        .bool(30, false)
}

fn status() -> Pb {
    let condition = Pb::new()
        .str(1, "Ready")
        .str(2, "True")
        .msg(3, Pb::new())
        .msg(4, time(1_700_000_100, 0))
        .str(5, "")
        .str(6, "");
    let container = Pb::new()
        .str(1, "main")
        .msg(
            2,
            Pb::new().msg(2, Pb::new().msg(1, time(1_700_000_060, 0))),
        )
        .msg(3, Pb::new())
        .bool(4, true)
        .int(5, 0)
        .str(6, "nvidia/cuda:12")
        .str(7, "")
        .str(8, "containerd://abc")
        .bool(9, true);
    Pb::new()
        .str(1, "Running")
        .msg(2, condition)
        .str(3, "")
        .str(4, "")
        .str(5, "10.0.0.5")
        .str(6, "10.244.1.7")
        .msg(7, time(1_700_000_050, 0))
        .msg(8, container)
        .str(9, "Burstable")
        .str(11, "")
        .msg(12, Pb::new().str(1, "10.244.1.7"))
}

fn metadata() -> Pb {
    let owner = Pb::new()
        .str(1, "ReplicaSet")
        .str(3, "web-abc")
        .str(4, "rs-1")
        .str(5, "apps/v1")
        .bool(6, true)
        .bool(7, true);
    Pb::new()
        .str(1, "web-0")
        .str(2, "web-")
        .str(3, "gpu")
        .str(4, "")
        .str(5, "u-1")
        .str(6, "")
        .int(7, 0)
        .msg(8, time(1_700_000_000, 0))
        .entry(11, "app", "web")
        .entry(12, "a/b", "")
        .msg(13, owner)
        .str(14, "x/y")
}

pub(super) fn full_pod() -> Pb {
    Pb::new().msg(1, metadata()).msg(2, spec()).msg(3, status())
}

#[test]
fn pod_with_full_spec_and_status() {
    let decoded = decode(&body("v1", "Pod", full_pod()), crate::registry::SCHEME).unwrap();
    let expected = json!({
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {
            "name": "web-0",
            "generateName": "web-",
            "namespace": "gpu",
            "uid": "u-1",
            "creationTimestamp": "2023-11-14T22:13:20Z",
            "labels": {"app": "web"},
            "annotations": {"a/b": ""},
            "ownerReferences": [{
                "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "rs-1",
                "controller": true, "blockOwnerDeletion": true
            }],
            "finalizers": ["x/y"]
        },
        "spec": {
            "volumes": [
                {"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}},
                {"name": "cfg", "configMap": {
                    "name": "app-config", "items": [{"key": "k", "path": "p", "mode": 256}], "defaultMode": 420
                }},
                {"name": "sec", "secret": {"secretName": "creds", "defaultMode": 0}},
                {"name": "dev", "hostPath": {"path": "/dev", "type": "Directory"}},
                {"name": "proj", "projected": {"sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3600, "path": "token"}},
                    {"configMap": {"name": "ca", "optional": true}}
                ]}}
            ],
            "initContainers": [{
                "name": "init", "image": "busybox", "command": ["sh", "-c"], "args": ["true"],
                "resources": {}, "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File", "imagePullPolicy": "Always"
            }],
            "containers": [{
                "name": "main",
                "image": "nvidia/cuda:12",
                "workingDir": "/work",
                "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                "envFrom": [{"prefix": "CFG_", "configMapRef": {"name": "app-config"}}],
                "env": [
                    {"name": "A", "value": "1"},
                    {"name": "NODE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
                    {"name": "PW", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "pw", "optional": false}}}
                ],
                "resources": {
                    "limits": {"nvidia.com/gpu": "1", "memory": "2Gi"},
                    "requests": {"cpu": "500m"}
                },
                "volumeMounts": [
                    {"name": "scratch", "mountPath": "/scratch"},
                    {"name": "cfg", "readOnly": true, "mountPath": "/etc/app", "subPath": "app.yaml"}
                ],
                "livenessProbe": {
                    "httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
                    "initialDelaySeconds": 5,
                    "periodSeconds": 10
                },
                "readinessProbe": {"tcpSocket": {"port": "http"}},
                "securityContext": {
                    "capabilities": {"add": ["SYS_ADMIN"], "drop": ["ALL"]},
                    "privileged": false,
                    "runAsUser": 0,
                    "runAsNonRoot": false
                },
                "tty": true
            }],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 0,
            "dnsPolicy": "ClusterFirst",
            "nodeSelector": {"gpu": "true"},
            "serviceAccountName": "runner",
            "automountServiceAccountToken": false,
            "hostNetwork": true,
            "securityContext": {"runAsUser": 1000, "supplementalGroups": [1, 2], "fsGroup": 2000},
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "gpu.vendor", "operator": "In", "values": ["nvidia", "amd"]}]}
                    ]},
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 10, "preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}}
                    ]
                },
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                    "labelSelector": {"matchLabels": {"app": "db"}},
                    "namespaces": ["data"],
                    "topologyKey": "kubernetes.io/hostname"
                }]},
                "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
                    "weight": 100,
                    "podAffinityTerm": {
                        "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
                        "topologyKey": "topology.kubernetes.io/zone"
                    }
                }]}
            },
            "schedulerName": "default-scheduler",
            "tolerations": [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
            ],
            "priorityClassName": "high",
            "priority": 0,
            "enableServiceLinks": false
        },
        "status": {
            "phase": "Running",
            "conditions": [{
                "type": "Ready", "status": "True", "lastProbeTime": null,
                "lastTransitionTime": "2023-11-14T22:15:00Z"
            }],
            "hostIP": "10.0.0.5",
            "podIP": "10.244.1.7",
            "podIPs": [{"ip": "10.244.1.7"}],
            "startTime": "2023-11-14T22:14:10Z",
            "containerStatuses": [{
                "name": "main",
                "state": {"running": {"startedAt": "2023-11-14T22:14:20Z"}},
                "lastState": {},
                "ready": true,
                "restartCount": 0,
                "image": "nvidia/cuda:12",
                "imageID": "",
                "containerID": "containerd://abc",
                "started": true
            }],
            "qosClass": "Burstable"
        }
    });
    assert_eq!(decoded, expected);
}

/// encoding/json writes fields in Go declaration order; the decoded object keeps that order
/// (protobuf field numbers follow another order, e.g. initContainers = 20 comes second).
#[test]
fn fields_come_out_in_go_declaration_order() {
    let decoded = decode(&body("v1", "Pod", full_pod()), crate::registry::SCHEME).unwrap();
    let keys: Vec<&str> = decoded["spec"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys[..6],
        [
            "volumes",
            "initContainers",
            "containers",
            "restartPolicy",
            "terminationGracePeriodSeconds",
            "dnsPolicy"
        ]
    );
    let top: Vec<&str> = decoded
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(top, ["kind", "apiVersion", "metadata", "spec", "status"]);
}
