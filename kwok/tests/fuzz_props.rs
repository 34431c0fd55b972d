//! Property tests over everything the API server reads from a request: the JSON, YAML and
//! protobuf body decoders, label and field selectors, the PATCH engines and the path router.
//!
//! Every property asserts that no input panics and that a rejection is a well-formed Status
//! (HTTP code 400..=599 with a message), plus invariants that hold for the real server:
//! decoding is idempotent and the three `fieldValidation` levels agree; a protobuf body decodes
//! to JSON the endpoint's JSON decoder takes; selectors print as text that parses back to the
//! same selector; the empty patch of every type changes nothing and a merge patch applied twice
//! is applied once; a trailing slash or a percent escape does not change what a path names.
//!
//! `PROPTEST_CASES=<n>` overrides every property's case count (the soak tests' too). The ignored
//! `soak_*` tests run each property at 20 times its default:
//! `cargo test -p kwok --test fuzz_props -- --ignored soak_`. Failures found by these
//! properties are kept as regression cases at the end of this file.

// Test code: an unmet expectation is the test failing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "fuzz_props/json_text.rs"]
mod json_text;
#[path = "fuzz_props/k8s_docs.rs"]
mod k8s_docs;
#[path = "fuzz_props/patch_text.rs"]
mod patch_text;
#[path = "fuzz_props/path_text.rs"]
mod path_text;
#[path = "fuzz_props/proto_text.rs"]
mod proto_text;
#[path = "fuzz_props/selector_text.rs"]
mod selector_text;

use kwok::decode::{self, FieldValidation};
use kwok::http::route::{self, Target};
use kwok::patch::PatchType;
use kwok::registry::RESOURCES;
use kwok::resource::ResourceDef;
use kwok::resource_names::ResourceNames;
use kwok::selectors::{self, FieldSelector, LabelSelector};
use kwok::ApiError;
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Value};

use json_text::{deep, mutate, mutations};
use k8s_docs::Noise;

type Res = &'static ResourceDef;
type Outcome = Result<(), TestCaseError>;

// ---------------------------------------------------------------------------------------------
// Running

/// How much longer than the default an ignored soak run goes.
const SOAK_FACTOR: u32 = 20;

fn case_count(default: u32, factor: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default.saturating_mul(factor))
}

/// Run `test` on `cases` inputs from `strategy`; a failure (or panic) is shrunk and reported.
fn check<S: Strategy>(name: &str, cases: u32, strategy: S, test: impl Fn(S::Value) -> Outcome) {
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    if let Err(e) = runner.run(&strategy, test) {
        panic!("property {name} failed: {e}");
    }
}

/// A rejection must be a Status the client can show: an error code and a message.
fn well_formed(e: &ApiError) -> Outcome {
    prop_assert!(
        (400..=599).contains(&e.code),
        "error code {} outside 400..=599: {e}",
        e.code
    );
    prop_assert!(!e.message.is_empty(), "empty error message: {e:?}");
    Ok(())
}

fn validation() -> impl Strategy<Value = FieldValidation> {
    prop_oneof![
        Just(FieldValidation::Strict),
        Just(FieldValidation::Warn),
        Just(FieldValidation::Ignore),
    ]
}

fn resource() -> impl Strategy<Value = Res> {
    prop::sample::select(RESOURCES)
}

/// One strategy per resource, chosen at random, paired with its resource.
fn per_resource<S, F>(make: F) -> impl Strategy<Value = (Res, S::Value)>
where
    S: Strategy + 'static,
    F: Fn(Res) -> S,
{
    Union::new(RESOURCES.iter().map(|r| (Just(*r), make(r)).boxed()))
}

// ---------------------------------------------------------------------------------------------
// JSON / YAML body decoding

/// `decode_body`: a well-formed error, or the kind's object that decodes again to itself.
fn decode_body_holds(res: Res, body: &[u8], validation: FieldValidation) -> Outcome {
    let (obj, warnings) = match decode::decode_body(res, body, validation) {
        Err(e) => return well_formed(&e),
        Ok(ok) => ok,
    };
    prop_assert_eq!(obj.get("apiVersion"), Some(&json!(res.api_version())));
    prop_assert_eq!(obj.get("kind"), Some(&json!(res.kind)));
    prop_assert!(warnings.iter().all(|w| !w.is_empty()), "empty warning");
    if validation != FieldValidation::Warn {
        prop_assert!(
            warnings.is_empty(),
            "{validation:?} decoding returned warnings {warnings:?}"
        );
    }
    let encoded = serde_json::to_vec(&obj).map_err(|e| TestCaseError::fail(e.to_string()))?;
    // The server stores what it decoded; reading it back (under any validation, since the
    // stored form has no unknown or duplicate fields left) must give the same object.
    for again in [validation, FieldValidation::Strict] {
        match decode::decode_body(res, &encoded, again) {
            Ok((second, second_warnings)) => {
                prop_assert_eq!(&second, &obj, "decoding is not idempotent ({:?})", again);
                prop_assert!(
                    second_warnings.is_empty(),
                    "re-decoding warned: {second_warnings:?}"
                );
            }
            Err(e) => {
                return Err(TestCaseError::fail(format!(
                    "re-decoding the decoded object failed ({again:?}): {e}\nobject: {obj}"
                )))
            }
        }
    }
    Ok(())
}

#[test]
fn decode_body_arbitrary_bytes() {
    run_decode_body_arbitrary_bytes(1);
}

fn run_decode_body_arbitrary_bytes(factor: u32) {
    let bytes = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..256),
        // Mostly-JSON punctuation finds parser states quicker than uniform bytes.
        prop::collection::vec(
            prop::sample::select(&b"{}[]\":,\\ 0123456789.eE+-tfnrul\"apiVersionkind"[..]),
            0..128
        ),
    ];
    check(
        "decode_body_arbitrary_bytes",
        case_count(20000, factor),
        (resource(), bytes, validation()),
        |(res, body, v)| decode_body_holds(res, &body, v),
    );
}

/// Bodies for `res`: mostly ones that should decode, the rest mostly ones that should not.
fn documents(res: Res) -> impl Strategy<Value = json_text::J> {
    prop_oneof![
        3 => k8s_docs::document(Noise::LOW, res),
        1 => k8s_docs::document(Noise::HIGH, res),
    ]
}

#[test]
fn decode_body_k8s_shaped_documents() {
    run_decode_body_k8s_shaped_documents(1);
}

fn run_decode_body_k8s_shaped_documents(factor: u32) {
    check(
        "decode_body_k8s_shaped_documents",
        case_count(4000, factor),
        (per_resource(documents), mutations(), validation()),
        |((res, doc), edits, v)| decode_body_holds(res, &mutate(doc.render(), &edits), v),
    );
}

/// The three `fieldValidation` levels differ only in what they do with unknown and duplicate
/// fields (apimachinery's json serializer: a type error wins over strict errors, and the strict
/// error lists exactly the problems Warn returns as warnings).
fn validation_levels_agree(res: Res, body: &[u8]) -> Outcome {
    let ignore = decode::decode_body(res, body, FieldValidation::Ignore);
    let warn = decode::decode_body(res, body, FieldValidation::Warn);
    let strict = decode::decode_body(res, body, FieldValidation::Strict);
    match (&ignore, &warn) {
        (Err(a), Err(b)) => {
            prop_assert_eq!(a, b, "Ignore and Warn fail differently");
            prop_assert_eq!(
                strict.as_ref().err(),
                Some(a),
                "Ignore and Strict fail differently"
            );
        }
        (Ok((obj, ignored)), Ok((warned_obj, warnings))) => {
            prop_assert!(ignored.is_empty());
            prop_assert_eq!(obj, warned_obj, "Ignore and Warn decode differently");
            match &strict {
                Ok((strict_obj, none)) => {
                    prop_assert!(
                        warnings.is_empty(),
                        "Strict accepted what Warn warned about: {warnings:?}"
                    );
                    prop_assert!(none.is_empty());
                    prop_assert_eq!(strict_obj, obj);
                }
                Err(e) => {
                    prop_assert!(
                        !warnings.is_empty(),
                        "Strict failed where Warn had nothing to say: {e}"
                    );
                    let expected = format!("strict decoding error: {}", warnings.join(", "));
                    prop_assert!(
                        e.message.ends_with(&expected),
                        "strict error {:?} does not list the warnings {:?}",
                        e.message,
                        warnings
                    );
                }
            }
        }
        _ => {
            return Err(TestCaseError::fail(format!(
                "Ignore gave {ignore:?} but Warn gave {warn:?}"
            )))
        }
    }
    Ok(())
}

#[test]
fn decode_body_validation_levels_agree() {
    run_decode_body_validation_levels_agree(1);
}

fn run_decode_body_validation_levels_agree(factor: u32) {
    check(
        "decode_body_validation_levels_agree",
        case_count(3000, factor),
        (per_resource(documents), mutations()),
        |((res, doc), edits)| validation_levels_agree(res, &mutate(doc.render(), &edits)),
    );
}

#[test]
fn decode_body_deep_nesting() {
    run_decode_body_deep_nesting(1);
}

fn run_decode_body_deep_nesting(factor: u32) {
    let depth = prop_oneof![0usize..600, 600usize..12_000];
    check(
        "decode_body_deep_nesting",
        case_count(256, factor),
        (resource(), depth, 0u8..3, 0usize..4, validation()),
        |(res, depth, style, at, v)| {
            let nested = deep(depth, style, b"null");
            // The nesting at the top, or under a field the decoder walks into.
            let body = match at {
                0 => nested,
                1 => wrap(res, "metadata", &nested),
                2 => wrap(res, "spec", &nested),
                _ => wrap(res, "x", &nested),
            };
            decode_body_holds(res, &body, v)
        },
    );
}

fn wrap(res: Res, field: &str, inner: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "{{\"apiVersion\":\"{}\",\"kind\":\"{}\",\"{field}\":",
        res.api_version(),
        res.kind
    )
    .into_bytes();
    out.extend_from_slice(inner);
    out.push(b'}');
    out
}

#[test]
fn decode_yaml_and_delete_options() {
    run_decode_yaml_and_delete_options(1);
}

fn run_decode_yaml_and_delete_options(factor: u32) {
    let body = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..128),
        json_text::any_json().prop_map(|j| j.render()),
        "[a-z:{}\\[\\]\\-&*!|>'\"#, \n]{0,64}".prop_map(String::into_bytes),
    ];
    check(
        "decode_yaml_and_delete_options",
        case_count(4000, factor),
        (resource(), body, validation()),
        |(res, body, v)| {
            match decode::decode_yaml_body(res, &body, v) {
                Err(e) => well_formed(&e)?,
                Ok((obj, _)) => prop_assert_eq!(obj.get("kind"), Some(&json!(res.kind))),
            }
            if let Err(e) = decode::decode_delete_options(&body) {
                well_formed(&e)?;
            }
            if let Err(e) = decode::yaml_to_json(&body) {
                well_formed(&e)?;
            }
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Protobuf bodies

/// The error kube-apiserver's protobuf serializer gives a body without the magic prefix.
const NOT_PROTOBUF: &str =
    "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]";

fn protobuf_holds(body: &[u8]) -> Outcome {
    let obj = match kwok::protobuf::decode(body, kwok::registry::SCHEME) {
        Err(e) => {
            well_formed(&e)?;
            if body.is_empty() {
                prop_assert_eq!(e.message.as_str(), "empty data");
            } else if !body.starts_with(proto_text::MAGIC) {
                prop_assert_eq!(e.message.as_str(), NOT_PROTOBUF);
            }
            return Ok(());
        }
        Ok(obj) => obj,
    };
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    prop_assert!(!kind.is_empty(), "decoded object without a kind: {obj}");
    prop_assert!(
        !api_version.is_empty(),
        "decoded object without an apiVersion: {obj}"
    );
    // The same client could have sent this object as JSON; the endpoint's JSON decoder takes it.
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    if let Some(res) = RESOURCES
        .iter()
        .find(|r| r.group == group && r.version == version && r.kind == kind)
    {
        let json = serde_json::to_vec(&obj).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let json_result = decode::decode_body(*res, &json, FieldValidation::Strict);
        if let Err(e) = &json_result {
            // Known failures, kept below: the protobuf decoder passes quantity text through
            // unparsed (`known_protobuf_accepts_unparsable_quantity`), and the JSON decoder
            // rejects the last day of year 9999 (`known_decode_rejects_times_late_in_year_9999`).
            if e.message
                .contains("quantities must match the regular expression")
                || e.message.contains("timestamp overflowed")
            {
                return Ok(());
            }
            return Err(TestCaseError::fail(format!(
                "protobuf decoded to JSON the {} endpoint rejects: {e}\nobject: {obj}",
                res.plural
            )));
        }
    }
    let typed = kwok::protobuf::decode_for(body, api_version, kind, kwok::registry::SCHEME);
    prop_assert!(
        typed.is_ok(),
        "decode_for rejects what decode took: {typed:?}"
    );
    Ok(())
}

#[test]
fn protobuf_arbitrary_bytes() {
    run_protobuf_arbitrary_bytes(1);
}

fn run_protobuf_arbitrary_bytes(factor: u32) {
    let body = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..128),
        prop::collection::vec(any::<u8>(), 0..128).prop_map(|rest| {
            let mut b = proto_text::MAGIC.to_vec();
            b.extend(rest);
            b
        }),
    ];
    check(
        "protobuf_arbitrary_bytes",
        case_count(20000, factor),
        body,
        |body| protobuf_holds(&body),
    );
}

#[test]
fn protobuf_envelopes() {
    run_protobuf_envelopes(1);
}

fn run_protobuf_envelopes(factor: u32) {
    check(
        "protobuf_envelopes",
        case_count(5000, factor),
        proto_text::envelope(),
        |body| protobuf_holds(&body),
    );
}

#[test]
fn protobuf_deep_nesting() {
    run_protobuf_deep_nesting(1);
}

fn run_protobuf_deep_nesting(factor: u32) {
    use proto_text::F;
    check(
        "protobuf_deep_nesting",
        case_count(256, factor),
        (
            1usize..3000,
            1u32..4,
            prop::sample::select(proto_text::TYPES),
        ),
        |(depth, number, (api_version, kind))| {
            let mut inner = vec![F::Bytes(1, b"x".to_vec())];
            for _ in 0..depth {
                inner = vec![F::Msg(number, inner)];
            }
            let envelope = [
                F::Msg(
                    1,
                    vec![
                        F::Bytes(1, api_version.as_bytes().to_vec()),
                        F::Bytes(2, kind.as_bytes().to_vec()),
                    ],
                ),
                F::Bytes(2, proto_text::encode(&inner)),
            ];
            let mut body = proto_text::MAGIC.to_vec();
            body.extend(proto_text::encode(&envelope));
            protobuf_holds(&body)
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Selectors

fn label_selector_holds(
    text: &str,
    label_sets: &[Option<serde_json::Map<String, Value>>],
) -> Outcome {
    let sel = match LabelSelector::parse(text) {
        Err(msg) => {
            prop_assert!(!msg.is_empty(), "empty label selector error for {text:?}");
            let e = selectors::label_selector_param(text).err();
            prop_assert!(
                e.is_some(),
                "label_selector_param accepts what parse rejects"
            );
            if let Some(e) = e {
                well_formed(&e)?;
                prop_assert_eq!(e.code, 400);
            }
            return Ok(());
        }
        Ok(sel) => sel,
    };
    let printed = sel.to_string();
    let again = match LabelSelector::parse(&printed) {
        Ok(again) => again,
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "{text:?} parsed, but its string form {printed:?} does not: {e}"
            )))
        }
    };
    prop_assert_eq!(again.to_string(), printed.clone(), "String() is not stable");
    for labels in label_sets {
        prop_assert_eq!(
            sel.matches(labels.as_ref()),
            again.matches(labels.as_ref()),
            "{:?} and its string form {:?} disagree on {:?}",
            text,
            printed,
            labels
        );
    }
    Ok(())
}

#[test]
fn label_selector_round_trip() {
    run_label_selector_round_trip(1);
}

fn run_label_selector_round_trip(factor: u32) {
    check(
        "label_selector_round_trip",
        case_count(10000, factor),
        (
            selector_text::label_selector(),
            prop::collection::vec(selector_text::labels(), 0..6),
        ),
        |(text, labels)| label_selector_holds(&text, &labels),
    );
}

#[test]
fn api_label_selector_round_trip() {
    run_api_label_selector_round_trip(1);
}

fn run_api_label_selector_round_trip(factor: u32) {
    let value = prop_oneof![
        8 => selector_text::api_label_selector(),
        1 => json_text::any_json().prop_map(|j| j.to_value()),
    ];
    check(
        "api_label_selector_round_trip",
        case_count(5000, factor),
        (value, prop::collection::vec(selector_text::labels(), 0..6)),
        |(value, label_sets)| {
            let sel = match LabelSelector::from_api(&value) {
                Err(msg) => {
                    prop_assert!(!msg.is_empty());
                    return Ok(());
                }
                Ok(sel) => sel,
            };
            let _ = selectors::format_label_selector(&value);
            if sel.is_nothing() {
                for labels in &label_sets {
                    prop_assert!(!sel.matches(labels.as_ref()));
                }
                return Ok(());
            }
            label_selector_holds(&sel.to_string(), &label_sets)?;
            let again = LabelSelector::parse(&sel.to_string())
                .map_err(|e| TestCaseError::fail(format!("{value} printed unparsable: {e}")))?;
            for labels in &label_sets {
                prop_assert_eq!(
                    sel.matches(labels.as_ref()),
                    again.matches(labels.as_ref()),
                    "{} and its string form {:?} disagree on {:?}",
                    value,
                    sel.to_string(),
                    labels
                );
            }
            Ok(())
        },
    );
}

/// Terms in a canonical order, for comparing selectors whose text ordered them differently.
fn sorted_terms(sel: &FieldSelector) -> Vec<(String, bool, String)> {
    let mut terms: Vec<_> = sel
        .terms()
        .iter()
        .map(|t| {
            (
                t.field.clone(),
                t.op == selectors::FieldOp::Equals,
                t.value.clone(),
            )
        })
        .collect();
    terms.sort();
    terms
}

#[test]
fn field_selector_round_trip() {
    run_field_selector_round_trip(1);
}

fn run_field_selector_round_trip(factor: u32) {
    check(
        "field_selector_round_trip",
        case_count(10000, factor),
        (selector_text::field_selector(), resource()),
        |(text, res)| {
            match selectors::field_selector_param(res, &text) {
                Err(e) => {
                    well_formed(&e)?;
                    prop_assert_eq!(e.code, 400);
                }
                Ok(sel) => prop_assert!(sel.validate(res).is_ok()),
            }
            if let Err(e) = selectors::list_selectors(res, Some(&text), Some(&text)) {
                well_formed(&e)?;
            }
            let sel = match FieldSelector::parse(&text) {
                Err(msg) => {
                    prop_assert!(!msg.is_empty());
                    return Ok(());
                }
                Ok(sel) => sel,
            };
            let printed = sel.to_string();
            let again = FieldSelector::parse(&printed).map_err(|e| {
                TestCaseError::fail(format!(
                    "{text:?} parsed, but its string form {printed:?} does not: {e}"
                ))
            })?;
            prop_assert_eq!(
                sorted_terms(&sel),
                sorted_terms(&again),
                "{:?} printed as {:?}",
                text,
                printed
            );
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------------
// PATCH engines

/// Stored objects never hold strategic merge directives; drop any the generator put in.
fn without_directives(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(k, _)| !k.starts_with('$'))
                .map(|(k, v)| (k, without_directives(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_directives).collect()),
        other => other,
    }
}

fn original(res: Res) -> impl Strategy<Value = Value> {
    patch_text::original(res).prop_map(without_directives)
}

fn patch_holds(res: Res, original: &Value, patch_type: PatchType, body: &[u8]) -> Outcome {
    match kwok::api::hooks::patch(res, original, patch_type, body) {
        Err(e) => well_formed(&e),
        Ok(patched) => {
            if matches!(patch_type, PatchType::Merge | PatchType::Strategic) {
                prop_assert!(
                    patched.is_object(),
                    "{patch_type:?} patch made a non-object"
                );
            }
            Ok(())
        }
    }
}

/// A server-side apply through the API, where the field manager merges it into a stored object
/// of `original`'s shape: an answer or a well-formed error, never a panic.
fn apply_holds(res: Res, original: &Value, body: &[u8]) -> Outcome {
    let api = kwok::api::Api::new(std::sync::Arc::new(kwok::store::Store::new()));
    // Stored under the name the configuration gives, so that the apply reaches the merge.
    let name = serde_yaml::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v["metadata"]["name"].as_str().map(String::from))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "fuzz".into());
    let ns = if res.namespaced { "fuzz" } else { "" };
    let mut stored = original.clone();
    if let Some(meta) = stored
        .as_object_mut()
        .map(|m| m.entry("metadata").or_insert_with(|| json!({})))
    {
        if let Some(meta) = meta.as_object_mut() {
            meta.insert("name".into(), json!(name));
            if res.namespaced {
                meta.insert("namespace".into(), json!(ns));
            }
        }
    }
    let _ = api.store().create(res, stored);
    let opts = kwok::api::WriteOptions::by("fuzz");
    match api.patch(
        res,
        ns,
        &name,
        kwok::api::PatchKind::Apply,
        body,
        None,
        &opts,
    ) {
        Err(e) => well_formed(&e),
        Ok(_) => Ok(()),
    }
}

#[test]
fn json_patch_no_panic() {
    run_json_patch_no_panic(1);
}

fn run_json_patch_no_panic(factor: u32) {
    check(
        "json_patch_no_panic",
        case_count(3000, factor),
        (
            per_resource(original),
            patch_text::json_patch(),
            mutations(),
        ),
        |((res, original), body, edits)| {
            patch_holds(
                res,
                &original,
                PatchType::Json,
                &mutate(body.render(), &edits),
            )
        },
    );
}

#[test]
fn merge_patch_no_panic() {
    run_merge_patch_no_panic(1);
}

fn run_merge_patch_no_panic(factor: u32) {
    check(
        "merge_patch_no_panic",
        case_count(3000, factor),
        (
            per_resource(|r| (original(r), patch_text::merge_patch(r))),
            mutations(),
        ),
        |((res, (original, body)), edits)| {
            patch_holds(
                res,
                &original,
                PatchType::Merge,
                &mutate(body.render(), &edits),
            )
        },
    );
}

fn null_inside_array(v: &Value, in_array: bool) -> bool {
    match v {
        Value::Null => in_array,
        Value::Array(items) => items.iter().any(|i| null_inside_array(i, true)),
        Value::Object(m) => m.values().any(|i| null_inside_array(i, in_array)),
        _ => false,
    }
}

#[test]
fn merge_patch_is_idempotent() {
    run_merge_patch_is_idempotent(1);
}

fn run_merge_patch_is_idempotent(factor: u32) {
    // RFC 7386: a merge patch sets every member it names to its final value, so applying it a
    // second time changes nothing. Except in one corner of json-patch v4 (merge.go `merge`),
    // which the server inherits: a non-object value replacing an object keeps its nulls, while
    // the same value replacing a non-object is pruned of them, so a patch with a null inside an
    // array can change the object again on its second application. Such patches are left out.
    check(
        "merge_patch_is_idempotent",
        case_count(3000, factor),
        per_resource(|r| (original(r), patch_text::merge_patch(r))),
        |(res, (original, body))| {
            if null_inside_array(&body.to_value(), false) {
                return Ok(());
            }
            let body = body.render();
            let Ok(once) = kwok::api::hooks::patch(res, &original, PatchType::Merge, &body) else {
                return Ok(());
            };
            match kwok::api::hooks::patch(res, &once, PatchType::Merge, &body) {
                Ok(twice) => prop_assert_eq!(twice, once, "second application changed the object"),
                Err(e) => {
                    return Err(TestCaseError::fail(format!(
                        "second application failed: {e}"
                    )))
                }
            }
            Ok(())
        },
    );
}

#[test]
fn strategic_patch_no_panic() {
    run_strategic_patch_no_panic(1);
}

fn run_strategic_patch_no_panic(factor: u32) {
    check(
        "strategic_patch_no_panic",
        case_count(3000, factor),
        (
            per_resource(|r| (original(r), patch_text::strategic_patch(r))),
            mutations(),
        ),
        |((res, (original, body)), edits)| {
            patch_holds(
                res,
                &original,
                PatchType::Strategic,
                &mutate(body.render(), &edits),
            )
        },
    );
}

#[test]
fn apply_patch_no_panic() {
    run_apply_patch_no_panic(1);
}

fn run_apply_patch_no_panic(factor: u32) {
    // JSON is YAML, so rendered documents are apply configurations (good or bad ones).
    check(
        "apply_patch_no_panic",
        case_count(1000, factor),
        (
            per_resource(|r| (original(r), k8s_docs::document(Noise::LOW, r))),
            mutations(),
        ),
        |((res, (original, body)), edits)| {
            apply_holds(res, &original, &mutate(body.render(), &edits))
        },
    );
}

#[test]
fn patch_deep_nesting() {
    run_patch_deep_nesting(1);
}

fn run_patch_deep_nesting(factor: u32) {
    let patch_type = prop_oneof![
        Just(PatchType::Json),
        Just(PatchType::Merge),
        Just(PatchType::Strategic),
        Just(PatchType::Apply),
    ];
    check(
        "patch_deep_nesting",
        case_count(48, factor),
        (
            resource(),
            patch_type,
            prop_oneof![0usize..600, 600usize..12_000],
            0u8..3,
        ),
        |(res, patch_type, depth, style)| {
            let body = wrap(res, "spec", &deep(depth, style, b"1"));
            let original =
                json!({"apiVersion": res.api_version(), "kind": res.kind, "spec": {"x": 1}});
            patch_holds(res, &original, patch_type, &body)?;
            patch_holds(res, &original, patch_type, &deep(depth, style, b"1"))
        },
    );
}

/// The empty patch of each type, and JSON patches that undo themselves, leave the object as it was.
fn empty_patches_hold(res: Res, original: &Value) -> Outcome {
    // RFC 6902: adding a member the object lacks and removing it again, or testing a member
    // for its own value, leaves the document as it was.
    let fresh = "/zzNotAField";
    let add_remove = format!(
        r#"[{{"op":"add","path":"{fresh}","value":{{"a":[1,null]}}}},{{"op":"remove","path":"{fresh}"}}]"#
    );
    let copy_remove = format!(
        r#"[{{"op":"copy","from":"/kind","path":"{fresh}"}},{{"op":"remove","path":"{fresh}"}}]"#
    );
    let test_kind = format!(
        r#"[{{"op":"test","path":"/kind","value":{}}}]"#,
        original["kind"]
    );
    let mut cases: Vec<(PatchType, &[u8])> = vec![
        (PatchType::Merge, b"{}"),
        (PatchType::Strategic, b"{}"),
        (PatchType::Strategic, b"null"),
        (PatchType::Json, b"[]"),
        (PatchType::Json, add_remove.as_bytes()),
    ];
    if original.get("kind").is_some() {
        cases.push((PatchType::Json, copy_remove.as_bytes()));
        cases.push((PatchType::Json, test_kind.as_bytes()));
    }
    for (patch_type, body) in cases {
        let body_text = String::from_utf8_lossy(body);
        match kwok::api::hooks::patch(res, original, patch_type, body) {
            Ok(patched) => prop_assert_eq!(
                &patched,
                original,
                "{:?} patch {} changed the object",
                patch_type,
                body_text
            ),
            Err(e) => {
                return Err(TestCaseError::fail(format!(
                    "{patch_type:?} patch {body_text} failed: {e}"
                )))
            }
        }
    }
    Ok(())
}

#[test]
fn empty_patches_are_identity() {
    run_empty_patches_are_identity(1);
}

fn run_empty_patches_are_identity(factor: u32) {
    check(
        "empty_patches_are_identity",
        case_count(3000, factor),
        per_resource(original),
        |(res, original)| empty_patches_hold(res, &original),
    );
}

// ---------------------------------------------------------------------------------------------
// Routing

fn route_holds(path: &str) -> Outcome {
    let target = route::parse(path, route::BUILT_IN);
    // RequestInfoFactory trims slashes off the path: a trailing one names the same thing (a
    // proxy passes it on to the path it proxies).
    let unproxied = |target: Target| match target {
        Target::Resource(r) => Target::Resource(route::ResourcePath { proxied: None, ..r }),
        other => other,
    };
    prop_assert_eq!(
        unproxied(route::parse(&format!("{path}/"), route::BUILT_IN)),
        unproxied(route::parse(path, route::BUILT_IN)),
        "trailing slash on {:?}",
        path
    );
    if let Target::Resource(r) = &target {
        prop_assert!(
            RESOURCES.iter().any(|x| std::ptr::eq(*x, r.res)),
            "unregistered resource"
        );
        prop_assert!(
            r.namespace.is_none() || r.res.namespaced,
            "namespace on cluster-scoped {path:?}"
        );
        if let Some(sub) = &r.subresource {
            prop_assert!(
                r.res.subresource(sub).is_some(),
                "unknown subresource {sub:?}"
            );
            prop_assert!(r.name.is_some(), "subresource without a name: {path:?}");
        }
    }
    Ok(())
}

#[test]
fn route_arbitrary_paths() {
    run_route_arbitrary_paths(1);
}

fn run_route_arbitrary_paths(factor: u32) {
    check(
        "route_arbitrary_paths",
        case_count(20000, factor),
        prop_oneof![any::<String>(), "/[a-z0-9/%.]{0,40}"],
        |path| route_holds(&path),
    );
}

#[test]
fn route_grammar_paths() {
    run_route_grammar_paths(1);
}

fn run_route_grammar_paths(factor: u32) {
    check(
        "route_grammar_paths",
        case_count(20000, factor),
        (
            path_text::grammar_path(),
            prop::collection::vec(any::<bool>(), 1..8),
        ),
        |(path, mask)| {
            route_holds(&path)?;
            // Go's net/http hands the router the decoded path, so escaping a plain character
            // cannot change what the path names.
            if !path.contains('%') {
                let escaped = path_text::percent_encode_some(&path, &mask);
                prop_assert_eq!(
                    route::parse(&escaped, route::BUILT_IN),
                    route::parse(&path, route::BUILT_IN),
                    "{:?} escaped as {:?}",
                    path,
                    escaped
                );
            }
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Soak: every property at SOAK_FACTOR times its case count.

#[test]
#[ignore = "soak run: every property at 20x its default case count"]
fn soak_decoders() {
    run_decode_body_arbitrary_bytes(SOAK_FACTOR);
    run_decode_body_k8s_shaped_documents(SOAK_FACTOR);
    run_decode_body_validation_levels_agree(SOAK_FACTOR);
    run_decode_body_deep_nesting(SOAK_FACTOR);
    run_decode_yaml_and_delete_options(SOAK_FACTOR);
    run_protobuf_arbitrary_bytes(SOAK_FACTOR);
    run_protobuf_envelopes(SOAK_FACTOR);
    run_protobuf_deep_nesting(SOAK_FACTOR);
}

#[test]
#[ignore = "soak run: every property at 20x its default case count"]
fn soak_selectors_and_routes() {
    run_label_selector_round_trip(SOAK_FACTOR);
    run_api_label_selector_round_trip(SOAK_FACTOR);
    run_field_selector_round_trip(SOAK_FACTOR);
    run_route_arbitrary_paths(SOAK_FACTOR);
    run_route_grammar_paths(SOAK_FACTOR);
}

#[test]
#[ignore = "soak run: every property at 20x its default case count"]
fn soak_patches() {
    run_json_patch_no_panic(SOAK_FACTOR);
    run_merge_patch_no_panic(SOAK_FACTOR);
    run_merge_patch_is_idempotent(SOAK_FACTOR);
    run_strategic_patch_no_panic(SOAK_FACTOR);
    run_apply_patch_no_panic(SOAK_FACTOR);
    run_patch_deep_nesting(SOAK_FACTOR);
    run_empty_patches_are_identity(SOAK_FACTOR);
}

// ---------------------------------------------------------------------------------------------
// Failures found by the properties above, kept as regression cases (each asserts what
// kube-apiserver does).

/// kube-apiserver parses every `resource.Quantity` while decoding protobuf (`Quantity.Unmarshal`
/// in apimachinery `pkg/api/resource/quantity_proto.go` calls `ParseQuantity`), so an empty or
/// malformed quantity fails the protobuf decode itself with `ErrFormatWrong`. Found by
/// `protobuf_envelopes` when `protobuf::decode` returned the text unchecked (`special::quantity`).
#[test]
fn protobuf_rejects_unparsable_quantity() {
    use proto_text::F;
    // Pod{spec: PodSpec{containers: [Container{name: "c", resources: {limits: {"cpu": Quantity{""}}}}]}}
    let limit = F::Msg(
        1,
        vec![
            F::Bytes(1, b"cpu".to_vec()),
            F::Msg(2, vec![F::Bytes(1, Vec::new())]),
        ],
    );
    let container = F::Msg(2, vec![F::Bytes(1, b"c".to_vec()), F::Msg(8, vec![limit])]);
    let pod = [F::Msg(2, vec![container])];
    let envelope = [
        F::Msg(
            1,
            vec![F::Bytes(1, b"v1".to_vec()), F::Bytes(2, b"Pod".to_vec())],
        ),
        F::Bytes(2, proto_text::encode(&pod)),
    ];
    let mut body = proto_text::MAGIC.to_vec();
    body.extend(proto_text::encode(&envelope));
    let err = kwok::protobuf::decode(&body, kwok::registry::SCHEME)
        .expect_err("an empty quantity must not decode");
    assert_eq!(err.code, 400);
    assert_eq!(
        err.message,
        "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular \
         expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    );
}

/// `metav1.Time` and `metav1.MicroTime` take any RFC 3339 time Go's `time.Parse` reads, up to
/// 9999-12-31T23:59:59Z. Found by `protobuf_envelopes` (a protobuf Lease with a renewTime late in
/// year 9999), when the JSON decoder rejected every time after 9999-12-30T22:00:00Z with a message
/// of the Rust time library (the k8s-openapi `Time` it checks against wraps `jiff::Timestamp`,
/// whose range ends there).
#[test]
fn decode_accepts_times_late_in_year_9999() {
    let pod = br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","creationTimestamp":"9999-12-31T23:59:59Z"}}"#;
    let (obj, _) = decode::decode_body(&kwok::registry::PODS, pod, FieldValidation::Strict)
        .expect("a year-9999 creationTimestamp decodes");
    assert_eq!(obj["metadata"]["creationTimestamp"], "9999-12-31T23:59:59Z");

    let lease = br#"{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","spec":{"renewTime":"9999-12-31T23:59:59.999231Z"}}"#;
    let (obj, _) = decode::decode_body(&kwok::registry::LEASES, lease, FieldValidation::Strict)
        .expect("a year-9999 renewTime decodes");
    assert_eq!(obj["spec"]["renewTime"], "9999-12-31T23:59:59.999231Z");
}

/// A JSON patch `test` of a number against the same number succeeds: Go's decoder parses floats
/// exactly (strconv.ParseFloat), so json-patch v4 compares equal values. Found by
/// `empty_patches_are_identity` (soak): the patch engines parse bodies with serde_json's default
/// float parser, which is not correctly rounded (3.835280530919749e261 reads one ULP off), so the
/// test failed with the generic 422; serde_json's `float_roundtrip` feature (enabled) parses exactly.
#[test]
fn json_patch_test_reads_floats_exactly() {
    let original = json!({"kind": "Pod", "spec": {"x": 3.835280530919749e261}});
    let body = br#"[{"op":"test","path":"/spec/x","value":3.835280530919749e261}]"#;
    let patched = kwok::api::hooks::patch(&kwok::registry::PODS, &original, PatchType::Json, body)
        .expect("testing a member for its own value succeeds");
    assert_eq!(patched, original);
}
