//! `pods/exec` and `pods/attach` over WebSocket, the way a client meets them upstream: the API
//! server's checks (`ExecLocation`, `AttachLocation`: the pod, its container, its node), then the
//! channel protocol — `v5.channel.k8s.io` as kube-apiserver's stream translator speaks it
//! (kubectl 1.30 and later), the older `channel.k8s.io` protocols as the kubelet speaks them
//! behind the API server's proxy (the Python client) — and what kwok's handlers do on the node.
//!
//! kubectl 1.29 and older upgrade to SPDY instead and open a stream per channel, as the kubelet
//! serves them (`remotecommand/httpstream.go`). The checks, the options and what runs are one;
//! the transports (`websocket`, `spdy`) only carry the channels.

mod spdy;
mod websocket;

use std::sync::Arc;

use axum::http::request::Parts;
use axum::response::Response;
use serde_json::{json, Value};

use super::Server;
use crate::debugging::exec::{ExecCall, ExecOutput};
use crate::error::{ApiError, ApiResult};
use crate::registry;

/// The protocol kube-apiserver's stream translator speaks itself (kubectl 1.30 and later).
const V5: &str = "v5.channel.k8s.io";

/// The channels, as numbered on a WebSocket; SPDY names them in each stream's `streamType`.
const STDIN: u8 = 0;
const STDOUT: u8 = 1;
const STDERR: u8 = 2;
const ERROR: u8 = 3;

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
    parts: Parts,
    path: super::route::ResourcePath,
    action: Action,
) -> Response {
    let located = match locate(&server, &parts, &path, action) {
        Err(e) => return super::respond::error(&e),
        Ok(located) => located,
    };
    match super::upgrade::kind(&parts) {
        super::upgrade::Kind::WebSocket => websocket::serve(server, parts, located).await,
        super::upgrade::Kind::Other => spdy::serve(server, parts, located),
        // `UpgradeAwareHandler` with `UpgradeRequired`.
        super::upgrade::Kind::None => {
            super::respond::error(&ApiError::bad_request("Upgrade request required"))
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

/// The channels of one upgraded connection, whichever transport carries them.
enum Channels {
    WebSocket(Box<websocket::Channels>),
    Spdy(spdy::Channels),
}

impl Channels {
    fn protocol(&self) -> &'static str {
        match self {
            Channels::WebSocket(c) => c.protocol,
            Channels::Spdy(c) => c.protocol,
        }
    }

    /// `false` once the client is gone.
    async fn send(&mut self, channel: u8, data: &[u8]) -> bool {
        match self {
            Channels::WebSocket(c) => c.send(channel, data).await,
            Channels::Spdy(c) => c.send(channel, data),
        }
    }

    /// What the client sends on stdin until it closes it; `None` when it left without closing
    /// stdin on a transport that can close it alone.
    async fn read_stdin(&mut self) -> Option<Vec<u8>> {
        match self {
            Channels::WebSocket(c) => c.read_stdin().await,
            Channels::Spdy(c) => c.read_stdin().await,
        }
    }

    /// Resolves when the client leaves.
    async fn left(&mut self) {
        match self {
            Channels::WebSocket(c) => c.left().await,
            Channels::Spdy(c) => c.left().await,
        }
    }

    /// The final status, when the protocol has one to send, and the end of the connection.
    async fn end(self, status: Option<Vec<u8>>) {
        match self {
            Channels::WebSocket(c) => c.end(status).await,
            Channels::Spdy(c) => c.end(status),
        }
    }
}

/// Serves an upgraded connection to its end: the command or the attach, then the status.
async fn run(server: &Server, mut channels: Channels, located: Located) {
    let outcome = match located.action {
        Action::Exec => exec(server, &mut channels, &located).await,
        Action::Attach => attach(server, &mut channels, &located).await,
    };
    let status = outcome.and_then(|outcome| final_status(channels.protocol(), outcome));
    channels.end(status).await;
}

/// kwok's `ExecInContainer` behind the kubelet's `ServeExec`. `None` when the client left.
async fn exec(
    server: &Server,
    channels: &mut Channels,
    located: &Located,
) -> Option<Result<(), String>> {
    let opts = &located.opts;
    let target = server
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
        Some(channels.read_stdin().await?)
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
    write_output(channels, opts, &output).await?;
    Some(match output.error(&call, opts.stderr) {
        None => Ok(()),
        Some(why) => Err(format!("error executing command in container: {why}")),
    })
}

/// kwok's `AttachContainer`: what the target's log file gains from now on, until the client
/// leaves (kwok never ends an attach itself).
async fn attach(
    server: &Server,
    channels: &mut Channels,
    located: &Located,
) -> Option<Result<(), String>> {
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
                    if !channels.send(STDOUT, &chunk).await {
                        return None;
                    }
                }
                Some(_) => {}
                None => return Some(Ok(())),
            },
            () = channels.left() => return None,
            _ = shutdown.changed() => return None,
        }
    }
}

async fn write_output(
    channels: &mut Channels,
    opts: &StreamOptions,
    output: &ExecOutput,
) -> Option<()> {
    if opts.stdout && !output.stdout.is_empty() && !channels.send(STDOUT, &output.stdout).await {
        return None;
    }
    if opts.stderr && !output.stderr.is_empty() && !channels.send(STDERR, &output.stderr).await {
        return None;
    }
    Some(())
}

/// The `Status` written on the error channel, as each path writes it: kube-apiserver's
/// translator for `v5` (a node's error arrives there already wrapped once, and is wrapped
/// again), the kubelet's `v4WriteStatusFunc` (JSON) or `v1WriteStatusFunc` (the message alone,
/// nothing on success) for the older protocols.
fn final_status(protocol: &str, outcome: Result<(), String>) -> Option<Vec<u8>> {
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
    let status: Value = match (&outcome, protocol) {
        (Ok(()), _) => json!({"metadata": {}, "status": "Success"}),
        (Err(why), V5) => internal(format!("Internal error occurred: {why}")),
        (Err(why), _) => internal(why.clone()),
    };
    if protocol.starts_with("v4.") || protocol == V5 {
        return Some(crate::go_json::html_escaped(&status.to_string()).into_bytes());
    }
    match outcome {
        Ok(()) => None,
        Err(_) => status["message"].as_str().map(|m| m.as_bytes().to_vec()),
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
}
