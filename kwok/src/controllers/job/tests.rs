//! Jobs in whole in-process clusters, checked against what a real cluster shows (the
//! differential session `jobs` compares the same work with upstream).

use serde_json::{json, Value};

use super::TRACKING_FINALIZER;
use crate::api::{DeleteOptions, Propagation};
use crate::controllers::kubelet::EXIT_CODE;
use crate::controllers::replicaset::tests::{
    conditions, create, events_about, eventually, get, modify, pods_labelled, start_cluster,
};
use crate::meta;
use crate::registry;

fn job(name: &str, spec: Value) -> Value {
    let mut spec = spec;
    spec["template"] = json!({
        "metadata": {"labels": {"app": name}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "work:1"}]}
    });
    json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default"}, "spec": spec})
}

/// A job whose pods no node can take: they stay Pending.
fn unschedulable_job(name: &str, spec: Value) -> Value {
    let mut j = job(name, spec);
    j["spec"]["template"]["spec"]["nodeSelector"] = json!({"absent": "label"});
    j
}

fn failing_job(name: &str, exit_code: i64, spec: Value) -> Value {
    let mut j = job(name, spec);
    j["spec"]["template"]["metadata"]["annotations"] = json!({EXIT_CODE: exit_code.to_string()});
    j
}

fn has_condition(job: &Value, type_: &str) -> bool {
    conditions(job)
        .iter()
        .any(|(t, s, _, _)| t == type_ && s == "True")
}

/// Wait until the job `name` in `default` has a True `type_` condition.
async fn until_condition(cluster: &crate::cluster::Cluster, name: &str, type_: &str) {
    let api = cluster.api();
    eventually(cluster, &format!("job {name} is {type_}"), || async {
        has_condition(&get(api, &registry::JOBS, "default", name), type_)
    })
    .await;
}

fn owned(s: &[(&str, &str, &str, &str)]) -> Vec<(String, String, String, String)> {
    s.iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect()
}

#[tokio::test]
async fn a_job_runs_its_completions_parallelism_at_a_time_and_completes() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::JOBS,
        "default",
        job("many", json!({"completions": 3, "parallelism": 2})),
    );
    until_condition(&cluster, "many", "Complete").await;
    let done = get(api, &registry::JOBS, "default", "many");
    let status = &done["status"];
    assert_eq!(status["succeeded"], 3);
    assert_eq!(status["active"], Value::Null, "active is omitted at 0");
    assert_eq!(
        (&status["ready"], &status["terminating"]),
        (&json!(0), &json!(0))
    );
    assert_eq!(status["uncountedTerminatedPods"], json!({}));
    assert!(status["completionTime"].is_string() && status["startTime"].is_string());
    let reached = "Reached expected number of succeeded pods";
    assert_eq!(
        conditions(&done),
        owned(&[
            ("SuccessCriteriaMet", "True", "CompletionsReached", reached),
            ("Complete", "True", "CompletionsReached", reached),
        ])
    );
    let pods = pods_labelled(api, "default", "app", "many");
    assert_eq!(pods.len(), 3, "one pod per completion, none replaced");
    for pod in &pods {
        assert_eq!(pod["status"]["phase"], "Succeeded");
        assert!(
            !meta::finalizers(pod)
                .iter()
                .any(|f| f == TRACKING_FINALIZER),
            "counted pods lose the tracking finalizer"
        );
        assert_eq!(
            pod["status"]["containerStatuses"][0]["state"]["terminated"]["reason"],
            "Completed"
        );
        assert_eq!(
            meta::label(pod, "batch.kubernetes.io/job-name"),
            Some("many")
        );
    }
    let reasons: Vec<String> = events_about(api, "default", "Job", "many")
        .into_iter()
        .map(|(reason, _, source, _)| {
            assert_eq!(source, "job-controller");
            reason
        })
        .collect();
    assert_eq!(
        reasons.iter().filter(|r| *r == "SuccessfulCreate").count(),
        3
    );
    assert_eq!(reasons.last().map(String::as_str), Some("Completed"));
    cluster.shutdown().await;
}

#[tokio::test]
async fn failures_past_the_backoff_limit_fail_the_job() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::JOBS,
        "default",
        failing_job("crash", 1, json!({"backoffLimit": 0})),
    );
    until_condition(&cluster, "crash", "Failed").await;
    let failed = get(api, &registry::JOBS, "default", "crash");
    assert_eq!(failed["status"]["failed"], 1);
    assert_eq!(failed["status"]["succeeded"], Value::Null);
    assert!(
        failed["status"]["completionTime"].is_null(),
        "only success completes"
    );
    let limit = "Job has reached the specified backoff limit";
    assert_eq!(
        conditions(&failed),
        owned(&[
            ("FailureTarget", "True", "BackoffLimitExceeded", limit),
            ("Failed", "True", "BackoffLimitExceeded", limit),
        ])
    );
    let pods = pods_labelled(api, "default", "app", "crash");
    assert_eq!(pods.len(), 1);
    let terminated = &pods[0]["status"]["containerStatuses"][0]["state"]["terminated"];
    assert_eq!(
        (&terminated["exitCode"], &terminated["reason"]),
        (&json!(1), &json!("Error"))
    );
    assert_eq!(pods[0]["status"]["phase"], "Failed");
    let last = events_about(api, "default", "Job", "crash").pop();
    assert_eq!(
        last.map(|(reason, message, _, _)| (reason, message)),
        Some(("BackoffLimitExceeded".into(), limit.into()))
    );
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_fail_job_rule_fails_the_job_with_its_message() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    let policy = json!({"rules": [
        {"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In", "values": [42]}}
    ]});
    create(
        api,
        &registry::JOBS,
        "default",
        failing_job(
            "fatal",
            42,
            json!({"backoffLimit": 6, "podFailurePolicy": policy}),
        ),
    );
    until_condition(&cluster, "fatal", "Failed").await;
    let pods = pods_labelled(api, "default", "app", "fatal");
    assert_eq!(
        pods.len(),
        1,
        "the first failure ends the job, with retries left"
    );
    let message = format!(
        "Container main for pod default/{} failed with exit code 42 matching FailJob rule at index 0",
        meta::name(&pods[0])
    );
    let failed = get(api, &registry::JOBS, "default", "fatal");
    assert_eq!(
        conditions(&failed),
        owned(&[
            ("FailureTarget", "True", "PodFailurePolicy", &message),
            ("Failed", "True", "PodFailurePolicy", &message),
        ])
    );
    assert_eq!(failed["status"]["failed"], 1);
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_passed_deadline_deletes_the_pods_and_fails_the_job() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::JOBS,
        "default",
        unschedulable_job("stuck", json!({"activeDeadlineSeconds": 1})),
    );
    until_condition(&cluster, "stuck", "Failed").await;
    let failed = get(api, &registry::JOBS, "default", "stuck");
    let deadline = "Job was active longer than specified deadline";
    assert_eq!(
        conditions(&failed),
        owned(&[
            ("FailureTarget", "True", "DeadlineExceeded", deadline),
            ("Failed", "True", "DeadlineExceeded", deadline),
        ])
    );
    assert_eq!(
        failed["status"]["failed"], 1,
        "the deleted pending pod counts as failed"
    );
    assert_eq!(failed["status"]["terminating"], 0);
    assert!(pods_labelled(api, "default", "app", "stuck").is_empty());
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_suspended_job_waits_and_resumes_with_a_new_start_time() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::JOBS,
        "default",
        job("later", json!({"suspend": true})),
    );
    until_condition(&cluster, "later", "Suspended").await;
    let suspended = get(api, &registry::JOBS, "default", "later");
    assert!(suspended["status"]["startTime"].is_null());
    assert!(pods_labelled(api, "default", "app", "later").is_empty());
    modify(api, &registry::JOBS, "default", "later", |j| {
        j["spec"]["suspend"] = json!(false)
    });
    until_condition(&cluster, "later", "Complete").await;
    let done = get(api, &registry::JOBS, "default", "later");
    let suspension = conditions(&done)
        .into_iter()
        .find(|(t, ..)| t == "Suspended");
    assert_eq!(
        suspension.map(|(_, s, r, m)| (s, r, m)),
        Some(("False".into(), "JobResumed".into(), "Job resumed".into()))
    );
    let reasons: Vec<String> = events_about(api, "default", "Job", "later")
        .into_iter()
        .map(|(r, ..)| r)
        .collect();
    // `syncJob` runs `manageJob` before it records the resumption.
    assert_eq!(
        reasons,
        ["Suspended", "SuccessfulCreate", "Resumed", "Completed"]
    );
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_finished_job_with_ttl_zero_is_deleted_with_its_pods() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::JOBS,
        "default",
        job("brief", json!({"ttlSecondsAfterFinished": 0})),
    );
    eventually(&cluster, "the job and its pods are gone", || async {
        api.get(&registry::JOBS, "default", "brief").is_err()
            && pods_labelled(api, "default", "app", "brief").is_empty()
    })
    .await;
    cluster.shutdown().await;
}

#[tokio::test]
async fn orphaned_pods_lose_the_tracking_finalizer() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::JOBS,
        "default",
        unschedulable_job("orphaned", json!({})),
    );
    eventually(&cluster, "a pod waits", || async {
        !pods_labelled(api, "default", "app", "orphaned").is_empty()
    })
    .await;
    let orphan = DeleteOptions {
        propagation: Some(Propagation::Orphan),
        ..Default::default()
    };
    api.delete(&registry::JOBS, "default", "orphaned", &orphan)
        .expect("delete");
    eventually(&cluster, "the pod is released", || async {
        let pods = pods_labelled(api, "default", "app", "orphaned");
        pods.len() == 1
            && meta::finalizers(&pods[0]).is_empty()
            && pods[0]["metadata"]["ownerReferences"].is_null()
    })
    .await;
    cluster.shutdown().await;
}

#[tokio::test]
async fn a_deadline_fires_while_unrelated_objects_keep_changing() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::JOBS,
        "default",
        unschedulable_job("busy", json!({"activeDeadlineSeconds": 1})),
    );
    let noise = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "noise"}});
    create(api, &registry::CONFIGMAPS, "default", noise);
    // Changes the Job controller does not watch, more often than its deadline timer.
    let started = std::time::Instant::now();
    let mut n = 0;
    while !has_condition(&get(api, &registry::JOBS, "default", "busy"), "Failed") {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(8),
            "the deadline timer kept being pushed back"
        );
        n += 1;
        modify(api, &registry::CONFIGMAPS, "default", "noise", |c| {
            c["data"] = json!({"n": n.to_string()})
        });
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    cluster.shutdown().await;
}

#[tokio::test]
async fn an_indexed_job_runs_each_index_once() {
    let cluster = start_cluster().await;
    let api = cluster.api();
    create(
        api,
        &registry::JOBS,
        "default",
        job(
            "ranks",
            json!({"completions": 3, "parallelism": 2, "completionMode": "Indexed"}),
        ),
    );
    until_condition(&cluster, "ranks", "Complete").await;
    let done = get(api, &registry::JOBS, "default", "ranks");
    assert_eq!(done["status"]["completedIndexes"], "0-2");
    assert_eq!(done["status"]["succeeded"], 3);
    let mut pods = pods_labelled(api, "default", "app", "ranks");
    pods.sort_by_key(|p| {
        meta::annotation(p, "batch.kubernetes.io/job-completion-index").map(str::to_string)
    });
    assert_eq!(pods.len(), 3);
    for (i, pod) in pods.iter().enumerate() {
        let index = i.to_string();
        assert!(
            meta::name(pod).starts_with(&format!("ranks-{i}-")),
            "{}",
            meta::name(pod)
        );
        assert_eq!(
            meta::label(pod, "batch.kubernetes.io/job-completion-index"),
            Some(index.as_str())
        );
        assert_eq!(pod["spec"]["hostname"], json!(format!("ranks-{i}")));
        assert_eq!(
            pod["spec"]["containers"][0]["env"],
            json!([{"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}])
        );
    }
    cluster.shutdown().await;
}
