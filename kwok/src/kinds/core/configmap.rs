//! ConfigMaps (`pkg/registry/core/configmap/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::Value;

use crate::error::FieldError;
use crate::printers::{core as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::core as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "ConfigMap",
    plural: "configmaps",
    singular: "configmap",
    namespaced: true,
    short_names: &["cm"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &ConfigMap,
};

#[derive(Debug)]
pub struct ConfigMap;

crate::kinds::decodes_as!(ConfigMap, k8s::ConfigMap);

impl Strategy for ConfigMap {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::CONFIG_MAP)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::config_map(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::config_map_update(new, old)
    }

    fn columns(&self) -> &'static [Column] {
        printer::CONFIGMAP_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::configmap_cells(obj, now)
    }
}
