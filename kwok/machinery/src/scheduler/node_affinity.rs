//! Node selection by labels and fields: `nodeSelector`, required and preferred node affinity
//! (`component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go`), the NodeAffinity plugin's
//! PreFilter (`k/k pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`).

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{
    Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodSpec,
};

use super::labels::{Labels, Selector};
use crate::selectors::{Operator, Requirement};

/// `metav1.ObjectNameField`, the only field a node selector term can match.
const OBJECT_NAME_FIELD: &str = "metadata.name";

/// NodeAffinity's filter reason (`ErrReasonPod`).
pub const ERR_REASON_POD: &str = "node(s) didn't match Pod's node affinity/selector";
/// NodeAffinity's PreFilter reason when the `metadata.name` terms intersect to nothing.
pub const ERR_REASON_CONFLICT: &str = "pod affinity terms conflict";

fn empty_labels() -> &'static Labels {
    static EMPTY: std::sync::OnceLock<Labels> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Labels::new)
}

pub fn node_labels(node: &Node) -> &Labels {
    node.metadata.labels.as_ref().unwrap_or(empty_labels())
}

pub fn node_name(node: &Node) -> &str {
    node.metadata.name.as_deref().unwrap_or("")
}

/// A node selector term compiled like `newNodeSelectorTerm`: a term with a parse error never matches.
struct CompiledTerm {
    labels: Option<Vec<Requirement>>,
    fields: Option<Vec<FieldRequirement>>,
}

/// `fields.OneTermEqualSelector` / `OneTermNotEqualSelector`.
struct FieldRequirement {
    key: String,
    value: String,
    equal: bool,
}

fn is_empty_term(term: &NodeSelectorTerm) -> bool {
    term.match_expressions.as_ref().is_none_or(Vec::is_empty)
        && term.match_fields.as_ref().is_none_or(Vec::is_empty)
}

fn compile_term(term: &NodeSelectorTerm) -> Option<CompiledTerm> {
    let exprs = term.match_expressions.as_deref().unwrap_or_default();
    let labels = if exprs.is_empty() {
        None
    } else {
        let mut reqs = Vec::with_capacity(exprs.len());
        for e in exprs {
            reqs.push(
                Requirement::new(
                    &e.key,
                    Operator::from_node_selector(&e.operator).ok()?,
                    e.values.clone().unwrap_or_default(),
                )
                .ok()?,
            );
        }
        Some(reqs)
    };
    let fields_in = term.match_fields.as_deref().unwrap_or_default();
    let fields = if fields_in.is_empty() {
        None
    } else {
        let mut reqs = Vec::with_capacity(fields_in.len());
        for f in fields_in {
            reqs.push(compile_field(f)?);
        }
        Some(reqs)
    };
    Some(CompiledTerm { labels, fields })
}

/// `nodeSelectorRequirementsAsFieldSelector`: only `In` / `NotIn` with exactly one value.
fn compile_field(r: &NodeSelectorRequirement) -> Option<FieldRequirement> {
    let values = r.values.as_deref().unwrap_or_default();
    let equal = match r.operator.as_str() {
        "In" => true,
        "NotIn" => false,
        _ => return None,
    };
    if values.len() != 1 {
        return None;
    }
    Some(FieldRequirement {
        key: r.key.clone(),
        value: values[0].clone(),
        equal,
    })
}

fn term_matches(term: &NodeSelectorTerm, node: &Node) -> bool {
    let Some(compiled) = compile_term(term) else {
        return false;
    };
    if let Some(reqs) = &compiled.labels {
        let labels = node_labels(node);
        if !reqs.iter().all(|r| r.matches(labels)) {
            return false;
        }
    }
    // The node's field set only holds metadata.name, and only when the name is set; an empty set
    // skips the field check altogether (`len(nodeFields) > 0`).
    let name = node_name(node);
    if let Some(fields) = &compiled.fields {
        if !name.is_empty() {
            let ok = fields.iter().all(|f| {
                let have = if f.key == OBJECT_NAME_FIELD { name } else { "" };
                (have == f.value) == f.equal
            });
            if !ok {
                return false;
            }
        }
    }
    true
}

/// `NodeSelector.Match`: terms are OR-ed; empty terms and terms with parse errors match nothing, so
/// a selector with no usable term matches no node.
pub fn node_selector_matches(selector: &NodeSelector, node: &Node) -> bool {
    selector
        .node_selector_terms
        .iter()
        .filter(|t| !is_empty_term(t))
        .any(|t| term_matches(t, node))
}

fn required_terms(spec: &PodSpec) -> Option<&NodeSelector> {
    spec.affinity
        .as_ref()?
        .node_affinity
        .as_ref()?
        .required_during_scheduling_ignored_during_execution
        .as_ref()
}

/// `nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)`: the pod's `nodeSelector` (every key with
/// that exact value) AND its required node affinity (terms OR-ed, expressions within a term AND-ed,
/// `matchFields` on `metadata.name`). Used by the scheduler's NodeAffinity filter and by the DaemonSet
/// controller.
pub fn required_node_affinity_matches(spec: &PodSpec, node: &Node) -> bool {
    if let Some(sel) = spec.node_selector.as_ref().filter(|s| !s.is_empty()) {
        if !Selector::from_set(sel).matches(node_labels(node)) {
            return false;
        }
    }
    match required_terms(spec) {
        Some(ns) => node_selector_matches(ns, node),
        None => true,
    }
}

/// What NodeAffinity's PreFilter concludes from `matchFields metadata.name In [...]` terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeNameHint {
    /// Every node is still a candidate.
    AllNodes,
    /// Only these nodes are run through the filters (`PreFilterResult.NodeNames`).
    Only(BTreeSet<String>),
    /// Every term names a disjoint set of nodes: the pod fits nowhere (`pod affinity terms conflict`).
    Conflict,
}

/// NodeAffinity `PreFilter`: a term restricts the candidates only when it has `metadata.name In`
/// fields (intersected within the term); a single term without such fields leaves every node eligible.
pub fn prefilter_node_names(spec: &PodSpec) -> NodeNameHint {
    let Some(required) = required_terms(spec) else {
        return NodeNameHint::AllNodes;
    };
    if required.node_selector_terms.is_empty() {
        return NodeNameHint::AllNodes;
    }
    let mut union: BTreeSet<String> = BTreeSet::new();
    for term in &required.node_selector_terms {
        let mut term_names: Option<BTreeSet<String>> = None;
        for r in term.match_fields.iter().flatten() {
            if r.key == OBJECT_NAME_FIELD && r.operator == "In" {
                let s: BTreeSet<String> = r.values.iter().flatten().cloned().collect();
                term_names = Some(match term_names {
                    None => s,
                    Some(prev) => prev.intersection(&s).cloned().collect(),
                });
            }
        }
        match term_names {
            None => return NodeNameHint::AllNodes,
            Some(names) => union.extend(names),
        }
    }
    if union.is_empty() {
        NodeNameHint::Conflict
    } else {
        NodeNameHint::Only(union)
    }
}

/// NodeAffinity `Score`: the sum of the weights of the preferred terms the node matches (terms with
/// weight 0, empty terms and unparseable terms are dropped, as `NewPreferredSchedulingTerms` does).
pub fn preferred_score(spec: &PodSpec, node: &Node) -> i64 {
    let Some(terms) = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|na| {
            na.preferred_during_scheduling_ignored_during_execution
                .as_ref()
        })
    else {
        return 0;
    };
    terms
        .iter()
        .filter(|t| t.weight != 0 && !is_empty_term(&t.preference))
        .filter(|t| term_matches(&t.preference, node))
        .map(|t| i64::from(t.weight))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::PreferredSchedulingTerm;
    use k8s_openapi::api::core::v1::{Affinity, NodeAffinity};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn node(name: &str, labels: &[(&str, &str)]) -> Node {
        Node {
            metadata: ObjectMeta {
                name: Some(name.into()),
                labels: Some(
                    labels
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                ),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn expr(key: &str, op: &str, values: &[&str]) -> NodeSelectorRequirement {
        NodeSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: if values.is_empty() {
                None
            } else {
                Some(values.iter().map(|v| v.to_string()).collect())
            },
        }
    }

    fn term(exprs: Vec<NodeSelectorRequirement>) -> NodeSelectorTerm {
        NodeSelectorTerm {
            match_expressions: Some(exprs),
            match_fields: None,
        }
    }

    fn spec_with_terms(terms: Vec<NodeSelectorTerm>) -> PodSpec {
        PodSpec {
            affinity: Some(Affinity {
                node_affinity: Some(NodeAffinity {
                    required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                        node_selector_terms: terms,
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn expressions_in_a_term_are_anded_and_terms_ored() {
        let n0 = node("lab-node-0", &[("major", "550"), ("os", "22.04")]);
        let n2 = node("lab-node-2", &[("major", "550"), ("os", "24.04")]);
        let one_term = spec_with_terms(vec![term(vec![
            expr("major", "In", &["550"]),
            expr("os", "In", &["22.04"]),
        ])]);
        assert!(required_node_affinity_matches(&one_term, &n0));
        assert!(!required_node_affinity_matches(&one_term, &n2));
        let two_terms = spec_with_terms(vec![
            term(vec![expr("major", "In", &["550"])]),
            term(vec![expr("os", "In", &["22.04"])]),
        ]);
        assert!(required_node_affinity_matches(&two_terms, &n2));
    }

    #[test]
    fn node_selector_and_affinity_must_both_match() {
        let n = node("a", &[("gpu", "true"), ("major", "550")]);
        let mut spec = spec_with_terms(vec![term(vec![expr("major", "Gt", &["560"])])]);
        assert!(!required_node_affinity_matches(&spec, &n));
        spec = spec_with_terms(vec![term(vec![expr("major", "Lt", &["560"])])]);
        spec.node_selector = Some([("gpu".to_string(), "false".to_string())].into());
        assert!(!required_node_affinity_matches(&spec, &n));
        spec.node_selector = Some([("gpu".to_string(), "true".to_string())].into());
        assert!(required_node_affinity_matches(&spec, &n));
        // No constraints at all matches every node.
        assert!(required_node_affinity_matches(&PodSpec::default(), &n));
    }

    #[test]
    fn empty_terms_and_invalid_terms_match_nothing() {
        let n = node("a", &[("k", "v")]);
        assert!(!required_node_affinity_matches(
            &spec_with_terms(vec![NodeSelectorTerm::default()]),
            &n
        ));
        assert!(!required_node_affinity_matches(
            &spec_with_terms(vec![]),
            &n
        ));
        // An invalid term is skipped, a later valid one can still match.
        let spec = spec_with_terms(vec![
            term(vec![expr("k", "Bogus", &["v"])]),
            term(vec![expr("k", "Exists", &[])]),
        ]);
        assert!(required_node_affinity_matches(&spec, &n));
        let spec = spec_with_terms(vec![term(vec![expr("k", "In", &[])])]);
        assert!(!required_node_affinity_matches(&spec, &n));
    }

    #[test]
    fn match_fields_select_by_node_name() {
        let spec = spec_with_terms(vec![NodeSelectorTerm {
            match_expressions: None,
            match_fields: Some(vec![expr("metadata.name", "In", &["w3"])]),
        }]);
        assert!(required_node_affinity_matches(&spec, &node("w3", &[])));
        assert!(!required_node_affinity_matches(&spec, &node("w1", &[])));
        let not_in = spec_with_terms(vec![NodeSelectorTerm {
            match_expressions: None,
            match_fields: Some(vec![expr("metadata.name", "NotIn", &["w1"])]),
        }]);
        assert!(required_node_affinity_matches(&not_in, &node("w3", &[])));
        assert!(!required_node_affinity_matches(&not_in, &node("w1", &[])));
    }

    #[test]
    fn prefilter_intersects_within_terms_and_unions_across() {
        let fields = |names: &[&str]| NodeSelectorTerm {
            match_expressions: None,
            match_fields: Some(vec![expr("metadata.name", "In", names)]),
        };
        let spec = spec_with_terms(vec![fields(&["a", "b"]), fields(&["c"])]);
        assert_eq!(
            prefilter_node_names(&spec),
            NodeNameHint::Only(["a", "b", "c"].iter().map(|s| s.to_string()).collect())
        );
        let conflict = spec_with_terms(vec![NodeSelectorTerm {
            match_expressions: None,
            match_fields: Some(vec![
                expr("metadata.name", "In", &["a"]),
                expr("metadata.name", "In", &["b"]),
            ]),
        }]);
        assert_eq!(prefilter_node_names(&conflict), NodeNameHint::Conflict);
        let mixed = spec_with_terms(vec![fields(&["a"]), term(vec![expr("k", "Exists", &[])])]);
        assert_eq!(prefilter_node_names(&mixed), NodeNameHint::AllNodes);
    }

    #[test]
    fn preferred_score_sums_matching_weights() {
        let spec = PodSpec {
            affinity: Some(Affinity {
                node_affinity: Some(NodeAffinity {
                    preferred_during_scheduling_ignored_during_execution: Some(vec![
                        PreferredSchedulingTerm {
                            weight: 10,
                            preference: term(vec![expr("zone", "In", &["a"])]),
                        },
                        PreferredSchedulingTerm {
                            weight: 3,
                            preference: term(vec![expr("gpu", "Exists", &[])]),
                        },
                    ]),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(
            preferred_score(&spec, &node("n", &[("zone", "a"), ("gpu", "1")])),
            13
        );
        assert_eq!(preferred_score(&spec, &node("n", &[("zone", "b")])), 0);
    }
}
