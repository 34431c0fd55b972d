//! Binding, provisioning requests and release, with the phases, annotations and event texts
//! of `pv_controller.go`.

use serde_json::{json, Value};

use super::PersistentVolumeController;
use crate::api::{Api, DeleteOptions, WriteOptions};
use crate::controllers::Controller;
use crate::registry;
use crate::resource::ResourceDef;

fn api() -> Api {
    Api::bootstrapped()
}

fn create(api: &Api, res: &'static ResourceDef, ns: &str, obj: Value) {
    api.create(res, ns, obj, &WriteOptions::default())
        .expect("create");
}

fn add_volume(api: &Api, volume: Value) {
    create(api, &registry::PERSISTENTVOLUMES, "", volume);
}

fn add_claim(api: &Api, claim: Value) {
    create(api, &registry::PERSISTENTVOLUMECLAIMS, "default", claim);
}

fn get(api: &Api, res: &'static ResourceDef, ns: &str, name: &str) -> Value {
    api.store()
        .get(res, ns, name)
        .expect("object")
        .value
        .clone()
}

fn volume(name: &str, size: &str, class: &str, policy: &str, path: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
        "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
            "storageClassName": class, "persistentVolumeReclaimPolicy": policy,
            "hostPath": {"path": path}}})
}

fn claim(name: &str, size: &str, class: Option<&str>) -> Value {
    let mut c = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}});
    if let Some(class) = class {
        c["spec"]["storageClassName"] = json!(class);
    }
    c
}

/// Passes until nothing changes (the loop would run again on the writes' own events).
fn settle(api: &Api, ctrl: &mut PersistentVolumeController) {
    for _ in 0..4 {
        ctrl.resync();
        assert!(!ctrl.reconcile(api).failed());
    }
}

fn events(api: &Api, name: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = api
        .store()
        .list(&registry::EVENTS, None)
        .0
        .iter()
        .filter(|e| e.value["involvedObject"]["name"] == name)
        .map(|e| {
            let s = |k: &str| e.value[k].as_str().unwrap_or("").to_string();
            (s("type"), s("reason"), s("message"))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn a_claim_binds_to_the_smallest_fitting_volume() {
    let api = api();
    add_volume(&api, volume("big", "10Gi", "", "Retain", "/data/big"));
    add_volume(&api, volume("small", "2Gi", "", "Retain", "/data/small"));
    add_claim(&api, claim("data", "1Gi", Some("")));
    let mut ctrl = PersistentVolumeController::default();
    settle(&api, &mut ctrl);
    let pv = get(&api, &registry::PERSISTENTVOLUMES, "", "small");
    let pvc = get(&api, &registry::PERSISTENTVOLUMECLAIMS, "default", "data");
    assert_eq!(pv["status"]["phase"], "Bound");
    assert_eq!(pv["spec"]["claimRef"]["name"], "data");
    assert_eq!(pv["spec"]["claimRef"]["kind"], "PersistentVolumeClaim");
    assert_eq!(pv["spec"]["claimRef"]["uid"], pvc["metadata"]["uid"]);
    assert_eq!(
        pv["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"],
        "yes"
    );
    assert_eq!(pvc["spec"]["volumeName"], "small");
    assert_eq!(
        pvc["status"],
        json!({"phase": "Bound", "accessModes": ["ReadWriteOnce"],
        "capacity": {"storage": "2Gi"}})
    );
    assert_eq!(
        pvc["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"],
        "yes"
    );
    assert_eq!(
        get(&api, &registry::PERSISTENTVOLUMES, "", "big")["status"]["phase"],
        "Available"
    );
}

#[test]
fn claims_without_a_volume_say_why() {
    let api = api();
    create(
        &api,
        &registry::STORAGECLASSES,
        "",
        json!({"apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass", "metadata": {"name": "local"},
        "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"}),
    );
    create(
        &api,
        &registry::STORAGECLASSES,
        "",
        json!({"apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass", "metadata": {"name": "csi"}, "provisioner": "example.com/csi"}),
    );
    create(
        &api,
        &registry::STORAGECLASSES,
        "",
        json!({"apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass", "metadata": {"name": "intree"},
        "provisioner": "kubernetes.io/no-provisioner"}),
    );
    for (name, class) in [
        ("none", ""),
        ("local", "local"),
        ("csi", "csi"),
        ("intree", "intree"),
        ("gone", "gone"),
    ] {
        add_claim(&api, claim(name, "1Gi", Some(class)));
    }
    let mut ctrl = PersistentVolumeController::default();
    settle(&api, &mut ctrl);
    let ev = |n: &str| events(&api, n);
    let one = |t: &str, r: &str, m: &str| vec![(t.to_string(), r.to_string(), m.to_string())];
    assert_eq!(
        ev("none"),
        one(
            "Normal",
            "FailedBinding",
            "no persistent volumes available for this claim and no storage class is set"
        )
    );
    assert_eq!(
        ev("local"),
        one(
            "Normal",
            "WaitForFirstConsumer",
            "waiting for first consumer to be created before binding"
        )
    );
    assert_eq!(ev("csi"), one("Normal", "ExternalProvisioning",
        "Waiting for a volume to be created either by the external provisioner 'example.com/csi' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered."));
    assert_eq!(
        ev("intree"),
        one(
            "Warning",
            "ProvisioningFailed",
            "no volume plugin matched name: kubernetes.io/no-provisioner"
        )
    );
    assert_eq!(
        ev("gone"),
        one(
            "Warning",
            "ProvisioningFailed",
            "storageclass.storage.k8s.io \"gone\" not found"
        )
    );
    let csi = get(&api, &registry::PERSISTENTVOLUMECLAIMS, "default", "csi");
    assert_eq!(
        csi["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"],
        "example.com/csi"
    );
    assert_eq!(
        csi["metadata"]["annotations"]["volume.beta.kubernetes.io/storage-provisioner"],
        "example.com/csi"
    );
    assert_eq!(csi["status"]["phase"], "Pending");
}

#[test]
fn a_claim_naming_a_volume_binds_it_or_says_why_not() {
    let api = api();
    add_volume(&api, volume("pv1", "1Gi", "", "Retain", "/data/1"));
    let mut small = claim("toobig", "5Gi", Some(""));
    small["spec"]["volumeName"] = json!("pv1");
    add_claim(&api, small);
    let mut fits = claim("fits", "1Gi", Some(""));
    fits["spec"]["volumeName"] = json!("pv1");
    let mut ctrl = PersistentVolumeController::default();
    settle(&api, &mut ctrl);
    assert_eq!(
        events(&api, "toobig"),
        vec![(
            "Warning".into(),
            "VolumeMismatch".into(),
            "Cannot bind to requested volume \"pv1\": requested PV is too small".into()
        )]
    );
    add_claim(&api, fits);
    settle(&api, &mut ctrl);
    let pv = get(&api, &registry::PERSISTENTVOLUMES, "", "pv1");
    assert_eq!(pv["spec"]["claimRef"]["name"], "fits");
    // The claim chose its volume: the volume, which did not name the claim, is marked as bound by
    // the controller; the claim is not.
    assert_eq!(
        pv["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"],
        "yes"
    );
    let pvc = get(&api, &registry::PERSISTENTVOLUMECLAIMS, "default", "fits");
    assert_eq!(pvc["status"]["phase"], "Bound");
    assert!(pvc["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"].is_null());
}

#[test]
fn a_deleted_claim_releases_or_fails_its_volume() {
    let api = api();
    add_volume(&api, volume("keep", "1Gi", "a", "Retain", "/data/k"));
    add_volume(&api, volume("drop", "1Gi", "b", "Delete", "/data/d"));
    add_volume(&api, volume("tmp", "1Gi", "c", "Delete", "/tmp/t"));
    for (name, class) in [("ka", "a"), ("kb", "b"), ("kc", "c")] {
        create(
            &api,
            &registry::PERSISTENTVOLUMECLAIMS,
            "default",
            claim(name, "1Gi", Some(class)),
        );
    }
    let mut ctrl = PersistentVolumeController::default();
    settle(&api, &mut ctrl);
    for name in ["ka", "kb", "kc"] {
        let c = get(&api, &registry::PERSISTENTVOLUMECLAIMS, "default", name);
        assert_eq!(c["status"]["phase"], "Bound", "{name}");
        let mut released = c.clone();
        released["metadata"]["finalizers"] = json!([]);
        api.update(
            &registry::PERSISTENTVOLUMECLAIMS,
            "default",
            name,
            released,
            None,
            &WriteOptions::default(),
        )
        .expect("drop the finalizer");
        api.delete(
            &registry::PERSISTENTVOLUMECLAIMS,
            "default",
            name,
            &DeleteOptions::default(),
        )
        .expect("delete");
    }
    settle(&api, &mut ctrl);
    assert_eq!(
        get(&api, &registry::PERSISTENTVOLUMES, "", "keep")["status"]["phase"],
        "Released"
    );
    let drop = get(&api, &registry::PERSISTENTVOLUMES, "", "drop");
    assert_eq!(drop["status"]["phase"], "Failed");
    assert_eq!(
        drop["status"]["message"],
        "host_path deleter only supports /tmp/.+ but received provided /data/d"
    );
    assert_eq!(
        events(&api, "drop"),
        vec![(
            "Warning".into(),
            "VolumeFailedDelete".into(),
            "host_path deleter only supports /tmp/.+ but received provided /data/d".into()
        )]
    );
    let tmp = get(&api, &registry::PERSISTENTVOLUMES, "", "tmp");
    assert!(tmp["metadata"]["deletionTimestamp"].is_string(), "{tmp}");
}
