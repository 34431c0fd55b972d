//! The HTTP front of the API server: authentication, routing, content negotiation and the verb
//! handlers over [`Api`].

mod channel_frame;
pub mod discovery;
mod discovery_aggregated;
mod handlers;
pub mod in_flight;
pub mod openapi;
mod portforward;
mod proxy;
pub mod query;
mod remotecommand;
pub mod request_info;
pub mod respond;
pub mod route;
mod spdy;
pub mod table;
mod upgrade;
pub mod watch;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header;
use axum::response::Response;
use axum::Router;

use crate::api::Api;
use crate::auth::UserInfo;
use crate::error::ApiError;

/// Largest request body accepted (the apiserver's 3 MiB `MaxRequestBodyBytes`).
pub const MAX_BODY: usize = 3 * 1024 * 1024;

/// Shared state of the HTTP handlers.
pub struct Server {
    pub api: Api,
    pub token: String,
    /// Signs and checks service account tokens.
    pub keys: crate::auth::token::Keys,
    pub addr: SocketAddr,
    pub shutdown: tokio::sync::watch::Receiver<bool>,
    /// Counts the requests being handled (see [`in_flight`]).
    pub in_flight: in_flight::InFlight,
    /// What the fake nodes' kubelet serves beside the API (container logs, exec and attach
    /// targets).
    pub debugging: crate::debugging::Config,
    /// Runs what an exec target says to run.
    pub exec_runner: Arc<dyn crate::debugging::ExecRunner>,
    /// The CA whose client certificates authenticate.
    pub ca: Arc<crate::tls::ClusterCa>,
}

impl Server {
    /// What is served beside the built-in kinds: the custom resources, then the metrics API
    /// where usage is declared (metrics-server's APIService ranks below every definition's).
    pub(crate) fn served_beside_built_in(&self) -> Vec<&'static crate::resource::ResourceDef> {
        let mut served = crate::kinds::custom::served(self.api.store());
        if self.debugging.serves_metrics() {
            served.extend(crate::kinds::metrics::RESOURCES);
        }
        served
    }

    /// A metrics resource by group, version and plural, where usage is declared.
    fn metrics_resource(
        &self,
        group: &str,
        version: &str,
        plural: &str,
    ) -> Option<&'static crate::resource::ResourceDef> {
        if !self.debugging.serves_metrics() {
            return None;
        }
        crate::kinds::metrics::RESOURCES
            .into_iter()
            .find(|r| r.group == group && r.version == version && r.plural == plural)
    }
}

pub fn router(server: Arc<Server>) -> Router {
    Router::new().fallback(dispatch).with_state(server)
}

async fn dispatch(State(server): State<Arc<Server>>, req: Request<Body>) -> Response {
    // A watch's handler returns at once with a streaming body: only its set-up is counted.
    let _in_flight = server.in_flight.enter();
    let Some(requestor) = authenticate(&server, &req) else {
        return respond::error(&ApiError::unauthorized());
    };
    let (mut parts, body) = req.into_parts();
    let uri = parts.uri.to_string();
    let user = match crate::auth::impersonation::apply(&server.api, requestor, &parts.headers, &uri)
    {
        Ok(user) => user,
        Err(e) => return respond::error(&e),
    };
    let query = query::Query::parse(parts.uri.query());
    let watch = query.flag("watch");
    let store = server.api.store();
    let lookup = |g: &str, v: &str, p: &str| {
        crate::kinds::custom::find(store, g, v, p).or_else(|| server.metrics_resource(g, v, p))
    };
    // Routed once: the authorizer and the handler read the same target.
    let target = route::parse(parts.uri.path(), &lookup);
    // The serializer's pretty form, for API answers (not a watch's stream, nor the documents
    // served as they are stored: /version and OpenAPI).
    let pretty = match &target {
        route::Target::Resource(path) => !watch && !path.watch_prefix,
        route::Target::ApiVersions
        | route::Target::ApiGroupList
        | route::Target::ApiGroup(_)
        | route::Target::ResourceList { .. }
        | route::Target::Unknown => true,
        _ => false,
    } && respond::pretty_requested(
        &query,
        parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok()),
    );
    let attributes =
        request_info::attributes(parts.method.as_str(), parts.uri.path(), &target, watch);
    let decision = crate::auth::rbac::authorize(&server.api, &user, &attributes);
    if !decision.allowed {
        return respond::error(&attributes.forbidden(&user.name, &decision.reason));
    }
    parts.extensions.insert(user);
    // Exec, attach and port forwarding stream over an upgraded connection: they read no body.
    let streams = match &target {
        route::Target::Resource(path) => remotecommand::action_of(path),
        _ => None,
    };
    match (streams, target) {
        (Some(action), route::Target::Resource(path)) => {
            remotecommand::serve(server.clone(), parts, path, action).await
        }
        (None, route::Target::Resource(path)) if portforward::is_port_forward(&path) => {
            portforward::serve(server.clone(), parts, path).await
        }
        (_, target) => respond_to(&server, parts, body, target, pretty).await,
    }
}

/// Reads the body and answers a request the handlers answer whole.
async fn respond_to(
    server: &Server,
    parts: axum::http::request::Parts,
    body: Body,
    target: route::Target,
    pretty: bool,
) -> Response {
    let bytes = match read_body(body).await {
        Ok(b) => b,
        Err(too_large) => {
            let mut response = respond::error(&ApiError::request_entity_too_large(format!(
                "Request entity too large: limit is {MAX_BODY}"
            )));
            if too_large.close {
                response.headers_mut().insert(
                    header::CONNECTION,
                    header::HeaderValue::from_static("close"),
                );
            }
            return response;
        }
    };
    // A handler bug must not take the server down: answer 500 and keep serving.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handlers::handle(server, &parts, target, &bytes)
    }));
    match result {
        Ok(r) if pretty => respond::prettified(r).await,
        Ok(r) => r,
        Err(_) => {
            tracing::error!(uri = %parts.uri, "handler panicked");
            respond::error(&ApiError::internal(
                "the server encountered an unexpected condition",
            ))
        }
    }
}

/// How much of an over-long body is read and thrown away, and for how long, before the 413 is
/// sent: a client still sending when the server answers and closes gets a reset instead of the
/// answer (what net/http avoids by discarding the rest of a body after `MaxBytesReader`, then
/// closing).
const DISCARD_LIMIT: usize = 64 * 1024 * 1024;
const DISCARD_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// A body over [`MAX_BODY`]; `close` when the rest of it could not be read to its end.
struct TooLarge {
    close: bool,
}

/// The request body, at most [`MAX_BODY`] bytes; past that the rest is read and dropped (up to
/// [`DISCARD_LIMIT`] within [`DISCARD_TIME`]) so that the client reads the 413.
async fn read_body(body: Body) -> Result<bytes::Bytes, TooLarge> {
    use futures::StreamExt;
    let mut stream = body.into_data_stream();
    let mut kept = bytes::BytesMut::new();
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else {
            return Err(TooLarge { close: true });
        };
        if kept.len() + chunk.len() <= MAX_BODY {
            kept.extend_from_slice(&chunk);
            continue;
        }
        let discard = async {
            let mut dropped = chunk.len();
            while let Some(chunk) = stream.next().await {
                dropped += chunk.map(|c| c.len()).unwrap_or(DISCARD_LIMIT);
                if dropped > DISCARD_LIMIT {
                    return false;
                }
            }
            true
        };
        let drained = tokio::time::timeout(DISCARD_TIME, discard)
            .await
            .unwrap_or(false);
        return Err(TooLarge { close: !drained });
    }
    Ok(kept.freeze())
}

/// Who sends a request: the subject of a client certificate the cluster's CA issued (the
/// handshake takes any; upstream's authenticator chain asks it before any token), else the user its bearer
/// token names: the cluster's own token is its admin; anything else must be a service account
/// token this cluster issued.
fn authenticate(server: &Server, req: &Request<Body>) -> Option<UserInfo> {
    let chain = req
        .extensions()
        .get::<Arc<axum_server::tls::TlsInfo>>()
        .map(|tls| tls.peer_certificates.as_slice())
        .filter(|chain| server.ca.issued(chain));
    if let Some(user) = chain
        .and_then(<[Vec<u8>]>::first)
        .and_then(|der| crate::auth::x509::user_of(der))
    {
        return Some(user);
    }
    let token = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())?
        .strip_prefix("Bearer ")?
        .trim();
    if crate::auth::token::constant_time_eq(token.as_bytes(), server.token.as_bytes()) {
        return Some(UserInfo::admin());
    }
    server
        .keys
        .authenticate(&server.api, token, chrono::Utc::now().timestamp())
}
