//! The node lifecycle controller's tainting passes (`pkg/controller/nodelifecycle`): the
//! `node.kubernetes.io/unschedulable` taint follows `spec.unschedulable`, and the not-ready /
//! unreachable taints follow the Ready condition, so the scheduler and the DaemonSet controller
//! see cordoned and unhealthy nodes the way they do on a real cluster. Its label pass
//! (`reconcileNodeLabels`) keeps the deprecated `beta.kubernetes.io/os` and `/arch` labels equal
//! to the stable ones.

use std::time::Duration;

use serde_json::{json, Value};

use super::Controller;
use crate::api::{meta, Api, WriteOptions};
use crate::registry;
use crate::store::Event;

pub const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";
pub const NOT_READY: &str = "node.kubernetes.io/not-ready";
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";

#[derive(Default)]
pub struct NodeLifecycle;

/// The NoSchedule taints the node's state calls for (doNoScheduleTaintingPass).
fn wanted_no_schedule(node: &Value) -> Vec<&'static str> {
    let mut keys = Vec::new();
    if let Some(ready) = node["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Ready"))
    {
        match ready["status"].as_str() {
            Some("False") => keys.push(NOT_READY),
            Some("Unknown") => keys.push(UNREACHABLE),
            _ => {}
        }
    }
    if node["spec"]["unschedulable"].as_bool() == Some(true) {
        keys.push(UNSCHEDULABLE);
    }
    keys
}

/// The NoExecute taint for an unhealthy node (doNoExecuteTaintingPass), if any.
fn wanted_no_execute(node: &Value) -> Option<&'static str> {
    let ready = node["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Ready"))?;
    match ready["status"].as_str() {
        Some("False") => Some(NOT_READY),
        Some("Unknown") => Some(UNREACHABLE),
        _ => None,
    }
}

/// `labelReconcileInfo`: (primary, secondary); the secondary label follows the primary and is
/// added when missing (`ensureSecondaryExists`).
const LABEL_PAIRS: [(&str, &str); 2] = [
    ("kubernetes.io/os", "beta.kubernetes.io/os"),
    ("kubernetes.io/arch", "beta.kubernetes.io/arch"),
];

/// `reconcileNodeLabels`: the labels to set, if any.
pub fn labels_to_update(node: &Value) -> Vec<(&'static str, String)> {
    let labels = &node["metadata"]["labels"];
    LABEL_PAIRS
        .iter()
        .filter_map(|(primary, secondary)| {
            let value = labels[*primary].as_str()?;
            (labels[*secondary].as_str() != Some(value)).then(|| (*secondary, value.to_string()))
        })
        .collect()
}

fn managed_key(key: &str) -> bool {
    key == UNSCHEDULABLE || key == NOT_READY || key == UNREACHABLE
}

/// The taints a node should carry, keeping every taint this controller does not manage.
pub fn desired_taints(node: &Value) -> Vec<Value> {
    let current: Vec<Value> = node["spec"]["taints"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let no_schedule = wanted_no_schedule(node);
    let no_execute = wanted_no_execute(node);
    let mut out: Vec<Value> = current
        .iter()
        .filter(|t| {
            let key = t["key"].as_str().unwrap_or("");
            if !managed_key(key) {
                return true;
            }
            match t["effect"].as_str() {
                Some("NoSchedule") => no_schedule.contains(&key),
                Some("NoExecute") => no_execute == Some(key),
                _ => true,
            }
        })
        .cloned()
        .collect();
    for key in no_schedule {
        if !out
            .iter()
            .any(|t| t["key"] == key && t["effect"] == "NoSchedule")
        {
            // SwapNodeControllerTaint stamps every taint it adds with timeAdded.
            out.push(json!({"key": key, "effect": "NoSchedule", "timeAdded": meta::now()}));
        }
    }
    if let Some(key) = no_execute {
        if !out
            .iter()
            .any(|t| t["key"] == key && t["effect"] == "NoExecute")
        {
            out.push(json!({"key": key, "effect": "NoExecute", "timeAdded": meta::now()}));
        }
    }
    out
}

impl Controller for NodeLifecycle {
    fn name(&self) -> &'static str {
        "node-lifecycle"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::NODES)
    }

    fn reconcile(&mut self, api: &Api) -> Option<Duration> {
        for node in api.store().list(&registry::NODES, None).0 {
            let want = desired_taints(&node.value);
            let have: Vec<Value> = node.value["spec"]["taints"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let labels = labels_to_update(&node.value);
            if want == have && labels.is_empty() {
                continue;
            }
            let mut updated = node.value.clone();
            if let Some(metadata) = updated["metadata"].as_object_mut() {
                if let Some(map) = metadata
                    .entry("labels")
                    .or_insert_with(|| json!({}))
                    .as_object_mut()
                {
                    for (key, value) in labels {
                        map.insert(key.into(), value.into());
                    }
                }
            }
            if want.is_empty() {
                if let Some(spec) = updated["spec"].as_object_mut() {
                    spec.remove("taints");
                }
            } else {
                updated["spec"]["taints"] = json!(want);
            }
            if let Err(e) = api.update(
                &registry::NODES,
                "",
                node.name(),
                updated,
                None,
                &WriteOptions::default(),
            ) {
                tracing::debug!(error = %e, node = node.name(), "tainting");
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cordon_adds_the_unschedulable_taint_and_uncordon_removes_it() {
        let node = json!({"spec": {"unschedulable": true, "taints": [{"key": "gpu", "value": "x", "effect": "NoSchedule"}]},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        let t = desired_taints(&node);
        assert_eq!(t.len(), 2);
        assert_eq!(t[1]["key"], UNSCHEDULABLE);
        assert_eq!(t[1]["effect"], "NoSchedule");
        assert!(t[1]["timeAdded"].is_string());
        let uncordoned = json!({"spec": {"taints": t}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        assert_eq!(
            desired_taints(&uncordoned),
            vec![json!({"key": "gpu", "value": "x", "effect": "NoSchedule"})]
        );
    }

    #[test]
    fn the_beta_os_and_arch_labels_follow_the_stable_ones() {
        let node = json!({"metadata": {"labels": {"kubernetes.io/os": "linux", "kubernetes.io/arch": "arm64",
            "beta.kubernetes.io/arch": "amd64"}}});
        assert_eq!(
            labels_to_update(&node),
            vec![
                ("beta.kubernetes.io/os", "linux".to_string()),
                ("beta.kubernetes.io/arch", "arm64".to_string())
            ]
        );
        let bare = json!({"metadata": {"labels": {"gpu": "true"}}});
        assert!(
            labels_to_update(&bare).is_empty(),
            "no primary label, nothing to add"
        );
    }

    #[test]
    fn a_ready_node_loses_the_admission_not_ready_taint() {
        let node = json!({"spec": {"taints": [{"key": NOT_READY, "effect": "NoSchedule"}]},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        assert!(desired_taints(&node).is_empty());
        let not_ready = json!({"status": {"conditions": [{"type": "Ready", "status": "False"}]}});
        let t = desired_taints(&not_ready);
        assert_eq!(
            (t[0]["key"].as_str(), t[0]["effect"].as_str()),
            (Some(NOT_READY), Some("NoSchedule"))
        );
        assert_eq!(t[1]["effect"], "NoExecute");
    }
}
