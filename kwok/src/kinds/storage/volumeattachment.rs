//! VolumeAttachments (`pkg/registry/storage/volumeattachment/strategy.go`): a request that a
//! CSI driver's external attacher attach a volume to a node, made by the attach/detach
//! controller and answered in the status. Cluster-scoped; the spec is fixed once created and the
//! status is written only through its subresource.

use chrono::{DateTime, Utc};
use k8s_openapi::api::storage::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::fields::{child, default_nil, existing};
use crate::error::FieldError;
use crate::meta::{keep, reset_meta_for_status};
use crate::printers::{storage as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, SubresourceDef, FULL_VERBS};
use crate::validation::storage as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "storage.k8s.io",
    version: "v1",
    kind: "VolumeAttachment",
    plural: "volumeattachments",
    singular: "volumeattachment",
    namespaced: false,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &SUBRESOURCES,
    strategy: &VolumeAttachment,
};

static SUBRESOURCES: [SubresourceDef; 1] = [status("VolumeAttachment")];

#[derive(Debug)]
pub struct VolumeAttachment;

crate::kinds::decodes_as!(VolumeAttachment, k8s::VolumeAttachment);

impl Strategy for VolumeAttachment {
    /// `volumeAttachmentStrategy.GetResetFields` and its status strategy's.
    fn reset_fields(&self, subresource: &str) -> &'static [&'static str] {
        crate::resource::status_resets_metadata(subresource)
    }

    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::storage_v1::VOLUME_ATTACHMENT)
    }

    /// `SetObjectDefaults_VolumeAttachment`: an inline volume's capacity and host path as a
    /// PersistentVolume's. Not defaulting but encoding: `status.attached` has no omitempty.
    fn default(&self, obj: &mut Map<String, Value>) {
        let inline = child(obj, "spec")
            .and_then(|spec| existing(spec, "source"))
            .and_then(|source| existing(source, "inlineVolumeSpec"));
        if let Some(inline) = inline {
            crate::defaults::resources::resource_list(inline, "capacity");
            if let Some(host_path) = existing(inline, "hostPath") {
                default_nil(host_path, "type", json!(""));
            }
        }
        if let Some(status) = child(obj, "status") {
            default_nil(status, "attached", json!(false));
        }
    }

    /// `PrepareForCreate`: the status is the attacher's to write.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"attached": false});
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::volume_attachment(obj)
    }

    /// `PrepareForUpdate`: the status is the status subresource's. The spec cannot change, so
    /// there is no generation to count.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "status");
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::volume_attachment_update(new, old)
    }

    /// `volumeAttachmentStatusStrategy.PrepareForUpdate`: the spec and the metadata stay.
    fn prepare_for_status_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "spec");
        reset_meta_for_status(new, old);
    }

    /// The status strategy validates as the main one does.
    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::volume_attachment_update(new, old)
    }

    fn returns_deleted_object(&self) -> bool {
        true
    }

    fn allow_unconditional_update(&self) -> bool {
        false
    }

    fn columns(&self) -> &'static [Column] {
        printer::VOLUME_ATTACHMENT_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::volume_attachment_cells(obj, now)
    }
}
