//! Decode behaviour against the apiserver's texts (docs/kubernetes-behaviors.md 5.3, apiserver handlers,
//! encoding/json and sigs.k8s.io/json).

use serde_json::json;

use crate::decode::*;
use crate::registry::{
    CONFIGMAPS, DAEMONSETS, DEPLOYMENTS, PODDISRUPTIONBUDGETS, PODS, SECRETS, SERVICES,
};
use crate::resource::ResourceDef;

fn ds_body(spec_extra: &str) -> String {
    format!(
        r#"{{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{{"name":"x"}},
            "spec":{{"selector":{{"matchLabels":{{"app":"x"}}}},{spec_extra}
            "template":{{"metadata":{{"labels":{{"app":"x"}}}},
              "spec":{{"containers":[{{"name":"c","image":"busybox"}}]}}}}}}}}"#
    )
}

/// The code and message of a body the decoder must refuse.
fn refused(res: &'static ResourceDef, body: &[u8], validation: FieldValidation) -> (u16, String) {
    match decode_body(res, body, validation) {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => (e.code, e.message),
    }
}

#[test]
fn yaml_true_in_node_selector_is_a_go_type_error() {
    let body = r#"{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"x"},
      "spec":{"selector":{"matchLabels":{"app":"x"}},
        "template":{"metadata":{"labels":{"app":"x"}},
          "spec":{"nodeSelector":{"gpu":true},"containers":[{"name":"c","image":"busybox"}]}}}}"#;
    let (code, msg) = refused(&DAEMONSETS, body.as_bytes(), FieldValidation::Strict);
    assert_eq!(code, 400);
    assert_eq!(
        msg,
        "DaemonSet in version \"v1\" cannot be handled as a DaemonSet: json: cannot unmarshal bool into Go struct field PodSpec.spec.template.spec.nodeSelector of type string"
    );
    // A type error fails whatever the field validation.
    let (code, _) = refused(&DAEMONSETS, body.as_bytes(), FieldValidation::Ignore);
    assert_eq!(code, 400);
}

#[test]
fn unknown_field_strict_warn_ignore() {
    let body = ds_body(r#""foo":1,"#);
    let (code, msg) = refused(&DAEMONSETS, body.as_bytes(), FieldValidation::Strict);
    assert_eq!(code, 400);
    assert_eq!(
        msg,
        "DaemonSet in version \"v1\" cannot be handled as a DaemonSet: strict decoding error: unknown field \"spec.foo\""
    );

    let (obj, warnings) = decode_body(&DAEMONSETS, body.as_bytes(), FieldValidation::Warn).unwrap();
    assert_eq!(warnings, vec!["unknown field \"spec.foo\"".to_string()]);
    assert!(obj["spec"].get("foo").is_none());
    assert_eq!(
        obj["spec"]["selector"],
        json!({"matchLabels": {"app": "x"}})
    );

    let (obj, warnings) =
        decode_body(&DAEMONSETS, body.as_bytes(), FieldValidation::Ignore).unwrap();
    assert!(warnings.is_empty());
    assert!(obj["spec"].get("foo").is_none());
}

#[test]
fn unknown_fields_in_lists_and_duplicates_are_joined() {
    let body = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","name":"q"},
      "spec":{"containers":[{"name":"c","image":"i"},{"name":"d","image":"i","foo":"x"}],"bar":true}}"#;
    let (_, msg) = refused(&PODS, body.as_bytes(), FieldValidation::Strict);
    assert_eq!(
        msg,
        "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: duplicate field \"metadata.name\", unknown field \"spec.containers[1].foo\", unknown field \"spec.bar\""
    );
}

#[test]
fn go_type_names_in_type_errors() {
    let cases = [
        (
            r#"{"kind":"Pod","apiVersion":"v1","spec":{"containers":{}}}"#,
            "json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container",
        ),
        (
            r#"{"kind":"Pod","apiVersion":"v1","spec":{"restartPolicy":1}}"#,
            "json: cannot unmarshal number into Go struct field PodSpec.spec.restartPolicy of type v1.RestartPolicy",
        ),
        (
            r#"{"kind":"Pod","apiVersion":"v1","spec":{"containers":[{"name":5}]}}"#,
            "json: cannot unmarshal number into Go struct field Container.spec.containers.name of type string",
        ),
        (
            r#"{"kind":"Pod","apiVersion":"v1","spec":"x"}"#,
            "json: cannot unmarshal string into Go struct field Pod.spec of type v1.PodSpec",
        ),
        (
            r#"{"kind":"Pod","apiVersion":"v1","metadata":{"labels":[]}}"#,
            "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string",
        ),
        (
            r#"{"kind":"Pod","apiVersion":"v1","spec":{"terminationGracePeriodSeconds":"30"}}"#,
            "json: cannot unmarshal string into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64",
        ),
    ];
    for (body, want) in cases {
        let (_, msg) = refused(&PODS, body.as_bytes(), FieldValidation::Strict);
        assert_eq!(
            msg,
            format!("Pod in version \"v1\" cannot be handled as a Pod: {want}"),
            "{body}"
        );
    }
    let body = r#"{"kind":"Deployment","apiVersion":"apps/v1","spec":{"replicas":1.5}}"#;
    let (_, msg) = refused(&DEPLOYMENTS, body.as_bytes(), FieldValidation::Strict);
    assert_eq!(
        msg,
        "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32"
    );
}

#[test]
fn quantities_are_checked_and_canonical() {
    let body = r#"{"kind":"Pod","apiVersion":"v1","spec":{"containers":[{"name":"c","image":"i",
        "resources":{"requests":{"cpu":"0.5","memory":"1024Mi"},"limits":{"cpu":1}}}]}}"#;
    let (obj, _) = decode_body(&PODS, body.as_bytes(), FieldValidation::Strict).unwrap();
    let res = &obj["spec"]["containers"][0]["resources"];
    assert_eq!(res["requests"], json!({"cpu": "500m", "memory": "1Gi"}));
    assert_eq!(res["limits"], json!({"cpu": "1"}));

    let bad = r#"{"kind":"Pod","apiVersion":"v1","spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"lots"}}}]}}"#;
    let (_, msg) = refused(&PODS, bad.as_bytes(), FieldValidation::Strict);
    assert_eq!(
        msg,
        "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    );
}

#[test]
fn int_or_string_both_ways() {
    let ok = r#"{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"p"},"spec":{"maxUnavailable":"25%"}}"#;
    let (obj, _) = decode_body(
        &PODDISRUPTIONBUDGETS,
        ok.as_bytes(),
        FieldValidation::Strict,
    )
    .unwrap();
    assert_eq!(obj["spec"]["maxUnavailable"], json!("25%"));
    let ok = r#"{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","spec":{"minAvailable":2}}"#;
    let (obj, _) = decode_body(
        &PODDISRUPTIONBUDGETS,
        ok.as_bytes(),
        FieldValidation::Strict,
    )
    .unwrap();
    assert_eq!(obj["spec"]["minAvailable"], json!(2));
    let bad =
        r#"{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","spec":{"maxUnavailable":true}}"#;
    let (_, msg) = refused(
        &PODDISRUPTIONBUDGETS,
        bad.as_bytes(),
        FieldValidation::Strict,
    );
    assert_eq!(
        msg,
        "PodDisruptionBudget in version \"v1\" cannot be handled as a PodDisruptionBudget: json: cannot unmarshal bool into Go struct field PodDisruptionBudgetSpec.spec.maxUnavailable of type int32"
    );
}

#[test]
fn malformed_json_and_missing_type_meta() {
    let (code, msg) = refused(&PODS, b"x", FieldValidation::Strict);
    assert_eq!(code, 400);
    assert_eq!(
        msg,
        "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of value (78)"
    );
    let (_, msg) = refused(&PODS, br#"{"kind": 5}"#, FieldValidation::Strict);
    assert_eq!(
        msg,
        "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({\"kind\": 5})"
    );
    // kind and apiVersion default to the URL's type.
    let (obj, _) = decode_body(
        &PODS,
        br#"{"metadata":{"name":"p"}}"#,
        FieldValidation::Strict,
    )
    .unwrap();
    assert_eq!(obj["apiVersion"], json!("v1"));
    assert_eq!(obj["kind"], json!("Pod"));
    assert_eq!(obj["metadata"]["name"], json!("p"));
}

#[test]
fn wrong_type_for_the_url() {
    let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}"#;
    let (_, msg) = refused(&DEPLOYMENTS, pod.as_bytes(), FieldValidation::Strict);
    assert_eq!(
        msg,
        "Pod in version \"v1\" cannot be handled as a Deployment: converting (v1.Pod) to (apps.Deployment): unknown conversion"
    );
    let old = r#"{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"d"}}"#;
    let (code, msg) = refused(&DEPLOYMENTS, old.as_bytes(), FieldValidation::Strict);
    assert_eq!(code, 400);
    assert_eq!(
        msg,
        "the API version in the data (apps/v1beta2) does not match the expected API version (apps/v1)"
    );
    let unknown = r#"{"apiVersion":"apps/v1","kind":"Gadget"}"#;
    let (_, msg) = refused(&DEPLOYMENTS, unknown.as_bytes(), FieldValidation::Strict);
    assert_eq!(
        msg,
        "Gadget in version \"v1\" cannot be handled as a Deployment: no kind \"Gadget\" is registered for version \"apps/v1\" in scheme \"k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30\""
    );
}

#[test]
fn secret_data_is_base64_checked() {
    let bad = r#"{"apiVersion":"v1","kind":"Secret","data":{"k":"not base64"}}"#;
    let (_, msg) = refused(&SECRETS, bad.as_bytes(), FieldValidation::Strict);
    assert_eq!(msg, "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 3");
    let ok =
        r#"{"apiVersion":"v1","kind":"Secret","data":{"k":"aGVsbG8="},"stringData":{"a":"b"}}"#;
    let (obj, _) = decode_body(&SECRETS, ok.as_bytes(), FieldValidation::Strict).unwrap();
    assert_eq!(obj["data"], json!({"k": "aGVsbG8="}));
}

#[test]
fn eviction_subresource_takes_v1_and_v1beta1() {
    let sub = PODS.subresource("eviction").unwrap();
    for v in ["policy/v1", "policy/v1beta1"] {
        let body = format!(
            r#"{{"apiVersion":"{v}","kind":"Eviction","metadata":{{"name":"p"}},"deleteOptions":{{"gracePeriodSeconds":0}}}}"#
        );
        let (obj, _) = decode_as(
            sub.body_type(&PODS),
            body.as_bytes(),
            FieldValidation::Strict,
        )
        .unwrap();
        assert_eq!(obj["deleteOptions"]["gracePeriodSeconds"], json!(0));
    }
}

#[test]
fn field_validation_parameter() {
    assert_eq!(
        FieldValidation::parse(None, "CreateOptions").unwrap(),
        FieldValidation::Warn
    );
    assert_eq!(
        FieldValidation::parse(Some("Strict"), "CreateOptions").unwrap(),
        FieldValidation::Strict
    );
    let e = FieldValidation::parse(Some("strict"), "CreateOptions").unwrap_err();
    assert_eq!(e.code, 422);
    assert_eq!(
        e.message,
        "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""
    );
}

#[test]
fn patched_objects_fail_on_the_patch_field() {
    let patched = br#"{"apiVersion":"apps/v1","kind":"DaemonSet","spec":{"foo":1}}"#;
    let e = decode_patched(
        &DAEMONSETS,
        patched,
        "map[spec:map[foo:1]]",
        FieldValidation::Strict,
        true,
    )
    .unwrap_err();
    assert_eq!(e.code, 422);
    assert_eq!(
        e.details.as_ref().unwrap()["causes"][0],
        json!({"reason": "FieldValueInvalid", "field": "patch",
               "message": "Invalid value: \"map[spec:map[foo:1]]\": strict decoding error: unknown field \"spec.foo\""})
    );
}

/// Why the unstructured converter refuses a strategic merge patch's result: the texts of
/// apimachinery v0.32.13's `FromUnstructuredWithValidation` for each of these maps.
#[test]
fn a_strategic_patch_result_is_refused_as_the_unstructured_converter_words_it() {
    // One case a line: the kind, the patched object, the converter's words.
    let cases = r#"
        ConfigMap   {"data":{"b":2}}                                   cannot convert int64 to string
        ConfigMap   {"data":{"b":2.5}}                                 unrecognized type: string
        ConfigMap   {"data":{"b":true}}                                unrecognized type: string
        ConfigMap   {"data":"x"}                                       cannot restore map from string
        ConfigMap   {"data":["x"]}                                     cannot restore map from slice
        ConfigMap   {"metadata":"x"}                                   cannot restore struct from: string
        Deployment  {"spec":{"replicas":"3"}}                          unrecognized type: int32
        Deployment  {"spec":{"replicas":2.5}}                          cannot convert float64 to int32
        Deployment  {"spec":{"paused":"yes"}}                          unrecognized type: bool
        Deployment  {"spec":{"template":{"spec":{"containers":{"a":1}}}}} cannot restore slice from map
        Pod         {"status":{"phase":5}}                             cannot convert int64 to v1.PodPhase
        Pod         {"metadata":{"creationTimestamp":5}}               json: cannot unmarshal number into Go value of type string
        Service     {"spec":{"ports":[{"port":80,"targetPort":true}]}} json: cannot unmarshal bool into Go value of type int32
        Secret      {"data":{"a":5}}                                   cannot restore slice from int64
        Secret      {"data":{"a":"%%%"}}                               error decoding from json: illegal base64 data at input byte 0
    "#;
    let resource = |kind: &str| -> &'static ResourceDef {
        match kind {
            "ConfigMap" => &CONFIGMAPS,
            "Deployment" => &DEPLOYMENTS,
            "Pod" => &PODS,
            "Service" => &SERVICES,
            _ => &SECRETS,
        }
    };
    for line in cases.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (kind, rest) = line.split_once(' ').expect("a kind");
        let rest = rest.trim_start();
        let end = rest.find(' ').expect("an object");
        let (patched, why) = (&rest[..end], rest[end..].trim());
        let e = decode_patched(
            resource(kind),
            patched.as_bytes(),
            "p",
            FieldValidation::Strict,
            true,
        )
        .expect_err(patched);
        let cause = &e.details.as_ref().expect("causes")["causes"][0]["message"];
        assert_eq!(
            cause,
            &json!(format!("Invalid value: \"p\": {why}")),
            "{patched}"
        );
    }
}

/// What the converter takes that encoding/json refuses: a whole float for an integer, and an
/// int64 wrapped to the field's width as Go's conversion wraps it.
#[test]
fn the_unstructured_converter_fills_integers_as_go_converts() {
    let replicas = |patched: &str| {
        let (obj, _) = decode_patched(
            &DEPLOYMENTS,
            patched.as_bytes(),
            "p",
            FieldValidation::Strict,
            true,
        )
        .expect(patched);
        obj["spec"]["replicas"].clone()
    };
    assert_eq!(replicas(r#"{"spec":{"replicas":2.0}}"#), json!(2));
    assert_eq!(
        replicas(r#"{"spec":{"replicas":3000000000}}"#),
        json!(-1294967296)
    );
}

#[test]
fn times_are_normalized_and_checked() {
    let body = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"2024-01-02T03:04:05+01:00"}}"#;
    let (obj, _) = decode_body(&PODS, body.as_bytes(), FieldValidation::Strict).unwrap();
    assert_eq!(
        obj["metadata"]["creationTimestamp"],
        json!("2024-01-02T02:04:05Z")
    );
    let bad = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"today"}}"#;
    let (_, msg) = refused(&PODS, bad.as_bytes(), FieldValidation::Strict);
    assert_eq!(
        msg,
        "Pod in version \"v1\" cannot be handled as a Pod: parsing time \"today\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"today\" as \"2006\""
    );
}

#[test]
fn empty_optional_collections_and_nulls_are_dropped() {
    let body = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{},"annotations":null},
      "spec":{"containers":[{"name":"c","image":"i","args":[]}],"tolerations":[]}}"#;
    let (obj, _) = decode_body(&PODS, body.as_bytes(), FieldValidation::Strict).unwrap();
    assert_eq!(obj["metadata"], json!({"name": "p"}));
    assert_eq!(
        obj["spec"],
        json!({"containers": [{"name": "c", "image": "i"}]})
    );
}

#[test]
fn delete_options_body() {
    let v = decode_delete_options(
        br#"{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background","x":1}"#,
    )
    .unwrap();
    assert_eq!(v["propagationPolicy"], json!("Background"));
    let e = decode_delete_options(br#"{"gracePeriodSeconds":"soon"}"#).unwrap_err();
    assert_eq!(e.code, 500);
    assert_eq!(
        e.message,
        "json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64"
    );
}

#[test]
fn kubectl_generated_bodies_pass_the_whole_pipeline() {
    // `kubectl create deployment nginx --image=nginx --dry-run=client -o json`
    let body = r#"{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"nginx","namespace":"default","creationTimestamp":null,"labels":{"app":"nginx"}},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"nginx"}},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx","resources":{}}]}},"strategy":{}},"status":{}}"#;
    let (mut obj, warnings) =
        decode_body(&DEPLOYMENTS, body.as_bytes(), FieldValidation::Strict).unwrap();
    assert!(warnings.is_empty());
    assert!(obj["metadata"].get("creationTimestamp").is_none());
    crate::kinds::default(&DEPLOYMENTS, &mut obj);
    assert!(DEPLOYMENTS.strategy.validate(&obj).is_empty());
    assert_eq!(
        obj["spec"]["template"]["spec"]["containers"][0]["resources"],
        json!({})
    );

    let node = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"kwok-node-0","labels":{"type":"kwok"},"annotations":{"kwok.x-k8s.io/node":"fake"}},
      "spec":{"taints":[{"key":"kwok.x-k8s.io/node","value":"fake","effect":"NoSchedule"}]},
      "status":{"allocatable":{"cpu":"32","memory":"256Gi","pods":"110"},"capacity":{"cpu":"32","memory":"256Gi","pods":"110","nvidia.com/gpu":"8"},
        "nodeInfo":{"architecture":"amd64","kubeletVersion":"fake","operatingSystem":"linux"},"phase":"Running"}}"#;
    let (obj, _) = decode_body(
        &crate::registry::NODES,
        node.as_bytes(),
        FieldValidation::Strict,
    )
    .unwrap();
    assert!(crate::registry::NODES.strategy.validate(&obj).is_empty());
    assert_eq!(obj["status"]["capacity"]["nvidia.com/gpu"], json!("8"));

    let lease = r#"{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"n","namespace":"kube-node-lease"},"spec":{"holderIdentity":"n","leaseDurationSeconds":40,"renewTime":"2024-05-01T10:00:00.123456Z"}}"#;
    let (obj, _) = decode_body(
        &crate::registry::LEASES,
        lease.as_bytes(),
        FieldValidation::Strict,
    )
    .unwrap();
    assert_eq!(
        obj["spec"]["renewTime"],
        json!("2024-05-01T10:00:00.123456Z")
    );

    let rev = r#"{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"r","namespace":"default"},"data":{"spec":{"template":{"x":1}}},"revision":1}"#;
    let (obj, _) = decode_body(
        &crate::registry::CONTROLLERREVISIONS,
        rev.as_bytes(),
        FieldValidation::Strict,
    )
    .unwrap();
    assert_eq!(obj["data"], json!({"spec": {"template": {"x": 1}}}));

    let event = r#"{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e","namespace":"default"},"eventTime":"2024-05-01T10:00:00.000000Z","reportingController":"default-scheduler","reportingInstance":"s","action":"Scheduling","reason":"Scheduled","note":"ok","type":"Normal","regarding":{"kind":"Pod","name":"p","namespace":"default"}}"#;
    let (obj, _) = decode_body(
        &crate::registry::EVENTS_V1,
        event.as_bytes(),
        FieldValidation::Strict,
    )
    .unwrap();
    assert!(crate::registry::EVENTS_V1
        .strategy
        .validate(&obj)
        .is_empty());
}

#[test]
fn yaml_bodies() {
    let body = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  nodeSelector:\n    gpu: true\n  containers: []\n";
    let msg = decode_yaml_body(&PODS, body, FieldValidation::Strict)
        .expect_err("a bool label value is refused")
        .message;
    assert_eq!(
        msg,
        "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field PodSpec.spec.nodeSelector of type string"
    );
    let ok = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    1: one\n";
    let (obj, _) = decode_yaml_body(&PODS, ok, FieldValidation::Strict).unwrap();
    assert_eq!(obj["metadata"]["labels"], json!({"1": "one"}));
    assert_eq!(
        yaml_to_json(b"a: [1, x]\n---\nb: 2\n").unwrap(),
        br#"{"a":[1,"x"]}"#.to_vec()
    );
}
