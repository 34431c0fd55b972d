//! SPDY/3 frames (`spdy/types.go`, `read.go`, `write.go` of the framer kubectl and the kubelet
//! share): a control bit, then either a version and a type (control frames) or a stream id
//! (data frames), 8 bits of flags and a 24-bit length.

use tokio::io::{AsyncRead, AsyncReadExt};

use super::header_block::{Decoder, Encoder, Headers};

pub const VERSION: u16 = 3;
pub const FLAG_FIN: u8 = 0x01;
/// `RstStreamStatus`: `ProtocolError` and `Cancel`.
pub const PROTOCOL_ERROR: u32 = 1;
pub const CANCEL: u32 = 5;
/// The most a data frame carries (`MaxDataLength`, 2^24 - 1).
pub const MAX_DATA: usize = (1 << 24) - 1;

const SYN_STREAM: u16 = 1;
const SYN_REPLY: u16 = 2;
const RST_STREAM: u16 = 3;
const PING: u16 = 6;
const GOAWAY: u16 = 7;
const HEADERS: u16 = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    SynStream {
        stream_id: u32,
        flags: u8,
        headers: Headers,
    },
    SynReply {
        stream_id: u32,
        flags: u8,
        headers: Headers,
    },
    RstStream {
        stream_id: u32,
        status: u32,
    },
    Ping {
        id: u32,
    },
    GoAway {
        last_good_stream_id: u32,
        status: u32,
    },
    Headers {
        stream_id: u32,
        flags: u8,
        headers: Headers,
    },
    Data {
        stream_id: u32,
        flags: u8,
        data: Vec<u8>,
    },
    /// SETTINGS, WINDOW_UPDATE and the rest: read and left, as kubectl's framer leaves them
    /// (it keeps no flow-control windows).
    Ignored,
}

/// Why the peer's bytes are not SPDY/3.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    Protocol(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::Protocol(why) => f.write_str(why),
        }
    }
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

fn word(bytes: &[u8], at: usize) -> Result<u32, ReadError> {
    bytes
        .get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_be_bytes)
        .ok_or_else(|| ReadError::Protocol("control frame too short".into()))
}

/// The next frame; `Ok(None)` when the peer closed between frames.
pub async fn read<R: AsyncRead + Unpin>(
    r: &mut R,
    headers: &mut Decoder,
) -> Result<Option<Frame>, ReadError> {
    let mut head = [0u8; 8];
    match r.read_exact(&mut head[..1]).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    r.read_exact(&mut head[1..]).await?;
    let first = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
    let flags = head[4];
    let length = u32::from_be_bytes([0, head[5], head[6], head[7]]) as usize;
    let mut body = vec![0u8; length];
    r.read_exact(&mut body).await?;
    if first & 0x8000_0000 == 0 {
        return Ok(Some(Frame::Data {
            stream_id: first & 0x7fff_ffff,
            flags,
            data: body,
        }));
    }
    let version = ((first >> 16) & 0x7fff) as u16;
    if version != VERSION {
        return Err(ReadError::Protocol(format!(
            "unsupported SPDY version {version}"
        )));
    }
    let stream_id = || word(&body, 0).map(|w| w & 0x7fff_ffff);
    let mut block = |at: usize| -> Result<Headers, ReadError> {
        let bytes = body
            .get(at..)
            .ok_or_else(|| ReadError::Protocol("control frame too short".into()))?;
        headers.decode(bytes).map_err(|e| ReadError::Protocol(e.0))
    };
    let frame = match (first & 0xffff) as u16 {
        // Stream id, associated stream id, priority and slot, then the headers.
        SYN_STREAM => Frame::SynStream {
            stream_id: stream_id()?,
            flags,
            headers: block(10)?,
        },
        SYN_REPLY => Frame::SynReply {
            stream_id: stream_id()?,
            flags,
            headers: block(4)?,
        },
        HEADERS => Frame::Headers {
            stream_id: stream_id()?,
            flags,
            headers: block(4)?,
        },
        RST_STREAM => Frame::RstStream {
            stream_id: stream_id()?,
            status: word(&body, 4)?,
        },
        PING => Frame::Ping {
            id: word(&body, 0)?,
        },
        GOAWAY => Frame::GoAway {
            last_good_stream_id: stream_id()?,
            status: word(&body, 4)?,
        },
        _ => Frame::Ignored,
    };
    Ok(Some(frame))
}

fn control(kind: u16, flags: u8, body: &[u8]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(8 + body.len());
    frame.extend_from_slice(
        &(0x8000_0000u32 | (u32::from(VERSION) << 16) | u32::from(kind)).to_be_bytes(),
    );
    frame.extend_from_slice(&((u32::from(flags) << 24) | body.len() as u32).to_be_bytes());
    frame.extend_from_slice(body);
    frame
}

/// A frame's bytes; header blocks go through the sender's context.
pub fn encode(frame: &Frame, headers: &mut Encoder) -> Result<Vec<u8>, String> {
    let block = |h: &Headers, headers: &mut Encoder| {
        let pairs: Vec<(&str, &str)> = h.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        headers.encode(&pairs).map_err(|e| e.0)
    };
    Ok(match frame {
        Frame::SynStream {
            stream_id,
            flags,
            headers: h,
        } => {
            let mut body = stream_id.to_be_bytes().to_vec();
            body.extend_from_slice(&[0; 6]);
            body.extend(block(h, headers)?);
            control(SYN_STREAM, *flags, &body)
        }
        // The two carry the same: a stream id, then its headers.
        Frame::SynReply {
            stream_id,
            flags,
            headers: h,
        }
        | Frame::Headers {
            stream_id,
            flags,
            headers: h,
        } => {
            let kind = if matches!(frame, Frame::SynReply { .. }) {
                SYN_REPLY
            } else {
                HEADERS
            };
            let mut body = stream_id.to_be_bytes().to_vec();
            body.extend(block(h, headers)?);
            control(kind, *flags, &body)
        }
        Frame::RstStream { stream_id, status } => {
            let mut body = stream_id.to_be_bytes().to_vec();
            body.extend_from_slice(&status.to_be_bytes());
            control(RST_STREAM, 0, &body)
        }
        Frame::Ping { id } => control(PING, 0, &id.to_be_bytes()),
        Frame::GoAway {
            last_good_stream_id,
            status,
        } => {
            let mut body = last_good_stream_id.to_be_bytes().to_vec();
            body.extend_from_slice(&status.to_be_bytes());
            control(GOAWAY, 0, &body)
        }
        Frame::Data {
            stream_id,
            flags,
            data,
        } => {
            if data.len() > MAX_DATA {
                return Err(format!("a data frame of {} bytes", data.len()));
            }
            let mut frame = Vec::with_capacity(8 + data.len());
            frame.extend_from_slice(&(stream_id & 0x7fff_ffff).to_be_bytes());
            frame.extend_from_slice(&((u32::from(*flags) << 24) | data.len() as u32).to_be_bytes());
            frame.extend_from_slice(data);
            frame
        }
        Frame::Ignored => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn round_trip(frames: &[Frame]) -> Vec<Frame> {
        let mut encoder = Encoder::new();
        let mut bytes = Vec::new();
        for frame in frames {
            bytes.extend(encode(frame, &mut encoder).unwrap());
        }
        let mut decoder = Decoder::new();
        let mut reader = bytes.as_slice();
        let mut got = Vec::new();
        while let Some(frame) = read(&mut reader, &mut decoder).await.unwrap() {
            got.push(frame);
        }
        got
    }

    #[tokio::test]
    async fn every_frame_kubectl_exchanges_round_trips() {
        let h = |pairs: &[(&str, &str)]| -> Headers {
            pairs
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        };
        let frames = vec![
            Frame::SynStream {
                stream_id: 1,
                flags: 0,
                headers: h(&[("streamtype", "error"), ("port", "80"), ("requestid", "0")]),
            },
            Frame::SynStream {
                stream_id: 3,
                flags: FLAG_FIN,
                headers: h(&[("streamtype", "data"), ("port", "80"), ("requestid", "0")]),
            },
            Frame::SynReply {
                stream_id: 1,
                flags: 0,
                headers: Vec::new(),
            },
            Frame::Data {
                stream_id: 3,
                flags: FLAG_FIN,
                data: b"GET / HTTP/1.1\r\n\r\n".to_vec(),
            },
            Frame::Data {
                stream_id: 1,
                flags: 0,
                data: Vec::new(),
            },
            Frame::RstStream {
                stream_id: 3,
                status: CANCEL,
            },
            Frame::Ping { id: 1 },
            Frame::GoAway {
                last_good_stream_id: 3,
                status: 0,
            },
        ];
        assert_eq!(round_trip(&frames).await, frames);
    }

    #[tokio::test]
    async fn known_wire_bytes_read_as_the_spec_lays_them_out() {
        // A PING with id 7 and a data frame on stream 5 with FIN and "hi", byte by byte.
        let bytes = [
            0x80, 0x03, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 7, //
            0x00, 0x00, 0x00, 0x05, 0x01, 0x00, 0x00, 0x02, b'h', b'i',
        ];
        let mut reader = &bytes[..];
        let mut decoder = Decoder::new();
        assert_eq!(
            read(&mut reader, &mut decoder).await.unwrap(),
            Some(Frame::Ping { id: 7 })
        );
        assert_eq!(
            read(&mut reader, &mut decoder).await.unwrap(),
            Some(Frame::Data {
                stream_id: 5,
                flags: FLAG_FIN,
                data: b"hi".to_vec()
            })
        );
        assert_eq!(read(&mut reader, &mut decoder).await.unwrap(), None);
    }

    #[tokio::test]
    async fn settings_and_window_updates_are_skipped_and_bad_input_is_an_error() {
        // SETTINGS with no entries, then a WINDOW_UPDATE.
        let bytes = [
            0x80, 0x03, 0x00, 0x04, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 0, //
            0x80, 0x03, 0x00, 0x09, 0x00, 0x00, 0x00, 0x08, 0, 0, 0, 1, 0, 0, 0x10, 0,
        ];
        let mut reader = &bytes[..];
        let mut decoder = Decoder::new();
        for _ in 0..2 {
            assert_eq!(
                read(&mut reader, &mut decoder).await.unwrap(),
                Some(Frame::Ignored)
            );
        }
        let version_two = [0x80, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 1];
        assert!(read(&mut &version_two[..], &mut decoder).await.is_err());
        let short_ping = [0x80, 0x03, 0x00, 0x06, 0x00, 0x00, 0x00, 0x02, 0, 1];
        assert!(read(&mut &short_ping[..], &mut decoder).await.is_err());
        let cut = [0x80, 0x03, 0x00];
        assert!(read(&mut &cut[..], &mut decoder).await.is_err());
    }
}
