//! The replica calculator for resource metrics (`pkg/controller/podautoscaler/
//! replica_calculator.go` `GetResourceReplicas`, `GetRawResourceReplicas`, `groupPods`,
//! `calculatePodRequests`; `metrics/client.go` `GetResourceMetric`; `metrics/utilization.go`),
//! reading the metrics API the embedded cluster serves from declared usage.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use crate::api::Api;
use crate::debugging::metrics as usage;
use crate::options::ListOptions;
use crate::quantity::Quantity;
use crate::registry;

/// `--horizontal-pod-autoscaler-tolerance`.
const TOLERANCE: f64 = 0.1;
/// `--horizontal-pod-autoscaler-cpu-initialization-period`.
const CPU_INITIALIZATION_PERIOD: Duration = Duration::minutes(5);
/// `--horizontal-pod-autoscaler-initial-readiness-delay`.
const INITIAL_READINESS_DELAY: Duration = Duration::seconds(30);

/// Readings by pod name (`metricsclient.PodMetricsInfo`).
type PodMetrics = BTreeMap<String, PodMetric>;

/// A ratio taken again over filled-in readings.
type Recompute<'a> = &'a dyn Fn(&PodMetrics) -> Result<f64, String>;

/// A pod's reading (`metricsclient.PodMetric`): milli-units, and when and over what it was read.
#[derive(Debug, Clone, Copy)]
struct PodMetric {
    timestamp: DateTime<Utc>,
    window: Duration,
    value: i64,
}

/// What one resource metric proposes (`computeStatusForResourceMetricGeneric`).
pub struct Proposal {
    pub replicas: i64,
    /// How the metric is named in conditions and events.
    pub metric: String,
    /// The `current` of its status (`MetricValueStatus`).
    pub current: Value,
}

/// A resource metric's spec as `computeStatusForResourceMetricGeneric` reads it.
#[derive(Clone, Copy)]
pub struct ResourceTarget<'a> {
    pub resource: &'a str,
    /// A ContainerResource metric's container.
    pub container: Option<&'a str>,
    pub target: &'a Value,
}

fn milli(q: &Value) -> Option<i64> {
    let q = Quantity::parse(q.as_str()?).ok()?;
    Some(q.milli_value())
}

fn parse_time(v: &Value) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(v.as_str()?)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

fn window(m: &Value) -> Duration {
    let text = m["window"].as_str().unwrap_or("");
    let seconds: f64 = text.trim_end_matches('s').parse().unwrap_or(0.0);
    Duration::milliseconds((seconds * 1000.0) as i64)
}

/// `GetResourceMetric`: each pod's usage of `resource`, summed over its containers (a pod
/// missing it in any is left out), or of the one container.
fn resource_metric(
    api: &Api,
    config: &crate::debugging::Config,
    namespace: &str,
    selector: &str,
    resource: &str,
    container: Option<&str>,
) -> Result<PodMetrics, String> {
    let opts = ListOptions {
        label_selector: Some(selector.to_string()),
        ..ListOptions::default()
    };
    let items = usage::list_pods(api, config, Some(namespace), &opts, Utc::now()).map_err(|e| {
        format!(
            "unable to fetch metrics from resource metrics API: {}",
            e.message
        )
    })?;
    if items.is_empty() {
        return Err("no metrics returned from resource metrics API".into());
    }
    let mut out = BTreeMap::new();
    for m in &items {
        let name = m["metadata"]["name"].as_str().unwrap_or("").to_string();
        let reading = |value| PodMetric {
            timestamp: parse_time(&m["timestamp"]).unwrap_or_else(Utc::now),
            window: window(m),
            value,
        };
        let containers = m["containers"].as_array().cloned().unwrap_or_default();
        match container {
            Some(wanted) => {
                let Some(c) = containers.iter().find(|c| c["name"] == wanted) else {
                    return Err(format!(
                        "failed to get container metrics: container {wanted} not present in \
                         metrics for pod {namespace}/{name}"
                    ));
                };
                if let Some(v) = milli(&c["usage"][resource]) {
                    out.insert(name, reading(v));
                }
            }
            None => {
                let values: Option<Vec<i64>> = containers
                    .iter()
                    .map(|c| milli(&c["usage"][resource]))
                    .collect();
                if let Some(values) = values.filter(|v| !v.is_empty()) {
                    out.insert(name, reading(values.iter().sum()));
                }
            }
        }
    }
    Ok(out)
}

/// The pods the calculator weighs.
struct Groups {
    ready: usize,
    unready: BTreeSet<String>,
    missing: BTreeSet<String>,
    ignored: BTreeSet<String>,
}

/// `groupPods`.
fn group_pods(pods: &[Value], metrics: &PodMetrics, resource: &str, now: DateTime<Utc>) -> Groups {
    let mut groups = Groups {
        ready: 0,
        unready: BTreeSet::new(),
        missing: BTreeSet::new(),
        ignored: BTreeSet::new(),
    };
    for pod in pods {
        let name = pod["metadata"]["name"].as_str().unwrap_or("").to_string();
        let phase = pod["status"]["phase"].as_str().unwrap_or("");
        if !pod["metadata"]["deletionTimestamp"].is_null() || phase == "Failed" {
            groups.ignored.insert(name);
            continue;
        }
        if phase == "Pending" {
            groups.unready.insert(name);
            continue;
        }
        let Some(metric) = metrics.get(&name) else {
            groups.missing.insert(name);
            continue;
        };
        if resource == "cpu" {
            let condition = crate::podutil::condition(pod, "Ready");
            let start = parse_time(&pod["status"]["startTime"]);
            let unready = match (condition, start) {
                (Some(condition), Some(start)) => {
                    let transition = parse_time(&condition["lastTransitionTime"]).unwrap_or(start);
                    let is_false = condition["status"] == "False";
                    if start + CPU_INITIALIZATION_PERIOD > now {
                        is_false || metric.timestamp < transition + metric.window
                    } else {
                        is_false && start + INITIAL_READINESS_DELAY > transition
                    }
                }
                _ => true,
            };
            if unready {
                groups.unready.insert(name);
                continue;
            }
        }
        groups.ready += 1;
    }
    groups
}

/// `calculatePodRequests`: each pod's request of `resource` in milli-units, over its containers
/// and restartable init containers (or the one container).
fn pod_requests(
    pods: &[Value],
    container: Option<&str>,
    resource: &str,
) -> Result<BTreeMap<String, i64>, String> {
    let mut requests = BTreeMap::new();
    for pod in pods {
        let name = pod["metadata"]["name"].as_str().unwrap_or("");
        let spec = &pod["spec"];
        let sidecars = spec["initContainers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["restartPolicy"] == "Always");
        let mut sum = 0i64;
        for c in spec["containers"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(sidecars)
        {
            let c_name = c["name"].as_str().unwrap_or("");
            if container.is_some_and(|wanted| wanted != c_name) {
                continue;
            }
            match milli(&c["resources"]["requests"][resource]) {
                Some(v) => sum += v,
                None => {
                    return Err(format!(
                        "missing request for {resource} in container {c_name} of Pod {name}"
                    ))
                }
            }
        }
        requests.insert(name.to_string(), sum);
    }
    Ok(requests)
}

/// `GetResourceUtilizationRatio`.
fn utilization_ratio(
    metrics: &PodMetrics,
    requests: &BTreeMap<String, i64>,
    target: i64,
) -> Result<(f64, i64, i64), String> {
    let (mut total, mut requested, mut entries) = (0i64, 0i64, 0i64);
    for (name, metric) in metrics {
        let Some(request) = requests.get(name) else {
            continue;
        };
        total += metric.value;
        requested += request;
        entries += 1;
    }
    if requested == 0 {
        return Err("no metrics returned matched known pods".into());
    }
    // Go's int32 conversion of the integer division.
    let utilization = i64::from((total * 100 / requested) as i32);
    Ok((
        utilization as f64 / target as f64,
        utilization,
        total / entries,
    ))
}

/// `GetMetricUsageRatio`.
fn usage_ratio(metrics: &PodMetrics, target: i64) -> (f64, i64) {
    let total: i64 = metrics.values().map(|m| m.value).sum();
    let usage = total / metrics.len().max(1) as i64;
    (usage as f64 / target as f64, usage)
}

/// What the calculator weighs a ratio with: a per-pod value for pods without one.
enum Fill {
    /// Missing pods on a scale-down count as this much (utilization: the request times it, in
    /// percent; a raw target: the target itself).
    Utilization(i64),
    Raw(i64),
}

/// The shared tail of `GetResourceReplicas` and `calcPlainMetricReplicas`: with unready or
/// missing pods, weigh them against the direction of the change and recompute.
#[allow(clippy::too_many_arguments)]
fn replicas_after_filling(
    current: i64,
    mut metrics: PodMetrics,
    groups: &Groups,
    ratio: f64,
    requests: &BTreeMap<String, i64>,
    fill: Fill,
    recompute: Recompute,
) -> Result<i64, String> {
    let scale_up_with_unready = !groups.unready.is_empty() && ratio > 1.0;
    if !scale_up_with_unready && groups.missing.is_empty() {
        if (1.0 - ratio).abs() <= TOLERANCE {
            return Ok(current);
        }
        return Ok((ratio * groups.ready as f64).ceil() as i64);
    }
    let at = |value| PodMetric {
        timestamp: Utc::now(),
        window: Duration::zero(),
        value,
    };
    if ratio < 1.0 {
        for name in &groups.missing {
            let value = match fill {
                Fill::Utilization(percent) => {
                    requests.get(name).copied().unwrap_or(0) * percent / 100
                }
                Fill::Raw(target) => target,
            };
            metrics.insert(name.clone(), at(value));
        }
    } else if ratio > 1.0 {
        for name in &groups.missing {
            metrics.insert(name.clone(), at(0));
        }
    }
    if scale_up_with_unready {
        for name in &groups.unready {
            metrics.insert(name.clone(), at(0));
        }
    }
    let new_ratio = recompute(&metrics)?;
    if (1.0 - new_ratio).abs() <= TOLERANCE
        || (ratio < 1.0 && new_ratio > 1.0)
        || (ratio > 1.0 && new_ratio < 1.0)
    {
        return Ok(current);
    }
    let replicas = (new_ratio * metrics.len() as f64).ceil() as i64;
    if (new_ratio < 1.0 && replicas > current) || (new_ratio > 1.0 && replicas < current) {
        return Ok(current);
    }
    Ok(replicas)
}

/// `computeStatusForResourceMetricGeneric` for a Resource or ContainerResource metric.
pub fn resource_replicas(
    api: &Api,
    config: &crate::debugging::Config,
    namespace: &str,
    selector: &str,
    current: i64,
    spec: &ResourceTarget,
) -> Result<Proposal, String> {
    let resource = spec.resource;
    let raw_target = &spec.target["averageValue"];
    let what = if raw_target.is_null() {
        "utilization"
    } else {
        "usage"
    };
    let wrap = |e: String| format!("failed to get {resource} {what}: {e}");
    if !raw_target.is_null() {
        let target = milli(raw_target).unwrap_or(0);
        let metrics = resource_metric(api, config, namespace, selector, resource, spec.container)
            .map_err(|e| {
            wrap(format!(
                "unable to get metrics for resource {resource}: {e}"
            ))
        })?;
        let (replicas, usage) =
            plain_replicas(api, namespace, selector, current, metrics, target, resource)
                .map_err(wrap)?;
        return Ok(Proposal {
            replicas,
            metric: format!("{resource} resource"),
            current: json!({"averageValue": milli_quantity(usage)}),
        });
    }
    let Some(target) = spec.target["averageUtilization"].as_i64() else {
        return Err(
            "invalid resource metric source: neither an average utilization target nor \
                    an average value (usage) target was set"
                .into(),
        );
    };
    let metrics = resource_metric(api, config, namespace, selector, resource, spec.container)
        .map_err(|e| {
            wrap(format!(
                "unable to get metrics for resource {resource}: {e}"
            ))
        })?;
    let pods = selected_pods(api, namespace, selector).map_err(wrap)?;
    let groups = group_pods(&pods, &metrics, resource, Utc::now());
    let mut metrics = metrics;
    for name in groups.ignored.iter().chain(&groups.unready) {
        metrics.remove(name);
    }
    if metrics.is_empty() {
        return Err(wrap(
            "did not receive metrics for targeted pods (pods might be unready)".into(),
        ));
    }
    let requests = pod_requests(&pods, spec.container, resource).map_err(wrap)?;
    let (ratio, utilization, raw) = utilization_ratio(&metrics, &requests, target).map_err(wrap)?;
    let recompute = |m: &PodMetrics| utilization_ratio(m, &requests, target).map(|(r, _, _)| r);
    let replicas = replicas_after_filling(
        current,
        metrics,
        &groups,
        ratio,
        &requests,
        Fill::Utilization(target.max(100)),
        &recompute,
    )
    .map_err(wrap)?;
    let metric = match spec.container {
        Some(_) => format!("{resource} container resource utilization (percentage of request)"),
        None => format!("{resource} resource utilization (percentage of request)"),
    };
    Ok(Proposal {
        replicas,
        metric,
        current: json!({"averageValue": milli_quantity(raw), "averageUtilization": utilization}),
    })
}

/// `calcPlainMetricReplicas`.
fn plain_replicas(
    api: &Api,
    namespace: &str,
    selector: &str,
    current: i64,
    mut metrics: PodMetrics,
    target: i64,
    resource: &str,
) -> Result<(i64, i64), String> {
    let pods = selected_pods(api, namespace, selector)?;
    let groups = group_pods(&pods, &metrics, resource, Utc::now());
    for name in groups.ignored.iter().chain(&groups.unready) {
        metrics.remove(name);
    }
    if metrics.is_empty() {
        return Err("did not receive metrics for targeted pods (pods might be unready)".into());
    }
    let (ratio, usage) = usage_ratio(&metrics, target);
    let recompute = |m: &PodMetrics| Ok(usage_ratio(m, target).0);
    let replicas = replicas_after_filling(
        current,
        metrics,
        &groups,
        ratio,
        &BTreeMap::new(),
        Fill::Raw(target),
        &recompute,
    )?;
    Ok((replicas, usage))
}

/// The pods the scale's selector selects (the pod lister's `List(selector)`).
fn selected_pods(api: &Api, namespace: &str, selector: &str) -> Result<Vec<Value>, String> {
    let selector = crate::selectors::label_selector_param(selector).map_err(|e| e.message)?;
    let pods: Vec<Value> = api
        .store()
        .list(&registry::PODS, Some(namespace))
        .0
        .iter()
        .filter(|p| selector.matches(crate::meta::labels(&p.value)))
        .map(|p| p.value.clone())
        .collect();
    if pods.is_empty() {
        return Err("no pods returned by selector while calculating replica count".into());
    }
    Ok(pods)
}

/// `resource.NewMilliQuantity(v, DecimalSI)`, printed.
fn milli_quantity(v: i64) -> String {
    Quantity::from_nano_units(i128::from(v) * 1_000_000).canonical()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric(value: i64) -> PodMetric {
        PodMetric {
            timestamp: Utc::now(),
            window: Duration::seconds(15),
            value,
        }
    }

    fn groups(ready: usize, unready: &[&str], missing: &[&str]) -> Groups {
        let set = |names: &[&str]| names.iter().map(|n| n.to_string()).collect();
        Groups {
            ready,
            unready: set(unready),
            missing: set(missing),
            ignored: BTreeSet::new(),
        }
    }

    /// replica_calculator_test.go's cases, by their numbers: usage against requests.
    #[test]
    fn utilization_scales_by_the_ratio_beyond_the_tolerance() {
        let requests: BTreeMap<String, i64> = [("a", 1000), ("b", 1000), ("c", 1000)]
            .map(|(n, r)| (n.to_string(), r))
            .into();
        let metrics: PodMetrics = [("a", 300), ("b", 500), ("c", 700)]
            .map(|(n, v)| (n.to_string(), metric(v)))
            .into();
        // 50% used against a 30% target: 5 pods (TestReplicaCalcScaleUp).
        let (ratio, utilization, raw) = utilization_ratio(&metrics, &requests, 30).expect("ratio");
        assert_eq!((utilization, raw), (50, 500));
        let recompute = |m: &PodMetrics| utilization_ratio(m, &requests, 30).map(|(r, _, _)| r);
        let replicas = replicas_after_filling(
            3,
            metrics.clone(),
            &groups(3, &[], &[]),
            ratio,
            &requests,
            Fill::Utilization(100),
            &recompute,
        );
        assert_eq!(replicas, Ok(5));
        // Within 10% of the target nothing moves.
        let (ratio, _, _) = utilization_ratio(&metrics, &requests, 47).expect("ratio");
        let same = replicas_after_filling(
            3,
            metrics,
            &groups(3, &[], &[]),
            ratio,
            &requests,
            Fill::Utilization(100),
            &recompute,
        );
        assert_eq!(same, Ok(3));
    }

    /// On a scale-up an unready pod counts as idle (TestReplicaCalcScaleUpUnreadyLessScale:
    /// 30%, 50% and 70% against a 30% target, the first pod unready: 60% measured, 4 pods, not 6).
    #[test]
    fn an_unready_pod_counts_as_idle_on_a_scale_up() {
        let requests: BTreeMap<String, i64> = [("a", 1000), ("b", 1000), ("c", 1000)]
            .map(|(n, r)| (n.to_string(), r))
            .into();
        // The unready pod's reading is removed before the ratio is taken.
        let metrics: PodMetrics = [("b", 500), ("c", 700)]
            .map(|(n, v)| (n.to_string(), metric(v)))
            .into();
        let (ratio, utilization, _) = utilization_ratio(&metrics, &requests, 30).expect("ratio");
        assert_eq!(utilization, 60);
        let recompute = |m: &PodMetrics| utilization_ratio(m, &requests, 30).map(|(r, _, _)| r);
        let replicas = replicas_after_filling(
            3,
            metrics,
            &groups(2, &["a"], &[]),
            ratio,
            &requests,
            Fill::Utilization(100),
            &recompute,
        );
        assert_eq!(replicas, Ok(4));
    }

    #[test]
    fn requests_are_summed_and_a_missing_one_is_named() {
        let pod = json!({"metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "a", "resources": {"requests": {"cpu": "100m"}}},
                           {"name": "b", "resources": {"requests": {"cpu": "0.2"}}}],
            "initContainers": [{"name": "side", "restartPolicy": "Always",
                                "resources": {"requests": {"cpu": "50m"}}},
                               {"name": "once", "resources": {}}]}});
        assert_eq!(
            pod_requests(std::slice::from_ref(&pod), None, "cpu"),
            Ok([("p".to_string(), 350)].into())
        );
        assert_eq!(
            pod_requests(std::slice::from_ref(&pod), Some("b"), "cpu"),
            Ok([("p".to_string(), 200)].into())
        );
        assert_eq!(
            pod_requests(&[pod], None, "memory"),
            Err("missing request for memory in container a of Pod p".to_string())
        );
    }

    #[test]
    fn a_raw_average_is_printed_as_a_milli_quantity() {
        assert_eq!(milli_quantity(250), "250m");
        assert_eq!(milli_quantity(134_217_728_000), "134217728");
        assert_eq!(milli_quantity(2000), "2");
    }
}
