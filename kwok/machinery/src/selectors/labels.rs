//! Label selectors: requirements, matching and the string form, as `k8s.io/apimachinery/pkg/labels`
//! (`selector.go`) defines them.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::{aggregate, go_quote, FieldError};
use crate::names;

/// `labels.Labels`: what a selector reads labels from — an object's `metadata.labels` JSON or a
/// typed object's map — so one selector serves the API server, controllers and scheduler.
pub trait LabelSet {
    /// The value of label `key`, if the set has it.
    fn label(&self, key: &str) -> Option<&str>;
}

impl LabelSet for Map<String, Value> {
    /// A non-string label value cannot be stored; it reads as the empty string rather than panic.
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(|v| v.as_str().unwrap_or(""))
    }
}

impl LabelSet for BTreeMap<String, String> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

impl<T: LabelSet + ?Sized> LabelSet for Option<&T> {
    fn label(&self, key: &str) -> Option<&str> {
        self.and_then(|l| l.label(key))
    }
}

impl<T: LabelSet + ?Sized> LabelSet for &T {
    fn label(&self, key: &str) -> Option<&str> {
        (**self).label(key)
    }
}

/// `selection.Operator`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    In,
    NotIn,
    Equals,
    DoubleEquals,
    NotEquals,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
}

impl Operator {
    /// `nodeSelectorRequirementsAsSelector`'s mapping of a `NodeSelectorOperator`.
    pub fn from_node_selector(op: &str) -> Result<Self, String> {
        Ok(match op {
            "In" => Self::In,
            "NotIn" => Self::NotIn,
            "Exists" => Self::Exists,
            "DoesNotExist" => Self::DoesNotExist,
            "Gt" => Self::GreaterThan,
            "Lt" => Self::LessThan,
            other => return Err(format!("{other:?} is not a valid node selector operator")),
        })
    }

    /// The operator's own spelling (`selection.Operator` string values).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::In => "in",
            Self::NotIn => "notin",
            Self::Equals => "=",
            Self::DoubleEquals => "==",
            Self::NotEquals => "!=",
            Self::Exists => "exists",
            Self::DoesNotExist => "!",
            Self::GreaterThan => "gt",
            Self::LessThan => "lt",
        }
    }
}

/// One `key op values` term of a selector (`labels.Requirement`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    key: String,
    operator: Operator,
    values: Vec<String>,
}

/// Go's `json.Marshal` of a `[]string` as a field error prints it: `null` for a nil slice.
fn render_values(values: &[String]) -> String {
    if values.is_empty() {
        "null".to_string()
    } else {
        serde_json::to_string(values).unwrap_or_else(|_| "null".to_string())
    }
}

/// `validateLabelKey`: an `Invalid` field error on `path` (`<nil>` when parsing a string selector).
pub fn validate_label_key(key: &str, path: &str) -> Result<(), FieldError> {
    let errs = names::qualified_name(key);
    if errs.is_empty() {
        Ok(())
    } else {
        Err(FieldError::invalid(path, go_quote(key), errs.join("; ")))
    }
}

impl Requirement {
    /// `labels.NewRequirement` without a path option: the error is the aggregated field error list, with
    /// fields `key`, `values` and `values[i][key]` as upstream names them.
    pub fn new(key: &str, operator: Operator, values: Vec<String>) -> Result<Self, String> {
        let mut errs: Vec<FieldError> = Vec::new();
        if let Err(e) = validate_label_key(key, "key") {
            errs.push(e);
        }
        match operator {
            Operator::In | Operator::NotIn => {
                if values.is_empty() {
                    errs.push(FieldError::invalid(
                        "values",
                        render_values(&values),
                        "for 'in', 'notin' operators, values set can't be empty",
                    ));
                }
            }
            Operator::Equals | Operator::DoubleEquals | Operator::NotEquals => {
                if values.len() != 1 {
                    errs.push(FieldError::invalid(
                        "values",
                        render_values(&values),
                        "exact-match compatibility requires one single value",
                    ));
                }
            }
            Operator::Exists | Operator::DoesNotExist => {
                if !values.is_empty() {
                    errs.push(FieldError::invalid(
                        "values",
                        render_values(&values),
                        "values set must be empty for exists and does not exist",
                    ));
                }
            }
            Operator::GreaterThan | Operator::LessThan => {
                if values.len() != 1 {
                    errs.push(FieldError::invalid(
                        "values",
                        render_values(&values),
                        "for 'Gt', 'Lt' operators, exactly one value is required",
                    ));
                }
                for (i, v) in values.iter().enumerate() {
                    if v.parse::<i64>().is_err() {
                        errs.push(FieldError::invalid(
                            format!("values[{i}]"),
                            go_quote(v),
                            "for 'Gt', 'Lt' operators, the value must be an integer",
                        ));
                    }
                }
            }
        }
        for (i, v) in values.iter().enumerate() {
            let msgs = names::label_value(v);
            if !msgs.is_empty() {
                errs.push(FieldError::invalid(
                    format!("values[{i}][{key}]"),
                    go_quote(v),
                    msgs.join("; "),
                ));
            }
        }
        if errs.is_empty() {
            Ok(Self {
                key: key.to_string(),
                operator,
                values,
            })
        } else {
            Err(aggregate(errs.iter().map(|e| e.to_string()).collect()))
        }
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    pub fn operator(&self) -> Operator {
        self.operator
    }

    pub fn values(&self) -> &[String] {
        &self.values
    }

    fn has_value(&self, value: &str) -> bool {
        self.values.iter().any(|v| v == value)
    }

    /// `Requirement.Matches`.
    pub fn matches(&self, labels: impl LabelSet) -> bool {
        let value = labels.label(&self.key);
        match self.operator {
            Operator::In | Operator::Equals | Operator::DoubleEquals => {
                value.is_some_and(|v| self.has_value(v))
            }
            Operator::NotIn | Operator::NotEquals => value.is_none_or(|v| !self.has_value(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => {
                let Some(actual) = value.and_then(|v| v.parse::<i64>().ok()) else {
                    return false;
                };
                let [wanted] = self.values.as_slice() else {
                    return false;
                };
                let Ok(wanted) = wanted.parse::<i64>() else {
                    return false;
                };
                if self.operator == Operator::GreaterThan {
                    actual > wanted
                } else {
                    actual < wanted
                }
            }
        }
    }
}

impl std::fmt::Display for Requirement {
    /// `Requirement.String`: `!key`, `key`, `key=v`, `key in (a,b)` with values sorted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.operator == Operator::DoesNotExist {
            f.write_str("!")?;
        }
        f.write_str(&self.key)?;
        let op = match self.operator {
            Operator::Equals => "=",
            Operator::DoubleEquals => "==",
            Operator::NotEquals => "!=",
            Operator::In => " in ",
            Operator::NotIn => " notin ",
            Operator::GreaterThan => ">",
            Operator::LessThan => "<",
            Operator::Exists | Operator::DoesNotExist => return Ok(()),
        };
        f.write_str(op)?;
        let set = matches!(self.operator, Operator::In | Operator::NotIn);
        if set {
            f.write_str("(")?;
        }
        let mut values = self.values.clone();
        values.sort();
        f.write_str(&values.join(","))?;
        if set {
            f.write_str(")")?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// `labels.Nothing()`: what a null `metav1.LabelSelector` converts to.
    Nothing,
    /// The AND of its requirements, sorted by key; empty selects everything.
    Requirements(Vec<Requirement>),
}

/// A parsed label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelSelector {
    kind: Kind,
}

impl Default for LabelSelector {
    fn default() -> Self {
        Self::everything()
    }
}

impl LabelSelector {
    /// `labels.Everything()`.
    pub fn everything() -> Self {
        Self {
            kind: Kind::Requirements(Vec::new()),
        }
    }

    /// `labels.Nothing()`.
    pub fn nothing() -> Self {
        Self {
            kind: Kind::Nothing,
        }
    }

    /// A selector from requirements, sorted by key (stable, as `Add` sorts them).
    pub fn from_requirements(mut reqs: Vec<Requirement>) -> Self {
        reqs.sort_by(|a, b| a.key.cmp(&b.key));
        Self {
            kind: Kind::Requirements(reqs),
        }
    }

    /// `labels.Parse`: the string form of `?labelSelector=`. The error is the exact text the API
    /// server returns in its 400 (see [`super::label_selector_param`]).
    pub fn parse(s: &str) -> Result<LabelSelector, String> {
        super::label_parser::parse(s).map(Self::from_requirements)
    }

    /// `metav1.LabelSelectorAsSelector` over a `metav1.LabelSelector` JSON value: `null` selects
    /// nothing, `{}` selects everything (see [`super::label_api`]).
    pub fn from_api(sel: &Value) -> Result<LabelSelector, String> {
        super::label_api::from_api(sel)
    }

    /// [`Self::from_api`] over a typed `metav1.LabelSelector` (`None` selects nothing).
    pub fn from_typed(
        sel: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    ) -> Result<LabelSelector, String> {
        super::label_api::from_typed(sel)
    }

    /// `labels.SelectorFromSet`: every key must carry exactly that value.
    pub fn from_set(set: &BTreeMap<String, String>) -> Self {
        Self::from_requirements(
            set.iter()
                .map(|(k, v)| Requirement {
                    key: k.clone(),
                    operator: Operator::Equals,
                    values: vec![v.clone()],
                })
                .collect(),
        )
    }

    /// This selector AND `req` (`Selector.Add`).
    pub fn and(self, req: Requirement) -> Self {
        match self.kind {
            Kind::Nothing => self,
            Kind::Requirements(mut reqs) => {
                reqs.push(req);
                Self::from_requirements(reqs)
            }
        }
    }

    pub fn matches(&self, labels: impl LabelSet) -> bool {
        match &self.kind {
            Kind::Nothing => false,
            Kind::Requirements(reqs) => reqs.iter().all(|r| r.matches(&labels)),
        }
    }

    /// `Selector.Empty`: true when it does not restrict (the nothing selector is not empty).
    pub fn is_empty(&self) -> bool {
        matches!(&self.kind, Kind::Requirements(r) if r.is_empty())
    }

    /// True for the selector that matches no object at all.
    pub fn is_nothing(&self) -> bool {
        self.kind == Kind::Nothing
    }

    pub fn requirements(&self) -> &[Requirement] {
        match &self.kind {
            Kind::Nothing => &[],
            Kind::Requirements(r) => r,
        }
    }

    /// `Selector.RequiresExactMatch`: the single value `label` must have, if the selector pins one.
    pub fn requires_exact_match(&self, label: &str) -> Option<&str> {
        let req = self.requirements().iter().find(|r| r.key == label)?;
        match (req.operator, req.values.as_slice()) {
            (Operator::Equals | Operator::DoubleEquals | Operator::In, [v]) => Some(v),
            _ => None,
        }
    }
}

impl std::fmt::Display for LabelSelector {
    /// `Selector.String`: requirements joined by `,`; the nothing selector prints as "".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.requirements().iter().map(|r| r.to_string()).collect();
        f.write_str(&parts.join(","))
    }
}

/// `labels.FormatLabels`: `k=v` pairs sorted by key and joined by `,`; no labels print as `<none>`.
pub fn format_labels(labels: Option<&Map<String, Value>>) -> String {
    let mut pairs: Vec<(&String, &str)> = labels
        .map(|l| {
            l.iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or("")))
                .collect()
        })
        .unwrap_or_default();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    let joined: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if joined.is_empty() {
        "<none>".to_string()
    } else {
        joined.join(",")
    }
}
