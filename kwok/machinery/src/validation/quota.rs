//! ResourceQuotas and LimitRanges (core validation `ValidateResourceQuota`,
//! `ValidateResourceQuotaUpdate`, `ValidateResourceQuotaStatusUpdate`, `ValidateLimitRange`).
//!
//! Go ranges over the resource maps in random order; keys are visited sorted here.

use std::collections::BTreeSet;

use serde_json::Value;

use super::meta::{object_meta, object_meta_update};
use super::path::{duplicate, forbidden, invalid, required, Path};
use super::resources::{
    is_hugepages, overcommit_allowed, quantities, quantity_value, resource_name,
    standard_resource_name,
};
use crate::error::{go_quote, FieldError};
use crate::names;
use crate::quantity::Quantity;

/// `standardQuotaResources` (`IsStandardQuotaResourceName` adds the hugepages names).
const STANDARD_QUOTA_RESOURCES: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.storage",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "persistentvolumeclaims",
    "configmaps",
    "services.nodeports",
    "services.loadbalancers",
];

/// `IsStandardResourceQuotaScope`.
const SCOPES: &[&str] = &[
    "Terminating",
    "NotTerminating",
    "BestEffort",
    "NotBestEffort",
    "PriorityClass",
    "CrossNamespacePodAffinity",
];

fn is_standard_quota_resource(name: &str) -> bool {
    STANDARD_QUOTA_RESOURCES.contains(&name)
        || is_hugepages(name)
        || name.strip_prefix("requests.").is_some_and(is_hugepages)
}

/// `IsResourceQuotaScopeValidForResource`.
fn scope_valid_for(scope: &str, resource: &str) -> bool {
    const COMPUTE: &[&str] = &[
        "pods",
        "cpu",
        "memory",
        "limits.cpu",
        "limits.memory",
        "requests.cpu",
        "requests.memory",
    ];
    match scope {
        "Terminating"
        | "NotTerminating"
        | "NotBestEffort"
        | "PriorityClass"
        | "CrossNamespacePodAffinity" => COMPUTE.contains(&resource),
        "BestEffort" => resource == "pods",
        _ => true,
    }
}

/// `ValidateResourceQuotaResourceName`.
fn quota_resource_name(name: &str, p: &Path) -> Vec<FieldError> {
    let mut errs = standard_resource_name(name, p);
    if !name.contains('/') && !is_standard_quota_resource(name) {
        errs.push(invalid(p, name, "must be a standard resource for quota"));
    }
    errs
}

/// Every entry of the resource list `obj[key]` at `p`.
fn resource_list(obj: &Value, key: &str, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (name, q) in quantities(obj, key) {
        let rp = p.key(&name);
        errs.extend(quota_resource_name(&name, &rp));
        if let Some(q) = q {
            errs.extend(quantity_value(&name, &q, &rp));
        }
    }
    errs
}

/// `%#v` of a `[]core.ResourceQuotaScope`.
fn scopes_value(scopes: Option<&Value>) -> String {
    crate::gofmt::go_syntax::named_string_slice(scopes, "[]core.ResourceQuotaScope")
}

/// `%#v` of a `core.ScopeSelector` (the pointer is followed).
fn scope_selector_value(selector: &Value) -> String {
    let exprs = match selector["matchExpressions"].as_array() {
        None => "[]core.ScopedResourceSelectorRequirement(nil)".to_string(),
        Some(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|e| {
                    format!(
                        "core.ScopedResourceSelectorRequirement{{ScopeName:{}, Operator:{}, Values:{}}}",
                        go_quote(e["scopeName"].as_str().unwrap_or("")),
                        go_quote(e["operator"].as_str().unwrap_or("")),
                        crate::gofmt::go_syntax::string_slice(e.get("values")),
                    )
                })
                .collect();
            format!(
                "[]core.ScopedResourceSelectorRequirement{{{}}}",
                parts.join(", ")
            )
        }
    };
    format!("core.ScopeSelector{{MatchExpressions:{exprs}}}")
}

fn hard_names(spec: &Value) -> BTreeSet<String> {
    spec["hard"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// Both pairs of scopes that contradict each other, when all of one pair is in `set`.
fn conflicting(set: &BTreeSet<&str>) -> usize {
    [
        ["BestEffort", "NotBestEffort"],
        ["Terminating", "NotTerminating"],
    ]
    .iter()
    .filter(|pair| pair.iter().all(|s| set.contains(s)))
    .count()
}

/// `validateResourceQuotaScopes`.
fn scopes(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(list) = spec["scopes"].as_array().filter(|l| !l.is_empty()) else {
        return errs;
    };
    let p = Path::of(&["spec", "scopes"]);
    let value = scopes_value(spec.get("scopes"));
    let hard = hard_names(spec);
    let mut set = BTreeSet::new();
    for scope in list.iter().map(|s| s.as_str().unwrap_or("")) {
        if !SCOPES.contains(&scope) {
            errs.push(invalid(&p, value.clone(), "unsupported scope"));
        }
        for k in &hard {
            if is_standard_quota_resource(k) && !scope_valid_for(scope, k) {
                errs.push(invalid(
                    &p,
                    value.clone(),
                    "unsupported scope applied to resource",
                ));
            }
        }
        set.insert(scope);
    }
    for _ in 0..conflicting(&set) {
        errs.push(invalid(&p, value.clone(), "conflicting scopes"));
    }
    errs
}

/// `validateScopeSelector` and `validateScopedResourceSelectorRequirement`.
fn scope_selector(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let selector = &spec["scopeSelector"];
    if !selector.is_object() {
        return errs;
    }
    let p = Path::of(&["spec", "scopeSelector", "matchExpressions"]);
    let hard = hard_names(spec);
    let mut set = BTreeSet::new();
    for req in selector["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let scope = req["scopeName"].as_str().unwrap_or("");
        let operator = req["operator"].as_str().unwrap_or("");
        let values = req["values"].as_array().map_or(0, Vec::len);
        if !SCOPES.contains(&scope) {
            errs.push(invalid(
                &p.child("scopeName"),
                go_quote(scope),
                "unsupported scope",
            ));
        }
        for k in &hard {
            if is_standard_quota_resource(k) && !scope_valid_for(scope, k) {
                errs.push(invalid(
                    &p,
                    scope_selector_value(selector),
                    "unsupported scope applied to resource",
                ));
            }
        }
        let exists_only = matches!(
            scope,
            "BestEffort"
                | "NotBestEffort"
                | "Terminating"
                | "NotTerminating"
                | "CrossNamespacePodAffinity"
        );
        if exists_only && operator != "Exists" {
            errs.push(invalid(&p.child("operator"), go_quote(operator), "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"));
        }
        match operator {
            "In" | "NotIn" if values == 0 => errs.push(required(
                &p.child("values"),
                "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
            )),
            "Exists" | "DoesNotExist" if values != 0 => errs.push(invalid(
                &p.child("values"),
                crate::gofmt::go_syntax::string_slice(req.get("values")),
                "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => errs.push(invalid(
                &p.child("operator"),
                go_quote(other),
                "not a valid selector operator",
            )),
        }
        set.insert(scope);
    }
    for _ in 0..conflicting(&set) {
        errs.push(invalid(
            &p,
            scopes_value(spec.get("scopes")),
            "conflicting scopes",
        ));
    }
    errs
}

/// `ValidateResourceQuotaSpec`.
fn spec(obj: &Value) -> Vec<FieldError> {
    let spec = &obj["spec"];
    let mut errs = resource_list(spec, "hard", &Path::of(&["spec", "hard"]));
    errs.extend(scopes(spec));
    errs.extend(scope_selector(spec));
    errs
}

/// `ValidateResourceQuotaStatus`.
fn status(obj: &Value) -> Vec<FieldError> {
    let status = &obj["status"];
    let mut errs = resource_list(status, "hard", &Path::of(&["status", "hard"]));
    errs.extend(resource_list(
        status,
        "used",
        &Path::of(&["status", "used"]),
    ));
    errs
}

/// `ValidateResourceQuota`.
pub fn resource_quota(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    errs.extend(spec(obj));
    errs.extend(status(obj));
    errs
}

/// `ValidateResourceQuotaUpdate`: the scopes, as a set, cannot change.
pub fn resource_quota_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(spec(new));
    let set = |v: &Value| -> BTreeSet<String> {
        v["spec"]["scopes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    if set(new) != set(old) {
        errs.push(invalid(
            &Path::of(&["spec", "scopes"]),
            scopes_value(new["spec"].get("scopes")),
            "field is immutable",
        ));
    }
    errs
}

/// `ValidateResourceQuotaStatusUpdate`.
pub fn resource_quota_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    if crate::meta::resource_version(new).is_empty() {
        errs.push(required(&Path::new("resourceVersion"), ""));
    }
    errs.extend(status(new));
    errs
}

/// `validateLimitRangeTypeName`.
fn limit_type(value: &str, p: &Path) -> Vec<FieldError> {
    let errs: Vec<FieldError> = names::qualified_name(value)
        .into_iter()
        .map(|m| invalid(p, go_quote(value), m))
        .collect();
    if !errs.is_empty() {
        return errs;
    }
    let standard = ["Pod", "Container", "PersistentVolumeClaim"].contains(&value);
    if !value.contains('/') && !standard {
        return vec![invalid(
            p,
            go_quote(value),
            "must be a standard limit type or fully qualified",
        )];
    }
    errs
}

/// `validateLimitRangeResourceName`.
fn limit_resource_name(limit_type: &str, name: &str, p: &Path) -> Vec<FieldError> {
    match limit_type {
        "Pod" | "Container" => resource_name(name, p),
        _ => standard_resource_name(name, p),
    }
}

/// `%f` of Go's fmt: six decimals.
fn go_float(v: f64) -> String {
    format!("{v:.6}")
}

/// `ValidateLimitRange`.
pub fn limit_range(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    let base = Path::of(&["spec", "limits"]);
    let mut types = BTreeSet::new();
    let items = obj["spec"]["limits"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    for (i, item) in items.iter().enumerate() {
        let p = base.index(i);
        let ty = item["type"].as_str().unwrap_or("");
        errs.extend(limit_type(ty, &p.child("type")));
        if !types.insert(ty) {
            errs.push(duplicate(&p.child("type"), go_quote(ty)));
        }
        let mut keys = BTreeSet::new();
        let mut read = |key: &str, errs: &mut Vec<FieldError>| {
            let list = quantities(item, key);
            for (name, _) in &list {
                errs.extend(limit_resource_name(ty, name, &p.child(key).key(name)));
                keys.insert(name.clone());
            }
            list.into_iter()
                .filter_map(|(k, q)| Some((k, q?)))
                .collect::<std::collections::BTreeMap<String, Quantity>>()
        };
        let max = read("max", &mut errs);
        let min = read("min", &mut errs);
        let (default, default_request) = if ty == "Pod" {
            let has = |k: &str| item[k].as_object().is_some_and(|m| !m.is_empty());
            if has("default") {
                errs.push(forbidden(
                    &p.child("default"),
                    "may not be specified when `type` is 'Pod'",
                ));
            }
            if has("defaultRequest") {
                errs.push(forbidden(
                    &p.child("defaultRequest"),
                    "may not be specified when `type` is 'Pod'",
                ));
            }
            Default::default()
        } else {
            (
                read("default", &mut errs),
                read("defaultRequest", &mut errs),
            )
        };
        if ty == "PersistentVolumeClaim"
            && item["min"].get("storage").is_none()
            && item["max"].get("storage").is_none()
        {
            errs.push(required(
                &p.child("limits"),
                "either minimum or maximum storage value is required, but neither was provided",
            ));
        }
        let ratios = read("maxLimitRequestRatio", &mut errs);
        for k in &keys {
            let (lo, hi) = (min.get(k), max.get(k));
            let (def, req, ratio) = (default.get(k), default_request.get(k), ratios.get(k));
            let gt = |a: &Quantity, b: &Quantity| a.compare(b) == std::cmp::Ordering::Greater;
            if let (Some(lo), Some(hi)) = (lo, hi) {
                if gt(lo, hi) {
                    errs.push(invalid(
                        &p.child("min").key(k),
                        lo.go_sharp_v(),
                        format!(
                            "min value {} is greater than max value {}",
                            lo.canonical(),
                            hi.canonical()
                        ),
                    ));
                }
            }
            if let (Some(req), Some(lo)) = (req, lo) {
                if gt(lo, req) {
                    errs.push(invalid(
                        &p.child("defaultRequest").key(k),
                        req.go_sharp_v(),
                        format!(
                            "min value {} is greater than default request value {}",
                            lo.canonical(),
                            req.canonical()
                        ),
                    ));
                }
            }
            if let (Some(req), Some(hi)) = (req, hi) {
                if gt(req, hi) {
                    errs.push(invalid(
                        &p.child("defaultRequest").key(k),
                        req.go_sharp_v(),
                        format!(
                            "default request value {} is greater than max value {}",
                            req.canonical(),
                            hi.canonical()
                        ),
                    ));
                }
            }
            if let (Some(req), Some(def)) = (req, def) {
                if gt(req, def) {
                    errs.push(invalid(
                        &p.child("defaultRequest").key(k),
                        req.go_sharp_v(),
                        format!(
                            "default request value {} is greater than default limit value {}",
                            req.canonical(),
                            def.canonical()
                        ),
                    ));
                }
            }
            if let (Some(def), Some(lo)) = (def, lo) {
                if gt(lo, def) {
                    errs.push(invalid(
                        &p.child("default").key(k),
                        lo.go_sharp_v(),
                        format!(
                            "min value {} is greater than default value {}",
                            lo.canonical(),
                            def.canonical()
                        ),
                    ));
                }
            }
            if let (Some(def), Some(hi)) = (def, hi) {
                if gt(def, hi) {
                    errs.push(invalid(
                        &p.child("default").key(k),
                        hi.go_sharp_v(),
                        format!(
                            "default value {} is greater than max value {}",
                            def.canonical(),
                            hi.canonical()
                        ),
                    ));
                }
            }
            if let Some(ratio) = ratio {
                if ratio.compare(&Quantity::from_units(1)) == std::cmp::Ordering::Less {
                    errs.push(invalid(
                        &p.child("maxLimitRequestRatio").key(k),
                        ratio.go_sharp_v(),
                        format!("ratio {} is less than 1", ratio.canonical()),
                    ));
                }
                if let (Some(lo), Some(hi)) = (lo, hi) {
                    // Milli precision while every value fits, as upstream compares.
                    let limit = hi.milli_value() as f64 / lo.milli_value() as f64;
                    let value = ratio.milli_value() as f64 / 1000.0;
                    if value > limit {
                        errs.push(invalid(
                            &p.child("maxLimitRequestRatio").key(k),
                            ratio.go_sharp_v(),
                            format!(
                                "ratio {} is greater than max/min = {}",
                                ratio.canonical(),
                                go_float(limit)
                            ),
                        ));
                    }
                }
            }
            if let (Some(def), Some(req)) = (def, req) {
                if !overcommit_allowed(k) && def.compare(req) != std::cmp::Ordering::Equal {
                    errs.push(invalid(
                        &p.child("defaultRequest").key(k),
                        req.go_sharp_v(),
                        format!(
                            "default value {} must equal to defaultRequest value {} in {k}",
                            def.canonical(),
                            req.canonical()
                        ),
                    ));
                }
            }
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::validation::messages;

    fn quota(spec: Value) -> Value {
        json!({"metadata": {"name": "q", "namespace": "n"}, "spec": spec})
    }

    #[test]
    fn quota_names_must_be_standard_or_qualified_and_counts_whole() {
        let errs = resource_quota(&quota(json!({"hard": {
            "limit.cpu": "1", "pods": "1.5", "requests.nvidia.com/gpu": "1", "cpu": "-1"}})));
        assert_eq!(
            messages(errs),
            [
                "spec.hard[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
                "spec.hard[limit.cpu]: Invalid value: limit.cpu: must be a standard resource type or fully qualified",
                "spec.hard[limit.cpu]: Invalid value: limit.cpu: must be a standard resource for quota",
                "spec.hard[pods]: Invalid value: resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an integer",
            ]
        );
    }

    #[test]
    fn scopes_must_fit_the_resources_and_not_conflict() {
        let errs = resource_quota(&quota(json!({"hard": {"pods": "1", "services": "1"},
            "scopes": ["BestEffort", "NotBestEffort"]})));
        assert_eq!(
            messages(errs),
            [
                "spec.scopes: Invalid value: []core.ResourceQuotaScope{\"BestEffort\", \"NotBestEffort\"}: unsupported scope applied to resource",
                "spec.scopes: Invalid value: []core.ResourceQuotaScope{\"BestEffort\", \"NotBestEffort\"}: unsupported scope applied to resource",
                "spec.scopes: Invalid value: []core.ResourceQuotaScope{\"BestEffort\", \"NotBestEffort\"}: conflicting scopes",
            ]
        );
        let old = quota(json!({"hard": {"pods": "1"}, "scopes": ["BestEffort"]}));
        let mut new = old.clone();
        new["spec"]["scopes"] = json!(["NotTerminating"]);
        assert!(messages(resource_quota_update(&new, &old)).contains(
            &"spec.scopes: Invalid value: []core.ResourceQuotaScope{\"NotTerminating\"}: field is immutable".to_string()
        ));
    }

    #[test]
    fn limit_range_bounds_are_ordered() {
        let lr = json!({"metadata": {"name": "l", "namespace": "n"}, "spec": {"limits": [
            {"type": "Container", "max": {"cpu": "1"}, "default": {"cpu": "2"},
             "defaultRequest": {"cpu": "2"}},
            {"type": "Pod", "default": {"cpu": "1"}},
            {"type": "Container"}]}});
        assert_eq!(
            messages(limit_range(&lr)),
            [
                "spec.limits[0].defaultRequest[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:2, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"2\", Format:\"DecimalSI\"}: default request value 2 is greater than max value 1",
                "spec.limits[0].default[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"1\", Format:\"DecimalSI\"}: default value 2 is greater than max value 1",
                "spec.limits[1].default: Forbidden: may not be specified when `type` is 'Pod'",
                "spec.limits[2].type: Duplicate value: \"Container\"",
            ]
        );
    }
}
