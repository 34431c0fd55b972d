//! The persistent volume binder (`pkg/controller/volume/persistentvolume/pv_controller.go`):
//! volumes become Available, claims bind to the best volume (or to the one they name), a volume
//! whose claim is gone is Released and reclaimed, and a claim with a class but no volume asks for
//! one to be provisioned — by an external provisioner, which fake clusters do not run, so it
//! keeps waiting as upstream's does without one.
//!
//! Volumes are synced before claims in a pass (a claim only binds to an Available volume), and
//! everything is synced again every 15 seconds (`--pvclaimbinder-sync-period`), the period at
//! which upstream repeats its events.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::events::Recorder;
use super::{Controller, Pass};
use crate::api::{Api, DeleteOptions, WriteOptions};
use crate::meta;
use crate::registry::STORAGECLASSES;
use crate::registry::{PERSISTENTVOLUMECLAIMS as CLAIMS, PERSISTENTVOLUMES as VOLUMES, PODS};
use crate::store::Event;
use crate::volumes::{self, ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE};
use crate::ApiResult;

const COMPONENT: &str = "persistentvolume-controller";
/// `--pvclaimbinder-sync-period`'s default.
const RESYNC: Duration = Duration::from_secs(15);

/// In-tree provisioners that CSI migration hands to their CSI driver (`csi-translation-lib`),
/// with the name an external provisioner then answers to.
const MIGRATED: &[(&str, &str)] = &[
    ("kubernetes.io/aws-ebs", "ebs.csi.aws.com"),
    ("kubernetes.io/azure-disk", "disk.csi.azure.com"),
    ("kubernetes.io/azure-file", "file.csi.azure.com"),
    ("kubernetes.io/cinder", "cinder.csi.openstack.org"),
    ("kubernetes.io/gce-pd", "pd.csi.storage.gke.io"),
    ("kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"),
];

type ClaimKey = (String, String);

pub struct PersistentVolumeController {
    recorder: Recorder,
    /// Changed volumes and claims; `None` means everything (a resync).
    dirty: Option<(BTreeSet<String>, BTreeSet<ClaimKey>)>,
    last_full: Instant,
}

impl Default for PersistentVolumeController {
    fn default() -> Self {
        Self {
            recorder: Recorder::new(COMPONENT),
            dirty: None,
            last_full: Instant::now(),
        }
    }
}

fn is_volume(ev: &Event) -> bool {
    std::ptr::eq(ev.res, &VOLUMES)
}

fn is_claim(ev: &Event) -> bool {
    std::ptr::eq(ev.res, &CLAIMS)
}

fn annotate(obj: &mut Value, key: &str, value: &str) {
    let m = meta::meta_mut(obj);
    let anns = m.entry("annotations").or_insert_with(|| json!({}));
    if !anns.is_object() {
        *anns = json!({});
    }
    anns[key] = json!(value);
}

fn has_annotation(obj: &Value, key: &str) -> bool {
    meta::annotation(obj, key).is_some()
}

/// One pass's writes, each answered from the store so the next step sees the new version.
struct Sync<'a> {
    api: &'a Api,
    recorder: &'a Recorder,
    pass: Pass,
    /// Claims a volume's sync asks to be synced in this pass.
    claims: BTreeSet<ClaimKey>,
}

impl Sync<'_> {
    fn write(&mut self, what: &str, r: ApiResult<crate::store::Stored>) -> Option<Value> {
        self.pass.check(what, r).map(|s| s.value.clone())
    }

    fn claim_event(&self, claim: &Value, type_: &str, reason: &str, message: &str) {
        self.recorder
            .event(self.api, &CLAIMS, claim, type_, reason, message);
    }

    fn volume_event(&self, volume: &Value, type_: &str, reason: &str, message: &str) {
        self.recorder
            .event(self.api, &VOLUMES, volume, type_, reason, message);
    }

    fn update(
        &mut self,
        what: &str,
        res: &'static crate::resource::ResourceDef,
        obj: Value,
    ) -> Option<Value> {
        let (ns, name) = (
            meta::namespace(&obj).to_string(),
            meta::name(&obj).to_string(),
        );
        let r = self
            .api
            .update(res, &ns, &name, obj, None, &WriteOptions::default());
        self.write(what, r)
    }

    /// `updateVolumePhase`.
    fn volume_phase(&mut self, volume: Value, phase: &str, message: &str) -> Option<Value> {
        if volume["status"]["phase"] == phase {
            return Some(volume);
        }
        let mut v = volume;
        v["status"]["phase"] = json!(phase);
        if message.is_empty() {
            if let Some(s) = v["status"].as_object_mut() {
                s.remove("message");
            }
        } else {
            v["status"]["message"] = json!(message);
        }
        let r = self.api.update_status(&VOLUMES, v);
        self.write("writing a volume's phase", r)
    }

    /// `updateVolumePhaseWithEvent`.
    fn volume_phase_with_event(
        &mut self,
        volume: Value,
        phase: &str,
        type_: &str,
        reason: &str,
        message: &str,
    ) {
        if volume["status"]["phase"] == phase {
            return;
        }
        if let Some(v) = self.volume_phase(volume, phase, message) {
            self.volume_event(&v, type_, reason, message);
        }
    }

    /// `updateClaimStatus`: the phase, and the access modes and capacity of the bound volume.
    fn claim_status(&mut self, claim: Value, phase: &str, volume: Option<&Value>) -> Option<Value> {
        let mut c = claim.clone();
        if !c["status"].is_object() {
            c["status"] = json!({});
        }
        let phase_changed = claim["status"]["phase"] != phase;
        c["status"]["phase"] = json!(phase);
        let status = c["status"].as_object_mut()?;
        match volume {
            None => {
                status.remove("accessModes");
                status.remove("capacity");
            }
            Some(v) => {
                match v["spec"].get("accessModes") {
                    Some(m) => status.insert("accessModes".into(), m.clone()),
                    None => status.remove("accessModes"),
                };
                if phase_changed {
                    let same = claim["status"]["capacity"]["storage"]
                        .as_str()
                        .and_then(|s| crate::quantity::Quantity::parse(s).ok())
                        .is_some_and(|q| q.compare(&volumes::capacity(v)).is_eq());
                    if !same {
                        status.insert("capacity".into(), v["spec"]["capacity"].clone());
                    }
                }
            }
        }
        if c["status"] == claim["status"] {
            return Some(claim);
        }
        let r = self.api.update_status(&CLAIMS, c);
        self.write("writing a claim's status", r)
    }

    /// `updateClaimStatusWithEvent`.
    fn claim_lost(&mut self, claim: Value, reason: &str, message: &str) {
        if claim["status"]["phase"] == "Lost" {
            return;
        }
        if let Some(c) = self.claim_status(claim, "Lost", None) {
            self.claim_event(&c, "Warning", reason, message);
        }
    }

    /// `bind`: the volume points at the claim and is Bound, then the claim names the volume and
    /// is Bound. A failed step leaves the rest to the next sync.
    fn bind(&mut self, volume: Value, claim: Value) -> Option<()> {
        // bindVolumeToClaim (GetBindVolumeToClaim).
        let mut v = volume.clone();
        let reference = volumes::claim_reference(&claim);
        let r = &volume["spec"]["claimRef"];
        let mut dirty = false;
        if !r.is_object()
            || r["name"] != reference["name"]
            || r["namespace"] != reference["namespace"]
            || r["uid"].as_str().unwrap_or("") != meta::uid(&claim)
        {
            v["spec"]["claimRef"] = reference;
            dirty = true;
        }
        if !volumes::is_bound_to_claim(&volume, &claim)
            && !has_annotation(&v, ANN_BOUND_BY_CONTROLLER)
        {
            annotate(&mut v, ANN_BOUND_BY_CONTROLLER, "yes");
            dirty = true;
        }
        let v = if dirty {
            self.update("binding a volume to its claim", &VOLUMES, v)?
        } else {
            volume
        };
        let v = self.volume_phase(v, "Bound", "")?;
        // bindClaimToVolume.
        let mut c = claim.clone();
        let mut dirty = false;
        if claim["spec"]["volumeName"].as_str().unwrap_or("") != meta::name(&v) {
            c["spec"]["volumeName"] = json!(meta::name(&v));
            if !has_annotation(&c, ANN_BOUND_BY_CONTROLLER) {
                annotate(&mut c, ANN_BOUND_BY_CONTROLLER, "yes");
            }
            dirty = true;
        }
        if !has_annotation(&c, ANN_BIND_COMPLETED) {
            annotate(&mut c, ANN_BIND_COMPLETED, "yes");
            dirty = true;
        }
        let c = if dirty {
            self.update("binding a claim to its volume", &CLAIMS, c)?
        } else {
            claim
        };
        self.claim_status(c, "Bound", Some(&v)).map(drop)
    }

    fn class(&self, name: &str) -> Option<Value> {
        self.api
            .store()
            .get(&STORAGECLASSES, "", name)
            .map(|c| c.value.clone())
    }

    fn volumes(&self) -> Vec<Value> {
        let (list, _) = self.api.store().list(&VOLUMES, None);
        list.into_iter().map(|v| v.value.clone()).collect()
    }

    /// `syncClaim`.
    fn sync_claim(&mut self, claim: Value) {
        if has_annotation(&claim, ANN_BIND_COMPLETED) {
            self.sync_bound_claim(claim);
        } else {
            self.sync_unbound_claim(claim);
        }
    }

    /// `syncUnboundClaim`.
    fn sync_unbound_claim(&mut self, claim: Value) {
        let wanted = claim["spec"]["volumeName"]
            .as_str()
            .unwrap_or("")
            .to_string();
        if wanted.is_empty() {
            let class = self.class(volumes::claim_class(&claim));
            let delay = volumes::is_delay_binding(&claim, class.as_ref());
            let all = self.volumes();
            let refs: Vec<&Value> = all.iter().collect();
            if let Some(v) = volumes::find_best_match(&claim, &refs, delay) {
                self.bind(v.clone(), claim);
                return;
            }
            // The DefaultStorageClass admission plugin already gave the claim a class when one
            // was marked default; `assignDefaultStorageClass` covers a default marked later.
            if !volumes::claim_has_class(&claim) {
                if let Some(default) = crate::admission::storage::default_class(self.api) {
                    let mut c = claim;
                    c["spec"]["storageClassName"] = json!(default);
                    self.update("giving a claim the default class", &CLAIMS, c);
                    return;
                }
            }
            if delay && !has_annotation(&claim, ANN_SELECTED_NODE) {
                self.wait_for_consumer(&claim);
            } else if !volumes::claim_class(&claim).is_empty() {
                self.provision(claim, class);
                return;
            } else {
                self.claim_event(
                    &claim,
                    "Normal",
                    "FailedBinding",
                    "no persistent volumes available for this claim and no storage class is set",
                );
            }
            self.claim_status(claim, "Pending", None);
            return;
        }
        let Some(volume) = self
            .api
            .store()
            .get(&VOLUMES, "", &wanted)
            .map(|v| v.value.clone())
        else {
            self.claim_status(claim, "Pending", None);
            return;
        };
        if !volume["spec"]["claimRef"].is_object() {
            match satisfies(&volume, &claim) {
                Err(why) => {
                    let msg = format!("Cannot bind to requested volume {wanted:?}: {why}");
                    self.claim_event(&claim, "Warning", "VolumeMismatch", &msg);
                    self.claim_status(claim, "Pending", None);
                }
                Ok(()) => {
                    self.bind(volume, claim);
                }
            }
        } else if volumes::is_bound_to_claim(&volume, &claim) {
            self.bind(volume, claim);
        } else {
            let msg = format!("volume {wanted:?} already bound to a different claim.");
            self.claim_event(&claim, "Warning", "FailedBinding", &msg);
            if !has_annotation(&claim, ANN_BOUND_BY_CONTROLLER) {
                self.claim_status(claim, "Pending", None);
            } else {
                self.pass
                    .fail("binding a claim", "volume already claimed by another claim");
            }
        }
    }

    /// `emitEventForUnboundDelayBindingClaim`.
    fn wait_for_consumer(&self, claim: &Value) {
        let (pods, _) = self.api.store().list(&PODS, Some(meta::namespace(claim)));
        let mut waiting: Vec<&str> = pods
            .iter()
            .filter(|p| {
                p.value["spec"]["nodeName"]
                    .as_str()
                    .unwrap_or("")
                    .is_empty()
            })
            .filter(|p| {
                volumes::pod_claims(&p.value)
                    .iter()
                    .any(|(c, _)| c == meta::name(claim))
            })
            .map(|p| p.name())
            .collect();
        waiting.sort_unstable();
        let (reason, message) = match waiting.as_slice() {
            [] => (
                "WaitForFirstConsumer",
                "waiting for first consumer to be created before binding".to_string(),
            ),
            [one] => (
                "WaitForPodScheduled",
                format!("waiting for pod {one} to be scheduled"),
            ),
            many => (
                "WaitForPodScheduled",
                format!("waiting for pods {} to be scheduled", many.join(",")),
            ),
        };
        self.claim_event(claim, "Normal", reason, &message);
    }

    /// `provisionClaim`: find the class's provisioner; an external one is asked for by
    /// annotation, and provisions nothing here.
    fn provision(&mut self, claim: Value, class: Option<Value>) {
        let name = volumes::claim_class(&claim).to_string();
        let Some(class) = class else {
            let msg = format!("storageclass.storage.k8s.io {name:?} not found");
            self.claim_event(&claim, "Warning", "ProvisioningFailed", &msg);
            return;
        };
        let provisioner = class["provisioner"].as_str().unwrap_or("");
        let external = match MIGRATED.iter().find(|(p, _)| *p == provisioner) {
            Some((_, csi)) => csi.to_string(),
            None if !provisioner.starts_with("kubernetes.io/") => provisioner.to_string(),
            None => {
                // No in-tree provisioner is enabled in a kube-controller-manager without cloud
                // or host-path provisioning, so every other kubernetes.io name fails to match.
                let msg = format!("no volume plugin matched name: {provisioner}");
                self.claim_event(&claim, "Warning", "ProvisioningFailed", &msg);
                return;
            }
        };
        // setClaimProvisioner.
        let mut c = claim.clone();
        annotate(&mut c, volumes::ANN_BETA_STORAGE_PROVISIONER, &external);
        annotate(&mut c, volumes::ANN_STORAGE_PROVISIONER, &external);
        let c = if c["metadata"]["annotations"] == claim["metadata"]["annotations"] {
            claim
        } else {
            match self.update("asking for a claim to be provisioned", &CLAIMS, c) {
                Some(c) => c,
                None => return,
            }
        };
        let msg = format!(
            "Waiting for a volume to be created either by the external provisioner '{external}' \
             or manually by the system administrator. If volume creation is delayed, please \
             verify that the provisioner is running and correctly registered."
        );
        self.claim_event(&c, "Normal", "ExternalProvisioning", &msg);
    }

    /// `syncBoundClaim`.
    fn sync_bound_claim(&mut self, claim: Value) {
        let name = claim["spec"]["volumeName"]
            .as_str()
            .unwrap_or("")
            .to_string();
        if name.is_empty() {
            self.claim_lost(
                claim,
                "ClaimLost",
                "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!",
            );
            return;
        }
        let Some(volume) = self
            .api
            .store()
            .get(&VOLUMES, "", &name)
            .map(|v| v.value.clone())
        else {
            self.claim_lost(
                claim,
                "ClaimLost",
                "Bound claim has lost its PersistentVolume. Data on the volume is lost!",
            );
            return;
        };
        let r = &volume["spec"]["claimRef"];
        if !r.is_object() || r["uid"].as_str().unwrap_or("") == meta::uid(&claim) {
            self.bind(volume, claim);
        } else {
            self.claim_lost(
                claim,
                "ClaimMisbound",
                "Two claims are bound to the same volume, this one is bound incorrectly",
            );
        }
    }

    /// `syncVolume`.
    fn sync_volume(&mut self, volume: Value) {
        let r = volume["spec"]["claimRef"].clone();
        if !r.is_object() || r["uid"].as_str().unwrap_or("").is_empty() {
            self.volume_phase(volume, "Available", "");
            return;
        }
        let (ns, name) = (
            r["namespace"].as_str().unwrap_or("").to_string(),
            r["name"].as_str().unwrap_or("").to_string(),
        );
        let claim = self
            .api
            .store()
            .get(&CLAIMS, &ns, &name)
            .map(|c| c.value.clone())
            .filter(|c| meta::uid(c) == r["uid"].as_str().unwrap_or(""));
        let Some(claim) = claim else {
            let phase = volume["status"]["phase"].as_str().unwrap_or("");
            let volume = if phase != "Released" && phase != "Failed" {
                match self.volume_phase(volume, "Released", "") {
                    Some(v) => v,
                    None => return,
                }
            } else {
                volume
            };
            self.reclaim(volume);
            return;
        };
        let bound_to = claim["spec"]["volumeName"].as_str().unwrap_or("");
        if bound_to.is_empty() {
            if volumes::volume_mode_mismatch(&claim, &volume) {
                let v = format!("Cannot bind PersistentVolume to requested PersistentVolumeClaim {:?} due to incompatible volumeMode.", meta::name(&claim));
                self.volume_event(&volume, "Warning", "VolumeMismatch", &v);
                let c = format!("Cannot bind PersistentVolume {:?} to requested PersistentVolumeClaim due to incompatible volumeMode.", meta::name(&volume));
                self.claim_event(&claim, "Warning", "VolumeMismatch", &c);
                return;
            }
            self.claims.insert((ns, name));
        } else if bound_to == meta::name(&volume) {
            self.volume_phase(volume, "Bound", "");
        } else {
            // Bound elsewhere: a volume the controller reserved is freed; one an administrator
            // pre-bound keeps its claim's name and forgets its uid. (Dynamically provisioned
            // volumes, which would be deleted instead, are not made here.)
            let mut v = volume.clone();
            if has_annotation(&volume, ANN_BOUND_BY_CONTROLLER) {
                if let Some(spec) = v["spec"].as_object_mut() {
                    spec.remove("claimRef");
                }
                if let Some(anns) = v["metadata"]["annotations"].as_object_mut() {
                    anns.remove(ANN_BOUND_BY_CONTROLLER);
                    if anns.is_empty() {
                        if let Some(m) = v["metadata"].as_object_mut() {
                            m.remove("annotations");
                        }
                    }
                }
            } else {
                v["spec"]["claimRef"]["uid"] = json!("");
            }
            if let Some(v) = self.update("unbinding a volume", &VOLUMES, v) {
                self.volume_phase(v, "Available", "");
            }
        }
    }

    /// `reclaimVolume`: Retain keeps the volume Released; Delete asks the volume's plugin, which
    /// for the only deletable in-tree source, hostPath, means a path under /tmp (and the volume
    /// object goes); Recycle, deprecated, runs a recycler pod, which fake nodes cannot.
    fn reclaim(&mut self, volume: Value) {
        if volume["spec"]["persistentVolumeReclaimPolicy"] != "Delete" {
            return;
        }
        let spec = &volume["spec"];
        let failure = if spec["csi"].is_object() {
            // An external deleter's business.
            return;
        } else if let Some(path) = spec["hostPath"]["path"].as_str() {
            // hostPathDeleter.Delete matches `/tmp/.+` anywhere in the path.
            let under_tmp = path
                .match_indices("/tmp/")
                .any(|(i, _)| path.len() > i + "/tmp/".len());
            if under_tmp {
                if !meta::is_deleting(&volume) {
                    let r = self.api.delete(
                        &VOLUMES,
                        "",
                        meta::name(&volume),
                        &DeleteOptions::default(),
                    );
                    self.pass.check("deleting a released volume", r);
                }
                return;
            }
            format!("host_path deleter only supports /tmp/.+ but received provided {path}")
        } else {
            // `FindDeletablePluginBySpec`: of the controller's plugins, nfs, fc and iscsi
            // recognise their volumes but delete nothing; no plugin knows any other source.
            let known = ["nfs", "fc", "iscsi"].iter().any(|k| spec[*k].is_object());
            let why = if known {
                "no deletable volume plugin matched"
            } else {
                "no volume plugin matched"
            };
            format!(
                "error getting deleter volume plugin for volume {:?}: {why}",
                meta::name(&volume)
            )
        };
        self.volume_phase_with_event(volume, "Failed", "Warning", "VolumeFailedDelete", &failure);
    }
}

/// `checkVolumeSatisfyClaim`, for a claim that names its volume.
fn satisfies(volume: &Value, claim: &Value) -> Result<(), String> {
    if meta::is_deleting(volume) {
        return Err(format!(
            "the volume is marked for deletion {:?}",
            meta::name(volume)
        ));
    }
    if volumes::capacity(volume)
        .compare(&volumes::requested(claim))
        .is_lt()
    {
        return Err("requested PV is too small".into());
    }
    if volumes::volume_class(volume) != volumes::claim_class(claim) {
        return Err("storageClassName does not match".into());
    }
    if volumes::volume_mode_mismatch(claim, volume) {
        return Err("incompatible volumeMode".into());
    }
    if !volumes::access_modes_satisfied(claim, volume) {
        return Err("incompatible accessMode".into());
    }
    Ok(())
}

impl Controller for PersistentVolumeController {
    fn name(&self) -> &'static str {
        "persistentvolume-binder"
    }

    fn interested(&self, ev: &Event) -> bool {
        is_volume(ev) || is_claim(ev)
    }

    fn observe(&mut self, ev: &Event) {
        let Some((volumes, claims)) = self.dirty.as_mut() else {
            return;
        };
        if is_volume(ev) {
            volumes.insert(ev.object.name().to_string());
        } else if is_claim(ev) {
            claims.insert((
                ev.object.namespace().to_string(),
                ev.object.name().to_string(),
            ));
        }
    }

    fn resync(&mut self) {
        self.dirty = None;
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        if self.last_full.elapsed() >= RESYNC {
            self.dirty = None;
        }
        let dirty = self.dirty.replace(Default::default());
        if dirty.is_none() {
            self.last_full = Instant::now();
        }
        let mut sync = Sync {
            api,
            recorder: &self.recorder,
            pass: Pass::default(),
            claims: BTreeSet::new(),
        };
        let store = api.store();
        let volume_names: Vec<String> = match &dirty {
            None => store
                .list(&VOLUMES, None)
                .0
                .iter()
                .map(|v| v.name().to_string())
                .collect(),
            Some((v, _)) => v.iter().cloned().collect(),
        };
        for name in volume_names {
            if let Some(v) = store.get(&VOLUMES, "", &name) {
                sync.sync_volume(v.value.clone());
            }
        }
        let mut claim_keys: BTreeSet<ClaimKey> = match dirty {
            None => store
                .list(&CLAIMS, None)
                .0
                .iter()
                .map(|c| (c.namespace().to_string(), c.name().to_string()))
                .collect(),
            Some((_, c)) => c,
        };
        claim_keys.append(&mut sync.claims);
        for (ns, name) in claim_keys {
            if let Some(c) = store.get(&CLAIMS, &ns, &name) {
                sync.sync_claim(c.value.clone());
            }
        }
        let mut pass = sync.pass;
        if pass.failed() {
            // Retried on the loop's backoff with everything looked at again.
            self.dirty = None;
        }
        pass.wake(Some(RESYNC.saturating_sub(self.last_full.elapsed())));
        pass
    }
}

#[cfg(test)]
mod tests;
