//! Deployments, ReplicaSets, DaemonSets and ControllerRevisions (k8s.io/kubernetes
//! pkg/apis/apps/validation/validation.go, and the strategies' selector immutability for apps/v1).

use serde_json::Value;

use super::intstr;
use super::labels::{label_selector, render, selector_is_empty, selector_matches, selector_parses};
use super::meta::{object_meta, object_meta_update};
use super::path::{forbidden, invalid, nonnegative, required, Path, IMMUTABLE};
use super::pod::{semantic_eq, template};
use super::replicas::{collision_count_kept, int, nonnegative_counts, replica_bounds};
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;

#[derive(Clone, Copy, PartialEq)]
pub enum Workload {
    Deployment,
    ReplicaSet,
    DaemonSet,
}

fn spec_of(obj: &Value) -> &Value {
    obj.get("spec").unwrap_or(&Value::Null)
}

pub fn validate_create(kind: Workload, obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    errs.extend(spec(kind, spec_of(obj)));
    errs
}

/// `Validate*Update` plus the apps/v1 selector immutability check of the strategies.
pub fn validate_update(kind: Workload, new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(spec(kind, spec_of(new)));
    let (ns, os) = (spec_of(new).get("selector"), spec_of(old).get("selector"));
    if !semantic_eq(ns.unwrap_or(&Value::Null), os.unwrap_or(&Value::Null)) {
        let shown = match ns.filter(|v| v.is_object()) {
            Some(sel) => render(sel),
            None => go_syntax::NULL.into(),
        };
        errs.push(invalid(&Path::of(&["spec", "selector"]), shown, IMMUTABLE));
    }
    errs
}

pub fn validate_status_update(kind: Workload, new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let st = new.get("status").unwrap_or(&Value::Null);
    let p = Path::new("status");
    let fields: &[&str] = match kind {
        Workload::Deployment => &[
            "observedGeneration",
            "replicas",
            "updatedReplicas",
            "readyReplicas",
            "availableReplicas",
            "unavailableReplicas",
            "collisionCount",
        ],
        Workload::ReplicaSet => &[
            "replicas",
            "fullyLabeledReplicas",
            "readyReplicas",
            "availableReplicas",
            "observedGeneration",
        ],
        Workload::DaemonSet => &[
            "currentNumberScheduled",
            "numberMisscheduled",
            "desiredNumberScheduled",
            "numberReady",
            "observedGeneration",
            "updatedNumberScheduled",
            "numberAvailable",
            "numberUnavailable",
            "collisionCount",
        ],
    };
    errs.extend(nonnegative_counts(st, &p, fields));
    if kind != Workload::DaemonSet {
        let within: &[&str] = if kind == Workload::Deployment {
            &["updatedReplicas", "readyReplicas", "availableReplicas"]
        } else {
            &["fullyLabeledReplicas", "readyReplicas", "availableReplicas"]
        };
        errs.extend(replica_bounds(
            st,
            &p,
            within,
            "cannot be greater than readyReplicas",
        ));
    }
    if kind != Workload::ReplicaSet {
        errs.extend(collision_count_kept(st, &old["status"], &p));
    }
    errs
}

fn spec(kind: Workload, spec: &Value) -> Vec<FieldError> {
    let p = Path::new("spec");
    match kind {
        Workload::Deployment | Workload::ReplicaSet => replicated_spec(kind, spec, &p),
        Workload::DaemonSet => daemon_set_spec(spec, &p),
    }
}

/// `ValidateDeploymentSpec` / `ValidateReplicaSetSpec`.
fn replicated_spec(kind: Workload, spec: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = nonnegative(int(spec, "replicas"), &p.child("replicas"));
    if kind == Workload::ReplicaSet {
        errs.extend(nonnegative(
            int(spec, "minReadySeconds"),
            &p.child("minReadySeconds"),
        ));
    }
    // ReplicaSets say "deployment" too, as upstream.
    let (sel, selector_errs) = required_selector(spec, p, "deployment");
    errs.extend(selector_errs);
    if !selector_parses(sel) {
        let shown = sel.map_or(go_syntax::NULL.to_string(), render);
        errs.push(invalid(
            &p.child("selector"),
            shown,
            "invalid label selector",
        ));
    } else {
        errs.extend(template_for_replicas(
            spec,
            sel,
            &p.child("template"),
            "ReplicaSet",
        ));
    }
    if kind == Workload::Deployment {
        errs.extend(deployment_strategy(
            spec.get("strategy").unwrap_or(&Value::Null),
            &p.child("strategy"),
        ));
        errs.extend(nonnegative(
            int(spec, "minReadySeconds"),
            &p.child("minReadySeconds"),
        ));
        errs.extend(nonnegative(
            int(spec, "revisionHistoryLimit"),
            &p.child("revisionHistoryLimit"),
        ));
        if let Some(pds) = int(spec, "progressDeadlineSeconds") {
            errs.extend(nonnegative(Some(pds), &p.child("progressDeadlineSeconds")));
            if pds <= int(spec, "minReadySeconds").unwrap_or(0) {
                errs.push(invalid(
                    &p.child("progressDeadlineSeconds"),
                    pds.to_string(),
                    "must be greater than minReadySeconds",
                ));
            }
        }
    }
    errs
}

/// `ValidatePodTemplateSpecForReplicaSet` (used by Deployments as well, message included).
fn template_for_replicas(
    spec: &Value,
    sel: Option<&Value>,
    p: &Path,
    owner: &str,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let t = spec.get("template").unwrap_or(&Value::Null);
    let tlabels = t.get("metadata").and_then(|m| m.get("labels"));
    // A nil selector converts to Nothing(), which is not Empty() and matches no labels.
    let selector_empty = sel.is_some_and(selector_is_empty);
    if !selector_empty && !selector_matches(sel, tlabels) {
        errs.push(invalid(
            &p.child("metadata").child("labels"),
            go_syntax::string_map(tlabels),
            "`selector` does not match template `labels`",
        ));
    }
    errs.extend(template(t, p));
    errs.extend(controller_pods(t, p, owner));
    errs
}

/// A workload's `spec.selector`: required, a valid label selector, and not empty (`empty
/// selector is invalid for <word>`).
pub(super) fn required_selector<'a>(
    spec: &'a Value,
    p: &Path,
    word: &str,
) -> (Option<&'a Value>, Vec<FieldError>) {
    let sel = spec.get("selector").filter(|s| s.is_object());
    let mut errs = Vec::new();
    match sel {
        None => errs.push(required(&p.child("selector"), "")),
        Some(s) => {
            errs.extend(label_selector(Some(s), &p.child("selector")));
            if selector_is_empty(s) {
                errs.push(invalid(
                    &p.child("selector"),
                    render(s),
                    format!("empty selector is invalid for {word}"),
                ));
            }
        }
    }
    (sel, errs)
}

/// What every `ValidatePodTemplateSpecFor<owner>` asks of a controller's pods: they restart
/// (`Unsupported value: "OnFailure": supported values: "Always"`), and have no deadline.
pub(super) fn controller_pods(t: &Value, p: &Path, owner: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let rp = t
        .get("spec")
        .and_then(|s| s.get("restartPolicy"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if rp != "Always" {
        errs.push(super::path::not_supported(
            &p.child("spec").child("restartPolicy"),
            go_quote(rp),
            &["Always"],
        ));
    }
    if t.get("spec")
        .and_then(|s| s.get("activeDeadlineSeconds"))
        .is_some_and(|v| !v.is_null())
    {
        errs.push(forbidden(
            &p.child("spec").child("activeDeadlineSeconds"),
            format!("activeDeadlineSeconds in {owner} is not Supported"),
        ));
    }
    errs
}

/// `ValidateDeploymentStrategy`.
fn deployment_strategy(s: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let ru = s.get("rollingUpdate").filter(|v| v.is_object());
    match s.get("type").and_then(Value::as_str).unwrap_or("") {
        "Recreate" => {
            if ru.is_some() {
                errs.push(forbidden(
                    &p.child("rollingUpdate"),
                    "may not be specified when strategy `type` is 'Recreate'",
                ));
            }
        }
        "RollingUpdate" => match ru {
            None => errs.push(required(
                &p.child("rollingUpdate"),
                "this should be defaulted and never be nil",
            )),
            Some(ru) => {
                let rp = p.child("rollingUpdate");
                let unavailable = ru.get("maxUnavailable").cloned().unwrap_or(Value::from(0));
                let surge = ru.get("maxSurge").cloned().unwrap_or(Value::from(0));
                errs.extend(intstr::positive_int_or_percent(
                    &unavailable,
                    &rp.child("maxUnavailable"),
                ));
                errs.extend(intstr::positive_int_or_percent(
                    &surge,
                    &rp.child("maxSurge"),
                ));
                if intstr::value(&unavailable) == 0 && intstr::value(&surge) == 0 {
                    errs.push(invalid(
                        &rp.child("maxUnavailable"),
                        go_syntax::int_or_string(&unavailable),
                        "may not be 0 when `maxSurge` is 0",
                    ));
                }
                errs.extend(intstr::not_more_than_100_percent(
                    &unavailable,
                    &rp.child("maxUnavailable"),
                ));
            }
        },
        _ => errs.push(super::path::not_supported(
            p,
            go_syntax::strategy("apps.DeploymentStrategy", "apps.RollingUpdateDeployment", s),
            &["Recreate", "RollingUpdate"],
        )),
    }
    errs
}

/// `ValidateDaemonSetSpec`.
fn daemon_set_spec(spec: &Value, p: &Path) -> Vec<FieldError> {
    let sel = spec.get("selector").filter(|s| s.is_object());
    let mut errs = label_selector(sel, &p.child("selector"));
    let t = spec.get("template").unwrap_or(&Value::Null);
    let tlabels = t.get("metadata").and_then(|m| m.get("labels"));
    // LabelSelectorAsSelector(nil) is Nothing(), which matches no labels.
    if selector_parses(sel) && !selector_matches(sel, tlabels) {
        errs.push(invalid(
            &p.child("template").child("metadata").child("labels"),
            go_syntax::string_map(tlabels),
            "`selector` does not match template `labels`",
        ));
    }
    if let Some(s) = sel {
        if selector_is_empty(s) {
            errs.push(invalid(
                &p.child("selector"),
                render(s),
                "empty selector is invalid for daemonset",
            ));
        }
    }
    let tp = p.child("template");
    errs.extend(template(t, &tp));
    errs.extend(controller_pods(t, &tp, "DaemonSet"));
    errs.extend(nonnegative(
        int(spec, "minReadySeconds"),
        &p.child("minReadySeconds"),
    ));
    errs.extend(daemon_set_strategy(
        spec.get("updateStrategy").unwrap_or(&Value::Null),
        &p.child("updateStrategy"),
    ));
    errs.extend(nonnegative(
        int(spec, "revisionHistoryLimit"),
        &p.child("revisionHistoryLimit"),
    ));
    errs
}

/// `ValidateDaemonSetUpdateStrategy` and `ValidateRollingUpdateDaemonSet`.
fn daemon_set_strategy(s: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match s.get("type").and_then(Value::as_str).unwrap_or("") {
        "OnDelete" => {}
        "RollingUpdate" => {
            let Some(ru) = s.get("rollingUpdate").filter(|v| v.is_object()) else {
                errs.push(required(&p.child("rollingUpdate"), ""));
                return errs;
            };
            let rp = p.child("rollingUpdate");
            let unavailable = ru.get("maxUnavailable").cloned().unwrap_or(Value::from(0));
            let surge = ru.get("maxSurge").cloned().unwrap_or(Value::from(0));
            errs.extend(intstr::positive_int_or_percent(
                &unavailable,
                &rp.child("maxUnavailable"),
            ));
            errs.extend(intstr::positive_int_or_percent(
                &surge,
                &rp.child("maxSurge"),
            ));
            errs.extend(intstr::not_more_than_100_percent(
                &unavailable,
                &rp.child("maxUnavailable"),
            ));
            errs.extend(intstr::not_more_than_100_percent(
                &surge,
                &rp.child("maxSurge"),
            ));
            let has_unavailable = intstr::value(&unavailable) != 0;
            let has_surge = intstr::value(&surge) != 0;
            if has_unavailable && has_surge {
                errs.push(invalid(
                    &rp.child("maxSurge"),
                    go_syntax::int_or_string(&surge),
                    "may not be set when maxUnavailable is non-zero",
                ));
            } else if !has_unavailable && !has_surge {
                errs.push(required(
                    &rp.child("maxUnavailable"),
                    "cannot be 0 when maxSurge is 0",
                ));
            }
        }
        _ => errs.push(super::path::not_supported(
            p,
            go_syntax::strategy(
                "apps.DaemonSetUpdateStrategy",
                "apps.RollingUpdateDaemonSet",
                s,
            ),
            &["RollingUpdate", "OnDelete"],
        )),
    }
    errs
}

/// `ValidateControllerRevision`.
pub fn controller_revision(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    if obj.get("data").is_none_or(Value::is_null) {
        errs.push(required(&Path::new("data"), "data is mandatory"));
    }
    errs.extend(nonnegative(int(obj, "revision"), &Path::new("revision")));
    errs
}

/// `ValidateControllerRevisionUpdate`: data may not change.
pub fn controller_revision_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(controller_revision(new));
    if new.get("data") != old.get("data") {
        let shown = new.get("data").map_or("null".to_string(), Value::to_string);
        errs.push(invalid(&Path::new("data"), shown, IMMUTABLE));
    }
    errs
}
