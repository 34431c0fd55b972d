//! Services and their endpoints: `SetDefaults_Service`, `SetDefaults_Endpoints`
//! (pkg/apis/core/v1/defaults.go) and `SetDefaults_EndpointPort` (pkg/apis/discovery/v1).

use serde_json::{json, Map, Value};

use super::fields::{child, default_nil, default_zero, each, str_of};

/// `ExternallyAccessible` (pkg/api/service/util.go): LoadBalancer, NodePort, or ClusterIP with
/// external IPs.
pub fn externally_accessible(spec: &Map<String, Value>) -> bool {
    let external_ips = spec
        .get("externalIPs")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    match str_of(spec, "type") {
        "LoadBalancer" | "NodePort" => true,
        "ClusterIP" => external_ips,
        _ => false,
    }
}

/// `SetDefaults_Service`.
pub fn service(obj: &mut Map<String, Value>) {
    let Some(spec) = child(obj, "spec") else {
        return;
    };
    default_zero(spec, "sessionAffinity", json!("None"));
    match str_of(spec, "sessionAffinity") {
        "None" => {
            spec.remove("sessionAffinityConfig");
        }
        "ClientIP" => {
            if let Some(client_ip) =
                child(spec, "sessionAffinityConfig").and_then(|c| child(c, "clientIP"))
            {
                default_nil(client_ip, "timeoutSeconds", json!(10800));
            }
        }
        _ => {}
    }
    default_zero(spec, "type", json!("ClusterIP"));
    for port in each(spec, "ports") {
        default_zero(port, "protocol", json!("TCP"));
        // `targetPort == intstr.FromInt32(0) || targetPort == intstr.FromString("")`.
        let unset = match port.get("targetPort") {
            None | Some(Value::Null) => true,
            Some(Value::Number(n)) => n.as_i64() == Some(0),
            Some(Value::String(s)) => s.is_empty(),
            Some(_) => false,
        };
        if unset {
            let p = port.get("port").cloned().unwrap_or(json!(0));
            port.insert("targetPort".into(), p);
        }
    }
    if externally_accessible(spec) {
        default_zero(spec, "externalTrafficPolicy", json!("Cluster"));
    }
    let kind = str_of(spec, "type").to_string();
    if matches!(kind.as_str(), "NodePort" | "LoadBalancer" | "ClusterIP") {
        default_nil(spec, "internalTrafficPolicy", json!("Cluster"));
    }
    if kind == "LoadBalancer" {
        default_nil(spec, "allocateLoadBalancerNodePorts", json!(true));
        if let Some(lb) = child(obj, "status").and_then(|s| child(s, "loadBalancer")) {
            for ingress in each(lb, "ingress") {
                if !str_of(ingress, "ip").is_empty() {
                    default_nil(ingress, "ipMode", json!("VIP"));
                }
            }
        }
    }
}

/// `SetDefaults_Endpoints`: every port's protocol is TCP unless given.
pub fn endpoints(obj: &mut Map<String, Value>) {
    for subset in each(obj, "subsets") {
        for port in each(subset, "ports") {
            default_zero(port, "protocol", json!("TCP"));
        }
    }
}

/// `SetDefaults_EndpointPort` (discovery/v1): a nil name is `""`, a nil protocol TCP. The
/// `endpoints` and `ports` lists have no `omitempty`, and storage keeps no empty list: an empty
/// one reads back as `null`.
pub fn endpoint_slice(obj: &mut Map<String, Value>) {
    for key in ["endpoints", "ports"] {
        if obj
            .get(key)
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
        {
            obj.insert(key.into(), Value::Null);
        }
    }
    for port in each(obj, "ports") {
        default_nil(port, "name", json!(""));
        default_nil(port, "protocol", json!("TCP"));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    fn defaulted(
        mut v: serde_json::Value,
        f: fn(&mut serde_json::Map<String, serde_json::Value>),
    ) -> serde_json::Value {
        f(v.as_object_mut().expect("object"));
        v
    }

    #[test]
    fn a_bare_service_is_a_cluster_ip_with_tcp_ports_aimed_at_themselves() {
        let svc = defaulted(
            json!({"spec": {"ports": [{"port": 80}, {"port": 53, "protocol": "UDP", "targetPort": "dns"}]}}),
            super::service,
        );
        assert_eq!(
            svc["spec"],
            json!({"ports": [{"port": 80, "protocol": "TCP", "targetPort": 80},
                             {"port": 53, "protocol": "UDP", "targetPort": "dns"}],
                   "sessionAffinity": "None", "type": "ClusterIP", "internalTrafficPolicy": "Cluster"})
        );
    }

    #[test]
    fn node_ports_and_load_balancers_are_externally_accessible() {
        let svc = defaulted(json!({"spec": {"type": "LoadBalancer"}}), super::service);
        assert_eq!(svc["spec"]["externalTrafficPolicy"], "Cluster");
        assert_eq!(svc["spec"]["allocateLoadBalancerNodePorts"], true);
        let svc = defaulted(
            json!({"spec": {"type": "ExternalName", "externalName": "example.com"}}),
            super::service,
        );
        assert!(svc["spec"].get("internalTrafficPolicy").is_none());
        assert!(svc["spec"].get("externalTrafficPolicy").is_none());
    }

    #[test]
    fn client_ip_affinity_gets_three_hours() {
        let svc = defaulted(
            json!({"spec": {"sessionAffinity": "ClientIP"}}),
            super::service,
        );
        assert_eq!(
            svc["spec"]["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"],
            10800
        );
    }

    #[test]
    fn endpoint_ports_are_tcp() {
        let ep = defaulted(
            json!({"subsets": [{"ports": [{"port": 80}]}]}),
            super::endpoints,
        );
        assert_eq!(ep["subsets"][0]["ports"][0]["protocol"], "TCP");
        let slice = defaulted(json!({"ports": [{"port": 80}]}), super::endpoint_slice);
        assert_eq!(
            slice["ports"][0],
            json!({"port": 80, "name": "", "protocol": "TCP"})
        );
        assert_eq!(slice["endpoints"], json!(null));
    }
}
