//! apiregistration.k8s.io APIServices (kube-aggregator `pkg/registry/apiservice/etcd`
//! `ConvertToTable`).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::values::{age, name};

pub const API_SERVICE_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new(
        "Service",
        "string",
        "The reference to the service that hosts this API endpoint.",
    ),
    Column::new("Available", "string", "Whether this service is available."),
    Column::age(),
];

pub fn api_service_cells(service: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let reference = &service["spec"]["service"];
    let hosted = if reference.is_object() {
        format!(
            "{}/{}",
            reference["namespace"].as_str().unwrap_or(""),
            reference["name"].as_str().unwrap_or("")
        )
    } else {
        "Local".to_string()
    };
    vec![
        name(service),
        Value::from(hosted),
        Value::from(available(service)),
        age(service, now),
    ]
}

/// The first `Available` condition: `True`, or its status with the reason.
fn available(service: &Value) -> String {
    let condition = service["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Available");
    let Some(condition) = condition else {
        return "Unknown".into();
    };
    let status = condition["status"].as_str().unwrap_or("");
    match condition["reason"].as_str().filter(|r| !r.is_empty()) {
        Some(reason) if status != "True" => format!("{status} ({reason})"),
        _ => status.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_available_column_shows_a_reason_unless_true() {
        let with = |conditions: Value| json!({"status": {"conditions": conditions}});
        assert_eq!(available(&json!({})), "Unknown");
        assert_eq!(
            available(&with(
                json!([{"type": "Available", "status": "True", "reason": "Local"}])
            )),
            "True"
        );
        assert_eq!(
            available(&with(
                json!([{"type": "Available", "status": "False", "reason": "MissingEndpoints"}])
            )),
            "False (MissingEndpoints)"
        );
        let cells = api_service_cells(
            &json!({"metadata": {"name": "v1beta1.metrics.k8s.io"},
                "spec": {"service": {"namespace": "kube-system", "name": "metrics-server"}}}),
            Utc::now(),
        );
        assert_eq!(cells[1], "kube-system/metrics-server");
    }
}
