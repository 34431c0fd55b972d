//! Pods (`printPod` in `k/k pkg/printers/internalversion/printers.go`, 1.32 with sidecar support).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::column::Column;
use super::docs;
use super::duration::since;
use super::values::{age, arr_at, at, bool_at, int_at, is_set, name, str_at, time_at};

pub const COLUMNS: &[Column] = &[
    Column::name(),
    Column::new(
        "Ready",
        "string",
        "The aggregate readiness state of this pod for accepting traffic.",
    ),
    Column::new(
        "Status",
        "string",
        "The aggregate status of the containers in this pod.",
    ),
    Column::new(
        "Restarts",
        "string",
        "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    ),
    Column::age(),
    Column::new("IP", "string", docs::POD_IP).wide(),
    Column::new("Node", "string", docs::POD_NODE_NAME).wide(),
    Column::new("Nominated Node", "string", docs::POD_NOMINATED_NODE).wide(),
    Column::new("Readiness Gates", "string", docs::POD_READINESS_GATES).wide(),
];

/// `node.NodeUnreachablePodReason`.
const NODE_LOST: &str = "NodeLost";

fn has_condition(pod: &Value, type_: &str) -> bool {
    arr_at(pod, &["status", "conditions"])
        .iter()
        .find(|c| str_at(c, &["type"]) == type_)
        .is_some_and(|c| str_at(c, &["status"]) == "True")
}

/// `hasPodReadyCondition`: any `Ready` condition that is `True`.
fn has_pod_ready_condition(pod: &Value) -> bool {
    arr_at(pod, &["status", "conditions"])
        .iter()
        .any(|c| str_at(c, &["type"]) == "Ready" && str_at(c, &["status"]) == "True")
}

/// The latest `lastState.terminated.finishedAt` (`metav1.Time.Before` keeps the later one).
fn later(current: Option<DateTime<Utc>>, status: &Value) -> Option<DateTime<Utc>> {
    let finished = time_at(status, &["lastState", "terminated", "finishedAt"]);
    match (current, finished) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// Status text for a terminated container without a reason: `Signal:N` or `ExitCode:N`.
fn exit_text(terminated: &Value) -> String {
    let signal = int_at(terminated, &["signal"]);
    if signal != 0 {
        format!("Signal:{signal}")
    } else {
        format!("ExitCode:{}", int_at(terminated, &["exitCode"]))
    }
}

struct Summary {
    ready: usize,
    total: usize,
    reason: String,
    restarts: String,
}

fn summarize(pod: &Value, now: DateTime<Utc>) -> Summary {
    let spec = at(pod, &["spec"]);
    let status = at(pod, &["status"]);
    let init_specs = arr_at(spec, &["initContainers"]);
    let sidecars: HashSet<&str> = init_specs
        .iter()
        .filter(|c| str_at(c, &["restartPolicy"]) == "Always")
        .map(|c| str_at(c, &["name"]))
        .collect();
    let total = arr_at(spec, &["containers"]).len() + sidecars.len();
    let mut ready = 0;

    let phase = str_at(status, &["phase"]);
    let mut reason = match str_at(status, &["reason"]) {
        "" => phase.to_string(),
        r => r.to_string(),
    };
    for cond in arr_at(status, &["conditions"]) {
        if str_at(cond, &["type"]) == "PodScheduled"
            && str_at(cond, &["reason"]) == "SchedulingGated"
        {
            reason = "SchedulingGated".to_string();
        }
    }

    let mut restarts = 0;
    let mut sidecar_restarts = 0;
    let mut last_restart = None;
    let mut last_sidecar_restart = None;
    let mut initializing = false;
    for (i, c) in arr_at(status, &["initContainerStatuses"])
        .iter()
        .enumerate()
    {
        let count = int_at(c, &["restartCount"]);
        restarts += count;
        last_restart = later(last_restart, c);
        let is_sidecar = sidecars.contains(str_at(c, &["name"]));
        if is_sidecar {
            sidecar_restarts += count;
            last_sidecar_restart = later(last_sidecar_restart, c);
        }
        let terminated = at(c, &["state", "terminated"]);
        let waiting = at(c, &["state", "waiting"]);
        if is_set(terminated) && int_at(terminated, &["exitCode"]) == 0 {
            continue;
        }
        if is_sidecar && bool_at(c, &["started"]) {
            if bool_at(c, &["ready"]) {
                ready += 1;
            }
            continue;
        }
        if is_set(terminated) {
            reason = match str_at(terminated, &["reason"]) {
                "" => format!("Init:{}", exit_text(terminated)),
                r => format!("Init:{r}"),
            };
        } else if !str_at(waiting, &["reason"]).is_empty()
            && str_at(waiting, &["reason"]) != "PodInitializing"
        {
            reason = format!("Init:{}", str_at(waiting, &["reason"]));
        } else {
            reason = format!("Init:{i}/{}", init_specs.len());
        }
        initializing = true;
        break;
    }

    if !initializing || has_condition(pod, "Initialized") {
        restarts = sidecar_restarts;
        last_restart = last_sidecar_restart;
        let mut has_running = false;
        for c in arr_at(status, &["containerStatuses"]).iter().rev() {
            restarts += int_at(c, &["restartCount"]);
            last_restart = later(last_restart, c);
            let waiting = at(c, &["state", "waiting"]);
            let terminated = at(c, &["state", "terminated"]);
            if is_set(waiting) && !str_at(waiting, &["reason"]).is_empty() {
                reason = str_at(waiting, &["reason"]).to_string();
            } else if is_set(terminated) && !str_at(terminated, &["reason"]).is_empty() {
                reason = str_at(terminated, &["reason"]).to_string();
            } else if is_set(terminated) {
                reason = exit_text(terminated);
            } else if bool_at(c, &["ready"]) && is_set(at(c, &["state", "running"])) {
                has_running = true;
                ready += 1;
            }
        }
        // A completed container next to a running one: the pod is still running.
        if reason == "Completed" && has_running {
            reason = if has_pod_ready_condition(pod) {
                "Running".to_string()
            } else {
                "NotReady".to_string()
            };
        }
    }

    let deleting = is_set(at(pod, &["metadata", "deletionTimestamp"]));
    if deleting && str_at(status, &["reason"]) == NODE_LOST {
        reason = "Unknown".to_string();
    } else if deleting && phase != "Succeeded" && phase != "Failed" {
        reason = "Terminating".to_string();
    }

    let restarts_text = match last_restart {
        Some(t) if restarts != 0 => format!("{restarts} ({} ago)", since(Some(t), now)),
        _ => restarts.to_string(),
    };
    Summary {
        ready,
        total,
        reason,
        restarts: restarts_text,
    }
}

fn or_none(s: &str) -> Value {
    Value::from(if s.is_empty() { "<none>" } else { s })
}

/// `n/m` of the readiness gates whose condition is `True`, or `<none>`.
fn readiness_gates(pod: &Value) -> String {
    let gates = arr_at(pod, &["spec", "readinessGates"]);
    if gates.is_empty() {
        return "<none>".to_string();
    }
    let conditions = arr_at(pod, &["status", "conditions"]);
    let true_count = gates
        .iter()
        .filter(|g| {
            let type_ = str_at(g, &["conditionType"]);
            conditions
                .iter()
                .find(|c| str_at(c, &["type"]) == type_)
                .is_some_and(|c| str_at(c, &["status"]) == "True")
        })
        .count();
    format!("{true_count}/{}", gates.len())
}

pub fn cells(pod: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let s = summarize(pod, now);
    let status = at(pod, &["status"]);
    // The internal pod's PodIPs[0]; a v1 object with only podIP converts to that single address.
    let ip = arr_at(status, &["podIPs"])
        .first()
        .map(|p| str_at(p, &["ip"]))
        .unwrap_or_else(|| str_at(status, &["podIP"]));
    vec![
        name(pod),
        Value::from(format!("{}/{}", s.ready, s.total)),
        Value::from(s.reason),
        Value::from(s.restarts),
        age(pod, now),
        or_none(ip),
        or_none(str_at(pod, &["spec", "nodeName"])),
        or_none(str_at(status, &["nominatedNodeName"])),
        Value::from(readiness_gates(pod)),
    ]
}

/// Row conditions of finished pods (`podSuccessConditions` / `podFailedConditions`).
pub fn conditions(pod: &Value) -> Option<Value> {
    match str_at(pod, &["status", "phase"]) {
        "Succeeded" => Some(json!([{
            "type": "Completed", "status": "True", "reason": "Succeeded",
            "message": "The pod has completed successfully."
        }])),
        "Failed" => Some(json!([{
            "type": "Completed", "status": "True", "reason": "Failed",
            "message": "The pod failed."
        }])),
        _ => None,
    }
}
