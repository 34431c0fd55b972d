//! `pods/portforward`, as kubectl meets it: the API server's checks (`PortForwardLocation`: the
//! pod, its node), then the kubelet's SPDY session (`portforward/httpstream.go`) — over the
//! upgraded connection itself (kubectl 1.30 and older, and any version's fallback), or tunnelled
//! through a WebSocket as kube-apiserver tunnels it for kubectl 1.31 and later
//! (`streamtunnel.go`) — and, behind it, what kwok's `PortForward` does on the node.

mod spdy;
mod tunnel;

use std::sync::Arc;

use axum::http::request::Parts;
use axum::response::Response;

use super::Server;
use crate::error::{ApiError, ApiResult};
use crate::registry;

/// Whether a request is for the subresource this module serves.
pub fn is_port_forward(path: &super::route::ResourcePath) -> bool {
    std::ptr::eq(path.res, &registry::PODS)
        && path.name.is_some()
        && path.subresource.as_deref() == Some("portforward")
}

/// The pod whose ports are forwarded.
struct Located {
    pod: String,
    namespace: String,
}

/// `PortForwardLocation`: the pod must exist and be bound to a node that has an address.
fn locate(server: &Server, parts: &Parts, path: &super::route::ResourcePath) -> ApiResult<Located> {
    if parts.method != axum::http::Method::GET && parts.method != axum::http::Method::POST {
        return Err(ApiError::method_not_supported(
            path.res,
            &parts.method.as_str().to_lowercase(),
        ));
    }
    let namespace = path.namespace.clone().unwrap_or_default();
    let name = path.name.clone().unwrap_or_default();
    let pod = server.api.get(path.res, &namespace, &name)?;
    crate::debugging::location::node_of(&server.api, &pod.value)?.ok_or_else(|| {
        ApiError::bad_request(format!("pod {name} does not have a host assigned"))
    })?;
    Ok(Located {
        pod: name,
        namespace,
    })
}

pub async fn serve(
    server: Arc<Server>,
    mut parts: Parts,
    path: super::route::ResourcePath,
) -> Response {
    let located = match locate(&server, &parts, &path) {
        Ok(located) => located,
        Err(e) => return super::respond::error(&e),
    };
    match super::upgrade::kind(&parts) {
        super::upgrade::Kind::WebSocket => tunnel::serve(server, parts, located).await,
        super::upgrade::Kind::Other => match super::spdy::upgrade::accept(
            &mut parts,
            &[spdy::PROTOCOL],
            super::spdy::upgrade::Caller::PortForward,
        ) {
            Err(answer) => answer,
            Ok(accepted) => {
                tokio::spawn(async move {
                    if let Ok(upgraded) = accepted.on_upgrade.await {
                        let io = hyper_util::rt::TokioIo::new(upgraded);
                        spdy::run(&server, &located, io).await;
                    }
                });
                accepted.response
            }
        },
        super::upgrade::Kind::None => {
            super::respond::error(&ApiError::bad_request("Upgrade request required"))
        }
    }
}
