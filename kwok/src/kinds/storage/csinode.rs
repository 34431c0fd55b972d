//! CSINodes (`pkg/registry/storage/csinode/strategy.go`): the CSI drivers a node's kubelet has
//! registered, one object per node and named after it. A driver's entry cannot change once
//! written; drivers come and go whole.

use chrono::{DateTime, Utc};
use k8s_openapi::api::storage::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::error::FieldError;
use crate::printers::{storage as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::storage as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "storage.k8s.io",
    version: "v1",
    kind: "CSINode",
    plural: "csinodes",
    singular: "csinode",
    namespaced: false,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &CsiNode,
};

#[derive(Debug)]
pub struct CsiNode;

crate::kinds::decodes_as!(CsiNode, k8s::CSINode);

/// No generation, no status: `PrepareForCreate` and `PrepareForUpdate` change nothing.
impl Strategy for CsiNode {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::storage_v1::CSI_NODE)
    }

    /// Not defaulting but encoding: `drivers` and a driver's `topologyKeys` have no omitempty,
    /// so a nil list is written as null.
    fn default(&self, obj: &mut Map<String, Value>) {
        let spec = obj.entry("spec").or_insert_with(|| json!({}));
        let Some(spec) = spec.as_object_mut() else {
            return;
        };
        let drivers = spec.entry("drivers").or_insert(Value::Null);
        for driver in drivers.as_array_mut().into_iter().flatten() {
            if let Some(driver) = driver.as_object_mut() {
                driver.entry("topologyKeys").or_insert(Value::Null);
            }
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::csi_node(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::csi_node_update(new, old)
    }

    fn returns_deleted_object(&self) -> bool {
        true
    }

    /// A PUT must name the resourceVersion it replaces.
    fn allow_unconditional_update(&self) -> bool {
        false
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::CSI_NODE
    }

    fn columns(&self) -> &'static [Column] {
        printer::CSI_NODE_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::csi_node_cells(obj, now)
    }
}
