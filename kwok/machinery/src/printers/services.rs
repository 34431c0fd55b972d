//! Services, Endpoints and EndpointSlices (`printService`, `printEndpoints`, `printEndpointSlice`
//! in printers.go).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::docs;
use super::values::{age, arr_at, int_of, name, obj_at, str_at};

pub const SERVICE_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Type", "string", docs::SERVICE_TYPE),
    Column::new("Cluster-IP", "string", docs::SERVICE_CLUSTER_IP),
    Column::new("External-IP", "string", docs::SERVICE_EXTERNAL_IPS),
    Column::new("Port(s)", "string", docs::SERVICE_PORTS),
    Column::age(),
    Column::new("Selector", "string", docs::SERVICE_SELECTOR).wide(),
];

pub const ENDPOINTS_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Endpoints", "string", docs::ENDPOINTS_SUBSETS),
    Column::age(),
];

pub const ENDPOINT_SLICE_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("AddressType", "string", docs::ENDPOINT_SLICE_ADDRESS_TYPE),
    Column::new("Ports", "string", docs::ENDPOINT_SLICE_PORTS),
    Column::new("Endpoints", "string", docs::ENDPOINT_SLICE_ENDPOINTS),
    Column::age(),
];

/// How many entries the list cells show before `+ N more...`.
const SHOWN: usize = 3;

pub fn service_cells(svc: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let spec = &svc["spec"];
    let cluster_ip = arr_at(spec, &["clusterIPs"])
        .first()
        .and_then(Value::as_str)
        .unwrap_or("<none>");
    let ports = port_string(arr_at(spec, &["ports"]));
    vec![
        name(svc),
        Value::from(str_at(spec, &["type"])),
        Value::from(cluster_ip),
        Value::from(external_ip(svc)),
        Value::from(if ports.is_empty() {
            "<none>".into()
        } else {
            ports
        }),
        age(svc, now),
        Value::from(crate::selectors::format_labels(obj_at(spec, &["selector"]))),
    ]
}

/// `getServiceExternalIP`.
fn external_ip(svc: &Value) -> String {
    let spec = &svc["spec"];
    let external: Vec<&str> = arr_at(spec, &["externalIPs"])
        .iter()
        .filter_map(Value::as_str)
        .collect();
    match str_at(spec, &["type"]) {
        "ClusterIP" | "NodePort" if !external.is_empty() => external.join(","),
        "ClusterIP" | "NodePort" => "<none>".into(),
        "LoadBalancer" => {
            let mut all: Vec<String> = load_balancer_ingress(svc);
            all.extend(external.iter().map(|s| s.to_string()));
            if all.is_empty() {
                "<pending>".into()
            } else {
                all.join(",")
            }
        }
        "ExternalName" => str_at(spec, &["externalName"]).to_string(),
        _ => "<unknown>".into(),
    }
}

/// `loadBalancerStatusStringer` (wide): each ingress's IP, or its hostname.
fn load_balancer_ingress(svc: &Value) -> Vec<String> {
    arr_at(svc, &["status", "loadBalancer", "ingress"])
        .iter()
        .filter_map(|ingress| {
            let ip = str_at(ingress, &["ip"]);
            let host = str_at(ingress, &["hostname"]);
            (!ip.is_empty())
                .then_some(ip)
                .or((!host.is_empty()).then_some(host))
                .map(str::to_string)
        })
        .collect()
}

/// `makePortString`: `80/TCP`, or `80:30080/TCP` with a node port.
fn port_string(ports: &[Value]) -> String {
    ports
        .iter()
        .map(|p| {
            let port = int_of(&p["port"]);
            let protocol = str_at(p, &["protocol"]);
            match int_of(&p["nodePort"]) {
                node_port if node_port > 0 => format!("{port}:{node_port}/{protocol}"),
                _ => format!("{port}/{protocol}"),
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

pub fn endpoints_cells(ep: &Value, now: DateTime<Utc>) -> Vec<Value> {
    vec![name(ep), Value::from(format_endpoints(ep)), age(ep, now)]
}

/// `formatEndpoints` with every port: `ip:port` for each ready address and port, the first three,
/// then `+ N more...`.
fn format_endpoints(ep: &Value) -> String {
    let subsets = arr_at(ep, &["subsets"]);
    if subsets.is_empty() {
        return "<none>".into();
    }
    let mut list: Vec<String> = Vec::new();
    let mut count = 0;
    let mut more = false;
    for subset in subsets {
        let addresses = arr_at(subset, &["addresses"]);
        let ports = arr_at(subset, &["ports"]);
        let pairs: Vec<(Option<i64>, &Value)> = if ports.is_empty() {
            // Headless services may have no ports.
            addresses.iter().map(|a| (None, a)).collect()
        } else {
            ports
                .iter()
                .flat_map(|p| addresses.iter().map(move |a| (Some(int_of(&p["port"])), a)))
                .collect()
        };
        count += pairs.len();
        for (port, address) in pairs {
            if list.len() == SHOWN {
                more = true;
                break;
            }
            let ip = str_at(address, &["ip"]);
            list.push(match port {
                Some(port) if ip.contains(':') => format!("[{ip}]:{port}"),
                Some(port) => format!("{ip}:{port}"),
                None => ip.to_string(),
            });
        }
    }
    let joined = list.join(",");
    if more {
        format!("{joined} + {} more...", count - SHOWN)
    } else {
        joined
    }
}

pub fn endpoint_slice_cells(slice: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let ports = arr_at(slice, &["ports"]).iter().map(|p| {
        if let Some(port) = p["port"].as_i64() {
            port.to_string()
        } else if let Some(name) = p["name"].as_str() {
            name.to_string()
        } else {
            "*".to_string()
        }
    });
    let addresses = arr_at(slice, &["endpoints"])
        .iter()
        .flat_map(|e| arr_at(e, &["addresses"]))
        .map(|a| a.as_str().unwrap_or("").to_string());
    vec![
        name(slice),
        Value::from(str_at(slice, &["addressType"])),
        Value::from(with_more(ports)),
        Value::from(with_more(addresses)),
        age(slice, now),
    ]
}

/// `listWithMoreString`: the first three, `+ N more...`, `<unset>` for none.
fn with_more(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    let shown = items[..items.len().min(SHOWN)].join(",");
    if items.len() > SHOWN {
        format!("{shown} + {} more...", items.len() - SHOWN)
    } else if shown.is_empty() {
        "<unset>".into()
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::json;

    use super::*;

    #[test]
    fn service_rows_follow_print_service() {
        let svc = json!({"metadata": {"name": "web"}, "spec": {"type": "NodePort",
            "clusterIPs": ["10.0.0.7"], "selector": {"b": "2", "a": "1"},
            "ports": [{"port": 80, "protocol": "TCP", "nodePort": 30080}, {"port": 53, "protocol": "UDP"}]}});
        let cells = service_cells(&svc, Utc::now());
        assert_eq!(cells[1], "NodePort");
        assert_eq!(cells[2], "10.0.0.7");
        assert_eq!(cells[3], "<none>");
        assert_eq!(cells[4], "80:30080/TCP,53/UDP");
        assert_eq!(cells[6], "a=1,b=2");
        let external = json!({"metadata": {"name": "db"}, "spec": {"type": "ExternalName", "externalName": "db.example.com"}});
        let cells = service_cells(&external, Utc::now());
        assert_eq!(cells[2], "<none>");
        assert_eq!(cells[3], "db.example.com");
        assert_eq!(cells[4], "<none>");
        assert_eq!(cells[6], "<none>");
        let lb = json!({"spec": {"type": "LoadBalancer", "clusterIPs": ["None"]}});
        assert_eq!(service_cells(&lb, Utc::now())[3], "<pending>");
    }

    #[test]
    fn endpoints_show_three_then_a_count() {
        let ep = json!({"subsets": [{"addresses": [{"ip": "10.1.0.1"}, {"ip": "10.1.0.2"}],
            "ports": [{"port": 80}, {"port": 443}]}]});
        assert_eq!(
            format_endpoints(&ep),
            "10.1.0.1:80,10.1.0.2:80,10.1.0.1:443 + 1 more..."
        );
        assert_eq!(format_endpoints(&json!({})), "<none>");
        let not_ready = json!({"subsets": [{"notReadyAddresses": [{"ip": "10.1.0.1"}], "ports": [{"port": 80}]}]});
        assert_eq!(format_endpoints(&not_ready), "");
    }

    #[test]
    fn endpoint_slices_list_ports_and_addresses() {
        let slice = json!({"addressType": "IPv4", "ports": [{"name": "http", "port": 80}],
            "endpoints": [{"addresses": ["10.1.0.1"]}, {"addresses": ["10.1.0.2"]}]});
        let cells = endpoint_slice_cells(&slice, Utc::now());
        assert_eq!(cells[2], "80");
        assert_eq!(cells[3], "10.1.0.1,10.1.0.2");
        let empty = json!({"addressType": "IPv4", "ports": null, "endpoints": null});
        let cells = endpoint_slice_cells(&empty, Utc::now());
        assert_eq!(cells[2], "<unset>");
        assert_eq!(cells[3], "<unset>");
    }
}
