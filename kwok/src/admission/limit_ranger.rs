//! LimitRanger (plugin/pkg/admission/limitranger): on a pod's create, the namespace's
//! LimitRanges fill in the requests and limits its containers leave out (recorded in the
//! `kubernetes.io/limit-ranger` annotation), then bound each container and the pod as a whole.
//! The first LimitRange a pod breaks refuses it. Claims are not served, so only pods pass here.

use std::cmp::Ordering;

use k8s_openapi::api::core::v1::Pod;

use serde_json::{json, Map, Value};

use super::Client;
use crate::podresources::{self, container_quantities, List};
use crate::quantity::Quantity;
use crate::registry;

const ANNOTATION: &str = "kubernetes.io/limit-ranger";

fn limit_ranges(api: &dyn Client, ns: &str) -> Vec<Value> {
    let (items, _) = api.store().list(&registry::LIMITRANGES, Some(ns));
    items.into_iter().map(|i| i.value.clone()).collect()
}

fn items(limit_range: &Value) -> impl Iterator<Item = &Value> {
    limit_range["spec"]["limits"]
        .as_array()
        .into_iter()
        .flatten()
}

/// `defaultContainerResourceRequirements`: (requests, limits) from the Container items.
fn defaults(limit_range: &Value) -> (Map<String, Value>, Map<String, Value>) {
    let (mut requests, mut limits) = (Map::new(), Map::new());
    for item in items(limit_range).filter(|i| i["type"] == "Container") {
        for (into, key) in [(&mut requests, "defaultRequest"), (&mut limits, "default")] {
            for (k, v) in item[key].as_object().into_iter().flatten() {
                into.insert(k.clone(), v.clone());
            }
        }
    }
    (requests, limits)
}

/// `mergeContainerResources`: the defaults a container lacks, and the annotation's entries.
fn merge_container(
    container: &mut Value,
    requests: &Map<String, Value>,
    limits: &Map<String, Value>,
    prefix: &str,
    notes: &mut Vec<String>,
) {
    let name = container["name"].as_str().unwrap_or("").to_string();
    let resources = &mut container["resources"];
    if !resources.is_object() {
        *resources = json!({});
    }
    let mut set = |key: &str, defaults: &Map<String, Value>| -> Vec<String> {
        let list = &mut resources[key];
        if !list.is_object() {
            *list = json!({});
        }
        let mut added = Vec::new();
        for (k, v) in defaults {
            if list.get(k).is_none() {
                list[k] = v.clone();
                added.push(k.clone());
            }
        }
        if list.as_object().is_some_and(Map::is_empty) {
            if let Some(r) = resources.as_object_mut() {
                r.remove(key);
            }
        }
        added.sort();
        added
    };
    let set_limits = set("limits", limits);
    let set_requests = set("requests", requests);
    if !set_requests.is_empty() {
        notes.push(format!(
            "{} request for {prefix} {name}",
            set_requests.join(", ")
        ));
    }
    if !set_limits.is_empty() {
        notes.push(format!(
            "{} limit for {prefix} {name}",
            set_limits.join(", ")
        ));
    }
}

/// `Admit` on a pod's create: `PodMutateLimitFunc` for each LimitRange.
pub(super) fn admit(api: &dyn Client, ns: &str, pod: &mut Value) {
    for limit_range in limit_ranges(api, ns) {
        let (requests, limits) = defaults(&limit_range);
        let mut notes = Vec::new();
        for (key, prefix) in [
            ("containers", "container"),
            ("initContainers", "init container"),
        ] {
            let containers = pod
                .get_mut("spec")
                .and_then(|s| s.get_mut(key))
                .and_then(Value::as_array_mut);
            for c in containers.into_iter().flatten() {
                merge_container(c, &requests, &limits, prefix, &mut notes);
            }
        }
        if !notes.is_empty() {
            let meta = crate::meta::meta_mut(pod);
            let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
            if !annotations.is_object() {
                *annotations = json!({});
            }
            annotations[ANNOTATION] =
                json!(format!("LimitRanger plugin set: {}", notes.join("; ")));
        }
    }
}

/// `requestLimitEnforcedValues`: milli-units, as every value here fits them.
fn milli(q: Option<&Quantity>) -> i64 {
    q.map_or(0, Quantity::milli_value)
}

/// One kind of bound a LimitRange item sets on each resource it names.
#[derive(Clone, Copy)]
enum Constraint {
    /// `minConstraint`: a request is needed; it, then the limit, may not be below the bound.
    Min,
    /// `maxConstraint`: a limit is needed; it, then the request, may not be above the bound.
    Max,
    /// `limitRequestRatioConstraint`.
    Ratio,
}

impl Constraint {
    /// The LimitRange item's field holding this kind of bound.
    fn key(self) -> &'static str {
        match self {
            Constraint::Min => "min",
            Constraint::Max => "max",
            Constraint::Ratio => "maxLimitRequestRatio",
        }
    }

    /// Why the `name` resource of a `ty` (Container or Pod) breaks the bound `enforced`.
    fn check(
        self,
        ty: &str,
        name: &str,
        enforced: &Quantity,
        requests: &List<Quantity>,
        limits: &List<Quantity>,
    ) -> Option<String> {
        let (req, lim) = (requests.get(name), limits.get(name));
        let bound = enforced.canonical();
        let (word, beyond, needed, other) = match self {
            Constraint::Min => ("minimum", Ordering::Less, ("request", req), ("limit", lim)),
            Constraint::Max => (
                "maximum",
                Ordering::Greater,
                ("limit", lim),
                ("request", req),
            ),
            Constraint::Ratio => return ratio(ty, name, &bound, enforced, milli(req), milli(lim)),
        };
        let Some(value) = needed.1 else {
            let needed = needed.0;
            return Some(format!(
                "{word} {name} usage per {ty} is {bound}.  No {needed} is specified"
            ));
        };
        [(needed.0, Some(value)), other]
            .into_iter()
            .find_map(|(what, q)| {
                q.filter(|q| q.milli_value().cmp(&enforced.milli_value()) == beyond)
                    .map(|q| (what, q))
            })
            .map(|(what, q)| {
                format!(
                    "{word} {name} usage per {ty} is {bound}, but {what} is {}",
                    q.canonical()
                )
            })
    }
}

/// `limitRequestRatioConstraint`, on the request and limit in milli-units.
fn ratio(
    ty: &str,
    name: &str,
    bound: &str,
    enforced: &Quantity,
    req: i64,
    lim: i64,
) -> Option<String> {
    if req == 0 {
        return Some(format!("{name} max limit to request ratio per {ty} is {bound}, but no request is specified or request is 0"));
    }
    if lim == 0 {
        return Some(format!("{name} max limit to request ratio per {ty} is {bound}, but no limit is specified or limit is 0"));
    }
    let observed = lim as f64 / req as f64;
    (observed * 1000.0 > enforced.milli_value() as f64).then(|| {
        format!("{name} max limit to request ratio per {ty} is {bound}, but provided ratio is {observed:.6}")
    })
}

fn quantities(list: &Value) -> Vec<(String, Quantity)> {
    list.as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), Quantity::parse(v.as_str()?).ok()?)))
        .collect()
}

/// The min, max and ratio bounds of `item` on one set of requests and limits.
fn bounds(
    item: &Value,
    requests: &List<Quantity>,
    limits: &List<Quantity>,
    errs: &mut Vec<String>,
) {
    let ty = item["type"].as_str().unwrap_or("");
    for constraint in [Constraint::Min, Constraint::Max, Constraint::Ratio] {
        for (name, enforced) in quantities(&item[constraint.key()]) {
            errs.extend(constraint.check(ty, &name, &enforced, requests, limits));
        }
    }
}

/// `PodValidateLimitFunc`: every container and init container against the Container items,
/// the pod's aggregate against the Pod items.
fn validate_one(limit_range: &Value, typed: &Pod) -> Vec<String> {
    let mut errs = Vec::new();
    let spec = typed.spec.clone().unwrap_or_default();
    for item in items(limit_range) {
        match item["type"].as_str() {
            Some("Container") => {
                for c in spec
                    .containers
                    .iter()
                    .chain(spec.init_containers.iter().flatten())
                {
                    let requests = container_quantities(c, false);
                    let limits = container_quantities(c, true);
                    bounds(item, &requests, &limits, &mut errs);
                }
            }
            Some("Pod") => {
                let requests = podresources::aggregate(&spec, |c| container_quantities(c, false));
                let limits = podresources::aggregate(&spec, |c| container_quantities(c, true));
                bounds(item, &requests, &limits, &mut errs);
            }
            _ => {}
        }
    }
    errs
}

/// `Validate` on a pod's create: the reason of the first LimitRange the pod breaks.
pub(super) fn validate(api: &dyn Client, ns: &str, pod: &Value) -> Result<(), String> {
    let ranges = limit_ranges(api, ns);
    if ranges.is_empty() {
        return Ok(());
    }
    let Ok(typed) = serde_json::from_value::<Pod>(pod.clone()) else {
        return Ok(());
    };
    for limit_range in &ranges {
        let errs = validate_one(limit_range, &typed);
        if !errs.is_empty() {
            return Err(crate::error::aggregate(errs));
        }
    }
    Ok(())
}
