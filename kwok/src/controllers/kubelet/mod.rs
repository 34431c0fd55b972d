//! The kwok fake kubelet (`kubernetes-sigs/kwok` default stages): keeps annotated nodes Ready,
//! runs the pods bound to them (Running/Ready, IPs, container statuses) and finishes their
//! deletion. Nodes without the annotation are left alone, so their pods stay Pending.
//!
//! Fault injection for graders and course authors, by annotation on a node (all its pods) or a pod:
//! - `proctor.dev/pod-fault: ImagePullBackOff | ErrImagePull | CrashLoopBackOff` — the pod never
//!   becomes Ready (Pending with a waiting container, or Running with a crash-looping one);
//! - `proctor.dev/pod-fault-images: <glob>[,<glob>...]` — only containers whose image matches;
//! - `proctor.dev/node-ready: "False"` on a node — the node reports NotReady;
//! - `proctor.dev/pod-exit-code: "<n>"` — a Job pod that never restarts fails with exit code n.

mod node;
mod pod_stages;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::fake_node::KWOK_NODE_ANNOTATION;
use super::{Controller, Pass};
use crate::api::{Api, DeleteOptions, WriteOptions, KWOK_CONTROLLER};
use crate::meta;
use crate::podutil::condition;
use crate::registry;
use crate::store::{Event, Stored};
use node::initialized_node;
use pod_stages::{completed_pod, fault_for, owned_by_job};

pub const FAULT: &str = "proctor.dev/pod-fault";
pub const FAULT_IMAGES: &str = "proctor.dev/pod-fault-images";
pub const NODE_READY: &str = "proctor.dev/node-ready";
/// A job pod (restart policy Never) with this annotation fails with that exit code.
pub const EXIT_CODE: &str = "proctor.dev/pod-exit-code";

/// The address kwok reports for its nodes by default (`--node-ip`).
const NODE_IP: &str = "196.168.0.1";
const KUBELET_VERSION: &str = "kwok-v0.7.0";
/// Node leases are renewed this often (the kubelet's default lease is 40 s).
const LEASE_RENEW: Duration = Duration::from_secs(10);

#[derive(Default)]
pub struct FakeKubelet {
    /// Pod IPs in use, by pod uid (kwok's ipPool, reusing freed addresses).
    ips: HashMap<String, u32>,
    leases: HashMap<String, Instant>,
    /// Managed nodes as of the last full pass (node changes always trigger one).
    managed: HashMap<String, Stored>,
    /// Pods changed since the last pass.
    dirty: HashSet<(String, String)>,
    full: bool,
    started: bool,
    lease_due: Option<Instant>,
}

pub fn is_managed(node: &Value) -> bool {
    meta::annotation(node, KWOK_NODE_ANNOTATION) == Some("fake")
}

fn ipv4(n: u32) -> String {
    format!(
        "{}.{}.{}.{}",
        n >> 24,
        (n >> 16) & 255,
        (n >> 8) & 255,
        n & 255
    )
}

impl FakeKubelet {
    /// The lowest free address of 10.0.0.0/16 from .1 (kwok's pool is 10.0.0.0/24 by default; the
    /// wider range keeps large benchmarks from running dry).
    fn allocate_ip(&mut self, uid: &str) -> String {
        if let Some(ip) = self.ips.get(uid) {
            return ipv4(*ip);
        }
        let used: BTreeSet<u32> = self.ips.values().copied().collect();
        let base = 10u32 << 24;
        let mut candidate = base + 1;
        for u in &used {
            if *u == candidate {
                candidate += 1;
            } else if *u > candidate {
                break;
            }
        }
        self.ips.insert(uid.to_string(), candidate);
        ipv4(candidate)
    }

    /// kwok's `pod-ready` stage, or the injected fault.
    fn running_pod(&mut self, pod: &Value, node: &Value) -> Value {
        let now = meta::now();
        let mut p = pod.clone();
        let spec = &pod["spec"];
        let mut statuses = Vec::new();
        let mut unready = Vec::new();
        let mut pending = false;
        for c in spec["containers"].as_array().into_iter().flatten() {
            let name = c["name"].as_str().unwrap_or("");
            let image = c["image"].as_str().unwrap_or("");
            match fault_for(pod, node, image) {
                Some(f @ ("ImagePullBackOff" | "ErrImagePull")) => {
                    pending = true;
                    unready.push(name.to_string());
                    let msg = if f == "ErrImagePull" {
                        format!("failed to pull and unpack image {:?}: not found", image)
                    } else {
                        format!("Back-off pulling image {image:?}")
                    };
                    statuses.push(json!({"name": name, "image": image, "imageID": "", "ready": false, "restartCount": 0, "started": false,
                        "state": {"waiting": {"reason": f, "message": msg}}, "lastState": {}}));
                }
                Some(_) => {
                    unready.push(name.to_string());
                    statuses.push(json!({"name": name, "image": image, "imageID": "", "ready": false, "restartCount": 5, "started": false,
                        "state": {"waiting": {"reason": "CrashLoopBackOff", "message": format!("back-off 5m0s restarting failed container={name} pod={}_{}({})", meta::name(pod), meta::namespace(pod), meta::uid(pod))}},
                        "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": now, "finishedAt": now}}}));
                }
                None => statuses.push(json!({"name": name, "image": image, "ready": true, "restartCount": 0, "state": {"running": {"startedAt": now}}})),
            }
        }
        let mut init_statuses = Vec::new();
        for c in spec["initContainers"].as_array().into_iter().flatten() {
            let name = c["name"].as_str().unwrap_or("");
            let image = c["image"].as_str().unwrap_or("");
            if c["restartPolicy"] == "Always" {
                init_statuses.push(json!({"name": name, "image": image, "ready": true, "started": true, "restartCount": 0, "state": {"running": {"startedAt": now}}}));
            } else {
                // kwok's pod-ready stage reports a completed init container ready too.
                init_statuses.push(json!({"name": name, "image": image, "ready": true, "restartCount": 0,
                    "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": now, "finishedAt": now}}}));
            }
        }
        let host_ip = node["status"]["addresses"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["type"] == "InternalIP"))
            .and_then(|x| x["address"].as_str())
            .unwrap_or(NODE_IP)
            .to_string();
        let pod_ip = if spec["hostNetwork"].as_bool() == Some(true) {
            host_ip.clone()
        } else {
            self.allocate_ip(meta::uid(pod))
        };
        let ready = unready.is_empty();
        let mut conds: Vec<Value> = p["status"]["conditions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut set = |t: &str, ok: bool, reason: Option<&str>, msg: Option<String>| {
            let mut c = json!({"type": t, "status": if ok {"True"} else {"False"}, "lastProbeTime": null, "lastTransitionTime": now});
            if let Some(r) = reason {
                c["reason"] = json!(r);
            }
            if let Some(m) = msg {
                c["message"] = json!(m);
            }
            match conds.iter_mut().find(|x| x["type"] == t) {
                Some(x) => *x = c,
                None => conds.push(c),
            }
        };
        let why = format!("containers with unready status: [{}]", unready.join(" "));
        set("Initialized", true, None, None);
        set(
            "Ready",
            ready,
            (!ready).then_some("ContainersNotReady"),
            (!ready).then(|| why.clone()),
        );
        set(
            "ContainersReady",
            ready,
            (!ready).then_some("ContainersNotReady"),
            (!ready).then(|| why.clone()),
        );
        for g in spec["readinessGates"].as_array().into_iter().flatten() {
            if let Some(t) = g["conditionType"].as_str() {
                set(t, true, None, None);
            }
        }
        // Conditions in the order the kubelet reports them.
        let order = [
            "PodReadyToStartContainers",
            "Initialized",
            "Ready",
            "ContainersReady",
            "PodScheduled",
        ];
        conds.sort_by_key(|c| {
            order
                .iter()
                .position(|o| c["type"] == *o)
                .unwrap_or(order.len())
        });
        let mut s = p["status"].as_object().cloned().unwrap_or_default();
        s.insert(
            "phase".into(),
            json!(if pending { "Pending" } else { "Running" }),
        );
        s.insert("conditions".into(), json!(conds));
        s.insert("containerStatuses".into(), json!(statuses));
        if !init_statuses.is_empty() {
            s.insert("initContainerStatuses".into(), json!(init_statuses));
        }
        s.insert("hostIP".into(), json!(host_ip));
        s.insert("hostIPs".into(), json!([{"ip": host_ip}]));
        s.insert("podIP".into(), json!(pod_ip));
        s.insert("podIPs".into(), json!([{"ip": pod_ip}]));
        s.insert("startTime".into(), json!(now));
        p["status"] = Value::Object(s);
        p
    }

    fn renew_lease(&mut self, api: &Api, node: &Stored) -> Option<Duration> {
        let name = node.name().to_string();
        let due = self
            .leases
            .get(&name)
            .is_none_or(|t| t.elapsed() >= LEASE_RENEW);
        if !due {
            return Some(LEASE_RENEW.saturating_sub(self.leases[&name].elapsed()));
        }
        self.leases.insert(name.clone(), Instant::now());
        let now = meta::now_micro();
        let lease = json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": "kube-node-lease",
                "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": meta::uid(&node.value)}]},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": now}
        });
        match api.store().get(&registry::LEASES, "kube-node-lease", &name) {
            None => {
                let created = api.create(
                    &registry::LEASES,
                    "kube-node-lease",
                    lease,
                    &WriteOptions::by(KWOK_CONTROLLER),
                );
                if let Err(e) = created {
                    // Renewed again on the next beat, as kwok's lease loop does.
                    tracing::debug!(error = %e, "creating a node lease");
                }
            }
            Some(old) => {
                let mut v = old.value.clone();
                v["spec"]["renewTime"] = json!(now);
                let renewed = api.update(
                    &registry::LEASES,
                    "kube-node-lease",
                    &name,
                    v,
                    None,
                    &WriteOptions::by(KWOK_CONTROLLER),
                );
                if let Err(e) = renewed {
                    tracing::debug!(error = %e, "renewing a node lease");
                }
            }
        }
        Some(LEASE_RENEW)
    }
}

impl FakeKubelet {
    /// kwok's node stages for every managed node; rebuilds the managed-node index.
    fn sync_nodes(&mut self, api: &Api) {
        let (nodes, _) = api.store().list(&registry::NODES, None);
        self.managed.clear();
        for node in nodes {
            if !is_managed(&node.value) {
                continue;
            }
            let want_ready = meta::annotation(&node.value, NODE_READY)
                .is_none_or(|v| !v.eq_ignore_ascii_case("false"));
            let ready = condition(&node.value, "Ready");
            let is_ready = ready.is_some_and(|c| c["status"] == "True");
            let node = if is_ready != want_ready || ready.is_none() {
                let updated = initialized_node(&node.value);
                match api.update_status_as(KWOK_CONTROLLER, &registry::NODES, updated) {
                    Ok(n) => n,
                    Err(e) => {
                        tracing::debug!(error = %e, "node status");
                        node
                    }
                }
            } else {
                node
            };
            self.managed.insert(node.name().to_string(), node);
        }
    }

    /// Renew the leases that are due; returns when the next one is.
    fn sync_leases(&mut self, api: &Api) -> Option<Duration> {
        let nodes: Vec<Stored> = self.managed.values().cloned().collect();
        let mut next: Option<Duration> = None;
        for node in nodes {
            let due = self.renew_lease(api, &node);
            next = match (next, due) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        self.leases.retain(|n, _| self.managed.contains_key(n));
        next
    }

    /// kwok's pod stages for one pod.
    fn sync_pod(&mut self, api: &Api, pod: &Stored) -> Pass {
        let mut pass = Pass::default();
        let node_name = pod.value["spec"]["nodeName"].as_str().unwrap_or("");
        let Some(node) = self.managed.get(node_name).cloned() else {
            return pass;
        };
        if meta::is_deleting(&pod.value) {
            // kwok's pod-delete stage: drop finalizers, then delete with a zero grace period.
            if !meta::finalizers(&pod.value).is_empty() {
                let mut v = pod.value.clone();
                meta::meta_mut(&mut v).remove("finalizers");
                let updated = api.update(
                    &registry::PODS,
                    pod.namespace(),
                    pod.name(),
                    v,
                    None,
                    &WriteOptions::by(KWOK_CONTROLLER),
                );
                pass.check("removing a deleted pod's finalizers", updated);
            }
            let opts = DeleteOptions {
                grace_period_seconds: Some(0),
                ..Default::default()
            };
            let deleted = api.delete(&registry::PODS, pod.namespace(), pod.name(), &opts);
            pass.check("finishing a pod's deletion", deleted);
            self.ips.remove(meta::uid(&pod.value));
            return pass;
        }
        let status = &pod.value["status"];
        if crate::podutil::is_pod_terminal(&pod.value) {
            return pass;
        }
        if status["podIP"].as_str().is_some_and(|s| !s.is_empty()) {
            if status["phase"] == "Running" && owned_by_job(&pod.value) {
                let completed = completed_pod(&pod.value);
                let written = api.update_status_as(KWOK_CONTROLLER, &registry::PODS, completed);
                pass.check("completing a job's pod", written);
            }
            return pass;
        }
        let updated = self.running_pod(&pod.value, &node.value);
        let written = api.update_status_as(KWOK_CONTROLLER, &registry::PODS, updated);
        pass.check("writing a running pod's status", written);
        pass
    }

    /// [`Self::sync_pod`], remembering a pod whose write failed for the retry.
    fn sync_pod_or_requeue(&mut self, api: &Api, pod: &Stored, pass: &mut Pass) {
        let synced = self.sync_pod(api, pod);
        if synced.failed() {
            self.dirty
                .insert((pod.namespace().to_string(), pod.name().to_string()));
        }
        pass.absorb(synced);
    }
}

impl Controller for FakeKubelet {
    fn name(&self) -> &'static str {
        "kwok-kubelet"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::NODES) || std::ptr::eq(ev.res, &registry::PODS)
    }

    fn observe(&mut self, ev: &Event) {
        if std::ptr::eq(ev.res, &registry::NODES) {
            self.full = true;
        } else if std::ptr::eq(ev.res, &registry::PODS)
            && ev.kind != crate::store::EventKind::Deleted
        {
            self.dirty.insert((
                ev.object.namespace().to_string(),
                ev.object.name().to_string(),
            ));
        } else if std::ptr::eq(ev.res, &registry::PODS) {
            self.ips.remove(meta::uid(&ev.object.value));
        }
    }

    fn resync(&mut self) {
        self.full = true;
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let first = !self.started;
        self.started = true;
        if first || self.full {
            self.full = false;
            self.dirty.clear();
            self.sync_nodes(api);
            // New or changed nodes get their lease now.
            self.lease_due = None;
            let (pods, _) = api.store().list(&registry::PODS, None);
            let live: BTreeSet<String> = pods
                .iter()
                .map(|p| meta::uid(&p.value).to_string())
                .collect();
            self.ips.retain(|uid, _| live.contains(uid));
            for pod in &pods {
                self.sync_pod_or_requeue(api, pod, &mut pass);
            }
        } else {
            let dirty: Vec<(String, String)> = self.dirty.drain().collect();
            for (ns, name) in dirty {
                if let Some(pod) = api.store().get(&registry::PODS, &ns, &name) {
                    self.sync_pod_or_requeue(api, &pod, &mut pass);
                }
            }
        }
        let now = Instant::now();
        if first || self.lease_due.is_none_or(|due| now >= due) {
            let next = self.sync_leases(api).unwrap_or(LEASE_RENEW);
            self.lease_due = Some(now + next);
        }
        pass.wake(self.lease_due.map(|due| due.saturating_duration_since(now)));
        pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_handed_out_lowest_first_and_reused() {
        let mut k = FakeKubelet::default();
        assert_eq!(k.allocate_ip("a"), "10.0.0.1");
        assert_eq!(k.allocate_ip("b"), "10.0.0.2");
        k.ips.remove("a");
        assert_eq!(k.allocate_ip("c"), "10.0.0.1");
    }
}
