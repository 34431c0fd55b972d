//! Jobs and CronJobs (k8s.io/kubernetes pkg/apis/batch/validation/validation.go).

use serde_json::Value;

use super::labels::{label_selector, render, selector_matches, selector_parses};
use super::meta::{object_meta, object_meta_update};
use super::path::{
    duplicate, invalid, nonnegative, not_supported, required, too_many, Path, IMMUTABLE,
};
use super::pod::{semantic_eq, template};
use super::replicas::int;
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;

/// `batch.ControllerUidLabel`: the label every pod of a job carries, and its selector.
pub const CONTROLLER_UID_LABEL: &str = "batch.kubernetes.io/controller-uid";
/// `batch.JobNameLabel`.
pub const JOB_NAME_LABEL: &str = "batch.kubernetes.io/job-name";

fn spec_of(obj: &Value) -> &Value {
    obj.get("spec").unwrap_or(&Value::Null)
}

/// `ValidateJob`: metadata (a ReplicationController's name rules), the generated selector and
/// the spec.
pub fn validate_job(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    errs.extend(generated_selector(obj));
    errs.extend(job_spec(spec_of(obj), &Path::new("spec")));
    errs
}

/// `ValidateHasLabel`.
fn has_label(obj: &Value, key: &str, expected: &str) -> Option<FieldError> {
    let p = Path::of(&["spec", "template", "metadata", "labels"]).key(key);
    let labels = obj.pointer("/spec/template/metadata/labels");
    match labels.and_then(|l| l.get(key)).and_then(Value::as_str) {
        None => Some(required(&p, expected)),
        Some(v) if v != expected => Some(invalid(
            &p,
            go_syntax::string_map(labels),
            format!("must be '{expected}'"),
        )),
        Some(_) => None,
    }
}

/// `validateGeneratedSelector`: unless the selector is manual, the template carries the
/// generated labels and the selector is exactly the generated one.
fn generated_selector(obj: &Value) -> Vec<FieldError> {
    let spec = spec_of(obj);
    if spec.get("manualSelector") == Some(&Value::Bool(true)) {
        return Vec::new();
    }
    let (uid, name) = (crate::meta::uid(obj), crate::meta::name(obj));
    let mut errs = Vec::new();
    if uid.is_empty() {
        errs.push(required(&Path::of(&["metadata", "uid"]), ""));
    }
    for (key, value) in [
        ("controller-uid", uid),
        ("job-name", name),
        (CONTROLLER_UID_LABEL, uid),
        (JOB_NAME_LABEL, name),
    ] {
        errs.extend(has_label(obj, key, value));
    }
    let expected = serde_json::json!({"matchLabels": {CONTROLLER_UID_LABEL: uid}});
    let sel = spec.get("selector").unwrap_or(&Value::Null);
    if !semantic_eq(sel, &expected) {
        errs.push(invalid(
            &Path::of(&["spec", "selector"]),
            render(sel),
            "`selector` not auto-generated",
        ));
    }
    errs
}

/// `ValidateJobSpec`: `validateJobSpec`, then the selector and its match of the template.
fn job_spec(spec: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = job_spec_fields(spec, p);
    let t = spec.get("template").unwrap_or(&Value::Null);
    let sel = spec.get("selector").filter(|s| s.is_object());
    match sel {
        None => errs.push(required(&p.child("selector"), "")),
        Some(s) => errs.extend(label_selector(Some(s), &p.child("selector"))),
    }
    let tlabels = t.pointer("/metadata/labels");
    if selector_parses(sel) && !selector_matches(sel, tlabels) {
        errs.push(invalid(
            &p.child("template").child("metadata").child("labels"),
            go_syntax::string_map(tlabels),
            "`selector` does not match template `labels`",
        ));
    }
    errs
}

/// `validateJobSpec`: counts, completion mode, policies, the pod template and its restart policy.
fn job_spec_fields(spec: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in [
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
        "ttlSecondsAfterFinished",
    ] {
        errs.extend(nonnegative(int(spec, key), &p.child(key)));
    }
    if let Some(mode) = spec.get("completionMode").and_then(Value::as_str) {
        if mode != "NonIndexed" && mode != "Indexed" {
            errs.push(not_supported(
                &p.child("completionMode"),
                go_quote(mode),
                &["NonIndexed", "Indexed"],
            ));
        }
        if mode == "Indexed" && int(spec, "completions").is_none() {
            errs.push(required(
                &p.child("completions"),
                "when completion mode is Indexed",
            ));
        }
    }
    if let Some(policy) = spec.get("podFailurePolicy").filter(|v| v.is_object()) {
        errs.extend(pod_failure_policy(
            spec,
            policy,
            &p.child("podFailurePolicy"),
        ));
    }
    if let Some(replacement) = spec.get("podReplacementPolicy").and_then(Value::as_str) {
        let allowed: &[&str] = if spec.get("podFailurePolicy").is_some_and(|v| !v.is_null()) {
            &["Failed"]
        } else {
            &["Failed", "TerminatingOrFailed"]
        };
        if !allowed.contains(&replacement) {
            errs.push(not_supported(
                &p.child("podReplacementPolicy"),
                go_quote(replacement),
                allowed,
            ));
        }
    }
    let t = spec.get("template").unwrap_or(&Value::Null);
    errs.extend(template(t, &p.child("template")));
    let restart_path = p.child("template").child("spec").child("restartPolicy");
    let restart = t
        .pointer("/spec/restartPolicy")
        .and_then(Value::as_str)
        .unwrap_or("");
    match restart {
        "" | "Always" => errs.push(required(
            &restart_path,
            r#"valid values: "OnFailure", "Never""#,
        )),
        "OnFailure" | "Never" => {
            if restart != "Never" && spec.get("podFailurePolicy").is_some_and(|v| !v.is_null()) {
                errs.push(invalid(
                    &restart_path,
                    go_quote(restart),
                    r#"only "Never" is supported when podFailurePolicy is specified"#,
                ));
            }
        }
        other => errs.push(not_supported(
            &restart_path,
            go_quote(other),
            &["OnFailure", "Never"],
        )),
    }
    errs
}

/// `ValidateCronJobCreate` (`old` absent) and `ValidateCronJobUpdate`.
pub fn validate_cron_job(obj: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let mut errs = match old {
        None => object_meta(obj, true, names::name_is_dns_subdomain, true),
        Some(old) => object_meta_update(obj, old, true),
    };
    errs.extend(cron_job_spec(
        spec_of(obj),
        old.map(spec_of),
        &Path::new("spec"),
    ));
    // The controller appends an 11-character suffix to name its jobs; checked on create only.
    let name = crate::meta::name(obj);
    if old.is_none() && name.len() > 52 {
        errs.push(invalid(
            &Path::of(&["metadata", "name"]),
            go_quote(name),
            "must be no more than 52 characters",
        ));
    }
    errs
}

/// `validateCronJobSpec`.
fn cron_job_spec(spec: &Value, old: Option<&Value>, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let schedule = spec["schedule"].as_str().unwrap_or("");
    if schedule.is_empty() {
        errs.push(required(&p.child("schedule"), ""));
    } else {
        let tz_allowed = old.is_some_and(|o| o["schedule"].as_str().unwrap_or("").contains("TZ"));
        errs.extend(schedule_format(
            schedule,
            tz_allowed,
            spec.get("timeZone"),
            &p.child("schedule"),
        ));
    }
    errs.extend(nonnegative(
        int(spec, "startingDeadlineSeconds"),
        &p.child("startingDeadlineSeconds"),
    ));
    let zone = spec.get("timeZone").filter(|z| !z.is_null());
    if old.is_none_or(|o| o.get("timeZone").filter(|z| !z.is_null()) != zone) {
        errs.extend(time_zone(zone, &p.child("timeZone")));
    }
    const POLICIES: &[&str] = &["Allow", "Forbid", "Replace"];
    match spec["concurrencyPolicy"].as_str().unwrap_or("") {
        "" => errs.push(required(&p.child("concurrencyPolicy"), "")),
        policy if !POLICIES.contains(&policy) => errs.push(not_supported(
            &p.child("concurrencyPolicy"),
            go_quote(policy),
            POLICIES,
        )),
        _ => {}
    }
    // `ValidateJobTemplateSpec`: the job spec without its selector, which the Job gets generated.
    let template_path = p.child("jobTemplate").child("spec");
    let job_spec = &spec["jobTemplate"]["spec"];
    errs.extend(job_spec_fields(job_spec, &template_path));
    if let Some(sel) = job_spec.get("selector").filter(|s| !s.is_null()) {
        errs.push(invalid(
            &template_path.child("selector"),
            render(sel),
            "`selector` will be auto-generated",
        ));
    }
    if job_spec["manualSelector"] == true {
        errs.push(not_supported(
            &template_path.child("manualSelector"),
            "true",
            &["nil", "false"],
        ));
    }
    for key in ["successfulJobsHistoryLimit", "failedJobsHistoryLimit"] {
        errs.extend(nonnegative(int(spec, key), &p.child(key)));
    }
    errs
}

/// `validateScheduleFormat`: robfig's parse error, then the TZ rules.
fn schedule_format(
    schedule: &str,
    tz_allowed: bool,
    zone: Option<&Value>,
    p: &Path,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Err(e) = crate::cron::parse_standard(schedule) {
        errs.push(invalid(p, go_quote(schedule), e));
    }
    let zone_set = zone.is_some_and(|z| !z.is_null());
    if tz_allowed && schedule.contains("TZ") && zone_set {
        errs.push(invalid(
            p,
            go_quote(schedule),
            "cannot use both timeZone field and TZ or CRON_TZ in schedule",
        ));
    } else if !tz_allowed && schedule.contains("TZ") {
        errs.push(invalid(
            p,
            go_quote(schedule),
            "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
        ));
    }
    errs
}

/// `validateTimeZone`.
fn time_zone(zone: Option<&Value>, p: &Path) -> Vec<FieldError> {
    let Some(zone) = zone.and_then(Value::as_str) else {
        return Vec::new();
    };
    let shown = go_quote(zone);
    if zone.is_empty() {
        return vec![invalid(
            p,
            shown,
            "timeZone must be nil or non-empty string",
        )];
    }
    let part_ok = |part: &str| {
        part != "."
            && part != ".."
            && !part.starts_with('-')
            && (1..=14).contains(&part.len())
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-+".contains(c))
    };
    if !zone.split('/').all(part_ok) {
        return vec![invalid(p, shown, format!("unknown time zone {zone}"))];
    }
    let mut errs = Vec::new();
    if zone.eq_ignore_ascii_case("Local") {
        errs.push(invalid(
            p,
            shown.clone(),
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
        ));
    }
    // Go loads "Local" (the process's zone); any other name must be in the zone database.
    if zone != "Local" {
        if let Err(e) = crate::cron::load_location(zone) {
            errs.push(invalid(p, shown, e));
        }
    }
    errs
}

/// `%q` of a sorted `[]string`, as `sets.List` prints in a Required detail.
fn quoted_list(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| go_quote(v)).collect();
    format!("[{}]", quoted.join(" "))
}

/// `%#v` of a `[]int32`.
fn int32_slice(values: &[i64]) -> String {
    if values.is_empty() {
        return "[]int32(nil)".into();
    }
    let shown: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("[]int32{{{}}}", shown.join(", "))
}

const POD_FAILURE_POLICY_ACTIONS: &[&str] = &["Count", "FailIndex", "FailJob", "Ignore"];

/// `validatePodFailurePolicy` and its rules.
fn pod_failure_policy(spec: &Value, policy: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let rules_path = p.child("rules");
    let rules = policy["rules"].as_array().map_or(&[][..], Vec::as_slice);
    if rules.len() > 20 {
        errs.push(too_many(&rules_path, rules.len(), 20));
    }
    let pod_spec = &spec["template"]["spec"];
    let names: Vec<&str> = ["containers", "initContainers"]
        .into_iter()
        .flat_map(|k| pod_spec[k].as_array().into_iter().flatten())
        .filter_map(|c| c["name"].as_str())
        .collect();
    for (i, rule) in rules.iter().enumerate() {
        let rp = rules_path.index(i);
        let action_path = rp.child("action");
        match rule["action"].as_str().unwrap_or("") {
            "" => errs.push(required(
                &action_path,
                format!("valid values: {}", quoted_list(POD_FAILURE_POLICY_ACTIONS)),
            )),
            "FailIndex" if int(spec, "backoffLimitPerIndex").is_none() => {
                errs.push(invalid(
                    &action_path,
                    go_quote("FailIndex"),
                    "requires the backoffLimitPerIndex to be set",
                ));
            }
            a if !POD_FAILURE_POLICY_ACTIONS.contains(&a) => errs.push(not_supported(
                &action_path,
                go_quote(a),
                POD_FAILURE_POLICY_ACTIONS,
            )),
            _ => {}
        }
        let on_exit = rule.get("onExitCodes").filter(|v| v.is_object());
        let on_conditions = rule["onPodConditions"].as_array().filter(|l| !l.is_empty());
        if let Some(req) = on_exit {
            errs.extend(on_exit_codes(req, &rp.child("onExitCodes"), &names));
        }
        if let Some(patterns) = on_conditions {
            errs.extend(on_pod_conditions(patterns, &rp.child("onPodConditions")));
        }
        match (on_exit, on_conditions) {
            (Some(_), Some(_)) => errs.push(FieldError::new(
                crate::error::FieldErrorKind::Invalid,
                rp.as_str(),
                None,
                "specifying both OnExitCodes and OnPodConditions is not supported",
            )),
            (None, None) => errs.push(FieldError::new(
                crate::error::FieldErrorKind::Invalid,
                rp.as_str(),
                None,
                "specifying one of OnExitCodes and OnPodConditions is required",
            )),
            _ => {}
        }
    }
    errs
}

/// `validatePodFailurePolicyRuleOnPodConditions`.
fn on_pod_conditions(patterns: &[Value], p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if patterns.len() > 20 {
        errs.push(too_many(p, patterns.len(), 20));
    }
    const STATUSES: &[&str] = &["False", "True", "Unknown"];
    for (j, pattern) in patterns.iter().enumerate() {
        let pp = p.index(j);
        let type_ = pattern["type"].as_str().unwrap_or("");
        for msg in names::qualified_name(type_) {
            errs.push(invalid(&pp.child("type"), go_quote(type_), msg));
        }
        match pattern["status"].as_str().unwrap_or("") {
            "" => errs.push(required(
                &pp.child("status"),
                format!("valid values: {}", quoted_list(STATUSES)),
            )),
            s if !STATUSES.contains(&s) => {
                errs.push(not_supported(&pp.child("status"), go_quote(s), STATUSES))
            }
            _ => {}
        }
    }
    errs
}

/// `validatePodFailurePolicyRuleOnExitCodes`.
fn on_exit_codes(req: &Value, p: &Path, container_names: &[&str]) -> Vec<FieldError> {
    const OPERATORS: &[&str] = &["In", "NotIn"];
    let mut errs = Vec::new();
    let operator = req["operator"].as_str().unwrap_or("");
    match operator {
        "" => errs.push(required(
            &p.child("operator"),
            format!("valid values: {}", quoted_list(OPERATORS)),
        )),
        o if !OPERATORS.contains(&o) => {
            errs.push(not_supported(&p.child("operator"), go_quote(o), OPERATORS))
        }
        _ => {}
    }
    if let Some(name) = req["containerName"].as_str() {
        if !container_names.contains(&name) {
            errs.push(invalid(
                &p.child("containerName"),
                go_quote(name),
                "must be one of the container or initContainer names in the pod template",
            ));
        }
    }
    let values_path = p.child("values");
    let values: Vec<i64> = req["values"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect();
    if values.is_empty() {
        errs.push(invalid(
            &values_path,
            int32_slice(&values),
            "at least one value is required",
        ));
    } else if values.len() > 255 {
        errs.push(too_many(&values_path, values.len(), 255));
    }
    let mut seen = std::collections::BTreeSet::new();
    for (j, &v) in values.iter().enumerate() {
        if operator == "In" && v == 0 {
            errs.push(invalid(
                &values_path.index(j),
                "0",
                "must not be 0 for the In operator",
            ));
        }
        if !seen.insert(v) {
            errs.push(duplicate(&values_path.index(j), v.to_string()));
        }
    }
    if values.windows(2).any(|w| w[0] > w[1]) {
        errs.push(invalid(
            &values_path,
            int32_slice(&values),
            "must be ordered",
        ));
    }
    errs
}

/// An immutable field's error when it changed (`ValidateImmutableField`, semantic equality).
fn immutable(new: &Value, old: &Value, key: &str, p: &Path, shown: String) -> Option<FieldError> {
    let (n, o) = (
        new.get(key).unwrap_or(&Value::Null),
        old.get(key).unwrap_or(&Value::Null),
    );
    (!semantic_eq(n, o)).then(|| invalid(&p.child(key), shown, IMMUTABLE))
}

/// `ValidateJobUpdate`: the new job's own validation, then `ValidateJobSpecUpdate`. The template
/// is immutable as a whole (`validatePodTemplateUpdate`; a suspended job that never started may
/// change its scheduling directives upstream, which fake nodes do not need).
pub fn validate_job_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(job_spec(spec_of(new), &Path::new("spec")));
    let (ns, os) = (spec_of(new), spec_of(old));
    let p = Path::new("spec");
    let scalar = |key: &str| go_syntax::scalar(ns.get(key).unwrap_or(&Value::Null));
    let checks = [
        ("completions", scalar("completions")),
        (
            "selector",
            ns.get("selector")
                .filter(|s| s.is_object())
                .map_or(go_syntax::NULL.to_string(), render),
        ),
        ("template", "core.PodTemplateSpec{...}".to_string()),
        ("completionMode", scalar("completionMode")),
        (
            "podFailurePolicy",
            "&batch.PodFailurePolicy{...}".to_string(),
        ),
        ("backoffLimitPerIndex", scalar("backoffLimitPerIndex")),
        ("managedBy", scalar("managedBy")),
        ("successPolicy", "&batch.SuccessPolicy{...}".to_string()),
    ];
    for (key, shown) in checks {
        errs.extend(immutable(ns, os, key, &p, shown));
    }
    errs
}

/// `ValidateJobUpdateStatus`: metadata, and counts that cannot be negative.
pub fn validate_job_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let status = new.get("status").unwrap_or(&Value::Null);
    let p = Path::new("status");
    for key in ["active", "succeeded", "failed", "ready", "terminating"] {
        errs.extend(nonnegative(int(status, key), &p.child(key)));
    }
    errs
}
