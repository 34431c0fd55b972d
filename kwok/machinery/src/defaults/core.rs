//! core/v1 defaults of namespaces, nodes and secrets (pkg/apis/core/v1/defaults.go, conversion.go).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Map, Value};

use super::fields::{child, default_nil, default_zero, each, existing, str_of};
use super::resources;

/// `SetDefaults_Namespace` (the `kubernetes.io/metadata.name` label) and
/// `SetDefaults_NamespaceStatus`. The `kubernetes` finalizer is the strategy's.
pub fn namespace(obj: &mut Map<String, Value>) {
    let name = obj
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if !name.is_empty() {
        if let Some(labels) = child(obj, "metadata").and_then(|m| child(m, "labels")) {
            labels.insert("kubernetes.io/metadata.name".into(), json!(name));
        }
    }
    // Go encodes the spec struct, empty or not.
    child(obj, "spec");
    if let Some(status) = child(obj, "status") {
        default_zero(status, "phase", json!("Active"));
    }
}

/// `SetDefaults_NodeStatus` (allocatable defaults to capacity), the v1 conversion between
/// `podCIDR` and `podCIDRs` (`Convert_v1_NodeSpec_To_core_NodeSpec` and back: `podCIDR` wins
/// and is the first of `podCIDRs`), and the Go encoder's shape of the status: the kubelet port
/// and every `nodeInfo` string are written even when zero (struct fields without omitempty).
pub fn node(obj: &mut Map<String, Value>) {
    if let Some(spec) = existing(obj, "spec") {
        let single = str_of(spec, "podCIDR").to_string();
        let first = spec
            .get("podCIDRs")
            .and_then(Value::as_array)
            .and_then(|l| l.first())
            .and_then(Value::as_str)
            .map(str::to_string);
        match first {
            Some(first) if single.is_empty() => {
                spec.insert("podCIDR".into(), json!(first));
            }
            Some(first) if first != single => {
                spec.insert("podCIDRs".into(), json!([single]));
            }
            None if !single.is_empty() => {
                spec.insert("podCIDRs".into(), json!([single]));
            }
            _ => {}
        }
    }
    let Some(status) = child(obj, "status") else {
        return;
    };
    resources::resource_list(status, "capacity");
    resources::resource_list(status, "allocatable");
    if status.get("allocatable").is_none_or(Value::is_null) {
        if let Some(capacity) = status.get("capacity").filter(|c| c.is_object()).cloned() {
            status.insert("allocatable".into(), capacity);
        }
    }
    if let Some(kubelet) =
        child(status, "daemonEndpoints").and_then(|d| child(d, "kubeletEndpoint"))
    {
        default_nil(kubelet, "Port", json!(0));
    }
    // `NodeCondition`'s times are `metav1.Time`: a condition written without them reads back
    // with nulls.
    for condition in each(status, "conditions") {
        for time in ["lastHeartbeatTime", "lastTransitionTime"] {
            if !condition.contains_key(time) {
                condition.insert(time.into(), Value::Null);
            }
        }
    }
    if let Some(info) = child(status, "nodeInfo") {
        for key in NODE_INFO {
            default_nil(info, key, json!(""));
        }
    }
}

/// `NodeSystemInfo`'s string fields, in the Go type's order.
const NODE_INFO: [&str; 10] = [
    "machineID",
    "systemUUID",
    "bootID",
    "kernelVersion",
    "osImage",
    "containerRuntimeVersion",
    "kubeletVersion",
    "kubeProxyVersion",
    "operatingSystem",
    "architecture",
];

/// `SetDefaults_Secret` (type Opaque) and v1→internal conversion, which folds `stringData` into
/// `data` (stringData wins) so it is never stored.
pub fn secret(obj: &mut Map<String, Value>) {
    if let Some(Value::Object(string_data)) = obj.remove("stringData") {
        if !string_data.is_empty() {
            if let Some(data) = child(obj, "data") {
                for (k, v) in string_data {
                    let text = v.as_str().unwrap_or("");
                    data.insert(k, json!(STANDARD.encode(text.as_bytes())));
                }
            }
        }
    }
    if str_of(obj, "type").is_empty() {
        obj.insert("type".into(), json!("Opaque"));
    }
}
