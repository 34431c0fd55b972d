#![no_main]
//! JSON, YAML and DELETE request bodies for every resource. The first byte picks the resource and
//! the `fieldValidation` level, the rest is the body. A body that decodes must decode again, under
//! Strict validation, to the same object (the stored form has no unknown or duplicate fields).

mod common;

use kwok::decode::{self, FieldValidation};
use kwok::registry::RESOURCES;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let res = RESOURCES[usize::from(selector) % RESOURCES.len()];
    let validation = match selector >> 6 {
        0 => FieldValidation::Strict,
        1 => FieldValidation::Warn,
        _ => FieldValidation::Ignore,
    };
    match decode::decode_body(res, body, validation) {
        Err(e) => common::assert_status(&e),
        Ok((obj, _)) => {
            assert_eq!(obj["kind"], res.kind);
            let encoded = serde_json::to_vec(&obj).expect("a JSON value encodes");
            match decode::decode_body(res, &encoded, FieldValidation::Strict) {
                Ok((again, warnings)) => {
                    assert_eq!(again, obj, "decoding is not idempotent");
                    assert!(warnings.is_empty(), "re-decoding warned: {warnings:?}");
                }
                Err(e) => panic!("the decoded object does not decode again: {e}\n{obj}"),
            }
        }
    }
    if let Err(e) = decode::decode_yaml_body(res, body, validation) {
        common::assert_status(&e);
    }
    if let Err(e) = decode::decode_delete_options(body) {
        common::assert_status(&e);
    }
});
