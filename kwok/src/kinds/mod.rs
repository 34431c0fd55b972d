//! One module per kind, as upstream keeps one `pkg/registry/<group>/<kind>/strategy.go` per kind:
//! each declares its resource (discovery's description of it) and a [`Strategy`] that holds
//! everything the server does differently for that kind — the Go type a body decodes into, scheme
//! defaulting, what create, update and status writes reset, validation, the printer, the strategic
//! merge patch schema and the protobuf message. The layers below (validation, defaults, printers,
//! protobuf, patch) hold the shared machinery; nothing outside this folder switches on a kind's
//! strategy. (Admission plugins and field-selector labels are registered per resource where they
//! live, as upstream registers them.) The registry lists the kinds.
//!
//! Subresource bodies that are not resources of their own (`autoscaling/v1` Scale, `policy/v1`
//! Eviction) are kinds here too, with only the facets a body needs.

pub mod apiextensions;
pub mod apiregistration;
pub mod apps;
pub mod authorization;
pub mod autoscaling;
pub mod batch;
pub mod certificates;
pub mod coordination;
pub mod core;
pub mod custom;
pub mod discovery;
pub mod events;
pub mod networking;
pub mod policy;
pub mod rbac;
pub mod scheduling;
pub mod storage;

use std::fmt::Debug;

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use crate::decode::json::Val;
use crate::decode::walker::Outcome;
use crate::error::{ApiError, FieldError};
pub(crate) use crate::kinds::core::service::Allocation;
use crate::printers::Column;
use crate::protobuf::schema::Message;
use crate::store::Store;

/// How a DELETE proceeds for a kind (`rest.BeforeDelete` with the strategy's
/// `CheckGracefulDelete`, and the storages that always delete softly).
pub(crate) enum Deletion {
    /// Remove the object now (finalizers permitting).
    Immediate,
    /// Marked deleting (the changes are made on the object); something else finishes it.
    Graceful,
    /// Already deleting at least as soon: nothing changes.
    Unchanged,
}

/// Everything the server does that depends on the kind. Defaults are the generic registry's
/// (`genericregistry.Store` with the default strategy methods); a kind overrides what its
/// `strategy.go` and storage change.
pub(crate) trait Strategy: Sync + Debug {
    /// Decode a body into the kind's Go type (the k8s-openapi type stands in for it).
    fn decode(&self, val: &Val, check_strict: bool, root: (&str, &str)) -> Result<Outcome, String>;

    /// The protobuf message of the kind's wire form, when the kind has one here.
    fn protobuf(&self) -> Option<&'static Message> {
        None
    }

    /// Scheme defaulting (`SetDefaults_*`), on every decode into the type.
    fn default(&self, _obj: &mut Map<String, Value>) {}

    /// `BeginCreate` of the kind's storage: what needs the cluster's other objects, before
    /// `PrepareForCreate` (a Service's cluster IPs and node ports). The guard it returns is held
    /// until the object is stored, as upstream's finish function commits the allocation.
    fn begin_create(
        &self,
        _store: &Store,
        _obj: &mut Value,
    ) -> Result<Option<Allocation>, ApiError> {
        Ok(None)
    }

    /// `BeginUpdate`, the same before `PrepareForUpdate`.
    fn begin_update(
        &self,
        _store: &Store,
        _new: &mut Value,
        _old: &Value,
    ) -> Result<Option<Allocation>, ApiError> {
        Ok(None)
    }

    /// `PrepareForCreate`: what the server resets on create (status, generation).
    fn prepare_for_create(&self, _obj: &mut Value) {}

    /// `Validate` on create.
    fn validate(&self, obj: &Value) -> Vec<FieldError>;

    /// `PrepareForUpdate` of the main resource, after the generic metadata resets of
    /// `rest.BeforeUpdate`.
    fn prepare_for_update(&self, _new: &mut Value, _old: &Value) {}

    /// `ValidateUpdate` of the main resource.
    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError>;

    /// The status strategy's `PrepareForUpdate`: what a status write may not change. Only kinds
    /// with a status subresource are asked.
    fn prepare_for_status_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "spec");
    }

    /// The status strategy's `ValidateUpdate`.
    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        crate::validation::meta::object_meta_update(new, old, true)
    }

    /// What a kind records of who created it (`PrepareForCreate` reading the request's user);
    /// `None` for the cluster's own writes.
    fn record_requester(&self, _obj: &mut Value, _user: Option<&crate::user::UserInfo>) {}

    /// The approval strategy's `PrepareForUpdate` (only kinds with an `approval` subresource
    /// are asked): by default what a status write may change.
    fn prepare_for_approval_update(&self, new: &mut Value, old: &Value) {
        self.prepare_for_status_update(new, old);
    }

    /// The approval strategy's `ValidateUpdate`.
    fn validate_approval_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        self.validate_status_update(new, old)
    }

    /// The ephemeral containers strategy's `PrepareForUpdate` (only pods have the subresource):
    /// the old object with the new one's ephemeral containers.
    fn prepare_for_ephemeral_containers_update(&self, new: &mut Value, old: &Value) {
        self.prepare_for_status_update(new, old);
    }

    /// The ephemeral containers strategy's `ValidateUpdate`.
    fn validate_ephemeral_containers_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        self.validate_status_update(new, old)
    }

    /// `GetResetFields` of the strategy of the main resource (`""`) or a subresource: the
    /// fields that write path resets, so nobody gains or loses their ownership there.
    fn reset_fields(&self, subresource: &str) -> &'static [&'static str] {
        match subresource {
            "" => &["status"],
            "status" => &["spec"],
            _ => &[],
        }
    }

    /// A custom resource's structural schema, which field ownership walks its objects by (a
    /// built-in kind's comes from its OpenAPI definition).
    fn structural_schema(&self) -> Option<&Value> {
        None
    }

    /// `AllowUnconditionalUpdate`: may a PUT leave out `metadata.resourceVersion`?
    fn allow_unconditional_update(&self) -> bool {
        true
    }

    /// The warning a delete (or delete-collection) request carries, given its options, whether
    /// or not the object is there (`batch/v1` Job storage's `deleteOptionWarnings`).
    fn delete_warning(&self, _opts: &crate::options::DeleteOptions) -> Option<&'static str> {
        None
    }

    /// The warning every request to this version carries: a deprecated custom resource
    /// version's (`crdHandler.ServeHTTP`).
    fn deprecation_warning(&self) -> Option<&str> {
        None
    }

    /// How a DELETE of `obj` proceeds, given the request's grace period; a graceful deletion
    /// marks `obj`.
    fn deletion(&self, _obj: &mut Value, _grace_period_seconds: Option<i64>) -> Deletion {
        Deletion::Immediate
    }

    /// The reason the kind's storage refuses to DELETE the object `name` (a Forbidden answer);
    /// `None` lets it go.
    fn refuse_delete(&self, _name: &str) -> Option<&'static str> {
        None
    }

    /// `ReturnDeletedObject` of the kind's storage: is a delete answered with the deleted object
    /// rather than a Status naming it?
    fn returns_deleted_object(&self) -> bool {
        false
    }

    /// The strategic merge patch schema: which lists merge, by which key.
    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::META_ONLY
    }

    /// The Table columns `kubectl get` shows, wide ones included.
    fn columns(&self) -> &'static [Column] {
        crate::printers::default_table::COLUMNS
    }

    /// One object's cells, one per column, as of `now`.
    fn cells(&self, obj: &Value, _now: DateTime<Utc>) -> Vec<Value> {
        crate::printers::default_table::cells(obj)
    }

    /// Is this a custom resource's kind (an unstructured object with no Go type, so no
    /// strategic merge patch)?
    fn custom(&self) -> bool {
        false
    }

    /// A Table row's `conditions`.
    fn row_conditions(&self, _obj: &Value) -> Option<Value> {
        None
    }

    /// The resource whose storage holds this kind's objects, when the kind is a view of another's
    /// (the apiserver stores one object and converts it to the version a request names).
    fn storage(&self) -> Option<&'static crate::registry::ResourceDef> {
        None
    }

    /// A view's object in its storage's shape.
    fn to_storage_shape(&self, value: &Value) -> Value {
        value.clone()
    }

    /// A stored object in a view's shape.
    fn to_view_shape(&self, stored: &Value) -> Value {
        stored.clone()
    }

    /// `meta.AsPartialObjectMetadata` takes metadata from the internal object; a kind whose v1
    /// conversion adds metadata removes it here.
    fn internal_metadata(&self, _metadata: &mut Value) {}
}

/// Scheme defaulting of `obj`, a `res` object, in place: what decoding into the Go type does.
pub(crate) fn default(res: &crate::registry::ResourceDef, obj: &mut Value) {
    if let Some(map) = obj.as_object_mut() {
        res.strategy.default(map);
    }
}

/// Set `into[key]` to `from`, or remove it when `from` is `None`: a Go assignment of a field that
/// may be unset.
pub(crate) fn restore(into: &mut Map<String, Value>, key: &str, from: Option<&Value>) {
    match from {
        Some(v) => {
            into.insert(key.to_string(), v.clone());
        }
        None => {
            into.remove(key);
        }
    }
}

/// `newObj.Spec = oldObj.Spec` for a top-level field.
pub(crate) fn keep(new: &mut Value, old: &Value, key: &str) {
    if let Some(map) = new.as_object_mut() {
        restore(map, key, old.get(key));
    }
}

/// The same for a metadata field (`newObj.Labels = oldObj.Labels`).
pub(crate) fn keep_meta(new: &mut Value, old: &Value, key: &str) {
    restore(crate::meta::meta_mut(new), key, old["metadata"].get(key));
}

/// `Generation = 1`, which the strategies of kinds that track spec changes set on create.
pub(crate) fn first_generation(obj: &mut Value) {
    obj["metadata"]["generation"] = json!(1);
}

/// `Generation = old.Generation + 1` when `changed`; `rest.BeforeUpdate` has already copied the old
/// generation.
pub(crate) fn next_generation_if(new: &mut Value, old: &Value, changed: bool) {
    if changed {
        let generation = old["metadata"]["generation"].as_i64().unwrap_or(0);
        new["metadata"]["generation"] = json!(generation + 1);
    }
}

/// `apiequality.Semantic.DeepEqual` of one top-level field.
pub(crate) fn field_changed(new: &Value, old: &Value, key: &str) -> bool {
    new.get(key) != old.get(key)
}

/// `Semantic.DeepEqual` of a metadata map (labels, annotations): a missing map and an empty one
/// are equal.
pub(crate) fn meta_map_changed(new: &Value, old: &Value, key: &str) -> bool {
    let map = |v: &Value| {
        v["metadata"]
            .get(key)
            .and_then(Value::as_object)
            .filter(|m| !m.is_empty())
            .cloned()
    };
    map(new) != map(old)
}
