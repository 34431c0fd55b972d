//! The scheduling loop's side of VolumeBinding: reading a pod's claims into
//! [`PodVolumes`] (`podHasPVCs`, `GetPodVolumeClaims`) and, once a node is chosen, reserving the
//! volumes and asking for the provisioning it planned (`BindPodVolumes`). The pod itself binds
//! only when every claim is bound, as the PreBind step waits for the volume controller.

use k8s_openapi::api::core::v1::{NodeSelector, TopologySelectorTerm};
use serde_json::{json, Value};

use crate::api::{Api, WriteOptions};
use crate::controllers::Pass;
use crate::meta;
use crate::registry::{
    PERSISTENTVOLUMECLAIMS as CLAIMS, PERSISTENTVOLUMES as VOLUMES, STORAGECLASSES,
};
use crate::scheduler::{Candidate, DelayedClaim, PodVolumes, Provision, VolumePlan};
use crate::store::Store;
use crate::volumes::{
    self, ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE, NO_PROVISIONER,
};

fn typed<T: serde::de::DeserializeOwned>(v: &Value) -> Option<T> {
    if v.is_null() {
        return None;
    }
    serde_json::from_value(v.clone()).ok()
}

/// What VolumeBinding sees of `pod`'s claims.
pub(super) fn pod_volumes(store: &Store, pod: &Value) -> PodVolumes {
    let mut out = PodVolumes::default();
    let named = volumes::pod_claims(pod);
    if named.is_empty() {
        return out;
    }
    let ns = meta::namespace(pod);
    let mut claims = Vec::new();
    for (name, ephemeral) in &named {
        let Some(claim) = store.get(&CLAIMS, ns, name) else {
            out.reject = Some(if *ephemeral {
                format!("waiting for ephemeral volume controller to create the persistentvolumeclaim {name:?}")
            } else {
                format!("persistentvolumeclaim {name:?} not found")
            });
            return out;
        };
        let c = claim.value.clone();
        if c["status"]["phase"] == "Lost" {
            let volume = c["spec"]["volumeName"].as_str().unwrap_or("");
            out.reject = Some(format!(
                "persistentvolumeclaim {name:?} bound to non-existent persistentvolume {volume:?}"
            ));
            return out;
        }
        if meta::is_deleting(&c) {
            out.reject = Some(format!("persistentvolumeclaim {name:?} is being deleted"));
            return out;
        }
        // ephemeral.VolumeIsForPod.
        let owned = meta::controller_ref(&c).is_some_and(|r| r["uid"] == meta::uid(pod));
        if *ephemeral && !owned {
            out.reject = Some(format!(
                "PVC {ns}/{name} was not created for pod {ns}/{} (pod is not owner)",
                meta::name(pod)
            ));
            return out;
        }
        claims.push(c);
    }
    let all_volumes: Vec<Value> = store
        .list(&VOLUMES, None)
        .0
        .iter()
        .map(|v| v.value.clone())
        .collect();
    let mut immediate = 0;
    for claim in &claims {
        let volume_name = claim["spec"]["volumeName"].as_str().unwrap_or("");
        if !volume_name.is_empty() && meta::annotation(claim, ANN_BIND_COMPLETED).is_some() {
            let volume = all_volumes.iter().find(|v| meta::name(v) == volume_name);
            let affinity: Option<NodeSelector> =
                volume.and_then(|v| typed(&v["spec"]["nodeAffinity"]["required"]));
            out.bound.push(affinity);
            continue;
        }
        let class_name = volumes::claim_class(claim);
        let class = store
            .get(&STORAGECLASSES, "", class_name)
            .map(|c| c.value.clone());
        if !(volumes::is_delay_binding(claim, class.as_ref()) && volume_name.is_empty()) {
            immediate += 1;
            continue;
        }
        let candidates = all_volumes
            .iter()
            .filter(|v| volumes::volume_class(v) == class_name)
            .filter(|v| serves(claim, v))
            .map(|v| Candidate {
                name: meta::name(v).to_string(),
                size: volumes::capacity(v),
                pre_bound: volumes::is_bound_to_claim(v, claim),
                affinity: typed(&v["spec"]["nodeAffinity"]["required"]),
            })
            .collect();
        let provisioner = class
            .as_ref()
            .and_then(|c| c["provisioner"].as_str())
            .unwrap_or("");
        let provision = if provisioner.is_empty() || provisioner == NO_PROVISIONER {
            Provision::Never
        } else {
            let terms: Vec<TopologySelectorTerm> = class
                .as_ref()
                .and_then(|c| typed(&c["allowedTopologies"]))
                .unwrap_or_default();
            Provision::On(terms)
        };
        out.delayed.push(DelayedClaim {
            name: meta::name(claim).to_string(),
            candidates,
            provision,
        });
    }
    if immediate > 0 {
        out.reject = Some("pod has unbound immediate PersistentVolumeClaims".into());
        return out;
    }
    // byPVCSize: the smallest request chooses first.
    let size = |name: &str| {
        claims
            .iter()
            .find(|c| meta::name(c) == name)
            .map(volumes::requested)
    };
    out.delayed
        .sort_by(|a, b| match (size(&a.name), size(&b.name)) {
            (Some(x), Some(y)) => x.compare(&y),
            _ => std::cmp::Ordering::Equal,
        });
    out
}

/// The node-independent half of `FindMatchingVolume`: the volume could serve the claim on some
/// node.
fn serves(claim: &Value, volume: &Value) -> bool {
    let pre_bound = volumes::is_bound_to_claim(volume, claim);
    if volume["spec"]["claimRef"].is_object() && !pre_bound {
        return false;
    }
    if volumes::capacity(volume)
        .compare(&volumes::requested(claim))
        .is_lt()
        || volumes::volume_mode_mismatch(claim, volume)
        || meta::is_deleting(volume)
    {
        return false;
    }
    if pre_bound {
        return true;
    }
    let selected = claim["spec"]
        .get("selector")
        .filter(|s| !s.is_null())
        .map(|s| {
            crate::selectors::LabelSelector::from_api(s)
                .is_ok_and(|sel| sel.matches(meta::labels(volume)))
        })
        .unwrap_or(true);
    volume["status"]["phase"] == "Available"
        && selected
        && volumes::access_modes_satisfied(claim, volume)
}

/// `BindPodVolumes`: reserve each planned volume for its claim (the volume controller then binds
/// the claim) and mark the claims to provision with the chosen node.
pub(super) fn bind_pod_volumes(api: &Api, pod: &Value, node: &str, plan: &VolumePlan) -> Pass {
    let mut pass = Pass::default();
    let ns = meta::namespace(pod);
    let opts = WriteOptions::default();
    for (claim_name, volume_name) in &plan.bind {
        let (Some(claim), Some(volume)) = (
            api.store().get(&CLAIMS, ns, claim_name),
            api.store().get(&VOLUMES, "", volume_name),
        ) else {
            continue;
        };
        let (claim, volume) = (&claim.value, &volume.value);
        let mut v = volume.clone();
        let reference = volumes::claim_reference(claim);
        let same = volume["spec"]["claimRef"]["uid"] == reference["uid"]
            && volume["spec"]["claimRef"]["name"] == reference["name"];
        if !same {
            v["spec"]["claimRef"] = reference;
        }
        let by_controller = meta::annotation(volume, ANN_BOUND_BY_CONTROLLER).is_some()
            || volumes::is_bound_to_claim(volume, claim);
        if !by_controller {
            let m = meta::meta_mut(&mut v);
            let anns = m.entry("annotations").or_insert_with(|| json!({}));
            anns[ANN_BOUND_BY_CONTROLLER] = json!("yes");
        }
        if v != *volume {
            let r = api.update(&VOLUMES, "", volume_name, v, None, &opts);
            pass.check("reserving a volume for a pod's claim", r);
        }
    }
    for claim_name in &plan.provision {
        let Some(claim) = api.store().get(&CLAIMS, ns, claim_name) else {
            continue;
        };
        if meta::annotation(&claim.value, ANN_SELECTED_NODE) == Some(node) {
            continue;
        }
        let mut c = claim.value.clone();
        let m = meta::meta_mut(&mut c);
        let anns = m.entry("annotations").or_insert_with(|| json!({}));
        anns[ANN_SELECTED_NODE] = json!(node);
        let r = api.update(&CLAIMS, ns, claim_name, c, None, &opts);
        pass.check("choosing the node of a claim to provision", r);
    }
    pass
}
