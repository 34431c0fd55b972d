//! The ephemeral volume controller (`pkg/controller/volume/ephemeral/controller.go`): a pod's
//! generic ephemeral volume gets its claim `<pod>-<volume>` from the volume's template, owned by
//! the pod, so the claim goes when the pod does. A claim of that name the pod does not own is
//! reported and left alone.

use serde_json::{json, Value};

use super::events::Recorder;
use super::{Controller, Pass};
use crate::api::{Api, WriteOptions};
use crate::meta;
use crate::registry::{PERSISTENTVOLUMECLAIMS as CLAIMS, PODS};
use crate::store::{Event, EventKind};

const COMPONENT: &str = "ephemeral_volume";

pub struct EphemeralVolumeController {
    recorder: Recorder,
}

impl Default for EphemeralVolumeController {
    fn default() -> Self {
        Self {
            recorder: Recorder::new(COMPONENT),
        }
    }
}

fn has_ephemeral(pod: &Value) -> bool {
    pod["spec"]["volumes"]
        .as_array()
        .is_some_and(|vs| vs.iter().any(|v| v["ephemeral"].is_object()))
}

/// `VolumeIsForPod`: the pod is the claim's controller.
fn owned_by(claim: &Value, pod: &Value) -> bool {
    meta::controller_ref(claim).is_some_and(|r| r["uid"] == meta::uid(pod))
}

/// `handleVolume`: the claim exists and is the pod's, or is created.
fn handle_volume(api: &Api, pod: &Value, vol: &Value) -> Result<(), String> {
    if !vol["ephemeral"].is_object() {
        return Ok(());
    }
    let ns = meta::namespace(pod);
    let name = format!("{}-{}", meta::name(pod), vol["name"].as_str().unwrap_or(""));
    if let Some(existing) = api.store().get(&CLAIMS, ns, &name) {
        if owned_by(&existing.value, pod) {
            return Ok(());
        }
        return Err(format!(
            "PVC {ns}/{name} was not created for pod {ns}/{} (pod is not owner)",
            meta::name(pod)
        ));
    }
    let template = &vol["ephemeral"]["volumeClaimTemplate"];
    let mut metadata = json!({
        "name": name,
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": meta::name(pod),
            "uid": meta::uid(pod), "controller": true, "blockOwnerDeletion": true}],
    });
    for key in ["annotations", "labels"] {
        if let Some(v) = template["metadata"].get(key).filter(|v| v.is_object()) {
            metadata[key] = v.clone();
        }
    }
    let claim = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": metadata, "spec": template["spec"]});
    match api.create(&CLAIMS, ns, claim, &WriteOptions::default()) {
        Ok(_) => Ok(()),
        Err(e) => Err(format!("create PVC {name}: {}", e.message)),
    }
}

impl Controller for EphemeralVolumeController {
    fn name(&self) -> &'static str {
        "ephemeral-volume"
    }

    /// New pods (their spec is immutable), and claims that go away (`onPVCDelete`).
    fn interested(&self, ev: &Event) -> bool {
        (std::ptr::eq(ev.res, &PODS)
            && ev.kind == EventKind::Added
            && has_ephemeral(&ev.object.value))
            || (std::ptr::eq(ev.res, &CLAIMS) && ev.kind == EventKind::Deleted)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        for pod in api.store().list(&PODS, None).0 {
            let pod = &pod.value;
            if meta::is_deleting(pod) || !has_ephemeral(pod) {
                continue;
            }
            for vol in pod["spec"]["volumes"].as_array().into_iter().flatten() {
                if let Err(err) = handle_volume(api, pod, vol) {
                    let vol_name = vol["name"].as_str().unwrap_or("");
                    let msg = format!("ephemeral volume {vol_name}: {err}");
                    self.recorder
                        .event(api, &PODS, pod, "Warning", "FailedBinding", &msg);
                    pass.fail("creating an ephemeral volume's claim", err);
                    break;
                }
            }
        }
        pass
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn a_pod_gets_its_ephemeral_claim_owned_by_it() {
        let api = Api::bootstrapped();
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "i"}],
                "volumes": [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
                    "metadata": {"labels": {"type": "scratch"}},
                    "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                        "resources": {"requests": {"storage": "1Gi"}}}}}}]}});
        let pod = api
            .create(&PODS, "default", pod, &WriteOptions::default())
            .expect("pod");
        let mut ctrl = EphemeralVolumeController::default();
        assert!(!ctrl.reconcile(&api).failed());
        let claim = api
            .store()
            .get(&CLAIMS, "default", "p-scratch")
            .expect("claim created");
        assert_eq!(
            claim.value["metadata"]["labels"],
            json!({"type": "scratch"})
        );
        assert_eq!(claim.value["spec"]["storageClassName"], "fast");
        let owner = &claim.value["metadata"]["ownerReferences"][0];
        assert_eq!(owner["uid"], meta::uid(&pod.value));
        assert_eq!(owner["controller"], true);
        // A second pass changes nothing.
        assert!(!ctrl.reconcile(&api).failed());
    }
}
