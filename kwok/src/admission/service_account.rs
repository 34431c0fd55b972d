//! ServiceAccount (plugin/pkg/admission/serviceaccount `Admit` and `Validate`), on pod create: a
//! pod runs as an existing service account (`default` unless it names one), gets that account's
//! image pull secrets when it has none, and mounts a projected API token volume
//! (`kube-api-access-<suffix>`: token, cluster CA, namespace) in every container unless the pod
//! or the account opts out. Mirror pods are not changed, and may not use an account.
//!
//! Left out: the deprecated `kubernetes.io/enforce-mountable-secrets` restriction.

use serde_json::{json, Map, Value};

use super::Client;
use crate::defaults::fields::{each, str_of};
use crate::error::ApiResult;
use crate::meta;
use crate::options::WriteOptions;
use crate::registry::SERVICEACCOUNTS;
use crate::store::Stored;

/// `DefaultServiceAccountName`.
pub const DEFAULT_SERVICE_ACCOUNT: &str = "default";
/// The ConfigMap the token volume takes the cluster's CA from; the root CA publisher keeps one in
/// every namespace.
pub const ROOT_CA_CONFIG_MAP: &str = "kube-root-ca.crt";
/// `ServiceAccountVolumeName`, followed by a generated suffix.
const VOLUME_PREFIX: &str = "kube-api-access-";
/// `DefaultAPITokenMountPath`.
const MOUNT_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
/// `serviceaccount.WarnOnlyBoundTokenExpirationSeconds`: a bound token lasts an hour and seven
/// seconds, so the apiserver can tell a kubelet-refreshed token from a stale one.
const TOKEN_EXPIRATION_SECONDS: i64 = 3607;
/// `v1.ProjectedVolumeSourceDefaultMode` (0644), set explicitly by `TokenVolumeSource`.
const DEFAULT_MODE: i64 = 420;
const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// Admit a pod being created in `ns`; an error is the reason of the Forbidden answer.
pub(super) fn admit(api: &dyn Client, ns: &str, pod: &mut Value) -> Result<(), String> {
    if pod["metadata"]["annotations"]
        .get(MIRROR_ANNOTATION)
        .is_some()
    {
        return validate_mirror(pod);
    }
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    if str_of(spec, "serviceAccountName").is_empty() {
        // v1 keeps the deprecated `serviceAccount` alias equal to the name.
        spec.insert("serviceAccountName".into(), json!(DEFAULT_SERVICE_ACCOUNT));
        spec.insert("serviceAccount".into(), json!(DEFAULT_SERVICE_ACCOUNT));
    }
    let name = str_of(spec, "serviceAccountName").to_string();
    let Some(account) = service_account(api, ns, &name) else {
        return Err(format!(
            "error looking up service account {ns}/{name}: serviceaccount {name:?} not found"
        ));
    };
    if should_automount(&account.value, spec) {
        mount_token(spec);
    }
    let pull_secrets: Vec<Value> = account.value["imagePullSecrets"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| json!({"name": s["name"].as_str().unwrap_or("")}))
        .collect();
    let has_pull_secrets = spec
        .get("imagePullSecrets")
        .and_then(Value::as_array)
        .is_some_and(|l| !l.is_empty());
    if !has_pull_secrets && !pull_secrets.is_empty() {
        spec.insert("imagePullSecrets".into(), Value::Array(pull_secrets));
    }
    Ok(())
}

/// `getServiceAccount`. Upstream looks the `default` account up again for a second or so when
/// it is missing, giving the ServiceAccount controller time to create it in a new namespace; the
/// embedded plugin does the controller's work itself instead of waiting for it.
fn service_account(api: &dyn Client, ns: &str, name: &str) -> Option<Stored> {
    if let Some(found) = api.store().get(&SERVICEACCOUNTS, ns, name) {
        return Some(found);
    }
    if name != DEFAULT_SERVICE_ACCOUNT {
        return None;
    }
    ensure_default(api, ns).ok()
}

/// The ServiceAccount controller's `syncNamespace` for one namespace: create the `default`
/// account unless it exists. Fails when the namespace is missing or terminating.
pub fn ensure_default(api: &dyn Client, ns: &str) -> ApiResult<Stored> {
    let account = json!({
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": DEFAULT_SERVICE_ACCOUNT, "namespace": ns},
    });
    let options = WriteOptions::controller_manager();
    match api.create(&SERVICEACCOUNTS, ns, account, &options) {
        Err(e) if e.code == 409 => api.get(&SERVICEACCOUNTS, ns, DEFAULT_SERVICE_ACCOUNT),
        other => other,
    }
}

/// `shouldAutomount`: the pod's choice, else the account's, else yes.
fn should_automount(account: &Value, spec: &Map<String, Value>) -> bool {
    spec.get("automountServiceAccountToken")
        .and_then(Value::as_bool)
        .or_else(|| account["automountServiceAccountToken"].as_bool())
        .unwrap_or(true)
}

/// `mountServiceAccountToken`: every init and app container without a mount at the token path
/// gets one; the volume is added when some container needs it, reusing a `kube-api-access-*`
/// volume the pod already has.
fn mount_token(spec: &mut Map<String, Value>) {
    let existing = each(spec, "volumes").find_map(|v| {
        str_of(v, "name")
            .strip_prefix(VOLUME_PREFIX)
            .map(|_| str_of(v, "name").to_string())
    });
    let volume = existing
        .clone()
        .unwrap_or_else(|| meta::generate_name(VOLUME_PREFIX));
    let mut needs_volume = false;
    for key in ["initContainers", "containers"] {
        for container in each(spec, key) {
            let mounted =
                each(container, "volumeMounts").any(|m| str_of(m, "mountPath") == MOUNT_PATH);
            if mounted {
                continue;
            }
            let mounts = container.entry("volumeMounts").or_insert_with(|| json!([]));
            if !mounts.is_array() {
                *mounts = json!([]);
            }
            if let Some(mounts) = mounts.as_array_mut() {
                mounts.push(json!({"name": volume, "readOnly": true, "mountPath": MOUNT_PATH}));
                needs_volume = true;
            }
        }
    }
    if existing.is_some() || !needs_volume {
        return;
    }
    let volumes = spec.entry("volumes").or_insert_with(|| json!([]));
    if !volumes.is_array() {
        *volumes = json!([]);
    }
    if let Some(volumes) = volumes.as_array_mut() {
        volumes.push(json!({"name": volume, "projected": token_volume_source()}));
    }
}

/// `TokenVolumeSource`, fields in the Go types' order.
fn token_volume_source() -> Value {
    json!({
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
            {"configMap": {"name": ROOT_CA_CONFIG_MAP, "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
        ],
        "defaultMode": DEFAULT_MODE,
    })
}

/// `Validate` for mirror pods: the kubelet's copies of static pods may not reference an account
/// or carry a token projection.
fn validate_mirror(pod: &Value) -> Result<(), String> {
    let spec = &pod["spec"];
    if !spec["serviceAccountName"].as_str().unwrap_or("").is_empty() {
        return Err("a mirror pod may not reference service accounts".into());
    }
    let projects_token = spec["volumes"].as_array().into_iter().flatten().any(|v| {
        v["projected"]["sources"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|s| s.get("serviceAccountToken").is_some_and(|t| !t.is_null()))
    });
    if projects_token {
        return Err("a mirror pod may not use ServiceAccountToken volume projections".into());
    }
    Ok(())
}
