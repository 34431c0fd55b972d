//! kwok's node stages (`kustomize/stage/node/fast/node-initialize.yaml` and the heartbeat):
//! the conditions, addresses, capacity and node info a fake node reports.

use serde_json::{json, Value};

use super::{KUBELET_VERSION, NODE_IP, NODE_READY};
use crate::meta;

fn node_conditions(node: &Value, now: &str) -> Value {
    let created = node["metadata"]["creationTimestamp"].clone();
    let ready = meta::annotation(node, NODE_READY).is_none_or(|v| !v.eq_ignore_ascii_case("false"));
    let c = |t: &str, s: &str, r: &str, m: &str| json!({"type": t, "status": s, "reason": r, "message": m, "lastHeartbeatTime": now, "lastTransitionTime": created});
    json!([
        if ready {
            c(
                "Ready",
                "True",
                "KubeletReady",
                "kubelet is posting ready status",
            )
        } else {
            c(
                "Ready",
                "False",
                "KubeletNotReady",
                "container runtime network not ready: NetworkReady=false",
            )
        },
        c(
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available"
        ),
        c(
            "DiskPressure",
            "False",
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure"
        ),
        c(
            "PIDPressure",
            "False",
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available"
        ),
        c(
            "NetworkUnavailable",
            "False",
            "RouteCreated",
            "RouteController created a route"
        ),
    ])
}

/// kwok's `node-initialize` stage.
pub(super) fn initialized_node(node: &Value) -> Value {
    let now = meta::now();
    let mut n = node.clone();
    let status = n["status"].as_object().cloned().unwrap_or_default();
    let mut s = Value::Object(status);
    s["conditions"] = node_conditions(node, &now);
    let mut addrs: Vec<Value> = s["addresses"].as_array().cloned().unwrap_or_default();
    if !addrs.iter().any(|a| a["type"] == "InternalIP") {
        addrs.push(json!({"type": "InternalIP", "address": NODE_IP}));
    }
    if !addrs.iter().any(|a| a["type"] == "Hostname") {
        addrs.push(json!({"type": "Hostname", "address": meta::name(node)}));
    }
    s["addresses"] = json!(addrs);
    for key in ["allocatable", "capacity"] {
        if s[key].as_object().is_none_or(|m| m.is_empty()) {
            s[key] = json!({"cpu": "1k", "memory": "1Ti", "pods": "1M"});
        }
    }
    let info = s["nodeInfo"].as_object().cloned().unwrap_or_default();
    let mut info = Value::Object(info);
    for (k, d) in [
        ("architecture", "amd64"),
        ("operatingSystem", "linux"),
        ("kubeletVersion", KUBELET_VERSION),
        ("kubeProxyVersion", KUBELET_VERSION),
        ("containerRuntimeVersion", KUBELET_VERSION),
        ("kernelVersion", KUBELET_VERSION),
        ("bootID", ""),
        ("machineID", ""),
        ("osImage", ""),
        ("systemUUID", ""),
    ] {
        if info[k].as_str().is_none_or(str::is_empty) {
            info[k] = json!(d);
        }
    }
    s["nodeInfo"] = info;
    s["daemonEndpoints"] = json!({"kubeletEndpoint": {"Port": 0}});
    s["phase"] = json!("Running");
    n["status"] = s;
    n
}
