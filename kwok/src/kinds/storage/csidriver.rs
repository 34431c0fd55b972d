//! CSIDrivers (`pkg/registry/storage/csidriver/strategy.go`): how the kubelet and the
//! controllers talk to a CSI driver, cluster-scoped and named after the driver. Its generation
//! counts spec changes from the first update (`PrepareForCreate` sets none).

use chrono::{DateTime, Utc};
use k8s_openapi::api::storage::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::fields::default_nil;
use crate::error::FieldError;
use crate::meta::{field_changed, next_generation_if};
use crate::printers::{storage as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::storage as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "storage.k8s.io",
    version: "v1",
    kind: "CSIDriver",
    plural: "csidrivers",
    singular: "csidriver",
    namespaced: false,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &CsiDriver,
};

#[derive(Debug)]
pub struct CsiDriver;

crate::kinds::decodes_as!(CsiDriver, k8s::CSIDriver);

impl Strategy for CsiDriver {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::storage_v1::CSI_DRIVER)
    }

    /// `SetDefaults_CSIDriver`, with `SELinuxMountReadWriteOncePod` on (beta, on in v1.32).
    fn default(&self, obj: &mut Map<String, Value>) {
        let spec = obj.entry("spec").or_insert_with(|| json!({}));
        let Some(spec) = spec.as_object_mut() else {
            return;
        };
        default_nil(spec, "attachRequired", json!(true));
        default_nil(spec, "podInfoOnMount", json!(false));
        default_nil(spec, "storageCapacity", json!(false));
        default_nil(spec, "fsGroupPolicy", json!("ReadWriteOnceWithFSType"));
        let no_modes = spec
            .get("volumeLifecycleModes")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty);
        if no_modes {
            spec.insert("volumeLifecycleModes".into(), json!(["Persistent"]));
        }
        default_nil(spec, "requiresRepublish", json!(false));
        default_nil(spec, "seLinuxMount", json!(false));
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::csi_driver(obj)
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        let changed = field_changed(new, old, "spec");
        next_generation_if(new, old, changed);
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::csi_driver_update(new, old)
    }

    fn returns_deleted_object(&self) -> bool {
        true
    }

    /// A PUT must name the resourceVersion it replaces.
    fn allow_unconditional_update(&self) -> bool {
        false
    }

    fn columns(&self) -> &'static [Column] {
        printer::CSI_DRIVER_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::csi_driver_cells(obj, now)
    }
}
