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
    if labels.map_or(0, |m| m.len()) + expressions.len() == 0 {
        return Ok(LabelSelector::everything());
    }
    let mut reqs = Vec::new();
    for (key, value) in labels.into_iter().flatten() {
        let value = value
            .as_str()
            .ok_or_else(|| format!("matchLabels[{key}]: expected a string"))?;
        reqs.push(Requirement::new(
            key,
            Operator::Equals,
            vec![value.to_string()],
        )?);
    }
    for expr in expressions {
        let key = expr.get("key").and_then(Value::as_str).unwrap_or("");
        let op = operator(expr.get("operator").and_then(Value::as_str).unwrap_or(""))?;
        let values = string_list(expr.get("values"), "matchExpressions.values")?;
        reqs.push(Requirement::new(key, op, values)?);
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
