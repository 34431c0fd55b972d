//! The Endpoints controller (`pkg/controller/endpoint/endpoints_controller.go`): for every
//! Service with a selector, an Endpoints object of the same name listing the selected pods'
//! addresses per port, ready ones apart from the others.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use super::{Controller, Pass};
use crate::api::{Api, WriteOptions};
use crate::meta;
use crate::podutil::{condition, find_port, is_pod_ready, should_pod_be_in_endpoints};
use crate::registry::{ENDPOINTS, PODS, SERVICES};
use crate::store::{Event, EventKind, Stored};

/// `v1.EndpointsLastChangeTriggerTime`.
pub const TRIGGER_TIME_ANNOTATION: &str = "endpoints.kubernetes.io/last-change-trigger-time";
/// `v1.IsHeadlessService`.
pub const HEADLESS_LABEL: &str = "service.kubernetes.io/headless";

#[derive(Default)]
pub struct EndpointsController {
    /// Services deleted since the last pass: their Endpoints go too.
    deleted: BTreeSet<(String, String)>,
}

/// The services whose endpoints the controllers keep: a selector, and not ExternalName.
pub(crate) fn managed_services(api: &Api) -> Vec<Stored> {
    api.store()
        .list(&SERVICES, None)
        .0
        .into_iter()
        .filter(|svc| {
            svc.value["spec"]["type"] != "ExternalName"
                && svc.value["spec"]["selector"]
                    .as_object()
                    .is_some_and(|s| !s.is_empty())
                && !meta::is_deleting(&svc.value)
        })
        .collect()
}

/// The pods of the service's namespace its selector picks (`SelectorFromValidatedSet`).
pub(crate) fn selected_pods<'a>(svc: &Stored, pods: &'a [Stored]) -> Vec<&'a Stored> {
    let selector = svc.value["spec"]["selector"].as_object();
    let mut picked: Vec<&Stored> = pods
        .iter()
        .filter(|p| p.namespace() == svc.namespace())
        .filter(|p| {
            let labels = meta::labels(&p.value);
            selector.is_some_and(|s| {
                s.iter()
                    .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v))
            })
        })
        .collect();
    picked.sort_by(|a, b| a.name().cmp(b.name()));
    picked
}

/// `IsServiceIPSet` is false: no cluster IP, or `None`.
pub(crate) fn is_headless(svc: &Value) -> bool {
    matches!(svc["spec"]["clusterIP"].as_str(), None | Some("" | "None"))
}

/// `ComputeEndpointLastChangeTriggerTime`, level-triggered: the service's creation the first
/// time, later the earliest pod readiness change after the previous trigger.
pub(crate) fn trigger_time(svc: &Value, pods: &[&Stored], previous: Option<&str>) -> String {
    let Some(previous) = previous else {
        return meta::str_field(svc, "creationTimestamp").to_string();
    };
    pods.iter()
        .filter_map(|p| condition(&p.value, "Ready")?["lastTransitionTime"].as_str())
        .filter(|t| *t > previous)
        .min()
        .map(str::to_string)
        .unwrap_or_else(meta::now)
}

/// `podToEndpointAddressForService`.
fn address(pod: &Stored) -> Value {
    json!({
        "ip": pod.value["status"]["podIP"],
        "nodeName": pod.value["spec"]["nodeName"],
        "targetRef": {"kind": "Pod", "namespace": pod.namespace(), "name": pod.name(),
                      "uid": meta::uid(&pod.value)},
    })
}

/// The subsets `syncService` builds, packed as `RepackSubsets` does: one subset per set of
/// addresses sharing the same ports; an address not ready on a port is not ready there.
fn subsets(svc: &Value, pods: &[&Stored]) -> Vec<Value> {
    let publish = svc["spec"]["publishNotReadyAddresses"] == true;
    let ports = svc["spec"]["ports"].as_array().cloned().unwrap_or_default();
    let pods: Vec<&&Stored> = pods
        .iter()
        .filter(|p| should_pod_be_in_endpoints(&p.value, publish))
        .collect();
    if ports.is_empty() {
        // A headless service without ports: one subset per pod, no ports.
        return pods
            .iter()
            .map(|p| {
                let key = if publish || is_pod_ready(&p.value) {
                    "addresses"
                } else {
                    "notReadyAddresses"
                };
                json!({key: [address(p)]})
            })
            .collect();
    }
    // port → address → ready
    // Addresses sort by IP bytes, then by pod uid (`SortSubsets`).
    type Key = (Option<std::net::IpAddr>, String);
    type Addresses = BTreeMap<Key, (Value, bool)>;
    let mut by_port: Vec<(Value, Addresses)> = Vec::new();
    for svc_port in &ports {
        let mut addresses = BTreeMap::new();
        for pod in &pods {
            if find_port(&pod.value, svc_port).is_none() {
                continue;
            }
            let ready = publish || is_pod_ready(&pod.value);
            let key = (
                pod.value["status"]["podIP"]
                    .as_str()
                    .and_then(|ip| ip.parse().ok()),
                meta::uid(&pod.value).to_string(),
            );
            let entry = addresses.entry(key).or_insert((address(pod), ready));
            entry.1 &= ready;
        }
        let mut port = Map::new();
        if let Some(name) = svc_port["name"].as_str().filter(|n| !n.is_empty()) {
            port.insert("name".into(), json!(name));
        }
        // Each pod may resolve a named port differently; upstream keys the subset by the
        // resolved number, which for one pod template is the same for every pod.
        let number = pods
            .iter()
            .find_map(|p| find_port(&p.value, svc_port))
            .unwrap_or(0);
        port.insert("port".into(), json!(number));
        port.insert("protocol".into(), svc_port["protocol"].clone());
        if let Some(app) = svc_port.get("appProtocol").filter(|v| !v.is_null()) {
            port.insert("appProtocol".into(), app.clone());
        }
        if !addresses.is_empty() {
            by_port.push((Value::Object(port), addresses));
        }
    }
    // Group ports by the exact set of (address, readiness) they carry.
    type Group = (Vec<(Key, bool)>, Vec<Value>, Vec<(Value, bool)>);
    let mut groups: Vec<Group> = Vec::new();
    for (port, addresses) in by_port {
        let key: Vec<(Key, bool)> = addresses
            .iter()
            .map(|(k, (_, r))| (k.clone(), *r))
            .collect();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(group) => group.1.push(port),
            None => groups.push((key, vec![port], addresses.into_values().collect())),
        }
    }
    groups
        .into_iter()
        .map(|(_, ports, addresses)| {
            let mut subset = Map::new();
            let ready: Vec<Value> = addresses
                .iter()
                .filter(|a| a.1)
                .map(|a| a.0.clone())
                .collect();
            let not_ready: Vec<Value> = addresses
                .iter()
                .filter(|a| !a.1)
                .map(|a| a.0.clone())
                .collect();
            if !ready.is_empty() {
                subset.insert("addresses".into(), Value::Array(ready));
            }
            if !not_ready.is_empty() {
                subset.insert("notReadyAddresses".into(), Value::Array(not_ready));
            }
            subset.insert("ports".into(), Value::Array(ports));
            Value::Object(subset)
        })
        .collect()
}

/// The labels of a controller-written Endpoints: the service's, with the headless label.
fn labels(svc: &Value) -> Value {
    let mut labels = meta::labels(svc).cloned().unwrap_or_default();
    if is_headless(svc) {
        labels.insert(HEADLESS_LABEL.into(), json!(""));
    } else {
        labels.remove(HEADLESS_LABEL);
    }
    Value::Object(labels)
}

impl EndpointsController {
    fn sync(&self, api: &Api, svc: &Stored, pods: &[Stored], pass: &mut Pass) {
        let picked = selected_pods(svc, pods);
        let subsets = subsets(&svc.value, &picked);
        let labels = labels(&svc.value);
        let existing = api.store().get(&ENDPOINTS, svc.namespace(), svc.name());
        if let Some(current) = &existing {
            let same_subsets =
                current.value.get("subsets").cloned().unwrap_or(json!([])) == json!(subsets);
            let same_labels = current.value["metadata"]
                .get("labels")
                .cloned()
                .unwrap_or(json!({}))
                == labels;
            if same_subsets && same_labels {
                return;
            }
        }
        let previous = existing
            .as_ref()
            .and_then(|e| e.value["metadata"]["annotations"][TRIGGER_TIME_ANNOTATION].as_str());
        let trigger = trigger_time(&svc.value, &picked, previous);
        let mut obj = existing
            .as_ref()
            .map(|e| e.value.clone())
            .unwrap_or_else(|| {
                json!({"apiVersion": "v1", "kind": "Endpoints",
                   "metadata": {"name": svc.name(), "namespace": svc.namespace()}})
            });
        obj["metadata"]["labels"] = labels;
        obj["metadata"]["annotations"][TRIGGER_TIME_ANNOTATION] = json!(trigger);
        if subsets.is_empty() {
            if let Some(m) = obj.as_object_mut() {
                m.remove("subsets");
            }
        } else {
            obj["subsets"] = Value::Array(subsets);
        }
        let result = match existing {
            Some(_) => api.update(
                &ENDPOINTS,
                svc.namespace(),
                svc.name(),
                obj,
                None,
                &WriteOptions::default(),
            ),
            None => api.create(&ENDPOINTS, svc.namespace(), obj, &WriteOptions::default()),
        };
        match result {
            // The namespace is going away: nothing more to write there.
            Err(e) if e.has_cause("NamespaceTerminating") => {}
            other => {
                pass.check("writing the endpoints of a service", other);
            }
        }
    }
}

impl Controller for EndpointsController {
    fn name(&self) -> &'static str {
        "endpoints"
    }

    /// Services and pods (`onServiceUpdate`, `addPod`, `updatePod`, `deletePod`); its own
    /// Endpoints when changed by someone else.
    fn interested(&self, ev: &Event) -> bool {
        [&SERVICES, &PODS, &ENDPOINTS]
            .iter()
            .any(|r| std::ptr::eq(ev.res, *r))
    }

    fn observe(&mut self, ev: &Event) {
        if std::ptr::eq(ev.res, &SERVICES) && ev.kind == EventKind::Deleted {
            self.deleted.insert((
                ev.object.namespace().to_string(),
                ev.object.name().to_string(),
            ));
        }
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        for (ns, name) in std::mem::take(&mut self.deleted) {
            if api.store().get(&SERVICES, &ns, &name).is_none() {
                let deleted = api.delete(&ENDPOINTS, &ns, &name, &Default::default());
                pass.check("deleting the endpoints of a deleted service", deleted);
            }
        }
        let pods = api.store().list(&PODS, None).0;
        for svc in managed_services(api) {
            self.sync(api, &svc, &pods, &mut pass);
        }
        pass
    }
}

#[cfg(test)]
pub(crate) mod tests {

    use serde_json::{json, Value};

    use super::*;
    use crate::api::DeleteOptions;

    /// A bound pod of app `web` with an IP, ready or not.
    pub(crate) fn running_pod(api: &Api, name: &str, ip: &str, ready: bool) {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "web"}},
            "spec": {"nodeName": "node-0",
                     "containers": [{"name": "c", "image": "nginx", "ports": [{"name": "http", "containerPort": 8080}]}]}});
        let mut pod = api
            .create(&PODS, "default", pod, &WriteOptions::default())
            .expect("pod")
            .value
            .clone();
        pod["status"] = json!({"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
            "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}]});
        api.update_status(&PODS, pod).expect("pod status");
    }

    pub(crate) fn web_service(api: &Api) {
        let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "http"}]}});
        api.create(&SERVICES, "default", svc, &WriteOptions::default())
            .expect("service");
    }

    fn endpoints(api: &Api) -> Option<Value> {
        api.store()
            .get(&ENDPOINTS, "default", "web")
            .map(|e| e.value.clone())
    }

    #[test]
    fn ready_and_not_ready_pods_are_listed_apart_by_ip_order() {
        let api = Api::bootstrapped();
        web_service(&api);
        let mut controller = EndpointsController::default();
        assert!(!controller.reconcile(&api).failed());
        // No pod yet: the Endpoints exists, without subsets.
        let ep = endpoints(&api).expect("created");
        assert!(ep.get("subsets").is_none());
        assert_eq!(ep["metadata"]["labels"], json!({}));
        running_pod(&api, "b", "10.0.0.10", true);
        running_pod(&api, "a", "10.0.0.9", true);
        running_pod(&api, "c", "10.0.0.11", false);
        assert!(!controller.reconcile(&api).failed());
        let ep = endpoints(&api).expect("endpoints");
        let ips = |key: &str| -> Vec<String> {
            ep["subsets"][0][key]
                .as_array()
                .into_iter()
                .flatten()
                .map(|a| a["ip"].as_str().unwrap_or("").to_string())
                .collect()
        };
        assert_eq!(ips("addresses"), ["10.0.0.9", "10.0.0.10"]);
        assert_eq!(ips("notReadyAddresses"), ["10.0.0.11"]);
        assert_eq!(
            ep["subsets"][0]["ports"],
            json!([{"port": 8080, "protocol": "TCP"}])
        );
        assert_eq!(ep["subsets"][0]["addresses"][0]["targetRef"]["kind"], "Pod");

        // The service goes, its Endpoints with it.
        let gone = api
            .store()
            .get(&SERVICES, "default", "web")
            .expect("service");
        api.delete(&SERVICES, "default", "web", &DeleteOptions::default())
            .expect("deleted");
        controller.observe(&crate::store::Event {
            kind: EventKind::Deleted,
            res: &SERVICES,
            object: gone,
            prev: None,
            rv: 0,
        });
        assert!(!controller.reconcile(&api).failed());
        assert!(endpoints(&api).is_none());
    }
}
