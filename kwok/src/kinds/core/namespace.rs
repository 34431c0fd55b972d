//! Namespaces (`pkg/registry/core/namespace/strategy.go`, `storage/storage.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::error::FieldError;
use crate::meta::{keep, restore};
use crate::printers::{core as printer, Column};
use crate::resource::{status, ResourceDef, SubresourceDef};
use crate::resource::{Deletion, Strategy};
use crate::validation::core as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "Namespace",
    plural: "namespaces",
    singular: "namespace",
    namespaced: false,
    short_names: &["ns"],
    categories: &[],
    verbs: &[
        "create", "delete", "get", "list", "patch", "update", "watch",
    ],
    subresources: &[
        status("Namespace"),
        SubresourceDef {
            name: "finalize",
            kind: "Namespace",
            group: "",
            version: "",
            verbs: &["update"],
            body: None,
        },
    ],
    strategy: &Namespace,
};

#[derive(Debug)]
pub struct Namespace;

crate::kinds::decodes_as!(Namespace, k8s::Namespace);

impl Strategy for Namespace {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::NAMESPACE)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::core::namespace(obj);
    }

    /// `namespace.Status = api.NamespaceStatus{Phase: api.NamespaceActive}`, and the
    /// `kubernetes` finalizer added — here, not in defaulting, because it may be removed over the
    /// namespace's life (and so the creator does not own it).
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"phase": "Active"});
        let spec = crate::meta::object_mut(&mut obj["spec"]);
        let finalizers = spec.entry("finalizers").or_insert_with(|| json!([]));
        match finalizers.as_array_mut() {
            Some(list) if !list.iter().any(|f| f == "kubernetes") => list.push(json!("kubernetes")),
            Some(_) => {}
            None => *finalizers = json!(["kubernetes"]),
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::namespace(obj)
    }

    /// `newNamespace.Spec.Finalizers = oldNamespace.Spec.Finalizers; newNamespace.Status =
    /// oldNamespace.Status`: only the finalize subresource changes the finalizers.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "status");
        if let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) {
            restore(spec, "finalizers", old["spec"].get("finalizers"));
        }
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::namespace_update(new, old)
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::namespace_status_update(new, old)
    }

    /// The namespace storage's `Delete` always goes through the namespace controller
    /// (`spec.finalizers`): the namespace turns Terminating.
    fn deletion(&self, obj: &mut Value, _grace_period_seconds: Option<i64>) -> Deletion {
        if !crate::meta::is_deleting(obj) {
            let m = crate::meta::meta_mut(obj);
            m.insert("deletionTimestamp".into(), json!(crate::meta::now()));
            m.insert("deletionGracePeriodSeconds".into(), json!(0));
            obj["status"]["phase"] = json!("Terminating");
        }
        Deletion::Graceful
    }

    fn returns_deleted_object(&self) -> bool {
        true
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::NAMESPACE
    }

    fn columns(&self) -> &'static [Column] {
        printer::NAMESPACE_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::namespace_cells(obj, now)
    }
}
