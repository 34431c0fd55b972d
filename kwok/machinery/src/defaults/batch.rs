//! batch/v1 defaults (k8s.io/kubernetes pkg/apis/batch/v1/defaults.go).

use serde_json::{json, Map, Value};

use super::fields::{child, default_nil, default_zero, each, existing, is_nil};
use super::workloads::template;

/// `SetDefaults_Job`.
pub fn job(obj: &mut Map<String, Value>) {
    let Some(spec) = child(obj, "spec") else {
        return;
    };
    // A non-parallel job may leave both unset: both become 1.
    if is_nil(spec, "completions") && is_nil(spec, "parallelism") {
        spec.insert("completions".into(), json!(1));
        spec.insert("parallelism".into(), json!(1));
    }
    default_nil(spec, "parallelism", json!(1));
    let backoff_limit = if is_nil(spec, "backoffLimitPerIndex") {
        6
    } else {
        i64::from(i32::MAX)
    };
    default_nil(spec, "backoffLimit", json!(backoff_limit));
    default_nil(spec, "completionMode", json!("NonIndexed"));
    default_nil(spec, "suspend", json!(false));
    if let Some(policy) = existing(spec, "podFailurePolicy") {
        for rule in each(policy, "rules") {
            for pattern in each(rule, "onPodConditions") {
                if pattern
                    .get("status")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    pattern.insert("status".into(), json!("True"));
                }
            }
        }
    }
    let replacement = if is_nil(spec, "podFailurePolicy") {
        "TerminatingOrFailed"
    } else {
        "Failed"
    };
    default_nil(spec, "podReplacementPolicy", json!(replacement));
    default_nil(spec, "manualSelector", json!(false));
    template(spec);
    // The job takes its template's labels when it has none of its own.
    let template_labels = spec
        .get("template")
        .and_then(|t| t.get("metadata"))
        .and_then(|m| m.get("labels"))
        .filter(|l| l.is_object())
        .cloned();
    if let (Some(labels), Some(meta)) = (template_labels, child(obj, "metadata")) {
        let has_own = meta
            .get("labels")
            .and_then(Value::as_object)
            .is_some_and(|l| !l.is_empty());
        if !has_own {
            meta.insert("labels".into(), labels);
        }
    }
}

/// `SetDefaults_CronJob`, and the pod defaults of the job template's pod template (the job
/// template itself gets no `SetDefaults_Job`).
pub fn cron_job(obj: &mut Map<String, Value>) {
    let Some(spec) = child(obj, "spec") else {
        return;
    };
    default_zero(spec, "concurrencyPolicy", json!("Allow"));
    default_nil(spec, "suspend", json!(false));
    default_nil(spec, "successfulJobsHistoryLimit", json!(3));
    default_nil(spec, "failedJobsHistoryLimit", json!(1));
    if let Some(job_template) = child(spec, "jobTemplate") {
        // `JobTemplateSpec.ObjectMeta` is a value struct: always encoded, its time null.
        if let Some(meta) = child(job_template, "metadata") {
            meta.entry("creationTimestamp").or_insert(Value::Null);
        }
        if let Some(job_spec) = child(job_template, "spec") {
            template(job_spec);
        }
    }
}
