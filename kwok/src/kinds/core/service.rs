//! Services (`pkg/registry/core/service/strategy.go`, with the storage's allocation hooks of
//! `storage/storage.go` and `storage/alloc.go`), and the `kubernetes` Service the API server
//! creates at start (`pkg/controlplane/controller/kubernetesservice`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{json, Map, Value};

use super::service_alloc::{self as alloc, Allocated};
use crate::error::{ApiError, FieldError};
use crate::gofmt::go_syntax;
use crate::printers::{services as printer, Column};
use crate::resource::Strategy;
use crate::resource::{proxy, status, ResourceDef, FULL_VERBS};
use crate::resource::{Allocation, StoredObjects};
use crate::validation::services as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "Service",
    plural: "services",
    singular: "service",
    namespaced: true,
    short_names: &["svc"],
    categories: &["all"],
    verbs: FULL_VERBS,
    subresources: &[proxy("ServiceProxyOptions"), status("Service")],
    strategy: &Service,
};

/// The API server's own Service: `default/kubernetes`, https 443 to the secure port.
pub fn kubernetes_service(secure_port: u16) -> Value {
    json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "kubernetes", "namespace": "default",
            "labels": {"component": "apiserver", "provider": "kubernetes"}},
        "spec": {"ports": [{"name": "https", "protocol": "TCP", "port": 443, "targetPort": secure_port}],
            "clusterIP": alloc::api_server_service_ip(), "type": "ClusterIP",
            "sessionAffinity": "None", "ipFamilyPolicy": "SingleStack"}})
}

#[derive(Debug)]
pub struct Service;

fn spec_mut(obj: &mut Value) -> &mut Map<String, Value> {
    if !obj["spec"].is_object() {
        obj["spec"] = json!({});
    }
    match obj["spec"].as_object_mut() {
        Some(m) => m,
        None => unreachable!("spec was just made an object"),
    }
}

fn str_at<'a>(spec: &'a Value, key: &str) -> &'a str {
    spec[key].as_str().unwrap_or("")
}

fn strings(spec: &Value, key: &str) -> Vec<String> {
    spec[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(String::from))
        .collect()
}

/// `needsClusterIP`.
fn needs_cluster_ip(svc: &Value) -> bool {
    str_at(&svc["spec"], "type") != "ExternalName"
}

/// `needsNodePort`.
fn needs_node_port(svc: &Value) -> bool {
    matches!(str_at(&svc["spec"], "type"), "NodePort" | "LoadBalancer")
}

/// `NeedsHealthCheck`.
fn needs_health_check(svc: &Value) -> bool {
    str_at(&svc["spec"], "type") == "LoadBalancer"
        && str_at(&svc["spec"], "externalTrafficPolicy") == "Local"
}

/// `normalizeClusterIPs`: the singular and plural fields agree before anything is allocated.
fn normalize_cluster_ips(new: &mut Value, old: Option<&Value>) {
    let (ip, ips) = (
        str_at(&new["spec"], "clusterIP").to_string(),
        strings(&new["spec"], "clusterIPs"),
    );
    if let Some(old) = old.filter(|o| needs_cluster_ip(o)) {
        let (old_ip, old_ips) = (
            str_at(&old["spec"], "clusterIP"),
            strings(&old["spec"], "clusterIPs"),
        );
        if ip != old_ip && ips == old_ips {
            let spec = spec_mut(new);
            if ip.is_empty() {
                spec.remove("clusterIPs");
            } else if !ips.is_empty() {
                let mut ips = ips;
                ips[0] = ip;
                spec.insert("clusterIPs".into(), json!(ips));
            }
            return;
        }
    }
    if !ip.is_empty() && ips.is_empty() {
        spec_mut(new).insert("clusterIPs".into(), json!([ip]));
    }
}

/// `patchAllocatedValues`: what a PUT without the allocated values keeps from the old object.
fn patch_allocated_values(new: &mut Value, old: &Value) {
    if needs_cluster_ip(old) && needs_cluster_ip(new) {
        let spec = spec_mut(new);
        if str_of(spec, "clusterIP").is_empty() {
            spec.insert("clusterIP".into(), old["spec"]["clusterIP"].clone());
        }
        if strings(&Value::Object(spec.clone()), "clusterIPs").is_empty()
            && !strings(&old["spec"], "clusterIPs").is_empty()
        {
            spec.insert("clusterIPs".into(), old["spec"]["clusterIPs"].clone());
        }
    }
    if needs_node_port(old) && needs_node_port(new) {
        let old_ports: Vec<Value> = old["spec"]["ports"].as_array().cloned().unwrap_or_default();
        let spec = spec_mut(new);
        let taken: Vec<i64> = spec
            .get("ports")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(alloc::node_port)
            .collect();
        for port in spec
            .get_mut("ports")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if alloc::node_port(port) != 0 {
                continue;
            }
            let name = port["name"].as_str().unwrap_or("").to_string();
            let found = old_ports
                .iter()
                .find(|p| p["name"].as_str().unwrap_or("") == name)
                .map(alloc::node_port)
                .filter(|np| *np != 0 && !taken.contains(np));
            if let Some(np) = found {
                port["nodePort"] = json!(np);
            }
        }
    }
    if needs_health_check(old) && needs_health_check(new) {
        let spec = spec_mut(new);
        if spec
            .get("healthCheckNodePort")
            .and_then(Value::as_i64)
            .unwrap_or(0)
            == 0
        {
            spec.insert(
                "healthCheckNodePort".into(),
                old["spec"]["healthCheckNodePort"].clone(),
            );
        }
    }
}

fn str_of<'a>(m: &'a Map<String, Value>, key: &str) -> &'a str {
    m.get(key).and_then(Value::as_str).unwrap_or("")
}

fn invalid(svc: &Value, errs: Vec<FieldError>) -> ApiError {
    ApiError::invalid(&RESOURCE, crate::meta::name(svc), &errs)
}

/// `initIPFamilyFields` on a single-stack IPv4 cluster.
fn init_ip_family_fields(svc: &mut Value, old: Option<&Value>) -> Result<(), ApiError> {
    if !needs_cluster_ip(svc) {
        return Ok(());
    }
    let headless_selectorless = validation::is_headless(svc)
        && svc["spec"]["selector"]
            .as_object()
            .is_none_or(Map::is_empty);
    {
        let old_spec = old
            .filter(|o| needs_cluster_ip(o))
            .map(|o| o["spec"].clone());
        let spec = spec_mut(svc);
        if let Some(old_spec) = &old_spec {
            if spec.get("ipFamilyPolicy").is_none_or(Value::is_null) {
                spec.insert("ipFamilyPolicy".into(), old_spec["ipFamilyPolicy"].clone());
            }
            if spec
                .get("ipFamilies")
                .and_then(Value::as_array)
                .is_none_or(Vec::is_empty)
            {
                spec.insert("ipFamilies".into(), old_spec["ipFamilies"].clone());
            }
        }
        if spec.get("ipFamilyPolicy").is_none_or(Value::is_null) {
            let policy = if headless_selectorless {
                "RequireDualStack"
            } else {
                "SingleStack"
            };
            spec.insert("ipFamilyPolicy".into(), json!(policy));
        }
    }
    let errs = validation::cluster_ips(&svc["spec"]);
    if !errs.is_empty() {
        return Err(invalid(svc, errs));
    }
    let policy = str_at(&svc["spec"], "ipFamilyPolicy").to_string();
    let families = strings(&svc["spec"], "ipFamilies");
    if headless_selectorless {
        let mut families = if families.is_empty() {
            vec!["IPv4".to_string()]
        } else {
            families
        };
        if policy != "SingleStack" && families.len() == 1 {
            let other = if families[0] == "IPv4" {
                "IPv6"
            } else {
                "IPv4"
            };
            families.push(other.into());
        }
        spec_mut(svc).insert("ipFamilies".into(), json!(families));
        return Ok(());
    }
    let mut errs = Vec::new();
    if policy == "RequireDualStack" {
        errs.push(FieldError::invalid(
            "spec.ipFamilyPolicy",
            crate::error::go_quote(&policy),
            "this cluster is not configured for dual-stack services",
        ));
    }
    for (i, family) in families.iter().enumerate() {
        if family == "IPv6" {
            errs.push(FieldError::invalid(
                format!("spec.ipFamilies[{i}]"),
                crate::error::go_quote(family),
                "not configured on this cluster",
            ));
        }
    }
    for (i, ip) in strings(&svc["spec"], "clusterIPs").iter().enumerate() {
        if ip.contains(':') {
            errs.push(FieldError::invalid(
                format!("spec.clusterIPs[{i}]"),
                go_syntax::string_slice(svc["spec"].get("clusterIPs")),
                "IPv6 is not configured on this cluster",
            ));
        }
    }
    if !errs.is_empty() {
        return Err(invalid(svc, errs));
    }
    if families.is_empty() {
        spec_mut(svc).insert("ipFamilies".into(), json!(["IPv4"]));
    }
    Ok(())
}

/// `txnAllocClusterIPs`: an empty first cluster IP gets the next free one; a given one must be
/// free (unless this service already holds it) and in range.
fn allocate_cluster_ips(
    svc: &mut Value,
    old: Option<&Value>,
    held: &mut Allocated,
) -> Result<(), ApiError> {
    if !needs_cluster_ip(svc) || validation::is_headless(svc) {
        return Ok(());
    }
    let ips = strings(&svc["spec"], "clusterIPs");
    let old_ips = old
        .filter(|o| needs_cluster_ip(o))
        .map(|o| strings(&o["spec"], "clusterIPs"))
        .unwrap_or_default();
    match ips.first() {
        None => {
            let ip = held.next_ip().map_err(|e| {
                ApiError::internal(format!("failed to allocate a serviceIP: {}", e.ip_text("")))
            })?;
            let spec = spec_mut(svc);
            spec.insert("clusterIP".into(), json!(ip));
            spec.insert("clusterIPs".into(), json!([ip]));
        }
        Some(ip) if old_ips.first() == Some(ip) => {}
        Some(ip) => {
            if let Err(e) = held.ip(ip) {
                let value = go_syntax::string_slice(svc["spec"].get("clusterIPs"));
                return Err(invalid(
                    svc,
                    vec![FieldError::invalid(
                        "spec.clusterIPs",
                        value,
                        format!("failed to allocate IP {ip}: {}", e.ip_text(ip)),
                    )],
                ));
            }
        }
    }
    Ok(())
}

/// `txnAllocNodePorts` / `updateNodePorts`: ports sharing a port number share a node port.
fn allocate_node_ports(
    svc: &mut Value,
    old: Option<&Value>,
    held: &mut Allocated,
) -> Result<(), ApiError> {
    if !needs_node_port(svc) {
        return Ok(());
    }
    let mine: Vec<i64> = old
        .filter(|o| needs_node_port(o))
        .and_then(|o| o["spec"]["ports"].as_array())
        .into_iter()
        .flatten()
        .map(alloc::node_port)
        .filter(|np| *np != 0)
        .collect();
    let only_requested = str_at(&svc["spec"], "type") == "LoadBalancer"
        && svc["spec"]["allocateLoadBalancerNodePorts"] == json!(false);
    let mut ports: Vec<Value> = svc["spec"]["ports"].as_array().cloned().unwrap_or_default();
    let mut by_port: Vec<(i64, i64)> = Vec::new();
    let mut errs = Vec::new();
    for (i, port) in ports.iter_mut().enumerate() {
        let np = alloc::node_port(port);
        let number = port["port"].as_i64().unwrap_or(0);
        if np != 0 {
            if mine.contains(&np) || by_port.iter().any(|(_, n)| *n == np) {
                held.keep_port(np);
            } else if let Err(e) = held.port(np) {
                errs.push(FieldError::invalid(
                    format!("spec.ports[{i}].nodePort"),
                    np.to_string(),
                    e.port_text(),
                ));
                continue;
            }
            by_port.push((number, np));
        } else if !only_requested {
            let np = match by_port.iter().find(|(p, _)| *p == number) {
                Some((_, np)) => *np,
                None => held.next_port().map_err(|e| {
                    ApiError::internal(format!("failed to allocate a nodePort: {}", e.port_text()))
                })?,
            };
            port["nodePort"] = json!(np);
            by_port.push((number, np));
        }
    }
    if !errs.is_empty() {
        return Err(invalid(svc, errs));
    }
    if !ports.is_empty() {
        spec_mut(svc).insert("ports".into(), Value::Array(ports));
    }
    if needs_health_check(svc) {
        let hc = svc["spec"]["healthCheckNodePort"].as_i64().unwrap_or(0);
        let old_hc = old.map(|o| o["spec"]["healthCheckNodePort"].as_i64().unwrap_or(0));
        if hc == 0 {
            let np = held.next_port().map_err(|e| {
                ApiError::internal(format!("failed to allocate a nodePort: {}", e.port_text()))
            })?;
            spec_mut(svc).insert("healthCheckNodePort".into(), json!(np));
        } else if old_hc != Some(hc) {
            held.port(hc).map_err(|e| {
                ApiError::internal(format!(
                    "failed to allocate requested HealthCheck NodePort {hc}: {}",
                    e.port_text()
                ))
            })?;
        }
    }
    Ok(())
}

fn allocate(
    objects: &dyn StoredObjects,
    svc: &mut Value,
    old: Option<&Value>,
) -> Result<Allocation, ApiError> {
    let guard = alloc::lock();
    init_ip_family_fields(svc, old)?;
    let skip = old.map(|o| (crate::meta::namespace(o), crate::meta::name(o)));
    let mut held = Allocated::read(objects, skip);
    allocate_cluster_ips(svc, old, &mut held)?;
    allocate_node_ports(svc, old, &mut held)?;
    Ok(guard)
}

/// `dropTypeDependentFields`: a type change clears what only the old type had, unless the
/// request changed that field too.
fn drop_type_dependent_fields(new: &mut Value, old: &Value) {
    let unchanged = |new: &Value, key: &str| new["spec"].get(key) == old["spec"].get(key);
    if needs_cluster_ip(old) && !needs_cluster_ip(new) {
        let clear_ips = unchanged(new, "clusterIP") && unchanged(new, "clusterIPs");
        let clear_policy = unchanged(new, "ipFamilyPolicy");
        let clear_families = unchanged(new, "ipFamilies");
        let spec = spec_mut(new);
        if clear_ips {
            spec.remove("clusterIP");
            spec.remove("clusterIPs");
        }
        if clear_policy {
            spec.remove("ipFamilyPolicy");
        }
        if clear_families {
            spec.remove("ipFamilies");
        }
    }
    if needs_node_port(old) && !needs_node_port(new) {
        let old_ports: Vec<i64> = old["spec"]["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .map(alloc::node_port)
            .collect();
        let new_ports: Vec<i64> = new["spec"]["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .map(alloc::node_port)
            .collect();
        if new_ports
            .iter()
            .all(|np| *np == 0 || old_ports.contains(np))
        {
            for port in spec_mut(new)
                .get_mut("ports")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                if let Some(p) = port.as_object_mut() {
                    p.remove("nodePort");
                }
            }
        }
    }
    if needs_health_check(old) && !needs_health_check(new) && unchanged(new, "healthCheckNodePort")
    {
        spec_mut(new).remove("healthCheckNodePort");
    }
    if str_at(&old["spec"], "type") == "LoadBalancer"
        && str_at(&new["spec"], "type") != "LoadBalancer"
    {
        for key in ["allocateLoadBalancerNodePorts", "loadBalancerClass"] {
            if unchanged(new, key) {
                spec_mut(new).remove(key);
            }
        }
    }
    let old_accessible = old["spec"]
        .as_object()
        .is_some_and(crate::defaults::services::externally_accessible);
    let new_accessible = new["spec"]
        .as_object()
        .is_some_and(crate::defaults::services::externally_accessible);
    if old_accessible && !new_accessible && unchanged(new, "externalTrafficPolicy") {
        spec_mut(new).remove("externalTrafficPolicy");
    }
    if str_at(&new["spec"], "type") != "LoadBalancer" {
        new["status"]["loadBalancer"] = json!({});
    }
}

crate::kinds::decodes_as!(Service, k8s::Service);

impl Strategy for Service {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::SERVICE)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::services::service(obj);
    }

    /// `beginCreate`: `normalizeClusterIPs`, then `allocateCreate`.
    fn begin_create(
        &self,
        objects: &dyn StoredObjects,
        obj: &mut Value,
    ) -> Result<Option<Allocation>, ApiError> {
        normalize_cluster_ips(obj, None);
        allocate(objects, obj, None).map(Some)
    }

    /// `beginUpdate`: `patchAllocatedValues`, `normalizeClusterIPs`, then `allocateUpdate`.
    fn begin_update(
        &self,
        objects: &dyn StoredObjects,
        new: &mut Value,
        old: &Value,
    ) -> Result<Option<Allocation>, ApiError> {
        patch_allocated_values(new, old);
        normalize_cluster_ips(new, Some(old));
        allocate(objects, new, Some(old)).map(Some)
    }

    /// `service.Status = api.ServiceStatus{}`.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"loadBalancer": {}});
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        new["status"] = old
            .get("status")
            .cloned()
            .unwrap_or(json!({"loadBalancer": {}}));
        drop_type_dependent_fields(new, old);
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        crate::warnings::service::service(obj)
    }

    fn warnings_on_update(&self, new: &Value, _old: &Value) -> Vec<String> {
        crate::warnings::service::service(new)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::service(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::service_update(new, old)
    }

    fn returns_deleted_object(&self) -> bool {
        true
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::SERVICE
    }

    fn columns(&self) -> &'static [Column] {
        printer::SERVICE_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::service_cells(obj, now)
    }
}

#[cfg(test)]
mod tests {

    use serde_json::json;

    use super::RESOURCE as SERVICES;
    use crate::api::{Api, WriteOptions};

    fn service(name: &str, spec: serde_json::Value) -> serde_json::Value {
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec})
    }

    #[test]
    fn a_taken_cluster_ip_is_refused_and_a_put_keeps_the_allocated_one() {
        let api = Api::bootstrapped();
        let opts = WriteOptions::default();
        let spec = json!({"clusterIP": "10.0.0.5", "ports": [{"port": 80}]});
        api.create(&SERVICES, "default", service("a", spec.clone()), &opts)
            .expect("first");
        let error = api
            .create(&SERVICES, "default", service("b", spec), &opts)
            .expect_err("taken");
        assert_eq!(
            error.message,
            "Service \"b\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.0.0.5\"}: failed to allocate IP 10.0.0.5: provided IP is already allocated"
        );
        let error = api
            .create(
                &SERVICES,
                "default",
                service(
                    "k",
                    json!({"clusterIP": "10.0.0.1", "ports": [{"port": 80}]}),
                ),
                &opts,
            )
            .expect_err("the kubernetes service holds the first address");
        assert_eq!(error.code, 422);

        // A PUT without the allocated fields keeps them (`patchAllocatedValues`).
        let np = api
            .create(
                &SERVICES,
                "default",
                service(
                    "np",
                    json!({"type": "NodePort", "ports": [{"name": "web", "port": 80}]}),
                ),
                &opts,
            )
            .expect("node port");
        let (ip, port) = (
            np.value["spec"]["clusterIP"].clone(),
            np.value["spec"]["ports"][0]["nodePort"].clone(),
        );
        assert!(port.as_i64().is_some_and(|p| (30086..=32767).contains(&p)));
        let put = service(
            "np",
            json!({"type": "NodePort", "ports": [{"name": "web", "port": 80}]}),
        );
        let after = api
            .update(&SERVICES, "default", "np", put, None, &opts)
            .expect("put");
        assert_eq!(after.value["spec"]["clusterIP"], ip);
        assert_eq!(after.value["spec"]["ports"][0]["nodePort"], port);
    }
}
