//! The EndpointSlice controller (`pkg/controller/endpointslice`, with the reconciler of
//! `staging/src/k8s.io/endpointslice`): for every Service with a selector, a slice owned by the
//! service listing the selected pods with their conditions, or an empty placeholder slice.
//! Services here stay far below the 100 endpoints a slice holds, so a service has one slice.

use serde_json::{json, Map, Value};

use super::endpoints::{
    is_headless, managed_services, selected_pods, trigger_time, HEADLESS_LABEL,
    TRIGGER_TIME_ANNOTATION,
};
use super::ownership::controller_ref;
use super::{Controller, Pass};
use crate::api::{Api, WriteOptions};
use crate::kinds::discovery::endpointslice::{
    CONTROLLER_NAME, MANAGED_BY_LABEL, SERVICE_NAME_LABEL,
};
use crate::meta;
use crate::podutil::{find_port, is_pod_ready, should_pod_be_in_endpoints};
use crate::registry::{ENDPOINTSLICES, NODES, PODS, SERVICES};
use crate::store::{Event, Stored};

/// `topology.kubernetes.io/zone`, copied from the pod's node.
const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

#[derive(Default)]
pub struct EndpointSliceController;

/// `getEndpointPorts`: the service ports a pod resolves.
fn ports(svc: &Value, pod: Option<&Stored>) -> Vec<Value> {
    svc["spec"]["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|svc_port| {
            let number = match pod {
                Some(pod) => find_port(&pod.value, svc_port)?,
                None => return None,
            };
            let mut port = Map::new();
            port.insert(
                "name".into(),
                json!(svc_port["name"].as_str().unwrap_or("")),
            );
            port.insert("protocol".into(), svc_port["protocol"].clone());
            port.insert("port".into(), json!(number));
            if let Some(app) = svc_port.get("appProtocol").filter(|v| !v.is_null()) {
                port.insert("appProtocol".into(), app.clone());
            }
            Some(Value::Object(port))
        })
        .collect()
}

/// `podToEndpoint`.
fn endpoint(svc: &Value, pod: &Stored, api: &Api) -> Value {
    let serving = is_pod_ready(&pod.value);
    let terminating = meta::is_deleting(&pod.value);
    let ready = svc["spec"]["publishNotReadyAddresses"] == true || (serving && !terminating);
    let mut ep = Map::new();
    ep.insert("addresses".into(), json!([pod.value["status"]["podIP"]]));
    ep.insert(
        "conditions".into(),
        json!({"ready": ready, "serving": serving, "terminating": terminating}),
    );
    ep.insert(
        "targetRef".into(),
        json!({"kind": "Pod", "namespace": pod.namespace(), "name": pod.name(),
               "uid": meta::uid(&pod.value)}),
    );
    let node = pod.value["spec"]["nodeName"].as_str().unwrap_or("");
    if !node.is_empty() {
        ep.insert("nodeName".into(), json!(node));
        let zone = api
            .store()
            .get(&NODES, "", node)
            .and_then(|n| meta::labels(&n.value)?.get(ZONE_LABEL).cloned());
        if let Some(zone) = zone {
            ep.insert("zone".into(), zone);
        }
    }
    Value::Object(ep)
}

/// `setEndpointSliceLabels`: the service's labels but the reserved ones, the service name, the
/// manager, and the headless mark.
fn labels(svc: &Stored) -> Value {
    let mut labels: Map<String, Value> = meta::labels(&svc.value)
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|(k, _)| {
            ![SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL].contains(&k.as_str())
        })
        .collect();
    labels.insert(SERVICE_NAME_LABEL.into(), json!(svc.name()));
    labels.insert(MANAGED_BY_LABEL.into(), json!(CONTROLLER_NAME));
    if is_headless(&svc.value) {
        labels.insert(HEADLESS_LABEL.into(), json!(""));
    }
    Value::Object(labels)
}

/// A stored list, `null` (how an empty one reads back) as empty.
fn as_list(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or(&[])
}

fn sync(api: &Api, svc: &Stored, pods: &[Stored], slices: &[Stored], pass: &mut Pass) {
    let picked: Vec<&Stored> = selected_pods(svc, pods)
        .into_iter()
        .filter(|p| should_pod_be_in_endpoints(&p.value, true))
        .collect();
    let endpoints: Vec<Value> = picked
        .iter()
        .map(|p| endpoint(&svc.value, p, api))
        .collect();
    // A headless service without ports has slices with no ports; otherwise the ports the pods
    // resolve (every pod of one template resolves them alike).
    let ports = ports(&svc.value, picked.first().copied());
    let address_type = svc.value["spec"]["ipFamilies"][0]
        .as_str()
        .unwrap_or("IPv4");
    let labels = labels(svc);
    let mine: Vec<&Stored> = slices
        .iter()
        .filter(|s| s.namespace() == svc.namespace())
        .filter(|s| super::ownership::controller_uid(&s.value) == Some(meta::uid(&svc.value)))
        .collect();
    let current = mine.first();
    for extra in mine.iter().skip(1) {
        let deleted = api.delete(
            &ENDPOINTSLICES,
            extra.namespace(),
            extra.name(),
            &Default::default(),
        );
        pass.check("deleting a surplus endpoint slice", deleted);
    }
    if let Some(current) = current {
        let same = current.value["addressType"] == address_type
            && as_list(&current.value["endpoints"]) == endpoints.as_slice()
            && as_list(&current.value["ports"]) == ports.as_slice()
            && current.value["metadata"]["labels"] == labels;
        if same {
            return;
        }
    }
    let previous =
        current.and_then(|c| c.value["metadata"]["annotations"][TRIGGER_TIME_ANNOTATION].as_str());
    let trigger = trigger_time(&svc.value, &picked, previous);
    let mut obj = match current {
        Some(c) => c.value.clone(),
        None => json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"generateName": format!("{}-", svc.name()), "namespace": svc.namespace(),
                         "ownerReferences": [controller_ref(&svc.value, &SERVICES)]}}),
    };
    obj["metadata"]["labels"] = labels;
    obj["metadata"]["annotations"][TRIGGER_TIME_ANNOTATION] = json!(trigger);
    obj["addressType"] = json!(address_type);
    obj["endpoints"] = Value::Array(endpoints);
    obj["ports"] = Value::Array(ports);
    let result = match current {
        Some(c) => api.update(
            &ENDPOINTSLICES,
            c.namespace(),
            c.name(),
            obj,
            None,
            &WriteOptions::default(),
        ),
        None => api.create(
            &ENDPOINTSLICES,
            svc.namespace(),
            obj,
            &WriteOptions::default(),
        ),
    };
    match result {
        Err(e) if e.has_cause("NamespaceTerminating") => {}
        other => {
            pass.check("writing the endpoint slice of a service", other);
        }
    }
}

impl Controller for EndpointSliceController {
    fn name(&self) -> &'static str {
        "endpointslice"
    }

    /// Services, pods, nodes (zones) and the slices themselves.
    fn interested(&self, ev: &Event) -> bool {
        [&SERVICES, &PODS, &ENDPOINTSLICES, &NODES]
            .iter()
            .any(|r| std::ptr::eq(ev.res, *r))
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let pods = api.store().list(&PODS, None).0;
        let slices = api.store().list(&ENDPOINTSLICES, None).0;
        for svc in managed_services(api) {
            sync(api, &svc, &pods, &slices, &mut pass);
        }
        pass
    }
}

#[cfg(test)]
mod tests {

    use serde_json::json;

    use super::*;
    use crate::controllers::endpoints::tests::{running_pod, web_service};

    #[test]
    fn a_placeholder_then_one_endpoint_per_pod_with_conditions() {
        let api = Api::bootstrapped();
        web_service(&api);
        let mut controller = EndpointSliceController;
        assert!(!controller.reconcile(&api).failed());
        let slices = api.store().list(&ENDPOINTSLICES, Some("default")).0;
        assert_eq!(slices.len(), 1);
        let slice = &slices[0].value;
        assert!(slices[0].name().starts_with("web-"));
        assert_eq!(slice["endpoints"], json!(null));
        assert_eq!(slice["ports"], json!(null));
        assert_eq!(
            slice["metadata"]["labels"],
            json!({MANAGED_BY_LABEL: CONTROLLER_NAME, SERVICE_NAME_LABEL: "web"})
        );
        assert_eq!(slice["metadata"]["ownerReferences"][0]["kind"], "Service");

        running_pod(&api, "a", "10.0.0.9", true);
        running_pod(&api, "b", "10.0.0.10", false);
        assert!(!controller.reconcile(&api).failed());
        let slices = api.store().list(&ENDPOINTSLICES, Some("default")).0;
        assert_eq!(slices.len(), 1, "the placeholder is reused");
        let slice = &slices[0].value;
        assert_eq!(slice["metadata"]["generation"], 2);
        assert_eq!(
            slice["ports"],
            json!([{"name": "", "protocol": "TCP", "port": 8080}])
        );
        let conditions: Vec<_> = slice["endpoints"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| (e["addresses"][0].clone(), e["conditions"].clone()))
            .collect();
        assert_eq!(
            conditions,
            [
                (
                    json!("10.0.0.9"),
                    json!({"ready": true, "serving": true, "terminating": false})
                ),
                (
                    json!("10.0.0.10"),
                    json!({"ready": false, "serving": false, "terminating": false})
                ),
            ]
        );
    }
}
