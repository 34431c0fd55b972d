//! A protobuf message, read with its schema table, as the JSON object encoding/json would write
//! for the same Go struct.

use base64::Engine;
use serde_json::{Map, Value};

use super::error::DecodeError;
use super::schema::{Field, Kind, Message, Shape};
use super::special;
use super::wire::{packed_varints, Payload, Reader};

/// Nesting deeper than this is refused. The tables are acyclic and unknown fields are skipped
/// without descending, so well-formed bodies stay far below it; it bounds the recursion anyway.
pub(crate) const MAX_DEPTH: usize = 64;

pub(crate) struct Decoder {
    pub max_depth: usize,
}

impl Decoder {
    /// Decodes `bytes` as `message` into a JSON object, fields in Go declaration order.
    pub(crate) fn object(
        &self,
        bytes: &[u8],
        message: &'static Message,
        depth: usize,
    ) -> Result<Map<String, Value>, DecodeError> {
        if depth > self.max_depth {
            return Err(DecodeError::new(format!(
                "proto: {}: exceeded max depth of {}",
                message.name, self.max_depth
            )));
        }
        let mut slots: Vec<Option<Value>> = vec![None; message.fields.len()];
        let mut reader = Reader::new(bytes, message.name);
        while let Some((number, payload)) = reader.next_field()? {
            let Some(index) = message.fields.iter().position(|f| f.number == number) else {
                continue; // unknown fields are dropped, as gogo's generated code does
            };
            let field = &message.fields[index];
            let slot = &mut slots[index];
            match field.shape {
                Shape::Opt | Shape::Keep | Shape::Inline => {
                    let value = self.single(field, payload, depth)?;
                    *slot = Some(merge(slot.take(), value));
                }
                Shape::List => {
                    let items = self.list_items(field, payload, depth)?;
                    match slot {
                        Some(Value::Array(existing)) => existing.extend(items),
                        _ => *slot = Some(Value::Array(items)),
                    }
                }
                Shape::Map => {
                    let (key, value) = self.map_entry(field, payload, depth)?;
                    match slot {
                        Some(Value::Object(existing)) => {
                            existing.insert(key, value);
                        }
                        _ => *slot = Some(Value::Object(Map::from_iter([(key, value)]))),
                    }
                }
            }
        }
        let mut out = Map::new();
        for (field, slot) in message.fields.iter().zip(slots) {
            let Some(value) = slot else { continue };
            match field.shape {
                Shape::Inline => {
                    if let Value::Object(inner) = value {
                        out.extend(inner);
                    }
                }
                Shape::Opt if is_zero(&value) => {}
                _ => {
                    out.insert(field.json.to_string(), value);
                }
            }
        }
        Ok(out)
    }

    /// One value of `field.kind` from one occurrence of the field.
    fn single(
        &self,
        field: &Field,
        payload: Payload<'_>,
        depth: usize,
    ) -> Result<Value, DecodeError> {
        self.value(field.kind, payload, field_name(field), depth)
    }

    fn value(
        &self,
        kind: Kind,
        payload: Payload<'_>,
        name: &str,
        depth: usize,
    ) -> Result<Value, DecodeError> {
        Ok(match kind {
            Kind::Str => Value::String(special::string(payload, name)?),
            Kind::I32 => Value::from(special::varint(payload, name)? as i32),
            Kind::I64 => Value::from(special::varint(payload, name)? as i64),
            Kind::Bool => Value::Bool(special::varint(payload, name)? != 0),
            Kind::Bytes => {
                Value::String(base64::engine::general_purpose::STANDARD.encode(len(payload, name)?))
            }
            Kind::Quantity => special::quantity(len(payload, name)?)?,
            Kind::IntOrString => special::int_or_string(len(payload, name)?)?,
            Kind::Time => special::time(len(payload, name)?)?,
            Kind::MicroTime => special::micro_time(len(payload, name)?)?,
            Kind::FieldsV1 => special::fields_v1(len(payload, name)?)?,
            Kind::RawExtension => special::raw_extension(len(payload, name)?)?,
            Kind::Msg(message) => {
                Value::Object(self.object(len(payload, name)?, message, depth + 1)?)
            }
        })
    }

    /// The elements carried by one occurrence of a repeated field: one element, or for a
    /// numeric field possibly a packed run of them.
    fn list_items(
        &self,
        field: &Field,
        payload: Payload<'_>,
        depth: usize,
    ) -> Result<Vec<Value>, DecodeError> {
        match (field.kind, payload) {
            (Kind::I32 | Kind::I64 | Kind::Bool, Payload::Len(bytes)) => packed_varints(bytes)?
                .into_iter()
                .map(|v| self.value(field.kind, Payload::Varint(v), field.json, depth))
                .collect(),
            _ => Ok(vec![self.single(field, payload, depth)?]),
        }
    }

    /// One map entry: a message with the key in field 1 and the value in field 2. A missing
    /// key is "" and a missing value the zero value, as in gogo's generated map code.
    fn map_entry(
        &self,
        field: &Field,
        payload: Payload<'_>,
        depth: usize,
    ) -> Result<(String, Value), DecodeError> {
        let bytes = len(payload, field.json)?;
        let mut key = String::new();
        let mut value = None;
        let mut reader = Reader::new(bytes, "MapEntry");
        while let Some((number, payload)) = reader.next_field()? {
            match number {
                1 => key = special::string(payload, field.json)?,
                2 => value = Some(self.value(field.kind, payload, field.json, depth)?),
                _ => {}
            }
        }
        let value = match value {
            Some(v) => v,
            None => self.value(field.kind, Payload::Len(&[]), field.json, depth)?,
        };
        Ok((key, value))
    }
}

fn field_name(field: &Field) -> &'static str {
    if field.json.is_empty() {
        match field.kind {
            Kind::Msg(m) => m.name,
            _ => "",
        }
    } else {
        field.json
    }
}

fn len<'a>(payload: Payload<'a>, name: &str) -> Result<&'a [u8], DecodeError> {
    match payload {
        Payload::Len(bytes) => Ok(bytes),
        other => Err(DecodeError::wrong_wire_type(other.wire_type(), name)),
    }
}

/// A repeated occurrence of a singular field: a later scalar replaces an earlier one, a later
/// message is merged into the earlier one (protobuf merge semantics, one level deep).
fn merge(previous: Option<Value>, next: Value) -> Value {
    match (previous, next) {
        (Some(Value::Object(mut old)), Value::Object(new)) => {
            old.extend(new);
            Value::Object(old)
        }
        (_, next) => next,
    }
}

/// encoding/json's `omitempty` test for the scalar kinds.
fn is_zero(value: &Value) -> bool {
    match value {
        Value::String(s) => s.is_empty(),
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_i64() == Some(0) || n.as_u64() == Some(0),
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(_) => false,
    }
}
