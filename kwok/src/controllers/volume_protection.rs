//! The storage protection controllers (`pkg/controller/volume/pvcprotection` and
//! `pvprotection`): a claim being deleted keeps its `kubernetes.io/pvc-protection` finalizer while
//! a scheduled pod names it, and a volume being deleted keeps `kubernetes.io/pv-protection` while
//! it is Bound. Both controllers also put their finalizer back on an object that lost it.

use serde_json::{json, Value};

use super::{Controller, Pass};
use crate::admission::storage::{PVC_PROTECTION, PV_PROTECTION};
use crate::api::{Api, WriteOptions};
use crate::meta;
use crate::registry::{PERSISTENTVOLUMECLAIMS, PERSISTENTVOLUMES, PODS};
use crate::resource::ResourceDef;
use crate::store::Event;
use crate::volumes;

#[derive(Default)]
pub struct VolumeProtection;

/// `IsDeletionCandidate`.
fn deletion_candidate(obj: &Value, finalizer: &str) -> bool {
    meta::is_deleting(obj) && meta::finalizers(obj).iter().any(|f| f == finalizer)
}

/// `NeedToAddFinalizer`.
fn needs_finalizer(obj: &Value, finalizer: &str) -> bool {
    !meta::is_deleting(obj) && !meta::finalizers(obj).iter().any(|f| f == finalizer)
}

/// `podIsShutDown`: deleted with no grace left.
fn pod_is_shut_down(pod: &Value) -> bool {
    meta::is_deleting(pod) && pod["metadata"]["deletionGracePeriodSeconds"] == 0
}

/// `podUsesPVC`: only a scheduled pod counts, as the kubelet refuses to start a pod whose claim
/// is being deleted; an ephemeral claim stops counting once its pod is shut down.
fn pod_uses(pod: &Value, claim: &str) -> bool {
    if pod["spec"]["nodeName"].as_str().unwrap_or("").is_empty() {
        return false;
    }
    volumes::pod_claims(pod)
        .iter()
        .any(|(c, ephemeral)| c == claim && (!ephemeral || !pod_is_shut_down(pod)))
}

fn set_finalizer(obj: &Value, finalizer: &str, present: bool) -> Value {
    let mut v = obj.clone();
    let mut list = meta::finalizers(obj);
    list.retain(|f| f != finalizer);
    if present {
        list.push(finalizer.to_string());
    }
    if list.is_empty() {
        meta::meta_mut(&mut v).remove("finalizers");
    } else {
        v["metadata"]["finalizers"] = json!(list);
    }
    v
}

fn write(api: &Api, pass: &mut Pass, res: &'static ResourceDef, v: Value) {
    let (ns, name) = (meta::namespace(&v).to_string(), meta::name(&v).to_string());
    let r = api.update(res, &ns, &name, v, None, &WriteOptions::default());
    pass.check("updating a storage protection finalizer", r);
}

impl Controller for VolumeProtection {
    fn name(&self) -> &'static str {
        "volume-protection"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &PERSISTENTVOLUMECLAIMS)
            || std::ptr::eq(ev.res, &PERSISTENTVOLUMES)
            || std::ptr::eq(ev.res, &PODS)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let store = api.store();
        for claim in store.list(&PERSISTENTVOLUMECLAIMS, None).0 {
            let c = &claim.value;
            if deletion_candidate(c, PVC_PROTECTION) {
                let (pods, _) = store.list(&PODS, Some(claim.namespace()));
                if !pods.iter().any(|p| pod_uses(&p.value, claim.name())) {
                    write(
                        api,
                        &mut pass,
                        &PERSISTENTVOLUMECLAIMS,
                        set_finalizer(c, PVC_PROTECTION, false),
                    );
                }
            } else if needs_finalizer(c, PVC_PROTECTION) {
                write(
                    api,
                    &mut pass,
                    &PERSISTENTVOLUMECLAIMS,
                    set_finalizer(c, PVC_PROTECTION, true),
                );
            }
        }
        for volume in store.list(&PERSISTENTVOLUMES, None).0 {
            let v = &volume.value;
            if deletion_candidate(v, PV_PROTECTION) {
                if v["status"]["phase"] != "Bound" {
                    write(
                        api,
                        &mut pass,
                        &PERSISTENTVOLUMES,
                        set_finalizer(v, PV_PROTECTION, false),
                    );
                }
            } else if needs_finalizer(v, PV_PROTECTION) {
                write(
                    api,
                    &mut pass,
                    &PERSISTENTVOLUMES,
                    set_finalizer(v, PV_PROTECTION, true),
                );
            }
        }
        pass
    }
}
