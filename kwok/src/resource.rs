//! A served resource as discovery describes it, with the strategy that holds everything the
//! server does that depends on its kind (upstream's `rest.RESTCreateStrategy`,
//! `RESTUpdateStrategy`, `RESTDeleteStrategy` and the storage options beside them). Each kind declares its resource in its module under
//! [`crate::kinds`], and the registry lists them; the layers above dispatch on a resource's
//! strategy, the machinery below takes only what it needs of one (its names, a merge schema,
//! columns), so that it cannot reach a kind.

use std::fmt::Debug;
use std::sync::MutexGuard;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::decode::{BodyOf, BodyType, GoType};
use crate::error::{ApiError, FieldError};
use crate::printers::Column;
use crate::protobuf::schema::Message;
use crate::resource_names::ResourceNames;

/// Verbs of a full read-write resource.
pub const FULL_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];
const STATUS_VERBS: &[&str] = &["get", "patch", "update"];

/// A subresource served under `<resource>/<name>/<sub>`.
#[derive(Debug)]
pub struct SubresourceDef {
    pub name: &'static str,
    pub kind: &'static str,
    /// Group and version of the subresource kind when it differs from the parent (eviction, scale).
    pub group: &'static str,
    pub version: &'static str,
    pub verbs: &'static [&'static str],
    /// The kind of the body a write sends, when it is not the parent's (eviction, scale, binding).
    pub(crate) body: Option<&'static dyn Strategy>,
}

/// Static description of one served resource.
#[derive(Debug)]
pub struct ResourceDef {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub singular: &'static str,
    pub namespaced: bool,
    pub short_names: &'static [&'static str],
    pub categories: &'static [&'static str],
    pub verbs: &'static [&'static str],
    pub subresources: &'static [SubresourceDef],
    /// Everything the server does that depends on the kind.
    pub(crate) strategy: &'static dyn Strategy,
}

/// Two definitions are the same resource when they serve the same group, version and plural:
/// a static is the only one of its kind, while a custom resource's definition is rebuilt each
/// time its CustomResourceDefinition changes.
impl PartialEq for ResourceDef {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
            || (self.group == other.group
                && self.version == other.version
                && self.plural == other.plural)
    }
}

impl Eq for ResourceDef {}

impl ResourceNames for ResourceDef {
    fn group(&self) -> &str {
        self.group
    }
    fn version(&self) -> &str {
        self.version
    }
    fn kind(&self) -> &str {
        self.kind
    }
    fn plural(&self) -> &str {
        self.plural
    }
    fn namespaced(&self) -> bool {
        self.namespaced
    }
}

impl ResourceDef {
    pub fn has_verb(&self, verb: &str) -> bool {
        self.verbs.contains(&verb)
    }

    pub fn subresource(&self, name: &str) -> Option<&'static SubresourceDef> {
        self.subresources.iter().find(|s| s.name == name)
    }

    /// URL prefix of the group version (`/api/v1`, `/apis/apps/v1`).
    pub fn gv_path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// Is this the Kind (and apiVersion) a request body for this resource may carry?
    pub fn is(&self, group: &str, kind: &str) -> bool {
        self.group == group && self.kind == kind
    }
}

/// Where a custom resource keeps what its `scale` subresource reads and writes (a definition's
/// `subresources.scale`): JSON paths such as `.spec.replicas`.
#[derive(Debug, Clone)]
pub struct ScalePaths {
    pub spec_replicas: &'static str,
    pub status_replicas: &'static str,
    pub label_selector: Option<&'static str>,
}

impl ScalePaths {
    /// A path's field names (`.spec.replicas` is `spec`, `replicas`).
    pub fn fields(path: &str) -> Vec<&str> {
        path.trim_start_matches('.').split('.').collect()
    }
}

/// The `GetResetFields` of a kind whose status strategy also resets the metadata
/// (`ResetObjectMetaForStatus`): the main resource resets the status, the status subresource the
/// spec and the metadata.
pub fn status_resets_metadata(subresource: &str) -> &'static [&'static str] {
    match subresource {
        "" => &["status"],
        "status" => &["metadata", "spec"],
        _ => &[],
    }
}

/// The `status` subresource, whose body is the parent kind.
pub const fn status(kind: &'static str) -> SubresourceDef {
    parent_body("status", kind)
}

/// The verbs of a proxy subresource: `proxyMethods` (GET, POST, PUT, PATCH, DELETE, HEAD,
/// OPTIONS) as discovery names them.
pub const PROXY_VERBS: &[&str] = &["create", "delete", "get", "patch", "update"];

/// A `proxy` subresource (`pods/proxy`, `nodes/proxy`, `services/proxy`), whose options kind is
/// `<Kind>ProxyOptions`.
pub const fn proxy(options_kind: &'static str) -> SubresourceDef {
    SubresourceDef {
        name: "proxy",
        kind: options_kind,
        group: "",
        version: "",
        verbs: PROXY_VERBS,
        body: None,
    }
}

/// A subresource read and written as the parent kind (`status`, a request's `approval`).
pub const fn parent_body(name: &'static str, kind: &'static str) -> SubresourceDef {
    SubresourceDef {
        name,
        kind,
        group: "",
        version: "",
        verbs: STATUS_VERBS,
        body: None,
    }
}

impl BodyOf for ResourceDef {
    fn body_type(&self) -> BodyType {
        BodyType::new(self.group, self.version, self.kind, self.strategy)
    }
}

impl SubresourceDef {
    /// The type of the body a write of this subresource of `parent` sends (`pods/eviction` takes
    /// a policy/v1 Eviction; `status` the parent kind).
    pub fn body_type(&self, parent: &ResourceDef) -> BodyType {
        let (group, version) = if self.group.is_empty() && self.version.is_empty() {
            (parent.group, parent.version)
        } else {
            (self.group, self.version)
        };
        BodyType::new(
            group,
            version,
            self.kind,
            self.body.unwrap_or(parent.strategy),
        )
    }
}

/// What a kind's storage holds from `BeginCreate` until the object is stored (the service
/// allocator's lock, which upstream's finish function releases).
pub(crate) type Allocation = MutexGuard<'static, ()>;

/// The stored objects a kind's storage reads before a write (a Service's allocations read every
/// stored Service). The store answers it; taking it rather than the store keeps the kinds' rules
/// below the storage.
pub(crate) trait StoredObjects {
    /// Calls `f` with each stored object of `res`.
    fn for_each(&self, res: &'static ResourceDef, f: &mut dyn FnMut(&Value));
}

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
///
/// A kind's strategy is also the Go type its bodies decode into ([`GoType`]: the k8s-openapi
/// type stands in for it).
pub(crate) trait Strategy: GoType + Debug {
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
        _objects: &dyn StoredObjects,
        _obj: &mut Value,
    ) -> Result<Option<Allocation>, ApiError> {
        Ok(None)
    }

    /// `BeginUpdate`, the same before `PrepareForUpdate`.
    fn begin_update(
        &self,
        _objects: &dyn StoredObjects,
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

    /// Where a custom resource's `scale` subresource reads and writes; `None` for the built-in
    /// workloads, whose replicas are `spec.replicas`.
    fn scale_paths(&self) -> Option<&ScalePaths> {
        None
    }

    /// The group and version the kind is stored as (the storage's `StorageVersioner`) when not
    /// the version served here; discovery's `storageVersionHash` names it.
    fn storage_version(&self) -> Option<(&str, &str)> {
        None
    }

    /// `WarningsOnCreate`: what a create that passed validation is warned of.
    fn warnings_on_create(&self, _obj: &Value) -> Vec<String> {
        Vec::new()
    }

    /// `WarningsOnUpdate` of the main resource (a status write warns of nothing).
    fn warnings_on_update(&self, _new: &Value, _old: &Value) -> Vec<String> {
        Vec::new()
    }

    /// The status strategy's `PrepareForUpdate`: what a status write may not change. Only kinds
    /// with a status subresource are asked.
    fn prepare_for_status_update(&self, new: &mut Value, old: &Value) {
        crate::meta::keep(new, old, "spec");
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

    /// Whether objects of the kind are kept (and discovery gives their storage version hash):
    /// not for kinds answered from elsewhere, such as the metrics API's.
    fn stored(&self) -> bool {
        true
    }

    /// The resource whose storage holds this kind's objects, when the kind is a view of another's
    /// (the apiserver stores one object and converts it to the version a request names).
    fn storage(&self) -> Option<&'static ResourceDef> {
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
