//! Job validation on jobs as the API server holds them before validating.

use super::validation::messages;
use serde_json::{json, Value};

use crate::resource::Strategy;
use crate::validation::batch::*;

/// A job as the API server holds it before validation: defaulted, uid set, selector generated.
fn job(spec: Value) -> Value {
    let mut obj = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "train", "namespace": "lab", "uid": "0b7c5c1e-7a0e-4a55-8c53-4d4e0b6e2a11"},
        "spec": spec});
    if obj["spec"]["template"].is_null() {
        obj["spec"]["template"] = json!({"spec": {"restartPolicy": "Never",
            "containers": [{"name": "main", "image": "work:1"}]}});
    }
    if let Some(m) = obj.as_object_mut() {
        crate::defaults::batch::job(m);
    }
    crate::kinds::batch::job::Job.prepare_for_create(&mut obj);
    obj
}

#[test]
fn a_defaulted_job_is_valid() {
    assert_eq!(
        messages(validate_job(&job(json!({})))),
        Vec::<String>::new()
    );
}

#[test]
fn restart_policy_always_is_refused_as_upstream_words_it() {
    let mut j = job(json!({}));
    j["spec"]["template"]["spec"]["restartPolicy"] = json!("Always");
    assert_eq!(
        messages(validate_job(&j)),
        [r#"spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never""#]
    );
}

#[test]
fn negative_counts_are_invalid() {
    let j = job(json!({"parallelism": -1, "backoffLimit": -2}));
    assert_eq!(
        messages(validate_job(&j)),
        [
            "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
            "spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0",
        ]
    );
}

#[test]
fn pod_failure_policy_rules_are_checked() {
    let j = job(json!({"podFailurePolicy": {"rules": [
        {"action": "FailJob", "onExitCodes": {"containerName": "other", "operator": "In", "values": [3, 0, 3]}},
        {"action": "", "onPodConditions": [{"type": "DisruptionTarget", "status": "Maybe"}]},
        {"action": "Count"},
    ]}}));
    assert_eq!(
        messages(validate_job(&j)),
        [
            r#"spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "other": must be one of the container or initContainer names in the pod template"#,
            "spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator",
            "spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3",
            "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{3, 0, 3}: must be ordered",
            r#"spec.podFailurePolicy.rules[1].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]"#,
            r#"spec.podFailurePolicy.rules[1].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown""#,
            "spec.podFailurePolicy.rules[2]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
        ]
    );
}

#[test]
fn a_pod_failure_policy_needs_restart_policy_never_and_replacement_failed() {
    let mut j = job(json!({"podFailurePolicy": {"rules": [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}}));
    j["spec"]["template"]["spec"]["restartPolicy"] = json!("OnFailure");
    j["spec"]["podReplacementPolicy"] = json!("TerminatingOrFailed");
    assert_eq!(
        messages(validate_job(&j)),
        [
            r#"spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed""#,
            r#"spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified"#,
        ]
    );
}

#[test]
fn completions_and_selector_cannot_change() {
    let old = job(json!({"completions": 2}));
    let mut new = old.clone();
    new["spec"]["completions"] = json!(3);
    new["spec"]["selector"] = json!({"matchLabels": {"app": "x"}});
    let errs = messages(validate_job_update(&new, &old));
    assert!(errs.contains(&"spec.completions: Invalid value: 3: field is immutable".to_string()));
    assert!(errs.contains(&r#"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"#.to_string()));
}

fn cron_job(spec: Value) -> Value {
    let mut obj = json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "zoned", "namespace": "lab"}, "spec": spec});
    if obj["spec"]["jobTemplate"].is_null() {
        obj["spec"]["jobTemplate"] = json!({"spec": {"template": {"spec": {"restartPolicy": "OnFailure",
            "containers": [{"name": "c", "image": "x:1"}]}}}});
    }
    if let Some(m) = obj.as_object_mut() {
        crate::defaults::batch::cron_job(m);
    }
    obj
}

#[test]
fn a_cron_job_spec_is_checked_in_upstreams_order() {
    let cj = cron_job(json!({"schedule": "0 9 * * *", "timeZone": "Mars/Olympus",
        "concurrencyPolicy": "Sometimes", "startingDeadlineSeconds": -5,
        "jobTemplate": {"spec": {"selector": {"matchLabels": {"app": "x"}}, "manualSelector": true,
            "template": {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "x:1"}]}}}}}));
    assert_eq!(
        messages(validate_cron_job(&cj, None)),
        [
            "spec.startingDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0",
            r#"spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus"#,
            r#"spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace""#,
            r#"spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never""#,
            r#"spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated"#,
            r#"spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false""#,
        ]
    );
}

#[test]
fn schedules_time_zones_and_long_names_are_refused() {
    let check = |spec: Value| messages(validate_cron_job(&cron_job(spec), None));
    assert_eq!(
        check(json!({"schedule": "61 * * * 7"})),
        [r#"spec.schedule: Invalid value: "61 * * * 7": end of range (61) above maximum (59): 61"#]
    );
    assert_eq!(
        check(json!({"schedule": "TZ=UTC 0 * * * *"})),
        [
            r#"spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead"#
        ]
    );
    assert_eq!(
        check(json!({"schedule": "@hourly", "timeZone": "Local"})),
        [
            r#"spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"#
        ]
    );
    assert_eq!(
        check(json!({"schedule": "30 9 * * 1-5", "timeZone": "Asia/Seoul"})),
        Vec::<String>::new()
    );
    let mut long = cron_job(json!({"schedule": "@hourly"}));
    long["metadata"]["name"] = json!("this-name-is-far-too-long-for-a-cronjob-of-the-course");
    assert_eq!(
        messages(validate_cron_job(&long, None)),
        [
            r#"metadata.name: Invalid value: "this-name-is-far-too-long-for-a-cronjob-of-the-course": must be no more than 52 characters"#
        ]
    );
    let old = cron_job(json!({"schedule": "@hourly"}));
    assert!(
        validate_cron_job(&long, Some(&old))
            .iter()
            .all(|e| !e.to_string().contains("52 characters")),
        "the length rule is for create only"
    );
}

#[test]
fn cron_job_defaults_match_set_defaults_cron_job() {
    let cj = cron_job(json!({"schedule": "@daily", "concurrencyPolicy": ""}));
    let spec = &cj["spec"];
    assert_eq!(
        (
            &spec["concurrencyPolicy"],
            &spec["suspend"],
            &spec["successfulJobsHistoryLimit"],
            &spec["failedJobsHistoryLimit"]
        ),
        (&json!("Allow"), &json!(false), &json!(3), &json!(1))
    );
    assert_eq!(
        spec["jobTemplate"]["metadata"],
        json!({"creationTimestamp": null})
    );
    assert_eq!(
        spec["jobTemplate"]["spec"]["template"]["spec"]["dnsPolicy"],
        "ClusterFirst"
    );
    assert!(
        spec["jobTemplate"]["spec"].get("backoffLimit").is_none(),
        "no SetDefaults_Job in a template"
    );
}
