//! The node lifecycle controller's tainting passes (`pkg/controller/nodelifecycle`): the
//! `node.kubernetes.io/unschedulable` taint follows `spec.unschedulable`, and the not-ready /
//! unreachable taints follow the Ready condition, so the scheduler and the DaemonSet controller
//! see cordoned and unhealthy nodes the way they do on a real cluster. Its label pass
//! (`reconcileNodeLabels`) keeps the deprecated `beta.kubernetes.io/os` and `/arch` labels equal
//! to the stable ones. Its health monitor (`monitorNodeHealth`) records `RegisteredNode` and
//! `RemovingNode` events as nodes come and go.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::events::Recorder;
use super::{Controller, Pass};
use crate::api::{meta, Api, WriteOptions};
use crate::registry;
use crate::store::Event;

pub const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";
pub const NOT_READY: &str = "node.kubernetes.io/not-ready";
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";

/// The controller's source component (`v1.EventSource{Component: "node-controller"}`).
const COMPONENT: &str = "node-controller";

pub struct NodeLifecycle {
    /// `knownNodeSet`: the nodes seen on the last pass, by name, with their uid.
    known: BTreeMap<String, String>,
    recorder: Recorder,
}

impl Default for NodeLifecycle {
    fn default() -> Self {
        Self {
            known: BTreeMap::new(),
            recorder: Recorder::new(COMPONENT),
        }
    }
}

/// `RecordNodeEvent`: an event about a node, named by a reference built from its name and uid
/// (no resourceVersion), worded "Node <name> event: <event>".
fn record_node_event(
    recorder: &Recorder,
    api: &Api,
    name: &str,
    uid: &str,
    reason: &str,
    event: &str,
) {
    let reference = json!({"kind": "Node", "name": name, "uid": uid, "apiVersion": "v1"});
    let message = format!("Node {name} event: {event}");
    recorder.event_about(api, reference, "Normal", reason, &message);
}

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

impl NodeLifecycle {
    /// `classifyNodes` and the events `monitorNodeHealth` records for nodes added and deleted
    /// since the last pass (compared by name, as `knownNodeSet` is).
    fn classify(&mut self, api: &Api, nodes: &[(&str, &str)]) {
        // Most passes follow a node's status or taints: the same nodes, nothing to record.
        if nodes.len() == self.known.len()
            && nodes.iter().all(|(name, _)| self.known.contains_key(*name))
        {
            return;
        }
        let seen: BTreeMap<String, String> = nodes
            .iter()
            .map(|(name, uid)| (name.to_string(), uid.to_string()))
            .collect();
        for (name, uid) in &seen {
            if !self.known.contains_key(name) {
                let event = format!("Registered Node {name} in Controller");
                record_node_event(&self.recorder, api, name, uid, "RegisteredNode", &event);
            }
        }
        for (name, uid) in &self.known {
            if !seen.contains_key(name) {
                let event = format!("Removing Node {name} from Controller");
                record_node_event(&self.recorder, api, name, uid, "RemovingNode", &event);
            }
        }
        self.known = seen;
    }
}

impl Controller for NodeLifecycle {
    fn name(&self) -> &'static str {
        "node-lifecycle"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::NODES)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let nodes = api.store().list(&registry::NODES, None).0;
        let names: Vec<(&str, &str)> = nodes
            .iter()
            .map(|node| (node.name(), meta::uid(&node.value)))
            .collect();
        self.classify(api, &names);
        for node in nodes {
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
            let written = api.update(
                &registry::NODES,
                "",
                node.name(),
                updated,
                None,
                &WriteOptions::default(),
            );
            pass.check("tainting a node", written);
        }
        pass
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

    /// The events of `monitorNodeHealth`, as the node lifecycle controller test reads them
    /// (`TestMonitorNodeHealthMarkPodsNotReady…`: reason RegisteredNode, from node-controller).
    #[test]
    fn nodes_coming_and_going_are_recorded_as_events() {
        use crate::api::DeleteOptions;
        let api = Api::new(std::sync::Arc::new(crate::store::Store::new()));
        api.bootstrap().expect("system namespaces");
        let node =
            |name: &str| json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}});
        let options = WriteOptions::default();
        let a = api
            .create(&registry::NODES, "", node("a"), &options)
            .expect("a");
        let mut controller = NodeLifecycle::default();
        assert!(!controller.reconcile(&api).failed());
        api.create(&registry::NODES, "", node("b"), &options)
            .expect("b");
        api.delete(&registry::NODES, "", "a", &DeleteOptions::default())
            .expect("gone");
        assert!(!controller.reconcile(&api).failed());
        assert!(!controller.reconcile(&api).failed());

        let events = api.store().list(&registry::EVENTS, Some("default")).0;
        let mut seen: Vec<(&str, &str, &str)> = events
            .iter()
            .map(|e| {
                let v = &e.value;
                let text = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or("");
                (
                    text("/reason"),
                    text("/message"),
                    text("/involvedObject/name"),
                )
            })
            .collect();
        seen.sort();
        assert_eq!(
            seen,
            [
                (
                    "RegisteredNode",
                    "Node a event: Registered Node a in Controller",
                    "a"
                ),
                (
                    "RegisteredNode",
                    "Node b event: Registered Node b in Controller",
                    "b"
                ),
                (
                    "RemovingNode",
                    "Node a event: Removing Node a from Controller",
                    "a"
                ),
            ]
        );
        let first = events
            .iter()
            .map(|e| &e.value)
            .find(|e| e["reason"] == "RegisteredNode" && e["involvedObject"]["name"] == "a")
            .expect("a registered");
        assert_eq!(first["source"], json!({"component": "node-controller"}));
        assert_eq!(first["involvedObject"]["uid"], a.value["metadata"]["uid"]);
        assert_eq!(first["involvedObject"]["kind"], "Node");
        assert!(first["involvedObject"].get("resourceVersion").is_none());
    }
}
