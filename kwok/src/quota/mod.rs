//! The quota system shared by the ResourceQuota admission plugin and the resource quota
//! controller (apiserver `pkg/quota/v1`, kubernetes `pkg/quota/v1/evaluator/core`): resource
//! list arithmetic, and one evaluator per kind saying which quota resources it tracks and what an
//! object uses of them.

mod evaluator;
mod pods;

pub(crate) use evaluator::{calculate_usage, Evaluator};
pub(crate) use pods::charged as pod_charged;

use serde_json::Value;

use crate::quantity::{parse_list, Quantity, ResourceList};

/// `quota.Add`.
pub(crate) fn add(a: &ResourceList, b: &ResourceList) -> ResourceList {
    let mut out = a.clone();
    for (k, v) in b {
        let sum = match a.get(k) {
            Some(have) => have.add(v),
            None => v.clone(),
        };
        out.insert(k.clone(), sum);
    }
    out
}

/// `quota.SubtractWithNonNegativeResult`.
fn subtract_non_negative(a: &ResourceList, b: &ResourceList) -> ResourceList {
    let mut out = ResourceList::new();
    for (k, v) in a {
        let diff = b.get(k).map_or_else(|| v.clone(), |other| v.sub(other));
        let kept = if diff.is_negative() || diff.is_zero() {
            Quantity::zero()
        } else {
            diff
        };
        out.insert(k.clone(), kept);
    }
    for k in b.keys() {
        out.entry(k.clone()).or_insert_with(Quantity::zero);
    }
    out
}

/// `quota.Mask`: only the named resources.
pub(crate) fn mask(list: &ResourceList, names: &[String]) -> ResourceList {
    list.iter()
        .filter(|(k, _)| names.contains(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `quota.ResourceNames`.
pub(crate) fn names(list: &ResourceList) -> Vec<String> {
    list.keys().cloned().collect()
}

/// `quota.Equals`: the same names with equal values.
pub(crate) fn equals(a: &ResourceList, b: &ResourceList) -> bool {
    a.len() == b.len()
        && a.iter().all(|(k, v)| {
            b.get(k)
                .is_some_and(|o| v.compare(o) == std::cmp::Ordering::Equal)
        })
}

/// `quota.LessThanOrEqual`: the names of `b` whose value `a` exceeds.
fn exceeding(a: &ResourceList, b: &ResourceList) -> Vec<String> {
    b.iter()
        .filter(|(k, limit)| {
            a.get(*k)
                .is_some_and(|v| v.compare(limit) == std::cmp::Ordering::Greater)
        })
        .map(|(k, _)| k.clone())
        .collect()
}

/// `prettyPrint` of the quota admission: sorted `name=value` joined with commas.
fn pretty_print(list: &ResourceList) -> String {
    list.iter()
        .map(|(k, v)| format!("{k}={}", v.canonical()))
        .collect::<Vec<_>>()
        .join(",")
}

/// One scope a quota is limited to: `spec.scopes` (as `Exists`) and `spec.scopeSelector`'s
/// requirements (`getScopeSelectorsFromQuota`).
#[derive(Debug, Clone)]
pub(crate) struct ScopeSelector {
    pub scope: String,
    pub operator: String,
    pub values: Vec<String>,
}

pub(crate) fn scope_selectors(quota: &Value) -> Vec<ScopeSelector> {
    let spec = &quota["spec"];
    let scopes = spec["scopes"].as_array().into_iter().flatten();
    let mut out: Vec<ScopeSelector> = scopes
        .filter_map(Value::as_str)
        .map(|s| ScopeSelector {
            scope: s.to_string(),
            operator: "Exists".into(),
            values: Vec::new(),
        })
        .collect();
    let exprs = spec["scopeSelector"]["matchExpressions"].as_array();
    out.extend(exprs.into_iter().flatten().map(|e| {
        ScopeSelector {
            scope: e["scopeName"].as_str().unwrap_or("").to_string(),
            operator: e["operator"].as_str().unwrap_or("").to_string(),
            values: e["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        }
    }));
    out
}

/// What the ResourceQuota admission plugin decided for one write (`CheckRequest`).
pub(crate) enum Check {
    /// Admitted; these quotas' `status.used` must be raised to the given lists first.
    Charge(Vec<(Value, ResourceList)>),
    /// Refused with this reason (a Forbidden answer).
    Refuse(String),
}

/// `CheckRequest`: `obj` (and `old`, for an update) against the namespace's `quotas`, in order.
pub(crate) fn check_request(
    quotas: &[Value],
    evaluator: &Evaluator,
    obj: &Value,
    old: Option<&Value>,
    now: chrono::DateTime<chrono::Utc>,
) -> Check {
    let mut interesting = Vec::new();
    for q in quotas {
        if !evaluator.matches(q, obj) {
            continue;
        }
        let hard = parse_list(&q["status"]["hard"]);
        let restricted = evaluator.matching_resources(&names(&hard));
        if let Err(why) = evaluator.constraints(&restricted, obj) {
            return Check::Refuse(format!("failed quota: {}: {why}", name_of(q)));
        }
        let used = &q["status"]["used"];
        let unknown = hard
            .keys()
            .any(|k| restricted.contains(k) && used.get(k).is_none());
        if unknown {
            let mut sorted = restricted.clone();
            sorted.sort();
            return Check::Refuse(format!(
                "status unknown for quota: {}, resources: {}",
                name_of(q),
                sorted.join(",")
            ));
        }
        interesting.push(q);
    }
    let mut delta = evaluator.usage(obj, now);
    let negative: Vec<String> = delta
        .iter()
        .filter(|(_, v)| v.is_negative())
        .map(|(k, _)| k.clone())
        .collect();
    if !negative.is_empty() {
        return Check::Refuse(format!(
            "quota usage is negative for resource(s): {}",
            negative.join(",")
        ));
    }
    if let Some(old) = old.filter(|o| !crate::meta::resource_version(o).is_empty()) {
        delta = subtract_non_negative(&delta, &evaluator.usage(old, now));
    }
    delta.retain(|_, v| !v.is_zero());
    if delta.is_empty() {
        return Check::Charge(Vec::new());
    }
    let mut charges = Vec::new();
    for q in interesting {
        let hard = parse_list(&q["status"]["hard"]);
        let used = parse_list(&q["status"]["used"]);
        let requested = mask(&delta, &names(&hard));
        let new_used = add(&used, &requested);
        let exceeded = exceeding(&mask(&new_used, &names(&requested)), &hard);
        if !exceeded.is_empty() {
            return Check::Refuse(format!(
                "exceeded quota: {}, requested: {}, used: {}, limited: {}",
                name_of(q),
                pretty_print(&mask(&requested, &exceeded)),
                pretty_print(&mask(&used, &exceeded)),
                pretty_print(&mask(&hard, &exceeded)),
            ));
        }
        if !equals(&new_used, &used) {
            charges.push((q.clone(), new_used));
        }
    }
    Check::Charge(charges)
}

fn name_of(q: &Value) -> &str {
    crate::meta::name(q)
}

#[cfg(test)]
mod tests;
