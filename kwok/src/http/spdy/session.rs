//! One SPDY connection seen from the server, as the kubelet's `httpstream/spdy` connection
//! serves it: the peer opens every stream (SYN_STREAM with its headers), each is answered with
//! an empty SYN_REPLY, data flows both ways until each side sends FIN, and the server ends with
//! GOAWAY. A reader task routes the peer's frames; a writer task owns the socket's write half
//! and the header compression context, so frames from any stream go out whole and in order.

use std::collections::HashMap;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::frame::{self, Frame, FLAG_FIN};
use super::header_block::{Decoder, Encoder, Headers};

/// What a data frame carries at most when the server writes (the peer may send up to
/// [`frame::MAX_DATA`]).
const CHUNK: usize = 32 * 1024;
/// Frames a stream may have waiting before the reader waits on it, as the framer's unbuffered
/// channel makes the peer wait on a slow stream.
const STREAM_BACKLOG: usize = 16;

/// A stream the peer opened.
pub struct Incoming {
    pub id: u32,
    pub headers: Headers,
    /// The peer's data, `None` once it sent FIN, reset the stream or left.
    pub data: mpsc::Receiver<Vec<u8>>,
}

/// Writes frames on the connection; cheap to clone, one per task that writes.
#[derive(Clone)]
pub struct Writer {
    frames: mpsc::UnboundedSender<Frame>,
}

impl Writer {
    /// Accepts a stream the peer opened.
    pub fn reply(&self, id: u32) {
        let _ = self.frames.send(Frame::SynReply {
            stream_id: id,
            flags: 0,
            headers: Vec::new(),
        });
    }

    /// Data on a stream, in frames of at most [`CHUNK`] bytes; `false` once the connection is
    /// gone.
    pub fn data(&self, id: u32, data: &[u8]) -> bool {
        data.chunks(CHUNK).all(|chunk| {
            self.frames
                .send(Frame::Data {
                    stream_id: id,
                    flags: 0,
                    data: chunk.to_vec(),
                })
                .is_ok()
        })
    }

    /// The server's half-close of a stream: an empty data frame with FIN (`Stream.Close`).
    pub fn finish(&self, id: u32) {
        let _ = self.frames.send(Frame::Data {
            stream_id: id,
            flags: FLAG_FIN,
            data: Vec::new(),
        });
    }

    pub fn reset(&self, id: u32, status: u32) {
        let _ = self.frames.send(Frame::RstStream {
            stream_id: id,
            status,
        });
    }

    /// Ends the connection: GOAWAY, then the write half is shut down.
    pub fn go_away(&self, last_good_stream_id: u32) {
        let _ = self.frames.send(Frame::GoAway {
            last_good_stream_id,
            status: 0,
        });
    }
}

/// Starts serving a connection; the peer's streams arrive on the receiver, in the order opened,
/// until the peer leaves or sends GOAWAY.
pub fn serve<IO>(io: IO) -> (mpsc::Receiver<Incoming>, Writer)
where
    IO: AsyncRead + AsyncWrite + Send + 'static,
{
    let (read_half, write_half) = tokio::io::split(io);
    let (frames, outgoing) = mpsc::unbounded_channel();
    let writer = Writer { frames };
    let (streams, incoming) = mpsc::channel(64);
    tokio::spawn(write_frames(write_half, outgoing));
    tokio::spawn(read_frames(read_half, streams, writer.clone()));
    (incoming, writer)
}

async fn write_frames<W: AsyncWrite + Unpin>(
    mut w: W,
    mut outgoing: mpsc::UnboundedReceiver<Frame>,
) {
    let mut headers = Encoder::new();
    while let Some(next) = outgoing.recv().await {
        let last = matches!(next, Frame::GoAway { .. });
        let bytes = match frame::encode(&next, &mut headers) {
            Ok(bytes) => bytes,
            Err(why) => {
                tracing::debug!("spdy: a frame could not be written: {why}");
                break;
            }
        };
        if w.write_all(&bytes).await.is_err() || w.flush().await.is_err() {
            break;
        }
        if last {
            break;
        }
    }
    let _ = w.shutdown().await;
}

async fn read_frames<R: AsyncRead + Unpin>(
    mut r: R,
    streams: mpsc::Sender<Incoming>,
    writer: Writer,
) {
    let mut headers = Decoder::new();
    let mut open: HashMap<u32, mpsc::Sender<Vec<u8>>> = HashMap::new();
    loop {
        let next = match frame::read(&mut r, &mut headers).await {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(why) => {
                tracing::debug!("spdy: the peer's frames stopped: {why}");
                break;
            }
        };
        match next {
            Frame::SynStream {
                stream_id,
                flags,
                headers,
            } => {
                // Stream ids a client opens are odd and rise; a repeated one is refused as the
                // framer refuses it.
                if stream_id % 2 == 0 || open.contains_key(&stream_id) {
                    writer.reset(stream_id, frame::PROTOCOL_ERROR);
                    continue;
                }
                let (tx, data) = mpsc::channel(STREAM_BACKLOG);
                if flags & FLAG_FIN == 0 {
                    open.insert(stream_id, tx);
                }
                let stream = Incoming {
                    id: stream_id,
                    headers,
                    data,
                };
                if streams.send(stream).await.is_err() {
                    break;
                }
            }
            Frame::Data {
                stream_id,
                flags,
                data,
            } => {
                if let Some(tx) = open.get(&stream_id) {
                    if !data.is_empty() && tx.send(data).await.is_err() {
                        open.remove(&stream_id);
                    }
                }
                if flags & FLAG_FIN != 0 {
                    open.remove(&stream_id);
                }
            }
            Frame::RstStream { stream_id, .. } => {
                open.remove(&stream_id);
            }
            // The server never pings: every ping is the peer's, answered with the same id.
            Frame::Ping { id } => {
                let _ = writer.frames.send(Frame::Ping { id });
            }
            Frame::GoAway { .. } => break,
            Frame::SynReply { .. } | Frame::Headers { .. } | Frame::Ignored => {}
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use tokio::io::DuplexStream;

    /// The client's end of a connection, speaking raw frames.
    pub(crate) struct Client {
        io: DuplexStream,
        encoder: Encoder,
        decoder: Decoder,
        next_id: u32,
    }

    impl Client {
        pub(crate) fn new(io: DuplexStream) -> Client {
            Client {
                io,
                encoder: Encoder::new(),
                decoder: Decoder::new(),
                next_id: 1,
            }
        }

        pub(crate) async fn send(&mut self, frame: Frame) {
            let bytes = frame::encode(&frame, &mut self.encoder).unwrap();
            self.io.write_all(&bytes).await.unwrap();
        }

        /// Opens a stream with these headers; its id.
        pub(crate) async fn open(&mut self, headers: &[(&str, &str)], flags: u8) -> u32 {
            let id = self.next_id;
            self.next_id += 2;
            let headers = headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect();
            self.send(Frame::SynStream {
                stream_id: id,
                flags,
                headers,
            })
            .await;
            id
        }

        pub(crate) async fn next(&mut self) -> Option<Frame> {
            frame::read(&mut self.io, &mut self.decoder).await.unwrap()
        }

        /// Every frame until the server closes the connection.
        pub(crate) async fn rest(&mut self) -> Vec<Frame> {
            let mut frames = Vec::new();
            while let Some(frame) = self.next().await {
                frames.push(frame);
            }
            frames
        }
    }

    #[tokio::test]
    async fn streams_arrive_with_their_headers_and_data_until_fin() {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let mut client = Client::new(client_io);
        let (mut incoming, writer) = serve(server_io);
        let id = client.open(&[("streamType", "stdin")], 0).await;
        let mut stream = incoming.recv().await.unwrap();
        assert_eq!(stream.id, id);
        assert_eq!(stream.headers, vec![("streamtype".into(), "stdin".into())]);
        writer.reply(id);
        assert!(
            matches!(client.next().await, Some(Frame::SynReply { stream_id, .. }) if stream_id == id)
        );
        client
            .send(Frame::Data {
                stream_id: id,
                flags: 0,
                data: b"abc".to_vec(),
            })
            .await;
        client
            .send(Frame::Data {
                stream_id: id,
                flags: FLAG_FIN,
                data: b"def".to_vec(),
            })
            .await;
        assert_eq!(stream.data.recv().await.unwrap(), b"abc");
        assert_eq!(stream.data.recv().await.unwrap(), b"def");
        assert_eq!(stream.data.recv().await, None);
        // A stream opened already finished has no data to give.
        let done = client.open(&[("streamType", "resize")], FLAG_FIN).await;
        let mut stream = incoming.recv().await.unwrap();
        assert_eq!(stream.id, done);
        assert_eq!(stream.data.recv().await, None);
    }

    #[tokio::test]
    async fn the_server_writes_chunks_fin_and_goaway_and_answers_pings() {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let mut client = Client::new(client_io);
        let (mut incoming, writer) = serve(server_io);
        let id = client.open(&[("streamType", "stdout")], 0).await;
        incoming.recv().await.unwrap();
        client.send(Frame::Ping { id: 1 }).await;
        assert_eq!(client.next().await, Some(Frame::Ping { id: 1 }));
        let big = vec![7u8; CHUNK + 10];
        assert!(writer.data(id, &big));
        writer.finish(id);
        writer.go_away(id);
        let frames = client.rest().await;
        let lengths: Vec<(usize, u8)> = frames
            .iter()
            .filter_map(|f| match f {
                Frame::Data { data, flags, .. } => Some((data.len(), *flags)),
                _ => None,
            })
            .collect();
        assert_eq!(lengths, vec![(CHUNK, 0), (10, 0), (0, FLAG_FIN)]);
        assert_eq!(
            frames.last(),
            Some(&Frame::GoAway {
                last_good_stream_id: id,
                status: 0
            })
        );
    }

    #[tokio::test]
    async fn an_even_or_repeated_stream_id_is_reset_and_a_vanished_peer_ends_the_streams() {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let mut client = Client::new(client_io);
        let (mut incoming, _writer) = serve(server_io);
        client
            .send(Frame::SynStream {
                stream_id: 2,
                flags: 0,
                headers: Vec::new(),
            })
            .await;
        assert_eq!(
            client.next().await,
            Some(Frame::RstStream {
                stream_id: 2,
                status: frame::PROTOCOL_ERROR
            })
        );
        client.open(&[("streamType", "data")], 0).await;
        let mut stream = incoming.recv().await.unwrap();
        drop(client);
        assert_eq!(stream.data.recv().await, None);
        assert!(incoming.recv().await.is_none());
    }
}
