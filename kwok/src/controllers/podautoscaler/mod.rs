//! The horizontal pod autoscaler (`pkg/controller/podautoscaler/horizontal.go`,
//! `reconcileAutoscaler`): it reads the target's scale, keeps the replica count within
//! `minReplicas`..`maxReplicas`, and scales on resource metrics where the cluster serves the
//! metrics API (declared usage, [`replicas`]), through the stabilization window and rate limits
//! of [`normalize`]. Other metrics (custom, external) and resource metrics without the API are
//! reported — in its conditions, status and events, with upstream's words — as unreadable. Every
//! autoscaler is looked at when it changes and every 15 seconds
//! (`--horizontal-pod-autoscaler-sync-period`).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod normalize;
mod replicas;

use normalize::Histories;

use super::events::Recorder;
use super::{Controller, Pass};
use crate::api::subresources::{get_scale, set_scale};
use crate::api::{Api, WriteOptions};
use crate::meta;
use crate::registry::{self, HORIZONTALPODAUTOSCALERS as HPAS};
use crate::resource::ResourceDef;
use crate::store::Event;

const COMPONENT: &str = "horizontal-pod-autoscaler";
const RESYNC: Duration = Duration::from_secs(15);
/// What the resource metrics client gets back from a cluster without metrics-server.
const NO_RESOURCE_METRICS: &str = "unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)";
const NO_CUSTOM_METRICS: &str = "unable to fetch metrics from custom metrics API: the server could not find the requested resource";
const NO_EXTERNAL_METRICS: &str = "unable to fetch metrics from external metrics API: the server could not find the requested resource";

pub struct HorizontalPodAutoscalerController {
    recorder: Recorder,
    dirty: Option<BTreeSet<(String, String)>>,
    last_full: Instant,
    histories: Histories,
    /// The declared usage the metrics API serves, when it is served.
    metrics: Option<crate::debugging::Config>,
}

impl Default for HorizontalPodAutoscalerController {
    fn default() -> Self {
        Self {
            recorder: Recorder::new(COMPONENT),
            dirty: None,
            last_full: Instant::now(),
            histories: Histories::default(),
            metrics: None,
        }
    }
}

impl HorizontalPodAutoscalerController {
    /// An autoscaler reading resource metrics from `usage` where it declares any, as the
    /// embedded API server serves them.
    pub fn reading(usage: &crate::debugging::Config) -> Self {
        Self {
            metrics: usage.serves_metrics().then(|| usage.clone()),
            ..Self::default()
        }
    }
}

/// `setConditionInList`: a condition keeps its place; its transition time moves with its status.
fn set_condition(hpa: &mut Value, ty: &str, status: &str, reason: &str, message: &str) {
    if !hpa["status"]["conditions"].is_array() {
        hpa["status"]["conditions"] = json!([]);
    }
    let Some(list) = hpa["status"]["conditions"].as_array_mut() else {
        return;
    };
    let idx = match list.iter().position(|c| c["type"] == ty) {
        Some(i) => i,
        None => {
            list.push(json!({"type": ty, "status": ""}));
            list.len() - 1
        }
    };
    let c = &mut list[idx];
    if c["status"] != status {
        c["lastTransitionTime"] = json!(meta::now());
    }
    c["status"] = json!(status);
    c["reason"] = json!(reason);
    c["message"] = json!(message);
}

/// `setStatus`: the replica counts and current metrics; the conditions stay.
fn set_status(hpa: &mut Value, current: i64, desired: i64, metrics: Value, rescaled: bool) {
    let old = hpa["status"].clone();
    let mut status = json!({});
    if let Some(g) = old.get("observedGeneration").filter(|g| !g.is_null()) {
        status["observedGeneration"] = g.clone();
    }
    if rescaled {
        status["lastScaleTime"] = json!(meta::now());
    } else if let Some(t) = old.get("lastScaleTime").filter(|t| !t.is_null()) {
        status["lastScaleTime"] = t.clone();
    }
    if current != 0 {
        status["currentReplicas"] = json!(current);
    }
    status["desiredReplicas"] = json!(desired);
    status["currentMetrics"] = metrics;
    if let Some(c) = old.get("conditions").filter(|c| !c.is_null()) {
        status["conditions"] = c.clone();
    }
    hpa["status"] = status;
}

/// `schema.ParseGroupVersion`.
fn parse_group_version(gv: &str) -> Result<&str, String> {
    match gv.split('/').collect::<Vec<_>>().as_slice() {
        [""] | [_] => Ok(""),
        [g, _] => Ok(g),
        _ => Err(format!("unexpected GroupVersion string: {gv}")),
    }
}

/// `RESTMappings(GroupKind)`: the served resource of the group and kind, built-in or custom
/// (its preferred version first, as discovery orders them).
fn target_resource(api: &Api, group: &str, kind: &str) -> Result<&'static ResourceDef, String> {
    registry::RESOURCES
        .iter()
        .copied()
        .find(|r| r.group == group && r.kind == kind && !crate::convert::is_view(r))
        .or_else(|| {
            crate::kinds::custom::served(api.store())
                .into_iter()
                .find(|r| r.group == group && r.kind == kind)
        })
        .ok_or_else(|| format!("no matches for kind {kind:?} in group {group:?}"))
}

/// What the scale client reports for a resource without a scale subresource, or a namespaced
/// path to a cluster-scoped one: a request no route serves. Built-in groups answer with a Status;
/// a custom group's handler with a bare 404, which client-go words with the request.
const NO_SCALE_ROUTE: &str = "the server could not find the requested resource";

/// `scaleForResourceMappings`: the target's Scale through its scale subresource.
fn read_scale(api: &Api, res: &'static ResourceDef, ns: &str, name: &str) -> Result<Value, String> {
    if res.subresource("scale").is_none() || !res.namespaced {
        return Err(if registry::is_built_in_group(res.group) {
            NO_SCALE_ROUTE.to_string()
        } else {
            format!("{NO_SCALE_ROUTE} (get {} {name})", res.plural)
        });
    }
    get_scale(api, res, ns, name).map_err(|e| scale_error(res, name, e))
}

/// The scale client's error: a missing built-in target is reported by the scale subresource's
/// storage, as `deployments/scale.apps "web" not found`; a custom resource's scale answers with
/// its own NotFound, as a client reading it sees it.
fn scale_error(res: &ResourceDef, name: &str, e: crate::ApiError) -> String {
    if e.code != 404 || res.strategy.custom() {
        return e.message;
    }
    let group = if res.group.is_empty() {
        String::new()
    } else {
        format!(".{}", res.group)
    };
    format!("{}/scale{group} {name:?} not found", res.plural)
}

/// Why a metric cannot be read: the event reason, the error the condition and event carry, and
/// the error `computeReplicasForMetric` wraps it in.
fn metric_failure(spec: &Value) -> (String, String, String) {
    let ty = spec["type"].as_str().unwrap_or("");
    match ty {
        "Resource" | "ContainerResource" => match resource_target(spec) {
            Some((ty, source)) => {
                let name = source.resource;
                let what = if source.target["averageValue"].is_null() {
                    "utilization"
                } else {
                    "usage"
                };
                let err = format!(
                    "failed to get {name} {what}: unable to get metrics for resource {name}: {NO_RESOURCE_METRICS}"
                );
                resource_failure(ty, &source, err)
            }
            None => {
                let err = format!("invalid {ty} metric source");
                ("InvalidMetricSourceType".into(), err.clone(), err)
            }
        },
        "Pods" => {
            let metric = spec["pods"]["metric"]["name"].as_str().unwrap_or("");
            let err = format!("unable to get metric {metric}: {NO_CUSTOM_METRICS}");
            let outer = format!("failed to get pods metric value: {err}");
            ("FailedGetPodsMetric".into(), err, outer)
        }
        "Object" => {
            let metric = spec["object"]["metric"]["name"].as_str().unwrap_or("");
            let err = format!("unable to get metric {metric}: {NO_CUSTOM_METRICS}");
            let outer = format!("failed to get object metric value: {err}");
            ("FailedGetObjectMetric".into(), err, outer)
        }
        "External" => {
            let metric = spec["external"]["metric"]["name"].as_str().unwrap_or("");
            let err = format!("unable to get external metric {metric}: {NO_EXTERNAL_METRICS}");
            let outer = format!("failed to get {metric} external metric value: {err}");
            ("FailedGetExternalMetric".into(), err, outer)
        }
        other => {
            let err = format!("unknown metric source type {other:?}");
            ("InvalidMetricSourceType".into(), err.clone(), err)
        }
    }
}

/// A Resource or ContainerResource metric's type and what the calculator reads of it.
fn resource_target(spec: &Value) -> Option<(&'static str, replicas::ResourceTarget<'_>)> {
    match spec["type"].as_str()? {
        "Resource" => Some((
            "Resource",
            replicas::ResourceTarget {
                resource: spec["resource"]["name"].as_str()?,
                container: None,
                target: &spec["resource"]["target"],
            },
        )),
        "ContainerResource" => Some((
            "ContainerResource",
            replicas::ResourceTarget {
                resource: spec["containerResource"]["name"].as_str()?,
                container: Some(spec["containerResource"]["container"].as_str()?),
                target: &spec["containerResource"]["target"],
            },
        )),
        _ => None,
    }
}

/// A resource metric that could not be computed: the event reason, the error, and the error
/// `computeReplicasForMetric` wraps it in.
fn resource_failure(
    ty: &str,
    source: &replicas::ResourceTarget,
    err: String,
) -> (String, String, String) {
    match source.container {
        Some(container) if ty == "ContainerResource" => {
            let outer = format!("failed to get {container} container metric value: {err}");
            ("FailedGetContainerResourceMetric".into(), err, outer)
        }
        _ => {
            let outer = format!(
                "failed to get {} resource metric value: {err}",
                source.resource
            );
            ("FailedGetResourceMetric".into(), err, outer)
        }
    }
}

/// `MetricStatus` of a computed resource metric.
fn resource_status(ty: &str, source: &replicas::ResourceTarget, current: Value) -> Value {
    match source.container {
        Some(container) => json!({"type": ty, "containerResource": {
            "name": source.resource, "container": container, "current": current}}),
        None => json!({"type": ty, "resource": {"name": source.resource, "current": current}}),
    }
}

impl HorizontalPodAutoscalerController {
    fn event(&self, api: &Api, hpa: &Value, type_: &str, reason: &str, message: &str) {
        self.recorder.event(api, &HPAS, hpa, type_, reason, message);
    }

    /// `reconcileAutoscaler`.
    fn reconcile_one(&mut self, api: &Api, original: &Value, pass: &mut Pass) {
        let mut hpa = original.clone();
        let ns = meta::namespace(original).to_string();
        let key = format!("{ns}/{}", meta::name(original));
        let spec = original["spec"].clone();
        let target = &spec["scaleTargetRef"];
        let kind = target["kind"].as_str().unwrap_or("");
        let name = target["name"].as_str().unwrap_or("");
        let scale = parse_group_version(target["apiVersion"].as_str().unwrap_or(""))
            .and_then(|group| target_resource(api, group, kind))
            .and_then(|res| read_scale(api, res, &ns, name).map(|s| (res, s)));
        let (res, scale) = match scale {
            Ok(found) => found,
            Err(err) => {
                self.event(api, &hpa, "Warning", "FailedGetScale", &err);
                set_condition(
                    &mut hpa,
                    "AbleToScale",
                    "False",
                    "FailedGetScale",
                    &format!(
                        "the HPA controller was unable to get the target's current scale: {err}"
                    ),
                );
                self.write_status(api, original, hpa, pass);
                return;
            }
        };
        set_condition(
            &mut hpa,
            "AbleToScale",
            "True",
            "SucceededGetScale",
            "the HPA controller was able to get the target's current scale",
        );
        let current = scale["spec"]["replicas"].as_i64().unwrap_or(0);
        self.histories.record_initial(&key, current);
        let min = spec["minReplicas"].as_i64().unwrap_or(1);
        let max = spec["maxReplicas"].as_i64().unwrap_or(0);
        let desired_before = original["status"]["desiredReplicas"].as_i64().unwrap_or(0);
        let mut statuses = Value::Null;
        let (desired, reason, rescale) = if current == 0 && min != 0 {
            set_condition(
                &mut hpa,
                "ScalingActive",
                "False",
                "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero",
            );
            (0, String::new(), false)
        } else if current > max {
            let reason = "Current number of replicas above Spec.MaxReplicas";
            (max, reason.to_string(), true)
        } else if current < min {
            let reason = "Current number of replicas below Spec.MinReplicas";
            (min, reason.to_string(), true)
        } else {
            let selector = scale["status"]["selector"].as_str().unwrap_or("");
            if selector.is_empty() {
                self.event(
                    api,
                    &hpa,
                    "Warning",
                    "SelectorRequired",
                    "selector is required",
                );
                set_condition(
                    &mut hpa,
                    "ScalingActive",
                    "False",
                    "InvalidSelector",
                    "the HPA target's scale is missing a selector",
                );
                set_status(&mut hpa, current, desired_before, Value::Null, false);
                self.failed_metrics(api, original, hpa, "selector is required", pass);
                return;
            }
            let metrics = spec["metrics"].as_array().cloned().unwrap_or_default();
            let computed =
                self.replicas_for_metrics(api, &mut hpa, &ns, selector, current, &metrics);
            let (proposed, metric, computed_statuses) = match computed {
                Ok(found) => found,
                Err((failed_statuses, message)) => {
                    set_status(
                        &mut hpa,
                        current,
                        desired_before,
                        json!(failed_statuses),
                        false,
                    );
                    self.failed_metrics(api, original, hpa, &message, pass);
                    return;
                }
            };
            statuses = json!(computed_statuses);
            let reason = match proposed.cmp(&current) {
                std::cmp::Ordering::Greater => format!("{metric} above target"),
                std::cmp::Ordering::Less => "All metrics below target".to_string(),
                std::cmp::Ordering::Equal => String::new(),
            };
            let (desired, conditions) =
                self.histories
                    .normalize(&key, &spec["behavior"], current, proposed, min, max);
            for (ty, status, why, message) in conditions {
                set_condition(&mut hpa, ty, status, why, message);
            }
            (desired, reason, desired != current)
        };
        if rescale {
            let body = json!({"spec": {"replicas": desired}});
            match set_scale(api, res, &ns, name, &body, &WriteOptions::default()) {
                Ok(_) => {
                    set_condition(
                        &mut hpa,
                        "AbleToScale",
                        "True",
                        "SucceededRescale",
                        &format!(
                            "the HPA controller was able to update the target scale to {desired}"
                        ),
                    );
                    self.event(
                        api,
                        &hpa,
                        "Normal",
                        "SuccessfulRescale",
                        &format!("New size: {desired}; reason: {reason}"),
                    );
                    self.histories
                        .store_scale_event(&key, &spec["behavior"], current, desired);
                }
                Err(e) => {
                    self.event(
                        api,
                        &hpa,
                        "Warning",
                        "FailedRescale",
                        &format!(
                            "New size: {desired}; reason: {reason}; error: {}",
                            e.message
                        ),
                    );
                    set_condition(
                        &mut hpa,
                        "AbleToScale",
                        "False",
                        "FailedUpdateScale",
                        &format!(
                            "the HPA controller was unable to update the target scale: {}",
                            e.message
                        ),
                    );
                    set_status(&mut hpa, current, desired_before, statuses, false);
                    self.write_status(api, original, hpa, pass);
                    return;
                }
            }
        }
        let desired = if rescale { desired } else { current };
        set_status(&mut hpa, current, desired, statuses, rescale);
        self.write_status(api, original, hpa, pass);
    }

    /// `computeReplicasForMetrics` with a valid selector: the highest proposal, the metric that
    /// made it and every metric's status; or, when every metric failed (or some failed and the
    /// rest would scale down), the statuses and the error. Resource metrics are read from the
    /// metrics API where usage is declared; no custom or external metrics API is served.
    #[allow(clippy::type_complexity)]
    fn replicas_for_metrics(
        &self,
        api: &Api,
        hpa: &mut Value,
        ns: &str,
        selector: &str,
        current: i64,
        metrics: &[Value],
    ) -> Result<(i64, String, Vec<Value>), (Vec<Value>, String)> {
        let mut statuses = Vec::with_capacity(metrics.len());
        let (mut replicas, mut metric) = (0, String::new());
        let mut invalid = 0;
        let mut first: Option<(String, String, String)> = None;
        for m in metrics {
            let outcome = match (&self.metrics, resource_target(m)) {
                (Some(config), Some((ty, source))) => {
                    replicas::resource_replicas(api, config, ns, selector, current, &source)
                        .map(|proposal| (ty, source, proposal))
                        .map_err(|err| resource_failure(ty, &source, err))
                }
                _ => Err(metric_failure(m)),
            };
            match outcome {
                Ok((ty, source, proposal)) => {
                    statuses.push(resource_status(ty, &source, proposal.current));
                    if replicas == 0 || proposal.replicas > replicas {
                        replicas = proposal.replicas;
                        metric = proposal.metric;
                    }
                }
                Err((reason, err, outer)) => {
                    self.event(api, hpa, "Warning", &reason, &err);
                    statuses.push(json!({"type": ""}));
                    invalid += 1;
                    first.get_or_insert((reason, err, outer));
                }
            }
        }
        if let Some((reason, err, outer)) = first {
            if invalid >= metrics.len() || replicas < current {
                set_condition(
                    hpa,
                    "ScalingActive",
                    "False",
                    &reason,
                    &format!("the HPA was unable to compute the replica count: {err}"),
                );
                let n = metrics.len();
                let message = format!(
                    "invalid metrics ({invalid} invalid out of {n}), first error is: {outer}"
                );
                return Err((statuses, message));
            }
        }
        set_condition(
            hpa,
            "ScalingActive",
            "True",
            "ValidMetricFound",
            &format!("the HPA was able to successfully calculate a replica count from {metric}"),
        );
        Ok((replicas, metric, statuses))
    }

    /// No replica count could be computed: the status is written, then the event says why.
    fn failed_metrics(&self, api: &Api, original: &Value, hpa: Value, why: &str, pass: &mut Pass) {
        self.write_status(api, original, hpa.clone(), pass);
        self.event(api, &hpa, "Warning", "FailedComputeMetricsReplicas", why);
    }

    /// `updateStatusIfNeeded`.
    fn write_status(&self, api: &Api, original: &Value, hpa: Value, pass: &mut Pass) {
        if hpa["status"] == original["status"] {
            return;
        }
        pass.check(
            "writing an autoscaler's status",
            api.update_status(&HPAS, hpa),
        );
    }
}

impl Controller for HorizontalPodAutoscalerController {
    fn name(&self) -> &'static str {
        "horizontal-pod-autoscaler"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &HPAS)
    }

    fn observe(&mut self, ev: &Event) {
        // A status write of this controller's own is not a reason to look again.
        let spec_changed = ev
            .prev
            .as_ref()
            .is_none_or(|p| p.value["spec"] != ev.object.value["spec"]);
        if let (Some(dirty), true) = (self.dirty.as_mut(), spec_changed) {
            dirty.insert((
                ev.object.namespace().to_string(),
                ev.object.name().to_string(),
            ));
        }
    }

    fn resync(&mut self) {
        self.dirty = None;
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        if self.last_full.elapsed() >= RESYNC {
            self.dirty = None;
        }
        let dirty = self.dirty.replace(BTreeSet::new());
        let full = dirty.is_none();
        if full {
            self.last_full = Instant::now();
        }
        let hpas: Vec<Value> = match dirty {
            None => api
                .store()
                .list(&HPAS, None)
                .0
                .iter()
                .map(|h| h.value.clone())
                .collect(),
            Some(keys) => keys
                .iter()
                .filter_map(|(ns, n)| api.store().get(&HPAS, ns, n))
                .map(|h| h.value.clone())
                .collect(),
        };
        for hpa in hpas.iter().filter(|h| !meta::is_deleting(h)) {
            self.reconcile_one(api, hpa, &mut pass);
        }
        if full {
            let live: BTreeSet<String> = hpas
                .iter()
                .map(|h| format!("{}/{}", meta::namespace(h), meta::name(h)))
                .collect();
            self.histories.forget(&|key| live.contains(key));
        }
        pass.wake(Some(RESYNC.saturating_sub(self.last_full.elapsed())));
        pass
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    fn api() -> Api {
        Api::bootstrapped()
    }

    fn conditions(api: &Api) -> Vec<(String, String, String)> {
        let hpa = api.store().get(&HPAS, "default", "web").expect("hpa");
        hpa.value["status"]["conditions"]
            .as_array()
            .map(|cs| {
                cs.iter()
                    .map(|c| {
                        let s = |k: &str| c[k].as_str().unwrap_or("").to_string();
                        (s("type"), s("status"), s("reason"))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn below_the_minimum_it_scales_then_reports_no_metrics() {
        let api = api();
        let w = WriteOptions::default();
        let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
        api.create(&registry::DEPLOYMENTS, "default", deploy, &w)
            .expect("deployment");
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "minReplicas": 2, "maxReplicas": 4}});
        api.create(&HPAS, "default", hpa, &w).expect("hpa");
        let mut ctrl = HorizontalPodAutoscalerController::default();
        assert!(!ctrl.reconcile(&api).failed());
        let replicas = |api: &Api| {
            api.store()
                .get(&registry::DEPLOYMENTS, "default", "web")
                .expect("d")
                .value["spec"]["replicas"]
                .as_i64()
        };
        assert_eq!(replicas(&api), Some(2));
        assert_eq!(
            conditions(&api),
            vec![(
                "AbleToScale".into(),
                "True".into(),
                "SucceededRescale".into()
            )]
        );
        ctrl.resync();
        assert!(!ctrl.reconcile(&api).failed());
        assert_eq!(
            conditions(&api),
            vec![
                (
                    "AbleToScale".into(),
                    "True".into(),
                    "SucceededGetScale".into()
                ),
                (
                    "ScalingActive".into(),
                    "False".into(),
                    "FailedGetResourceMetric".into()
                ),
            ]
        );
        let status = api.store().get(&HPAS, "default", "web").expect("hpa").value["status"].clone();
        assert_eq!(status["currentMetrics"], json!([{"type": ""}]));
        assert_eq!(status["desiredReplicas"], 2);
    }

    /// A target is found among the custom resources too, and only a namespaced kind with a
    /// scale subresource can be scaled.
    #[test]
    fn targets_are_read_through_their_scale_subresource() {
        let api = api();
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "trainers.ml.example.com"},
            "spec": {"group": "ml.example.com", "scope": "Namespaced",
                "names": {"kind": "Trainer", "plural": "trainers", "singular": "trainer"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "subresources": {"scale": {"specReplicasPath": ".spec.replicas",
                                               "statusReplicasPath": ".status.replicas"}},
                    "schema": {"openAPIV3Schema": {"type": "object",
                        "x-kubernetes-preserve-unknown-fields": true}}}]}});
        let w = WriteOptions::default();
        let created = api
            .create(&registry::CUSTOMRESOURCEDEFINITIONS, "", crd, &w)
            .expect("crd");
        let mut established = created.value.clone();
        established["status"] = json!({"conditions": [
            {"type": "Established", "status": "True"}, {"type": "NamesAccepted", "status": "True"}],
            "acceptedNames": {"kind": "Trainer", "plural": "trainers", "singular": "trainer"}});
        api.update_status(&registry::CUSTOMRESOURCEDEFINITIONS, established)
            .expect("established");
        let trainers = target_resource(&api, "ml.example.com", "Trainer").expect("served");
        assert_eq!(trainers.plural, "trainers");
        let trainer = json!({"apiVersion": "ml.example.com/v1", "kind": "Trainer",
            "metadata": {"name": "bert"}, "spec": {"replicas": 3}});
        api.create(trainers, "default", trainer, &w)
            .expect("trainer");
        let scale = read_scale(&api, trainers, "default", "bert").expect("scale");
        assert_eq!(scale["spec"]["replicas"], 3);
        assert_eq!(
            target_resource(&api, "ml.example.com", "Widget").unwrap_err(),
            r#"no matches for kind "Widget" in group "ml.example.com""#
        );
        let configmaps = target_resource(&api, "", "ConfigMap").expect("built in");
        assert_eq!(
            read_scale(&api, configmaps, "default", "x").unwrap_err(),
            NO_SCALE_ROUTE
        );
    }

    /// With usage declared the autoscaler reads the metrics API: one pod using 250m of its 100m
    /// request against a 50% target wants five, and without a behavior may only go to four.
    #[test]
    fn declared_usage_scales_on_cpu_utilization() {
        let api = api();
        let w = WriteOptions::default();
        let template = json!({"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx",
                "resources": {"requests": {"cpu": "100m"}}}]}});
        let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}, "template": template}});
        api.create(&registry::DEPLOYMENTS, "default", deploy, &w)
            .expect("deployment");
        let long_ago = "2020-01-01T00:00:00Z";
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "labels": {"app": "web"}},
            "spec": {"nodeName": "n1", "containers": template["spec"]["containers"].clone()}});
        pod = api
            .create(&registry::PODS, "default", pod, &w)
            .expect("pod")
            .value
            .clone();
        pod["status"] = json!({"phase": "Running", "startTime": long_ago,
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": long_ago}]});
        api.update_status(&registry::PODS, pod).expect("running");
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                "maxReplicas": 10,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50}}}]}});
        api.create(&HPAS, "default", hpa, &w).expect("hpa");
        let mut usage = crate::debugging::Config::default();
        usage
            .add_document(&json!({"apiVersion": "kwok.x-k8s.io/v1alpha1",
                "kind": "ClusterResourceUsage", "metadata": {"name": "all"},
                "spec": {"usages": [{"usage": {"cpu": {"value": "250m"},
                                               "memory": {"value": "10Mi"}}}]}}))
            .expect("usage");
        let mut ctrl = HorizontalPodAutoscalerController::reading(&usage);
        assert!(!ctrl.reconcile(&api).failed());
        let replicas = api
            .store()
            .get(&registry::DEPLOYMENTS, "default", "web")
            .expect("d")
            .value["spec"]["replicas"]
            .as_i64();
        assert_eq!(replicas, Some(4));
        let status = api.store().get(&HPAS, "default", "web").expect("hpa").value["status"].clone();
        assert_eq!(
            status["currentMetrics"],
            json!([{"type": "Resource", "resource": {"name": "cpu",
                "current": {"averageValue": "250m", "averageUtilization": 250}}}])
        );
        assert_eq!(
            (
                status["currentReplicas"].clone(),
                status["desiredReplicas"].clone()
            ),
            (json!(1), json!(4))
        );
        assert_eq!(
            conditions(&api),
            vec![
                (
                    "AbleToScale".into(),
                    "True".into(),
                    "SucceededRescale".into()
                ),
                (
                    "ScalingActive".into(),
                    "True".into(),
                    "ValidMetricFound".into()
                ),
                (
                    "ScalingLimited".into(),
                    "True".into(),
                    "ScaleUpLimit".into()
                ),
            ]
        );
    }

    #[test]
    fn a_missing_target_cannot_be_scaled() {
        let api = api();
        let hpa = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "gone"},
                "maxReplicas": 4}});
        api.create(&HPAS, "default", hpa, &WriteOptions::default())
            .expect("hpa");
        let mut ctrl = HorizontalPodAutoscalerController::default();
        assert!(!ctrl.reconcile(&api).failed());
        let hpa = api.store().get(&HPAS, "default", "web").expect("hpa");
        let c = &hpa.value["status"]["conditions"][0];
        assert_eq!(c["reason"], "FailedGetScale");
        assert_eq!(
            c["message"],
            "the HPA controller was unable to get the target's current scale: deployments/scale.apps \"gone\" not found"
        );
    }
}
