//! Expected values come from upstream: `labels/selector_test.go` and `fields/selector_test.go`
//! (apimachinery), the parser's `fmt.Errorf` texts in `labels/selector.go`, and the field label
//! conversion functions in `k/k pkg/apis/core/v1/conversion.go`.

use serde_json::{json, Map, Value};

use crate::registry::{
    DAEMONSETS, EVENTS, EVENTS_V1, NAMESPACES, NODES, PODS, REPLICASETS, SECRETS,
};
use crate::selectors::*;

fn labels(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn sel(s: &str) -> LabelSelector {
    match LabelSelector::parse(s) {
        Ok(sel) => sel,
        Err(e) => panic!("{s:?} should parse: {e}"),
    }
}

fn parse_err(s: &str) -> String {
    match LabelSelector::parse(s) {
        Ok(sel) => panic!("{s:?} should fail, parsed as {sel}"),
        Err(e) => e,
    }
}

#[test]
fn label_operators_match_like_upstream() {
    let l = labels(json!({"app": "web", "tier": "front", "n": "5"}));
    let cases: &[(&str, bool)] = &[
        ("", true),
        ("app=web", true),
        ("app==web", true),
        ("app=db", false),
        ("app!=db", true),
        ("app!=web", false),
        ("missing!=x", true),
        ("app in (web,db)", true),
        ("app in (db)", false),
        ("missing in (web)", false),
        ("app notin (db)", true),
        ("app notin (web)", false),
        ("missing notin (web)", true),
        ("app", true),
        ("missing", false),
        ("!missing", true),
        ("!app", false),
        ("n>4", true),
        ("n>5", false),
        ("n<6", true),
        ("app>1", false),
        ("app=web,tier=front", true),
        ("app=web,tier=back", false),
        ("  app  =  web ,\ttier in ( front , back )  ", true),
    ];
    for (s, want) in cases {
        assert_eq!(sel(s).matches(Some(&l)), *want, "selector {s:?}");
    }
    assert!(!sel("app").matches(None::<&Map<String, Value>>));
    assert!(sel("!app").matches(None::<&Map<String, Value>>));
    assert!(sel("").matches(None::<&Map<String, Value>>));
}

#[test]
fn label_selector_string_form_is_canonical() {
    // selector_test.go TestSelectorParse: sorted by key, values sorted, spacing normalised.
    assert_eq!(sel("x=a,y=b,z=c").to_string(), "x=a,y=b,z=c");
    assert_eq!(sel("z=c,x=a").to_string(), "x=a,z=c");
    assert_eq!(sel("x in (c,a,b)").to_string(), "x in (a,b,c)");
    assert_eq!(sel("x notin ( a )").to_string(), "x notin (a)");
    assert_eq!(sel("!x, y").to_string(), "!x,y");
    assert_eq!(sel("x==a").to_string(), "x==a");
    assert_eq!(sel("x=").to_string(), "x=");
    assert_eq!(sel("x in ()").to_string(), "x in ()");
    assert_eq!(sel("x in (,a)").to_string(), "x in (,a)");
    assert_eq!(sel("x>1").to_string(), "x>1");
    // `in`/`notin` are values where a value is expected.
    assert_eq!(sel("x in (in,notin)").to_string(), "x in (in,notin)");
    assert!(sel("").is_empty());
    assert!(!sel("x").is_empty());
}

#[test]
fn label_parse_errors_are_upstream_texts() {
    assert_eq!(
        parse_err("app web"),
        "unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt"
    );
    assert_eq!(
        parse_err("app=web db"),
        "found 'db', expected: ',' or 'end of string'"
    );
    assert_eq!(
        parse_err("app=a,"),
        "found '', expected: identifier after ','"
    );
    assert_eq!(
        parse_err("=a"),
        "found '=', expected: !, identifier, or 'end of string'"
    );
    assert_eq!(
        parse_err("app in a"),
        "unable to parse requirement: found 'a' expected: '('"
    );
    assert_eq!(
        parse_err("app in (a"),
        "unable to parse requirement: found '', expected: ',' or ')'"
    );
    assert_eq!(
        parse_err("app in (a b)"),
        "unable to parse requirement: found 'b', expected: ',' or ')'"
    );
    assert_eq!(
        parse_err("app in (="),
        "unable to parse requirement: found '=', expected: ',', ')' or identifier"
    );
    assert_eq!(
        parse_err("app=(a)"),
        "unable to parse requirement: found '(', expected: identifier"
    );
    assert_eq!(
        parse_err("!app=x"),
        "found '=', expected: ',' or 'end of string'"
    );
    assert_eq!(
        parse_err("!=x"),
        "found '!=', expected: !, identifier, or 'end of string'"
    );
    assert_eq!(
        parse_err("!,x"),
        "unable to parse requirement: found ',', expected: identifier"
    );
    assert_eq!(
        parse_err("x>a"),
        "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer"
    );
}

#[test]
fn label_key_and_value_errors_carry_field_paths() {
    // Keys are checked by the parser itself, whose (unset) path prints as `<nil>`.
    assert_eq!(
        parse_err("-app=x"),
        "unable to parse requirement: <nil>: Invalid value: \"-app\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    );
    // Values are checked by NewRequirement under `values[i][key]`.
    assert_eq!(
        parse_err("app=-x"),
        "unable to parse requirement: values[0][app]: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    );
}

#[test]
fn label_selector_query_param_is_a_bad_request() {
    let err = match label_selector_param("app web") {
        Ok(_) => panic!("should fail"),
        Err(e) => e,
    };
    assert_eq!(err.code, 400);
    assert_eq!(err.reason, "BadRequest");
    assert_eq!(
        err.message,
        "unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt"
    );
    assert_eq!(err.details, None);
}

#[test]
fn api_selector_semantics() {
    let l = labels(json!({"app": "gpu-agent", "tier": "node"}));
    let null = LabelSelector::from_api(&Value::Null).unwrap_or_default();
    assert!(!null.matches(Some(&l)), "null selects nothing");
    assert!(!null.is_empty());
    let empty = LabelSelector::from_api(&json!({})).unwrap_or_else(|_| LabelSelector::nothing());
    assert!(empty.matches(Some(&l)), "{{}} selects everything");
    assert!(empty.matches(None::<&Map<String, Value>>));
    let s = LabelSelector::from_api(&json!({
        "matchLabels": {"app": "gpu-agent"},
        "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["node", "edge"]},
            {"key": "zone", "operator": "DoesNotExist"},
            {"key": "app", "operator": "Exists"}
        ]
    }))
    .unwrap_or_else(|_| LabelSelector::nothing());
    assert!(s.matches(Some(&l)));
    assert!(!s.matches(Some(&labels(json!({"app": "gpu-agent", "tier": "x"})))));
    assert_eq!(s.to_string(), "app=gpu-agent,app,tier in (edge,node),!zone");
}

#[test]
fn api_selector_errors() {
    assert_eq!(
        LabelSelector::from_api(
            &json!({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]})
        ),
        Err("\"Gt\" is not a valid label selector operator".to_string())
    );
    assert_eq!(
        LabelSelector::from_api(&json!({"matchExpressions": [{"key": "a", "operator": "In"}]})),
        Err(
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"
                .to_string()
        )
    );
    assert_eq!(
        LabelSelector::from_api(&json!({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]})),
        Err("values: Invalid value: [\"x\"]: values set must be empty for exists and does not exist".to_string())
    );
}

#[test]
fn formatting_like_metav1_and_labels() {
    assert_eq!(
        format_label_selector(
            &json!({"matchLabels": {"app": "x"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}]})
        ),
        "app=x,tier in (a,b)"
    );
    assert_eq!(format_label_selector(&json!({})), "<none>");
    assert_eq!(format_label_selector(&Value::Null), "<none>");
    assert_eq!(
        format_label_selector(&json!({"matchExpressions": [{"key": "a", "operator": "Bogus"}]})),
        "<error>"
    );
    let l = labels(json!({"nvidia.com/gpu.present": "true", "app": "x"}));
    assert_eq!(format_labels(Some(&l)), "app=x,nvidia.com/gpu.present=true");
    assert_eq!(format_labels(Some(&Map::new())), "<none>");
    assert_eq!(format_labels(None), "<none>");
}

fn fsel(s: &str) -> FieldSelector {
    match FieldSelector::parse(s) {
        Ok(f) => f,
        Err(e) => panic!("{s:?} should parse: {e}"),
    }
}

#[test]
fn field_selector_parse_like_upstream() {
    assert!(fsel("").is_empty());
    assert_eq!(fsel("a=b,c!=d").to_string(), "a=b,c!=d");
    assert_eq!(fsel("c!=d,a==b").to_string(), "a=b,c!=d");
    assert_eq!(fsel("x=a\\,b").terms()[0].value, "a,b");
    assert_eq!(fsel("x=a\\=b\\\\").terms()[0].value, "a=b\\");
    assert_eq!(fsel("x=a\\,b").to_string(), "x=a\\,b");
    assert_eq!(fsel("x=").terms()[0].value, "");
    assert_eq!(
        FieldSelector::parse("a"),
        Err("invalid selector: 'a'; can't understand 'a'".to_string())
    );
    assert_eq!(
        FieldSelector::parse("x=a=b"),
        Err("invalid field selector: unescaped character in value: 61".to_string())
    );
    assert_eq!(
        FieldSelector::parse("x=a\\b"),
        Err("invalid field selector: invalid escape sequence: \\b".to_string())
    );
    assert_eq!(
        FieldSelector::parse("x=a\\"),
        Err("invalid field selector: invalid escape sequence: \\".to_string())
    );
    let f = fsel("spec.nodeName=gpu-1,status.phase!=Failed");
    assert_eq!(f.requirement("spec.nodeName"), Some("gpu-1"));
    assert_eq!(f.requirement("status.phase"), None);
    assert_eq!(
        fsel("spec.host=n1").requirement("spec.nodeName"),
        Some("n1")
    );
}

fn pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-0", "namespace": "lab"},
        "spec": {"nodeName": "gpu-1", "restartPolicy": "Always", "schedulerName": "default-scheduler",
                 "serviceAccountName": "default", "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running", "podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}]}
    })
}

#[test]
fn pod_field_values() {
    let p = pod();
    let v = |f: &str| field_value(&PODS, &p, f);
    assert_eq!(v("metadata.name").as_deref(), Some("web-0"));
    assert_eq!(v("metadata.namespace").as_deref(), Some("lab"));
    assert_eq!(v("spec.nodeName").as_deref(), Some("gpu-1"));
    assert_eq!(v("spec.host").as_deref(), Some("gpu-1"));
    assert_eq!(v("spec.restartPolicy").as_deref(), Some("Always"));
    assert_eq!(
        v("spec.schedulerName").as_deref(),
        Some("default-scheduler")
    );
    assert_eq!(v("spec.serviceAccountName").as_deref(), Some("default"));
    assert_eq!(v("spec.hostNetwork").as_deref(), Some("false"));
    assert_eq!(v("status.phase").as_deref(), Some("Running"));
    assert_eq!(v("status.podIP").as_deref(), Some("10.0.0.1"));
    assert_eq!(v("status.nominatedNodeName").as_deref(), Some(""));
    // Accepted by the conversion, never set by ToSelectableFields.
    assert_eq!(v("status.podIPs"), None);
    assert_eq!(v("spec.nodename"), None);
    assert!(fsel("spec.nodeName=gpu-1,status.phase=Running").matches(&PODS, &p));
    assert!(!fsel("spec.nodeName=gpu-2").matches(&PODS, &p));
    assert!(fsel("spec.nodeName!=gpu-2").matches(&PODS, &p));
    assert!(!fsel("status.podIPs=10.0.0.1").matches(&PODS, &p));
    assert!(fsel("spec.nodeName=").matches(&PODS, &json!({"metadata": {"name": "p"}})));
}

#[test]
fn other_kinds_field_values() {
    let node = json!({"metadata": {"name": "gpu-1"}, "spec": {"unschedulable": true}});
    assert_eq!(
        field_value(&NODES, &node, "spec.unschedulable").as_deref(),
        Some("true")
    );
    assert_eq!(
        field_value(&NODES, &json!({}), "spec.unschedulable").as_deref(),
        Some("false")
    );
    assert_eq!(
        field_value(&NODES, &node, "metadata.name").as_deref(),
        Some("gpu-1")
    );
    let ns = json!({"metadata": {"name": "lab"}, "status": {"phase": "Active"}});
    assert_eq!(
        field_value(&NAMESPACES, &ns, "status.phase").as_deref(),
        Some("Active")
    );
    let secret = json!({"metadata": {"name": "s", "namespace": "lab"}, "type": "Opaque"});
    assert_eq!(
        field_value(&SECRETS, &secret, "type").as_deref(),
        Some("Opaque")
    );
    let rs = json!({"metadata": {"name": "r", "namespace": "lab"}, "status": {"replicas": 3}});
    // ReplicaSetToSelectableFields sets it, but apps/v1 registers no conversion: unreachable.
    assert_eq!(field_value(&REPLICASETS, &rs, "status.replicas"), None);
    assert_eq!(
        field_value(&DAEMONSETS, &rs, "metadata.namespace").as_deref(),
        Some("lab")
    );
}

#[test]
fn event_field_values_both_groups() {
    let core = json!({
        "metadata": {"name": "e1", "namespace": "lab"},
        "involvedObject": {"kind": "Pod", "name": "web-0", "namespace": "lab", "uid": "u1",
                           "apiVersion": "v1", "resourceVersion": "7", "fieldPath": "spec.containers{c}"},
        "reason": "FailedScheduling", "type": "Warning",
        "source": {}, "reportingComponent": "default-scheduler"
    });
    let v = |f: &str| field_value(&EVENTS, &core, f);
    assert_eq!(v("involvedObject.kind").as_deref(), Some("Pod"));
    assert_eq!(v("involvedObject.name").as_deref(), Some("web-0"));
    assert_eq!(v("involvedObject.namespace").as_deref(), Some("lab"));
    assert_eq!(v("involvedObject.uid").as_deref(), Some("u1"));
    assert_eq!(v("involvedObject.apiVersion").as_deref(), Some("v1"));
    assert_eq!(v("involvedObject.resourceVersion").as_deref(), Some("7"));
    assert_eq!(
        v("involvedObject.fieldPath").as_deref(),
        Some("spec.containers{c}")
    );
    assert_eq!(v("reason").as_deref(), Some("FailedScheduling"));
    assert_eq!(v("type").as_deref(), Some("Warning"));
    assert_eq!(
        v("reportingComponent").as_deref(),
        Some("default-scheduler")
    );
    // Source.Component is empty, so `source` falls back to the reporting controller.
    assert_eq!(v("source").as_deref(), Some("default-scheduler"));
    assert_eq!(v("regarding.kind"), None);

    let v1 = json!({
        "metadata": {"name": "e1", "namespace": "lab"},
        "regarding": {"kind": "Pod", "name": "web-0"},
        "reason": "Scheduled", "type": "Normal", "reportingController": "default-scheduler",
        "deprecatedSource": {"component": "kubelet"}
    });
    let v = |f: &str| field_value(&EVENTS_V1, &v1, f);
    assert_eq!(v("regarding.kind").as_deref(), Some("Pod"));
    assert_eq!(v("regarding.name").as_deref(), Some("web-0"));
    assert_eq!(
        v("reportingController").as_deref(),
        Some("default-scheduler")
    );
    assert_eq!(v("source").as_deref(), Some("kubelet"));
    assert_eq!(v("involvedObject.kind"), None);
}

fn rejected(res: &crate::resource::ResourceDef, s: &str) -> String {
    match field_selector_param(res, s) {
        Ok(_) => panic!("{s:?} should be rejected for {}", res.plural),
        Err(e) => {
            assert_eq!((e.code, e.reason.as_str()), (400, "BadRequest"));
            e.message
        }
    }
}

#[test]
fn unsupported_field_labels_are_bad_requests() {
    assert_eq!(
        rejected(&PODS, "spec.nodename=x"),
        "field label not supported: spec.nodename"
    );
    assert_eq!(
        rejected(&NODES, "metadata.namespace=x"),
        "field label not supported: metadata.namespace"
    );
    assert_eq!(
        rejected(&NAMESPACES, "metadata.namespace=x"),
        "field label not supported: metadata.namespace"
    );
    assert_eq!(
        rejected(&EVENTS, "regarding.kind=Pod"),
        "field label not supported: regarding.kind"
    );
    assert_eq!(
        rejected(&EVENTS_V1, "involvedObject.kind=Pod"),
        "field label not supported: involvedObject.kind"
    );
    assert_eq!(
        rejected(&REPLICASETS, "status.replicas=1"),
        "\"status.replicas\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
    );
    // Terms are sorted before conversion, so the first one in sorted order is named.
    assert_eq!(
        rejected(&PODS, "zzz=1,aaa=2"),
        "field label not supported: aaa"
    );
    assert_eq!(
        rejected(&PODS, "nonsense"),
        "invalid selector: 'nonsense'; can't understand 'nonsense'"
    );
    assert!(field_selector_param(&PODS, "spec.nodeName=n,metadata.namespace=lab").is_ok());
    assert!(field_selector_param(&NODES, "spec.unschedulable=true").is_ok());
    assert!(field_selector_param(&DAEMONSETS, "metadata.name=a").is_ok());
}

#[test]
fn label_error_wins_over_field_error() {
    let err = match list_selectors(&PODS, Some("a b"), Some("bogus=1")) {
        Ok(_) => panic!("should fail"),
        Err(e) => e,
    };
    assert!(err.message.starts_with("unable to parse requirement"));
    let err = match list_selectors(&PODS, Some("a=b"), Some("bogus=1")) {
        Ok(_) => panic!("should fail"),
        Err(e) => e,
    };
    assert_eq!(err.message, "field label not supported: bogus");
    assert!(list_selectors(&PODS, None, None).is_ok_and(|(l, f)| l.is_empty() && f.is_empty()));
}
