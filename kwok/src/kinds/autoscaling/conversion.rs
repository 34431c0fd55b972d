//! autoscaling/v1 ↔ v2 HorizontalPodAutoscalers (`pkg/apis/autoscaling/v1/conversion.go`). v1
//! has one CPU utilization target; everything else v2 holds travels in annotations as JSON:
//! the other metrics and the current metrics in v1's shapes, the conditions, and the behavior
//! (marshalled from the internal type, so with Go's field names).

use serde_json::{json, Map, Value};

/// `autoscaling.DefaultCPUUtilization`: the target of an HPA that names no metric.
pub(crate) const DEFAULT_CPU_UTILIZATION: i64 = 80;

const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT_METRICS: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";
const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";
const ROUND_TRIP: [&str; 4] = [METRICS, BEHAVIOR, CURRENT_METRICS, CONDITIONS];

/// Insert `v` at `k` unless it is null (a nil pointer with omitempty).
fn put(m: &mut Map<String, Value>, k: &str, v: &Value) {
    if !v.is_null() {
        m.insert(k.into(), v.clone());
    }
}

/// A non-pointer int32 of `v`: Go's zero when absent.
fn int32(v: &Value, key: &str) -> Value {
    v.get(key).cloned().unwrap_or(json!(0))
}

/// The converted object's kind, version and metadata.
fn head(api_version: &str, metadata: Value) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("kind".into(), json!("HorizontalPodAutoscaler"));
    out.insert("apiVersion".into(), json!(api_version));
    out.insert("metadata".into(), metadata);
    out
}

/// A spec in the other version: the fields both versions share, then its own.
fn spec_of(spec: &Value, own: &[(&str, &Value)]) -> Value {
    let max = int32(spec, "maxReplicas");
    let mut pairs = vec![
        ("scaleTargetRef", &spec["scaleTargetRef"]),
        ("minReplicas", &spec["minReplicas"]),
        ("maxReplicas", &max),
    ];
    pairs.extend_from_slice(own);
    obj(&pairs)
}

fn obj(pairs: &[(&str, &Value)]) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        put(&mut m, k, v);
    }
    Value::Object(m)
}

fn is_cpu_utilization(metric: &Value) -> bool {
    metric["type"] == "Resource"
        && metric["resource"]["name"] == "cpu"
        && !metric["resource"]["target"]["averageUtilization"].is_null()
}

/// A v2 `MetricSpec` in v1's shape (`Convert_autoscaling_MetricSpec_To_v1_MetricSpec`).
fn metric_spec_to_v1(m: &Value) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), m["type"].clone());
    let t = |src: &Value| src["target"].clone();
    if let Some(o) = m.get("object").filter(|v| v.is_object()) {
        out.insert(
            "object".into(),
            obj(&[
                ("target", &o["describedObject"]),
                ("metricName", &o["metric"]["name"]),
                ("targetValue", &t(o)["value"]),
                ("selector", &o["metric"]["selector"]),
                ("averageValue", &t(o)["averageValue"]),
            ]),
        );
    }
    if let Some(p) = m.get("pods").filter(|v| v.is_object()) {
        out.insert(
            "pods".into(),
            obj(&[
                ("metricName", &p["metric"]["name"]),
                ("targetAverageValue", &t(p)["averageValue"]),
                ("selector", &p["metric"]["selector"]),
            ]),
        );
    }
    // A resource source has no container; `obj` leaves the null out.
    for key in ["resource", "containerResource"] {
        if let Some(r) = m.get(key).filter(|v| v.is_object()) {
            out.insert(
                key.into(),
                obj(&[
                    ("name", &r["name"]),
                    ("targetAverageUtilization", &t(r)["averageUtilization"]),
                    ("targetAverageValue", &t(r)["averageValue"]),
                    ("container", &r["container"]),
                ]),
            );
        }
    }
    if let Some(e) = m.get("external").filter(|v| v.is_object()) {
        out.insert(
            "external".into(),
            obj(&[
                ("metricName", &e["metric"]["name"]),
                ("metricSelector", &e["metric"]["selector"]),
                ("targetValue", &t(e)["value"]),
                ("targetAverageValue", &t(e)["averageValue"]),
            ]),
        );
    }
    Value::Object(out)
}

/// A v1 `MetricSpec` back in v2's shape.
fn metric_spec_to_v2(m: &Value) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), m["type"].clone());
    let target = |value: &Value, average: &Value, utilization: &Value| {
        let ty = if !utilization.is_null() {
            "Utilization"
        } else if !average.is_null() {
            "AverageValue"
        } else {
            "Value"
        };
        obj(&[
            ("type", &json!(ty)),
            ("value", value),
            ("averageValue", average),
            ("averageUtilization", utilization),
        ])
    };
    let null = Value::Null;
    if let Some(o) = m.get("object").filter(|v| v.is_object()) {
        out.insert(
            "object".into(),
            obj(&[
                ("describedObject", &o["target"]),
                (
                    "target",
                    &target(&o["targetValue"], &o["averageValue"], &null),
                ),
                (
                    "metric",
                    &obj(&[("name", &o["metricName"]), ("selector", &o["selector"])]),
                ),
            ]),
        );
    }
    if let Some(p) = m.get("pods").filter(|v| v.is_object()) {
        out.insert(
            "pods".into(),
            obj(&[
                (
                    "metric",
                    &obj(&[("name", &p["metricName"]), ("selector", &p["selector"])]),
                ),
                ("target", &target(&null, &p["targetAverageValue"], &null)),
            ]),
        );
    }
    for key in ["resource", "containerResource"] {
        if let Some(r) = m.get(key).filter(|v| v.is_object()) {
            let t = target(
                &null,
                &r["targetAverageValue"],
                &r["targetAverageUtilization"],
            );
            out.insert(
                key.into(),
                obj(&[
                    ("name", &r["name"]),
                    ("container", &r["container"]),
                    ("target", &t),
                ]),
            );
        }
    }
    if let Some(e) = m.get("external").filter(|v| v.is_object()) {
        out.insert(
            "external".into(),
            obj(&[
                (
                    "metric",
                    &obj(&[
                        ("name", &e["metricName"]),
                        ("selector", &e["metricSelector"]),
                    ]),
                ),
                (
                    "target",
                    &target(&e["targetValue"], &e["targetAverageValue"], &null),
                ),
            ]),
        );
    }
    Value::Object(out)
}

/// A v2 `MetricStatus` in v1's shape.
fn metric_status_to_v1(m: &Value) -> Value {
    metric_status(m, |r| {
        let average = r["current"]
            .get("averageValue")
            .cloned()
            .unwrap_or_else(|| json!("0"));
        obj(&[
            ("name", &r["name"]),
            (
                "currentAverageUtilization",
                &r["current"]["averageUtilization"],
            ),
            ("currentAverageValue", &average),
            ("container", &r["container"]),
        ])
    })
}

/// A v1 `MetricStatus` back in v2's shape.
fn metric_status_to_v2(m: &Value) -> Value {
    metric_status(m, |r| {
        let current = obj(&[
            ("averageValue", &r["currentAverageValue"]),
            ("averageUtilization", &r["currentAverageUtilization"]),
        ]);
        obj(&[
            ("name", &r["name"]),
            ("container", &r["container"]),
            ("current", &current),
        ])
    })
}

/// A `MetricStatus` in the other version's shape: its type, and its resource or container
/// resource source through `convert` (the sources a status is kept for here).
fn metric_status(m: &Value, convert: impl Fn(&Value) -> Value) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), m["type"].clone());
    for key in ["resource", "containerResource"] {
        if let Some(r) = m.get(key).filter(|v| v.is_object()) {
            out.insert(key.into(), convert(r));
        }
    }
    Value::Object(out)
}

/// The internal behavior's JSON: Go field names, nil pointers as null.
fn behavior_to_internal(b: &Value) -> Value {
    let rules = |r: &Value| {
        if !r.is_object() {
            return Value::Null;
        }
        let policies: Vec<Value> = r["policies"]
            .as_array()
            .map(|ps| {
                ps.iter()
                    .map(|p| json!({"Type": p["type"], "Value": p["value"], "PeriodSeconds": p["periodSeconds"]}))
                    .collect()
            })
            .unwrap_or_default();
        json!({"StabilizationWindowSeconds": r["stabilizationWindowSeconds"],
            "SelectPolicy": r["selectPolicy"],
            "Policies": if policies.is_empty() { Value::Null } else { json!(policies) }})
    };
    json!({"ScaleUp": rules(&b["scaleUp"]), "ScaleDown": rules(&b["scaleDown"])})
}

fn behavior_from_internal(b: &Value) -> Value {
    let rules = |r: &Value| {
        if !r.is_object() {
            return Value::Null;
        }
        let policies: Option<Vec<Value>> = r["Policies"].as_array().map(|ps| {
            ps.iter()
                .map(|p| json!({"type": p["Type"], "value": p["Value"], "periodSeconds": p["PeriodSeconds"]}))
                .collect()
        });
        obj(&[
            (
                "stabilizationWindowSeconds",
                &r["StabilizationWindowSeconds"],
            ),
            ("selectPolicy", &r["SelectPolicy"]),
            (
                "policies",
                &policies.map(Value::from).unwrap_or(Value::Null),
            ),
        ])
    };
    obj(&[
        ("scaleUp", &rules(&b["ScaleUp"])),
        ("scaleDown", &rules(&b["ScaleDown"])),
    ])
}

fn annotations_without_round_trip(meta: &Value) -> Map<String, Value> {
    let mut anns = meta["annotations"].as_object().cloned().unwrap_or_default();
    for k in ROUND_TRIP {
        anns.remove(k);
    }
    anns
}

fn with_annotations(meta: &Value, anns: Map<String, Value>) -> Value {
    let mut m = meta.clone();
    match m.as_object_mut() {
        Some(o) if anns.is_empty() => {
            o.remove("annotations");
        }
        Some(o) => {
            o.insert("annotations".into(), Value::Object(anns));
        }
        None => {}
    }
    m
}

fn non_empty(v: &Value) -> Option<&Vec<Value>> {
    v.as_array().filter(|a| !a.is_empty())
}

/// `Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler`.
pub(crate) fn v2_to_v1(hpa: &Value) -> Value {
    let spec = &hpa["spec"];
    let status = &hpa["status"];
    let mut anns = annotations_without_round_trip(&hpa["metadata"]);
    let metrics = spec["metrics"].as_array().cloned().unwrap_or_default();
    let cpu = metrics.iter().find(|m| is_cpu_utilization(m));
    let others: Vec<Value> = metrics
        .iter()
        .filter(|m| !is_cpu_utilization(m))
        .map(metric_spec_to_v1)
        .collect();
    if !others.is_empty() {
        anns.insert(METRICS.into(), json!(json!(others).to_string()));
    }
    if let Some(current) = non_empty(&status["currentMetrics"]) {
        let v1: Vec<Value> = current.iter().map(metric_status_to_v1).collect();
        anns.insert(CURRENT_METRICS.into(), json!(json!(v1).to_string()));
    }
    if spec["behavior"].is_object() {
        anns.insert(
            BEHAVIOR.into(),
            json!(behavior_to_internal(&spec["behavior"]).to_string()),
        );
    }
    if let Some(conditions) = non_empty(&status["conditions"]) {
        anns.insert(CONDITIONS.into(), json!(json!(conditions).to_string()));
    }
    let current_cpu = status["currentMetrics"].as_array().and_then(|ms| {
        ms.iter()
            .filter(|m| m["type"] == "Resource" && m["resource"]["name"] == "cpu")
            .rev()
            .find_map(|m| m["resource"]["current"].get("averageUtilization"))
            .cloned()
    });
    let mut out = head("autoscaling/v1", with_annotations(&hpa["metadata"], anns));
    let target_cpu = cpu
        .map(|m| m["resource"]["target"]["averageUtilization"].clone())
        .unwrap_or(Value::Null);
    let v1_spec = spec_of(spec, &[("targetCPUUtilizationPercentage", &target_cpu)]);
    out.insert("spec".into(), v1_spec);
    if status.is_object() {
        let cpu = current_cpu.unwrap_or(Value::Null);
        let v1_status = obj(&[
            ("observedGeneration", &status["observedGeneration"]),
            ("lastScaleTime", &status["lastScaleTime"]),
            ("currentReplicas", &int32(status, "currentReplicas")),
            ("desiredReplicas", &int32(status, "desiredReplicas")),
            ("currentCPUUtilizationPercentage", &cpu),
        ]);
        out.insert("status".into(), v1_status);
    }
    Value::Object(out)
}

fn parse_annotation(meta: &Value, key: &str) -> Option<Value> {
    meta["annotations"][key]
        .as_str()
        .and_then(|s| serde_json::from_str(s).ok())
}

/// `Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`.
pub(crate) fn v1_to_v2(hpa: &Value) -> Value {
    let meta = &hpa["metadata"];
    let spec = &hpa["spec"];
    let status = &hpa["status"];
    let mut metrics: Vec<Value> = parse_annotation(meta, METRICS)
        .and_then(|v| v.as_array().cloned())
        .map(|ms| ms.iter().map(metric_spec_to_v2).collect())
        .unwrap_or_default();
    if let Some(cpu) = spec
        .get("targetCPUUtilizationPercentage")
        .filter(|v| !v.is_null())
    {
        metrics.push(json!({"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": cpu}}}));
    }
    if metrics.is_empty() {
        metrics.push(json!({"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}));
    }
    let behavior = parse_annotation(meta, BEHAVIOR)
        .map(|b| behavior_from_internal(&b))
        .filter(|b| b.as_object().is_some_and(|o| !o.is_empty()))
        .unwrap_or(Value::Null);
    let mut out = head(
        "autoscaling/v2",
        with_annotations(meta, annotations_without_round_trip(meta)),
    );
    let metrics = json!(metrics);
    let v2_spec = spec_of(spec, &[("metrics", &metrics), ("behavior", &behavior)]);
    out.insert("spec".into(), v2_spec);
    if status.is_object() {
        let mut current: Value = Value::Null;
        if let Some(cpu) = status
            .get("currentCPUUtilizationPercentage")
            .filter(|v| !v.is_null())
        {
            current = json!([{"type": "Resource", "resource": {"name": "cpu",
                "current": {"averageUtilization": cpu}}}]);
        }
        if let Some(ms) =
            parse_annotation(meta, CURRENT_METRICS).and_then(|v| v.as_array().cloned())
        {
            current = json!(ms.iter().map(metric_status_to_v2).collect::<Vec<_>>());
        }
        let conditions = parse_annotation(meta, CONDITIONS)
            .filter(|c| c.as_array().is_some_and(|a| !a.is_empty()))
            .unwrap_or(Value::Null);
        let replicas = status["currentReplicas"]
            .as_i64()
            .filter(|n| *n != 0)
            .map(Value::from)
            .unwrap_or(Value::Null);
        let mut st = Map::new();
        put(&mut st, "observedGeneration", &status["observedGeneration"]);
        put(&mut st, "lastScaleTime", &status["lastScaleTime"]);
        put(&mut st, "currentReplicas", &replicas);
        st.insert("desiredReplicas".into(), int32(status, "desiredReplicas"));
        st.insert("currentMetrics".into(), current);
        put(&mut st, "conditions", &conditions);
        out.insert("status".into(), Value::Object(st));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_target_and_status_round_trip_through_v1() {
        let v2 = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
                "minReplicas": 1, "maxReplicas": 5,
                "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50}}}]},
            "status": {"currentReplicas": 2, "desiredReplicas": 2, "currentMetrics": [{"type": ""}],
                "conditions": [{"type": "AbleToScale", "status": "True",
                    "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "SucceededGetScale",
                    "message": "the HPA controller was able to get the target's current scale"}]}});
        let v1 = v2_to_v1(&v2);
        assert_eq!(v1["spec"]["targetCPUUtilizationPercentage"], 50);
        assert_eq!(
            v1["status"],
            json!({"currentReplicas": 2, "desiredReplicas": 2})
        );
        let anns = &v1["metadata"]["annotations"];
        assert_eq!(anns[CURRENT_METRICS], r#"[{"type":""}]"#);
        assert_eq!(
            anns[CONDITIONS],
            r#"[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"SucceededGetScale","message":"the HPA controller was able to get the target's current scale"}]"#
        );
        assert!(anns.get(METRICS).is_none());
        assert_eq!(v1_to_v2(&v1), v2);
    }

    #[test]
    fn a_v1_object_without_a_target_gets_the_default_cpu_target() {
        let v1 = json!({"metadata": {"name": "a"}, "spec": {"scaleTargetRef":
            {"kind": "Deployment", "name": "a"}, "maxReplicas": 3}});
        let v2 = v1_to_v2(&v1);
        assert_eq!(
            v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
            80
        );
    }
}
