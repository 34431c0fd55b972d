//! Services, Endpoints and EndpointSlices: `ValidateService`, `ValidateServiceUpdate`,
//! `ValidateEndpoints` (pkg/apis/core/validation/validation.go) and `ValidateEndpointSlice`
//! (pkg/apis/discovery/validation/validation.go).

use std::collections::HashSet;
use std::net::IpAddr;

use serde_json::Value;

use super::labels::labels;
use super::meta::{object_meta, object_meta_update};
use super::path::{
    duplicate, forbidden, inclusive_range, invalid, not_supported, required, too_many, Path,
    IMMUTABLE,
};
use super::pod::port_name;
use super::read::{list, s};
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;

fn strings<'a>(v: &'a Value, key: &str) -> Vec<&'a str> {
    list(v, key).iter().filter_map(Value::as_str).collect()
}

fn int(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(0)
}

const PORT_RANGE: (i64, i64) = (1, 65535);
const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];
const IP_EXAMPLE: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/// `IsValidPortNum` as an error at `p`.
fn port_number(port: i64, p: &Path) -> Option<FieldError> {
    (!(PORT_RANGE.0..=PORT_RANGE.1).contains(&port)).then(|| {
        invalid(
            p,
            port.to_string(),
            inclusive_range(PORT_RANGE.0, PORT_RANGE.1),
        )
    })
}

fn protocol(proto: &str, p: &Path) -> Option<FieldError> {
    match proto {
        "" => Some(required(p, "")),
        x if PROTOCOLS.contains(&x) => None,
        other => Some(not_supported(p, go_quote(other), PROTOCOLS)),
    }
}

/// `ValidatePortNumOrName`.
fn port_num_or_name(v: Option<&Value>, p: &Path) -> Vec<FieldError> {
    match v {
        Some(Value::Number(n)) => port_number(n.as_i64().unwrap_or(0), p)
            .into_iter()
            .collect(),
        Some(Value::String(name)) => port_name(name)
            .into_iter()
            .map(|m| invalid(p, go_quote(name), m))
            .collect(),
        _ => Vec::new(),
    }
}

/// `isHeadlessService`: the one cluster IP is `None`.
pub fn is_headless(svc: &Value) -> bool {
    strings(&svc["spec"], "clusterIPs") == ["None"]
}

/// `ValidateService`.
pub fn service(svc: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(svc, true, names::name_is_dns1035_label, true);
    let spec = &svc["spec"];
    let sp = Path::new("spec");
    let kind = s(spec, "type");
    let ports = list(spec, "ports");
    if ports.is_empty() && !is_headless(svc) && kind != "ExternalName" {
        errs.push(required(&sp.child("ports"), ""));
    }
    match kind {
        "LoadBalancer" | "NodePort" if is_headless(svc) => errs.push(invalid(
            &sp.child("clusterIPs").index(0),
            go_quote("None"),
            format!("may not be set to 'None' for {kind} services"),
        )),
        "ExternalName" => {
            let why = "may not be set for ExternalName services";
            if !list(spec, "clusterIPs").is_empty() {
                errs.push(forbidden(&sp.child("clusterIPs"), why));
            }
            if !list(spec, "ipFamilies").is_empty() {
                errs.push(forbidden(&sp.child("ipFamilies"), why));
            }
            if spec.get("ipFamilyPolicy").is_some_and(|v| !v.is_null()) {
                errs.push(forbidden(&sp.child("ipFamilyPolicy"), why));
            }
            let name = s(spec, "externalName");
            let cname = name.strip_suffix('.').unwrap_or(name);
            if cname.is_empty() {
                errs.push(required(&sp.child("externalName"), ""));
            } else {
                for m in names::dns1123_subdomain(cname) {
                    errs.push(invalid(&sp.child("externalName"), go_quote(cname), m));
                }
            }
        }
        _ => {}
    }
    let mut names_seen = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        errs.extend(service_port(
            port,
            ports.len() > 1,
            &mut names_seen,
            &sp.child("ports").index(i),
        ));
    }
    if let Some(sel) = spec.get("selector").filter(|v| !v.is_null()) {
        errs.extend(labels(Some(sel), &sp.child("selector")));
    }
    match s(spec, "sessionAffinity") {
        "" => errs.push(required(&sp.child("sessionAffinity"), "")),
        "None" => {
            if spec
                .get("sessionAffinityConfig")
                .is_some_and(|v| !v.is_null())
            {
                errs.push(forbidden(
                    &sp.child("sessionAffinityConfig"),
                    "must not be set when session affinity is None",
                ));
            }
        }
        "ClientIP" => {
            let timeout = &spec["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"];
            let tp = sp
                .child("sessionAffinityConfig")
                .child("clientIP")
                .child("timeoutSeconds");
            match timeout.as_i64() {
                None => errs.push(required(&tp, "")),
                Some(t) if !(1..=86400).contains(&t) => {
                    errs.push(invalid(&tp, t.to_string(), inclusive_range(1, 86400)))
                }
                Some(_) => {}
            }
        }
        other => errs.push(not_supported(
            &sp.child("sessionAffinity"),
            go_quote(other),
            &["ClientIP", "None"],
        )),
    }
    if kind != "ExternalName" {
        errs.extend(cluster_ips(spec));
    }
    for (i, ip) in strings(spec, "externalIPs").iter().enumerate() {
        errs.extend(non_special_ip(ip, &sp.child("externalIPs").index(i)));
    }
    match kind {
        "" => errs.push(required(&sp.child("type"), "")),
        "ClusterIP" | "ExternalName" | "LoadBalancer" | "NodePort" => {}
        other => errs.push(not_supported(
            &sp.child("type"),
            go_quote(other),
            &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"],
        )),
    }
    if kind == "ClusterIP" {
        for (i, port) in ports.iter().enumerate() {
            if int(port, "nodePort") != 0 {
                errs.push(forbidden(
                    &sp.child("ports").index(i).child("nodePort"),
                    "may not be used when `type` is 'ClusterIP'",
                ));
            }
        }
    }
    let mut node_ports = HashSet::new();
    let mut port_keys = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        let pp = sp.child("ports").index(i);
        let proto = s(port, "protocol");
        let node_port = int(port, "nodePort");
        if node_port != 0 && !node_ports.insert((proto, node_port)) {
            errs.push(duplicate(&pp.child("nodePort"), node_port.to_string()));
        }
        if !port_keys.insert((proto, int(port, "port"))) {
            errs.push(duplicate(
                &pp,
                format!(
                    "core.ServicePort{{Name:\"\", Protocol:{}, AppProtocol:(*string)(nil), Port:{}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}, NodePort:0}}",
                    go_quote(proto),
                    int(port, "port")
                ),
            ));
        }
    }
    if kind != "LoadBalancer" {
        if !list(spec, "loadBalancerSourceRanges").is_empty() {
            errs.push(forbidden(
                &Path::of(&["spec", "LoadBalancerSourceRanges"]),
                "may only be used when `type` is 'LoadBalancer'",
            ));
        }
        if spec
            .get("allocateLoadBalancerNodePorts")
            .is_some_and(|v| !v.is_null())
        {
            errs.push(forbidden(
                &sp.child("allocateLoadBalancerNodePorts"),
                "may only be used when `type` is 'LoadBalancer'",
            ));
        }
        if spec.get("loadBalancerClass").is_some_and(|v| !v.is_null()) {
            errs.push(forbidden(
                &sp.child("loadBalancerClass"),
                "may only be used when `type` is 'LoadBalancer'",
            ));
        }
    } else if spec
        .get("allocateLoadBalancerNodePorts")
        .is_none_or(Value::is_null)
    {
        errs.push(required(&Path::new("allocateLoadBalancerNodePorts"), ""));
    }
    errs.extend(traffic_policies(spec, &sp));
    errs
}

/// `validateServicePort`.
fn service_port<'a>(
    port: &'a Value,
    require_name: bool,
    seen: &mut HashSet<&'a str>,
    p: &Path,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name = s(port, "name");
    if require_name && name.is_empty() {
        errs.push(required(&p.child("name"), ""));
    } else if !name.is_empty() {
        for m in names::dns1123_label(name) {
            errs.push(invalid(&p.child("name"), go_quote(name), m));
        }
        if !seen.insert(name) {
            errs.push(duplicate(&p.child("name"), go_quote(name)));
        }
    }
    errs.extend(port_number(int(port, "port"), &p.child("port")));
    errs.extend(protocol(s(port, "protocol"), &p.child("protocol")));
    errs.extend(port_num_or_name(
        port.get("targetPort"),
        &p.child("targetPort"),
    ));
    if let Some(app) = port.get("appProtocol").and_then(Value::as_str) {
        for m in names::qualified_name(app) {
            errs.push(invalid(&p.child("appProtocol"), go_quote(app), m));
        }
    }
    errs
}

/// `ValidateServiceClusterIPsRelatedFields`.
pub fn cluster_ips(spec: &Value) -> Vec<FieldError> {
    let sp = Path::new("spec");
    let mut errs = Vec::new();
    let cluster_ip = s(spec, "clusterIP");
    let ips = strings(spec, "clusterIPs");
    let ips_path = sp.child("clusterIPs");
    let ips_value = go_syntax::string_slice(spec.get("clusterIPs"));
    if !cluster_ip.is_empty() && ips.is_empty() {
        errs.push(required(&ips_path, ""));
    } else if cluster_ip.is_empty() && !ips.is_empty() {
        errs.push(invalid(
            &ips_path,
            ips_value.clone(),
            "must be empty when `clusterIP` is not specified",
        ));
    } else if !ips.is_empty() && ips[0] != cluster_ip {
        errs.push(invalid(
            &ips_path,
            ips_value.clone(),
            "first value must match `clusterIP`",
        ));
    }
    let families = strings(spec, "ipFamilies");
    let mut seen = HashSet::new();
    for (i, family) in families.iter().enumerate() {
        let fp = sp.child("ipFamilies").index(i);
        if !matches!(*family, "IPv4" | "IPv6") {
            errs.push(not_supported(&fp, go_quote(family), &["IPv4", "IPv6"]));
        } else if !seen.insert(*family) {
            errs.push(duplicate(&fp, go_quote(family)));
        }
    }
    let policy = spec.get("ipFamilyPolicy").and_then(Value::as_str);
    if let Some(policy) = policy {
        if !matches!(
            policy,
            "PreferDualStack" | "RequireDualStack" | "SingleStack"
        ) {
            errs.push(not_supported(
                &sp.child("ipFamilyPolicy"),
                go_quote(policy),
                &["PreferDualStack", "RequireDualStack", "SingleStack"],
            ));
        }
    }
    if policy == Some("SingleStack") {
        if ips.len() > 1 {
            errs.push(invalid(
                &sp.child("ipFamilyPolicy"),
                go_quote("SingleStack"),
                "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
            ));
        }
        if families.len() > 1 {
            errs.push(invalid(
                &sp.child("ipFamilyPolicy"),
                go_quote("SingleStack"),
                "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
            ));
        }
    }
    if ips.contains(&"None") {
        if ips.len() != 1 {
            errs.push(invalid(
                &ips_path,
                ips_value,
                "'None' must be the first and only value",
            ));
        }
        return errs;
    }
    if ips.len() > 2 {
        errs.push(invalid(
            &ips_path,
            ips_value,
            "may only hold up to 2 values",
        ));
        return errs;
    }
    for (i, ip) in ips.iter().enumerate() {
        let ip_path = ips_path.index(i);
        match ip.parse::<IpAddr>() {
            Err(_) => errs.push(invalid(&ip_path, go_quote(ip), IP_EXAMPLE)),
            Ok(addr) => {
                if let Some(family) = families.get(i) {
                    let (want_v4, name) = (*family == "IPv4", *family);
                    if addr.is_ipv4() != want_v4 {
                        errs.push(invalid(
                            &ip_path,
                            go_quote(ip),
                            format!("expected an {name} value as indicated by `ipFamilies[{i}]`"),
                        ));
                    }
                }
            }
        }
    }
    if ips.len() == 2
        && ips[0].parse::<IpAddr>().ok().map(|a| a.is_ipv4())
            == ips[1].parse::<IpAddr>().ok().map(|a| a.is_ipv4())
    {
        errs.push(invalid(
            &ips_path,
            go_syntax::string_slice(spec.get("clusterIPs")),
            "may specify no more than one IP for each IP family",
        ));
    }
    errs
}

/// `ValidateNonSpecialIP` after `IsValidIP`.
fn non_special_ip(ip: &str, p: &Path) -> Vec<FieldError> {
    let Ok(addr) = ip.parse::<IpAddr>() else {
        return vec![invalid(p, go_quote(ip), IP_EXAMPLE)];
    };
    let why = if addr.is_unspecified() {
        Some("may not be unspecified (0.0.0.0, ::)")
    } else if addr.is_loopback() {
        Some("may not be in the loopback range (127.0.0.0/8, ::1/128)")
    } else if match addr {
        IpAddr::V4(a) => a.is_link_local(),
        IpAddr::V6(a) => (a.segments()[0] & 0xffc0) == 0xfe80,
    } {
        Some("may not be in the link-local range (169.254.0.0/16, fe80::/10)")
    } else if match addr {
        IpAddr::V4(a) => a.octets()[..3] == [224, 0, 0],
        IpAddr::V6(a) => a.segments()[0] == 0xff02,
    } {
        Some("may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")
    } else {
        None
    };
    why.map(|w| invalid(p, go_quote(ip), w))
        .into_iter()
        .collect()
}

/// `validateServiceExternalTrafficPolicy` and `validateServiceInternalTrafficFieldsValue`.
fn traffic_policies(spec: &Value, sp: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let accessible = spec
        .as_object()
        .is_some_and(crate::defaults::services::externally_accessible);
    let etp = s(spec, "externalTrafficPolicy");
    let etp_path = sp.child("externalTrafficPolicy");
    if !accessible {
        if !etp.is_empty() {
            errs.push(invalid(
                &etp_path,
                go_quote(etp),
                "may only be set for externally-accessible services",
            ));
        }
    } else if etp.is_empty() {
        errs.push(required(&etp_path, ""));
    } else if !matches!(etp, "Cluster" | "Local") {
        errs.push(not_supported(
            &etp_path,
            go_quote(etp),
            &["Cluster", "Local"],
        ));
    }
    let hcnp = int(spec, "healthCheckNodePort");
    if hcnp != 0 && !(s(spec, "type") == "LoadBalancer" && etp == "Local") {
        errs.push(invalid(
            &sp.child("healthCheckNodePort"),
            hcnp.to_string(),
            "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ));
    }
    let itp_path = sp.child("internalTrafficPolicy");
    match spec.get("internalTrafficPolicy").and_then(Value::as_str) {
        None if matches!(s(spec, "type"), "ClusterIP" | "NodePort" | "LoadBalancer") => {
            errs.push(required(&itp_path, ""))
        }
        Some(itp) if !matches!(itp, "Cluster" | "Local") => errs.push(not_supported(
            &itp_path,
            go_quote(itp),
            &["Cluster", "Local"],
        )),
        _ => {}
    }
    if let Some(td) = spec.get("trafficDistribution").and_then(Value::as_str) {
        if td != "PreferClose" {
            errs.push(not_supported(
                &sp.child("trafficDistribution"),
                go_quote(td),
                &["PreferClose"],
            ));
        }
    }
    errs
}

/// `ValidateServiceUpdate`: metadata, cluster IPs and families that may not change, then the
/// whole service again.
pub fn service_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    let (ns, os) = (&new["spec"], &old["spec"]);
    let either_external = s(ns, "type") == "ExternalName" || s(os, "type") == "ExternalName";
    let both_headless = is_headless(new) && is_headless(old);
    if !either_external && !both_headless {
        let (new_ips, old_ips) = (strings(ns, "clusterIPs"), strings(os, "clusterIPs"));
        let p = Path::of(&["spec", "clusterIPs"]);
        if new_ips.is_empty() && !old_ips.is_empty() {
            errs.push(invalid(
                &p.index(0),
                "[]string(nil)",
                "primary clusterIP can not be unset",
            ));
        } else if let Some(i) =
            (0..new_ips.len().min(old_ips.len())).find(|&i| new_ips[i] != old_ips[i])
        {
            errs.push(invalid(
                &p.index(i),
                go_syntax::string_slice(ns.get("clusterIPs")),
                "may not change once set",
            ));
        }
        let (new_fams, old_fams) = (strings(ns, "ipFamilies"), strings(os, "ipFamilies"));
        if let Some(i) =
            (0..new_fams.len().min(old_fams.len())).find(|&i| new_fams[i] != old_fams[i])
        {
            let rendered: Vec<String> = new_fams.iter().map(|f| go_quote(f)).collect();
            errs.push(invalid(
                &Path::of(&["spec", "ipFamilies"]).index(i),
                format!("[]core.IPFamily{{{}}}", rendered.join(", ")),
                "may not change once set",
            ));
        }
    }
    if s(os, "type") == "LoadBalancer"
        && s(ns, "type") == "LoadBalancer"
        && os.get("loadBalancerClass") != ns.get("loadBalancerClass")
    {
        errs.push(invalid(
            &Path::of(&["spec", "loadBalancerClass"]),
            go_syntax::pointer("string", ns.get("loadBalancerClass")),
            "may not change once set",
        ));
    }
    errs.extend(service(new));
    errs
}

/// `ValidateEndpoints` (`ValidateEndpointsCreate`).
pub fn endpoints(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, true);
    for (i, subset) in list(obj, "subsets").iter().enumerate() {
        let p = Path::new("subsets").index(i);
        let (ready, not_ready) = (list(subset, "addresses"), list(subset, "notReadyAddresses"));
        if ready.is_empty() && not_ready.is_empty() {
            errs.push(required(
                &p,
                "must specify `addresses` or `notReadyAddresses`",
            ));
        }
        for (key, addresses) in [("addresses", ready), ("notReadyAddresses", not_ready)] {
            for (j, address) in addresses.iter().enumerate() {
                let ap = p.child(key).index(j);
                errs.extend(non_special_ip(s(address, "ip"), &ap.child("ip")));
                let host = s(address, "hostname");
                if !host.is_empty() {
                    for m in names::dns1123_label(host) {
                        errs.push(invalid(&ap.child("hostname"), go_quote(host), m));
                    }
                }
            }
        }
        let ports = list(subset, "ports");
        for (j, port) in ports.iter().enumerate() {
            let pp = p.child("ports").index(j);
            let name = s(port, "name");
            if ports.len() > 1 && name.is_empty() {
                errs.push(required(&pp.child("name"), ""));
            } else if !name.is_empty() {
                for m in names::dns1123_label(name) {
                    errs.push(invalid(&pp.child("name"), go_quote(name), m));
                }
            }
            errs.extend(port_number(int(port, "port"), &pp.child("port")));
            errs.extend(protocol(s(port, "protocol"), &pp.child("protocol")));
        }
    }
    errs
}

pub fn endpoints_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, true);
    errs.extend(endpoints(new));
    errs
}

const ADDRESS_TYPES: &[&str] = &["FQDN", "IPv4", "IPv6"];

/// `ValidateEndpointSlice` (`ValidateEndpointSliceCreate`).
pub fn endpoint_slice(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, names::name_is_dns_subdomain, false);
    let address_type = s(obj, "addressType");
    match address_type {
        "" => errs.push(required(&Path::new("addressType"), "")),
        x if ADDRESS_TYPES.contains(&x) => {}
        other => errs.push(not_supported(
            &Path::new("addressType"),
            go_quote(other),
            ADDRESS_TYPES,
        )),
    }
    let endpoints = list(obj, "endpoints");
    if endpoints.len() > 1000 {
        errs.push(too_many(&Path::new("endpoints"), endpoints.len(), 1000));
    }
    for (i, endpoint) in endpoints.iter().enumerate() {
        let p = Path::new("endpoints").index(i);
        let addresses = strings(endpoint, "addresses");
        let ap = p.child("addresses");
        if addresses.is_empty() {
            errs.push(required(&ap, "must contain at least 1 address"));
        } else if addresses.len() > 100 {
            errs.push(too_many(&ap, addresses.len(), 100));
        }
        for (j, address) in addresses.iter().enumerate() {
            let parsed = address.parse::<IpAddr>().ok();
            let why = match address_type {
                "IPv4" if !parsed.is_some_and(|a| a.is_ipv4()) => {
                    Some("must be a valid IPv4 address")
                }
                "IPv6" if !parsed.is_some_and(|a| a.is_ipv6()) => {
                    Some("must be a valid IPv6 address")
                }
                _ => None,
            };
            if let Some(why) = why {
                errs.push(invalid(&ap.index(j), go_quote(address), why));
            }
        }
        let node = s(endpoint, "nodeName");
        if !node.is_empty() {
            for m in names::name_is_dns_subdomain(node, false) {
                errs.push(invalid(&p.child("nodeName"), go_quote(node), m));
            }
        }
    }
    let ports = list(obj, "ports");
    let mut seen = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        let p = Path::new("ports").index(i);
        let name = s(port, "name");
        if !name.is_empty() {
            for m in names::dns1123_label(name) {
                errs.push(invalid(&p.child("name"), go_quote(name), m));
            }
        }
        if !seen.insert(name) {
            errs.push(duplicate(&p.child("name"), go_quote(name)));
        }
        if let Some(proto) = port.get("protocol").and_then(Value::as_str) {
            if !PROTOCOLS.contains(&proto) {
                errs.push(not_supported(
                    &p.child("protocol"),
                    go_quote(proto),
                    PROTOCOLS,
                ));
            }
        }
        if let Some(n) = port.get("port").and_then(Value::as_i64) {
            errs.extend(port_number(n, &p.child("port")));
        }
    }
    if ports.len() > 20000 {
        errs.push(too_many(&Path::new("ports"), ports.len(), 20000));
    }
    errs
}

/// `ValidateEndpointSliceUpdate`: the address type is fixed.
pub fn endpoint_slice_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = object_meta_update(new, old, false);
    if s(new, "addressType") != s(old, "addressType") {
        errs.push(invalid(
            &Path::new("addressType"),
            go_quote(s(new, "addressType")),
            IMMUTABLE,
        ));
    }
    errs.extend(endpoint_slice(new));
    errs
}

#[cfg(test)]
mod tests {
    use crate::validation::messages;
    use serde_json::json;

    fn cluster_ip_service() -> serde_json::Value {
        json!({"metadata": {"name": "web", "namespace": "default"},
               "spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}],
                        "selector": {"app": "web"}, "clusterIP": "10.0.0.20",
                        "clusterIPs": ["10.0.0.20"], "type": "ClusterIP",
                        "sessionAffinity": "None", "ipFamilies": ["IPv4"],
                        "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster"}})
    }

    #[test]
    fn an_allocated_cluster_ip_service_is_valid() {
        assert_eq!(
            messages(super::service(&cluster_ip_service())),
            Vec::<String>::new()
        );
    }

    #[test]
    fn messages_follow_validate_service() {
        let mut svc = cluster_ip_service();
        svc["metadata"]["name"] = json!("9web");
        svc["spec"]["ports"] = json!([{"port": 80, "protocol": "TCP", "targetPort": 80, "nodePort": 30080},
                                      {"port": 0, "protocol": "FOO", "targetPort": "a--b"}]);
        svc["spec"]["type"] = json!("ClusterIP");
        assert_eq!(messages(super::service(&svc)), vec![
            "metadata.name: Invalid value: \"9web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
            "spec.ports[0].name: Required value",
            "spec.ports[1].name: Required value",
            "spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive",
            "spec.ports[1].protocol: Unsupported value: \"FOO\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
            "spec.ports[1].targetPort: Invalid value: \"a--b\": must not contain consecutive hyphens",
            "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
        ]);
    }

    #[test]
    fn an_unknown_type_lists_the_four() {
        let mut svc = cluster_ip_service();
        svc["spec"]["type"] = json!("Foo");
        svc["spec"]["internalTrafficPolicy"] = json!(null);
        assert_eq!(messages(super::service(&svc)), vec![
            "spec.type: Unsupported value: \"Foo\": supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\"",
        ]);
    }

    #[test]
    fn a_cluster_ip_may_not_change() {
        let old = cluster_ip_service();
        let mut new = old.clone();
        new["spec"]["clusterIP"] = json!("10.0.0.99");
        new["spec"]["clusterIPs"] = json!(["10.0.0.99"]);
        assert_eq!(
            messages(super::service_update(&new, &old)),
            vec![
            "spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.99\"}: may not change once set",
        ]
        );
    }

    #[test]
    fn endpoints_need_an_address_and_slices_a_known_type() {
        let ep = json!({"metadata": {"name": "web", "namespace": "default"},
                        "subsets": [{"ports": [{"port": 80, "protocol": "TCP"}]},
                                    {"addresses": [{"ip": "127.0.0.1"}]}]});
        assert_eq!(messages(super::endpoints(&ep)), vec![
            "subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`",
            "subsets[1].addresses[0].ip: Invalid value: \"127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)",
        ]);
        let slice = json!({"metadata": {"name": "web-abcde", "namespace": "default"},
                           "addressType": "IPv5", "endpoints": [{"addresses": []}]});
        assert_eq!(messages(super::endpoint_slice(&slice)), vec![
            "addressType: Unsupported value: \"IPv5\": supported values: \"FQDN\", \"IPv4\", \"IPv6\"",
            "endpoints[0].addresses: Required value: must contain at least 1 address",
        ]);
    }
}
