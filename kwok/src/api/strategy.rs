//! The generic halves of `rest.BeforeCreate` and `rest.BeforeUpdate`
//! (`k8s.io/apiserver/pkg/registry/rest/{create,update}.go`) around each kind's strategy
//! ([`crate::kinds`]).

use serde_json::{json, Value};

use crate::registry::ResourceDef;

/// The kind's `PrepareForCreate` (the generic uid, timestamps and name are set by the create
/// itself).
pub fn prepare_create(res: &ResourceDef, obj: &mut Value) {
    res.strategy.prepare_for_create(obj);
}

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

/// Fields of metadata only the server writes.
fn copy_server_meta(new: &mut Value, old: &Value) {
    let keep = [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "selfLink",
    ];
    let old_meta = old.get("metadata").cloned().unwrap_or_else(|| json!({}));
    let meta = super::meta::meta_mut(new);
    for k in keep {
        match old_meta.get(k) {
            Some(v) => {
                meta.insert(k.into(), v.clone());
            }
            None => {
                meta.remove(k);
            }
        }
    }
}
