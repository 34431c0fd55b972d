//! What an upgrade request asks for: a WebSocket, another protocol (SPDY), or no upgrade at all
//! (`httpstream.IsUpgradeRequest`, `wsstream.IsWebSocketRequest`).

use axum::http::header;
use axum::http::request::Parts;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    WebSocket,
    Other,
    None,
}

fn has_token(parts: &Parts, name: header::HeaderName, token: &str) -> bool {
    parts
        .headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.to_ascii_lowercase().contains(token))
}

/// A request is an upgrade when its `Connection` names one; a WebSocket when `Upgrade` says so.
pub fn kind(parts: &Parts) -> Kind {
    if !has_token(parts, header::CONNECTION, "upgrade") {
        return Kind::None;
    }
    if has_token(parts, header::UPGRADE, "websocket") {
        Kind::WebSocket
    } else {
        Kind::Other
    }
}

/// The values a header lists, in order: every line of it, split at commas (Go's way of reading
/// `Sec-WebSocket-Protocol` and `X-Stream-Protocol-Version`).
pub fn listed(parts: &Parts, name: &str) -> Vec<String> {
    parts
        .headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The WebSocket subprotocols a client asks for, in its order.
pub fn websocket_protocols(parts: &Parts) -> Vec<String> {
    listed(parts, header::SEC_WEBSOCKET_PROTOCOL.as_str())
}

/// A request's head with these headers, for tests of what reads them.
#[cfg(test)]
pub(crate) fn request_parts(headers: &[(&str, &str)]) -> Parts {
    let mut request = axum::http::Request::builder().uri("/");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
        .body(())
        .map(|r| r.into_parts().0)
        .unwrap_or_else(|e| panic!("a request with {headers:?}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::request_parts as parts;

    #[test]
    fn connection_decides_an_upgrade_and_upgrade_its_kind() {
        assert_eq!(kind(&parts(&[])), Kind::None);
        assert_eq!(kind(&parts(&[("Upgrade", "websocket")])), Kind::None);
        assert_eq!(
            kind(&parts(&[
                ("Connection", "keep-alive, Upgrade"),
                ("Upgrade", "WebSocket")
            ])),
            Kind::WebSocket
        );
        assert_eq!(
            kind(&parts(&[
                ("Connection", "Upgrade"),
                ("Upgrade", "SPDY/3.1")
            ])),
            Kind::Other
        );
        let asked = parts(&[
            (
                "Sec-WebSocket-Protocol",
                "v5.channel.k8s.io, v4.channel.k8s.io",
            ),
            ("Sec-WebSocket-Protocol", "channel.k8s.io"),
        ]);
        assert_eq!(
            websocket_protocols(&asked),
            ["v5.channel.k8s.io", "v4.channel.k8s.io", "channel.k8s.io"]
        );
    }
}
