//! The pod evaluator (pkg/quota/v1/evaluator/core/pods.go): compute resources, the pod counts,
//! hugepages and `requests.<extended>`; the scopes; and the old rule that a pod must name the
//! cpu and memory a quota tracks.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1::Pod;
use serde_json::Value;

use super::{add, ResourceList, ScopeSelector};
use crate::podresources::{self, container_quantities as container_list, List};
use crate::quantity::Quantity;

/// `podResources`.
const POD_RESOURCES: &[&str] = &[
    "count/pods",
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
];

/// `validationSet`: what a pod must name when a quota tracks it.
const VALIDATION_SET: &[&str] = &[
    "cpu",
    "memory",
    "requests.cpu",
    "requests.memory",
    "limits.cpu",
    "limits.memory",
];

/// `helper.IsNativeResource`.
fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `helper.IsExtendedResourceName`.
fn is_extended(name: &str) -> bool {
    !is_native(name)
        && !name.starts_with("requests.")
        && crate::names::qualified_name(&format!("requests.{name}")).is_empty()
}

/// `MatchingResources`.
pub(super) fn matching_resources(input: &[String]) -> Vec<String> {
    let mut out: Vec<String> = input
        .iter()
        .filter(|n| POD_RESOURCES.contains(&n.as_str()))
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    for n in input {
        if n.starts_with("hugepages-") || n.starts_with("requests.hugepages-") {
            out.push(n.clone());
        }
        // `isExtendedResourceNameForQuota`: only `requests.<extended>` is tracked.
        if !is_native(n) && n.starts_with("requests.") {
            out.push(n.clone());
        }
    }
    out
}

/// `podComputeUsageHelper`: one container's or one pod's requests and limits as quota names.
fn compute_usage(requests: &List<Quantity>, limits: &List<Quantity>) -> ResourceList {
    let mut out = ResourceList::new();
    out.insert("pods".into(), Quantity::from_units(1));
    for name in ["cpu", "memory", "ephemeral-storage"] {
        if let Some(q) = requests.get(name) {
            out.insert(name.into(), q.clone());
            out.insert(format!("requests.{name}"), q.clone());
        }
        if let Some(q) = limits.get(name) {
            out.insert(format!("limits.{name}"), q.clone());
        }
    }
    for (name, q) in requests {
        if name.starts_with("hugepages-") {
            out.insert(name.clone(), q.clone());
            out.insert(format!("requests.{name}"), q.clone());
        }
        if is_extended(name) {
            out.insert(format!("requests.{name}"), q.clone());
        }
    }
    out
}

fn typed(obj: &Value) -> Option<Pod> {
    serde_json::from_value(obj.clone()).ok()
}

/// `Constraints`: every container and init container must request (or limit) the cpu and
/// memory resources of `required` that `validationSet` holds.
pub(super) fn constraints(required: &[String], obj: &Value) -> Result<(), String> {
    let required: BTreeSet<&str> = required
        .iter()
        .map(String::as_str)
        .filter(|r| VALIDATION_SET.contains(r))
        .collect();
    if required.is_empty() {
        return Ok(());
    }
    let Some(spec) = typed(obj).and_then(|p| p.spec) else {
        return Ok(());
    };
    let mut missing: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for c in spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
    {
        let usage = compute_usage(&container_list(c, false), &container_list(c, true));
        for r in &required {
            if !usage.contains_key(*r) {
                missing.entry(r).or_default().insert(c.name.clone());
            }
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let parts: Vec<String> = missing
        .iter()
        .map(|(r, names)| {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            format!("{r} for: {}", names.join(","))
        })
        .collect();
    Err(format!("must specify {}", parts.join("; ")))
}

/// `QuotaV1Pod`: a pod holds compute resources until it is terminal or past its grace period.
pub(crate) fn charged(pod: &Value, now: DateTime<Utc>) -> bool {
    if matches!(
        pod["status"]["phase"].as_str(),
        Some("Failed" | "Succeeded")
    ) {
        return false;
    }
    let deleted = crate::podutil::parse_time(&pod["metadata"]["deletionTimestamp"]);
    let grace = pod["metadata"]["deletionGracePeriodSeconds"].as_i64();
    match (deleted, grace) {
        (Some(at), Some(grace)) => now <= at + chrono::Duration::seconds(grace),
        _ => true,
    }
}

/// `PodUsageFunc`: the object count always; compute resources while the pod is charged.
pub(super) fn usage(obj: &Value, now: DateTime<Utc>) -> ResourceList {
    let mut out = ResourceList::new();
    out.insert("count/pods".into(), Quantity::from_units(1));
    if !charged(obj, now) {
        return out;
    }
    let Some(spec) = typed(obj).and_then(|p| p.spec) else {
        return out;
    };
    let mut requests = podresources::aggregate(&spec, |c| container_list(c, false));
    let mut limits = podresources::aggregate(&spec, |c| container_list(c, true));
    // `PodRequests` adds the overhead to every resource, `PodLimits` only to those limited.
    for (name, q) in spec.overhead.iter().flatten() {
        let Ok(q) = Quantity::parse(q.0.trim()) else {
            continue;
        };
        let request = requests.get(name).map_or_else(|| q.clone(), |r| r.add(&q));
        requests.insert(name.clone(), request);
        if let Some(limit) = limits.get(name) {
            let sum = limit.add(&q);
            limits.insert(name.clone(), sum);
        }
    }
    add(&out, &compute_usage(&requests, &limits))
}

/// `isTerminating`.
fn terminating(pod: &Value) -> bool {
    pod["spec"]["activeDeadlineSeconds"]
        .as_i64()
        .is_some_and(|s| s >= 0)
}

/// `usesCrossNamespacePodAffinity`: any pod (anti-)affinity term naming namespaces or a
/// namespace selector.
fn cross_namespace_affinity(pod: &Value) -> bool {
    let cross = |t: &Value| {
        t["namespaces"].as_array().is_some_and(|n| !n.is_empty())
            || !t["namespaceSelector"].is_null()
    };
    ["podAffinity", "podAntiAffinity"].iter().any(|kind| {
        let a = &pod["spec"]["affinity"][kind];
        let required = a["requiredDuringSchedulingIgnoredDuringExecution"].as_array();
        let preferred = a["preferredDuringSchedulingIgnoredDuringExecution"].as_array();
        required.into_iter().flatten().any(cross)
            || preferred
                .into_iter()
                .flatten()
                .any(|w| cross(&w["podAffinityTerm"]))
    })
}

/// `podMatchesScopeFunc`.
pub(super) fn matches_scope(selector: &ScopeSelector, pod: &Value) -> bool {
    match selector.scope.as_str() {
        "Terminating" => terminating(pod),
        "NotTerminating" => !terminating(pod),
        "BestEffort" => crate::kinds::core::pod::qos_class(pod) == "BestEffort",
        "NotBestEffort" => crate::kinds::core::pod::qos_class(pod) != "BestEffort",
        "PriorityClass" => {
            let class = pod["spec"]["priorityClassName"]
                .as_str()
                .filter(|c| !c.is_empty());
            // `podMatchesSelector`: a label selector on {PriorityClass: <name>}.
            match selector.operator.as_str() {
                "Exists" => class.is_some(),
                "DoesNotExist" => class.is_none(),
                "In" => class.is_some_and(|c| selector.values.iter().any(|v| v == c)),
                "NotIn" => !class.is_some_and(|c| selector.values.iter().any(|v| v == c)),
                _ => false,
            }
        }
        "CrossNamespacePodAffinity" => cross_namespace_affinity(pod),
        _ => false,
    }
}
