//! Container resource requirements (core validation `ValidateResourceRequirements`,
//! `validateContainerResourceName`, `ValidateResourceQuantityValue`; names from
//! pkg/apis/core/helper).

use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::path::{forbidden, invalid, required, Path};
use crate::error::{go_quote, FieldError};
use crate::names;
use crate::quantity::Quantity;

const STANDARD_CONTAINER_RESOURCES: &[&str] = &["cpu", "memory", "ephemeral-storage"];

pub(super) fn is_hugepages(name: &str) -> bool {
    name.starts_with("hugepages-")
}

/// `IsNativeResource`: no domain, or a kubernetes.io domain.
pub(super) fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `IsExtendedResourceName`.
pub(super) fn is_extended(name: &str) -> bool {
    if is_native(name) || name.starts_with("requests.") {
        return false;
    }
    names::qualified_name(&format!("requests.{name}")).is_empty()
}

/// `IsOvercommitAllowed`.
pub(super) fn overcommit_allowed(name: &str) -> bool {
    is_native(name) && !is_hugepages(name)
}

/// `integerResources`; `IsIntegerResourceName` adds the extended resources.
const INTEGER_RESOURCES: &[&str] = &[
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
];

/// `IsIntegerResourceName`.
fn is_integer_resource(name: &str) -> bool {
    INTEGER_RESOURCES.contains(&name) || is_extended(name)
}

/// `standardResources` of pkg/apis/core/helper (`IsStandardResourceName`).
const STANDARD_RESOURCES: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "services",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "persistentvolumeclaims",
    "configmaps",
    "services.nodeports",
    "services.loadbalancers",
    "storage",
    "requests.storage",
];

/// `validateResourceName`: a qualified name, and a standard one unless it has a domain. A
/// `core.ResourceName` is a `fmt.Stringer`, so its errors show the name unquoted.
pub(super) fn standard_resource_name(name: &str, p: &Path) -> Vec<FieldError> {
    let mut errs: Vec<FieldError> = names::qualified_name(name)
        .into_iter()
        .map(|m| invalid(p, name, m))
        .collect();
    if errs.is_empty() && !name.contains('/') {
        let standard = STANDARD_RESOURCES.contains(&name)
            || is_hugepages(name)
            || name.strip_prefix("requests.").is_some_and(is_hugepages);
        if !standard {
            errs.push(invalid(
                p,
                name,
                "must be a standard resource type or fully qualified",
            ));
        }
    }
    errs
}

/// `validateContainerResourceName`.
pub(super) fn resource_name(name: &str, p: &Path) -> Vec<FieldError> {
    let mut errs = standard_resource_name(name, p);
    if !name.contains('/') {
        if !STANDARD_CONTAINER_RESOURCES.contains(&name) && !is_hugepages(name) {
            errs.push(invalid(
                p,
                name,
                "must be a standard resource for containers",
            ));
        }
    } else if !is_native(name) && !is_extended(name) {
        errs.push(invalid(
            p,
            name,
            "doesn't follow extended resource name standard",
        ));
    }
    errs
}

/// The entries of the resource list `r[key]`, by name, each with its quantity when it parses.
pub(super) fn quantities(r: &Value, key: &str) -> Vec<(String, Option<Quantity>)> {
    let mut out: Vec<(String, Option<Quantity>)> = r
        .get(key)
        .and_then(Value::as_object)
        .unwrap_or(&Map::new())
        .iter()
        .map(|(k, v)| {
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), Quantity::parse(text.trim()).ok())
        })
        .collect();
    // Go ranges over maps in random order; sorted keys give stable messages.
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// `ValidateResourceQuantityValue`: never negative, whole for counted resources (a Quantity
/// value is shown as Go's `%#v` of it).
pub(super) fn quantity_value(name: &str, q: &Quantity, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if q.is_negative() {
        errs.push(invalid(
            p,
            go_quote(&q.canonical()),
            "must be greater than or equal to 0",
        ));
    }
    if is_integer_resource(name) && !q.is_integer() {
        errs.push(invalid(p, q.go_sharp_v(), "must be an integer"));
    }
    errs
}

/// `ValidateResourceRequirements` for `r` (`{limits, requests}`) at `p`.
pub fn requirements(r: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let lim_path = p.child("limits");
    let req_path = p.child("requests");
    let limits = quantities(r, "limits");
    let requests = quantities(r, "requests");
    let (mut lim_cpu_mem, mut req_cpu_mem, mut lim_huge, mut req_huge) =
        (false, false, false, false);
    for (name, q) in &limits {
        let fp = lim_path.key(name);
        errs.extend(resource_name(name, &fp));
        if let Some(q) = q {
            errs.extend(quantity_value(name, q, &fp));
        }
        lim_huge |= is_hugepages(name);
        lim_cpu_mem |= name == "cpu" || name == "memory";
    }
    for (name, q) in &requests {
        let fp = req_path.key(name);
        errs.extend(resource_name(name, &fp));
        let Some(q) = q else { continue };
        errs.extend(quantity_value(name, q, &fp));
        match limits.iter().find(|(n, _)| n == name) {
            Some((_, Some(limit))) => {
                let ord = q.compare(limit);
                if ord != Ordering::Equal && !overcommit_allowed(name) {
                    errs.push(invalid(
                        &req_path,
                        go_quote(&q.canonical()),
                        format!("must be equal to {name} limit of {}", limit.canonical()),
                    ));
                } else if ord == Ordering::Greater {
                    errs.push(invalid(
                        &req_path,
                        go_quote(&q.canonical()),
                        format!(
                            "must be less than or equal to {name} limit of {}",
                            limit.canonical()
                        ),
                    ));
                }
            }
            Some(_) => {}
            None => {
                if !overcommit_allowed(name) {
                    errs.push(required(
                        &lim_path,
                        "Limit must be set for non overcommitable resources",
                    ));
                }
            }
        }
        req_huge |= is_hugepages(name);
        req_cpu_mem |= name == "cpu" || name == "memory";
    }
    if !lim_cpu_mem && !req_cpu_mem && (lim_huge || req_huge) {
        errs.push(forbidden(p, "HugePages require cpu or memory"));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msgs(r: Value) -> Vec<String> {
        requirements(&r, &Path::new("spec.containers[0].resources"))
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn requests_against_limits() {
        assert_eq!(
            msgs(json!({"limits": {"cpu": "1"}, "requests": {"cpu": "2"}})),
            vec!["spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1"]
        );
        assert_eq!(
            msgs(json!({"requests": {"nvidia.com/gpu": "1"}})),
            vec!["spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"]
        );
        assert_eq!(
            msgs(json!({"limits": {"nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": "1"}})),
            vec!["spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to nvidia.com/gpu limit of 2"]
        );
        assert_eq!(
            msgs(json!({"limits": {"gpu": "1"}})),
            vec![
                "spec.containers[0].resources.limits[gpu]: Invalid value: gpu: must be a standard resource type or fully qualified",
                "spec.containers[0].resources.limits[gpu]: Invalid value: gpu: must be a standard resource for containers"
            ]
        );
        assert!(msgs(json!({"limits": {"nvidia.com/gpu": "1", "cpu": "500m"}, "requests": {"nvidia.com/gpu": "1"}})).is_empty());
    }
}
