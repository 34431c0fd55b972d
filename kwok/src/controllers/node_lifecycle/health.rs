//! `tryUpdateNodeHealth`: when the controller last saw a node's kubelet alive — its Ready
//! condition's heartbeat moved or its Lease in `kube-node-lease` was renewed — and, once that is
//! longer ago than the grace period, the node's conditions set to `Unknown` as upstream writes
//! them ("Kubelet stopped posting node status.", or "never posted" for a node that never had a
//! Ready condition, whose clock starts at its creation).
//!
//! Like upstream, a probe is timed when the controller notices the change, not by the times the
//! kubelet writes, so a snapshot restored with its clock moved on does not look stale to a node
//! with a kubelet; one that never posted a status is judged from its `creationTimestamp`, which
//! such a restore moves on too.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{json, Value};

use crate::meta;
use crate::podutil::{condition, parse_time};

/// `--node-monitor-grace-period`'s default (`RecommendedDefaultNodeLifecycleControllerConfiguration`).
pub const MONITOR_GRACE: TimeDelta = TimeDelta::seconds(50);
/// `--node-startup-grace-period`'s default: for a node that never posted a Ready condition.
pub const STARTUP_GRACE: TimeDelta = TimeDelta::seconds(60);

/// The conditions a silent node's are set to Unknown (`NetworkUnavailable` is the control plane's).
const KUBELET_CONDITIONS: [&str; 4] = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

/// `nodeHealthData`, as far as this controller reads it.
#[derive(Debug, Clone)]
struct Seen {
    /// The Ready condition's `lastHeartbeatTime` last seen; `None`: the node had no Ready condition.
    heartbeat: Option<Value>,
    lease_renewed: Option<DateTime<Utc>>,
    probe: DateTime<Utc>,
}

/// What one look at a node found.
#[derive(Debug)]
pub struct Health {
    /// The Ready status the node showed (`Unknown` for a node that never posted one).
    pub observed: String,
    /// Its Ready status after this look, `None` while a new node has none.
    pub current: Option<String>,
    /// The node with its conditions set to Unknown, to write with `UpdateStatus`.
    pub update: Option<Value>,
    /// When the grace period runs out, if it has not.
    pub deadline: Option<DateTime<Utc>>,
}

#[derive(Debug, Default)]
pub struct HealthMap {
    nodes: BTreeMap<String, Seen>,
}

fn renew_time(lease: &Value) -> Option<DateTime<Utc>> {
    parse_time(&lease["spec"]["renewTime"])
}

impl HealthMap {
    /// A node's Lease changed: a renewal counts as a probe when it moves the renew time on.
    pub fn lease_seen(&mut self, node: &str, lease: &Value, now: DateTime<Utc>) {
        let (Some(seen), Some(renewed)) = (self.nodes.get_mut(node), renew_time(lease)) else {
            return;
        };
        if seen.lease_renewed.is_none_or(|last| last < renewed) {
            seen.lease_renewed = Some(renewed);
            seen.probe = now;
        }
    }

    pub fn forget(&mut self, node: &str) {
        self.nodes.remove(node);
    }

    /// Leaving full disruption mode: every node's clock starts again.
    pub fn reset_probes(&mut self, now: DateTime<Utc>) {
        for seen in self.nodes.values_mut() {
            seen.probe = now;
        }
    }

    /// `tryUpdateNodeHealth` for `node` and its Lease, at `now`.
    pub fn check(&mut self, node: &Value, lease: Option<&Value>, now: DateTime<Utc>) -> Health {
        let name = meta::name(node).to_string();
        let created = &node["metadata"]["creationTimestamp"];
        let current = condition(node, "Ready").cloned();
        let (observed, grace) = match &current {
            // A stand-in dated at the node's creation, as upstream makes one.
            None => (
                json!({"type": "Ready", "status": "Unknown",
                       "lastHeartbeatTime": created, "lastTransitionTime": created}),
                STARTUP_GRACE,
            ),
            Some(ready) => (ready.clone(), MONITOR_GRACE),
        };
        let heartbeat = current.as_ref().map(|c| c["lastHeartbeatTime"].clone());
        let fresh = Seen {
            heartbeat: heartbeat.clone(),
            lease_renewed: None,
            probe: now,
        };
        let mut seen = match (self.nodes.remove(&name), &current) {
            (Some(mut seen), None) => {
                seen.heartbeat = None;
                seen
            }
            (None, None) => Seen {
                heartbeat: None,
                lease_renewed: None,
                probe: parse_time(created).unwrap_or(now),
            },
            (None, Some(_)) => fresh,
            (Some(seen), Some(_)) if seen.heartbeat.is_none() => fresh,
            (Some(seen), Some(_)) if seen.heartbeat != heartbeat => Seen {
                lease_renewed: seen.lease_renewed,
                ..fresh
            },
            (Some(seen), Some(_)) => seen,
        };
        if let Some(renewed) = lease.and_then(renew_time) {
            if seen.lease_renewed.is_none_or(|last| last < renewed) {
                seen.lease_renewed = Some(renewed);
                seen.probe = now;
            }
        }

        let status = |c: &Value| c["status"].as_str().unwrap_or("").to_string();
        let mut health = Health {
            observed: status(&observed),
            current: current.as_ref().map(status),
            update: None,
            deadline: None,
        };
        if now <= seen.probe + grace {
            health.deadline = Some(seen.probe + grace);
        } else {
            let stamp = meta::time(now);
            let mut updated = node.clone();
            for type_ in KUBELET_CONDITIONS {
                set_unknown(&mut updated, type_, created, &stamp);
            }
            let ready = condition(&updated, "Ready").cloned();
            if ready.as_ref() != Some(&observed) {
                health.current = ready.as_ref().map(status);
                seen.heartbeat = ready.map(|c| c["lastHeartbeatTime"].clone());
                health.update = Some(updated);
            }
        }
        self.nodes.insert(name, seen);
        health
    }
}

/// One condition of a node whose kubelet went silent, as `tryUpdateNodeHealth` sets it.
fn set_unknown(node: &mut Value, type_: &str, created: &Value, now: &str) {
    if !node["status"]["conditions"].is_array() {
        node["status"]["conditions"] = json!([]);
    }
    let Some(conditions) = node["status"]["conditions"].as_array_mut() else {
        return;
    };
    match conditions.iter_mut().find(|c| c["type"] == type_) {
        None => conditions.push(json!({
            "type": type_, "status": "Unknown",
            "lastHeartbeatTime": created, "lastTransitionTime": now,
            "reason": "NodeStatusNeverUpdated", "message": "Kubelet never posted node status.",
        })),
        Some(c) if c["status"] != "Unknown" => {
            c["status"] = json!("Unknown");
            c["reason"] = json!("NodeStatusUnknown");
            c["message"] = json!("Kubelet stopped posting node status.");
            c["lastTransitionTime"] = json!(now);
        }
        Some(_) => {}
    }
}
