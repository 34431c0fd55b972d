//! Kubernetes protobuf request bodies as client-go's typed clients write them, for the suites
//! that send one themselves: just the wire format pieces they need.

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn varint_field(out: &mut Vec<u8>, field: u64, value: u64) {
    varint(out, field << 3);
    varint(out, value);
}

fn bytes_field(out: &mut Vec<u8>, field: u64, value: &[u8]) {
    varint(out, (field << 3) | 2);
    varint(out, value.len() as u64);
    out.extend_from_slice(value);
}

/// `k8s\0` and a `runtime.Unknown` {typeMeta {apiVersion, kind}, raw}.
pub fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let mut type_meta = Vec::new();
    bytes_field(&mut type_meta, 1, api_version.as_bytes());
    bytes_field(&mut type_meta, 2, kind.as_bytes());
    let mut out = b"k8s\0".to_vec();
    bytes_field(&mut out, 1, &type_meta);
    bytes_field(&mut out, 2, raw);
    out
}

/// A `DeleteOptions` (meta/v1 generated.proto: gracePeriodSeconds 1, propagationPolicy 4,
/// dryRun 5) under `api_version`, the group version of the typed client that sends it.
pub fn delete_options(api_version: &str, grace: i64, propagation: &str, dry_run: bool) -> Vec<u8> {
    let mut message = Vec::new();
    // int64 on the wire: a negative one as its two's complement.
    varint_field(&mut message, 1, grace as u64);
    bytes_field(&mut message, 4, propagation.as_bytes());
    if dry_run {
        bytes_field(&mut message, 5, b"All");
    }
    envelope(api_version, "DeleteOptions", &message)
}
