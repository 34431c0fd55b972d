//! The taints the node lifecycle controller owns: the NoSchedule taints that mirror a node's
//! conditions and `spec.unschedulable` (`nodeConditionToTaintKeyStatusMap`,
//! `doNoScheduleTaintingPass`), and the two NoExecute taints of an unhealthy node
//! (`NotReadyTaintTemplate`, `UnreachableTaintTemplate`), edited as `SwapNodeControllerTaint` does.

use serde_json::{json, Value};

use crate::podutil::condition;

pub const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";
pub const NOT_READY: &str = "node.kubernetes.io/not-ready";
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
const MEMORY_PRESSURE: &str = "node.kubernetes.io/memory-pressure";
const DISK_PRESSURE: &str = "node.kubernetes.io/disk-pressure";
const NETWORK_UNAVAILABLE: &str = "node.kubernetes.io/network-unavailable";
const PID_PRESSURE: &str = "node.kubernetes.io/pid-pressure";

pub const NO_SCHEDULE: &str = "NoSchedule";
pub const NO_EXECUTE: &str = "NoExecute";

/// `nodeConditionToTaintKeyStatusMap`: (condition type, status, taint key).
const CONDITION_TAINTS: [(&str, &str, &str); 6] = [
    ("Ready", "False", NOT_READY),
    ("Ready", "Unknown", UNREACHABLE),
    ("MemoryPressure", "True", MEMORY_PRESSURE),
    ("DiskPressure", "True", DISK_PRESSURE),
    ("NetworkUnavailable", "True", NETWORK_UNAVAILABLE),
    ("PIDPressure", "True", PID_PRESSURE),
];

/// The status of the node's Ready condition, if it has one.
pub fn ready_status(node: &Value) -> Option<&str> {
    condition(node, "Ready").and_then(|c| c["status"].as_str())
}

fn taints(node: &Value) -> Vec<Value> {
    node["spec"]["taints"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// `MatchTaint`: the same key and effect.
fn matches(taint: &Value, (key, effect): (&str, &str)) -> bool {
    taint["key"] == key && taint["effect"] == effect
}

/// `TaintExists` for a template.
pub fn has_taint(node: &Value, template: (&str, &str)) -> bool {
    taints(node).iter().any(|t| matches(t, template))
}

/// The node's taints after `SwapNodeControllerTaint(add, remove)`: each taint added is stamped
/// with `timeAdded` and, as `AddOrUpdateTaint` does, takes the place of one with its key and
/// effect (or goes to the end); then every taint matching one to remove goes. `None` when
/// nothing changes.
pub fn swap(
    node: &Value,
    add: &[(&str, &str)],
    remove: &[(&str, &str)],
    now: &str,
) -> Option<Vec<Value>> {
    let before = taints(node);
    let mut after = before.clone();
    for &(key, effect) in add {
        let taint = json!({"key": key, "effect": effect, "timeAdded": now});
        match after.iter_mut().find(|t| matches(t, (key, effect))) {
            Some(existing) => *existing = taint,
            None => after.push(taint),
        }
    }
    after.retain(|t| !remove.iter().any(|template| matches(t, *template)));
    (after != before).then_some(after)
}

/// `doNoScheduleTaintingPass`: the NoSchedule taints the node's conditions and
/// `spec.unschedulable` call for, and those of them it carries but no longer should; as
/// (to add, to remove) templates.
pub fn no_schedule_changes(node: &Value) -> (Vec<(&'static str, &'static str)>, Vec<String>) {
    let mut wanted: Vec<&'static str> = CONDITION_TAINTS
        .iter()
        .filter(|(type_, status, _)| {
            condition(node, type_).is_some_and(|c| c["status"].as_str() == Some(status))
        })
        .map(|(_, _, key)| *key)
        .collect();
    if node["spec"]["unschedulable"].as_bool() == Some(true) {
        wanted.push(UNSCHEDULABLE);
    }
    let owned = |key: &str| key == UNSCHEDULABLE || CONDITION_TAINTS.iter().any(|c| c.2 == key);
    let have: Vec<String> = taints(node)
        .iter()
        .filter(|t| t["effect"] == NO_SCHEDULE)
        .filter_map(|t| t["key"].as_str())
        .filter(|key| owned(key))
        .map(str::to_string)
        .collect();
    let add = wanted
        .iter()
        .filter(|key| !have.iter().any(|h| h == *key))
        .map(|key| (*key, NO_SCHEDULE))
        .collect();
    let remove = have
        .into_iter()
        .filter(|key| !wanted.contains(&key.as_str()))
        .collect();
    (add, remove)
}

/// The node's taints with its NoSchedule taints brought in line with its state, if they change.
pub fn no_schedule_pass(node: &Value, now: &str) -> Option<Vec<Value>> {
    let (add, remove) = no_schedule_changes(node);
    let remove: Vec<(&str, &str)> = remove.iter().map(|k| (k.as_str(), NO_SCHEDULE)).collect();
    swap(node, &add, &remove, now)
}
