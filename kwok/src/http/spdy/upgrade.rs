//! The SPDY upgrade as the kubelet's streaming server answers it: `httpstream.Handshake` picks
//! the stream protocol the client lists first among the server's, then
//! `responseUpgrader.UpgradeResponse` checks the upgrade headers and switches protocols.

use axum::body::Body;
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;

use crate::http::respond::go_http_error;

/// `httpstream.HeaderProtocolVersion`.
pub const PROTOCOL_VERSION: &str = "X-Stream-Protocol-Version";
const ACCEPTED_VERSIONS: &str = "X-Accepted-Stream-Protocol-Versions";

/// Who asks: their answers differ where the handshake fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// `ServeExec`/`ServeAttach`: a missing protocol is a 400, and a refused one's text is
    /// written twice (the handshake's 403, then the caller's own `http.Error`).
    RemoteCommand,
    /// `ServePortForward`: a missing protocol is logged and the request ends unanswered (200).
    PortForward,
}

/// An accepted upgrade: the 101 to send, the protocol agreed, and the connection once switched.
pub struct Accepted {
    pub response: Response,
    pub protocol: &'static str,
    pub on_upgrade: hyper::upgrade::OnUpgrade,
}

/// Go's `%v` of a string slice: `[a b]`.
fn go_list<S: AsRef<str>>(items: &[S]) -> String {
    let words: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    format!("[{}]", words.join(" "))
}

/// Go's `%#v` of the request's `http.Header`: canonical names, sorted, each with its values.
fn go_header_dump(parts: &Parts) -> String {
    let mut names: Vec<String> = parts
        .headers
        .keys()
        .map(|name| {
            name.as_str()
                .split('-')
                .map(|word| {
                    let mut chars = word.chars();
                    chars.next().map_or(String::new(), |first| {
                        first.to_ascii_uppercase().to_string() + chars.as_str()
                    })
                })
                .collect::<Vec<_>>()
                .join("-")
        })
        .collect();
    names.sort();
    names.dedup();
    let entries: Vec<String> = names
        .iter()
        .map(|name| {
            let values: Vec<String> = parts
                .headers
                .get_all(name.as_str())
                .iter()
                .map(|v| format!("{:?}", String::from_utf8_lossy(v.as_bytes())))
                .collect();
            format!("{name:?}:[]string{{{}}}", values.join(", "))
        })
        .collect();
    format!("http.Header{{{}}}", entries.join(", "))
}

/// The handshake and the upgrade; an answer to send instead when either fails.
pub fn accept(
    parts: &mut Parts,
    supported: &[&'static str],
    caller: Caller,
) -> Result<Accepted, Response> {
    let asked = crate::http::upgrade::listed(parts, PROTOCOL_VERSION);
    if asked.is_empty() {
        return Err(match caller {
            Caller::RemoteCommand => go_http_error(
                StatusCode::BAD_REQUEST,
                format!("unable to upgrade: {PROTOCOL_VERSION} is required\n"),
            ),
            Caller::PortForward => Response::new(Body::empty()),
        });
    }
    let Some(protocol) = asked
        .iter()
        .find_map(|a| supported.iter().find(|s| **s == a.as_str()).copied())
    else {
        let line = format!(
            "unable to upgrade: unable to negotiate protocol: client supports {}, server accepts {}\n",
            go_list(&asked),
            go_list(supported)
        );
        let body = match caller {
            Caller::RemoteCommand => line.repeat(2),
            Caller::PortForward => line,
        };
        let mut response = go_http_error(StatusCode::FORBIDDEN, body);
        for accepted in supported {
            response
                .headers_mut()
                .append(ACCEPTED_VERSIONS, HeaderValue::from_static(accepted));
        }
        return Err(response);
    };
    let has = |name: header::HeaderName, token: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().contains(token))
    };
    if !has(header::CONNECTION, "upgrade") || !has(header::UPGRADE, "spdy/3.1") {
        return Err(go_http_error(
            StatusCode::BAD_REQUEST,
            format!(
                "unable to upgrade: missing upgrade headers in request: {}\n",
                go_header_dump(parts)
            ),
        ));
    }
    // An HTTP/2 request cannot switch protocols; kubectl dials HTTP/1.1 for this.
    let Some(on_upgrade) = parts.extensions.remove::<hyper::upgrade::OnUpgrade>() else {
        return Err(go_http_error(
            StatusCode::BAD_REQUEST,
            "unable to upgrade: the connection cannot switch protocols\n",
        ));
    };
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    headers.insert(header::UPGRADE, HeaderValue::from_static("SPDY/3.1"));
    headers.insert(PROTOCOL_VERSION, HeaderValue::from_static(protocol));
    Ok(Accepted {
        response,
        protocol,
        on_upgrade,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::http::upgrade::request_parts as parts;

    async fn body(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    const KUBELET: [&str; 4] = [
        "v4.channel.k8s.io",
        "v3.channel.k8s.io",
        "v2.channel.k8s.io",
        "channel.k8s.io",
    ];

    #[tokio::test]
    async fn a_missing_or_unknown_protocol_is_answered_as_the_kubelet_answers_it() {
        let mut none = parts(&[("Connection", "Upgrade"), ("Upgrade", "SPDY/3.1")]);
        let refused = accept(&mut none, &KUBELET, Caller::RemoteCommand)
            .err()
            .unwrap();
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            body(refused).await,
            "unable to upgrade: X-Stream-Protocol-Version is required\n"
        );
        let ignored = accept(&mut none, &["portforward.k8s.io"], Caller::PortForward)
            .err()
            .unwrap();
        assert_eq!(ignored.status(), StatusCode::OK);

        let mut odd = parts(&[
            ("Connection", "Upgrade"),
            ("Upgrade", "SPDY/3.1"),
            (PROTOCOL_VERSION, "v9.channel.k8s.io, v8"),
        ]);
        let refused = accept(&mut odd, &KUBELET, Caller::RemoteCommand)
            .err()
            .unwrap();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        assert_eq!(
            refused.headers().get_all(ACCEPTED_VERSIONS).iter().count(),
            4
        );
        let line = "unable to upgrade: unable to negotiate protocol: client supports [v9.channel.k8s.io v8], server accepts [v4.channel.k8s.io v3.channel.k8s.io v2.channel.k8s.io channel.k8s.io]\n";
        assert_eq!(body(refused).await, line.repeat(2));
    }

    #[tokio::test]
    async fn missing_upgrade_headers_are_named_with_the_request_headers() {
        let mut plain = parts(&[
            (PROTOCOL_VERSION, "portforward.k8s.io"),
            ("user-agent", "k"),
        ]);
        let refused = accept(&mut plain, &["portforward.k8s.io"], Caller::PortForward)
            .err()
            .unwrap();
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            body(refused).await,
            "unable to upgrade: missing upgrade headers in request: http.Header{\"User-Agent\":[]string{\"k\"}, \"X-Stream-Protocol-Version\":[]string{\"portforward.k8s.io\"}}\n"
        );
    }
}
