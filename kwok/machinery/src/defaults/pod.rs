//! Defaults of pods and pod templates (k8s.io/kubernetes pkg/apis/core/v1/defaults.go and
//! zz_generated.defaults.go), plus what Go's encoder always writes for non-pointer structs
//! (`resources: {}`, `divisor: "0"`).

use serde_json::{json, Map, Value};

use super::fields::{child, default_nil, default_zero, each, existing, is_nil, is_zero, str_of};
use super::image::default_pull_policy;
use super::resources;

/// `SetDefaults_PodSpec` and everything under it; `is_pod` adds `SetDefaults_Pod`, which pod
/// templates do not get.
pub fn pod_spec(spec: &mut Map<String, Value>, is_pod: bool) {
    default_zero(spec, "dnsPolicy", json!("ClusterFirst"));
    default_zero(spec, "restartPolicy", json!("Always"));
    default_nil(spec, "securityContext", json!({}));
    default_nil(spec, "terminationGracePeriodSeconds", json!(30));
    default_zero(spec, "schedulerName", json!("default-scheduler"));
    service_account_alias(spec);

    for key in ["containers", "initContainers", "ephemeralContainers"] {
        for c in each(spec, key) {
            container(c);
            resources::requirements(c, "resources");
        }
    }
    resources::resource_list(spec, "overhead");
    for v in each(spec, "volumes") {
        volume(v);
    }
    if is_pod {
        // Convert_v1_Pod_To_core_Pod (not a template's): a negative grace period is read as 1.
        if spec
            .get("terminationGracePeriodSeconds")
            .and_then(Value::as_i64)
            .is_some_and(|s| s < 0)
        {
            spec.insert("terminationGracePeriodSeconds".into(), json!(1));
        }
        // SetDefaults_Pod
        for key in ["containers", "initContainers"] {
            for c in each(spec, key) {
                requests_from_limits(c);
            }
        }
        default_nil(spec, "enableServiceLinks", json!(true));
        if spec.get("hostNetwork").and_then(Value::as_bool) == Some(true) {
            for key in ["containers", "initContainers"] {
                for c in each(spec, key) {
                    for p in each(c, "ports") {
                        if is_zero(p, "hostPort") {
                            let port = p.get("containerPort").cloned().unwrap_or(json!(0));
                            p.insert("hostPort".into(), port);
                        }
                    }
                }
            }
        }
    }
}

/// What Go's encoder writes for every `ContainerStatus` (`core/v1/types.go`): `name`, `ready`,
/// `restartCount`, `image` and `imageID` have no `omitempty`, and `state` and `lastState` are
/// structs, written as `{}` when empty. A status written without them (by kwok's stages or a
/// client's status patch) reads back with them.
pub fn pod_status(status: &mut Map<String, Value>) {
    for key in [
        "containerStatuses",
        "initContainerStatuses",
        "ephemeralContainerStatuses",
    ] {
        for c in each(status, key) {
            for (field, zero) in [
                ("name", json!("")),
                ("state", json!({})),
                ("lastState", json!({})),
                ("ready", json!(false)),
                ("restartCount", json!(0)),
                ("image", json!("")),
                ("imageID", json!("")),
            ] {
                default_nil(c, field, zero);
            }
        }
    }
}

/// `serviceAccount` is the deprecated alias of `serviceAccountName`: v1 conversion reads the alias
/// when the name is empty and always writes the name back into it.
fn service_account_alias(spec: &mut Map<String, Value>) {
    let name = str_of(spec, "serviceAccountName").to_string();
    let alias = str_of(spec, "serviceAccount").to_string();
    let effective = if name.is_empty() { alias } else { name };
    if effective.is_empty() {
        spec.remove("serviceAccountName");
        spec.remove("serviceAccount");
    } else {
        spec.insert("serviceAccountName".into(), json!(effective));
        spec.insert("serviceAccount".into(), json!(effective));
    }
}

/// `SetDefaults_Container` and the generated defaults of its parts.
fn container(c: &mut Map<String, Value>) {
    if is_zero(c, "imagePullPolicy") {
        let policy = default_pull_policy(str_of(c, "image"));
        c.insert("imagePullPolicy".into(), json!(policy));
    }
    default_zero(c, "terminationMessagePath", json!("/dev/termination-log"));
    default_zero(c, "terminationMessagePolicy", json!("File"));
    // ResourceRequirements is a value struct: Go always encodes it.
    default_nil(c, "resources", json!({}));
    for p in each(c, "ports") {
        default_zero(p, "protocol", json!("TCP"));
    }
    for e in each(c, "env") {
        if let Some(from) = existing(e, "valueFrom") {
            env_source(from);
        }
    }
    for probe_key in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(p) = existing(c, probe_key) {
            probe(p);
        }
    }
    if let Some(lc) = existing(c, "lifecycle") {
        for hook in ["postStart", "preStop"] {
            if let Some(h) = existing(lc, hook) {
                handler(h);
            }
        }
    }
}

fn env_source(from: &mut Map<String, Value>) {
    if let Some(f) = existing(from, "fieldRef") {
        default_zero(f, "apiVersion", json!("v1"));
    }
    if let Some(r) = existing(from, "resourceFieldRef") {
        // `divisor` is a value Quantity: zero encodes as "0".
        default_nil(r, "divisor", json!("0"));
    }
}

/// `SetDefaults_Probe`.
fn probe(p: &mut Map<String, Value>) {
    default_zero(p, "timeoutSeconds", json!(1));
    default_zero(p, "periodSeconds", json!(10));
    default_zero(p, "successThreshold", json!(1));
    default_zero(p, "failureThreshold", json!(3));
    handler(p);
}

/// HTTP, gRPC and TCP handlers of probes and lifecycle hooks.
fn handler(h: &mut Map<String, Value>) {
    if let Some(http) = existing(h, "httpGet") {
        // SetDefaults_HTTPGetAction
        default_zero(http, "path", json!("/"));
        default_zero(http, "scheme", json!("HTTP"));
    }
    if let Some(grpc) = existing(h, "grpc") {
        default_nil(grpc, "service", json!(""));
    }
}

/// `SetDefaults_Volume` and the volume source defaults (file modes 0644 = 420).
fn volume(v: &mut Map<String, Value>) {
    const SOURCES: &[&str] = &[
        "hostPath",
        "emptyDir",
        "gcePersistentDisk",
        "awsElasticBlockStore",
        "gitRepo",
        "secret",
        "nfs",
        "iscsi",
        "glusterfs",
        "persistentVolumeClaim",
        "rbd",
        "flexVolume",
        "cinder",
        "cephfs",
        "flocker",
        "downwardAPI",
        "fc",
        "azureFile",
        "configMap",
        "vsphereVolume",
        "quobyte",
        "azureDisk",
        "photonPersistentDisk",
        "projected",
        "portworxVolume",
        "scaleIO",
        "storageos",
        "csi",
        "ephemeral",
        "image",
    ];
    if SOURCES.iter().all(|s| is_nil(v, s)) {
        v.insert("emptyDir".into(), json!({}));
    }
    if let Some(hp) = existing(v, "hostPath") {
        default_nil(hp, "type", json!(""));
    }
    for key in ["secret", "configMap", "downwardAPI", "projected"] {
        if let Some(src) = existing(v, key) {
            default_nil(src, "defaultMode", json!(420));
        }
    }
    if let Some(d) = existing(v, "downwardAPI") {
        downward_items(d);
    }
    if let Some(p) = existing(v, "projected") {
        for s in each(p, "sources") {
            if let Some(d) = existing(s, "downwardAPI") {
                downward_items(d);
            }
            if let Some(t) = existing(s, "serviceAccountToken") {
                default_nil(t, "expirationSeconds", json!(3600));
            }
        }
    }
    if let Some(iscsi) = existing(v, "iscsi") {
        default_zero(iscsi, "iscsiInterface", json!("default"));
    }
    if let Some(rbd) = existing(v, "rbd") {
        default_zero(rbd, "pool", json!("rbd"));
        default_zero(rbd, "user", json!("admin"));
        default_zero(rbd, "keyring", json!("/etc/ceph/keyring"));
    }
    if let Some(pvc_spec) = existing(v, "ephemeral")
        .and_then(|e| existing(e, "volumeClaimTemplate"))
        .and_then(|t| existing(t, "spec"))
    {
        default_nil(pvc_spec, "volumeMode", json!("Filesystem"));
    }
}

fn downward_items(d: &mut Map<String, Value>) {
    for item in each(d, "items") {
        if let Some(f) = existing(item, "fieldRef") {
            default_zero(f, "apiVersion", json!("v1"));
        }
        if let Some(r) = existing(item, "resourceFieldRef") {
            default_nil(r, "divisor", json!("0"));
        }
    }
}

/// `SetDefaults_Pod`: requests default to limits when only limits are given.
fn requests_from_limits(c: &mut Map<String, Value>) {
    let Some(res) = existing(c, "resources") else {
        return;
    };
    let Some(limits) = res
        .get("limits")
        .and_then(Value::as_object)
        .filter(|l| !l.is_empty())
        .cloned()
    else {
        return;
    };
    let Some(requests) = child(res, "requests") else {
        return;
    };
    for (k, v) in limits {
        requests.entry(k).or_insert(v);
    }
}
