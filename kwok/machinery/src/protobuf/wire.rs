//! The protobuf wire format: a bounds-checked reader of tagged fields.
//!
//! Every failure carries the message gogo-protobuf's generated `Unmarshal` code returns for the
//! same input (`k8s.io/api/*/generated.pb.go`: `ErrIntOverflowGenerated`, `io.ErrUnexpectedEOF`,
//! `ErrInvalidLengthGenerated`, `skipGenerated`), so a client sees what kube-apiserver would say.

use super::error::DecodeError;

pub const VARINT: u8 = 0;
pub const FIXED64: u8 = 1;
pub const LEN: u8 = 2;
const START_GROUP: u8 = 3;
const END_GROUP: u8 = 4;
pub const FIXED32: u8 = 5;

/// One field's payload, still undecoded.
#[derive(Clone, Copy, Debug)]
pub enum Payload<'a> {
    Varint(u64),
    /// 8 bytes, little-endian: a double (JSONSchemaProps' bounds) or a fixed64.
    Fixed64(u64),
    Len(&'a [u8]),
    /// 4 bytes, skipped: no field in the tables is a float or fixed32.
    Fixed32,
    /// A group (wire types 3/4): only ever skipped, as gogo does for unknown fields.
    Group,
}

impl Payload<'_> {
    pub fn wire_type(&self) -> u8 {
        match self {
            Payload::Varint(_) => VARINT,
            Payload::Fixed64(_) => FIXED64,
            Payload::Len(_) => LEN,
            Payload::Fixed32 => FIXED32,
            Payload::Group => START_GROUP,
        }
    }
}

/// Reads the fields of one message in order.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// The Go type name, for gogo's "proto: X: illegal tag" messages.
    message: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8], message: &'static str) -> Self {
        Self {
            buf,
            pos: 0,
            message,
        }
    }

    /// The next field as (number, payload), or `None` at the end of the message.
    pub fn next_field(&mut self) -> Result<Option<(u32, Payload<'a>)>, DecodeError> {
        if self.pos >= self.buf.len() {
            return Ok(None);
        }
        let start = self.pos;
        let key = self.varint()?;
        // Go keeps the field number in an int32 (`fieldNum := int32(wire >> 3)`).
        let number = (key >> 3) as i32;
        let wire_type = (key & 7) as u8;
        if wire_type == END_GROUP {
            return Err(DecodeError::new(format!(
                "proto: {}: wiretype end group for non-group",
                self.message
            )));
        }
        if number <= 0 {
            return Err(DecodeError::new(format!(
                "proto: {}: illegal tag {number} (wire type {wire_type})",
                self.message
            )));
        }
        let payload = match wire_type {
            VARINT => Payload::Varint(self.varint()?),
            FIXED64 => {
                let bytes: [u8; 8] = self
                    .take(8)?
                    .try_into()
                    .map_err(|_| DecodeError::unexpected_eof())?;
                Payload::Fixed64(u64::from_le_bytes(bytes))
            }
            LEN => {
                let len = self.length()?;
                Payload::Len(self.take(len)?)
            }
            FIXED32 => {
                self.take(4)?;
                Payload::Fixed32
            }
            START_GROUP => {
                self.pos = start;
                self.skip_group()?;
                Payload::Group
            }
            other => return Err(DecodeError::new(format!("proto: illegal wireType {other}"))),
        };
        Ok(Some((number as u32, payload)))
    }

    /// A base-128 varint; more than 64 bits is gogo's "integer overflow".
    fn varint(&mut self) -> Result<u64, DecodeError> {
        let mut value: u64 = 0;
        let mut shift = 0u32;
        loop {
            if shift >= 64 {
                return Err(DecodeError::new("proto: integer overflow"));
            }
            let Some(&byte) = self.buf.get(self.pos) else {
                return Err(DecodeError::unexpected_eof());
            };
            self.pos += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(value);
            }
            shift += 7;
        }
    }

    /// A length prefix: Go reads it into an `int`, so one past `i64::MAX` is a negative length.
    fn length(&mut self) -> Result<usize, DecodeError> {
        let raw = self.varint()?;
        if raw > i64::MAX as u64 {
            return Err(DecodeError::invalid_length());
        }
        // Longer than the address space can only run past the end of the buffer.
        usize::try_from(raw).map_err(|_| DecodeError::unexpected_eof())
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(len)
            .ok_or_else(DecodeError::unexpected_eof)?;
        let bytes = self
            .buf
            .get(self.pos..end)
            .ok_or_else(DecodeError::unexpected_eof)?;
        self.pos = end;
        Ok(bytes)
    }

    /// Skips a group and everything nested in it with a depth counter (no recursion), like
    /// gogo's `skipGenerated`.
    fn skip_group(&mut self) -> Result<(), DecodeError> {
        let mut depth: u64 = 0;
        while self.pos < self.buf.len() {
            let key = self.varint()?;
            match (key & 7) as u8 {
                VARINT => {
                    self.varint()?;
                }
                FIXED64 => {
                    self.take(8)?;
                }
                LEN => {
                    let len = self.length()?;
                    self.take(len)?;
                }
                START_GROUP => depth += 1,
                END_GROUP => {
                    if depth == 0 {
                        return Err(DecodeError::new("proto: unexpected end of group"));
                    }
                    depth -= 1;
                }
                FIXED32 => {
                    self.take(4)?;
                }
                other => return Err(DecodeError::new(format!("proto: illegal wireType {other}"))),
            }
            if depth == 0 {
                return Ok(());
            }
        }
        Err(DecodeError::unexpected_eof())
    }
}

/// Splits a packed repeated varint field (proto3 style; gogo's proto2 code accepts both forms).
pub fn packed_varints(bytes: &[u8]) -> Result<Vec<u64>, DecodeError> {
    let mut reader = Reader::new(bytes, "");
    let mut out = Vec::new();
    while reader.pos < reader.buf.len() {
        out.push(reader.varint()?);
    }
    Ok(out)
}
