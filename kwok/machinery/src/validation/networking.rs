//! networking.k8s.io (pkg/apis/networking/validation): NetworkPolicies, Ingresses and
//! IngressClasses, with upstream's field paths, messages and order of checks.

use std::net::IpAddr;

use serde_json::Value;

use super::labels::label_selector;
use super::meta::{object_meta, object_meta_update};
use super::path::{forbidden, inclusive_range, invalid, not_supported, required, Path};
use super::pod::port_name;
use super::read::{list, s};
use crate::error::{go_quote, FieldError};
use crate::names;

const CIDR_EXAMPLE: &str = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";
const IP_EXAMPLE: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/// `IsValidPortNum` at `p`, the value shown as an int32.
fn port_number(n: i64, p: &Path) -> Option<FieldError> {
    (!(1..=65535).contains(&n)).then(|| invalid(p, n.to_string(), inclusive_range(1, 65535)))
}

/// `netutils.ParseCIDRSloppy`: the network address and prefix length.
fn parse_cidr(v: &str) -> Option<(IpAddr, u32)> {
    let (ip, len) = v.split_once('/')?;
    let ip: IpAddr = ip.parse().ok()?;
    let len: u32 = len.parse().ok()?;
    let max = if ip.is_ipv4() { 32 } else { 128 };
    (len <= max).then_some((ip, len))
}

/// Does the network `(net, len)` hold `ip`?
fn contains(net: (IpAddr, u32), ip: IpAddr) -> bool {
    let bits = |a: IpAddr| -> u128 {
        match a {
            IpAddr::V4(v) => u128::from(u32::from(v)) << 96,
            IpAddr::V6(v) => u128::from(v),
        }
    };
    if net.0.is_ipv4() != ip.is_ipv4() {
        return false;
    }
    // Both families sit in the top bits, so the prefix is the top `len` bits either way.
    let mask = if net.1 == 0 {
        0
    } else {
        u128::MAX << (128 - net.1)
    };
    bits(net.0) & mask == bits(ip) & mask
}

/// `ValidateIPBlock`.
fn ip_block(block: &Value, p: &Path) -> Vec<FieldError> {
    let cidr = s(block, "cidr");
    if cidr.is_empty() {
        return vec![required(&p.child("cidr"), "")];
    }
    let Some(net) = parse_cidr(cidr) else {
        return vec![invalid(&p.child("cidr"), go_quote(cidr), CIDR_EXAMPLE)];
    };
    let mut errs = Vec::new();
    for (i, e) in list(block, "except").iter().enumerate() {
        let text = e.as_str().unwrap_or("");
        let ep = p.child("except").index(i);
        match parse_cidr(text) {
            None => errs.push(invalid(&ep, go_quote(text), CIDR_EXAMPLE)),
            Some(ex) if !contains(net, ex.0) || net.1 >= ex.1 => errs.push(invalid(
                &ep,
                go_quote(text),
                "must be a strict subset of `cidr`",
            )),
            Some(_) => {}
        }
    }
    errs
}

/// `ValidateNetworkPolicyPort`.
fn policy_port(port: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(proto) = port.get("protocol").and_then(Value::as_str) {
        if !["TCP", "UDP", "SCTP"].contains(&proto) {
            errs.push(not_supported(
                &p.child("protocol"),
                go_quote(proto),
                &["TCP", "UDP", "SCTP"],
            ));
        }
    }
    let end = port.get("endPort").and_then(Value::as_i64);
    match port.get("port") {
        Some(Value::Number(n)) => {
            let n = n.as_i64().unwrap_or(0);
            errs.extend(port_number(n, &p.child("port")));
            if let Some(end) = end {
                if end < n {
                    errs.push(invalid(
                        &p.child("endPort"),
                        n.to_string(),
                        "must be greater than or equal to `port`",
                    ));
                }
                errs.extend(port_number(end, &p.child("endPort")));
            }
        }
        Some(Value::String(name)) => {
            if let Some(end) = end {
                errs.push(invalid(
                    &p.child("endPort"),
                    end.to_string(),
                    "may not be specified when `port` is non-numeric",
                ));
            }
            for m in port_name(name) {
                errs.push(invalid(&p.child("port"), go_quote(name), m));
            }
        }
        _ => {
            if let Some(end) = end {
                errs.push(invalid(
                    &p.child("endPort"),
                    end.to_string(),
                    "may not be specified when `port` is not specified",
                ));
            }
        }
    }
    errs
}

/// `ValidateNetworkPolicyPeer`.
fn policy_peer(peer: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut peers = 0;
    for key in ["podSelector", "namespaceSelector"] {
        if let Some(sel) = peer.get(key).filter(|v| !v.is_null()) {
            peers += 1;
            errs.extend(label_selector(Some(sel), &p.child(key)));
        }
    }
    let block = peer.get("ipBlock").filter(|v| !v.is_null());
    if let Some(block) = block {
        peers += 1;
        errs.extend(ip_block(block, &p.child("ipBlock")));
    }
    if peers == 0 {
        errs.push(required(p, "must specify a peer"));
    } else if peers > 1 && block.is_some() {
        errs.push(forbidden(
            p,
            "may not specify both ipBlock and another peer",
        ));
    }
    errs
}

/// `ValidateNetworkPolicySpec`.
fn policy_spec(spec: &Value) -> Vec<FieldError> {
    let p = Path::new("spec");
    let mut errs = label_selector(spec.get("podSelector"), &p.child("podSelector"));
    for (direction, peers) in [("ingress", "from"), ("egress", "to")] {
        for (i, rule) in list(spec, direction).iter().enumerate() {
            let rp = p.child(direction).index(i);
            for (j, port) in list(rule, "ports").iter().enumerate() {
                errs.extend(policy_port(port, &rp.child("ports").index(j)));
            }
            for (j, peer) in list(rule, peers).iter().enumerate() {
                errs.extend(policy_peer(peer, &rp.child(peers).index(j)));
            }
        }
    }
    let types = list(spec, "policyTypes");
    if types.len() > 2 {
        let quoted: Vec<String> = types
            .iter()
            .map(|t| go_quote(t.as_str().unwrap_or("")))
            .collect();
        errs.push(invalid(
            &p.child("policyTypes"),
            format!("[]networking.PolicyType{{{}}}", quoted.join(", ")),
            "may not specify more than two policyTypes",
        ));
        return errs;
    }
    for (i, t) in types.iter().enumerate() {
        let t = t.as_str().unwrap_or("");
        if !["Ingress", "Egress"].contains(&t) {
            errs.push(not_supported(
                &p.child("policyTypes").index(i),
                go_quote(t),
                &["Ingress", "Egress"],
            ));
        }
    }
    errs
}

/// `ValidateNetworkPolicy`.
pub fn network_policy(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    errs.extend(policy_spec(&obj["spec"]));
    errs
}

/// The strategy's `ValidateUpdate`: the policy again, then `ValidateNetworkPolicyUpdate` (the
/// metadata rules and the spec once more; the answer's message drops the repeats).
pub fn network_policy_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = network_policy(new);
    errs.extend(object_meta_update(new, old, true));
    errs.extend(policy_spec(&new["spec"]));
    errs
}

/// `validateIngressTypedLocalObjectReference` (a backend's resource, a class's parameters).
fn typed_reference(r: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(group) = r.get("apiGroup").and_then(Value::as_str) {
        for m in names::dns1123_subdomain(group) {
            errs.push(invalid(&p.child("apiGroup"), go_quote(group), m));
        }
    }
    for key in ["kind", "name"] {
        let v = s(r, key);
        if v.is_empty() {
            errs.push(required(&p.child(key), format!("{key} is required")));
        } else {
            for m in names::path_segment_name(v) {
                errs.push(invalid(&p.child(key), go_quote(v), m));
            }
        }
    }
    errs
}

/// `validateIngressBackend`.
fn backend(b: &Value, p: &Path) -> Vec<FieldError> {
    let resource = b.get("resource").filter(|v| !v.is_null());
    let service = b.get("service").filter(|v| !v.is_null());
    match (resource, service) {
        (Some(_), Some(_)) => vec![invalid(
            p,
            "\"\"",
            "cannot set both resource and service backends",
        )],
        (Some(r), None) => typed_reference(r, &p.child("resource")),
        (None, Some(svc)) => {
            let mut errs = Vec::new();
            let sp = p.child("service");
            let name = s(svc, "name");
            if name.is_empty() {
                errs.push(required(&sp.child("name"), ""));
            } else {
                for m in names::dns1035_label(name) {
                    errs.push(invalid(&sp.child("name"), go_quote(name), m));
                }
            }
            let port = &svc["port"];
            let port_name_ = s(port, "name");
            let number = port["number"].as_i64().unwrap_or(0);
            match (!port_name_.is_empty(), number != 0) {
                (true, true) => errs.push(invalid(
                    p,
                    "\"\"",
                    "cannot set both port name & port number",
                )),
                (true, false) => {
                    for m in port_name(port_name_) {
                        errs.push(invalid(
                            &sp.child("port").child("name"),
                            go_quote(port_name_),
                            m,
                        ));
                    }
                }
                (false, true) => {
                    errs.extend(port_number(number, &sp.child("port").child("number")))
                }
                (false, false) => errs.push(required(p, "port name or number is required")),
            }
            errs
        }
        (None, None) => vec![invalid(
            p,
            "\"\"",
            "resource or service backend is required",
        )],
    }
}

/// `validateHTTPIngressPath`.
fn http_path(path: &Value, p: &Path) -> Vec<FieldError> {
    let Some(kind) = path.get("pathType").and_then(Value::as_str) else {
        return vec![required(&p.child("pathType"), "pathType must be specified")];
    };
    let mut errs = Vec::new();
    let text = s(path, "path");
    let pp = p.child("path");
    match kind {
        "Exact" | "Prefix" => {
            if !text.starts_with('/') {
                errs.push(invalid(&pp, go_quote(text), "must be an absolute path"));
            }
            if !text.is_empty() {
                for seq in ["//", "/./", "/../", "%2f", "%2F"] {
                    if text.contains(seq) {
                        errs.push(invalid(
                            &pp,
                            go_quote(text),
                            format!("must not contain '{seq}'"),
                        ));
                    }
                }
                for suffix in ["/..", "/."] {
                    if text.ends_with(suffix) {
                        errs.push(invalid(
                            &pp,
                            go_quote(text),
                            format!("cannot end with '{suffix}'"),
                        ));
                    }
                }
            }
        }
        "ImplementationSpecific" => {
            if !text.is_empty() && !text.starts_with('/') {
                errs.push(invalid(&pp, go_quote(text), "must be an absolute path"));
            }
        }
        other => errs.push(not_supported(
            &p.child("pathType"),
            go_quote(other),
            &["Exact", "ImplementationSpecific", "Prefix"],
        )),
    }
    errs.extend(backend(&path["backend"], &p.child("backend")));
    errs
}

/// `validateIngressRules`.
fn rules(spec: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, rule) in list(spec, "rules").iter().enumerate() {
        let rp = p.index(i);
        let host = s(rule, "host");
        if !host.is_empty() {
            if host.parse::<IpAddr>().is_ok() {
                errs.push(invalid(
                    &rp.child("host"),
                    go_quote(host),
                    "must be a DNS name, not an IP address",
                ));
            }
            let messages = if host.contains('*') {
                names::wildcard_dns1123_subdomain(host)
            } else {
                names::dns1123_subdomain(host)
            };
            for m in messages {
                errs.push(invalid(&rp.child("host"), go_quote(host), m));
            }
        }
        if let Some(http) = rule.get("http").filter(|v| !v.is_null()) {
            let hp = rp.child("http");
            let paths = list(http, "paths");
            if paths.is_empty() {
                errs.push(required(&hp.child("paths"), ""));
            }
            for (j, path) in paths.iter().enumerate() {
                errs.extend(http_path(path, &hp.child("paths").index(j)));
            }
        }
    }
    errs
}

/// `validateIngressTLS`.
fn tls(spec: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (t, entry) in list(spec, "tls").iter().enumerate() {
        let tp = p.index(t);
        for (i, host) in list(entry, "hosts").iter().enumerate() {
            let host = host.as_str().unwrap_or("");
            let messages = if host.contains('*') {
                names::wildcard_dns1123_subdomain(host)
            } else {
                names::dns1123_subdomain(host)
            };
            for m in messages {
                errs.push(invalid(&tp.child("hosts").index(i), go_quote(host), m));
            }
        }
        let secret = s(entry, "secretName");
        if !secret.is_empty() {
            for m in names::name_is_dns_subdomain(secret, false) {
                errs.push(invalid(&tp.child("secretName"), go_quote(secret), m));
            }
        }
    }
    errs
}

/// `ValidateIngressSpec`.
fn ingress_spec(spec: &Value) -> Vec<FieldError> {
    let p = Path::new("spec");
    let mut errs = Vec::new();
    let default_backend = spec.get("defaultBackend").filter(|v| !v.is_null());
    if list(spec, "rules").is_empty() && default_backend.is_none() {
        let value = match spec.get("rules") {
            Some(Value::Array(_)) => "[]networking.IngressRule{}",
            _ => "[]networking.IngressRule(nil)",
        };
        errs.push(invalid(
            &p,
            value,
            "either `defaultBackend` or `rules` must be specified",
        ));
    }
    if let Some(b) = default_backend {
        errs.extend(backend(b, &p.child("defaultBackend")));
    }
    errs.extend(rules(spec, &p.child("rules")));
    errs.extend(tls(spec, &p.child("tls")));
    if let Some(class) = spec.get("ingressClassName").and_then(Value::as_str) {
        for m in names::name_is_dns_subdomain(class, false) {
            errs.push(invalid(&p.child("ingressClassName"), go_quote(class), m));
        }
    }
    errs
}

/// `ValidateIngressCreate`: the ingress, then the class annotation against `ingressClassName`.
pub fn ingress(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    errs.extend(ingress_spec(&obj["spec"]));
    let annotation = obj["metadata"]["annotations"]["kubernetes.io/ingress.class"].as_str();
    let class = obj["spec"]["ingressClassName"].as_str();
    if let (Some(annotation), Some(class)) = (annotation, class) {
        if annotation != class {
            errs.push(invalid(
                &Path::new("annotations").child("kubernetes.io/ingress.class"),
                go_quote(annotation),
                "must match `ingressClassName` when both are specified",
            ));
        }
    }
    errs
}

/// `ValidateIngressUpdate`.
pub fn ingress_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(object_meta(new, true, names::name_is_dns_subdomain, true));
    errs.extend(ingress_spec(&new["spec"]));
    errs
}

/// `ValidateIngressStatusUpdate`.
pub fn ingress_status_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let p = Path::of(&["status", "loadBalancer", "ingress"]);
    for (i, entry) in list(&new["status"]["loadBalancer"], "ingress")
        .iter()
        .enumerate()
    {
        let ip = s(entry, "ip");
        if !ip.is_empty() && ip.parse::<IpAddr>().is_err() {
            errs.push(invalid(&p.index(i).child("ip"), go_quote(ip), IP_EXAMPLE));
        }
        let host = s(entry, "hostname");
        if !host.is_empty() {
            for m in names::dns1123_subdomain(host) {
                errs.push(invalid(&p.index(i).child("hostname"), go_quote(host), m));
            }
            if host.parse::<IpAddr>().is_ok() {
                errs.push(invalid(
                    &p.index(i).child("hostname"),
                    go_quote(host),
                    "must be a DNS name, not an IP address",
                ));
            }
        }
    }
    errs
}

/// `IsDomainPrefixedPath` of an IngressClass's controller.
fn domain_prefixed_path(v: &str, p: &Path) -> Vec<FieldError> {
    if v.is_empty() {
        return vec![required(p, "")];
    }
    let Some((host, path)) = v
        .split_once('/')
        .filter(|(h, p)| !h.is_empty() && !p.is_empty())
    else {
        return vec![invalid(
            p,
            go_quote(v),
            "must be a domain-prefixed path (such as \"acme.io/foo\")",
        )];
    };
    let mut errs: Vec<FieldError> = names::dns1123_subdomain(host)
        .into_iter()
        .map(|m| invalid(p, go_quote(host), m))
        .collect();
    let path_ok = path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/-._~%!$&'()*+,;=:".contains(c));
    if !path_ok {
        errs.push(invalid(
            p,
            go_quote(path),
            "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
        ));
    }
    errs
}

/// `validateIngressClassSpec`.
fn ingress_class_spec(spec: &Value) -> Vec<FieldError> {
    let p = Path::new("spec");
    let mut errs = Vec::new();
    let controller = s(spec, "controller");
    if controller.len() > 250 {
        errs.push(super::path::too_long(&p.child("controller"), 250));
    }
    errs.extend(domain_prefixed_path(controller, &p.child("controller")));
    if let Some(params) = spec.get("parameters").filter(|v| !v.is_null()) {
        let pp = p.child("parameters");
        errs.extend(typed_reference(params, &pp));
        match params.get("scope").and_then(Value::as_str) {
            None => errs.push(required(&pp.child("scope"), "")),
            Some("Namespace") => match params.get("namespace").and_then(Value::as_str) {
                None => errs.push(required(
                    &pp.child("namespace"),
                    "`parameters.scope` is set to 'Namespace'",
                )),
                Some(ns) => {
                    for m in names::dns1123_label(ns) {
                        errs.push(invalid(&pp.child("namespace"), go_quote(ns), m));
                    }
                }
            },
            Some("Cluster") => {
                if params.get("namespace").is_some_and(|n| !n.is_null()) {
                    errs.push(forbidden(
                        &pp.child("namespace"),
                        "`parameters.scope` is set to 'Cluster'",
                    ));
                }
            }
            Some(other) => errs.push(not_supported(
                &pp.child("scope"),
                go_quote(other),
                &["Cluster", "Namespace"],
            )),
        }
    }
    errs
}

/// `ValidateIngressClass`.
pub fn ingress_class(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, names::name_is_dns_subdomain, true);
    errs.extend(ingress_class_spec(&obj["spec"]));
    errs
}

/// `ValidateIngressClassUpdate`: the controller is immutable.
pub fn ingress_class_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let controller = s(&new["spec"], "controller");
    if controller != s(&old["spec"], "controller") {
        errs.push(invalid(
            &Path::of(&["spec", "controller"]),
            go_quote(controller),
            "field is immutable",
        ));
    }
    errs.extend(ingress_class(new));
    errs
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::validation::messages;

    #[test]
    fn policy_ports_peers_and_blocks() {
        let np = json!({"metadata": {"name": "np", "namespace": "n"}, "spec": {
            "podSelector": {},
            "ingress": [{"ports": [{"port": 90, "endPort": 80, "protocol": "ICMP"}],
                         "from": [{}, {"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.0.0.0/16", "10.1.0.0/24", "10.0.0.0/8", "10.0.3.0/24"]},
                                   "podSelector": {}}]}],
            "policyTypes": ["Ingress", "Sideways"]}});
        assert_eq!(
            messages(network_policy(&np)),
            [
                "spec.ingress[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"TCP\", \"UDP\", \"SCTP\"",
                "spec.ingress[0].ports[0].endPort: Invalid value: 90: must be greater than or equal to `port`",
                "spec.ingress[0].from[0]: Required value: must specify a peer",
                "spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: \"10.0.0.0/16\": must be a strict subset of `cidr`",
                "spec.ingress[0].from[1].ipBlock.except[1]: Invalid value: \"10.1.0.0/24\": must be a strict subset of `cidr`",
                "spec.ingress[0].from[1].ipBlock.except[2]: Invalid value: \"10.0.0.0/8\": must be a strict subset of `cidr`",
                "spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer",
                "spec.policyTypes[1]: Unsupported value: \"Sideways\": supported values: \"Ingress\", \"Egress\"",
            ]
        );
    }

    #[test]
    fn ingress_paths_backends_and_hosts() {
        let ing = json!({"metadata": {"name": "web", "namespace": "n",
                "annotations": {"kubernetes.io/ingress.class": "nginx"}},
            "spec": {"ingressClassName": "traefik", "rules": [
                {"host": "1.2.3.4", "http": {"paths": [
                    {"path": "/a//b", "pathType": "Prefix", "backend": {"service": {"name": "svc"}}},
                    {"path": "rel", "backend": {"service": {"name": "svc", "port": {"number": 80}}}}]}},
                {"host": "foo.*.com"}]}});
        assert_eq!(
            messages(ingress(&ing)),
            [
                "spec.rules[0].host: Invalid value: \"1.2.3.4\": must be a DNS name, not an IP address",
                "spec.rules[0].http.paths[0].path: Invalid value: \"/a//b\": must not contain '//'",
                "spec.rules[0].http.paths[0].backend: Required value: port name or number is required",
                "spec.rules[0].http.paths[1].pathType: Required value: pathType must be specified",
                "spec.rules[1].host: Invalid value: \"foo.*.com\": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "annotations.kubernetes.io/ingress.class: Invalid value: \"nginx\": must match `ingressClassName` when both are specified",
            ]
        );
    }

    #[test]
    fn ingress_class_controller_and_parameters() {
        let class = json!({"metadata": {"name": "c"}, "spec": {"controller": "nginx",
            "parameters": {"kind": "Params", "name": "p", "scope": "Namespace"}}});
        assert_eq!(
            messages(ingress_class(&class)),
            [
                "spec.controller: Invalid value: \"nginx\": must be a domain-prefixed path (such as \"acme.io/foo\")",
                "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
            ]
        );
    }
}
