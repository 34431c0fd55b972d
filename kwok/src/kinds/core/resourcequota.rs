//! ResourceQuotas (`pkg/registry/core/resourcequota/strategy.go`): the status is the
//! controller's and the admission plugin's, never a client's on create or update.

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::error::FieldError;
use crate::meta::keep;
use crate::printers::{core as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, SubresourceDef, FULL_VERBS};
use crate::validation::quota as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "ResourceQuota",
    plural: "resourcequotas",
    singular: "resourcequota",
    namespaced: true,
    short_names: &["quota"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[STATUS],
    strategy: &ResourceQuota,
};

const STATUS: SubresourceDef = status("ResourceQuota");

#[derive(Debug)]
pub struct ResourceQuota;

crate::kinds::decodes_as!(ResourceQuota, k8s::ResourceQuota);

impl Strategy for ResourceQuota {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::RESOURCE_QUOTA)
    }

    /// `SetDefaults_ResourceList` on the hard limits and the status: rounded up to milli scale.
    fn default(&self, obj: &mut Map<String, Value>) {
        use crate::defaults::fields::existing;
        use crate::defaults::resources::resource_list;
        if let Some(spec) = existing(obj, "spec") {
            resource_list(spec, "hard");
        }
        if let Some(status) = existing(obj, "status") {
            resource_list(status, "hard");
            resource_list(status, "used");
        }
    }

    /// `resourcequota.Status = api.ResourceQuotaStatus{}`.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({});
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::resource_quota(obj)
    }

    /// `newResourcequota.Status = oldResourcequota.Status`.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "status");
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::resource_quota_update(new, old)
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::resource_quota_status_update(new, old)
    }

    fn columns(&self) -> &'static [Column] {
        printer::RESOURCE_QUOTA_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::resource_quota_cells(obj, now)
    }
}
