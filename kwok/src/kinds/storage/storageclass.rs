//! StorageClasses (`pkg/registry/storage/storageclass/strategy.go`): cluster-scoped, no spec or
//! status, their provisioning fields fixed once created.

use chrono::{DateTime, Utc};
use k8s_openapi::api::storage::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::fields::default_nil;
use crate::error::FieldError;
use crate::printers::{storage as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::storage as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "storage.k8s.io",
    version: "v1",
    kind: "StorageClass",
    plural: "storageclasses",
    singular: "storageclass",
    namespaced: false,
    short_names: &["sc"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &StorageClass,
};

#[derive(Debug)]
pub struct StorageClass;

crate::kinds::decodes_as!(StorageClass, k8s::StorageClass);

impl Strategy for StorageClass {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::storage_v1::STORAGE_CLASS)
    }

    /// `SetDefaults_StorageClass`.
    fn default(&self, obj: &mut Map<String, Value>) {
        default_nil(obj, "reclaimPolicy", json!("Delete"));
        default_nil(obj, "volumeBindingMode", json!("Immediate"));
        // `provisioner` has no omitempty.
        obj.entry("provisioner").or_insert_with(|| json!(""));
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        crate::warnings::storage::class(obj)
    }

    fn warnings_on_update(&self, new: &Value, _old: &Value) -> Vec<String> {
        crate::warnings::storage::class(new)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::storage_class(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::storage_class_update(new, old)
    }

    fn returns_deleted_object(&self) -> bool {
        true
    }

    fn columns(&self) -> &'static [Column] {
        printer::STORAGE_CLASS_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::storage_class_cells(obj, now)
    }
}
