//! The kubelet's own port-forward protocol over WebSocket (`portforward/websocket.go`), which
//! clients other than kubectl speak (the Python client): the ports in the query, two channels
//! per port — `2i` data, `2i+1` error — each opened by the server with the port (two bytes,
//! little-endian), one connection per port for the session, and the WebSocket closed once every
//! port's forward is done.

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;

use super::Located;
use crate::http::channel_frame::encode as frame;
use crate::http::respond::go_http_error;
use crate::http::Server;

/// `portforward.SupportedProtocols` for WebSocket: binary, then base64 text frames.
const PROTOCOLS: [&str; 2] = ["v4.channel.k8s.io", "v4.base64.channel.k8s.io"];

/// `NewV4Options`: the ports the API server passed on (`?port=`, joined with commas), with the
/// kubelet's texts.
fn checked(ports: &[u16]) -> Result<(), String> {
    if ports.is_empty() {
        return Err("query parameter \"port\" is required".into());
    }
    if ports.contains(&0) {
        let joined: Vec<String> = ports.iter().map(u16::to_string).collect();
        return Err(format!(
            "port {} must be > 0",
            crate::error::go_quote(&joined.join(","))
        ));
    }
    Ok(())
}

pub(super) async fn serve(server: Arc<Server>, mut parts: Parts, located: Located) -> Response {
    if let Err(why) = checked(&located.ports) {
        return go_http_error(StatusCode::BAD_REQUEST, why + "\n");
    }
    let ports = located.ports.clone();
    let asked = crate::http::upgrade::websocket_protocols(&parts);
    let protocol = match asked
        .iter()
        .find_map(|a| PROTOCOLS.iter().find(|p| **p == a.as_str()))
    {
        Some(protocol) => Some(*protocol),
        None if asked.is_empty() => None,
        // x/net's handshake refuses with a bare 403.
        None => return StatusCode::FORBIDDEN.into_response(),
    };
    let Ok(mut upgrade) = WebSocketUpgrade::from_request_parts(&mut parts, &()).await else {
        return crate::http::respond::error(&crate::error::ApiError::bad_request(
            "Upgrade request required",
        ));
    };
    if let Some(protocol) = protocol {
        upgrade = upgrade.protocols([protocol]);
    }
    let base64 = protocol.is_some_and(|p| p.contains("base64"));
    upgrade
        .on_upgrade(move |socket| async move {
            run(&server, &located, socket, ports, base64).await;
        })
        .into_response()
}

async fn run(
    server: &Arc<Server>,
    located: &Located,
    socket: WebSocket,
    ports: Vec<u16>,
    base64: bool,
) {
    let (mut sink, mut stream) = socket.split();
    let (out, mut outgoing) = mpsc::unbounded_channel::<Message>();
    let writer = tokio::spawn(async move {
        while let Some(message) = outgoing.recv().await {
            let last = matches!(message, Message::Close(_));
            if sink.send(message).await.is_err() || last {
                break;
            }
        }
    });
    // Every data channel, then every error channel, opens with its port.
    for (i, port) in ports.iter().enumerate() {
        let _ = out.send(frame(2 * i as u8, &port.to_le_bytes(), base64));
    }
    for (i, port) in ports.iter().enumerate() {
        let _ = out.send(frame(2 * i as u8 + 1, &port.to_le_bytes(), base64));
    }
    let mut inputs = Vec::new();
    let mut forwards = Vec::new();
    for (i, port) in ports.iter().copied().enumerate() {
        let (input, from_client) = mpsc::channel(16);
        inputs.push(Some(input));
        let (server, out) = (server.clone(), out.clone());
        let (pod, namespace) = (located.pod.clone(), located.namespace.clone());
        forwards.push(tokio::spawn(async move {
            let data = 2 * i as u8;
            let to_client = |bytes: &[u8]| out.send(frame(data, bytes, base64)).is_ok();
            if let Err(why) =
                super::forward(&server, &pod, &namespace, port, from_client, to_client).await
            {
                let _ = out.send(frame(data + 1, why.as_bytes(), base64));
            }
        }));
    }
    let all_done = futures::future::join_all(forwards);
    tokio::pin!(all_done);
    loop {
        tokio::select! {
            _ = &mut all_done => break,
            message = stream.next() => {
                let bytes = match message {
                    Some(Ok(Message::Binary(bytes))) => bytes.to_vec(),
                    Some(Ok(Message::Text(text))) => text.as_bytes().to_vec(),
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    // The client closed: every port's input ends.
                    _ => {
                        inputs.clear();
                        (&mut all_done).await;
                        break;
                    }
                };
                let Some((channel, data)) = crate::http::channel_frame::decode(&bytes, base64)
                else {
                    continue;
                };
                // Only a data channel is written to; an empty message says nothing.
                if channel % 2 != 0 || data.is_empty() {
                    continue;
                }
                if let Some(Some(input)) = inputs.get(usize::from(channel / 2)) {
                    let _ = input.send(data).await;
                }
            }
        }
    }
    let _ = out.send(Message::Close(Some(CloseFrame {
        code: axum::extract::ws::close_code::NORMAL,
        reason: "".into(),
    })));
    drop(out);
    let _ = writer.await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kubelet_wants_ports_and_none_of_them_zero() {
        assert_eq!(checked(&[80, 443]), Ok(()));
        assert_eq!(
            checked(&[]).unwrap_err(),
            "query parameter \"port\" is required"
        );
        assert_eq!(checked(&[80, 0]).unwrap_err(), "port \"80,0\" must be > 0");
    }
}
