//! The Kubernetes protobuf envelope: the `k8s\0` magic, then a `runtime.Unknown` message
//! (`apimachinery/pkg/runtime/generated.proto`: `TypeMeta typeMeta = 1`, `bytes raw = 2`,
//! `string contentEncoding = 3`, `string contentType = 4`; `TypeMeta`: `apiVersion = 1`,
//! `kind = 2`). Checks and messages follow `runtime/serializer/protobuf/protobuf.go` `Decode`.

use super::error::DecodeError;
use super::special::string;
use super::wire::{Payload, Reader};

/// `protoEncodingPrefix` in protobuf.go.
pub const MAGIC: [u8; 4] = [0x6b, 0x38, 0x73, 0x00];

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Envelope<'a> {
    pub api_version: String,
    pub kind: String,
    pub raw: &'a [u8],
    /// Ignored by the serializer (no encoding besides none exists); kept for completeness.
    pub content_encoding: String,
    pub content_type: String,
}

pub fn open(body: &[u8]) -> Result<Envelope<'_>, DecodeError> {
    if body.is_empty() {
        return Err(DecodeError::new("empty data"));
    }
    let Some(data) = body.strip_prefix(&MAGIC) else {
        return Err(DecodeError::new(
            "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
        ));
    };
    if data.is_empty() {
        return Err(DecodeError::new("empty body"));
    }
    let mut envelope = Envelope::default();
    let mut reader = Reader::new(data, "Unknown");
    while let Some((number, payload)) = reader.next_field()? {
        match number {
            1 => type_meta(bytes(payload, "TypeMeta")?, &mut envelope)?,
            2 => envelope.raw = bytes(payload, "Raw")?,
            3 => envelope.content_encoding = string(payload, "ContentEncoding")?,
            4 => envelope.content_type = string(payload, "ContentType")?,
            _ => {}
        }
    }
    Ok(envelope)
}

fn type_meta(data: &[u8], envelope: &mut Envelope<'_>) -> Result<(), DecodeError> {
    let mut reader = Reader::new(data, "TypeMeta");
    while let Some((number, payload)) = reader.next_field()? {
        match number {
            1 => envelope.api_version = string(payload, "APIVersion")?,
            2 => envelope.kind = string(payload, "Kind")?,
            _ => {}
        }
    }
    Ok(())
}

fn bytes<'a>(payload: Payload<'a>, field: &str) -> Result<&'a [u8], DecodeError> {
    match payload {
        Payload::Len(b) => Ok(b),
        other => Err(DecodeError::wrong_wire_type(other.wire_type(), field)),
    }
}
