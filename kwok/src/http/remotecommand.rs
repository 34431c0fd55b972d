//! `pods/exec` and `pods/attach` over WebSocket, the way a client meets them upstream: the API
//! server's checks (`ExecLocation`, `AttachLocation`: the pod, its container, its node), then the
//! channel protocol — `v5.channel.k8s.io` as kube-apiserver's stream translator speaks it
//! (kubectl 1.30 and later), the older `channel.k8s.io` protocols as the kubelet speaks them
//! behind the API server's proxy (the Python client) — and what kwok's handlers do on the node.
//!
//! Frames are a channel byte and data (`wsstream.Conn`): 0 stdin, 1 stdout, 2 stderr, 3 the
//! final `Status`, 4 terminal sizes; `v5` adds the half-close `[255, channel]`. SPDY upgrades
//! (kubectl 1.29 and older) are not served.

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::Server;
use crate::debugging::exec::{ExecCall, ExecOutput};
use crate::error::{ApiError, ApiResult};
use crate::registry;

const V5: &str = "v5.channel.k8s.io";
/// The kubelet's protocols (`remotecommand/websocket.go`), in no order of preference: the
/// client's order decides.
const KUBELET_PROTOCOLS: [&str; 4] = [
    "channel.k8s.io",
    "base64.channel.k8s.io",
    "v4.channel.k8s.io",
    "v4.base64.channel.k8s.io",
];

const STDIN: u8 = 0;
const STDOUT: u8 = 1;
const STDERR: u8 = 2;
const ERROR: u8 = 3;
/// `remotecommand.StreamClose`.
const STREAM_CLOSE: u8 = 255;

/// Which of the two connect subresources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Exec,
    Attach,
}

/// `PodExecOptions` / `PodAttachOptions` as the query gives them.
#[derive(Debug, Clone, Default, PartialEq)]
struct StreamOptions {
    container: String,
    command: Vec<String>,
    stdin: bool,
    stdout: bool,
    stderr: bool,
    tty: bool,
}

impl StreamOptions {
    /// The query's values, every `command` kept in order; booleans read as `strconv.ParseBool`.
    fn from_query(raw: Option<&str>) -> ApiResult<StreamOptions> {
        let mut opts = StreamOptions::default();
        for (key, value) in form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
            let flag = |v: &str| -> ApiResult<bool> {
                match v {
                    "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
                    "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
                    _ => Err(ApiError::bad_request(format!(
                        "strconv.ParseBool: parsing {}: invalid syntax",
                        crate::error::go_quote(v)
                    ))),
                }
            };
            match key.as_ref() {
                "container" if opts.container.is_empty() => opts.container = value.into_owned(),
                "command" => opts.command.push(value.into_owned()),
                "stdin" => opts.stdin = flag(&value)?,
                "stdout" => opts.stdout = flag(&value)?,
                "stderr" => opts.stderr = flag(&value)?,
                "tty" => opts.tty = flag(&value)?,
                _ => {}
            }
        }
        // The kubelet's `NewOptions`: a terminal has no separate stderr.
        if opts.tty {
            opts.stderr = false;
        }
        Ok(opts)
    }
}

/// Whether a request is for one of the streaming subresources this module serves.
pub fn action_of(path: &super::route::ResourcePath) -> Option<Action> {
    if !std::ptr::eq(path.res, &registry::PODS) || path.name.is_none() {
        return None;
    }
    match path.subresource.as_deref() {
        Some("exec") => Some(Action::Exec),
        Some("attach") => Some(Action::Attach),
        _ => None,
    }
}

/// Answers an exec or attach request: an error before the upgrade, or the upgrade and a task that
/// serves the stream.
pub async fn serve(
    server: Arc<Server>,
    mut parts: Parts,
    path: super::route::ResourcePath,
    action: Action,
) -> Response {
    match locate(&server, &parts, &path, action) {
        Err(e) => super::respond::error(&e),
        Ok(located) => {
            let protocols = requested_protocols(&parts);
            let Ok(upgrade) = WebSocketUpgrade::from_request_parts(&mut parts, &()).await else {
                // `UpgradeAwareHandler` with `UpgradeRequired`.
                return super::respond::error(&ApiError::bad_request("Upgrade request required"));
            };
            // kube-apiserver translates a `v5` request itself; any other goes to the kubelet.
            let supported: &[&str] = if protocols.iter().any(|p| p == V5) {
                &[V5]
            } else {
                &KUBELET_PROTOCOLS
            };
            let Some(protocol) = negotiate(&protocols, supported) else {
                return super::respond::error(&ApiError::bad_request(format!(
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
                    let mut stream = Stream::new(socket, protocol);
                    stream.run(&server, located).await;
                })
                .into_response()
        }
    }
}

/// What the checks before the upgrade found.
struct Located {
    pod: String,
    namespace: String,
    container: String,
    opts: StreamOptions,
    action: Action,
}

/// `ExecLocation`/`AttachLocation` → `streamLocation`, then the kubelet's `NewOptions`.
fn locate(
    server: &Server,
    parts: &Parts,
    path: &super::route::ResourcePath,
    action: Action,
) -> ApiResult<Located> {
    let res = path.res;
    if parts.method != axum::http::Method::GET && parts.method != axum::http::Method::POST {
        return Err(ApiError::method_not_supported(
            res,
            &parts.method.as_str().to_lowercase(),
        ));
    }
    let opts = StreamOptions::from_query(parts.uri.query())?;
    let namespace = path.namespace.clone().unwrap_or_default();
    let name = path.name.clone().unwrap_or_default();
    let pod = server.api.get(res, &namespace, &name)?;
    let container = crate::debugging::location::container(&opts.container, &pod.value)?;
    crate::debugging::location::node_of(&server.api, &pod.value)?.ok_or_else(|| {
        ApiError::bad_request(format!("pod {name} does not have a host assigned"))
    })?;
    if !opts.stdin && !opts.stdout && !opts.stderr {
        return Err(ApiError::bad_request(
            "you must specify at least 1 of stdin, stdout, stderr",
        ));
    }
    Ok(Located {
        pod: name,
        namespace,
        container,
        opts,
        action,
    })
}

/// The protocols a client asks for, in its order (`Sec-WebSocket-Protocol`, comma-separated).
fn requested_protocols(parts: &Parts) -> Vec<String> {
    parts
        .headers
        .get_all("sec-websocket-protocol")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
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
struct Stream {
    socket: WebSocket,
    protocol: &'static str,
}

impl Stream {
    fn new(socket: WebSocket, protocol: &'static str) -> Stream {
        Stream { socket, protocol }
    }

    fn base64(&self) -> bool {
        self.protocol.contains("base64")
    }

    async fn send(&mut self, channel: u8, data: &[u8]) -> bool {
        let message = if self.base64() {
            use base64::Engine;
            let mut text = String::from(char::from(b'0' + channel));
            text.push_str(&base64::engine::general_purpose::STANDARD.encode(data));
            Message::Text(text.into())
        } else {
            let mut frame = Vec::with_capacity(data.len() + 1);
            frame.push(channel);
            frame.extend_from_slice(data);
            Message::Binary(frame.into())
        };
        self.socket.send(message).await.is_ok()
    }

    async fn run(&mut self, server: &Server, located: Located) {
        let opts = &located.opts;
        // "Send an empty message to the lowest writable channel to notify the client the
        // connection is established."
        let first = if opts.stdout {
            STDOUT
        } else if opts.stderr {
            STDERR
        } else {
            ERROR
        };
        if !self.send(first, &[]).await {
            return;
        }
        let status = match located.action {
            Action::Exec => self.exec(server, &located).await,
            Action::Attach => self.attach(server, &located).await,
        };
        if let Some(status) = status {
            let status = self.final_status(status);
            if let Some(bytes) = status {
                let _ = self.send(ERROR, &bytes).await;
            }
        }
        let _ = self
            .socket
            .send(Message::Close(Some(CloseFrame {
                code: axum::extract::ws::close_code::NORMAL,
                reason: "".into(),
            })))
            .await;
    }

    /// kwok's `ExecInContainer` behind the kubelet's `ServeExec`. `None` when the client left.
    async fn exec(&mut self, server: &Server, located: &Located) -> Option<Result<(), String>> {
        let opts = &located.opts;
        let target =
            server
                .debugging
                .exec_target(&located.pod, &located.namespace, &located.container);
        let local = match target {
            Err(why) => return Some(Err(format!("error executing command in container: {why}"))),
            Ok(target) => match &target.local {
                None => {
                    return Some(Err(
                        "error executing command in container: not set local exec".into(),
                    ))
                }
                Some(local) => local.clone(),
            },
        };
        if opts.command.is_empty() {
            return Some(Err(
                "error executing command in container: no command given".into(),
            ));
        }
        let stdin = if opts.stdin {
            Some(self.read_stdin().await?)
        } else {
            None
        };
        let call = ExecCall::new(opts.command.clone(), &local, stdin);
        let runner = server.exec_runner.clone();
        let ran = {
            let call = call.clone();
            tokio::task::spawn_blocking(move || runner.run(&call)).await
        };
        let output = match ran {
            Ok(output) => output,
            Err(e) => return Some(Err(format!("error executing command in container: {e}"))),
        };
        self.write_output(opts, &output).await?;
        Some(match output.error(&call, opts.stderr) {
            None => Ok(()),
            Some(why) => Err(format!("error executing command in container: {why}")),
        })
    }

    /// kwok's `AttachContainer`: what the target's log file gains from now on, until the client
    /// leaves (kwok never ends an attach itself).
    async fn attach(&mut self, server: &Server, located: &Located) -> Option<Result<(), String>> {
        let target = server
            .debugging
            .attach(&located.pod, &located.namespace, &located.container);
        let config = match target {
            Err(why) => return Some(Err(format!("error attaching to container: {why}"))),
            Ok(config) => config.clone(),
        };
        let path = std::path::PathBuf::from(config.logs_file.unwrap_or_default());
        let mut follower = match crate::debugging::logs::Follower::from_end(path) {
            Ok(follower) => follower,
            Err(why) => return Some(Err(format!("error attaching to container: {why}"))),
        };
        let mut shutdown = server.shutdown.clone();
        loop {
            tokio::select! {
                chunk = follower.next() => match chunk {
                    Some(chunk) if located.opts.stdout => {
                        if !self.send(STDOUT, &chunk).await {
                            return None;
                        }
                    }
                    Some(_) => {}
                    None => return Some(Ok(())),
                },
                incoming = self.socket.recv() => match incoming {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return None,
                    Some(Ok(_)) => {}
                },
                _ = shutdown.changed() => return None,
            }
        }
    }

    /// The client's stdin until it closes it (`v5`'s half-close) or the connection; `None` when
    /// the client left without closing stdin on a protocol that can.
    async fn read_stdin(&mut self) -> Option<Vec<u8>> {
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
            let Some((&channel, rest)) = data.split_first() else {
                continue;
            };
            if self.protocol == V5 && channel == STREAM_CLOSE {
                if rest == [STDIN] {
                    return Some(input);
                }
                continue;
            }
            let (channel, rest) = if self.base64() {
                use base64::Engine;
                let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(rest) else {
                    continue;
                };
                (channel.wrapping_sub(b'0'), decoded)
            } else {
                (channel, rest.to_vec())
            };
            if channel == STDIN {
                input.extend_from_slice(&rest);
            }
        }
    }

    async fn write_output(&mut self, opts: &StreamOptions, output: &ExecOutput) -> Option<()> {
        if opts.stdout && !output.stdout.is_empty() && !self.send(STDOUT, &output.stdout).await {
            return None;
        }
        if opts.stderr && !output.stderr.is_empty() && !self.send(STDERR, &output.stderr).await {
            return None;
        }
        Some(())
    }

    /// The `Status` written on the error channel, as each path writes it: kube-apiserver's
    /// translator for `v5` (a node's error arrives there already wrapped once, and is wrapped
    /// again), the kubelet's `v4WriteStatusFunc` (JSON) or `v1WriteStatusFunc` (the message
    /// alone, nothing on success) for the older protocols.
    fn final_status(&self, outcome: Result<(), String>) -> Option<Vec<u8>> {
        let internal = |message: String| {
            json!({
                "metadata": {},
                "status": "Failure",
                "message": format!("Internal error occurred: {message}"),
                "reason": "InternalError",
                "details": {"causes": [{"message": message}]},
                "code": 500,
            })
        };
        let status: Value = match (&outcome, self.protocol) {
            (Ok(()), _) => json!({"metadata": {}, "status": "Success"}),
            (Err(why), V5) => internal(format!("Internal error occurred: {why}")),
            (Err(why), _) => internal(why.clone()),
        };
        if self.protocol.starts_with("v4.") || self.protocol == V5 {
            return Some(crate::go_json::html_escaped(&status.to_string()).into_bytes());
        }
        match outcome {
            Ok(()) => None,
            Err(_) => status["message"].as_str().map(|m| m.as_bytes().to_vec()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_reads_every_command_and_go_booleans() {
        let opts = StreamOptions::from_query(Some(
            "command=sh&command=-c&command=echo+hi&container=a&stdout=true&stderr=1&tty=T",
        ))
        .expect("options");
        assert_eq!(opts.command, ["sh", "-c", "echo hi"]);
        assert_eq!(opts.container, "a");
        assert!(opts.stdout && opts.tty && !opts.stdin);
        assert!(!opts.stderr, "a terminal has no stderr of its own");
        let error = StreamOptions::from_query(Some("stdout=yes")).expect_err("bad flag");
        assert_eq!(
            error.message,
            r#"strconv.ParseBool: parsing "yes": invalid syntax"#
        );
    }

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
