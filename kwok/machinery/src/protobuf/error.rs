//! The decoding failure: the text kube-apiserver's protobuf serializer would return for it.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    message: String,
}

impl DecodeError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// Go's `io.ErrUnexpectedEOF`, returned for truncated varints and lengths past the end.
    pub fn unexpected_eof() -> Self {
        Self::new("unexpected EOF")
    }

    /// gogo's `ErrInvalidLengthGenerated`.
    pub fn invalid_length() -> Self {
        Self::new("proto: negative length found during unmarshaling")
    }

    /// gogo's message for a known field sent with another wire type.
    pub fn wrong_wire_type(wire_type: u8, field: &str) -> Self {
        Self::new(format!(
            "proto: wrong wireType = {wire_type} for field {field}"
        ))
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
