//! The ReplicaSet's status (`calculateStatus` and `updateReplicaSetStatus` in
//! `replica_set_utils.go`).

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::access::spec_replicas;
use super::REPLICA_FAILURE;
use crate::meta;
use crate::podutil::{availability, Availability};
use crate::store::Stored;

#[derive(Debug, Default, PartialEq)]
pub(super) struct PodCounts {
    pub(super) replicas: i64,
    pub(super) fully_labeled: i64,
    pub(super) ready: i64,
    pub(super) available: i64,
    /// When the next ready-but-not-yet-available pod becomes available.
    pub(super) next_available: Option<DateTime<Utc>>,
}

impl PodCounts {
    pub(super) fn of(rs: &Value, pods: &[Stored], now: DateTime<Utc>) -> Self {
        let template_labels = rs["spec"]["template"]["metadata"]["labels"].as_object();
        let min_ready = rs["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
        let mut c = PodCounts {
            replicas: pods.len() as i64,
            ..Default::default()
        };
        for pod in pods {
            let labels = meta::labels(&pod.value);
            let fully = template_labels
                .into_iter()
                .flatten()
                .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v));
            if fully {
                c.fully_labeled += 1;
            }
            match availability(&pod.value, min_ready, now) {
                Availability::NotReady => {}
                Availability::Available => {
                    c.ready += 1;
                    c.available += 1;
                }
                Availability::After(at) => {
                    c.ready += 1;
                    c.next_available =
                        Some(c.next_available.map_or(at, |n: DateTime<Utc>| n.min(at)));
                }
                Availability::Never => c.ready += 1,
            }
        }
        c
    }
}

/// `calculateStatus`: the counts, plus a ReplicaFailure condition while creates or deletes fail.
/// `observedGeneration` is left as it was ([`with_observed_generation`] sets it on write).
pub(super) fn calculate_status(
    rs: &Value,
    counts: &PodCounts,
    manage_err: Option<&str>,
    now: &str,
) -> Value {
    let old = &rs["status"];
    let mut conditions: Vec<Value> = old["conditions"].as_array().cloned().unwrap_or_default();
    let failure = conditions.iter().position(|c| c["type"] == REPLICA_FAILURE);
    match (manage_err, failure) {
        (Some(message), None) => {
            let want = spec_replicas(rs);
            let reason = match counts.replicas.cmp(&want) {
                std::cmp::Ordering::Less => "FailedCreate",
                std::cmp::Ordering::Greater => "FailedDelete",
                std::cmp::Ordering::Equal => "",
            };
            let mut c = Map::new();
            c.insert("type".into(), json!(REPLICA_FAILURE));
            c.insert("status".into(), json!("True"));
            c.insert("lastTransitionTime".into(), json!(now));
            if !reason.is_empty() {
                c.insert("reason".into(), json!(reason));
            }
            c.insert("message".into(), json!(message));
            conditions.push(Value::Object(c));
        }
        (None, Some(i)) => {
            conditions.remove(i);
        }
        _ => {}
    }
    // Zeros are omitted (omitempty), except `replicas`.
    let mut s = old.as_object().cloned().unwrap_or_default();
    s.insert("replicas".into(), json!(counts.replicas));
    for (key, n) in [
        ("fullyLabeledReplicas", counts.fully_labeled),
        ("readyReplicas", counts.ready),
        ("availableReplicas", counts.available),
    ] {
        if n != 0 {
            s.insert(key.into(), json!(n));
        } else {
            s.remove(key);
        }
    }
    if conditions.is_empty() {
        s.remove("conditions");
    } else {
        s.insert("conditions".into(), Value::Array(conditions));
    }
    Value::Object(go_order(s))
}

/// The status keys in the order Go encodes `ReplicaSetStatus`, unknown ones after.
fn go_order(mut s: Map<String, Value>) -> Map<String, Value> {
    const ORDER: [&str; 7] = [
        "replicas",
        "fullyLabeledReplicas",
        "readyReplicas",
        "availableReplicas",
        "terminatingReplicas",
        "observedGeneration",
        "conditions",
    ];
    let mut out = Map::new();
    for key in ORDER {
        if let Some(v) = s.remove(key) {
            out.insert(key.into(), v);
        }
    }
    out.extend(s);
    out
}

/// `updateReplicaSetStatus`'s steady-state check: counts, observed generation and conditions.
pub(super) fn status_changed(rs: &Value, new: &Value) -> bool {
    let old = &rs["status"];
    let n = |v: &Value, k: &str| v[k].as_i64().unwrap_or(0);
    let generation = rs["metadata"]["generation"].as_i64().unwrap_or(0);
    let conds = |v: &Value| v["conditions"].as_array().cloned().unwrap_or_default();
    [
        "replicas",
        "fullyLabeledReplicas",
        "readyReplicas",
        "availableReplicas",
    ]
    .iter()
    .any(|k| n(old, k) != n(new, k))
        || generation != n(old, "observedGeneration")
        || conds(old) != conds(new)
}

/// The status as written: it records the generation acted on.
pub(super) fn with_observed_generation(status: Value, rs: &Value) -> Value {
    let generation = rs["metadata"]["generation"].as_i64().unwrap_or(0);
    let mut s = status.as_object().cloned().unwrap_or_default();
    if generation != 0 {
        s.insert("observedGeneration".into(), json!(generation));
    } else {
        s.remove("observedGeneration");
    }
    Value::Object(go_order(s))
}
