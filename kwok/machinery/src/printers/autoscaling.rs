//! HorizontalPodAutoscalers (`printHorizontalPodAutoscaler`, `formatHPAMetrics` in printers.go),
//! over the stored v2 shape.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::docs;
use super::values::{age, name};
use crate::quantity::Quantity;

pub const HPA_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Reference", "string", docs::HPA_REFERENCE),
    Column::new("Targets", "string", docs::HPA_METRICS),
    Column::new("MinPods", "string", docs::HPA_MIN_REPLICAS),
    Column::new("MaxPods", "string", docs::HPA_MAX_REPLICAS),
    Column::new("Replicas", "string", docs::HPA_CURRENT_REPLICAS),
    Column::age(),
];

/// A quantity as `Quantity.String()` writes it.
fn quantity(v: &Value) -> String {
    v.as_str()
        .and_then(|q| Quantity::parse(q).ok())
        .map(|q| q.canonical())
        .unwrap_or_else(|| "0".into())
}

fn percent(v: &Value) -> Option<String> {
    v.as_i64().map(|n| format!("{n}%"))
}

/// One metric's `current/target` (`formatHPAMetrics`'s switch).
fn metric(spec: &Value, status: Option<&Value>) -> String {
    let unknown = || "<unknown>".to_string();
    let current = |key: &str, field: &str| {
        status
            .map(|s| &s[key])
            .filter(|s| s.is_object())
            .map(|s| &s["current"][field])
    };
    match spec["type"].as_str().unwrap_or("") {
        ty @ ("External" | "Object") => {
            let key = if ty == "External" {
                "external"
            } else {
                "object"
            };
            let target = &spec[key]["target"];
            if !target["averageValue"].is_null() {
                let cur = current(key, "averageValue")
                    .filter(|v| !v.is_null())
                    .map(quantity)
                    .unwrap_or_else(unknown);
                format!("{cur}/{} (avg)", quantity(&target["averageValue"]))
            } else {
                let cur = current(key, "value").map(quantity).unwrap_or_else(unknown);
                format!("{cur}/{}", quantity(&target["value"]))
            }
        }
        "Pods" => {
            let cur = current("pods", "averageValue")
                .map(quantity)
                .unwrap_or_else(unknown);
            format!(
                "{cur}/{}",
                quantity(&spec["pods"]["target"]["averageValue"])
            )
        }
        ty @ ("Resource" | "ContainerResource") => {
            let key = if ty == "Resource" {
                "resource"
            } else {
                "containerResource"
            };
            let src = &spec[key];
            let name = src["name"].as_str().unwrap_or("");
            if !src["target"]["averageValue"].is_null() {
                let cur = current(key, "averageValue")
                    .map(quantity)
                    .unwrap_or_else(unknown);
                format!("{name}: {cur}/{}", quantity(&src["target"]["averageValue"]))
            } else {
                let cur = current(key, "averageUtilization")
                    .and_then(percent)
                    .unwrap_or_else(unknown);
                let target = percent(&src["target"]["averageUtilization"])
                    .unwrap_or_else(|| "<auto>".into());
                format!("{name}: {cur}/{target}")
            }
        }
        _ => "<unknown type>".into(),
    }
}

/// `formatHPAMetrics`: the first two metrics, then how many more.
fn metrics(specs: &[Value], statuses: &[Value]) -> String {
    if specs.is_empty() {
        return "<none>".into();
    }
    let list: Vec<String> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| metric(s, statuses.get(i)))
        .collect();
    if list.len() > 2 {
        format!("{} + {} more...", list[..2].join(", "), list.len() - 2)
    } else {
        list.join(", ")
    }
}

pub fn hpa_cells(hpa: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let spec = &hpa["spec"];
    let r = &spec["scaleTargetRef"];
    let reference = format!(
        "{}/{}",
        r["kind"].as_str().unwrap_or(""),
        r["name"].as_str().unwrap_or("")
    );
    let none = Vec::new();
    let specs = spec["metrics"].as_array().unwrap_or(&none);
    let statuses = hpa["status"]["currentMetrics"].as_array().unwrap_or(&none);
    let min = spec["minReplicas"]
        .as_i64()
        .map(|n| n.to_string())
        .unwrap_or_else(|| "<unset>".into());
    vec![
        name(hpa),
        Value::from(reference),
        Value::from(metrics(specs, statuses)),
        Value::from(min),
        Value::from(spec["maxReplicas"].as_i64().unwrap_or(0)),
        Value::from(hpa["status"]["currentReplicas"].as_i64().unwrap_or(0)),
        age(hpa, now),
    ]
}
