//! CustomResourceDefinitions (`apiextensions-apiserver/pkg/registry/customresourcedefinition`).
//! The definitions are stored, validated and established; the resources they define are served
//! by [`crate::kinds::custom`].

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::defaults::fields::{child, default_nil, default_zero, str_of};
use crate::error::FieldError;
use crate::meta::{first_generation, next_generation_if};
use crate::resource::{status, ResourceDef, FULL_VERBS};
use crate::resource::{Deletion, Strategy};
use crate::validation::apiextensions as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "apiextensions.k8s.io",
    version: "v1",
    kind: "CustomResourceDefinition",
    plural: "customresourcedefinitions",
    singular: "customresourcedefinition",
    namespaced: false,
    short_names: &["crd", "crds"],
    categories: &["api-extensions"],
    verbs: FULL_VERBS,
    subresources: &[status("CustomResourceDefinition")],
    strategy: &CustomResourceDefinition,
};

#[derive(Debug)]
pub struct CustomResourceDefinition;

/// Held by a definition being deleted until the objects it defines are gone.
pub const CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

/// The name of the version marked `storage`.
pub(crate) fn storage_version(obj: &Value) -> Option<&str> {
    obj["spec"]["versions"]
        .as_array()?
        .iter()
        .find(|v| v["storage"] == true)?["name"]
        .as_str()
}

/// Append the storage version to `status.storedVersions` unless it is there.
fn record_storage_version(obj: &mut Value) {
    let Some(version) = storage_version(obj).map(String::from) else {
        return;
    };
    let stored = &mut obj["status"]["storedVersions"];
    if !stored.is_array() {
        *stored = json!([]);
    }
    if let Some(list) = stored.as_array_mut() {
        if !list.iter().any(|v| v == version.as_str()) {
            list.push(json!(version));
        }
    }
}

/// `SetCRDCondition`: the transition time moves only with the status.
pub(crate) fn set_condition(
    crd: &mut Value,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
) {
    let now = crate::meta::now();
    let conditions = &mut crd["status"]["conditions"];
    if !conditions.is_array() {
        *conditions = json!([]);
    }
    let Some(list) = conditions.as_array_mut() else {
        return;
    };
    let new = |at: Value| {
        json!({"type": type_, "status": status, "lastTransitionTime": at,
               "reason": reason, "message": message})
    };
    match list.iter_mut().find(|c| c["type"] == type_) {
        Some(c) => {
            let at = if c["status"] == status {
                c["lastTransitionTime"].clone()
            } else {
                json!(now)
            };
            *c = new(at);
        }
        None => list.push(new(json!(now))),
    }
}

crate::kinds::decodes_as!(CustomResourceDefinition, k8s::CustomResourceDefinition);

impl Strategy for CustomResourceDefinition {
    /// `strategy.GetResetFields`, `statusStrategy.GetResetFields`.
    fn reset_fields(&self, subresource: &str) -> &'static [&'static str] {
        crate::resource::status_resets_metadata(subresource)
    }

    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::apiextensions_v1::CUSTOM_RESOURCE_DEFINITION)
    }

    /// `SetDefaults_CustomResourceDefinitionSpec`: singular and list kind from the kind, no
    /// conversion.
    fn default(&self, obj: &mut Map<String, Value>) {
        let Some(spec) = child(obj, "spec") else {
            return;
        };
        if let Some(names) = child(spec, "names") {
            let kind = str_of(names, "kind").to_string();
            default_zero(names, "singular", json!(kind.to_lowercase()));
            if !kind.is_empty() {
                default_zero(names, "listKind", json!(format!("{kind}List")));
            }
        }
        default_nil(spec, "conversion", json!({"strategy": "None"}));
    }

    /// Status reset to the stored version alone (`acceptedNames` has two non-omitempty names);
    /// generation 1.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"acceptedNames": {"plural": "", "kind": ""}});
        record_storage_version(obj);
        first_generation(obj);
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        new["status"] = old["status"].clone();
        let changed = new["spec"] != old["spec"];
        next_generation_if(new, old, changed);
        record_storage_version(new);
    }

    /// apiextensions-apiserver still stores definitions as v1beta1.
    fn storage_version(&self) -> Option<(&str, &str)> {
        Some(("apiextensions.k8s.io", "v1beta1"))
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::crd(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::crd_update(new, old)
    }

    fn allow_unconditional_update(&self) -> bool {
        false
    }

    /// The definition storage's `Delete`: the first request marks the definition, adds the
    /// cleanup finalizer and the Terminating condition; the finalizer controller does the rest.
    fn deletion(&self, obj: &mut Value, _grace_period_seconds: Option<i64>) -> Deletion {
        if crate::meta::is_deleting(obj) {
            return Deletion::Unchanged;
        }
        let m = crate::meta::meta_mut(obj);
        m.insert("deletionTimestamp".into(), json!(crate::meta::now()));
        m.insert("deletionGracePeriodSeconds".into(), json!(0));
        let finalizers = m.entry("finalizers").or_insert_with(|| json!([]));
        if let Some(list) = finalizers.as_array_mut() {
            if !list.iter().any(|f| f == CLEANUP_FINALIZER) {
                list.push(json!(CLEANUP_FINALIZER));
            }
        }
        set_condition(
            obj,
            "Terminating",
            "True",
            "InstanceDeletionPending",
            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
        );
        Deletion::Graceful
    }
}
