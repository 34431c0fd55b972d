//! The frames of the kubelet's WebSocket channel protocols (`wsstream.Conn`), for exec, attach
//! and port forwarding alike: a channel byte then the data, or, for the base64 protocols, the
//! channel as an ASCII digit then the data in base64, as text.

use axum::extract::ws::Message;
use base64::Engine;

/// A frame on `channel`.
pub fn encode(channel: u8, data: &[u8], base64: bool) -> Message {
    if base64 {
        let mut text = String::from(char::from(b'0'.wrapping_add(channel)));
        text.push_str(&base64::engine::general_purpose::STANDARD.encode(data));
        Message::Text(text.into())
    } else {
        let mut bytes = Vec::with_capacity(data.len() + 1);
        bytes.push(channel);
        bytes.extend_from_slice(data);
        Message::Binary(bytes.into())
    }
}

/// A client's frame (a message's payload) as its channel and data; `None` for an empty frame or
/// base64 that does not decode, which the server skips.
pub fn decode(payload: &[u8], base64: bool) -> Option<(u8, Vec<u8>)> {
    let (&channel, rest) = payload.split_first()?;
    if !base64 {
        return Some((channel, rest.to_vec()));
    }
    let data = base64::engine::general_purpose::STANDARD
        .decode(rest)
        .ok()?;
    Some((channel.wrapping_sub(b'0'), data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_round_trip_and_bad_frames_are_skipped() {
        for base64 in [false, true] {
            let payload = match encode(3, b"hi", base64) {
                Message::Binary(bytes) => bytes.to_vec(),
                Message::Text(text) => text.as_bytes().to_vec(),
                other => panic!("a data frame: {other:?}"),
            };
            assert_eq!(decode(&payload, base64), Some((3, b"hi".to_vec())));
        }
        assert_eq!(decode(b"\x01hi", false), Some((1, b"hi".to_vec())));
        assert_eq!(decode(b"1aGk=", true), Some((1, b"hi".to_vec())));
        assert_eq!(decode(b"", false), None);
        assert_eq!(decode(b"1!!!", true), None);
    }
}
