//! What the autoscaler makes of a proposed replica count (`horizontal.go`
//! `normalizeDesiredReplicas`, `normalizeDesiredReplicasWithBehaviors` and their helpers): the
//! recommendations of the stabilization window, the scale events the rate policies count, and the
//! conditions that say which of them held the count back.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::Value;

/// `--horizontal-pod-autoscaler-downscale-stabilization`.
const DOWNSCALE_STABILIZATION: Duration = Duration::from_secs(300);
/// `scaleUpLimitFactor`, `scaleUpLimitMinimum`: without a behavior, at most double or four.
const SCALE_UP_LIMIT_FACTOR: f64 = 2.0;
const SCALE_UP_LIMIT_MINIMUM: f64 = 4.0;

/// A condition the normalization sets: type, status, reason, message.
pub type Condition = (&'static str, &'static str, &'static str, &'static str);

#[derive(Debug, Clone, Copy)]
struct Recommendation {
    replicas: i64,
    at: Instant,
}

#[derive(Debug, Clone, Copy)]
struct ScaleEvent {
    change: i64,
    at: Instant,
    outdated: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum PolicyType {
    Pods,
    Percent,
}

#[derive(Debug, Clone, Copy)]
struct Policy {
    kind: PolicyType,
    value: i64,
    period: i64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Select {
    Max,
    Min,
    Disabled,
}

/// `HPAScalingRules` with upstream's defaults filled in.
#[derive(Debug, Clone)]
struct Rules {
    window: i64,
    select: Select,
    policies: Vec<Policy>,
}

impl Rules {
    /// `GenerateHPAScaleUpRules` / `GenerateHPAScaleDownRules` over what the spec gives.
    fn read(spec: &Value, up: bool) -> Rules {
        let default_policies = if up {
            vec![
                Policy {
                    kind: PolicyType::Pods,
                    value: 4,
                    period: 15,
                },
                Policy {
                    kind: PolicyType::Percent,
                    value: 100,
                    period: 15,
                },
            ]
        } else {
            vec![Policy {
                kind: PolicyType::Percent,
                value: 100,
                period: 15,
            }]
        };
        let policies = spec["policies"].as_array().map(|list| {
            list.iter()
                .map(|p| Policy {
                    kind: if p["type"] == "Pods" {
                        PolicyType::Pods
                    } else {
                        PolicyType::Percent
                    },
                    value: p["value"].as_i64().unwrap_or(0),
                    period: p["periodSeconds"].as_i64().unwrap_or(0),
                })
                .collect()
        });
        let default_window = if up {
            0
        } else {
            DOWNSCALE_STABILIZATION.as_secs() as i64
        };
        Rules {
            window: spec["stabilizationWindowSeconds"]
                .as_i64()
                .unwrap_or(default_window),
            select: match spec["selectPolicy"].as_str() {
                Some("Min") => Select::Min,
                Some("Disabled") => Select::Disabled,
                _ => Select::Max,
            },
            policies: policies.unwrap_or(default_policies),
        }
    }

    fn longest_period(&self) -> i64 {
        self.policies.iter().map(|p| p.period).max().unwrap_or(0)
    }
}

/// The memory of one autoscaler.
#[derive(Debug, Default)]
struct History {
    recommendations: Vec<Recommendation>,
    scale_ups: Vec<ScaleEvent>,
    scale_downs: Vec<ScaleEvent>,
}

impl History {
    /// Keeps the newest recommendation in place of one that fell out of every window (`old`),
    /// else beside the others.
    fn record(&mut self, old: Option<usize>, replicas: i64, at: Instant) {
        let newest = Recommendation { replicas, at };
        match old {
            Some(i) => self.recommendations[i] = newest,
            None => self.recommendations.push(newest),
        }
    }
}

/// Every autoscaler's history, by `namespace/name`.
#[derive(Debug, Default)]
pub struct Histories(HashMap<String, History>);

fn ago(at: Instant, now: Instant) -> Duration {
    now.saturating_duration_since(at)
}

fn seconds(s: i64) -> Duration {
    Duration::from_secs(u64::try_from(s).unwrap_or(0))
}

/// `getReplicasChangePerPeriod`.
fn change_in_period(period: i64, events: &[ScaleEvent], now: Instant) -> i64 {
    events
        .iter()
        .filter(|e| ago(e.at, now) < seconds(period))
        .map(|e| e.change)
        .sum()
}

impl Histories {
    /// `recordInitialRecommendation`.
    pub fn record_initial(&mut self, key: &str, current: i64) {
        let history = self.0.entry(key.to_string()).or_default();
        if history.recommendations.is_empty() {
            history.recommendations.push(Recommendation {
                replicas: current,
                at: Instant::now(),
            });
        }
    }

    pub fn forget(&mut self, keep: &dyn Fn(&str) -> bool) {
        self.0.retain(|key, _| keep(key));
    }

    /// `normalizeDesiredReplicas` (no behavior) or `normalizeDesiredReplicasWithBehaviors`: the
    /// count to scale to and the AbleToScale and ScalingLimited conditions.
    pub fn normalize(
        &mut self,
        key: &str,
        behavior: &Value,
        current: i64,
        proposed: i64,
        min: i64,
        max: i64,
    ) -> (i64, [Condition; 2]) {
        let now = Instant::now();
        let history = self.0.entry(key.to_string()).or_default();
        if behavior.is_null() {
            let stabilized = stabilize(history, proposed, now);
            let able = if stabilized != proposed {
                (
                    "AbleToScale",
                    "True",
                    "ScaleDownStabilized",
                    "recent recommendations were higher than current one, applying the highest recent recommendation",
                )
            } else {
                ready_for_new_scale()
            };
            let (desired, reason, message) = with_rules(current, stabilized, min, max);
            return (
                desired,
                [able, limited(desired == stabilized, reason, message)],
            );
        }
        let up = Rules::read(&behavior["scaleUp"], true);
        let down = Rules::read(&behavior["scaleDown"], false);
        let (stabilized, reason, message) =
            stabilize_with_behaviors(history, &up, &down, current, proposed, now);
        let able = if stabilized != proposed {
            ("AbleToScale", "True", reason, message)
        } else {
            ready_for_new_scale()
        };
        let (desired, reason, message) =
            with_behavior_rate(history, &up, &down, current, stabilized, min, max, now);
        (
            desired,
            [able, limited(desired == stabilized, reason, message)],
        )
    }

    /// `storeScaleEvent`: only an autoscaler with a behavior keeps its scale events.
    pub fn store_scale_event(&mut self, key: &str, behavior: &Value, previous: i64, new: i64) {
        if behavior.is_null() {
            return;
        }
        let now = Instant::now();
        let history = self.0.entry(key.to_string()).or_default();
        let (events, rules, change) = if new > previous {
            (
                &mut history.scale_ups,
                Rules::read(&behavior["scaleUp"], true),
                new - previous,
            )
        } else {
            (
                &mut history.scale_downs,
                Rules::read(&behavior["scaleDown"], false),
                previous - new,
            )
        };
        let period = seconds(rules.longest_period());
        for event in events.iter_mut() {
            if ago(event.at, now) > period {
                event.outdated = true;
            }
        }
        let event = ScaleEvent {
            change,
            at: now,
            outdated: false,
        };
        match events.iter().rposition(|e| e.outdated) {
            Some(i) => events[i] = event,
            None => events.push(event),
        }
    }
}

fn ready_for_new_scale() -> Condition {
    (
        "AbleToScale",
        "True",
        "ReadyForNewScale",
        "recommended size matches current size",
    )
}

fn limited(within: bool, reason: &'static str, message: &'static str) -> Condition {
    let status = if within { "False" } else { "True" };
    ("ScalingLimited", status, reason, message)
}

/// `stabilizeRecommendation`: the highest recommendation of the window; the newest replaces one
/// that fell out of it (the last such), else is added.
fn stabilize(history: &mut History, proposed: i64, now: Instant) -> i64 {
    let mut highest = proposed;
    let mut old = None;
    for (i, rec) in history.recommendations.iter().enumerate() {
        if ago(rec.at, now) > DOWNSCALE_STABILIZATION {
            old = Some(i);
        } else if rec.replicas > highest {
            highest = rec.replicas;
        }
    }
    history.record(old, proposed, now);
    highest
}

/// `stabilizeRecommendationWithBehaviors`.
fn stabilize_with_behaviors(
    history: &mut History,
    up: &Rules,
    down: &Rules,
    current: i64,
    proposed: i64,
    now: Instant,
) -> (i64, &'static str, &'static str) {
    let (mut up_rec, mut down_rec) = (proposed, proposed);
    let up_window = seconds(up.window);
    let down_window = seconds(down.window);
    let mut old = None;
    for (i, rec) in history.recommendations.iter().enumerate() {
        let age = ago(rec.at, now);
        if age < up_window {
            up_rec = up_rec.min(rec.replicas);
        }
        if age < down_window {
            down_rec = down_rec.max(rec.replicas);
        }
        if age > up_window && age > down_window {
            old = Some(i);
        }
    }
    let recommendation = current.max(up_rec).min(down_rec);
    history.record(old, proposed, now);
    if proposed >= current {
        (
            recommendation,
            "ScaleUpStabilized",
            "recent recommendations were lower than current one, applying the lowest recent recommendation",
        )
    } else {
        (
            recommendation,
            "ScaleDownStabilized",
            "recent recommendations were higher than current one, applying the highest recent recommendation",
        )
    }
}

/// The highest count a scale-up may reach: the rate's `limit`, or `maxReplicas` when that is
/// lower, with the ScalingLimited reason each gives.
fn scale_up_ceiling(limit: i64, max: i64) -> (i64, &'static str, &'static str) {
    if max > limit {
        (
            limit,
            "ScaleUpLimit",
            "the desired replica count is increasing faster than the maximum scale rate",
        )
    } else {
        (
            max,
            "TooManyReplicas",
            "the desired replica count is more than the maximum replica count",
        )
    }
}

/// `convertDesiredReplicasWithRules`.
fn with_rules(current: i64, desired: i64, min: i64, max: i64) -> (i64, &'static str, &'static str) {
    let limit = (SCALE_UP_LIMIT_FACTOR * current as f64).max(SCALE_UP_LIMIT_MINIMUM) as i64;
    let (maximum, reason, message) = scale_up_ceiling(limit, max);
    if desired < min {
        return (
            min,
            "TooFewReplicas",
            "the desired replica count is less than the minimum replica count",
        );
    }
    if desired > maximum {
        return (maximum, reason, message);
    }
    (
        desired,
        "DesiredWithinRange",
        "the desired count is within the acceptable range",
    )
}

/// `calculateScaleUpLimitWithScalingRules` and `calculateScaleDownLimitWithBehaviors`.
fn rate_limit(history: &History, rules: &Rules, current: i64, up: bool, now: Instant) -> i64 {
    if rules.select == Select::Disabled {
        return current;
    }
    // Scaling up, the largest change is the highest count; scaling down, the lowest.
    let largest = rules.select == Select::Max;
    let pick_high = largest == up;
    let mut result: Option<i64> = None;
    for policy in &rules.policies {
        let added = change_in_period(policy.period, &history.scale_ups, now);
        let removed = change_in_period(policy.period, &history.scale_downs, now);
        let start = current - added + removed;
        let proposed = match (policy.kind, up) {
            (PolicyType::Pods, true) => start + policy.value,
            (PolicyType::Pods, false) => start - policy.value,
            (PolicyType::Percent, true) => {
                (start as f64 * (1.0 + policy.value as f64 / 100.0)).ceil() as i64
            }
            (PolicyType::Percent, false) => {
                (start as f64 * (1.0 - policy.value as f64 / 100.0)) as i64
            }
        };
        result = Some(match result {
            None => proposed,
            Some(r) if pick_high => r.max(proposed),
            Some(r) => r.min(proposed),
        });
    }
    // No policy: Go's starting value, the extreme the selection moves away from.
    result.unwrap_or(match (pick_high, up) {
        (true, _) => i64::from(i32::MIN),
        (false, _) => i64::from(i32::MAX),
    })
}

/// `convertDesiredReplicasWithBehaviorRate`.
#[allow(clippy::too_many_arguments)]
fn with_behavior_rate(
    history: &History,
    up: &Rules,
    down: &Rules,
    current: i64,
    desired: i64,
    min: i64,
    max: i64,
    now: Instant,
) -> (i64, &'static str, &'static str) {
    if desired > current {
        let limit = rate_limit(history, up, current, true, now).max(current);
        let (maximum, reason, message) = scale_up_ceiling(limit, max);
        if desired > maximum {
            return (maximum, reason, message);
        }
    } else if desired < current {
        let limit = rate_limit(history, down, current, false, now).min(current);
        let (minimum, reason, message) = if min < limit {
            (
                limit,
                "ScaleDownLimit",
                "the desired replica count is decreasing faster than the maximum scale rate",
            )
        } else {
            (
                min,
                "TooFewReplicas",
                "the desired replica count is less than the minimum replica count",
            )
        };
        if desired < minimum {
            return (minimum, reason, message);
        }
    }
    (
        desired,
        "DesiredWithinRange",
        "the desired count is within the acceptable range",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Without a behavior a scale-up is capped at twice the count, or four (TestUpscaleCap in
    /// horizontal_test.go), and the highest recommendation of five minutes holds.
    #[test]
    fn without_a_behavior_the_old_limits_hold() {
        let mut h = Histories::default();
        h.record_initial("ns/a", 3);
        let (desired, [able, limited]) = h.normalize("ns/a", &Value::Null, 3, 24, 1, 100);
        assert_eq!(desired, 6);
        assert_eq!(able.2, "ReadyForNewScale");
        assert_eq!((limited.1, limited.2), ("True", "ScaleUpLimit"));
        let (desired, [_, limited]) = h.normalize("ns/a", &Value::Null, 1, 20, 1, 100);
        assert_eq!((desired, limited.2), (4, "ScaleUpLimit"));
        let (desired, [able, _]) = h.normalize("ns/a", &Value::Null, 6, 2, 1, 100);
        assert_eq!((desired, able.2), (12, "ScaleDownStabilized"));
        assert_eq!(
            with_rules(6, 2, 3, 100),
            (
                3,
                "TooFewReplicas",
                "the desired replica count is less than the minimum replica count"
            )
        );
    }

    /// The default scale-up rules allow the more of four pods and doubling per 15 s, counting
    /// what was added in the period; the maximum caps it.
    #[test]
    fn behaviors_limit_the_rate_by_their_policies() {
        let behavior = json!({"scaleUp": {}, "scaleDown": {}});
        let mut h = Histories::default();
        h.record_initial("ns/a", 1);
        let (desired, [_, limited]) = h.normalize("ns/a", &behavior, 1, 10, 1, 20);
        assert_eq!((desired, limited.2), (5, "ScaleUpLimit"));
        h.store_scale_event("ns/a", &behavior, 1, 5);
        // Within the period the count started at 1: at most 5 still.
        let (desired, _) = h.normalize("ns/a", &behavior, 5, 10, 1, 20);
        assert_eq!(desired, 5);
        let mut fresh = Histories::default();
        let (desired, [_, limited]) = fresh.normalize("ns/c", &behavior, 3, 30, 1, 4);
        assert_eq!((desired, limited.2), (4, "TooManyReplicas"));
        let disabled = json!({"scaleUp": {"selectPolicy": "Disabled"}, "scaleDown": {}});
        let mut h = Histories::default();
        let (desired, _) = h.normalize("ns/b", &disabled, 2, 9, 1, 20);
        assert_eq!(desired, 2);
    }

    #[test]
    fn a_scale_down_waits_for_the_stabilization_window() {
        let behavior = json!({"scaleUp": {}, "scaleDown": {"stabilizationWindowSeconds": 300}});
        let mut h = Histories::default();
        h.record_initial("ns/a", 5);
        let (desired, [able, _]) = h.normalize("ns/a", &behavior, 5, 2, 1, 10);
        assert_eq!((desired, able.2), (5, "ScaleDownStabilized"));
        let now_window = json!({"scaleUp": {}, "scaleDown": {"stabilizationWindowSeconds": 0}});
        let mut h = Histories::default();
        h.record_initial("ns/a", 5);
        let (desired, [able, limited]) = h.normalize("ns/a", &now_window, 5, 2, 1, 10);
        assert_eq!(
            (desired, able.2, limited.2),
            (2, "ReadyForNewScale", "DesiredWithinRange")
        );
    }
}
