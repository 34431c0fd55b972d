//! Exec and attach over SPDY, as the kubelet's `ServeExec`/`ServeAttach` serve them to kubectl
//! 1.29 and older (and to the API server's translator upstream): the client opens one stream
//! per channel, named by its `streamType` header, and the server answers on them; `v4` ends with
//! the JSON `Status` on the error stream, the older protocols with an error's text alone.

use std::sync::Arc;
use std::time::Duration;

use axum::http::request::Parts;
use axum::response::Response;
use tokio::sync::mpsc;

use super::{Located, StreamOptions, ERROR, STDERR, STDOUT};
use crate::http::spdy::frame::CANCEL;
use crate::http::spdy::header_block;
use crate::http::spdy::session::{self, Incoming, Writer};
use crate::http::spdy::upgrade::{self, Caller};
use crate::http::Server;

/// `remotecommand.SupportedStreamingProtocols`, the kubelet's order.
const PROTOCOLS: [&str; 4] = [
    "v4.channel.k8s.io",
    "v3.channel.k8s.io",
    "v2.channel.k8s.io",
    "channel.k8s.io",
];
/// `DefaultStreamCreationTimeout`: how long the client has to open its streams.
const STREAM_CREATION_TIMEOUT: Duration = Duration::from_secs(30);

pub(super) fn serve(server: Arc<Server>, mut parts: Parts, located: Located) -> Response {
    let accepted = match upgrade::accept(&mut parts, &PROTOCOLS, Caller::RemoteCommand) {
        Ok(accepted) => accepted,
        Err(answer) => return answer,
    };
    let protocol = accepted.protocol;
    tokio::spawn(async move {
        let Ok(upgraded) = accepted.on_upgrade.await else {
            return;
        };
        // Counted while it runs: a client waiting on its command is not idle.
        let _in_flight = server.in_flight.enter();
        let (incoming, writer) = session::serve(hyper_util::rt::TokioIo::new(upgraded));
        let collected = tokio::time::timeout(
            STREAM_CREATION_TIMEOUT,
            Channels::collect(incoming, writer.clone(), protocol, &located.opts),
        )
        .await;
        match collected {
            Ok(Some(channels)) => {
                super::run(&server, super::Channels::Spdy(channels), located).await;
            }
            // "timed out waiting for client to create streams", or the client left first.
            _ => {
                tracing::debug!("exec over SPDY: the client did not open its streams");
                writer.go_away(0);
            }
        }
    });
    accepted.response
}

/// Reads a stream nobody answers from, so that it never holds up the connection's other
/// streams.
fn drain(mut data: mpsc::Receiver<Vec<u8>>) {
    tokio::spawn(async move { while data.recv().await.is_some() {} });
}

/// The streams of one exec or attach.
pub(super) struct Channels {
    pub(super) protocol: &'static str,
    writer: Writer,
    incoming: mpsc::Receiver<Incoming>,
    error: Option<u32>,
    stdout: Option<u32>,
    stderr: Option<u32>,
    stdin: Option<mpsc::Receiver<Vec<u8>>>,
    /// Every stream the client opened, reset when the connection ends.
    opened: Vec<u32>,
}

impl Channels {
    /// `waitForStreams`: replies to each stream the client opens until it has every one the
    /// options call for; a stream of a type it does not know is answered and left.
    async fn collect(
        mut incoming: mpsc::Receiver<Incoming>,
        writer: Writer,
        protocol: &'static str,
        opts: &StreamOptions,
    ) -> Option<Channels> {
        let resizes = opts.tty && matches!(protocol, "v4.channel.k8s.io" | "v3.channel.k8s.io");
        let expected = 1 + [opts.stdin, opts.stdout, opts.stderr, resizes]
            .iter()
            .filter(|wanted| **wanted)
            .count();
        let (mut error, mut stdout, mut stderr, mut stdin) = (None, None, None, None);
        let mut opened = Vec::new();
        let mut received = 0;
        while received < expected {
            let stream = incoming.recv().await?;
            writer.reply(stream.id);
            opened.push(stream.id);
            let kind = header_block::get(&stream.headers, "streamtype").unwrap_or_default();
            match kind {
                "error" => error = Some(stream.id),
                "stdout" => stdout = Some(stream.id),
                "stderr" => stderr = Some(stream.id),
                "stdin" => {
                    stdin = Some(stream.data);
                    received += 1;
                    continue;
                }
                "resize" if resizes => {}
                other => {
                    tracing::debug!("exec over SPDY: unexpected stream type {other:?}");
                    drain(stream.data);
                    continue;
                }
            }
            drain(stream.data);
            received += 1;
        }
        // The first protocol's server never reported errors: it reset the error stream as soon
        // as the streams were there.
        if protocol == "channel.k8s.io" {
            if let Some(id) = error.take() {
                writer.reset(id, CANCEL);
            }
        }
        Some(Channels {
            protocol,
            writer,
            incoming,
            error,
            stdout,
            stderr,
            stdin,
            opened,
        })
    }

    pub(super) fn send(&mut self, channel: u8, data: &[u8]) -> bool {
        let id = match channel {
            STDOUT => self.stdout,
            STDERR => self.stderr,
            ERROR => self.error,
            _ => None,
        };
        match id {
            Some(id) => self.writer.data(id, data),
            None => true,
        }
    }

    /// stdin until the client closes it (its FIN), or leaves.
    pub(super) async fn read_stdin(&mut self) -> Option<Vec<u8>> {
        let mut input = Vec::new();
        if let Some(stdin) = &mut self.stdin {
            while let Some(data) = stdin.recv().await {
                input.extend_from_slice(&data);
            }
        }
        Some(input)
    }

    /// The client is gone when its connection ends; a stream it opens meanwhile is answered
    /// and left, and what it types on stdin (an attach's) is read and dropped.
    pub(super) async fn left(&mut self) {
        let Channels {
            incoming,
            stdin,
            writer,
            opened,
            ..
        } = self;
        loop {
            let typed = async {
                match stdin.as_mut() {
                    Some(stdin) => stdin.recv().await.is_none(),
                    None => std::future::pending().await,
                }
            };
            let stdin_ended = tokio::select! {
                stream = incoming.recv() => match stream {
                    None => return,
                    Some(stream) => {
                        writer.reply(stream.id);
                        opened.push(stream.id);
                        drain(stream.data);
                        false
                    }
                },
                ended = typed => ended,
            };
            if stdin_ended {
                *stdin = None;
            }
        }
    }

    /// The status on the error stream, then the connection's `Close`: every stream reset,
    /// GOAWAY.
    pub(super) fn end(self, status: Option<Vec<u8>>) {
        if let (Some(bytes), Some(id)) = (status, self.error) {
            self.writer.data(id, &bytes);
        }
        for id in &self.opened {
            self.writer.reset(*id, CANCEL);
        }
        let last = self.opened.iter().copied().max().unwrap_or_default();
        self.writer.go_away(last);
    }
}
