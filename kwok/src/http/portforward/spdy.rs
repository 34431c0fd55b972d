//! The kubelet's port-forward session over SPDY (`portforward/httpstream.go`): for each
//! connection it forwards, the client opens an error stream and a data stream naming the pod's
//! port and a request id; a complete pair is forwarded where kwok's configuration says, and a
//! failure is written as text on the pair's error stream.

use std::collections::HashMap;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use super::Located;
use crate::error::go_quote;
use crate::http::spdy::frame::CANCEL;
use crate::http::spdy::header_block::{self, Headers};
use crate::http::spdy::session::{self, Writer};
use crate::http::Server;

/// `portforward.ProtocolV1Name`.
pub const PROTOCOL: &str = "portforward.k8s.io";

/// One stream of a pair.
struct Half {
    id: u32,
    port: u16,
    data: mpsc::Receiver<Vec<u8>>,
}

/// A pair as it is being assembled.
#[derive(Default)]
struct Pair {
    error: Option<Half>,
    data: Option<Half>,
}

/// The checks `newStreamHandler` makes of a stream's headers: its port, its type.
fn check(headers: &Headers) -> Result<(u16, bool), String> {
    let port = header_block::get(headers, "port").unwrap_or_default();
    if port.is_empty() {
        return Err("\"port\" header is required".into());
    }
    let parsed = super::parse_port(port)
        .map_err(|why| format!("unable to parse {} as a port: {why}", go_quote(port)))?;
    if parsed == 0 {
        return Err(format!("port {} must be > 0", go_quote(port)));
    }
    match header_block::get(headers, "streamtype") {
        None | Some("") => Err("\"streamType\" header is required".into()),
        Some("error") => Ok((parsed, true)),
        Some("data") => Ok((parsed, false)),
        Some(other) => Err(format!("invalid stream type {}", go_quote(other))),
    }
}

/// Serves one upgraded connection until the client leaves, then closes it as the kubelet's
/// connection closes: every stream reset, GOAWAY.
pub(super) async fn run<IO>(server: &std::sync::Arc<Server>, located: &Located, io: IO)
where
    IO: AsyncRead + AsyncWrite + Send + 'static,
{
    let (mut incoming, writer) = session::serve(io);
    let mut pairs: HashMap<String, Pair> = HashMap::new();
    let mut opened = Vec::new();
    while let Some(stream) = incoming.recv().await {
        let (port, is_error) = match check(&stream.headers) {
            Ok(checked) => checked,
            Err(why) => {
                tracing::debug!("port forward: stream rejected: {why}");
                writer.reset(stream.id, CANCEL);
                continue;
            }
        };
        writer.reply(stream.id);
        opened.push(stream.id);
        // Without a request id (older clients), a pair is an error stream and the data stream
        // opened right after it.
        let key = match header_block::get(&stream.headers, "requestid") {
            Some(id) => id.to_string(),
            None if is_error => stream.id.to_string(),
            None => stream.id.saturating_sub(2).to_string(),
        };
        let half = Half {
            id: stream.id,
            port,
            data: stream.data,
        };
        let pair = pairs.entry(key.clone()).or_default();
        let slot = if is_error {
            &mut pair.error
        } else {
            &mut pair.data
        };
        if slot.is_some() {
            let which = if is_error { "error" } else { "data" };
            if let Some(error) = &pair.error {
                writer.data(
                    error.id,
                    format!("error processing stream for request {key}: {which} stream already assigned")
                        .as_bytes(),
                );
            }
            continue;
        }
        *slot = Some(half);
        if pair.error.is_some() && pair.data.is_some() {
            if let Some(Pair {
                error: Some(error),
                data: Some(data),
            }) = pairs.remove(&key)
            {
                let server = server.clone();
                let writer = writer.clone();
                let (pod, namespace) = (located.pod.clone(), located.namespace.clone());
                tokio::spawn(async move {
                    forward(&server, &pod, &namespace, error, data, &writer).await;
                });
            }
        }
    }
    for id in opened {
        writer.reset(id, CANCEL);
    }
    writer.go_away(0);
}

/// `portForward`: one pair's connection, then its streams closed; a failure on the error stream.
async fn forward(
    server: &Server,
    pod: &str,
    namespace: &str,
    mut error: Half,
    data: Half,
    writer: &Writer,
) {
    // The client never writes on the error stream; it closes its side at once.
    tokio::spawn(async move { while error.data.recv().await.is_some() {} });
    let port = data.port;
    let to_client = |bytes: &[u8]| writer.data(data.id, bytes);
    let outcome = super::forward(server, pod, namespace, port, data.data, to_client).await;
    // kwok closes the data stream as its forward returns, then the kubelet's handler writes the
    // error and resets the error stream, or closes it.
    writer.finish(data.id);
    match outcome {
        Ok(()) => writer.finish(error.id),
        Err(why) => {
            writer.data(error.id, why.as_bytes());
            writer.reset(error.id, CANCEL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> Headers {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_streams_port_and_type_are_checked_with_the_kubelets_words() {
        assert_eq!(
            check(&headers(&[("port", "80"), ("streamtype", "data")])),
            Ok((80, false))
        );
        assert_eq!(
            check(&headers(&[("port", "80"), ("streamtype", "error")])),
            Ok((80, true))
        );
        assert_eq!(
            check(&headers(&[("streamtype", "data")])).unwrap_err(),
            "\"port\" header is required"
        );
        assert_eq!(
            check(&headers(&[("port", "http"), ("streamtype", "data")])).unwrap_err(),
            "unable to parse \"http\" as a port: strconv.ParseUint: parsing \"http\": invalid syntax"
        );
        assert_eq!(
            check(&headers(&[("port", "70000"), ("streamtype", "data")])).unwrap_err(),
            "unable to parse \"70000\" as a port: strconv.ParseUint: parsing \"70000\": value out of range"
        );
        assert_eq!(
            check(&headers(&[("port", "0"), ("streamtype", "data")])).unwrap_err(),
            "port \"0\" must be > 0"
        );
        assert_eq!(
            check(&headers(&[("port", "80")])).unwrap_err(),
            "\"streamType\" header is required"
        );
        assert_eq!(
            check(&headers(&[("port", "80"), ("streamtype", "stdin")])).unwrap_err(),
            "invalid stream type \"stdin\""
        );
    }
}
