//! A protobuf message, read with its schema table, as the JSON object encoding/json would write
//! for the same Go struct.

use base64::Engine;
use serde_json::{Map, Value};

use super::error::DecodeError;
use super::schema::{Field, Kind, Message, Shape};
use super::special;
use super::wire::{packed_varints, Payload, Reader};

/// Nesting deeper than this is refused. Only JSONSchemaProps holds itself, and unknown fields are
/// skipped without descending, so well-formed bodies stay far below it; it bounds the recursion.
pub const MAX_DEPTH: usize = 64;

pub struct Decoder {
    pub max_depth: usize,
}

impl Decoder {
    /// Decodes `bytes` as `message` into a JSON object, fields in Go declaration order.
    pub fn object(
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
            Kind::Items(message) => {
                let mut object = self.object(len(payload, name)?, message, depth + 1)?;
                let first = message.fields.first().map(|f| f.json).unwrap_or_default();
                object.remove(first).unwrap_or(Value::Null)
            }
            Kind::F64 => match payload {
                Payload::Fixed64(bits) => go_float(f64::from_bits(bits)),
                other => return Err(DecodeError::wrong_wire_type(other.wire_type(), name)),
            },
            Kind::SchemaOrArray(schema) => {
                let bytes = len(payload, name)?;
                let (first, rest) = self.schema_or(bytes, schema, Kind::Msg(schema), depth)?;
                match (first, rest) {
                    (_, Some(items)) => items,
                    (Some(schema), None) => schema,
                    (None, None) => Value::Null,
                }
            }
            Kind::SchemaOrBool(schema) => {
                self.schema_or_bool(len(payload, name)?, schema, depth)?
            }
            Kind::SchemaOrStringArray(schema) => {
                let bytes = len(payload, name)?;
                let (first, rest) = self.schema_or(bytes, schema, Kind::Str, depth)?;
                match (first, rest) {
                    (_, Some(strings)) => strings,
                    (Some(schema), None) => schema,
                    (None, None) => Value::Null,
                }
            }
        })
    }

    /// A `JSONSchemaPropsOrArray` or `...OrStringArray`: the schema in field 1 and the list of
    /// field 2 (of `items`: schemas, or strings) when not empty, for `MarshalJSON` to choose.
    fn schema_or(
        &self,
        bytes: &[u8],
        schema: &'static Message,
        items: Kind,
        depth: usize,
    ) -> Result<(Option<Value>, Option<Value>), DecodeError> {
        let (mut first, mut list) = (None, Vec::new());
        let mut reader = Reader::new(bytes, schema.name);
        while let Some((number, payload)) = reader.next_field()? {
            match number {
                1 => first = Some(self.value(Kind::Msg(schema), payload, "schema", depth)?),
                2 => list.push(self.value(items, payload, "items", depth)?),
                _ => {}
            }
        }
        Ok((first, (!list.is_empty()).then_some(Value::Array(list))))
    }

    /// A `JSONSchemaPropsOrBool`: the schema (field 2) if given, else `allows` (field 1).
    fn schema_or_bool(
        &self,
        bytes: &[u8],
        schema: &'static Message,
        depth: usize,
    ) -> Result<Value, DecodeError> {
        let (mut allows, mut inner) = (false, None);
        let mut reader = Reader::new(bytes, "JSONSchemaPropsOrBool");
        while let Some((number, payload)) = reader.next_field()? {
            match number {
                1 => allows = special::varint(payload, "allows")? != 0,
                2 => inner = Some(self.value(Kind::Msg(schema), payload, "schema", depth)?),
                _ => {}
            }
        }
        Ok(inner.unwrap_or(Value::Bool(allows)))
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

/// A float64 as encoding/json writes it: a whole number without a fraction (`5`, not `5.0`).
fn go_float(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        return Value::from(f as i64);
    }
    serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
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
