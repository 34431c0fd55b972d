//! PersistentVolumeClaims (`pkg/registry/core/persistentvolumeclaim/strategy.go`): the status is
//! the volume controller's; a claim reads `Pending` until it is bound.

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::fields::{child, default_nil};
use crate::defaults::resources;
use crate::error::FieldError;
use crate::meta::keep;
use crate::printers::{storage as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, FULL_VERBS};
use crate::validation::storage as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "PersistentVolumeClaim",
    plural: "persistentvolumeclaims",
    singular: "persistentvolumeclaim",
    namespaced: true,
    short_names: &["pvc"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[status("PersistentVolumeClaim")],
    strategy: &PersistentVolumeClaim,
};

/// `SetDefaults_PersistentVolumeClaim(Spec)`: phase Pending, volume mode Filesystem; its
/// resource lists rounded up to milli scale.
pub(crate) fn default_claim(obj: &mut Map<String, Value>) {
    if let Some(spec) = child(obj, "spec") {
        default_nil(spec, "volumeMode", json!("Filesystem"));
        resources::requirements(spec, "resources");
    }
    let status = obj.entry("status").or_insert_with(|| json!({}));
    if let Some(status) = status.as_object_mut() {
        resources::resource_list(status, "capacity");
        resources::resource_list(status, "allocatedResources");
        if status
            .get("phase")
            .and_then(Value::as_str)
            .unwrap_or("")
            .is_empty()
        {
            status.insert("phase".into(), json!("Pending"));
        }
    }
}

#[derive(Debug)]
pub struct PersistentVolumeClaim;

crate::kinds::decodes_as!(PersistentVolumeClaim, k8s::PersistentVolumeClaim);

impl Strategy for PersistentVolumeClaim {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::PERSISTENT_VOLUME_CLAIM)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        default_claim(obj);
    }

    /// The status is reset; read back, the defaults say `Pending`.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"phase": "Pending"});
        if let Some(spec) = obj["spec"].as_object_mut() {
            // VolumeAttributesClass is off in 1.32: the field is dropped.
            spec.remove("volumeAttributesClassName");
        }
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        crate::warnings::storage::claim(obj)
    }

    fn warnings_on_update(&self, new: &Value, _old: &Value) -> Vec<String> {
        crate::warnings::storage::claim(new)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::claim(obj)
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "status");
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::claim_update(new, old)
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::claim_status_update(new, old)
    }

    fn returns_deleted_object(&self) -> bool {
        true
    }

    fn columns(&self) -> &'static [Column] {
        printer::PERSISTENT_VOLUME_CLAIM_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::persistent_volume_claim_cells(obj, now)
    }
}
