//! The PodTopologySpread plugin (`k/k pkg/scheduler/framework/plugins/podtopologyspread/`):
//! `DoNotSchedule` constraints as a filter (`filtering.go`) and `ScheduleAnyway` constraints, or the
//! system default constraints, as a score (`scoring.go`).
//!
//! System defaults (`kubernetes.io/hostname` maxSkew 3, `topology.kubernetes.io/zone` maxSkew 5)
//! upstream select the pods of the Services / ReplicaSets / StatefulSets that select the incoming pod
//! (`helper.DefaultSelector`). This pure module sees no such objects, so it spreads the pods that share
//! the incoming pod's controller ownerReference instead, which is the same set for workload pods.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Node, Pod, TopologySpreadConstraint};

use super::labels::{as_selector, Labels, Selector};
use super::node_affinity::{node_labels, node_name, required_node_affinity_matches};
use super::status::Status;
use super::taints::{find_untolerated_taint, EFFECT_NO_EXECUTE, EFFECT_NO_SCHEDULE};
use super::NodeInfo;
use crate::selectors::{Operator, Requirement};

/// Filter reason when the skew would exceed maxSkew (Unschedulable).
pub const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints";
/// Filter reason when the node lacks a constraint's topology key (UnschedulableAndUnresolvable).
pub const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";
const LABEL_ZONE: &str = "topology.kubernetes.io/zone";
const MAX_NODE_SCORE: i64 = 100;

/// Which existing pods a constraint counts.
#[derive(Debug, Clone)]
enum PodMatcher {
    Labels(Selector),
    /// Pods of the same controller (the system-default stand-in, see the module docs).
    Controller(String),
}

#[derive(Debug, Clone)]
struct Constraint {
    max_skew: i64,
    topology_key: String,
    matcher: PodMatcher,
    min_domains: usize,
    honor_node_affinity: bool,
    honor_node_taints: bool,
}

fn pod_labels(pod: &Pod) -> Labels {
    pod.metadata.labels.clone().unwrap_or_default()
}

fn controller_uid(pod: &Pod) -> Option<String> {
    pod.metadata
        .owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
        .map(|r| r.uid.clone())
}

impl Constraint {
    /// `filterTopologySpreadConstraints` for one constraint: the label selector, with the pod's values
    /// for `matchLabelKeys` AND-ed in; nodeAffinityPolicy defaults to Honor, nodeTaintsPolicy to Ignore.
    fn from_spec(pod: &Pod, c: &TopologySpreadConstraint) -> Self {
        let mut selector = as_selector(c.label_selector.as_ref());
        let own = pod_labels(pod);
        for key in c.match_label_keys.iter().flatten() {
            if let Some(v) = own.get(key) {
                if let Ok(r) = Requirement::new(key, Operator::In, vec![v.clone()]) {
                    selector = selector.and(r);
                }
            }
        }
        Self {
            max_skew: i64::from(c.max_skew),
            topology_key: c.topology_key.clone(),
            matcher: PodMatcher::Labels(selector),
            min_domains: c
                .min_domains
                .and_then(|m| usize::try_from(m).ok())
                .unwrap_or(1),
            honor_node_affinity: c.node_affinity_policy.as_deref() != Some("Ignore"),
            honor_node_taints: c.node_taints_policy.as_deref() == Some("Honor"),
        }
    }

    /// `countPodsMatchSelector`: pods of the same namespace, not terminating, matching the selector.
    fn count(&self, pods: &[&Pod], namespace: &str) -> i64 {
        let n = pods
            .iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .filter(|p| p.metadata.namespace.as_deref().unwrap_or("") == namespace)
            .filter(|p| self.matches(p))
            .count();
        i64::try_from(n).unwrap_or(i64::MAX)
    }

    fn matches(&self, pod: &Pod) -> bool {
        match &self.matcher {
            PodMatcher::Labels(sel) => !sel.is_empty() && sel.matches(pod_labels(pod)),
            PodMatcher::Controller(uid) => controller_uid(pod).as_deref() == Some(uid.as_str()),
        }
    }

    /// `matchNodeInclusionPolicies`.
    fn includes_node(&self, pod: &Pod, node: &Node) -> bool {
        let spec = pod.spec.as_ref();
        if self.honor_node_affinity && !spec.is_none_or(|s| required_node_affinity_matches(s, node))
        {
            return false;
        }
        if self.honor_node_taints {
            let taints = node
                .spec
                .as_ref()
                .and_then(|s| s.taints.as_deref())
                .unwrap_or_default();
            let tolerations = spec
                .and_then(|s| s.tolerations.as_deref())
                .unwrap_or_default();
            if find_untolerated_taint(
                taints,
                tolerations,
                &[EFFECT_NO_SCHEDULE, EFFECT_NO_EXECUTE],
            )
            .is_some()
            {
                return false;
            }
        }
        true
    }
}

fn constraints_with(pod: &Pod, action: &str) -> Vec<Constraint> {
    pod.spec
        .as_ref()
        .and_then(|s| s.topology_spread_constraints.as_ref())
        .into_iter()
        .flatten()
        .filter(|c| c.when_unsatisfiable == action)
        .map(|c| Constraint::from_spec(pod, c))
        .collect()
}

fn has_all_keys(node: &Node, constraints: &[Constraint]) -> bool {
    let labels = node_labels(node);
    constraints
        .iter()
        .all(|c| labels.contains_key(&c.topology_key))
}

/// PodTopologySpread's PreFilter state: per DoNotSchedule constraint, matching pods per domain.
#[derive(Debug, Default)]
pub struct FilterState {
    constraints: Vec<Constraint>,
    domain_counts: Vec<BTreeMap<String, i64>>,
}

impl FilterState {
    pub fn new(pod: &Pod, nodes: &[NodeInfo<'_>]) -> Self {
        let constraints = constraints_with(pod, "DoNotSchedule");
        if constraints.is_empty() {
            return Self::default();
        }
        let namespace = pod.metadata.namespace.as_deref().unwrap_or("");
        let mut domain_counts = vec![BTreeMap::new(); constraints.len()];
        for ni in nodes {
            if !has_all_keys(ni.node, &constraints) {
                continue;
            }
            let labels = node_labels(ni.node);
            for (i, c) in constraints.iter().enumerate() {
                if !c.includes_node(pod, ni.node) {
                    continue;
                }
                let Some(value) = labels.get(&c.topology_key) else {
                    continue;
                };
                *domain_counts[i].entry(value.clone()).or_insert(0) += c.count(&ni.pods, namespace);
            }
        }
        Self {
            constraints,
            domain_counts,
        }
    }

    /// `Filter`: for every constraint, `matching pods in the node's domain + self-match - global
    /// minimum` must not exceed maxSkew; a node without the topology key is unresolvable.
    pub fn filter(&self, pod: &Pod, node: &Node) -> Option<Status> {
        let labels = node_labels(node);
        for (i, c) in self.constraints.iter().enumerate() {
            let Some(value) = labels.get(&c.topology_key) else {
                return Some(Status::unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH));
            };
            let counts = &self.domain_counts[i];
            let mut min = counts.values().copied().min().unwrap_or(0);
            if counts.len() < c.min_domains {
                min = 0;
            }
            let self_match = i64::from(c.matches(pod));
            let here = counts.get(value).copied().unwrap_or(0);
            if here + self_match - min > c.max_skew {
                return Some(Status::unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH));
            }
        }
        None
    }
}

/// PodTopologySpread `PreScore` + `Score` + `NormalizeScore` for the feasible nodes: fewer matching
/// pods in a node's domains scores higher; nodes missing a required topology key score 0.
pub fn normalized_scores(
    pod: &Pod,
    nodes: &[NodeInfo<'_>],
    feasible: &[&NodeInfo<'_>],
) -> Vec<i64> {
    let own = constraints_with(pod, "ScheduleAnyway");
    let has_own = pod
        .spec
        .as_ref()
        .and_then(|s| s.topology_spread_constraints.as_ref())
        .is_some_and(|c| !c.is_empty());
    let (constraints, require_all) = if has_own {
        (own, true)
    } else {
        let system = match controller_uid(pod) {
            Some(uid) => [(LABEL_HOSTNAME, 3), (LABEL_ZONE, 5)]
                .into_iter()
                .map(|(key, skew)| Constraint {
                    max_skew: skew,
                    topology_key: key.to_string(),
                    matcher: PodMatcher::Controller(uid.clone()),
                    min_domains: 1,
                    honor_node_affinity: true,
                    honor_node_taints: false,
                })
                .collect(),
            None => Vec::new(),
        };
        (system, false)
    };
    if constraints.is_empty() {
        // No constraint: every node scores 0, normalized to MaxNodeScore.
        return vec![MAX_NODE_SCORE; feasible.len()];
    }
    let namespace = pod.metadata.namespace.as_deref().unwrap_or("");

    // initPreScoreState: ignored nodes, domains among the feasible nodes, topology weights.
    let ignored: BTreeSet<&str> = feasible
        .iter()
        .filter(|ni| require_all && !has_all_keys(ni.node, &constraints))
        .map(|ni| node_name(ni.node))
        .collect();
    let mut domains: Vec<BTreeMap<String, i64>> = vec![BTreeMap::new(); constraints.len()];
    for ni in feasible
        .iter()
        .filter(|ni| !ignored.contains(node_name(ni.node)))
    {
        let labels = node_labels(ni.node);
        for (i, c) in constraints.iter().enumerate() {
            if c.topology_key == LABEL_HOSTNAME {
                continue;
            }
            if let Some(v) = labels.get(&c.topology_key) {
                domains[i].entry(v.clone()).or_insert(0);
            }
        }
    }
    let weights: Vec<f64> = constraints
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let size = if c.topology_key == LABEL_HOSTNAME {
                feasible.len() - ignored.len()
            } else {
                domains[i].len()
            };
            ((size + 2) as f64).ln()
        })
        .collect();
    // Count matching pods per domain over all nodes the constraint includes.
    for ni in nodes {
        if require_all && !has_all_keys(ni.node, &constraints) {
            continue;
        }
        let labels = node_labels(ni.node);
        for (i, c) in constraints.iter().enumerate() {
            if c.topology_key == LABEL_HOSTNAME || !c.includes_node(pod, ni.node) {
                continue;
            }
            if let Some(slot) = labels
                .get(&c.topology_key)
                .and_then(|v| domains[i].get_mut(v))
            {
                *slot += c.count(&ni.pods, namespace);
            }
        }
    }
    let raw: Vec<i64> = feasible
        .iter()
        .map(|ni| {
            if ignored.contains(node_name(ni.node)) {
                return 0;
            }
            let labels = node_labels(ni.node);
            let mut score = 0.0f64;
            for (i, c) in constraints.iter().enumerate() {
                let Some(v) = labels.get(&c.topology_key) else {
                    continue;
                };
                let cnt = if c.topology_key == LABEL_HOSTNAME {
                    c.count(&ni.pods, namespace)
                } else {
                    domains[i].get(v).copied().unwrap_or(0)
                };
                score += cnt as f64 * weights[i] + (c.max_skew - 1) as f64;
            }
            score.round() as i64
        })
        .collect();
    let considered = || {
        feasible
            .iter()
            .zip(&raw)
            .filter(|(ni, _)| !ignored.contains(node_name(ni.node)))
            .map(|(_, s)| *s)
    };
    let min = considered().min().unwrap_or(0);
    let max = considered().max().unwrap_or(0);
    feasible
        .iter()
        .zip(&raw)
        .map(|(ni, s)| {
            if ignored.contains(node_name(ni.node)) {
                0
            } else if max == 0 {
                MAX_NODE_SCORE
            } else {
                MAX_NODE_SCORE * (max + min - s) / max
            }
        })
        .collect()
}
