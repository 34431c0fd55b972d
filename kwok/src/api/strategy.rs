//! The generic half of `rest.BeforeUpdate` (`k8s.io/apiserver/pkg/registry/rest/update.go`)
//! around each kind's strategy
//! ([`crate::kinds`]).

use serde_json::Value;

use crate::meta::keep_meta;

use crate::resource::ResourceDef;

/// An update of the main resource: the server-owned metadata stays, then the kind's
/// `PrepareForUpdate`.
pub fn prepare_update(res: &ResourceDef, new: &mut Value, old: &Value) {
    copy_server_meta(new, old);
    res.strategy.prepare_for_update(new, old);
}

/// A status write: the server-owned metadata stays, then the kind's status strategy resets what a
/// status write may not change (the spec, and per kind some metadata).
pub fn prepare_status_update(res: &ResourceDef, new: &mut Value, old: &Value) {
    copy_server_meta(new, old);
    res.strategy.prepare_for_status_update(new, old);
}

/// An `approval` write (a CertificateSigningRequest's): the server-owned metadata stays, then
/// the kind's approval strategy.
pub fn prepare_approval_update(res: &ResourceDef, new: &mut Value, old: &Value) {
    copy_server_meta(new, old);
    res.strategy.prepare_for_approval_update(new, old);
}

/// `rest.BeforeUpdate`'s own resets, before the strategy and validation see the object: the
/// generation is the server's; a missing uid, and the creation and deletion marks once set, are
/// the old object's; a grace period once set stays unless the update names one. Any other
/// change to these is `ValidateObjectMetaUpdate`'s to refuse ("field is immutable").
fn copy_server_meta(new: &mut Value, old: &Value) {
    let set = |obj: &Value, key: &str| {
        obj["metadata"]
            .get(key)
            .is_some_and(|v| !v.is_null() && v.as_str() != Some(""))
    };
    keep_meta(new, old, "generation");
    keep_meta(new, old, "selfLink");
    if !set(new, "uid") {
        keep_meta(new, old, "uid");
    }
    for key in ["creationTimestamp", "deletionTimestamp"] {
        if set(old, key) {
            keep_meta(new, old, key);
        }
    }
    if set(old, "deletionGracePeriodSeconds") && !set(new, "deletionGracePeriodSeconds") {
        keep_meta(new, old, "deletionGracePeriodSeconds");
    }
}
