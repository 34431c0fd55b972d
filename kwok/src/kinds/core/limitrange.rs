//! LimitRanges (`pkg/registry/core/limitrange/strategy.go`): no status, the same validation on
//! create and update, and the default table (no printer upstream).

use k8s_openapi::api::core::v1 as k8s;
use serde_json::{Map, Value};

use crate::error::FieldError;
use crate::resource::Strategy;
use crate::resource::{ResourceDef, FULL_VERBS};
use crate::validation::quota as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "LimitRange",
    plural: "limitranges",
    singular: "limitrange",
    namespaced: true,
    short_names: &["limits"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[],
    strategy: &LimitRange,
};

#[derive(Debug)]
pub struct LimitRange;

crate::kinds::decodes_as!(LimitRange, k8s::LimitRange);

impl Strategy for LimitRange {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::LIMIT_RANGE)
    }

    /// `SetDefaults_LimitRangeItem` for each item, and its resource lists rounded up to milli
    /// scale.
    fn default(&self, obj: &mut Map<String, Value>) {
        let items = obj
            .get_mut("spec")
            .and_then(|s| s.get_mut("limits"))
            .and_then(Value::as_array_mut);
        for item in items.into_iter().flatten() {
            if let Some(item) = item.as_object_mut() {
                default_item(item);
                for list in [
                    "max",
                    "min",
                    "default",
                    "defaultRequest",
                    "maxLimitRequestRatio",
                ] {
                    crate::defaults::resources::resource_list(item, list);
                }
            }
        }
    }

    /// A LimitRange with neither a name nor a generateName is named by a fresh UUID.
    fn prepare_for_create(&self, obj: &mut Value) {
        let meta = crate::meta::meta_mut(obj);
        let unnamed = ["name", "generateName"].iter().all(|k| {
            meta.get(*k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty()
        });
        if unnamed {
            meta.insert("name".into(), Value::String(crate::meta::new_uid()));
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::limit_range(obj)
    }

    /// `ValidateLimitRange` again, after the metadata rules every update gets.
    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        let mut errs = crate::validation::meta::object_meta_update(new, old, true);
        errs.extend(validation::limit_range(new));
        errs
    }
}

/// `SetDefaults_LimitRangeItem`: a Container item's default limit is its max, its default
/// request the default limit, else its min.
fn default_item(item: &mut Map<String, Value>) {
    if item.get("type").and_then(Value::as_str) != Some("Container") {
        return;
    }
    let list = |item: &Map<String, Value>, key: &str| -> Map<String, Value> {
        item.get(key)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let mut default = list(item, "default");
    let mut request = list(item, "defaultRequest");
    for (k, v) in list(item, "max") {
        default.entry(k).or_insert(v);
    }
    for (k, v) in &default {
        request.entry(k.clone()).or_insert_with(|| v.clone());
    }
    for (k, v) in list(item, "min") {
        request.entry(k).or_insert(v);
    }
    // Empty maps are left out by `omitempty`.
    for (key, map) in [("default", default), ("defaultRequest", request)] {
        if map.is_empty() {
            item.remove(key);
        } else {
            item.insert(key.into(), Value::Object(map));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_container_item_defaults_from_max_then_default_then_min() {
        let mut obj = json!({"spec": {"limits": [
            {"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "100m", "memory": "64Mi"}},
            {"type": "Pod", "max": {"cpu": "2"}}]}});
        LimitRange.default(obj.as_object_mut().expect("object"));
        assert_eq!(
            obj["spec"]["limits"],
            json!([
                {"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "100m", "memory": "64Mi"},
                 "default": {"cpu": "1"}, "defaultRequest": {"cpu": "1", "memory": "64Mi"}},
                {"type": "Pod", "max": {"cpu": "2"}}])
        );
    }
}
