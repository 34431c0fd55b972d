//! certificates.k8s.io CertificateSigningRequests (`printCertificateSigningRequest` and
//! `extractCSRStatus` in printers.go).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::docs;
use super::duration::human_duration;
use super::values::{age, name};

pub const CSR_COLUMNS: &[Column] = &[
    Column::name(),
    Column::age(),
    Column::new("SignerName", "string", docs::CSR_SIGNER_NAME),
    // Upstream describes the requestor with the request's own documentation.
    Column::new("Requestor", "string", docs::CSR_REQUEST),
    Column::new("RequestedDuration", "string", docs::CSR_EXPIRATION_SECONDS),
    Column::new("Condition", "string", docs::CSR_CONDITIONS),
];

pub fn csr_cells(csr: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let spec = &csr["spec"];
    let signer = spec["signerName"].as_str().filter(|s| !s.is_empty());
    let duration = match spec["expirationSeconds"].as_i64() {
        Some(seconds) => human_duration(chrono::TimeDelta::seconds(seconds)),
        None => "<none>".to_string(),
    };
    vec![
        name(csr),
        age(csr, now),
        Value::from(signer.unwrap_or("<none>")),
        Value::from(spec["username"].as_str().unwrap_or("")),
        Value::from(duration),
        Value::from(condition(csr)),
    ]
}

/// `extractCSRStatus`: by condition type only; a denial wins over an approval.
fn condition(csr: &Value) -> String {
    let conditions = csr["status"]["conditions"].as_array();
    let has = |kind: &str| conditions.into_iter().flatten().any(|c| c["type"] == kind);
    let mut text = if has("Denied") {
        "Denied"
    } else if has("Approved") {
        "Approved"
    } else {
        "Pending"
    }
    .to_string();
    if has("Failed") {
        text.push_str(",Failed");
    }
    if csr["status"]["certificate"]
        .as_str()
        .is_some_and(|c| !c.is_empty())
    {
        text.push_str(",Issued");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_condition_column_reads_types_and_the_certificate() {
        let with = |conditions: Value, certificate: &str| json!({"status": {"conditions": conditions, "certificate": certificate}});
        assert_eq!(condition(&json!({})), "Pending");
        assert_eq!(
            condition(&with(
                json!([{"type": "Approved", "status": "True"}]),
                "Y2VydA=="
            )),
            "Approved,Issued"
        );
        assert_eq!(
            condition(&with(
                json!([{"type": "Approved"}, {"type": "Denied"}, {"type": "Failed"}]),
                ""
            )),
            "Denied,Failed"
        );
    }

    #[test]
    fn the_requested_duration_is_a_human_duration_or_none() {
        let now = Utc::now();
        let cells = |spec: Value| csr_cells(&json!({"metadata": {"name": "a"}, "spec": spec}), now);
        assert_eq!(cells(json!({}))[4], "<none>");
        assert_eq!(cells(json!({}))[2], "<none>");
        assert_eq!(cells(json!({"expirationSeconds": 600}))[4], "10m");
        assert_eq!(cells(json!({"expirationSeconds": 86400}))[4], "24h");
        assert_eq!(cells(json!({"expirationSeconds": 31536000}))[4], "365d");
    }
}
