#![no_main]
//! Protobuf request bodies. The input is decoded as it is, and also as the object bytes of an
//! envelope (`k8s\0` + `runtime.Unknown{typeMeta, raw}`) whose type the first byte picks, so the
//! fuzzer reaches the object decoder without having to find the envelope first.

mod common;

use libfuzzer_sys::fuzz_target;

/// Every kind a client may send, and some the server does not know.
const TYPES: &[(&str, &str)] = &[
    ("v1", "Pod"),
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "Namespace"),
    ("v1", "Node"),
    ("v1", "Event"),
    ("v1", "Binding"),
    ("v1", "ServiceAccount"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "DaemonSet"),
    ("apps/v1", "ControllerRevision"),
    ("policy/v1", "PodDisruptionBudget"),
    ("policy/v1", "Eviction"),
    ("coordination.k8s.io/v1", "Lease"),
    ("events.k8s.io/v1", "Event"),
    ("autoscaling/v1", "Scale"),
    ("v1", "DeleteOptions"),
    ("v2", "Pod"),
    ("", "Pod"),
];

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A length-delimited field.
fn put_bytes(out: &mut Vec<u8>, field: u64, bytes: &[u8]) {
    put_varint(out, (field << 3) | 2);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn check(body: &[u8]) {
    match kwok::protobuf::decode(body, kwok::registry::SCHEME) {
        Err(e) => common::assert_status(&e),
        Ok(obj) => {
            let kind = obj["kind"].as_str().unwrap_or("");
            let api_version = obj["apiVersion"].as_str().unwrap_or("");
            assert!(
                !kind.is_empty() && !api_version.is_empty(),
                "no type meta: {obj}"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    let Some((&selector, raw)) = data.split_first() else {
        return;
    };
    let (api_version, kind) = TYPES[usize::from(selector) % TYPES.len()];
    let mut type_meta = Vec::new();
    put_bytes(&mut type_meta, 1, api_version.as_bytes());
    put_bytes(&mut type_meta, 2, kind.as_bytes());
    let mut body = b"k8s\x00".to_vec();
    put_bytes(&mut body, 1, &type_meta);
    put_bytes(&mut body, 2, raw);
    check(&body);
    if let Err(e) = kwok::protobuf::decode_for(&body, api_version, kind, kwok::registry::SCHEME) {
        common::assert_status(&e);
    }
});
