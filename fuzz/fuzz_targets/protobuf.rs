#![no_main]
//! Protobuf request bodies, as sent and with the `k8s\0` magic put in front (so the fuzzer need not
//! find it), through `decode` and `decode_for` the endpoint of every resource.

mod common;

use kwok::registry::RESOURCES;
use libfuzzer_sys::fuzz_target;

fn check(body: &[u8]) {
    match kwok::protobuf::decode(body) {
        Err(e) => common::assert_status(&e),
        Ok(obj) => {
            let kind = obj["kind"].as_str().unwrap_or("");
            let api_version = obj["apiVersion"].as_str().unwrap_or("");
            assert!(!kind.is_empty() && !api_version.is_empty(), "no type meta: {obj}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    let mut body = b"k8s\x00".to_vec();
    body.extend_from_slice(data);
    check(&body);
    if let Some(&selector) = data.first() {
        let res = RESOURCES[usize::from(selector) % RESOURCES.len()];
        if let Err(e) = kwok::protobuf::decode_for(&body, &res.api_version(), res.kind) {
            common::assert_status(&e);
        }
    }
});
