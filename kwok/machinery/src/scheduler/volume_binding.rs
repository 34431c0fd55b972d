//! VolumeBinding (`pkg/scheduler/framework/plugins/volumebinding`): a pod's claims must exist and
//! not be going away, claims that bind at once must be bound, a bound claim's volume must allow
//! the node, and a claim that waits for its first consumer needs, on the node, an available
//! volume or a class that can provision there.
//!
//! The caller reads the claims, volumes and classes into [`PodVolumes`]; this module only
//! decides, per node, and says which volumes the pod's waiting claims would take there.

use k8s_openapi::api::core::v1::{Node, NodeSelector, TopologySelectorTerm};

use super::node_affinity::node_selector_matches;
use super::status::Status;
use crate::quantity::Quantity;

pub const ERR_REASON_BIND_CONFLICT: &str =
    "node(s) didn't find available persistent volumes to bind";
pub const ERR_REASON_NODE_CONFLICT: &str = "node(s) had volume node affinity conflict";

/// What VolumeBinding knows of one pod's claims.
#[derive(Debug, Clone, Default)]
pub struct PodVolumes {
    /// PreFilter's rejection: a claim missing, lost or being deleted (`podHasPVCs`), or
    /// immediate claims not yet bound.
    pub reject: Option<String>,
    /// The required node affinity of each bound claim's volume (`None`: any node).
    pub bound: Vec<Option<NodeSelector>>,
    /// Claims that wait for their first consumer, smallest request first (`byPVCSize`).
    pub delayed: Vec<DelayedClaim>,
}

/// A claim waiting for its first consumer.
#[derive(Debug, Clone)]
pub struct DelayedClaim {
    pub name: String,
    /// Volumes that would serve it on some node: of its class and mode, big enough, available
    /// or reserved for it.
    pub candidates: Vec<Candidate>,
    /// How its class provisions when no volume fits.
    pub provision: Provision,
}

#[derive(Debug, Clone)]
pub struct Candidate {
    pub name: String,
    pub size: Quantity,
    /// The volume names this claim in its `claimRef`: it is taken or nothing is.
    pub pre_bound: bool,
    pub affinity: Option<NodeSelector>,
}

#[derive(Debug, Clone)]
pub enum Provision {
    /// The class has no provisioner (`kubernetes.io/no-provisioner`, or none).
    Never,
    /// A provisioner may make a volume on nodes its class's `allowedTopologies` name (all nodes
    /// when empty).
    On(Vec<TopologySelectorTerm>),
}

/// Where a pod's waiting claims go on a node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VolumePlan {
    /// (claim, volume) pairs to bind.
    pub bind: Vec<(String, String)>,
    /// Claims to provision on the node.
    pub provision: Vec<String>,
}

impl PodVolumes {
    /// `Filter` (`FindPodVolumes`): the reasons the node cannot serve the pod's claims.
    pub fn filter(&self, node: &Node) -> Option<Status> {
        let mut reasons = Vec::new();
        let fits =
            |a: &Option<NodeSelector>| a.as_ref().is_none_or(|s| node_selector_matches(s, node));
        if !self.bound.iter().all(fits) {
            reasons.push(ERR_REASON_NODE_CONFLICT.to_string());
        }
        if self.plan(node).is_none() {
            reasons.push(ERR_REASON_BIND_CONFLICT.to_string());
        }
        (!reasons.is_empty()).then_some(Status {
            code: super::status::Code::UnschedulableAndUnresolvable,
            reasons,
        })
    }

    /// `findMatchingVolumes` then `checkVolumeProvisions`: each waiting claim takes the smallest
    /// volume that allows the node and no earlier claim took; the rest must be provisionable.
    pub fn plan(&self, node: &Node) -> Option<VolumePlan> {
        let mut plan = VolumePlan::default();
        let mut unmatched = Vec::new();
        for claim in &self.delayed {
            let taken = |c: &&Candidate| plan.bind.iter().any(|(_, v)| *v == c.name);
            let on_node = |c: &&Candidate| {
                c.affinity
                    .as_ref()
                    .is_none_or(|s| node_selector_matches(s, node))
            };
            let chosen = match claim.candidates.iter().find(|c| c.pre_bound) {
                Some(pre) => Some(pre).filter(on_node).filter(|c| !taken(c)),
                None => claim
                    .candidates
                    .iter()
                    .filter(|c| !taken(c) && on_node(c))
                    .min_by(|a, b| a.size.compare(&b.size)),
            };
            match chosen {
                Some(c) => plan.bind.push((claim.name.clone(), c.name.clone())),
                None => unmatched.push(claim),
            }
        }
        for claim in unmatched {
            match &claim.provision {
                Provision::Never => return None,
                Provision::On(terms) if !topology_matches(terms, node) => return None,
                Provision::On(_) => plan.provision.push(claim.name.clone()),
            }
        }
        Some(plan)
    }
}

/// `MatchTopologySelectorTerms`: no terms allow every node; otherwise some term's expressions
/// all hold on the node's labels.
fn topology_matches(terms: &[TopologySelectorTerm], node: &Node) -> bool {
    if terms.is_empty() {
        return true;
    }
    let labels = node.metadata.labels.as_ref();
    terms.iter().any(|t| {
        let exprs = t.match_label_expressions.as_deref().unwrap_or_default();
        !exprs.is_empty()
            && exprs.iter().all(|e| {
                labels
                    .and_then(|l| l.get(&e.key))
                    .is_some_and(|v| e.values.contains(v))
            })
    })
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{NodeSelectorRequirement, NodeSelectorTerm};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    fn node(name: &str) -> Node {
        Node {
            metadata: ObjectMeta {
                name: Some(name.into()),
                labels: Some([("kubernetes.io/hostname".to_string(), name.to_string())].into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn only(node: &str) -> Option<NodeSelector> {
        Some(NodeSelector {
            node_selector_terms: vec![NodeSelectorTerm {
                match_expressions: Some(vec![NodeSelectorRequirement {
                    key: "kubernetes.io/hostname".into(),
                    operator: "In".into(),
                    values: Some(vec![node.into()]),
                }]),
                match_fields: None,
            }],
        })
    }

    fn candidate(name: &str, size: &str, on: &str) -> Candidate {
        Candidate {
            name: name.into(),
            size: Quantity::parse(size).expect("quantity"),
            pre_bound: false,
            affinity: only(on),
        }
    }

    #[test]
    fn waiting_claims_take_the_smallest_volume_on_the_node_or_fail_it() {
        let volumes = PodVolumes {
            delayed: vec![
                DelayedClaim {
                    name: "a".into(),
                    candidates: vec![
                        candidate("big", "5Gi", "n1"),
                        candidate("small", "1Gi", "n1"),
                    ],
                    provision: Provision::Never,
                },
                DelayedClaim {
                    name: "b".into(),
                    candidates: vec![
                        candidate("small", "1Gi", "n1"),
                        candidate("big", "5Gi", "n1"),
                    ],
                    provision: Provision::Never,
                },
            ],
            ..Default::default()
        };
        let plan = volumes.plan(&node("n1")).expect("fits n1");
        assert_eq!(
            plan.bind,
            vec![("a".into(), "small".into()), ("b".into(), "big".into())]
        );
        let status = volumes.filter(&node("n2")).expect("n2 has no volume");
        assert_eq!(status.reasons, vec![ERR_REASON_BIND_CONFLICT.to_string()]);
        let bound = PodVolumes {
            bound: vec![only("n1")],
            ..Default::default()
        };
        assert!(bound.filter(&node("n1")).is_none());
        let status = bound.filter(&node("n2")).expect("affinity conflict");
        assert_eq!(status.reasons, vec![ERR_REASON_NODE_CONFLICT.to_string()]);
    }

    #[test]
    fn a_provisioning_class_serves_the_nodes_its_topologies_allow() {
        use k8s_openapi::api::core::v1::TopologySelectorLabelRequirement;
        let terms = vec![TopologySelectorTerm {
            match_label_expressions: Some(vec![TopologySelectorLabelRequirement {
                key: "kubernetes.io/hostname".into(),
                values: vec!["n1".into()],
            }]),
        }];
        let volumes = PodVolumes {
            delayed: vec![DelayedClaim {
                name: "c".into(),
                candidates: Vec::new(),
                provision: Provision::On(terms),
            }],
            ..Default::default()
        };
        assert_eq!(
            volumes.plan(&node("n1")).map(|p| p.provision),
            Some(vec!["c".to_string()])
        );
        assert!(volumes.plan(&node("n2")).is_none());
    }
}
