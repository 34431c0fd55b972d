//! Exec and attach over WebSocket: `v5.channel.k8s.io` as kube-apiserver's stream translator
//! speaks it (kubectl 1.30 and later), the older `channel.k8s.io` protocols as the kubelet speaks
//! them behind the API server's proxy (the Python client). Frames are a channel byte and data
//! (`wsstream.Conn`): 0 stdin, 1 stdout, 2 stderr, 3 the final `Status`, 4 terminal sizes; `v5`
//! adds the half-close `[255, channel]`; the base64 protocols send the channel as a digit and
//! the data in base64, as text.

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};

use super::{Located, ERROR, STDERR, STDIN, STDOUT, V5};
use crate::error::ApiError;
use crate::http::Server;

/// The kubelet's protocols (`remotecommand/websocket.go`), in no order of preference: the
/// client's order decides.
const KUBELET_PROTOCOLS: [&str; 4] = [
    "channel.k8s.io",
    "base64.channel.k8s.io",
    "v4.channel.k8s.io",
    "v4.base64.channel.k8s.io",
];
/// `remotecommand.StreamClose`.
const STREAM_CLOSE: u8 = 255;

pub(super) async fn serve(server: Arc<Server>, mut parts: Parts, located: Located) -> Response {
    let protocols = crate::http::upgrade::websocket_protocols(&parts);
    let Ok(upgrade) = WebSocketUpgrade::from_request_parts(&mut parts, &()).await else {
        return crate::http::respond::error(&ApiError::bad_request("Upgrade request required"));
    };
    // kube-apiserver translates a `v5` request itself; any other goes to the kubelet.
    let supported: &[&str] = if protocols.iter().any(|p| p == V5) {
        &[V5]
    } else {
        &KUBELET_PROTOCOLS
    };
    let Some(protocol) = negotiate(&protocols, supported) else {
        return crate::http::respond::error(&ApiError::bad_request(format!(
            "requested protocol(s) are not supported: {protocols:?}; supports {supported:?}"
        )));
    };
    let mut upgrade = upgrade;
    if !protocol.is_empty() {
        upgrade = upgrade.protocols([protocol]);
    }
    upgrade
        .on_upgrade(move |socket| async move {
            // Counted while it runs: a client waiting on its command is not idle.
            let _in_flight = server.in_flight.enter();
            let mut channels = Channels { socket, protocol };
            // "Send an empty message to the lowest writable channel to notify the client the
            // connection is established."
            let opts = &located.opts;
            let first = if opts.stdout {
                STDOUT
            } else if opts.stderr {
                STDERR
            } else {
                ERROR
            };
            if channels.send(first, &[]).await {
                super::run(
                    &server,
                    super::Channels::WebSocket(Box::new(channels)),
                    located,
                )
                .await;
            }
        })
        .into_response()
}

/// `wsstream.handshake`: the first protocol the client asks for that is supported; a client that
/// asks for none gets the kubelet's unnamed binary protocol.
fn negotiate(requested: &[String], supported: &[&'static str]) -> Option<&'static str> {
    if requested.is_empty() {
        return (!supported.contains(&V5)).then_some("");
    }
    requested
        .iter()
        .find_map(|r| supported.iter().find(|s| **s == r.as_str()).copied())
}

/// One upgraded connection.
pub(super) struct Channels {
    socket: WebSocket,
    pub(super) protocol: &'static str,
}

impl Channels {
    fn base64(&self) -> bool {
        self.protocol.contains("base64")
    }

    pub(super) async fn send(&mut self, channel: u8, data: &[u8]) -> bool {
        let message = crate::http::channel_frame::encode(channel, data, self.base64());
        self.socket.send(message).await.is_ok()
    }

    /// The client's stdin until it closes it (`v5`'s half-close) or the connection.
    pub(super) async fn read_stdin(&mut self) -> Option<Vec<u8>> {
        let mut input = Vec::new();
        loop {
            let data = match self.socket.recv().await {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => {
                    return (self.protocol != V5).then_some(input);
                }
                Some(Ok(Message::Binary(data))) => data.to_vec(),
                Some(Ok(Message::Text(text))) => text.as_bytes().to_vec(),
                Some(Ok(_)) => continue,
            };
            if self.protocol == V5 && data.first() == Some(&STREAM_CLOSE) {
                if data[1..] == [STDIN] {
                    return Some(input);
                }
                continue;
            }
            let Some((channel, rest)) = crate::http::channel_frame::decode(&data, self.base64())
            else {
                continue;
            };
            if channel == STDIN {
                input.extend_from_slice(&rest);
            }
        }
    }

    /// Reads (and drops) what the client sends until it leaves.
    pub(super) async fn left(&mut self) {
        loop {
            match self.socket.recv().await {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(_)) => {}
            }
        }
    }

    pub(super) async fn end(mut self, status: Option<Vec<u8>>) {
        if let Some(bytes) = status {
            let _ = self.send(ERROR, &bytes).await;
        }
        let _ = self
            .socket
            .send(Message::Close(Some(CloseFrame {
                code: axum::extract::ws::close_code::NORMAL,
                reason: "".into(),
            })))
            .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clients_order_decides_and_v5_is_the_api_servers_alone() {
        let asked = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            negotiate(
                &asked(&["v4.base64.channel.k8s.io", "v4.channel.k8s.io"]),
                &KUBELET_PROTOCOLS
            ),
            Some("v4.base64.channel.k8s.io")
        );
        assert_eq!(negotiate(&asked(&[]), &KUBELET_PROTOCOLS), Some(""));
        assert_eq!(negotiate(&asked(&["v5.channel.k8s.io"]), &[V5]), Some(V5));
        assert_eq!(negotiate(&asked(&["nope"]), &KUBELET_PROTOCOLS), None);
    }
}
