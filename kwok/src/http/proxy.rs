//! The `proxy` subresources of pods, services and nodes (`ProxyREST` in
//! `pkg/registry/core/{pod,service,node}`): where the API server sends the request
//! (`ResourceLocation` of each kind), then what answers there.
//!
//! A fake cluster has no pod network. A pod's or an endpoint's address is one nothing listens
//! on, and the answer is the one an unreachable host gets. It is never dialled: a learner can
//! write any address into a pod's status, and the grader's machine is not theirs to reach. A
//! fake node's kubelet is kwok's own server ([`crate::debugging::kubelet`]), at the node's
//! preferred address and kubelet port.

use std::net::{IpAddr, Ipv4Addr};

use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::Value;

use super::query::Query;
use super::route::ResourcePath;
use super::Server;
use crate::error::{go_quote, ApiError, ApiResult};
use crate::registry;
use crate::resource::ResourceDef;

/// `proxyMethods`: the methods a proxy subresource connects.
const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// `ports.KubeletPort`, kube-apiserver's `--kubelet-port`: a node that reports none is reached
/// there.
const KUBELET_PORT: i64 = 10250;

/// `--kubelet-preferred-address-types`' default order.
const PREFERRED_ADDRESS_TYPES: &[&str] = &[
    "Hostname",
    "InternalDNS",
    "InternalIP",
    "ExternalDNS",
    "ExternalIP",
];

/// Answers a request to `<kind>/<id>/proxy[/path]`.
pub fn serve(
    server: &Server,
    parts: &Parts,
    query: &Query,
    path: &ResourcePath,
) -> ApiResult<Response> {
    let method = parts.method.as_str();
    if !METHODS.contains(&method) {
        return Err(ApiError::method_not_supported(
            path.res,
            &method.to_lowercase(),
        ));
    }
    let id = path.name.as_deref().unwrap_or_default();
    let namespace = path.namespace.as_deref().unwrap_or_default();
    let proxied = path.proxied.as_deref().unwrap_or_default();
    let api = &server.api;
    let destination = match path.res.plural {
        "pods" => pod_location(api, namespace, id)?,
        "services" => service_location(api, namespace, id)?,
        "nodes" => node_location(api, id)?,
        _ => return Err(ApiError::method_not_supported(path.res, "proxy")),
    };
    // `proxyRedirectsforRootPath`: an empty path is sent on to the same one ending in `/`.
    if proxied.is_empty() && (method == "GET" || method == "HEAD") {
        return Ok(redirect_to_root(parts));
    }
    match destination {
        Destination::Kubelet => {
            let answer =
                crate::debugging::kubelet::answer(&server.debugging, method, proxied, |k| {
                    query.get(k)
                });
            Ok(kubelet_response(server, answer))
        }
        Destination::Unreachable { scheme, host, port } => {
            let port = port.unwrap_or(if scheme == "https" { 443 } else { 80 });
            Err(unreachable(&host, port))
        }
    }
}

/// Where a proxied request goes.
#[derive(Debug, PartialEq)]
enum Destination {
    /// The fake kubelet of a node.
    Kubelet,
    /// An address on the (absent) pod network, or a node's port other than its kubelet's.
    Unreachable {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

/// `utilnet.SplitSchemeNamePort`: `name`, `name:port` or `scheme:name:port`, the scheme empty,
/// `http` or `https`.
fn split_scheme_name_port(id: &str) -> Option<(&str, &str, &str)> {
    let parts: Vec<&str> = id.split(':').collect();
    let (scheme, name, port) = match parts.as_slice() {
        [name] => ("", *name, ""),
        [name, port] => ("", *name, *port),
        [scheme, name, port] => (*scheme, *name, *port),
        _ => return None,
    };
    (!name.is_empty() && matches!(scheme, "" | "http" | "https")).then_some((scheme, name, port))
}

/// A resource's object, or NotFound worded with the resource the request names: the registry
/// qualifies its NotFound from the request (`qualifiedResourceFromContext`), so a service's
/// missing Endpoints is `services "x" not found`.
fn get_named_as(
    api: &crate::api::Api,
    res: &'static ResourceDef,
    named_as: &'static ResourceDef,
    namespace: &str,
    name: &str,
) -> ApiResult<Value> {
    match api.get(res, namespace, name) {
        Ok(stored) => Ok(stored.value.clone()),
        Err(e) if e.code == 404 => Err(ApiError::not_found(named_as, name)),
        Err(e) => Err(e),
    }
}

/// `pod.ResourceLocation`: the pod's first IP, at the port asked for or the first declared
/// container port.
fn pod_location(api: &crate::api::Api, namespace: &str, id: &str) -> ApiResult<Destination> {
    let Some((scheme, name, port)) = split_scheme_name_port(id) else {
        return Err(ApiError::bad_request(format!(
            "invalid pod request {}",
            go_quote(id)
        )));
    };
    let pod = get_named_as(api, &registry::PODS, &registry::PODS, namespace, name)?;
    let port = match port {
        "" => first_container_port(&pod),
        port => Some(port.to_string()),
    };
    let ip = pod["status"]["podIPs"][0]["ip"]
        .as_str()
        .unwrap_or_default();
    if !parse_ip_sloppy(ip).is_some_and(is_global_unicast) {
        return Err(ApiError::bad_request("address not allowed"));
    }
    unreachable_at(scheme, ip, port.as_deref())
}

fn first_container_port(pod: &Value) -> Option<String> {
    items(&pod["spec"]["containers"])
        .iter()
        .find_map(|c| c["ports"][0]["containerPort"].as_i64())
        .map(|p| p.to_string())
}

/// `service.REST.ResourceLocation`: a port number is first turned into the service port's name;
/// then the first ready address of the Endpoints with a port of that name that is a pod of the
/// namespace with that IP (`isValidAddress`).
fn service_location(api: &crate::api::Api, namespace: &str, id: &str) -> ApiResult<Destination> {
    let Some((scheme, name, mut port_name)) = split_scheme_name_port(id) else {
        return Err(ApiError::bad_request(format!(
            "invalid service request {}",
            go_quote(id)
        )));
    };
    let services = &registry::SERVICES;
    let number_name;
    if let Ok(number) = port_name.parse::<i64>() {
        let service = get_named_as(api, services, services, namespace, name)?;
        let ports = items(&service["spec"]["ports"]);
        let Some(port) = ports.iter().find(|p| p["port"].as_i64() == Some(number)) else {
            return Err(service_unavailable(format!(
                "no service port {number} found for service {}",
                go_quote(name)
            )));
        };
        number_name = port["name"].as_str().unwrap_or_default().to_string();
        port_name = &number_name;
    }
    let endpoints = get_named_as(api, &registry::ENDPOINTS, services, namespace, name)?;
    let subsets = items(&endpoints["subsets"]);
    let no_endpoints = |of: &str| {
        service_unavailable(format!(
            "no endpoints available for service {}",
            go_quote(of)
        ))
    };
    if subsets.is_empty() {
        return Err(no_endpoints(name));
    }
    // Upstream starts from a random subset and address; any valid one is as unreachable.
    for subset in subsets {
        let named = items(&subset["ports"])
            .iter()
            .filter(|p| p["name"].as_str().unwrap_or_default() == port_name);
        for port in named {
            let valid = items(&subset["addresses"])
                .iter()
                .find(|a| is_pod_address(api, namespace, a));
            if let Some(address) = valid {
                let ip = address["ip"].as_str().unwrap_or_default();
                let number = port["port"].as_i64().map(|p| p.to_string());
                return unreachable_at(scheme, ip, number.as_deref());
            }
        }
    }
    Err(no_endpoints(id))
}

/// `isValidAddress`: the address names a pod of the namespace that has its IP.
fn is_pod_address(api: &crate::api::Api, namespace: &str, address: &Value) -> bool {
    let target = &address["targetRef"];
    if !target.is_object() || target["namespace"].as_str().unwrap_or_default() != namespace {
        return false;
    }
    let name = target["name"].as_str().unwrap_or_default();
    let Ok(pod) = api.get(&registry::PODS, namespace, name) else {
        return false;
    };
    let ip = address["ip"].as_str().unwrap_or_default();
    items(&pod.value["status"]["podIPs"])
        .iter()
        .any(|p| p["ip"].as_str() == Some(ip))
}

/// `node.ResourceLocation` after `GetConnectionInfo`: the node's preferred address, which must
/// be one the API server may proxy to; the kubelet when no port or the kubelet's is asked for.
fn node_location(api: &crate::api::Api, id: &str) -> ApiResult<Destination> {
    let Some((scheme, name, port)) = split_scheme_name_port(id) else {
        return Err(ApiError::bad_request(format!(
            "invalid node request {}",
            go_quote(id)
        )));
    };
    let node = get_named_as(api, &registry::NODES, &registry::NODES, "", name)?;
    let addresses = items(&node["status"]["addresses"]);
    let preferred = PREFERRED_ADDRESS_TYPES.iter().find_map(|kind| {
        addresses
            .iter()
            .find(|a| a["type"].as_str() == Some(kind))
            .map(|a| a["address"].as_str().unwrap_or_default().to_string())
    });
    let Some(host) = preferred else {
        // `NoMatchError`, not an API status: answered as an unknown 500.
        let known: Vec<String> = addresses
            .iter()
            .map(|a| {
                let field = |k: &str| a[k].as_str().unwrap_or_default().to_string();
                format!("{{{} {}}}", field("type"), field("address"))
            })
            .collect();
        return Err(ApiError::new(
            500,
            "",
            format!(
                "no preferred addresses found; known addresses: [{}]",
                known.join(" ")
            ),
        ));
    };
    if !is_proxyable_hostname(&host) {
        return Err(ApiError::bad_request("address not allowed"));
    }
    let kubelet_port = node["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"]
        .as_i64()
        .filter(|p| *p > 0)
        .unwrap_or(KUBELET_PORT)
        .to_string();
    if port.is_empty() || port == kubelet_port {
        return Ok(Destination::Kubelet);
    }
    unreachable_at(scheme, &host, Some(port))
}

/// `isProxyableHostname`: every address the name stands for is a global unicast one. On the
/// fake network a name is its node's; `localhost` (kwokctl's nodes) is the loopback.
fn is_proxyable_hostname(host: &str) -> bool {
    match parse_ip_sloppy(host) {
        Some(ip) => is_global_unicast(ip),
        None => !host.eq_ignore_ascii_case("localhost"),
    }
}

fn unreachable_at(scheme: &str, host: &str, port: Option<&str>) -> ApiResult<Destination> {
    let port = match port {
        None | Some("") => None,
        // Go's dialer reads the port before it dials: a name is looked up as a service, a
        // number must fit in 16 bits.
        Some(p) if !p.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(unreachable_with(format!(
                "dial tcp: lookup tcp/{p}: unknown port"
            )));
        }
        Some(p) => Some(p.parse::<u16>().map_err(|_| {
            let address = join_host_port(host, p);
            unreachable_with(format!("dial tcp: address {address}: invalid port"))
        })?),
    };
    Ok(Destination::Unreachable {
        scheme: scheme.to_string(),
        host: host.to_string(),
        port,
    })
}

/// `net.JoinHostPort`: an IPv6 host in brackets.
fn join_host_port(host: &str, port: impl std::fmt::Display) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// What the proxy transport answers when the dial fails (`proxy.Transport.RoundTrip`).
fn unreachable(host: &str, port: u16) -> ApiError {
    let address = join_host_port(host, port);
    unreachable_with(format!("dial tcp {address}: connect: no route to host"))
}

fn unreachable_with(error: String) -> ApiError {
    service_unavailable(format!("error trying to reach service: {error}"))
}

/// `apierrors.NewServiceUnavailable`.
fn service_unavailable(message: String) -> ApiError {
    ApiError::new(503, "ServiceUnavailable", message)
}

/// The elements of a JSON list; none when absent or not a list.
fn items(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or(&[])
}

/// `netutils.ParseIPSloppy`: an IPv4 field may have leading zeros (read as decimal).
fn parse_ip_sloppy(s: &str) -> Option<IpAddr> {
    if let Ok(ip) = s.parse::<IpAddr>() {
        return Some(ip);
    }
    let fields: Vec<&str> = s.split('.').collect();
    if fields.len() != 4 {
        return None;
    }
    let mut octets = [0u8; 4];
    for (octet, field) in octets.iter_mut().zip(&fields) {
        if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *octet = field.parse().ok()?;
    }
    Some(IpAddr::V4(Ipv4Addr::from(octets)))
}

/// Go's `IP.IsGlobalUnicast`: not the limited broadcast, unspecified, loopback, multicast or
/// link-local unicast (an IPv4-mapped address is judged as IPv4).
fn is_global_unicast(ip: IpAddr) -> bool {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
        v4 => v4,
    };
    match ip {
        IpAddr::V4(v4) => {
            !(v4.is_broadcast()
                || v4.is_unspecified()
                || v4.is_loopback()
                || v4.is_multicast()
                || v4.is_link_local())
        }
        IpAddr::V6(v6) => {
            !(v6.is_unspecified()
                || v6.is_loopback()
                || v6.is_multicast()
                || (v6.segments()[0] & 0xffc0) == 0xfe80)
        }
    }
}

fn redirect_to_root(parts: &Parts) -> Response {
    let mut location = format!("{}/", parts.uri.path());
    if let Some(q) = parts.uri.query().filter(|q| !q.is_empty()) {
        location.push('?');
        location.push_str(q);
    }
    let mut r = Response::new(axum::body::Body::empty());
    *r.status_mut() = StatusCode::MOVED_PERMANENTLY;
    if let Ok(value) = HeaderValue::from_str(&location) {
        r.headers_mut().insert(header::LOCATION, value);
    }
    r
}

fn kubelet_response(server: &Server, answer: crate::debugging::kubelet::Reply) -> Response {
    use crate::debugging::kubelet::Reply;
    match answer {
        Reply::Log(log) => super::handlers::log_response(log, server.shutdown.clone()),
        Reply::Text { status, body } => {
            let mut r = Response::new(axum::body::Body::from(body));
            *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_split_as_split_scheme_name_port_does() {
        assert_eq!(split_scheme_name_port("web"), Some(("", "web", "")));
        assert_eq!(split_scheme_name_port("web:80"), Some(("", "web", "80")));
        assert_eq!(
            split_scheme_name_port("https:web:metrics"),
            Some(("https", "web", "metrics"))
        );
        assert_eq!(split_scheme_name_port("ftp:web:21"), None);
        assert_eq!(split_scheme_name_port(":80"), None);
        assert_eq!(split_scheme_name_port("a:b:c:d"), None);
    }

    #[test]
    fn only_global_unicast_addresses_are_proxied() {
        let allowed = ["10.0.0.1", "196.168.0.1", "010.000.000.001", "2001:db8::1"];
        for ip in allowed {
            assert!(parse_ip_sloppy(ip).is_some_and(is_global_unicast), "{ip}");
        }
        let refused = [
            "",
            "127.0.0.1",
            "0.0.0.0",
            "169.254.1.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "256.0.0.1",
            "not-an-ip",
        ];
        for ip in refused {
            assert!(!parse_ip_sloppy(ip).is_some_and(is_global_unicast), "{ip}");
        }
        assert!(!is_proxyable_hostname("localhost"));
        assert!(!is_proxyable_hostname("127.0.0.1"));
        assert!(is_proxyable_hostname("lab-node-0"));
    }

    #[test]
    fn an_unreachable_address_is_worded_as_a_failed_dial() {
        assert_eq!(
            unreachable("10.0.0.1", 80).message,
            "error trying to reach service: dial tcp 10.0.0.1:80: connect: no route to host"
        );
        assert_eq!(
            unreachable("2001:db8::1", 443).message,
            "error trying to reach service: dial tcp [2001:db8::1]:443: connect: no route to host"
        );
        let named = unreachable_at("", "10.0.0.1", Some("metrics")).expect_err("a named port");
        assert_eq!(
            (named.code, named.message.as_str()),
            (
                503,
                "error trying to reach service: dial tcp: lookup tcp/metrics: unknown port"
            )
        );
        let big = unreachable_at("", "10.0.0.1", Some("70000")).expect_err("too big");
        assert_eq!(
            big.message,
            "error trying to reach service: dial tcp: address 10.0.0.1:70000: invalid port"
        );
    }
}
