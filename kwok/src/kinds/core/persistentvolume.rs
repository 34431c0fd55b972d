//! PersistentVolumes (`pkg/registry/core/persistentvolume/strategy.go`): cluster-scoped, created
//! `Pending` with the time of that phase; the volume controller makes them `Available`.

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::fields::{child, default_nil, default_zero, existing};
use crate::error::FieldError;
use crate::meta::keep;
use crate::printers::{storage as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, FULL_VERBS};
use crate::validation::storage as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "PersistentVolume",
    plural: "persistentvolumes",
    singular: "persistentvolume",
    namespaced: false,
    short_names: &["pv"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[status("PersistentVolume")],
    strategy: &PersistentVolume,
};

#[derive(Debug)]
pub struct PersistentVolume;

crate::kinds::decodes_as!(PersistentVolume, k8s::PersistentVolume);

impl Strategy for PersistentVolume {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::PERSISTENT_VOLUME)
    }

    /// `SetDefaults_PersistentVolume` and `SetDefaults_HostPathVolumeSource`; the capacity
    /// rounded up to milli scale.
    fn default(&self, obj: &mut Map<String, Value>) {
        if let Some(spec) = child(obj, "spec") {
            crate::defaults::resources::resource_list(spec, "capacity");
            default_zero(spec, "persistentVolumeReclaimPolicy", json!("Retain"));
            default_nil(spec, "volumeMode", json!("Filesystem"));
            if let Some(host_path) = existing(spec, "hostPath") {
                default_nil(host_path, "type", json!(""));
            }
        }
        let status = obj.entry("status").or_insert_with(|| json!({}));
        if let Some(status) = status.as_object_mut() {
            default_zero(status, "phase", json!("Pending"));
        }
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"phase": "Pending", "lastPhaseTransitionTime": crate::meta::now()});
        if let Some(spec) = obj["spec"].as_object_mut() {
            spec.remove("volumeAttributesClassName");
        }
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        crate::warnings::storage::volume(obj)
    }

    fn warnings_on_update(&self, new: &Value, _old: &Value) -> Vec<String> {
        crate::warnings::storage::volume(new)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::volume(obj)
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "status");
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::volume_update(new, old)
    }

    /// The spec stays; a new phase gets its own transition time.
    fn prepare_for_status_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "spec");
        let same_phase = new["status"]["phase"] == old["status"]["phase"];
        let time = &new["status"]["lastPhaseTransitionTime"];
        if same_phase && time.is_null() {
            new["status"]["lastPhaseTransitionTime"] =
                old["status"]["lastPhaseTransitionTime"].clone();
        } else if !same_phase
            && (time.is_null() || *time == old["status"]["lastPhaseTransitionTime"])
        {
            new["status"]["lastPhaseTransitionTime"] = json!(crate::meta::now());
        }
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::volume_status_update(new, old)
    }

    fn returns_deleted_object(&self) -> bool {
        true
    }

    fn columns(&self) -> &'static [Column] {
        printer::PERSISTENT_VOLUME_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::persistent_volume_cells(obj, now)
    }
}
