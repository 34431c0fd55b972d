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

/// Fields of metadata only the server writes.
fn copy_server_meta(new: &mut Value, old: &Value) {
    for key in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "selfLink",
    ] {
        keep_meta(new, old, key);
    }
}
