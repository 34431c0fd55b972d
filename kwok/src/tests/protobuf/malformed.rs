//! Malformed bodies: every one is a 400 BadRequest with the message kube-apiserver's protobuf
//! serializer and handlers produce (runtime/serializer/protobuf/protobuf.go, gogo's generated
//! Unmarshal code, apiserver endpoints/handlers/rest.go `transformDecodeError`), never a panic.

use serde_json::json;

use super::encoder::{body, meta, Pb};
use super::hex;
use crate::error::ApiError;
use crate::protobuf::{decode, decode_for, decode_inner};

fn bad_request(result: Result<serde_json::Value, ApiError>) -> String {
    let err = result.expect_err("malformed body must be rejected");
    assert_eq!(
        (err.code, err.reason.as_str()),
        (400, "BadRequest"),
        "{err}"
    );
    err.message
}

fn with_magic(bytes: &[u8]) -> Vec<u8> {
    let mut out = b"k8s\0".to_vec();
    out.extend_from_slice(bytes);
    out
}

#[test]
fn empty_body() {
    assert_eq!(
        bad_request(decode(b"", crate::registry::SCHEME)),
        "empty data"
    );
    assert_eq!(
        bad_request(decode_for(b"", "v1", "Namespace", crate::registry::SCHEME)),
        "the object provided is unrecognized (must be of type Namespace): empty data (<empty>)"
    );
}

#[test]
fn magic_only() {
    assert_eq!(
        bad_request(decode(b"k8s\0", crate::registry::SCHEME)),
        "empty body"
    );
}

#[test]
fn wrong_magic() {
    let json_body = br#"{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"x"}}"#;
    assert_eq!(
        bad_request(decode(json_body, crate::registry::SCHEME)),
        "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"
    );
    assert_eq!(
        bad_request(decode_for(
            json_body,
            "v1",
            "Namespace",
            crate::registry::SCHEME
        )),
        "the object provided is unrecognized (must be of type Namespace): provided data does not \
         appear to be a protobuf message, expected prefix [107 56 115 0] \
         ({\"kind\":\"Namespace\",\"apiVersio ...)"
    );
    assert_eq!(
        bad_request(decode_for(
            b"k8s",
            "v1",
            "Namespace",
            crate::registry::SCHEME
        )),
        "the object provided is unrecognized (must be of type Namespace): provided data does not \
         appear to be a protobuf message, expected prefix [107 56 115 0] (6b3873)"
    );
}

#[test]
fn truncated_varint() {
    assert_eq!(
        bad_request(decode(&with_magic(&[0x0a, 0x80]), crate::registry::SCHEME)),
        "unexpected EOF"
    );
    assert_eq!(
        bad_request(decode(&with_magic(&[0x80]), crate::registry::SCHEME)),
        "unexpected EOF"
    );
}

#[test]
fn varint_longer_than_64_bits() {
    let mut bytes = vec![0x08];
    bytes.extend([0xff; 10]);
    bytes.push(0x01);
    assert_eq!(
        bad_request(decode(&with_magic(&bytes), crate::registry::SCHEME)),
        "proto: integer overflow"
    );
}

#[test]
fn length_past_the_end() {
    assert_eq!(
        bad_request(decode(
            &with_magic(&[0x12, 0x05, 0x01]),
            crate::registry::SCHEME
        )),
        "unexpected EOF"
    );
    // A length that only fits in 64 bits runs past the end too.
    let mut bytes = vec![0x12];
    bytes.extend([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
    assert_eq!(
        bad_request(decode(&with_magic(&bytes), crate::registry::SCHEME)),
        "unexpected EOF"
    );
}

#[test]
fn negative_length() {
    let mut bytes = vec![0x12];
    bytes.extend([0xff; 9]);
    bytes.push(0x01);
    assert_eq!(
        bad_request(decode(&with_magic(&bytes), crate::registry::SCHEME)),
        "proto: negative length found during unmarshaling"
    );
}

#[test]
fn illegal_tags() {
    assert_eq!(
        bad_request(decode(&with_magic(&[0x00, 0x00]), crate::registry::SCHEME)),
        "proto: Unknown: illegal tag 0 (wire type 0)"
    );
    assert_eq!(
        bad_request(decode(&with_magic(&[0x0c]), crate::registry::SCHEME)),
        "proto: Unknown: wiretype end group for non-group"
    );
    // An unknown field (9) with wire type 6.
    assert_eq!(
        bad_request(decode(&with_magic(&[0x4e, 0x00]), crate::registry::SCHEME)),
        "proto: illegal wireType 6"
    );
}

#[test]
fn error_inside_the_object_names_the_kind() {
    // Namespace.metadata (field 1) sent as a varint.
    let raw = Pb::new().int(1, 5);
    assert_eq!(
        bad_request(decode(&body("v1", "Namespace", raw.clone()), crate::registry::SCHEME)),
        "Namespace in version \"v1\" cannot be handled as a Namespace: proto: wrong wireType = 0 for field metadata"
    );
    assert_eq!(
        bad_request(decode_for(&body("apps/v1", "Deployment", raw), "apps/v1", "Deployment", crate::registry::SCHEME)),
        "Deployment in version \"v1\" cannot be handled as a Deployment: proto: wrong wireType = 0 for field metadata"
    );
    // A truncated nested message: ObjectMeta.name claims 9 bytes, 2 follow.
    let raw = Pb::new().msg(1, Pb::new().raw(&[0x0a, 0x09, b'a', b'b']));
    assert_eq!(
        bad_request(decode(
            &body("v1", "ConfigMap", raw),
            crate::registry::SCHEME
        )),
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: unexpected EOF"
    );
}

#[test]
fn unknown_kind() {
    assert_eq!(
        bad_request(decode(
            &body("v1", "Widget", Pb::new()),
            crate::registry::SCHEME
        )),
        "Widget in version \"v1\" cannot be handled as a Widget: no kind \"Widget\" is registered \
         for version \"v1\" in scheme \"pkg/api/legacyscheme/scheme.go:30\""
    );
    // Deployment exists, but not in apps/v1beta1: the v1 tables must not be applied to it.
    assert!(decode(
        &body("apps/v1beta1", "Deployment", Pb::new()),
        crate::registry::SCHEME
    )
    .is_err());
}

#[test]
fn missing_type_meta() {
    let bare = with_magic(
        &Pb::new()
            .msg(2, Pb::new().msg(1, meta("x", "")))
            .into_bytes(),
    );
    assert_eq!(
        bad_request(decode(&bare, crate::registry::SCHEME)),
        "Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:\"\", Kind:\"\"}'"
    );
    // With the endpoint known, kube-apiserver fills the kind and version in (copyKindDefaults).
    assert_eq!(
        decode_for(&bare, "v1", "Namespace", crate::registry::SCHEME).unwrap(),
        json!({"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "x", "creationTimestamp": null}})
    );
}

#[test]
fn bad_special_values() {
    // IntOrString with type 2.
    let spec = Pb::new().msg(1, Pb::new().int(1, 2));
    assert_eq!(
        bad_request(decode(
            &body("policy/v1", "PodDisruptionBudget", Pb::new().msg(2, spec)),
            crate::registry::SCHEME
        )),
        "PodDisruptionBudget in version \"v1\" cannot be handled as a PodDisruptionBudget: impossible IntOrString.Type"
    );
    // FieldsV1 that is not JSON.
    let managed = Pb::new().msg(7, Pb::new().bytes(1, b"{not json"));
    let raw = Pb::new().msg(1, Pb::new().msg(17, managed));
    let message = bad_request(decode(
        &body("v1", "ConfigMap", raw),
        crate::registry::SCHEME,
    ));
    assert!(
        message.starts_with(
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: error calling MarshalJSON for type *FieldsV1: "
        ),
        "{message}"
    );
    // A time past year 9999.
    let raw = Pb::new().msg(1, Pb::new().msg(8, Pb::new().int(1, 253_402_300_800)));
    assert!(decode(&body("v1", "ConfigMap", raw), crate::registry::SCHEME).is_err());
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    // Groups nested 100 000 deep in an unknown field (111) are skipped with a counter.
    let mut nested = vec![0xfb_u8, 0x06]; // field 111, start group
    nested.extend(vec![0x0b_u8; 100_000]); // field 1, start group
    nested.extend(vec![0x0c_u8; 100_000]); // field 1, end group
    nested.extend([0xfc_u8, 0x06]); // field 111, end group
    let raw = Pb::new().raw(&nested).msg(1, meta("x", ""));
    assert_eq!(
        decode(&body("v1", "Namespace", raw), crate::registry::SCHEME).unwrap()["metadata"]["name"],
        json!("x")
    );
    let raw = Pb::new().raw(&nested[..50_000]); // unterminated
    assert_eq!(
        bad_request(decode(
            &body("v1", "Namespace", raw),
            crate::registry::SCHEME
        )),
        "Namespace in version \"v1\" cannot be handled as a Namespace: unexpected EOF"
    );
    // Message nesting beyond the limit is refused (Deployment → spec → template → spec …).
    let deployment = Pb::new().msg(
        2,
        Pb::new().msg(3, Pb::new().msg(2, Pb::new().msg(2, Pb::new().str(1, "c")))),
    );
    let bytes = body("apps/v1", "Deployment", deployment);
    let message = bad_request(decode_inner(&bytes, None, crate::registry::SCHEME, 2));
    assert_eq!(
        message,
        "Deployment in version \"v1\" cannot be handled as a Deployment: proto: PodSpec: exceeded max depth of 2"
    );
    assert!(decode_inner(&bytes, None, crate::registry::SCHEME, 4).is_ok());
}

#[test]
fn unknown_fields_of_every_wire_type_are_skipped() {
    let raw = Pb::new()
        .msg(1, meta("x", "").int(99, 7))
        .int(50, 1)
        .raw(&[0x99, 0x03]) // field 51, fixed64
        .raw(&[0; 8])
        .raw(&[0x9d, 0x03]) // field 51, fixed32
        .raw(&[0; 4])
        .str(52, "ignored")
        .raw(&[0xa3, 0x03, 0x08, 0x01, 0xa4, 0x03]); // field 52 group holding a varint
    assert_eq!(
        decode(&body("v1", "Namespace", raw), crate::registry::SCHEME).unwrap(),
        json!({"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "x", "creationTimestamp": null}})
    );
}

#[test]
fn invalid_utf8_becomes_replacement_character() {
    let raw = Pb::new().msg(1, Pb::new().bytes(1, b"a\xffb"));
    assert_eq!(
        decode(&body("v1", "Namespace", raw), crate::registry::SCHEME).unwrap()["metadata"]["name"],
        json!("a\u{fffd}b")
    );
}

/// Every prefix and many single-byte corruptions of real kubectl bodies decode or fail cleanly.
#[test]
fn truncations_and_corruptions_never_panic() {
    let bodies = [
        hex(super::kubectl_bodies::DEPLOYMENT_BODY),
        body("v1", "Pod", super::pod::full_pod()),
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for original in &bodies {
        for len in 0..original.len() {
            let _ = decode(&original[..len], crate::registry::SCHEME);
        }
        for _ in 0..3000 {
            let mut mutated = original.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() % mutated.len() as u64) as usize;
                mutated[at] = next() as u8;
            }
            let _ = decode(&mutated, crate::registry::SCHEME);
        }
    }
}
