//! Controller references and claiming (`pkg/controller/controller_ref_manager.go`), shared by
//! the ReplicaSet, Deployment and DaemonSet controllers.

use serde_json::{json, Value};

use crate::api::{Api, WriteOptions};
use crate::error::ApiResult;
use crate::meta;
use crate::resource::ResourceDef;
use crate::resource_names::ResourceNames;
use crate::store::Stored;

/// `metav1.NewControllerRef`: the reference a controller puts on what it creates or adopts.
pub(crate) fn controller_ref(owner: &Value, res: &ResourceDef) -> Value {
    json!({
        "apiVersion": res.api_version(),
        "kind": res.kind,
        "name": meta::name(owner),
        "uid": meta::uid(owner),
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

/// The uid of the object's managing controller, if it has one.
pub(crate) fn controller_uid(obj: &Value) -> Option<&str> {
    meta::controller_ref(obj).and_then(|r| r["uid"].as_str())
}

/// What `ControllerRefManager.ClaimObject` decides for one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    /// Already ours and still selected.
    Owned,
    /// An orphan we select: take it.
    Adopt,
    /// Ours, but no longer selected: let it go.
    Release,
    /// Someone else's, or not for us.
    Ignore,
}

/// `BaseControllerRefManager.ClaimObject` (`pkg/controller/controller_ref_manager.go`).
pub(crate) fn claim(owner: &Value, candidate: &Value, selected: bool) -> Claim {
    let owner_deleting = meta::is_deleting(owner);
    match controller_uid(candidate) {
        Some(uid) if uid != meta::uid(owner) => Claim::Ignore,
        Some(_) if selected => Claim::Owned,
        // Owned but no longer selected: release, unless we are being deleted.
        Some(_) if owner_deleting => Claim::Ignore,
        Some(_) => Claim::Release,
        None if owner_deleting || !selected || meta::is_deleting(candidate) => Claim::Ignore,
        None if !meta::namespace(owner).is_empty()
            && meta::namespace(owner) != meta::namespace(candidate) =>
        {
            Claim::Ignore
        }
        None => Claim::Adopt,
    }
}

/// Adopt `obj`: add the controller reference (the adoption patch of `ClaimObject`). The write is
/// conditional on the version read, so two controllers racing for an orphan cannot both win.
pub(crate) fn adopt(
    api: &Api,
    res: &'static ResourceDef,
    obj: &Stored,
    owner_ref: Value,
) -> ApiResult<Stored> {
    let mut v = obj.value.clone();
    let m = meta::meta_mut(&mut v);
    let refs = m.entry("ownerReferences").or_insert_with(|| json!([]));
    if !refs.is_array() {
        *refs = json!([]);
    }
    if let Some(list) = refs.as_array_mut() {
        list.push(owner_ref);
    }
    write_back(api, res, obj, v)
}

/// Release `obj`: drop the owner's reference (the `$patch: delete` of `ClaimObject`).
pub(crate) fn release(
    api: &Api,
    res: &'static ResourceDef,
    obj: &Stored,
    owner_uid: &str,
) -> ApiResult<Stored> {
    let mut v = obj.value.clone();
    let m = meta::meta_mut(&mut v);
    let keep: Vec<Value> = m
        .get("ownerReferences")
        .and_then(Value::as_array)
        .map(|refs| {
            refs.iter()
                .filter(|r| r["uid"].as_str() != Some(owner_uid))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    if keep.is_empty() {
        m.remove("ownerReferences");
    } else {
        m.insert("ownerReferences".into(), Value::Array(keep));
    }
    write_back(api, res, obj, v)
}

/// Store `edited`, the claim or release of `obj`, as an update at `obj`'s version.
fn write_back(
    api: &Api,
    res: &'static ResourceDef,
    obj: &Stored,
    edited: Value,
) -> ApiResult<Stored> {
    api.update(
        res,
        obj.namespace(),
        obj.name(),
        edited,
        None,
        &WriteOptions::default(),
    )
}
