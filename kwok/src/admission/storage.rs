//! DefaultStorageClass and StorageObjectInUseProtection (plugin/pkg/admission/storage): a claim
//! created without a class gets the default StorageClass (the newest if several, the lower
//! name on a tie); claims and volumes are created with the finalizer their protection
//! controller removes once nothing uses them.

use serde_json::{json, Value};

use super::Client;
use crate::meta;
use crate::printers::storage::is_default_class;
use crate::registry;
use crate::resource::ResourceDef;

pub(crate) const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";
pub(crate) const PV_PROTECTION: &str = "kubernetes.io/pv-protection";

/// `GetDefaultClass`.
pub(crate) fn default_class(api: &dyn Client) -> Option<String> {
    let (classes, _) = api.store().list(&registry::STORAGECLASSES, None);
    super::newest_default(classes.iter().map(|c| &c.value), is_default_class)
}

/// DefaultStorageClass on a claim's create.
pub(super) fn default_class_for(api: &dyn Client, claim: &mut Value) {
    let has_class = claim["spec"]
        .get("storageClassName")
        .is_some_and(|c| !c.is_null())
        || claim["metadata"]["annotations"]
            .get("volume.beta.kubernetes.io/storage-class")
            .is_some();
    if has_class {
        return;
    }
    if let Some(class) = default_class(api) {
        if !claim["spec"].is_object() {
            claim["spec"] = json!({});
        }
        claim["spec"]["storageClassName"] = json!(class);
    }
}

/// StorageObjectInUseProtection on a claim's or a volume's create.
pub(super) fn protect(res: &ResourceDef, obj: &mut Value) {
    let finalizer = if std::ptr::eq(res, &registry::PERSISTENTVOLUMECLAIMS) {
        PVC_PROTECTION
    } else {
        PV_PROTECTION
    };
    let m = meta::meta_mut(obj);
    let list = m.entry("finalizers").or_insert_with(|| json!([]));
    if let Some(list) = list.as_array_mut() {
        if !list.iter().any(|f| f == finalizer) {
            list.push(json!(finalizer));
        }
    }
}
