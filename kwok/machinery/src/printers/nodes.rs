//! Nodes (`printNode`, `findNodeRoles`, `getNodeInternalIP`/`getNodeExternalIP` in printers.go).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::docs;
use super::values::{age, arr_at, at, bool_at, name, obj_at, str_at};

pub const COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Status", "string", "The status of the node"),
    Column::new("Roles", "string", "The roles of the node"),
    Column::age(),
    Column::new("Version", "string", docs::NODE_KUBELET_VERSION),
    Column::new("Internal-IP", "string", docs::NODE_ADDRESSES).wide(),
    Column::new("External-IP", "string", docs::NODE_ADDRESSES).wide(),
    Column::new("OS-Image", "string", docs::NODE_OS_IMAGE).wide(),
    Column::new("Kernel-Version", "string", docs::NODE_KERNEL_VERSION).wide(),
    Column::new("Container-Runtime", "string", docs::NODE_CONTAINER_RUNTIME).wide(),
];

const LABEL_NODE_ROLE_PREFIX: &str = "node-role.kubernetes.io/";
const NODE_LABEL_ROLE: &str = "kubernetes.io/role";

/// `Ready` / `NotReady` from the Ready condition only (the last one wins if repeated), `Unknown`
/// without one, then `SchedulingDisabled` for a cordoned node.
fn status(node: &Value) -> String {
    let ready = arr_at(node, &["status", "conditions"])
        .iter()
        .rev()
        .find(|c| str_at(c, &["type"]) == "Ready");
    let mut parts = vec![match ready {
        Some(c) if str_at(c, &["status"]) == "True" => "Ready",
        Some(_) => "NotReady",
        None => "Unknown",
    }];
    if bool_at(node, &["spec", "unschedulable"]) {
        parts.push("SchedulingDisabled");
    }
    parts.join(",")
}

/// `findNodeRoles`: `node-role.kubernetes.io/<role>` keys and `kubernetes.io/role=<role>`, sorted.
fn roles(node: &Value) -> String {
    let mut roles = BTreeSet::new();
    for (k, v) in obj_at(node, &["metadata", "labels"]).into_iter().flatten() {
        if let Some(role) = k.strip_prefix(LABEL_NODE_ROLE_PREFIX) {
            if !role.is_empty() {
                roles.insert(role.to_string());
            }
        } else if k == NODE_LABEL_ROLE {
            let v = v.as_str().unwrap_or("");
            if !v.is_empty() {
                roles.insert(v.to_string());
            }
        }
    }
    if roles.is_empty() {
        "<none>".to_string()
    } else {
        roles.into_iter().collect::<Vec<_>>().join(",")
    }
}

/// The first address of a type, or `<none>`.
fn address(node: &Value, type_: &str) -> Value {
    let found = arr_at(node, &["status", "addresses"])
        .iter()
        .find(|a| str_at(a, &["type"]) == type_)
        .map(|a| str_at(a, &["address"]));
    Value::from(found.unwrap_or("<none>"))
}

fn or_unknown(s: &str) -> Value {
    Value::from(if s.is_empty() { "<unknown>" } else { s })
}

pub fn cells(node: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let info = at(node, &["status", "nodeInfo"]);
    vec![
        name(node),
        Value::from(status(node)),
        Value::from(roles(node)),
        age(node, now),
        Value::from(str_at(info, &["kubeletVersion"])),
        address(node, "InternalIP"),
        address(node, "ExternalIP"),
        or_unknown(str_at(info, &["osImage"])),
        or_unknown(str_at(info, &["kernelVersion"])),
        or_unknown(str_at(info, &["containerRuntimeVersion"])),
    ]
}
