//! CSIStorageCapacities (`pkg/registry/storage/csistoragecapacity/strategy.go`): how much a CSI
//! driver can provision for a StorageClass on the nodes a topology selects, as its external
//! provisioner reports it for the scheduler. Namespaced, no spec or status: the topology and the
//! class are fixed, the capacities change. Its table is the default one (name and age).

use k8s_openapi::api::storage::v1 as k8s;
use serde_json::Value;

use crate::error::FieldError;
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::path::Path;
use crate::validation::storage as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "storage.k8s.io",
    version: "v1",
    kind: "CSIStorageCapacity",
    plural: "csistoragecapacities",
    singular: "csistoragecapacity",
    namespaced: true,
    short_names: &[],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &CsiStorageCapacity,
};

#[derive(Debug)]
pub struct CsiStorageCapacity;

crate::kinds::decodes_as!(CsiStorageCapacity, k8s::CSIStorageCapacity);

/// `PrepareForCreate` and `PrepareForUpdate` change nothing.
impl Strategy for CsiStorageCapacity {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::storage_v1::CSI_STORAGE_CAPACITY)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::csi_storage_capacity(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::csi_storage_capacity_update(new, old)
    }

    /// `GetWarningsForCSIStorageCapacity`: deprecated node labels in the topology.
    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        topology_warnings(obj)
    }

    fn warnings_on_update(&self, new: &Value, _old: &Value) -> Vec<String> {
        topology_warnings(new)
    }

    /// No status: the storage has no reset fields.
    fn reset_fields(&self, _subresource: &str) -> &'static [&'static str] {
        &[]
    }

    fn allow_unconditional_update(&self) -> bool {
        false
    }
}

fn topology_warnings(obj: &Value) -> Vec<String> {
    match obj.get("nodeTopology").filter(|v| v.is_object()) {
        Some(topology) => {
            crate::warnings::node::label_selector(topology, &Path::new("nodeTopology"))
        }
        None => Vec::new(),
    }
}
