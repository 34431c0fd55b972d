//! `metav1.LabelSelector` (the JSON object in workload specs) to a [`LabelSelector`], as
//! `k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go` `LabelSelectorAsSelector` does, and its printed
//! form (`FormatLabelSelector`).
//!
//! Semantics followed, exactly as upstream: a `null`/absent selector selects **nothing**, an empty one
//! (`{}`, or empty `matchLabels`/`matchExpressions`) selects **everything**. Callers that need other
//! rules decide before calling: PodDisruptionBudgets in policy/v1 use this function as is (an empty
//! selector matches every pod in the namespace, a missing one none — `disruption.go getPdbsForPod`),
//! and workloads (Deployment, ReplicaSet, DaemonSet) never reach it with an empty selector because
//! validation rejects that.

use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;
use serde_json::Value;

use super::labels::{LabelSelector, Operator, Requirement};
use crate::error::go_quote;

fn operator(name: &str) -> Result<Operator, String> {
    Ok(match name {
        "In" => Operator::In,
        "NotIn" => Operator::NotIn,
        "Exists" => Operator::Exists,
        "DoesNotExist" => Operator::DoesNotExist,
        other => {
            return Err(format!(
                "{} is not a valid label selector operator",
                go_quote(other)
            ))
        }
    })
}

fn string_list(v: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{what}: expected a list of strings"))
            })
            .collect(),
        Some(_) => Err(format!("{what}: expected a list of strings")),
    }
}

pub(super) fn from_api(sel: &Value) -> Result<LabelSelector, String> {
    let obj = match sel {
        Value::Null => return Ok(LabelSelector::nothing()),
        Value::Object(obj) => obj,
        _ => return Err("label selector: expected an object".to_string()),
    };
    let labels = match obj.get("matchLabels") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => return Err("matchLabels: expected an object".to_string()),
    };
    let expressions = match obj.get("matchExpressions") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(a)) => a.as_slice(),
        Some(_) => return Err("matchExpressions: expected a list".to_string()),
    };
    let mut pairs = Vec::new();
    for (key, value) in labels.into_iter().flatten() {
        let value = value
            .as_str()
            .ok_or_else(|| format!("matchLabels[{key}]: expected a string"))?;
        pairs.push((key.as_str(), value));
    }
    let mut exprs = Vec::new();
    for expr in expressions {
        let key = expr.get("key").and_then(Value::as_str).unwrap_or("");
        let op = expr.get("operator").and_then(Value::as_str).unwrap_or("");
        let values = string_list(expr.get("values"), "matchExpressions.values")?;
        exprs.push((key, op, values));
    }
    as_selector(pairs, exprs)
}

/// [`from_api`] over the typed `metav1.LabelSelector` of a k8s-openapi object: `None` selects
/// nothing.
pub(super) fn from_typed(sel: Option<&metav1::LabelSelector>) -> Result<LabelSelector, String> {
    let Some(sel) = sel else {
        return Ok(LabelSelector::nothing());
    };
    let pairs = sel
        .match_labels
        .iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let exprs = sel
        .match_expressions
        .iter()
        .flatten()
        .map(|e| {
            let values = e.values.clone().unwrap_or_default();
            (e.key.as_str(), e.operator.as_str(), values)
        })
        .collect();
    as_selector(pairs, exprs)
}

/// The body of `LabelSelectorAsSelector`: no requirement at all selects everything; `matchLabels`
/// are `=` requirements, expressions use the four label-selector operators.
fn as_selector(
    match_labels: Vec<(&str, &str)>,
    expressions: Vec<(&str, &str, Vec<String>)>,
) -> Result<LabelSelector, String> {
    if match_labels.len() + expressions.len() == 0 {
        return Ok(LabelSelector::everything());
    }
    let mut reqs = Vec::with_capacity(match_labels.len() + expressions.len());
    for (key, value) in match_labels {
        reqs.push(Requirement::new(
            key,
            Operator::Equals,
            vec![value.to_string()],
        )?);
    }
    for (key, op, values) in expressions {
        reqs.push(Requirement::new(key, operator(op)?, values)?);
    }
    Ok(LabelSelector::from_requirements(reqs))
}

/// `metav1.FormatLabelSelector`: `app=x,tier in (a,b)`; nothing to print gives `<none>`, an invalid
/// selector `<error>`.
pub fn format_label_selector(sel: &Value) -> String {
    match from_api(sel) {
        Err(_) => "<error>".to_string(),
        Ok(s) => {
            let text = s.to_string();
            if text.is_empty() {
                "<none>".to_string()
            } else {
                text
            }
        }
    }
}
