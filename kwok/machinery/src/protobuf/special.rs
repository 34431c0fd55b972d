//! Types whose protobuf form is hand-written upstream and whose JSON form is not an object:
//! `resource.Quantity`, `intstr.IntOrString`, `metav1.Time`, `metav1.MicroTime`,
//! `metav1.FieldsV1` and `runtime.RawExtension`.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::error::DecodeError;
use super::wire::{Payload, Reader};

/// `resource.Quantity` (`apimachinery/pkg/api/resource/generated.proto`: `string string = 1`).
/// `Quantity.Unmarshal` (`quantity_proto.go`) runs `ParseQuantity` on the text, so a malformed
/// one fails the decode with the parser's error, and the server writes the canonical form back.
/// An empty message is the zero quantity, which encoding/json writes as "0".
pub fn quantity(bytes: &[u8]) -> Result<Value, DecodeError> {
    let mut text = None;
    let mut reader = Reader::new(bytes, "Quantity");
    while let Some((number, payload)) = reader.next_field()? {
        if number == 1 {
            text = Some(string(payload, "string")?);
        }
    }
    match text {
        None => Ok(Value::String("0".to_string())),
        Some(text) => crate::quantity::canonicalize(&text)
            .map(Value::String)
            .map_err(DecodeError::new),
    }
}

/// `intstr.IntOrString` (`apimachinery/pkg/util/intstr/generated.proto`: `int64 type = 1`,
/// `int32 intVal = 2`, `string strVal = 3`); `MarshalJSON` writes the member `type` selects.
pub fn int_or_string(bytes: &[u8]) -> Result<Value, DecodeError> {
    let (mut kind, mut int_val, mut str_val) = (0i64, 0i32, String::new());
    let mut reader = Reader::new(bytes, "IntOrString");
    while let Some((number, payload)) = reader.next_field()? {
        match number {
            1 => kind = varint(payload, "type")? as i64,
            2 => int_val = varint(payload, "intVal")? as i32,
            3 => str_val = string(payload, "strVal")?,
            _ => {}
        }
    }
    match kind {
        0 => Ok(Value::from(int_val)),
        1 => Ok(Value::String(str_val)),
        // intstr.go MarshalJSON: "impossible IntOrString.Type"
        _ => Err(DecodeError::new("impossible IntOrString.Type")),
    }
}

/// `metav1.Time`: a `Timestamp` (seconds = 1, nanos = 2). `time_proto.go` drops the nanoseconds
/// ("Truncate precision to seconds to match JSON") and `MarshalJSON` writes RFC 3339 in UTC; the
/// zero time (an empty message) is `null`.
pub fn time(bytes: &[u8]) -> Result<Value, DecodeError> {
    let Some((seconds, _)) = timestamp(bytes)? else {
        return Ok(Value::Null);
    };
    format_time(seconds, 0, "%Y-%m-%dT%H:%M:%SZ")
}

/// `metav1.MicroTime`: like `Time`, but `micro_time_proto.go` keeps the nanoseconds truncated to
/// microseconds and `MarshalJSON` writes `RFC3339Micro` ("2006-01-02T15:04:05.000000Z07:00").
pub fn micro_time(bytes: &[u8]) -> Result<Value, DecodeError> {
    let Some((seconds, nanos)) = timestamp(bytes)? else {
        return Ok(Value::Null);
    };
    let nanos = i64::from(nanos) / 1000 * 1000;
    format_time(seconds, nanos, "%Y-%m-%dT%H:%M:%S%.6fZ")
}

/// `metav1.FieldsV1` (`bytes Raw = 1`): the raw JSON is the value (`FieldsV1.MarshalJSON`).
pub fn fields_v1(bytes: &[u8]) -> Result<Value, DecodeError> {
    raw_json(bytes, "FieldsV1", "Raw")
}

/// `runtime.RawExtension` (`bytes raw = 1`): the raw JSON is the value (`RawExtension.MarshalJSON`).
pub fn raw_extension(bytes: &[u8]) -> Result<Value, DecodeError> {
    raw_json(bytes, "RawExtension", "raw")
}

fn raw_json(bytes: &[u8], message: &'static str, field: &str) -> Result<Value, DecodeError> {
    let mut raw: Option<&[u8]> = None;
    let mut reader = Reader::new(bytes, message);
    while let Some((number, payload)) = reader.next_field()? {
        if number == 1 {
            match payload {
                Payload::Len(b) => raw = Some(b),
                other => return Err(DecodeError::wrong_wire_type(other.wire_type(), field)),
            }
        }
    }
    match raw {
        None | Some([]) => Ok(Value::Null),
        Some(raw) => serde_json::from_slice(raw).map_err(|e| {
            DecodeError::new(format!(
                "json: error calling MarshalJSON for type *{message}: {e}"
            ))
        }),
    }
}

/// Seconds and nanoseconds of a `Timestamp`, or `None` for the zero time.
fn timestamp(bytes: &[u8]) -> Result<Option<(i64, i32)>, DecodeError> {
    if bytes.is_empty() {
        return Ok(None);
    }
    let (mut seconds, mut nanos) = (0i64, 0i32);
    let mut reader = Reader::new(bytes, "Timestamp");
    while let Some((number, payload)) = reader.next_field()? {
        match number {
            1 => seconds = varint(payload, "Seconds")? as i64,
            2 => nanos = varint(payload, "Nanos")? as i32,
            _ => {}
        }
    }
    // time.Unix(-62135596800, 0) is Go's zero time (January 1, year 1), also written as null.
    if seconds == GO_ZERO_TIME_UNIX && nanos == 0 {
        return Ok(None);
    }
    Ok(Some((seconds, nanos)))
}

const GO_ZERO_TIME_UNIX: i64 = -62_135_596_800;

fn format_time(seconds: i64, nanos: i64, format: &str) -> Result<Value, DecodeError> {
    let out_of_range = || DecodeError::new("Time.MarshalJSON: year outside of range [0,9999]");
    let instant = DateTime::<Utc>::from_timestamp(seconds, 0)
        .and_then(|t| t.checked_add_signed(chrono::Duration::nanoseconds(nanos)))
        .ok_or_else(out_of_range)?;
    let year = chrono::Datelike::year(&instant);
    if !(0..=9999).contains(&year) {
        return Err(out_of_range());
    }
    Ok(Value::String(instant.format(format).to_string()))
}

pub fn varint(payload: Payload<'_>, field: &str) -> Result<u64, DecodeError> {
    match payload {
        Payload::Varint(v) => Ok(v),
        other => Err(DecodeError::wrong_wire_type(other.wire_type(), field)),
    }
}

/// A string field; Go strings may hold any bytes and encoding/json writes invalid UTF-8 as U+FFFD.
pub fn string(payload: Payload<'_>, field: &str) -> Result<String, DecodeError> {
    match payload {
        Payload::Len(bytes) => Ok(String::from_utf8_lossy(bytes).into_owned()),
        other => Err(DecodeError::wrong_wire_type(other.wire_type(), field)),
    }
}
