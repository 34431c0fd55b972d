//! Field ownership on the write paths. The expected entries, sets and messages are what
//! kube-apiserver v1.32.13 answers to the same requests in the `ownership` and `kinds`
//! differential sessions.

use serde_json::{json, Value};

use super::*;

fn endpoint<'a>(name: &'a str, api_version: &str, kind: &'a str, sub: &'a str) -> Endpoint<'a> {
    let reset: &[&str] = match sub {
        "" => &["status"],
        "status" => &["spec"],
        _ => &[],
    };
    Endpoint {
        kind: Kind::BuiltIn {
            defs: &crate::definitions::definitions().schemas,
            name,
        },
        api_version: api_version.into(),
        kind_name: kind,
        subresource: sub,
        reset: reset_fields(reset),
        now: "2026-12-06T12:00:00Z".into(),
    }
}

fn config_maps() -> Endpoint<'static> {
    endpoint("io.k8s.api.core.v1.ConfigMap", "v1", "ConfigMap", "")
}

fn config_map(data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "shared", "namespace": "own", "uid": "u1"}, "data": data})
}

/// The entries without their times.
fn entries(obj: &Value) -> Value {
    let mut entries = obj["metadata"]["managedFields"].clone();
    for e in entries.as_array_mut().into_iter().flatten() {
        e.as_object_mut().map(|m| m.remove("time"));
    }
    entries
}

#[test]
fn a_create_owns_what_it_set_and_defaulting_filled_in() {
    let deployments = endpoint("io.k8s.api.apps.v1.Deployment", "apps/v1", "Deployment", "");
    // `kubectl create deployment web --image=nginx`, decoded and defaulted.
    let new = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "own", "creationTimestamp": null, "labels": {"app": "web"}},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"creationTimestamp": null, "labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx", "resources": {},
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}],
                    "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
                    "dnsPolicy": "ClusterFirst", "securityContext": {}, "schedulerName": "default-scheduler"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
        "status": {}});
    let created = deployments.update(None, new, "kubectl-create");
    assert_eq!(
        entries(&created),
        json!([{"manager": "kubectl-create", "operation": "Update", "apiVersion": "apps/v1",
            "fieldsType": "FieldsV1", "fieldsV1": {
                "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                "f:spec": {
                    "f:progressDeadlineSeconds": {}, "f:replicas": {}, "f:revisionHistoryLimit": {},
                    "f:selector": {},
                    "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}}, "f:type": {}},
                    "f:template": {
                        "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                        "f:spec": {
                            "f:containers": {"k:{\"name\":\"nginx\"}": {".": {}, "f:image": {},
                                "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {},
                                "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {}}},
                            "f:dnsPolicy": {}, "f:restartPolicy": {}, "f:schedulerName": {},
                            "f:securityContext": {}, "f:terminationGracePeriodSeconds": {}}}}}}])
    );
}

#[test]
fn an_update_takes_what_it_changed_from_the_other_managers() {
    let cms = config_maps();
    let created = cms.update(
        None,
        config_map(json!({"a": "1", "b": "2"})),
        "kubectl-create",
    );
    let mut patched = created.clone();
    patched["data"] = json!({"b": "3", "c": "4"});
    let patched = cms.update(Some(&created), patched, "kubectl-patch");
    let fields: Vec<(String, Value)> = patched["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["manager"].as_str().unwrap().to_owned(),
                e["fieldsV1"].clone(),
            )
        })
        .collect();
    // `a` is gone from everyone; `b` moved to the patcher.
    assert_eq!(
        fields,
        [
            ("kubectl-create".to_owned(), json!({"f:data": {}})),
            (
                "kubectl-patch".to_owned(),
                json!({"f:data": {"f:b": {}, "f:c": {}}})
            ),
        ]
    );
    // A write that changes nothing records nothing, and an object nobody owns stays untracked.
    let again = cms.update(Some(&patched), patched.clone(), "kubectl-patch");
    assert_eq!(entries(&again), entries(&patched));
    let untracked = config_map(json!({"a": "1"}));
    let mut changed = untracked.clone();
    changed["data"]["a"] = json!("2");
    let out = cms.update(Some(&untracked), changed, "kubectl-edit");
    assert!(out["metadata"].get("managedFields").is_none());
}

#[test]
fn appliers_conflict_until_forced_and_prune_only_what_nobody_else_owns() {
    let cms = config_maps();
    let alice = cms
        .apply(
            None,
            &config_map(json!({"x": "1", "y": "1", "z": "1"})),
            "alice",
            false,
        )
        .unwrap();
    let bob_config = config_map(json!({"x": "2", "y": "2", "w": "1"}));
    let err = cms
        .apply(Some(&alice), &bob_config, "bob", false)
        .unwrap_err();
    assert_eq!((err.code, err.reason.as_str()), (409, "Conflict"));
    assert_eq!(
        err.message,
        "Apply failed with 2 conflicts: conflicts with \"alice\":\n- .data.x\n- .data.y"
    );
    assert_eq!(
        err.details.unwrap()["causes"][0],
        json!({"reason": "FieldManagerConflict", "message": "conflict with \"alice\"", "field": ".data.x"})
    );
    // The same value is no conflict: both own it.
    let shared = cms
        .apply(
            Some(&alice),
            &config_map(json!({"x": "1", "w": "1"})),
            "bob",
            false,
        )
        .unwrap();
    let forced = cms
        .apply(
            Some(&shared),
            &config_map(json!({"x": "2", "y": "1", "w": "1"})),
            "bob",
            true,
        )
        .unwrap();
    assert_eq!(
        forced["data"],
        json!({"x": "2", "y": "1", "z": "1", "w": "1"})
    );
    // Alice stops applying x and y: y is bob's too and stays, x is bob's alone now.
    let alice_less = cms
        .apply(
            Some(&forced),
            &config_map(json!({"z": "1"})),
            "alice",
            false,
        )
        .unwrap();
    assert_eq!(
        alice_less["data"],
        json!({"x": "2", "y": "1", "z": "1", "w": "1"})
    );
    // Bob stops applying y and w: w goes, y goes (nobody else owns it any more).
    let bob_less = cms
        .apply(
            Some(&alice_less),
            &config_map(json!({"x": "2"})),
            "bob",
            false,
        )
        .unwrap();
    assert_eq!(bob_less["data"], json!({"x": "2", "z": "1"}));
    assert_eq!(
        entries(&bob_less),
        json!([
            {"manager": "alice", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:data": {"f:z": {}}}},
            {"manager": "bob", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:data": {"f:x": {}}}},
        ])
    );
}

#[test]
fn kubectl_takes_over_the_fields_its_client_side_apply_last_applied() {
    let cms = config_maps();
    let last = r#"{"apiVersion":"v1","data":{"level":"3","mode":"fast"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"csa","namespace":"own"}}"#;
    let mut csa = config_map(json!({"mode": "fast", "level": "3"}));
    csa["metadata"]["annotations"] = json!({LAST_APPLIED: format!("{last}\n")});
    let csa = cms.update(None, csa, "kubectl-client-side-apply");
    let mut config = config_map(json!({"mode": "slow", "level": "3"}));
    config["metadata"].as_object_mut().unwrap().remove("uid");
    // Another manager conflicts; kubectl's own server-side apply does not.
    assert!(cms.apply(Some(&csa), &config, "other", false).is_err());
    let applied = cms.apply(Some(&csa), &config, "kubectl", false).unwrap();
    assert_eq!(applied["data"]["mode"], "slow");
    let annotation = applied["metadata"]["annotations"][LAST_APPLIED]
        .as_str()
        .unwrap();
    assert!(annotation.ends_with('\n'), "{annotation:?}");
    assert!(annotation.contains(r#""mode":"slow""#), "{annotation}");
}

#[test]
fn a_scale_writer_owns_the_replicas_without_a_time() {
    let scale = endpoint(
        "io.k8s.api.apps.v1.Deployment",
        "apps/v1",
        "Deployment",
        "scale",
    );
    let live = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "uid": "u1", "managedFields": [{"manager": "kubectl-create",
            "operation": "Update", "apiVersion": "apps/v1", "time": "2026-12-01T00:00:00Z",
            "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}, "f:paused": {}}}}]},
        "spec": {"replicas": 2, "paused": false}});
    let mut new = live.clone();
    new["spec"]["replicas"] = json!(3);
    let scaled = scale.update(Some(&live), new, "kubectl");
    assert_eq!(
        scaled["metadata"]["managedFields"],
        json!([
            {"manager": "kubectl", "operation": "Update", "apiVersion": "apps/v1",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"},
            {"manager": "kubectl-create", "operation": "Update", "apiVersion": "apps/v1",
                "time": "2026-12-01T00:00:00Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:paused": {}}}},
        ])
    );
}

#[test]
fn past_ten_update_managers_the_oldest_merge_into_ancient_changes() {
    let cms = config_maps();
    let mut obj = cms.update(None, config_map(json!({"k0": "0"})), "m0");
    for i in 1..=11 {
        let mut next = obj.clone();
        next["data"][format!("k{i}")] = json!(i.to_string());
        obj = cms.update(Some(&obj), next, &format!("m{i:02}"));
    }
    let managers: Vec<&str> = obj["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["manager"].as_str().unwrap())
        .collect();
    assert_eq!(managers.len(), 10);
    assert!(managers.contains(&"ancient-changes"), "{managers:?}");
    assert!(
        !managers.contains(&"m0") && !managers.contains(&"m01"),
        "{managers:?}"
    );
}

#[test]
fn the_manager_is_the_field_manager_else_the_user_agent_name() {
    assert_eq!(
        manager_or_user_agent(Some("editor"), "kubectl/v1.32.1"),
        "editor"
    );
    assert_eq!(
        manager_or_user_agent(None, "kubectl/v1.32.1 (linux/amd64) kubernetes/abc"),
        "kubectl"
    );
    assert_eq!(
        manager_or_user_agent(Some(""), "Python\u{7}Client/1"),
        "PythonClient"
    );
    assert_eq!(manager_or_user_agent(None, &"x".repeat(200)).len(), 128);
}

#[test]
fn a_configuration_that_repeats_a_list_key_is_refused_as_upstream_types_it() {
    let pods = endpoint("io.k8s.api.core.v1.Pod", "v1", "Pod", "");
    let config = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "a"}, {"name": "c", "image": "b"}]}});
    let err = pods.apply(None, &config, "alice", false).unwrap_err();
    assert_eq!(err.code, 500);
    assert!(
        err.message.ends_with(
            "failed to create typed patch object (/p; /v1, Kind=Pod): .spec.containers: duplicate entries for key [name=\"c\"]"
        ),
        "{}",
        err.message
    );
    // A container without its name is keyed by the name's OpenAPI default (`""`), as
    // upstream keys it: that is for validation to refuse, not the merge.
    let keyless = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"image": "a"}]}});
    let applied = pods.apply(None, &keyless, "alice", false).unwrap();
    assert!(
        applied["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:containers"]
            .get("k:{\"name\":\"\"}")
            .is_some()
    );
}

#[test]
fn a_write_that_only_moves_its_managers_times_stays_a_no_op() {
    let cms = config_maps();
    let stored = cms.update(None, config_map(json!({"a": "1"})), "kubectl-create");
    let mut again = stored.clone();
    again["metadata"]["managedFields"][0]["time"] = json!("2030-01-01T00:00:00Z");
    keep_times_of_a_no_op(&mut again, &stored);
    assert_eq!(again, stored);
    // A real change keeps its new times.
    let mut changed = again.clone();
    changed["data"]["a"] = json!("2");
    changed["metadata"]["managedFields"][0]["time"] = json!("2030-01-01T00:00:00Z");
    keep_times_of_a_no_op(&mut changed, &stored);
    assert_eq!(
        changed["metadata"]["managedFields"][0]["time"],
        "2030-01-01T00:00:00Z"
    );
}

#[test]
fn ownership_of_a_field_is_read_from_any_manager() {
    let obj = json!({"metadata": {"managedFields": [{"manager": "m", "operation": "Update",
        "apiVersion": "apps/v1", "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:replicas": {}}}}]}});
    assert!(anyone_owns(&obj, &["spec", "replicas"]));
    assert!(!anyone_owns(&obj, &["spec", "paused"]));
    assert!(!anyone_owns(
        &json!({"metadata": {}}),
        &["spec", "replicas"]
    ));
}

#[test]
fn a_configuration_with_an_undeclared_field_is_refused() {
    let deployments = endpoint("io.k8s.api.apps.v1.Deployment", "apps/v1", "Deployment", "");
    // Two objects, each with one undeclared field (upstream stops at an object's first, in
    // Go's map order: two in one object would name either).
    let config = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "d", "labelz": {}},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "imag": "x"}]}}}});
    let err = deployments
        .apply(None, &config, "alice", false)
        .unwrap_err();
    assert_eq!(err.code, 500);
    assert_eq!(
        err.message,
        "failed to create typed patch object (/d; apps/v1, Kind=Deployment): errors:\n  .metadata.labelz: field not declared in schema\n  .spec.template.spec.containers[name=\"c\"].imag: field not declared in schema"
    );
    // Labels are a map of strings, and a custom resource's preserved fields are free.
    let labelled = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "d", "labels": {"any.key/x": "y"}}});
    assert!(deployments.apply(None, &labelled, "alice", false).is_ok());
}
