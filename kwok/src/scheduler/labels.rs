//! Label selectors as the scheduler evaluates them: `metav1.LabelSelectorAsSelector` and the node
//! selector requirements of `component-helpers/scheduling/corev1/nodeaffinity`, both compiled to
//! `labels.Requirement`s (apimachinery `pkg/labels/selector.go`).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

pub(crate) type Labels = BTreeMap<String, String>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
}

/// One `labels.Requirement`. `Equals` is stored as `In` with one value (same matching rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Requirement {
    key: String,
    op: Op,
    values: Vec<String>,
}

/// The operator was not one the API knows, or its values do not fit it (`labels.NewRequirement`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InvalidRequirement;

impl Requirement {
    /// `labels.NewRequirement` for the operator spellings of node selectors (`In`, `NotIn`, `Exists`,
    /// `DoesNotExist`, `Gt`, `Lt`) and label selectors (the first four).
    pub(crate) fn new(
        key: &str,
        operator: &str,
        values: &[String],
    ) -> Result<Self, InvalidRequirement> {
        let op = match operator {
            "In" => Op::In,
            "NotIn" => Op::NotIn,
            "Exists" => Op::Exists,
            "DoesNotExist" => Op::DoesNotExist,
            "Gt" => Op::GreaterThan,
            "Lt" => Op::LessThan,
            _ => return Err(InvalidRequirement),
        };
        let valid = match op {
            Op::In | Op::NotIn => !values.is_empty(),
            Op::Exists | Op::DoesNotExist => values.is_empty(),
            Op::GreaterThan | Op::LessThan => values.len() == 1 && values[0].parse::<i64>().is_ok(),
        };
        if !valid || key.is_empty() {
            return Err(InvalidRequirement);
        }
        Ok(Self {
            key: key.to_string(),
            op,
            values: values.to_vec(),
        })
    }

    fn equals(key: &str, value: &str) -> Self {
        Self {
            key: key.to_string(),
            op: Op::In,
            values: vec![value.to_string()],
        }
    }

    /// `Requirement.Matches`.
    pub(crate) fn matches(&self, labels: &Labels) -> bool {
        let value = labels.get(&self.key);
        match self.op {
            Op::In => value.is_some_and(|v| self.values.contains(v)),
            Op::NotIn => value.is_none_or(|v| !self.values.contains(v)),
            Op::Exists => value.is_some(),
            Op::DoesNotExist => value.is_none(),
            Op::GreaterThan | Op::LessThan => {
                // Both sides must parse as base-10 int64, otherwise the requirement fails.
                let (Some(have), Some(want)) = (
                    value.and_then(|v| v.parse::<i64>().ok()),
                    self.values.first().and_then(|v| v.parse::<i64>().ok()),
                ) else {
                    return false;
                };
                if self.op == Op::GreaterThan {
                    have > want
                } else {
                    have < want
                }
            }
        }
    }
}

/// A compiled selector: `labels.Nothing()` or a conjunction of requirements (none = `Everything()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Selector {
    Nothing,
    All(Vec<Requirement>),
}

impl Selector {
    /// `labels.SelectorFromSet`: every key must carry exactly that value.
    pub(crate) fn from_set(set: &Labels) -> Self {
        Selector::All(set.iter().map(|(k, v)| Requirement::equals(k, v)).collect())
    }

    /// `metav1.LabelSelectorAsSelector`: nil selects nothing, `{}` selects everything. A selector the
    /// API server would have refused (unknown operator, bad values) also selects nothing here.
    pub(crate) fn from_label_selector(sel: Option<&LabelSelector>) -> Self {
        let Some(sel) = sel else {
            return Selector::Nothing;
        };
        let mut reqs = Vec::new();
        for (k, v) in sel.match_labels.iter().flatten() {
            reqs.push(Requirement::equals(k, v));
        }
        for expr in sel.match_expressions.iter().flatten() {
            if matches!(expr.operator.as_str(), "Gt" | "Lt") {
                return Selector::Nothing;
            }
            match Requirement::new(
                &expr.key,
                &expr.operator,
                expr.values.as_deref().unwrap_or_default(),
            ) {
                Ok(r) => reqs.push(r),
                Err(InvalidRequirement) => return Selector::Nothing,
            }
        }
        Selector::All(reqs)
    }

    /// `Selector.Empty()`: true only for `Everything()` (no requirements). `Nothing()` is not empty.
    pub(crate) fn is_empty(&self) -> bool {
        matches!(self, Selector::All(r) if r.is_empty())
    }

    pub(crate) fn matches(&self, labels: &Labels) -> bool {
        match self {
            Selector::Nothing => false,
            Selector::All(reqs) => reqs.iter().all(|r| r.matches(labels)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn req(key: &str, op: &str, values: &[&str]) -> Requirement {
        let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        Requirement::new(key, op, &values).expect("valid requirement")
    }

    #[test]
    fn set_operators_follow_labels_requirement_matches() {
        let l = labels(&[("a", "1"), ("b", "x")]);
        assert!(req("a", "In", &["1", "2"]).matches(&l));
        assert!(!req("a", "In", &["2"]).matches(&l));
        assert!(!req("missing", "In", &["1"]).matches(&l));
        assert!(req("missing", "NotIn", &["1"]).matches(&l));
        assert!(!req("a", "NotIn", &["1"]).matches(&l));
        assert!(req("b", "Exists", &[]).matches(&l));
        assert!(req("c", "DoesNotExist", &[]).matches(&l));
    }

    #[test]
    fn gt_lt_compare_integers_and_fail_on_non_integers() {
        let l = labels(&[("major", "550"), ("text", "abc")]);
        assert!(!req("major", "Gt", &["560"]).matches(&l));
        assert!(req("major", "Gt", &["549"]).matches(&l));
        assert!(req("major", "Lt", &["560"]).matches(&l));
        assert!(!req("text", "Gt", &["1"]).matches(&l));
        assert!(!req("missing", "Lt", &["1"]).matches(&l));
        let bad: Vec<String> = vec!["x".into()];
        assert_eq!(
            Requirement::new("major", "Gt", &bad),
            Err(InvalidRequirement)
        );
    }

    #[test]
    fn label_selector_nil_selects_nothing_and_empty_selects_everything() {
        let l = labels(&[("app", "web")]);
        assert!(!Selector::from_label_selector(None).matches(&l));
        assert!(Selector::from_label_selector(Some(&LabelSelector::default())).matches(&l));
        let sel = LabelSelector {
            match_labels: Some(labels(&[("app", "web")])),
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "tier".into(),
                operator: "DoesNotExist".into(),
                values: None,
            }]),
        };
        assert!(Selector::from_label_selector(Some(&sel)).matches(&l));
        assert!(!Selector::from_label_selector(Some(&sel)).matches(&labels(&[("app", "db")])));
    }
}
