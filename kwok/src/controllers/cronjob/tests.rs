//! The CronJob controller driven pass by pass on a bare API (no other controllers) at chosen
//! moments; the differential session `cronjobs` compares a real minute's run with upstream.

use chrono::{DurationRound, TimeDelta};

use super::*;
use crate::controllers::replicaset::tests::events_of;

const NS: &str = "default";

fn bare_api() -> Api {
    Api::bootstrapped()
}

fn cronjob(api: &Api, name: &str, spec: Value) -> Stored {
    let mut spec = spec;
    spec["jobTemplate"] = json!({
        "metadata": {"labels": {"app": name}, "annotations": {"team": "ml"}},
        "spec": {"template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "probe", "image": "probe:1"}]}}}
    });
    let obj = json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": name}, "spec": spec});
    api.create(&registry::CRONJOBS, NS, obj, &WriteOptions::default())
        .expect("cronjob created")
}

fn created_at(cj: &Stored) -> DateTime<Utc> {
    parse_time(&cj.value["metadata"]["creationTimestamp"]).expect("creation time")
}

/// The last five-minute boundary at or before `t`.
fn five_minutes_floor(t: DateTime<Utc>) -> DateTime<Utc> {
    t.duration_trunc(TimeDelta::minutes(5)).expect("truncates")
}

fn jobs(api: &Api) -> Vec<Stored> {
    api.store().list(&registry::JOBS, Some(NS)).0
}

fn cronjob_now(api: &Api, name: &str) -> Value {
    api.get(&registry::CRONJOBS, NS, name)
        .expect("cronjob")
        .value
        .clone()
}

/// (type, reason, message) of the events about the cronjob, oldest first.
fn events(api: &Api, name: &str) -> Vec<(String, String, String)> {
    events_of(api, NS, "CronJob", name)
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
            (s("type"), s("reason"), s("message"))
        })
        .collect()
}

fn finish(api: &Api, job: &Stored, condition: &str, started: DateTime<Utc>) {
    let mut v = api
        .get(&registry::JOBS, NS, job.name())
        .expect("job")
        .value
        .clone();
    let at = meta::time(started + TimeDelta::seconds(30));
    v["status"] = json!({"startTime": meta::time(started),
        "conditions": [{"type": condition, "status": "True", "lastTransitionTime": at}]});
    if condition == "Complete" {
        v["status"]["completionTime"] = json!(at);
    }
    api.update_status(&registry::JOBS, v).expect("job status");
}

#[test]
fn only_the_latest_missed_time_runs_once_with_the_templates_metadata() {
    let api = bare_api();
    let cj = cronjob(&api, "probe", json!({"schedule": "*/5 * * * *"}));
    let now = created_at(&cj) + TimeDelta::minutes(11);
    let mut ctrl = CronJobController::default();
    let pass = ctrl.reconcile_at(&api, now);
    let due = five_minutes_floor(now);
    let created = jobs(&api);
    assert_eq!(created.len(), 1, "one job for the two missed times");
    let job = &created[0].value;
    let name = format!("probe-{}", due.timestamp() / 60);
    assert_eq!(meta::name(job), name);
    assert_eq!(meta::label(job, "app"), Some("probe"));
    assert_eq!(meta::annotation(job, "team"), Some("ml"));
    assert_eq!(
        meta::annotation(job, SCHEDULED_TIMESTAMP_ANNOTATION),
        Some(meta::time(due).as_str())
    );
    let owner = meta::controller_ref(job).expect("controlled");
    assert_eq!(
        (&owner["kind"], &owner["name"], &owner["blockOwnerDeletion"]),
        (&json!("CronJob"), &json!("probe"), &json!(true))
    );
    let status = &cronjob_now(&api, "probe")["status"];
    assert_eq!(status["active"][0]["name"], json!(name));
    assert_eq!(status["active"][0]["kind"], "Job");
    assert_eq!(status["lastScheduleTime"], json!(meta::time(due)));
    assert_eq!(
        events(&api, "probe"),
        [(
            "Normal".into(),
            "SuccessfulCreate".into(),
            format!("Created job {name}")
        )]
    );
    let next = due + TimeDelta::minutes(5) + NEXT_SCHEDULE_DELTA;
    let wake = pass.wake_after().expect("wakes for the next run");
    assert!(
        wake >= (next - now).to_std().expect("ahead")
            && wake < (next - now).to_std().expect("ahead") + Duration::from_millis(50),
        "wakes 100 ms after the next schedule time, not {wake:?}"
    );
    // The same moment again starts nothing more.
    let _ = ctrl.reconcile_at(&api, now);
    assert_eq!(jobs(&api).len(), 1);
}

#[test]
fn forbid_skips_a_run_while_one_is_active_and_replace_replaces_it() {
    let api = bare_api();
    let forbid = cronjob(
        &api,
        "forbid",
        json!({"schedule": "*/5 * * * *", "concurrencyPolicy": "Forbid"}),
    );
    let replace = cronjob(
        &api,
        "replace",
        json!({"schedule": "*/5 * * * *", "concurrencyPolicy": "Replace"}),
    );
    let first = created_at(&forbid).max(created_at(&replace)) + TimeDelta::minutes(5);
    let mut ctrl = CronJobController::default();
    let _ = ctrl.reconcile_at(&api, first);
    assert_eq!(jobs(&api).len(), 2);
    let later = first + TimeDelta::minutes(5);
    let _ = ctrl.reconcile_at(&api, later);
    let names: Vec<String> = jobs(&api).iter().map(|j| j.name().to_string()).collect();
    let replaced = format!("replace-{}", five_minutes_floor(later).timestamp() / 60);
    assert!(
        names.contains(&replaced),
        "Replace started the new run: {names:?}"
    );
    assert_eq!(
        names.iter().filter(|n| n.starts_with("replace-")).count(),
        1,
        "and deleted the old one"
    );
    assert_eq!(
        names.iter().filter(|n| n.starts_with("forbid-")).count(),
        1,
        "Forbid did not start one"
    );
    assert_eq!(
        events(&api, "forbid")
            .last()
            .map(|e| (e.0.as_str(), e.1.as_str(), e.2.as_str())),
        Some((
            "Normal",
            "JobAlreadyActive",
            "Not starting job because prior execution is running and concurrency policy is Forbid"
        ))
    );
    let replace_events: Vec<String> = events(&api, "replace").into_iter().map(|e| e.1).collect();
    assert_eq!(
        replace_events,
        ["SuccessfulCreate", "SuccessfulDelete", "SuccessfulCreate"]
    );
}

#[test]
fn finished_jobs_leave_active_and_the_oldest_go_past_the_history_limit() {
    let api = bare_api();
    let cj = cronjob(
        &api,
        "nightly",
        json!({"schedule": "*/5 * * * *", "successfulJobsHistoryLimit": 1}),
    );
    let mut ctrl = CronJobController::default();
    // A second past each boundary, so the last pass below stays within the third run's minutes.
    let mut now = five_minutes_floor(created_at(&cj)) + TimeDelta::seconds(1);
    for _ in 0..3 {
        now += TimeDelta::minutes(5);
        let _ = ctrl.reconcile_at(&api, now);
        let started = five_minutes_floor(now);
        let job = jobs(&api)
            .into_iter()
            .find(|j| j.name() == format!("nightly-{}", started.timestamp() / 60))
            .expect("the run's job");
        finish(&api, &job, "Complete", started);
    }
    let _ = ctrl.reconcile_at(&api, now + TimeDelta::seconds(40));
    let left: Vec<String> = jobs(&api).iter().map(|j| j.name().to_string()).collect();
    assert_eq!(
        left,
        [format!(
            "nightly-{}",
            five_minutes_floor(now).timestamp() / 60
        )],
        "only the newest successful job is kept"
    );
    let status = &cronjob_now(&api, "nightly")["status"];
    assert!(status["active"].is_null(), "no job is active: {status}");
    assert_eq!(
        status["lastSuccessfulTime"],
        json!(meta::time(five_minutes_floor(now) + TimeDelta::seconds(30)))
    );
    let seen: Vec<String> = events(&api, "nightly")
        .into_iter()
        .filter(|e| e.1 == "SawCompletedJob")
        .map(|e| e.2)
        .collect();
    assert_eq!(seen.len(), 3);
    assert!(seen[0].ends_with(", condition: Complete"), "{seen:?}");
}

#[test]
fn a_run_past_its_starting_deadline_is_missed_and_a_suspended_one_never_runs() {
    let api = bare_api();
    let late = cronjob(
        &api,
        "late",
        json!({"schedule": "*/5 * * * *", "startingDeadlineSeconds": 10}),
    );
    let _paused = cronjob(
        &api,
        "paused",
        json!({"schedule": "*/5 * * * *", "suspend": true}),
    );
    let due = five_minutes_floor(created_at(&late) + TimeDelta::minutes(5));
    let mut ctrl = CronJobController::default();
    let _ = ctrl.reconcile_at(&api, due + TimeDelta::seconds(20));
    assert!(jobs(&api).is_empty());
    // The deadline moves the earliest time considered to now - 10 s, after the due time.
    assert!(
        events(&api, "late").is_empty(),
        "{:?}",
        events(&api, "late")
    );
    let _ = ctrl.reconcile_at(&api, due + TimeDelta::seconds(5));
    assert_eq!(jobs(&api).len(), 1, "within the deadline the run starts");
    assert!(events(&api, "paused").is_empty());
}

#[test]
fn the_scheduled_timestamp_is_written_in_the_cronjobs_zone() {
    let api = bare_api();
    let cj = cronjob(
        &api,
        "seoul",
        json!({"schedule": "*/5 * * * *", "timeZone": "Asia/Seoul"}),
    );
    let now = created_at(&cj) + TimeDelta::minutes(5);
    let _ = CronJobController::default().reconcile_at(&api, now);
    let job = &jobs(&api)[0].value;
    let stamp = meta::annotation(job, SCHEDULED_TIMESTAMP_ANNOTATION).expect("stamped");
    assert!(stamp.ends_with("+09:00"), "{stamp}");
    let due = five_minutes_floor(now);
    assert_eq!(
        DateTime::parse_from_rfc3339(stamp)
            .expect("rfc3339")
            .with_timezone(&Utc),
        due
    );
}

#[test]
fn a_job_the_controller_did_not_create_is_reported_once() {
    let api = bare_api();
    let cj = cronjob(&api, "manual", json!({"schedule": "0 0 1 1 *"}));
    let job = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "manual-run", "annotations": {"cronjob.kubernetes.io/instantiate": "manual"},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "manual",
                "uid": meta::uid(&cj.value), "controller": true}]},
        "spec": cj.value["spec"]["jobTemplate"]["spec"]});
    api.create(&registry::JOBS, NS, job, &WriteOptions::default())
        .expect("job created");
    let mut ctrl = CronJobController::default();
    let now = created_at(&cj) + TimeDelta::seconds(1);
    let _ = ctrl.reconcile_at(&api, now);
    let _ = ctrl.reconcile_at(&api, now);
    assert_eq!(
        events(&api, "manual"),
        [(
            "Warning".into(),
            "UnexpectedJob".into(),
            "Saw a job that the controller did not create or forgot: manual-run".into()
        )]
    );
}
