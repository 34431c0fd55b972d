use chrono::Utc;
use serde_json::{json, Value};

use super::*;
use crate::quantity::list_value;

fn quota(hard: Value, used: Value) -> Value {
    json!({"metadata": {"name": "mem-cpu-demo", "namespace": "q", "resourceVersion": "7"},
        "spec": {"hard": hard}, "status": {"hard": hard, "used": used}})
}

fn pod(containers: Value) -> Value {
    json!({"metadata": {"name": "p", "namespace": "q"}, "spec": {"containers": containers}})
}

fn refusal(check: Check) -> String {
    match check {
        Check::Refuse(why) => why,
        Check::Charge(_) => panic!("admitted"),
    }
}

#[test]
fn an_exceeding_pod_is_refused_with_the_exceeded_resources_only() {
    // The example of the "Configure Memory and CPU Quotas for a Namespace" task.
    let q = quota(
        json!({"requests.cpu": "1", "requests.memory": "1Gi", "limits.cpu": "2", "limits.memory": "2Gi"}),
        json!({"requests.cpu": "400m", "requests.memory": "600Mi", "limits.cpu": "800m", "limits.memory": "800Mi"}),
    );
    let p = pod(json!([{"name": "c", "resources": {
        "requests": {"cpu": "100m", "memory": "700Mi"},
        "limits": {"cpu": "800m", "memory": "1Gi"}}}]));
    assert_eq!(
        refusal(check_request(&[q], &Evaluator::Pods, &p, None, Utc::now())),
        "exceeded quota: mem-cpu-demo, requested: requests.memory=700Mi, used: requests.memory=600Mi, limited: requests.memory=1Gi"
    );
}

#[test]
fn an_admitted_pod_raises_used_keeping_formats() {
    let q = quota(
        json!({"pods": "4", "requests.memory": "1Gi", "requests.nvidia.com/gpu": "4"}),
        json!({"pods": "0", "requests.memory": "0", "requests.nvidia.com/gpu": "0"}),
    );
    let p = pod(json!([{"name": "c", "resources": {
        "requests": {"memory": "64Mi", "nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}}]));
    let Check::Charge(charges) = check_request(&[q], &Evaluator::Pods, &p, None, Utc::now()) else {
        panic!("refused")
    };
    assert_eq!(
        list_value(&charges[0].1),
        json!({"pods": "1", "requests.memory": "64Mi", "requests.nvidia.com/gpu": "1"})
    );
}

#[test]
fn pods_must_name_the_cpu_and_memory_a_quota_tracks() {
    let q = quota(
        json!({"limits.cpu": "2", "limits.memory": "2Gi", "requests.cpu": "1", "requests.memory": "1Gi"}),
        json!({"limits.cpu": "0", "limits.memory": "0", "requests.cpu": "0", "requests.memory": "0"}),
    );
    let p = pod(json!([{"name": "nginx"}]));
    assert_eq!(
        refusal(check_request(&[q], &Evaluator::Pods, &p, None, Utc::now())),
        "failed quota: mem-cpu-demo: must specify limits.cpu for: nginx; limits.memory for: nginx; requests.cpu for: nginx; requests.memory for: nginx"
    );
}

#[test]
fn a_quota_without_usage_for_a_tracked_resource_refuses() {
    let q = quota(
        json!({"pods": "2", "count/pods": "2"}),
        json!({"pods": "0"}),
    );
    let p = pod(json!([{"name": "c"}]));
    assert_eq!(
        refusal(check_request(&[q], &Evaluator::Pods, &p, None, Utc::now())),
        "status unknown for quota: mem-cpu-demo, resources: count/pods,pods"
    );
}

#[test]
fn a_quota_whose_status_is_not_filled_in_yet_is_ignored() {
    let mut q = quota(json!({"pods": "0"}), json!({}));
    q["status"] = json!({});
    let p = pod(json!([{"name": "c"}]));
    assert!(matches!(
        check_request(&[q], &Evaluator::Pods, &p, None, Utc::now()),
        Check::Charge(c) if c.is_empty()
    ));
}

#[test]
fn terminal_pods_keep_only_their_object_count() {
    let mut p = pod(json!([{"name": "c", "resources": {"requests": {"cpu": "1"}}}]));
    p["status"] = json!({"phase": "Succeeded"});
    assert_eq!(
        list_value(&Evaluator::Pods.usage(&p, Utc::now())),
        json!({"count/pods": "1"})
    );
}

#[test]
fn a_service_update_is_charged_the_difference() {
    let q = quota(
        json!({"services.nodeports": "1"}),
        json!({"services.nodeports": "1"}),
    );
    let old = json!({"metadata": {"name": "s", "resourceVersion": "3"},
        "spec": {"type": "ClusterIP", "ports": [{"port": 80}]}});
    let mut new = old.clone();
    new["spec"]["type"] = json!("NodePort");
    assert_eq!(
        refusal(check_request(&[q], &Evaluator::Services, &new, Some(&old), Utc::now())),
        "exceeded quota: mem-cpu-demo, requested: services.nodeports=1, used: services.nodeports=1, limited: services.nodeports=1"
    );
}
