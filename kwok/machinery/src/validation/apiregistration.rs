//! APIServices (kube-aggregator `pkg/apis/apiregistration/validation/validation.go`).

use serde_json::Value;

use super::meta::{object_meta, object_meta_update};
use super::path::{invalid, not_supported, required, Path};
use crate::error::{go_quote, FieldError};
use crate::names;

/// `ValidateAPIService`.
pub fn api_service(obj: &Value) -> Vec<FieldError> {
    let spec = &obj["spec"];
    let group = spec["group"].as_str().unwrap_or("");
    let version = spec["version"].as_str().unwrap_or("");
    let name_path = Path::of(&["metadata", "name"]);
    let mut errs = Vec::new();
    let name = obj["metadata"]["name"].as_str().unwrap_or("");
    if !name.is_empty() {
        // `path.ValidatePathSegmentName`, then the one name an APIService may have.
        let segment = match name {
            "." | ".." => vec![format!("may not be '{name}'")],
            _ => ["/", "%"]
                .iter()
                .filter(|c| name.contains(*c))
                .map(|c| format!("may not contain '{c}'"))
                .collect(),
        };
        let required_name = format!("{version}.{group}");
        let problems = if !segment.is_empty() {
            segment
        } else if name != required_name {
            vec![format!(
                "must be `spec.version+\".\"+spec.group`: {}",
                go_quote(&required_name)
            )]
        } else {
            Vec::new()
        };
        errs.extend(
            problems
                .into_iter()
                .map(|p| invalid(&name_path, go_quote(name), p)),
        );
    }
    errs.extend(object_meta(obj, false, |_, _| Vec::new(), true));
    let spec_path = Path::new("spec");
    if group.is_empty() && version != "v1" {
        errs.push(required(
            &spec_path.child("group"),
            "only v1 may have an empty group and it better be legacy kube",
        ));
    }
    if !group.is_empty() {
        for problem in names::dns1123_subdomain(group) {
            errs.push(invalid(&spec_path.child("group"), go_quote(group), problem));
        }
    }
    for problem in names::dns1035_label(version) {
        errs.push(invalid(
            &spec_path.child("version"),
            go_quote(version),
            problem,
        ));
    }
    let group_priority = spec["groupPriorityMinimum"].as_i64().unwrap_or(0);
    if group_priority <= 0 || group_priority > 20000 {
        errs.push(invalid(
            &spec_path.child("groupPriorityMinimum"),
            group_priority.to_string(),
            "must be positive and less than 20000",
        ));
    }
    let version_priority = spec["versionPriority"].as_i64().unwrap_or(0);
    if version_priority <= 0 || version_priority > 1000 {
        errs.push(invalid(
            &spec_path.child("versionPriority"),
            version_priority.to_string(),
            "must be positive and less than 1000",
        ));
    }
    let ca_bundle = crate::certificate_request::bytes_at(obj, &["spec", "caBundle"]);
    let insecure = spec["insecureSkipTLSVerify"].as_bool().unwrap_or(false);
    let service = &spec["service"];
    if !service.is_object() {
        if !ca_bundle.is_empty() {
            errs.push(invalid(
                &spec_path.child("caBundle"),
                go_quote(&format!("{} bytes", ca_bundle.len())),
                "local APIServices may not have a caBundle",
            ));
        }
        if insecure {
            errs.push(invalid(
                &spec_path.child("insecureSkipTLSVerify"),
                "true",
                "local APIServices may not have insecureSkipTLSVerify",
            ));
        }
        return errs;
    }
    let service_path = spec_path.child("service");
    for key in ["namespace", "name"] {
        if service[key].as_str().unwrap_or("").is_empty() {
            errs.push(required(&service_path.child(key), ""));
        }
    }
    if let Some(port) = service["port"].as_i64() {
        if !(1..=65535).contains(&port) {
            errs.push(invalid(
                &service_path.child("port"),
                port.to_string(),
                "port is not valid: must be between 1 and 65535, inclusive",
            ));
        }
    }
    if insecure && !ca_bundle.is_empty() {
        errs.push(invalid(
            &spec_path.child("insecureSkipTLSVerify"),
            "true",
            "may not be true if caBundle is present",
        ));
    }
    errs
}

/// `ValidateAPIServiceUpdate`.
pub fn api_service_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(api_service(new));
    errs
}

/// `ValidateAPIServiceStatusUpdate`: the meta update and known condition statuses.
pub fn api_service_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let path = Path::of(&["status", "conditions"]);
    for (i, condition) in new["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let status = condition["status"].as_str().unwrap_or("");
        if !["True", "False", "Unknown"].contains(&status) {
            errs.push(not_supported(
                &path.index(i).child("status"),
                go_quote(status),
                &["True", "False", "Unknown"],
            ));
        }
    }
    errs
}
