//! Port forwarding tunnelled through a WebSocket, as kube-apiserver serves kubectl 1.31 and
//! later (`PortForwardWebsockets`, `streamtunnel.go`): the client asks for the subprotocol
//! `SPDY/3.1+portforward.k8s.io` and then speaks SPDY inside binary messages, whose boundaries
//! mean nothing — the messages are one byte stream each way. A WebSocket asking for no tunnel
//! speaks the kubelet's channels instead (`websocket`).

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

use super::Located;
use crate::error::ApiError;
use crate::http::respond::go_http_error;
use crate::http::Server;

/// `portforward.WebsocketsSPDYTunnelingPrefix` and the protocol it carries.
const PREFIX: &str = "SPDY/3.1+";
const TUNNELED: &str = "SPDY/3.1+portforward.k8s.io";

pub(super) async fn serve(server: Arc<Server>, mut parts: Parts, located: Located) -> Response {
    let asked = crate::http::upgrade::websocket_protocols(&parts);
    let tunneled: Vec<&str> = asked
        .iter()
        .filter(|p| p.starts_with(PREFIX) && p.ends_with(".k8s.io"))
        .map(|p| &p[PREFIX.len()..])
        .collect();
    if tunneled.is_empty() {
        return super::websocket::serve(server, parts, located).await;
    }
    if !tunneled.contains(&super::spdy::PROTOCOL) {
        return go_http_error(
            StatusCode::FORBIDDEN,
            format!(
                "unable to upgrade: unable to negotiate protocol: client supports [{}], server accepts [{}]\n",
                tunneled.join(" "),
                super::spdy::PROTOCOL
            ),
        );
    }
    let Ok(upgrade) = WebSocketUpgrade::from_request_parts(&mut parts, &()).await else {
        return crate::http::respond::error(&ApiError::bad_request("Upgrade request required"));
    };
    upgrade
        .protocols([TUNNELED])
        .on_upgrade(move |socket| async move {
            let (ours, theirs) = tokio::io::duplex(64 * 1024);
            tokio::spawn(carry(socket, theirs));
            super::spdy::run(&server, &located, ours).await;
        })
        .into_response()
}

/// Moves bytes between the WebSocket's binary messages and the SPDY session's end of a pipe,
/// until either side is done; then closes the WebSocket normally.
async fn carry(mut socket: WebSocket, mut pipe: DuplexStream) {
    let mut buf = vec![0u8; 32 * 1024];
    loop {
        tokio::select! {
            message = socket.recv() => match message {
                Some(Ok(Message::Binary(bytes))) => {
                    if pipe.write_all(&bytes).await.is_err() {
                        break;
                    }
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                // "invalid message type received", a close, or the connection gone.
                _ => break,
            },
            read = pipe.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if socket.send(Message::Binary(buf[..n].to_vec().into())).await.is_err() {
                        break;
                    }
                }
            },
        }
    }
    let _ = pipe.shutdown().await;
    let _ = socket
        .send(Message::Close(Some(CloseFrame {
            code: axum::extract::ws::close_code::NORMAL,
            reason: "".into(),
        })))
        .await;
}
