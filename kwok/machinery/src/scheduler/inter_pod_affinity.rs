//! The InterPodAffinity plugin: required pod affinity / anti-affinity as a filter
//! (`k/k pkg/scheduler/framework/plugins/interpodaffinity/filtering.go`) and preferred terms as a score
//! (`scoring.go`). Terms are compiled like `framework.NewPodInfo` / `AffinityTerm.Matches`
//! (`k/k pkg/scheduler/framework/types.go`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use k8s_openapi::api::core::v1::{Node, Pod, PodAffinityTerm};

use super::labels::{as_selector, Labels, Selector};
use super::node_affinity::node_labels;
use super::status::Status;
use super::NodeInfo;

/// The incoming pod's required affinity is not met on the node (UnschedulableAndUnresolvable).
pub const ERR_REASON_AFFINITY: &str = "node(s) didn't match pod affinity rules";
/// The incoming pod's required anti-affinity is violated on the node (Unschedulable).
pub const ERR_REASON_ANTI_AFFINITY: &str = "node(s) didn't match pod anti-affinity rules";
/// A pod already on the node's topology domain has anti-affinity against the incoming pod
/// (Unschedulable).
pub const ERR_REASON_EXISTING_ANTI_AFFINITY: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";

/// `hardPodAffinityWeight`, the default InterPodAffinityArgs value.
const HARD_POD_AFFINITY_WEIGHT: i64 = 1;
const MAX_NODE_SCORE: i64 = 100;

fn empty() -> &'static Labels {
    static EMPTY: std::sync::OnceLock<Labels> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Labels::new)
}

fn pod_labels(pod: &Pod) -> &Labels {
    pod.metadata.labels.as_ref().unwrap_or(empty())
}

/// Does the pod carry required pod anti-affinity terms?
fn has_required_anti_affinity(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.affinity.as_ref())
        .and_then(|a| a.pod_anti_affinity.as_ref())
        .and_then(|a| {
            a.required_during_scheduling_ignored_during_execution
                .as_ref()
        })
        .is_some_and(|t| !t.is_empty())
}

fn pod_namespace(pod: &Pod) -> &str {
    pod.metadata.namespace.as_deref().unwrap_or("")
}

/// `framework.AffinityTerm`: namespaces, namespace selector, label selector and topology key.
#[derive(Debug, Clone)]
pub struct AffinityTerm {
    namespaces: BTreeSet<String>,
    namespace_selector: Selector,
    selector: Selector,
    topology_key: String,
}

impl AffinityTerm {
    /// `newAffinityTerm`: with neither `namespaces` nor `namespaceSelector` the term covers only the
    /// owning pod's namespace; a nil namespaceSelector selects no namespace, `{}` selects all.
    fn new(owner: &Pod, term: &PodAffinityTerm) -> Self {
        let listed = term.namespaces.clone().unwrap_or_default();
        let namespaces: BTreeSet<String> = if listed.is_empty() && term.namespace_selector.is_none()
        {
            [pod_namespace(owner).to_string()].into()
        } else {
            listed.into_iter().collect()
        };
        Self {
            namespaces,
            namespace_selector: as_selector(term.namespace_selector.as_ref()),
            selector: as_selector(term.label_selector.as_ref()),
            topology_key: term.topology_key.clone(),
        }
    }

    /// `AffinityTerm.Matches`: the pod is in one of the term's namespaces (listed, or selected by
    /// labels) and its labels match the selector.
    pub fn matches(&self, pod: &Pod, ns_labels: Option<&Labels>) -> bool {
        let in_namespace = self.namespaces.contains(pod_namespace(pod))
            || self
                .namespace_selector
                .matches(ns_labels.unwrap_or(empty()));
        in_namespace && self.selector.matches(pod_labels(pod))
    }

    /// `mergeAffinityTermNamespacesIfNotEmpty`: an incoming pod's namespaceSelector is resolved once
    /// into namespace names (an `{}` selector stays as "every namespace").
    fn merge_namespaces(&mut self, namespaces: &BTreeMap<String, Labels>) {
        if self.namespace_selector.is_empty() {
            return;
        }
        for (name, labels) in namespaces {
            if self.namespace_selector.matches(labels) {
                self.namespaces.insert(name.clone());
            }
        }
        self.namespace_selector = Selector::nothing();
    }
}

/// The (anti-)affinity terms of one pod (`PodInfo.Required*Terms`, `Preferred*Terms`).
#[derive(Debug, Clone, Default)]
pub struct PodTerms {
    pub required_affinity: Vec<AffinityTerm>,
    pub required_anti_affinity: Vec<AffinityTerm>,
    preferred_affinity: Vec<(i64, AffinityTerm)>,
    preferred_anti_affinity: Vec<(i64, AffinityTerm)>,
}

impl PodTerms {
    pub fn of(pod: &Pod) -> Self {
        let Some(aff) = pod.spec.as_ref().and_then(|s| s.affinity.as_ref()) else {
            return Self::default();
        };
        let required = |terms: Option<&Vec<PodAffinityTerm>>| -> Vec<AffinityTerm> {
            terms
                .into_iter()
                .flatten()
                .map(|t| AffinityTerm::new(pod, t))
                .collect()
        };
        let pa = aff.pod_affinity.as_ref();
        let paa = aff.pod_anti_affinity.as_ref();
        let preferred =
            |terms: Option<&Vec<k8s_openapi::api::core::v1::WeightedPodAffinityTerm>>| {
                terms
                    .into_iter()
                    .flatten()
                    .map(|w| {
                        (
                            i64::from(w.weight),
                            AffinityTerm::new(pod, &w.pod_affinity_term),
                        )
                    })
                    .collect::<Vec<_>>()
            };
        Self {
            required_affinity: required(pa.and_then(|p| {
                p.required_during_scheduling_ignored_during_execution
                    .as_ref()
            })),
            required_anti_affinity: required(paa.and_then(|p| {
                p.required_during_scheduling_ignored_during_execution
                    .as_ref()
            })),
            preferred_affinity: preferred(pa.and_then(|p| {
                p.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            })),
            preferred_anti_affinity: preferred(paa.and_then(|p| {
                p.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            })),
        }
    }

    /// The incoming pod's terms with namespace selectors resolved against the known namespaces.
    pub fn of_incoming(pod: &Pod, namespaces: &BTreeMap<String, Labels>) -> Self {
        let mut terms = Self::of(pod);
        for t in terms
            .required_affinity
            .iter_mut()
            .chain(terms.required_anti_affinity.iter_mut())
            .chain(terms.preferred_affinity.iter_mut().map(|(_, t)| t))
            .chain(terms.preferred_anti_affinity.iter_mut().map(|(_, t)| t))
        {
            t.merge_namespaces(namespaces);
        }
        terms
    }
}

/// `podMatchesAllAffinityTerms`: false for no terms.
fn matches_all(terms: &[AffinityTerm], pod: &Pod) -> bool {
    !terms.is_empty() && terms.iter().all(|t| t.matches(pod, None))
}

type TopologyCounts = HashMap<(String, String), i64>;

fn bump(counts: &mut TopologyCounts, node: &Node, key: &str) {
    if let Some(value) = node_labels(node).get(key) {
        *counts.entry((key.to_string(), value.clone())).or_insert(0) += 1;
    }
}

/// InterPodAffinity's PreFilter state: per topology pair, how many pods match the incoming pod's
/// terms, and how many existing pods' anti-affinity terms match the incoming pod.
#[derive(Debug, Default)]
pub struct FilterState {
    existing_anti_affinity: TopologyCounts,
    affinity: TopologyCounts,
    anti_affinity: TopologyCounts,
    incoming_matches_own_affinity: bool,
    has_required_affinity: bool,
    skip: bool,
}

impl FilterState {
    /// PreFilter over the whole snapshot. `ns_labels` are the labels of the incoming pod's namespace.
    pub fn new(
        pod: &Pod,
        terms: &PodTerms,
        nodes: &[NodeInfo<'_>],
        ns_labels: Option<&Labels>,
    ) -> Self {
        let mut state = FilterState {
            incoming_matches_own_affinity: matches_all(&terms.required_affinity, pod),
            has_required_affinity: !terms.required_affinity.is_empty(),
            ..Default::default()
        };
        for ni in nodes {
            for existing in &ni.pods {
                // Compiling terms allocates; most pods have none, so look before building.
                if has_required_anti_affinity(existing) {
                    for t in PodTerms::of(existing).required_anti_affinity {
                        if t.matches(pod, ns_labels) {
                            bump(&mut state.existing_anti_affinity, ni.node, &t.topology_key);
                        }
                    }
                }
                if terms.required_affinity.is_empty() && terms.required_anti_affinity.is_empty() {
                    continue;
                }
                if matches_all(&terms.required_affinity, existing) {
                    for t in &terms.required_affinity {
                        bump(&mut state.affinity, ni.node, &t.topology_key);
                    }
                }
                for t in &terms.required_anti_affinity {
                    if t.matches(existing, None) {
                        bump(&mut state.anti_affinity, ni.node, &t.topology_key);
                    }
                }
            }
        }
        state.skip = state.existing_anti_affinity.is_empty()
            && terms.required_affinity.is_empty()
            && terms.required_anti_affinity.is_empty();
        state
    }

    fn count(map: &TopologyCounts, key: &str, value: &str) -> i64 {
        map.get(&(key.to_string(), value.to_string()))
            .copied()
            .unwrap_or(0)
    }

    /// `satisfyPodAffinity`: every term's topology key must exist on the node and each domain must
    /// hold a matching pod, except for the first pod of a group that matches its own terms while no
    /// pod in the cluster matches them yet.
    fn satisfies_affinity(&self, terms: &PodTerms, node: &Node) -> bool {
        let labels = node_labels(node);
        let mut pods_exist = true;
        for t in &terms.required_affinity {
            let Some(value) = labels.get(&t.topology_key) else {
                return false;
            };
            if Self::count(&self.affinity, &t.topology_key, value) <= 0 {
                pods_exist = false;
            }
        }
        pods_exist || (self.affinity.is_empty() && self.incoming_matches_own_affinity)
    }

    /// `satisfyPodAntiAffinity`: no pod matching a term in the node's domain of that term.
    fn satisfies_anti_affinity(&self, terms: &PodTerms, node: &Node) -> bool {
        if self.anti_affinity.is_empty() {
            return true;
        }
        let labels = node_labels(node);
        !terms.required_anti_affinity.iter().any(|t| {
            labels
                .get(&t.topology_key)
                .is_some_and(|v| Self::count(&self.anti_affinity, &t.topology_key, v) > 0)
        })
    }

    /// `satisfyExistingPodsAntiAffinity`: no existing pod's anti-affinity covers any of the node's
    /// topology pairs.
    fn satisfies_existing_anti_affinity(&self, node: &Node) -> bool {
        if self.existing_anti_affinity.is_empty() {
            return true;
        }
        !node_labels(node)
            .iter()
            .any(|(k, v)| Self::count(&self.existing_anti_affinity, k, v) > 0)
    }

    /// The Filter, in upstream order: affinity, anti-affinity, existing pods' anti-affinity.
    pub fn filter(&self, terms: &PodTerms, node: &Node) -> Option<Status> {
        if self.skip {
            return None;
        }
        if self.has_required_affinity && !self.satisfies_affinity(terms, node) {
            return Some(Status::unresolvable(ERR_REASON_AFFINITY));
        }
        if !self.satisfies_anti_affinity(terms, node) {
            return Some(Status::unschedulable(ERR_REASON_ANTI_AFFINITY));
        }
        if !self.satisfies_existing_anti_affinity(node) {
            return Some(Status::unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY));
        }
        None
    }
}

type TopologyScore = HashMap<String, HashMap<String, i64>>;

fn add_score(scores: &mut TopologyScore, term: &AffinityTerm, node: &Node, weight: i64) {
    if term.topology_key.is_empty() {
        return;
    }
    if let Some(value) = node_labels(node).get(&term.topology_key) {
        *scores
            .entry(term.topology_key.clone())
            .or_default()
            .entry(value.clone())
            .or_insert(0) += weight;
    }
}

/// InterPodAffinity `PreScore` + `Score` + `NormalizeScore` for the feasible nodes: preferred terms of
/// the incoming pod against existing pods, and existing pods' required (weight 1) and preferred terms
/// against the incoming pod, summed per topology domain, then scaled to 0..100 between min and max.
pub fn normalized_scores(
    pod: &Pod,
    terms: &PodTerms,
    nodes: &[NodeInfo<'_>],
    feasible: &[&NodeInfo<'_>],
    ns_labels: Option<&Labels>,
) -> Vec<i64> {
    let mut topo = TopologyScore::new();
    for ni in nodes {
        if node_labels(ni.node).is_empty() {
            continue;
        }
        for existing in &ni.pods {
            for (w, t) in &terms.preferred_affinity {
                if t.matches(existing, None) {
                    add_score(&mut topo, t, ni.node, *w);
                }
            }
            for (w, t) in &terms.preferred_anti_affinity {
                if t.matches(existing, None) {
                    add_score(&mut topo, t, ni.node, -*w);
                }
            }
            let theirs = PodTerms::of(existing);
            for t in &theirs.required_affinity {
                if t.matches(pod, ns_labels) {
                    add_score(&mut topo, t, ni.node, HARD_POD_AFFINITY_WEIGHT);
                }
            }
            for (w, t) in &theirs.preferred_affinity {
                if t.matches(pod, ns_labels) {
                    add_score(&mut topo, t, ni.node, *w);
                }
            }
            for (w, t) in &theirs.preferred_anti_affinity {
                if t.matches(pod, ns_labels) {
                    add_score(&mut topo, t, ni.node, -*w);
                }
            }
        }
    }
    let raw: Vec<i64> = feasible
        .iter()
        .map(|ni| {
            let labels = node_labels(ni.node);
            topo.iter()
                .filter_map(|(key, values)| labels.get(key).and_then(|v| values.get(v)))
                .sum()
        })
        .collect();
    if topo.is_empty() {
        return raw;
    }
    let min = raw.iter().copied().min().unwrap_or(0);
    let max = raw.iter().copied().max().unwrap_or(0);
    let diff = max - min;
    raw.iter()
        .map(|s| {
            if diff > 0 {
                (MAX_NODE_SCORE as f64 * ((s - min) as f64 / diff as f64)) as i64
            } else {
                0
            }
        })
        .collect()
}
