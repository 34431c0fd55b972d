//! networking.k8s.io: Ingresses, IngressClasses and NetworkPolicies (`printIngress`,
//! `printIngressClass`, `printNetworkPolicy` in printers.go).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::docs;
use super::values::{age, arr_at, name};

pub const INGRESS_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Class", "string", docs::INGRESS_CLASS),
    Column::new("Hosts", "string", docs::INGRESS_HOSTS),
    Column::new("Address", "string", docs::INGRESS_ADDRESS),
    Column::new("Ports", "string", docs::INGRESS_PORTS),
    Column::age(),
];

pub const INGRESS_CLASS_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Controller", "string", docs::INGRESS_CLASS_CONTROLLER),
    Column::new("Parameters", "string", docs::INGRESS_CLASS_PARAMETERS),
    Column::age(),
];

pub const NETWORK_POLICY_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Pod-Selector", "string", docs::NETWORK_POLICY_POD_SELECTOR),
    Column::age(),
];

/// `formatHosts`: up to three hosts, then how many rules are left; `*` when none names a host.
fn hosts(rules: &[Value]) -> String {
    const MAX: usize = 3;
    let mut list = Vec::new();
    let mut more = false;
    for rule in rules {
        if list.len() == MAX {
            more = true;
        }
        let host = rule["host"].as_str().unwrap_or("");
        if !more && !host.is_empty() {
            list.push(host);
        }
    }
    if list.is_empty() {
        return "*".into();
    }
    let joined = list.join(",");
    if more {
        format!("{joined} + {} more...", rules.len() - MAX)
    } else {
        joined
    }
}

/// `ingressLoadBalancerStatusStringer` (always wide on the server): each entry's IP, else its
/// hostname, deduplicated and sorted.
fn address(ing: &Value) -> String {
    let set: BTreeSet<&str> = arr_at(ing, &["status", "loadBalancer", "ingress"])
        .iter()
        .filter_map(|e| {
            let ip = e["ip"].as_str().filter(|s| !s.is_empty());
            ip.or_else(|| e["hostname"].as_str().filter(|s| !s.is_empty()))
        })
        .collect();
    set.into_iter().collect::<Vec<_>>().join(",")
}

pub fn ingress_cells(ing: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let class = ing["spec"]["ingressClassName"].as_str().unwrap_or("<none>");
    let ports = if arr_at(ing, &["spec", "tls"]).is_empty() {
        "80"
    } else {
        "80, 443"
    };
    vec![
        name(ing),
        Value::from(class),
        Value::from(hosts(arr_at(ing, &["spec", "rules"]))),
        Value::from(address(ing)),
        Value::from(ports),
        age(ing, now),
    ]
}

pub fn ingress_class_cells(class: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let params = &class["spec"]["parameters"];
    let parameters = if params.is_object() {
        let kind = params["kind"].as_str().unwrap_or("");
        let group = params["apiGroup"]
            .as_str()
            .map(|g| format!(".{g}"))
            .unwrap_or_default();
        format!("{kind}{group}/{}", params["name"].as_str().unwrap_or(""))
    } else {
        "<none>".into()
    };
    vec![
        name(class),
        Value::from(class["spec"]["controller"].as_str().unwrap_or("")),
        Value::from(parameters),
        age(class, now),
    ]
}

pub fn network_policy_cells(np: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let selector = crate::selectors::format_label_selector(&np["spec"]["podSelector"]);
    vec![name(np), Value::from(selector), age(np, now)]
}
