//! The evaluators of `pkg/quota/v1/install` (`NewQuotaConfigurationForControllers`): pods,
//! services and persistent volume claims have their own; every other quotable resource is counted
//! (`generic.NewObjectCountEvaluator`), four of them under a legacy alias as well.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::pods;
use super::{add, mask, names, parse_list, scope_selectors, ResourceList, ScopeSelector};
use crate::quantity::Quantity;
use crate::registry;
use crate::resource::ResourceDef;
use crate::store::Store;

/// `ignoredResources` of pkg/quota/v1/install/registry.go: virtual resources and events.
const IGNORED: &[(&str, &str)] = &[
    ("", "bindings"),
    ("", "componentstatuses"),
    ("authentication.k8s.io", "tokenreviews"),
    ("authentication.k8s.io", "selfsubjectreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"),
    ("", "events"),
    ("events.k8s.io", "events"),
];

/// `legacyObjectCountAliases`: the names these resources were counted under before `count/`.
const LEGACY_ALIASES: &[&str] = &[
    "configmaps",
    "resourcequotas",
    "replicationcontrollers",
    "secrets",
];

/// `serviceResources` of the service evaluator.
const SERVICE_RESOURCES: &[&str] = &[
    "count/services",
    "services",
    "services.nodeports",
    "services.loadbalancers",
];

/// `pvcResources` of the claim evaluator, and the per-class suffixes it matches.
const CLAIM_RESOURCES: &[&str] = &[
    "persistentvolumeclaims",
    "count/persistentvolumeclaims",
    "requests.storage",
];
const STORAGE_CLASS_SUFFIX: &str = ".storageclass.storage.k8s.io/";

/// The quota evaluator of one resource.
#[derive(Debug, Clone)]
pub(crate) enum Evaluator {
    Pods,
    Services,
    /// PersistentVolumeClaims: not served here, so their usage is always zero.
    Claims,
    /// `objectCountEvaluator`: one per object, under `count/<resource>[.<group>]` and the alias.
    Count {
        group: String,
        plural: String,
        alias: Option<&'static str>,
    },
}

/// `generic.ObjectCountQuotaResourceNameFor`.
fn count_name(group: &str, plural: &str) -> String {
    if group.is_empty() {
        format!("count/{plural}")
    } else {
        format!("count/{plural}.{group}")
    }
}

impl Evaluator {
    /// The evaluator of writes to `res`; `None` for what quota ignores.
    pub(crate) fn of(res: &ResourceDef) -> Option<Evaluator> {
        Self::named(res.group, res.plural)
    }

    fn named(group: &str, plural: &str) -> Option<Evaluator> {
        if IGNORED.contains(&(group, plural)) {
            return None;
        }
        Some(match (group, plural) {
            ("", "pods") => Evaluator::Pods,
            ("", "services") => Evaluator::Services,
            ("", "persistentvolumeclaims") => Evaluator::Claims,
            _ => Evaluator::Count {
                group: group.to_string(),
                plural: plural.to_string(),
                alias: LEGACY_ALIASES
                    .iter()
                    .find(|a| group.is_empty() && **a == plural)
                    .copied(),
            },
        })
    }

    /// `MatchingResources`: which of a quota's resource names this evaluator tracks.
    pub(crate) fn matching_resources(&self, input: &[String]) -> Vec<String> {
        let listed = |names: &[&str]| -> Vec<String> {
            input
                .iter()
                .filter(|n| names.contains(&n.as_str()))
                .cloned()
                .collect()
        };
        match self {
            Evaluator::Pods => pods::matching_resources(input),
            Evaluator::Services => listed(SERVICE_RESOURCES),
            Evaluator::Claims => input
                .iter()
                .filter(|n| {
                    CLAIM_RESOURCES.contains(&n.as_str())
                        || n.split_once(STORAGE_CLASS_SUFFIX).is_some_and(|(_, r)| {
                            r == "persistentvolumeclaims" || r == "requests.storage"
                        })
                })
                .cloned()
                .collect(),
            Evaluator::Count { .. } => {
                let own = self.count_names();
                input.iter().filter(|n| own.contains(n)).cloned().collect()
            }
        }
    }

    fn count_names(&self) -> Vec<String> {
        match self {
            Evaluator::Count {
                group,
                plural,
                alias,
            } => {
                let mut out = vec![count_name(group, plural)];
                out.extend(alias.map(str::to_string));
                out
            }
            _ => Vec::new(),
        }
    }

    /// `Handles` for a write that is not to a subresource: updates count only where an update
    /// can change the usage (a service's type, a claim's size).
    pub(crate) fn handles_update(&self) -> bool {
        matches!(self, Evaluator::Services | Evaluator::Claims)
    }

    /// `Constraints`: only pods must name the cpu and memory a quota tracks.
    pub(crate) fn constraints(&self, required: &[String], obj: &Value) -> Result<(), String> {
        match self {
            Evaluator::Pods => pods::constraints(required, obj),
            _ => Ok(()),
        }
    }

    /// `Usage` of one object.
    pub(crate) fn usage(&self, obj: &Value, now: DateTime<Utc>) -> ResourceList {
        match self {
            Evaluator::Pods => pods::usage(obj, now),
            Evaluator::Services => service_usage(obj),
            Evaluator::Claims => ResourceList::new(),
            Evaluator::Count { .. } => self
                .count_names()
                .into_iter()
                .map(|n| (n, Quantity::from_units(1)))
                .collect(),
        }
    }

    /// The evaluator's scope function; only pods have scopes (`MatchesNoScopeFunc` otherwise).
    fn matches_scope(&self, selector: &ScopeSelector, obj: &Value) -> bool {
        match self {
            Evaluator::Pods => pods::matches_scope(selector, obj),
            _ => false,
        }
    }

    /// `generic.Matches`: the quota's status tracks one of this evaluator's resources and `obj`
    /// is in every scope of the quota.
    pub(crate) fn matches(&self, quota: &Value, obj: &Value) -> bool {
        let hard = names(&parse_list(&quota["status"]["hard"]));
        !self.matching_resources(&hard).is_empty()
            && scope_selectors(quota)
                .iter()
                .all(|s| self.matches_scope(s, obj))
    }

    /// The resource whose objects this evaluator counts, when it is served.
    fn resource(&self, custom: &[&'static ResourceDef]) -> Option<&'static ResourceDef> {
        match self {
            Evaluator::Pods => Some(&registry::PODS),
            Evaluator::Services => Some(&registry::SERVICES),
            Evaluator::Claims => None,
            Evaluator::Count { group, plural, .. } => registry::RESOURCES
                .iter()
                .chain(custom)
                .copied()
                .find(|r| r.group == group && r.plural == plural),
        }
    }

    /// `UsageStats` (`generic.CalculateUsageStats`): every tracked resource from zero, plus the
    /// usage of each object in `ns` that is in all the quota's scopes.
    fn usage_stats(
        &self,
        store: &Store,
        custom: &[&'static ResourceDef],
        ns: &str,
        resources: &[String],
        scopes: &[ScopeSelector],
        now: DateTime<Utc>,
    ) -> ResourceList {
        let mut used: ResourceList = resources
            .iter()
            .map(|r| (r.clone(), Quantity::zero()))
            .collect();
        let Some(res) = self.resource(custom).filter(|r| r.namespaced) else {
            return used;
        };
        for obj in store.list(res, Some(ns)).0 {
            if scopes.iter().all(|s| self.matches_scope(s, &obj.value)) {
                used = add(&used, &self.usage(&obj.value, now));
            }
        }
        used
    }
}

/// The service evaluator's `Usage`: node ports by type, one load balancer per LoadBalancer.
fn service_usage(svc: &Value) -> ResourceList {
    let spec = &svc["spec"];
    let ports = spec["ports"].as_array().map_or(0, Vec::len);
    let count = |n: usize| Quantity::from_units(i64::try_from(n).unwrap_or(i64::MAX));
    let mut out = ResourceList::new();
    out.insert("count/services".into(), count(1));
    out.insert("services".into(), count(1));
    out.insert("services.loadbalancers".into(), Quantity::zero());
    out.insert("services.nodeports".into(), Quantity::zero());
    match spec["type"].as_str() {
        Some("NodePort") => {
            out.insert("services.nodeports".into(), count(ports));
        }
        Some("LoadBalancer") => {
            let node_ports = if spec["allocateLoadBalancerNodePorts"] == false {
                spec["ports"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|p| p["nodePort"].as_i64().unwrap_or(0) != 0)
                    .count()
            } else {
                ports
            };
            out.insert("services.nodeports".into(), count(node_ports));
            out.insert("services.loadbalancers".into(), count(1));
        }
        _ => {}
    }
    out
}

/// Every evaluator the controller runs (`QuotaMonitor` plus the registered ones): pods, services,
/// claims, replication controllers (counted though not served, as the controller's registry
/// holds their evaluator), and a counter for every served resource a client can create, list,
/// watch and delete.
fn all(custom: &[&'static ResourceDef]) -> Vec<Evaluator> {
    let mut out = vec![Evaluator::Pods, Evaluator::Services, Evaluator::Claims];
    out.extend(Evaluator::named("", "replicationcontrollers"));
    let quotable = registry::RESOURCES.iter().chain(custom).filter(|r| {
        ["create", "list", "watch", "delete"]
            .iter()
            .all(|v| r.verbs.contains(v))
    });
    for r in quotable {
        if matches!(
            (r.group, r.plural),
            ("", "pods" | "services" | "persistentvolumeclaims")
        ) {
            continue;
        }
        let Some(e) = Evaluator::of(r) else { continue };
        let duplicate = out
            .iter()
            .any(|o| o.count_names().first() == e.count_names().first());
        if !duplicate {
            out.push(e);
        }
    }
    out
}

/// `quota.CalculateUsage`: the usage of `quota`'s hard resources in its namespace, for the
/// resources some evaluator tracks (the others get no entry).
pub(crate) fn calculate_usage(store: &Store, quota: &Value, now: DateTime<Utc>) -> ResourceList {
    let ns = crate::meta::namespace(quota);
    let hard = names(&parse_list(&quota["spec"]["hard"]));
    let scopes = scope_selectors(quota);
    let custom = crate::kinds::custom::served(store);
    let mut matched: Vec<String> = Vec::new();
    let mut usage = ResourceList::new();
    for e in all(&custom) {
        let resources = e.matching_resources(&hard);
        if resources.is_empty() {
            continue;
        }
        let stats = e.usage_stats(store, &custom, ns, &resources, &scopes, now);
        usage = add(&usage, &stats);
        matched.extend(resources);
    }
    mask(&usage, &matched)
}
