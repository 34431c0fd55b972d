#![no_main]
//! The PATCH engines. The first byte picks the resource and the patch type; the rest is the stored
//! object (JSON) and the patch body, split at the first NUL byte (no NUL: `{}` and the whole rest).
//! The empty patch of every type must leave the object as it was.

mod common;

use kwok::patch::PatchType;
use kwok::registry::RESOURCES;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let res = RESOURCES[usize::from(selector) % RESOURCES.len()];
    let patch_type = [
        PatchType::Json,
        PatchType::Merge,
        PatchType::Strategic,
        PatchType::Apply,
    ][usize::from(selector >> 6)];
    let (stored, body) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (&b"{}"[..], rest),
    };
    let original = serde_json::from_slice::<Value>(stored)
        .ok()
        .filter(Value::is_object)
        .unwrap_or_else(|| Value::Object(Default::default()));
    match kwok::api::hooks::patch(res, &original, patch_type, body) {
        Err(e) => common::assert_status(&e),
        Ok(patched) => {
            if matches!(patch_type, PatchType::Merge | PatchType::Strategic) {
                assert!(
                    patched.is_object(),
                    "{patch_type:?} patch made a non-object"
                );
            }
        }
    }
    for (patch_type, empty) in [
        (PatchType::Merge, &b"{}"[..]),
        (PatchType::Strategic, b"{}"),
        (PatchType::Json, b"[]"),
    ] {
        match kwok::api::hooks::patch(res, &original, patch_type, empty) {
            Ok(patched) => assert_eq!(patched, original, "empty {patch_type:?} patch changed it"),
            Err(e) => panic!("empty {patch_type:?} patch failed: {e}"),
        }
    }
});
