//! `GetWarningsForService` (`pkg/api/service/warnings.go`).

use std::net::IpAddr;

use serde_json::Value;

use crate::error::go_quote;
use crate::validation::path::Path;

const TOPOLOGY_HINTS: &str = "service.kubernetes.io/topology-aware-hints";
const TOPOLOGY_MODE: &str = "service.kubernetes.io/topology-mode";

/// A Service's warnings on create and update alike.
pub fn service(svc: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    if crate::meta::annotation(svc, TOPOLOGY_HINTS).is_some() {
        warnings.push(format!(
            "annotation {TOPOLOGY_HINTS} is deprecated, please use {TOPOLOGY_MODE} instead"
        ));
    }
    let spec = &svc["spec"];
    let cluster_ip = spec["clusterIP"].as_str().unwrap_or_default();
    if !cluster_ip.is_empty() && cluster_ip != "None" {
        let path = Path::of(&["spec", "clusterIPs"]);
        for (i, ip) in strings(&spec["clusterIPs"]) {
            warnings.extend(ip_warning(&path.index(i), ip));
        }
    }
    let path = Path::of(&["spec", "externalIPs"]);
    for (i, ip) in strings(&spec["externalIPs"]) {
        warnings.extend(ip_warning(&path.index(i), ip));
    }
    let lb_ip = spec["loadBalancerIP"].as_str().unwrap_or_default();
    if !lb_ip.is_empty() {
        warnings.extend(ip_warning(&Path::of(&["spec", "loadBalancerIP"]), lb_ip));
    }
    let path = Path::of(&["spec", "loadBalancerSourceRanges"]);
    for (i, cidr) in strings(&spec["loadBalancerSourceRanges"]) {
        warnings.extend(cidr_warning(&path.index(i), cidr));
    }
    let external_name = spec["type"] == "ExternalName";
    if external_name
        && spec["externalIPs"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    {
        warnings.push(r#"spec.externalIPs is ignored when spec.type is "ExternalName""#.into());
    }
    if !external_name && spec["externalName"].as_str().is_some_and(|n| !n.is_empty()) {
        warnings
            .push(r#"spec.externalName is ignored when spec.type is not "ExternalName""#.into());
    }
    warnings
}

fn strings(list: &Value) -> impl Iterator<Item = (usize, &str)> {
    list.as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, v)| (i, v.as_str().unwrap_or_default()))
}

/// `getWarningsForIP`: an address validation took (it reads IPv4 with leading zeros) that
/// Go's `netip.ParseAddr` refuses, or an IPv6 address not in RFC 5952 form.
fn ip_warning(path: &Path, address: &str) -> Option<String> {
    match parse_addr(address) {
        Err(error) => Some(format!(
            "{}: IP address was accepted, but will be invalid in a future Kubernetes release: {error}",
            path.as_str()
        )),
        Ok(IpAddr::V6(ip)) if ip.to_string() != address => Some(format!(
            "{}: IPv6 address {} is not in RFC 5952 canonical format ({}), which may cause controller apply-loops",
            path.as_str(),
            go_quote(address),
            go_quote(&ip.to_string())
        )),
        Ok(_) => None,
    }
}

/// `getWarningsForCIDR`, for `netip.ParsePrefix`.
fn cidr_warning(path: &Path, cidr: &str) -> Option<String> {
    let refused = |why: &str| {
        Some(format!(
            "{}: IP prefix was accepted, but will be invalid in a future Kubernetes release: netip.ParsePrefix({}): {why}",
            path.as_str(),
            go_quote(cidr)
        ))
    };
    let Some((addr, bits)) = cidr.rsplit_once('/') else {
        return refused("no '/'");
    };
    let ip = match parse_addr(addr) {
        Ok(ip) => ip,
        Err(error) => return refused(&error),
    };
    if let IpAddr::V6(v6) = ip {
        // `Prefix.String()` prints the address as given, not masked.
        let canonical = format!("{v6}/{bits}");
        if canonical != cidr && bits.parse::<u8>().is_ok() {
            return Some(format!(
                "{}: IPv6 prefix {} is not in RFC 5952 canonical format ({}), which may cause controller apply-loops",
                path.as_str(),
                go_quote(cidr),
                go_quote(&canonical)
            ));
        }
    }
    None
}

/// `netip.ParseAddr`, with its error text for the inputs validation lets through.
fn parse_addr(s: &str) -> Result<IpAddr, String> {
    if let Ok(ip) = s.parse::<IpAddr>() {
        return Ok(ip);
    }
    let why = if !s.contains(':') && s.split('.').any(|o| o.len() > 1 && o.starts_with('0')) {
        "IPv4 field has octet with leading zero"
    } else {
        "unable to parse IP"
    };
    Err(format!("ParseAddr({}): {why}", go_quote(s)))
}
