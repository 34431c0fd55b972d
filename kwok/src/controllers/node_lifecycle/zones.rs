//! Zones and the rate at which unhealthy nodes get their NoExecute taint: each zone
//! (`nodetopology.GetZoneKey`) has a state computed from its nodes' Ready conditions
//! (`ComputeZoneState`) and a queue of nodes to taint behind a token bucket of burst 1
//! (`RateLimitedTimedQueue`, `--node-eviction-rate` 0.1/s). A zone with no Ready node is fully
//! disrupted; when every zone is, the controller assumes it is the one cut off, lifts the
//! NoExecute taints and stops tainting (`handleDisruption`). A partly disrupted zone of a small
//! cluster is not tainted at all (`ReducedQPSFunc`).

use std::collections::BTreeSet;

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;

use crate::meta;

/// `--node-eviction-rate`.
pub const EVICTION_QPS: f64 = 0.1;
/// `--secondary-node-eviction-rate`, for a partly disrupted zone of a large cluster.
const SECONDARY_EVICTION_QPS: f64 = 0.01;
/// `--large-cluster-size-threshold`.
const LARGE_CLUSTER_THRESHOLD: usize = 50;
/// `--unhealthy-zone-threshold`.
const UNHEALTHY_ZONE_THRESHOLD: f64 = 0.55;
/// A node with this label counts in no zone (`labelNodeDisruptionExclusion`).
const EXCLUDE_DISRUPTION: &str = "node.kubernetes.io/exclude-disruption";

/// `nodetopology.GetZoneKey`: region and zone, the deprecated labels first.
pub fn zone_key(node: &Value) -> String {
    let labels = &node["metadata"]["labels"];
    let first = |keys: [&str; 2]| {
        keys.iter()
            .find_map(|k| labels[*k].as_str())
            .unwrap_or("")
            .to_string()
    };
    let zone = first([
        "failure-domain.beta.kubernetes.io/zone",
        "topology.kubernetes.io/zone",
    ]);
    let region = first([
        "failure-domain.beta.kubernetes.io/region",
        "topology.kubernetes.io/region",
    ]);
    if region.is_empty() && zone.is_empty() {
        return String::new();
    }
    format!("{region}:\0:{zone}")
}

/// `isNodeExcludedFromDisruptionChecks`.
pub fn excluded_from_disruption(node: &Value) -> bool {
    meta::label(node, EXCLUDE_DISRUPTION).is_some()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneState {
    Initial,
    Normal,
    PartialDisruption,
    FullDisruption,
}

/// `ComputeZoneState`, from the Ready status of each node of the zone.
pub fn compute_zone_state(ready: &[Option<String>]) -> ZoneState {
    let ready_nodes = ready
        .iter()
        .filter(|s| s.as_deref() == Some("True"))
        .count();
    let not_ready = ready.len() - ready_nodes;
    if ready_nodes == 0 && not_ready > 0 {
        ZoneState::FullDisruption
    } else if not_ready > 2 && not_ready as f64 / ready.len() as f64 >= UNHEALTHY_ZONE_THRESHOLD {
        ZoneState::PartialDisruption
    } else {
        ZoneState::Normal
    }
}

/// The tainting rate for a zone entering `state` (`setLimiterInZone`: `HealthyQPSFunc`,
/// `ReducedQPSFunc`).
pub fn qps_for(state: ZoneState, zone_size: usize) -> f64 {
    match state {
        ZoneState::PartialDisruption if zone_size > LARGE_CLUSTER_THRESHOLD => {
            SECONDARY_EVICTION_QPS
        }
        ZoneState::PartialDisruption => 0.0,
        _ => EVICTION_QPS,
    }
}

/// client-go's token bucket limiter with a burst of one; a rate of zero never accepts
/// (`NewFakeNeverRateLimiter`).
#[derive(Debug, Clone)]
struct Limiter {
    qps: f64,
    tokens: f64,
    at: DateTime<Utc>,
}

impl Limiter {
    fn new(qps: f64, now: DateTime<Utc>) -> Self {
        Self {
            qps,
            tokens: 1.0,
            at: now,
        }
    }

    fn refill(&mut self, now: DateTime<Utc>) {
        let elapsed = (now - self.at).as_seconds_f64().max(0.0);
        self.tokens = (self.tokens + elapsed * self.qps).min(1.0);
        self.at = now;
    }

    fn try_accept(&mut self, now: DateTime<Utc>) -> bool {
        if self.qps <= 0.0 {
            return false;
        }
        self.refill(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// When the next token is there (`None`: never).
    fn next_token(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        if self.qps <= 0.0 {
            return None;
        }
        let mut probe = self.clone();
        probe.refill(now);
        let wait = ((1.0 - probe.tokens).max(0.0) / self.qps * 1e6).ceil();
        Some(now + TimeDelta::microseconds(wait as i64))
    }
}

/// One zone's `RateLimitedTimedQueue` of nodes to taint. A node stays known after it is
/// processed, so it is not queued again until [`Tainter::remove`] (as `UniqueQueue` keeps it).
#[derive(Debug)]
pub struct Tainter {
    limiter: Limiter,
    /// (node, when it may be processed), in that order.
    queue: Vec<(String, DateTime<Utc>)>,
    known: BTreeSet<String>,
}

/// What processing a queued node came to.
pub enum Outcome {
    Done,
    RetryAfter(TimeDelta),
}

impl Tainter {
    pub fn new(now: DateTime<Utc>) -> Self {
        Self {
            limiter: Limiter::new(EVICTION_QPS, now),
            queue: Vec::new(),
            known: BTreeSet::new(),
        }
    }

    pub fn add(&mut self, node: &str, now: DateTime<Utc>) -> bool {
        let added = self.known.insert(node.to_string());
        if added {
            self.queue.push((node.to_string(), now));
        }
        added
    }

    pub fn remove(&mut self, node: &str) -> bool {
        self.queue.retain(|(n, _)| n != node);
        self.known.remove(node)
    }

    /// `SwapLimiter`: a new bucket, drained if the old one had no token left.
    pub fn swap_limiter(&mut self, qps: f64, now: DateTime<Utc>) {
        if self.limiter.qps == qps {
            return;
        }
        let mut limiter = Limiter::new(qps, now);
        if qps > 0.0 && !self.limiter.try_accept(now) {
            limiter.try_accept(now);
        }
        self.limiter = limiter;
    }

    /// `Try`: process queued nodes in order while the limiter lets through and they are due.
    pub fn try_each(&mut self, now: DateTime<Utc>, mut process: impl FnMut(&str) -> Outcome) {
        while let Some((node, due)) = self.queue.first().cloned() {
            if !self.limiter.try_accept(now) || now < due {
                break;
            }
            self.queue.remove(0);
            if let Outcome::RetryAfter(wait) = process(&node) {
                let at = now + wait;
                let place = self.queue.partition_point(|(_, d)| *d <= at);
                self.queue.insert(place, (node, at));
            }
        }
    }

    /// When to try again, if anything is queued and the limiter will ever let it through.
    pub fn next_try(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let (_, due) = self.queue.first()?;
        let token = self.limiter.next_token(now)?;
        Some(token.max(*due))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn zone_keys_join_region_and_zone_and_prefer_the_deprecated_labels() {
        let node = |labels: Value| json!({"metadata": {"labels": labels}});
        assert_eq!(zone_key(&node(json!({}))), "");
        assert_eq!(
            zone_key(&node(json!({"topology.kubernetes.io/zone": "a"}))),
            ":\0:a"
        );
        assert_eq!(
            zone_key(&node(json!({"topology.kubernetes.io/region": "r",
                "failure-domain.beta.kubernetes.io/zone": "old", "topology.kubernetes.io/zone": "new"}))),
            "r:\0:old"
        );
    }

    /// `TestComputeZoneState`-style cases: no Ready node is full disruption, three or more
    /// unready at 55 % or more is partial.
    #[test]
    fn zone_state_follows_the_share_of_unready_nodes() {
        let states = |v: &[&str]| -> Vec<Option<String>> {
            v.iter()
                .map(|s| (!s.is_empty()).then(|| s.to_string()))
                .collect()
        };
        assert_eq!(
            compute_zone_state(&states(&["True", "False"])),
            ZoneState::Normal
        );
        assert_eq!(
            compute_zone_state(&states(&["Unknown", ""])),
            ZoneState::FullDisruption
        );
        assert_eq!(
            compute_zone_state(&states(&["True", "True", "False", "Unknown", ""])),
            ZoneState::PartialDisruption
        );
        assert_eq!(
            compute_zone_state(&states(&[
                "True", "True", "True", "False", "False", "False"
            ])),
            ZoneState::Normal,
            "half unready is under the threshold"
        );
        assert_eq!(compute_zone_state(&[]), ZoneState::Normal);
        assert_eq!(qps_for(ZoneState::PartialDisruption, 3), 0.0);
        assert_eq!(qps_for(ZoneState::PartialDisruption, 51), 0.01);
    }

    #[test]
    fn one_node_is_tainted_every_ten_seconds() {
        let t0 = Utc::now();
        let mut tainter = Tainter::new(t0);
        for node in ["a", "b", "c"] {
            assert!(tainter.add(node, t0));
        }
        assert!(!tainter.add("a", t0), "queued once");
        let mut done = Vec::new();
        let mut run = |tainter: &mut Tainter, at: DateTime<Utc>| {
            tainter.try_each(at, |n| {
                done.push(n.to_string());
                Outcome::Done
            });
        };
        run(&mut tainter, t0);
        assert_eq!(tainter.next_try(t0), Some(t0 + TimeDelta::seconds(10)));
        run(&mut tainter, t0 + TimeDelta::seconds(9));
        run(&mut tainter, t0 + TimeDelta::seconds(10));
        run(&mut tainter, t0 + TimeDelta::seconds(20));
        assert_eq!(done, ["a", "b", "c"]);
        assert!(!tainter.add("a", t0), "processed nodes stay known");
        assert!(tainter.remove("a"));
        assert!(tainter.add("a", t0));
    }

    #[test]
    fn a_zero_rate_never_taints_and_a_new_rate_starts_drained_if_the_old_was() {
        let t0 = Utc::now();
        let mut tainter = Tainter::new(t0);
        tainter.add("a", t0);
        tainter.add("b", t0);
        let mut count = 0;
        tainter.try_each(t0, |_| {
            count += 1;
            Outcome::Done
        });
        assert_eq!(count, 1);
        tainter.swap_limiter(0.0, t0);
        assert_eq!(tainter.next_try(t0), None);
        tainter.swap_limiter(EVICTION_QPS, t0 + TimeDelta::seconds(1));
        tainter.try_each(t0 + TimeDelta::seconds(1), |_| {
            count += 1;
            Outcome::Done
        });
        assert_eq!(
            count, 1,
            "the never-limiter refuses, so the new bucket starts drained"
        );
        assert_eq!(
            tainter.next_try(t0 + TimeDelta::seconds(1)),
            Some(t0 + TimeDelta::seconds(11))
        );
    }
}
