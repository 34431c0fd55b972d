//! Tests of the protobuf body decoder.

mod encoder;
mod kubectl_bodies;
mod malformed;
mod objects;
mod pod;
mod schema_checks;

/// Bytes from a hex string (test data only).
pub(super) fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("test hex"))
        .collect()
}
