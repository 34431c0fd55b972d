//! The API server's semantics, independent of HTTP: the generic registry's create, update, patch,
//! delete, list and watch over the [`Store`], with admission, defaulting and validation.
//!
//! The HTTP layer and the in-process controllers both go through [`Api`], so a controller's write
//! is validated, versioned and watched exactly like kubectl's.

pub mod hooks;

mod ownership;
pub mod strategy;
pub mod subresources;

use std::sync::Arc;

use serde_json::{json, Value};

use crate::admission::Operation;
use crate::error::{ApiError, ApiResult, FieldError};
use crate::meta;
pub use crate::options::{DeleteOptions, FieldValidation, ListOptions, Propagation, WriteOptions};
pub use crate::options::{CONTROLLER_MANAGER, KUBE_APISERVER, KUBE_SCHEDULER, KWOK_CONTROLLER};
use crate::registry;
use crate::resource::Deletion;
use crate::resource::ResourceDef;
use crate::resource_names::ResourceNames;
use crate::store::{Event, EventKind, Store, StoreError, Stored};
pub use hooks::PatchKind;

impl crate::admission::Client for Api {
    fn store(&self) -> &Store {
        &self.store
    }
    fn get(&self, res: &'static ResourceDef, ns: &str, name: &str) -> ApiResult<Stored> {
        Api::get(self, res, ns, name)
    }
    fn create(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        obj: Value,
        opts: &WriteOptions,
    ) -> ApiResult<Stored> {
        Api::create(self, res, ns, obj, opts)
    }
    fn update(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        name: &str,
        obj: Value,
        subresource: Option<&str>,
        opts: &WriteOptions,
    ) -> ApiResult<Stored> {
        Api::update(self, res, ns, name, obj, subresource, opts)
    }
}

/// The result of a list.
pub struct ObjectList {
    pub items: Vec<Stored>,
    pub resource_version: u64,
    pub continue_token: Option<String>,
    pub remaining: Option<usize>,
}

/// What a watch starts with.
pub struct WatchStart {
    pub initial: Vec<Event>,
    pub receiver: tokio::sync::broadcast::Receiver<Event>,
}

/// Namespaces every cluster starts with.
pub const SYSTEM_NAMESPACES: &[&str] =
    &["default", "kube-node-lease", "kube-public", "kube-system"];

/// `NewLifecycle(sets.NewString(metav1.NamespaceDefault, metav1.NamespaceSystem,
/// metav1.NamespacePublic))` in the NamespaceLifecycle plugin.
const IMMORTAL_NAMESPACES: [&str; 3] = ["default", "kube-system", "kube-public"];

#[derive(Clone)]
pub struct Api {
    store: Arc<Store>,
}

/// How one try of a write ended when it did not succeed: lost a race with another writer (worth
/// another try on the fresh object), or failed for good.
enum Attempt {
    Raced,
    Failed(ApiError),
}

impl From<ApiError> for Attempt {
    fn from(e: ApiError) -> Self {
        Attempt::Failed(e)
    }
}

impl Attempt {
    fn from_store(e: StoreError, res: &ResourceDef, name: &str) -> Self {
        match e {
            StoreError::Conflict => Attempt::Raced,
            other => Attempt::Failed(store_err(other, res, name)),
        }
    }
}

/// How many times a write is tried against other writers before it answers a conflict; upstream
/// tries until the request times out.
const RACE_ATTEMPTS: usize = 64;

/// Whether a write lost a compare-and-swap to another writer.
fn raced(e: &ApiError) -> bool {
    e.code == 409 && e.reason == "Conflict"
}

/// The client's precondition in an object it sent: its `resourceVersion`, where `Store.Update`
/// reads none from `""` or `"0"`.
fn precondition(res: &ResourceDef, name: &str, obj: &Value) -> ApiResult<Option<u64>> {
    match meta::resource_version(obj) {
        "" => Ok(None),
        rv => rv
            .parse::<u64>()
            .map(|rv| Some(rv).filter(|rv| *rv != 0))
            .map_err(|_| ApiError::stale(res, name)),
    }
}

/// A write's body must be an object.
fn object_body(obj: &Value) -> ApiResult<()> {
    if obj.is_object() {
        Ok(())
    } else {
        Err(ApiError::bad_request(
            "the body of the request was not an object",
        ))
    }
}

/// `rest.EnsureObjectNamespaceMatchesRequestNamespace`: a namespaced body names the request's
/// namespace or none.
fn request_namespace(res: &ResourceDef, ns: &str, obj: &Value) -> ApiResult<()> {
    let body_ns = meta::namespace(obj);
    if res.namespaced && !body_ns.is_empty() && body_ns != ns {
        return Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    Ok(())
}

fn store_err(e: StoreError, res: &ResourceDef, name: &str) -> ApiError {
    match e {
        StoreError::AlreadyExists => ApiError::already_exists(res, name),
        StoreError::NotFound => ApiError::not_found(res, name),
        StoreError::Conflict => ApiError::stale(res, name),
    }
}

impl Api {
    pub fn new(store: Arc<Store>) -> Self {
        Self { store }
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Create what a fresh cluster has, for an API server on the default secure port.
    pub fn bootstrap(&self) -> ApiResult<()> {
        self.bootstrap_serving(6443)
    }

    /// A fresh in-memory cluster as it starts (the tests' usual ground).
    #[cfg(test)]
    pub(crate) fn bootstrapped() -> Api {
        let api = Api::new(Arc::new(Store::new()));
        api.bootstrap()
            .expect("a fresh store takes the bootstrap objects");
        api
    }

    /// Create what a fresh cluster has: the system namespaces, the system PriorityClasses, and
    /// the `kubernetes` Service aimed at `secure_port`.
    pub fn bootstrap_serving(&self, secure_port: u16) -> ApiResult<()> {
        for ns in SYSTEM_NAMESPACES {
            let obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
            let opts = WriteOptions::by(KUBE_APISERVER);
            match self.create(&registry::NAMESPACES, "", obj, &opts) {
                Ok(_) => {}
                Err(e) if e.code == 409 => {}
                Err(e) => return Err(e),
            }
        }
        // The API server's post-start hooks: `AddSystemPriorityClasses`, and the kubernetes
        // service controller's `CreateOrUpdateMasterServiceIfNeeded`.
        let objects = crate::kinds::scheduling::priorityclass::system_objects()
            .map(|pc| (&registry::PRIORITYCLASSES, "", pc))
            .chain([(
                &registry::SERVICES,
                "default",
                crate::kinds::core::service::kubernetes_service(secure_port),
            )]);
        // The RBAC bootstrap hook (`rbac/bootstrap-roles`).
        let roles = crate::kinds::rbac::bootstrap_policy::cluster_roles()
            .into_iter()
            .map(|r| (&registry::CLUSTERROLES, "", r))
            .chain(
                crate::kinds::rbac::bootstrap_policy::cluster_role_bindings()
                    .into_iter()
                    .map(|b| (&registry::CLUSTERROLEBINDINGS, "", b)),
            );
        let objects = objects.chain(roles);
        // kube-aggregator's `autoregister` at start: the built-in group versions' APIServices.
        let objects = objects.chain(
            crate::kinds::apiregistration::apiservice::built_in(registry::GROUPS)
                .map(|service| (&registry::APISERVICES, "", service)),
        );
        for (res, ns, obj) in objects {
            match self.create(res, ns, obj, &WriteOptions::by(KUBE_APISERVER)) {
                Ok(_) => {}
                Err(e) if e.code == 409 => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    pub fn get(&self, res: &'static ResourceDef, ns: &str, name: &str) -> ApiResult<Stored> {
        self.store
            .get(res, ns, name)
            .ok_or_else(|| ApiError::not_found(res, name))
    }

    /// List with selectors and paging. Paging is by key: the continue token names where the next
    /// page starts.
    pub fn list(
        &self,
        res: &'static ResourceDef,
        ns: Option<&str>,
        opts: &ListOptions,
    ) -> ApiResult<ObjectList> {
        let selection = hooks::Selection::of(res, opts)?;
        let start = match &opts.continue_token {
            Some(t) if !t.is_empty() => Some(decode_continue(t)?),
            _ => None,
        };
        let (all, rv) = self.store.list(res, ns);
        let mut items = Vec::new();
        let mut continue_token = None;
        let mut remaining = None;
        // The keys after the continue token, matching or not: etcd3's GetList pages over keys.
        let mut keys = all.into_iter().filter(|o| {
            start.as_ref().is_none_or(|(sns, sname)| {
                (o.namespace(), o.name()) > (sns.as_str(), sname.as_str())
            })
        });
        let limit = opts.limit.filter(|l| *l > 0);
        for o in keys.by_ref() {
            if selection.matches(&o.value) {
                items.push(o);
            }
            if limit.is_some_and(|l| items.len() >= l) {
                break;
            }
        }
        // A page is followed by another whenever keys remain after its last item, whether or
        // not they match (the next page may then be empty); only an unfiltered list says how
        // many (`PrepareContinueToken`: etcd counts keys, not matches).
        let rest = keys.count();
        if limit.is_some() && rest > 0 {
            if let Some(last) = items.last() {
                continue_token = Some(encode_continue(rv, last.namespace(), last.name()));
                if selection.is_everything() {
                    remaining = Some(rest);
                }
            }
        }
        Ok(ObjectList {
            items,
            resource_version: rv,
            continue_token,
            remaining,
        })
    }

    /// Start a watch: synthetic ADDED events for the current state when no resourceVersion (or
    /// "0") is given, else the history after that version; 410 when it is too old.
    pub fn watch(
        &self,
        res: &'static ResourceDef,
        ns: Option<&str>,
        opts: &ListOptions,
    ) -> ApiResult<WatchStart> {
        let rv = opts.resource_version.as_deref().unwrap_or("");
        if rv.is_empty() || rv == "0" {
            let list = self.list(
                res,
                ns,
                &ListOptions {
                    label_selector: opts.label_selector.clone(),
                    field_selector: opts.field_selector.clone(),
                    ..Default::default()
                },
            )?;
            // Writes between the list and the subscription come back as missed events, so none is
            // lost.
            let (missed, receiver) = self.store.watch_from(list.resource_version);
            let mut initial: Vec<Event> = list
                .items
                .into_iter()
                .map(|o| Event {
                    kind: EventKind::Added,
                    res,
                    rv: o.resource_version(),
                    object: o,
                    prev: None,
                })
                .collect();
            initial.extend(
                missed
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|e| e.seen_as(res)),
            );
            return Ok(WatchStart { initial, receiver });
        }
        let since: u64 = rv
            .parse()
            .map_err(|_| ApiError::bad_request(format!("invalid resource version: {rv}")))?;
        let (missed, receiver) = self.store.watch_from(since);
        let Some(missed) = missed else {
            return Err(ApiError::gone(format!(
                "too old resource version: {since} ({})",
                self.store.oldest_revision()
            )));
        };
        let initial = missed.into_iter().filter_map(|e| e.seen_as(res)).collect();
        Ok(WatchStart { initial, receiver })
    }

    /// Check the namespace of a namespaced write exists and accepts new content
    /// (NamespaceLifecycle admission).
    fn admit_namespace(&self, res: &'static ResourceDef, ns: &str) -> ApiResult<()> {
        if !res.namespaced {
            return Ok(());
        }
        let Some(nsobj) = self.store.get(&registry::NAMESPACES, "", ns) else {
            return Err(ApiError::not_found(&registry::NAMESPACES, ns));
        };
        if meta::is_deleting(&nsobj.value)
            || nsobj.value["status"]["phase"].as_str() == Some("Terminating")
        {
            return Err(ApiError::forbidden(
                res,
                "",
                &format!(
                    "unable to create new content in namespace {ns} because it is being terminated"
                ),
            )
            .with_details(json!({"causes": [{"reason": "NamespaceTerminating", "message": format!("namespace {ns} is being terminated"), "field": "metadata.namespace"}]})));
        }
        Ok(())
    }

    /// Create from an already decoded object.
    pub fn create(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        mut obj: Value,
        opts: &WriteOptions,
    ) -> ApiResult<Stored> {
        object_body(&obj)?;
        request_namespace(res, ns, &obj)?;
        {
            let m = meta::meta_mut(&mut obj);
            if res.namespaced {
                m.insert("namespace".into(), json!(ns));
            } else {
                m.remove("namespace");
            }
        }
        self.admit_namespace(res, ns)?;
        hooks::default(res, &mut obj);
        let mut obj = ownership::track(res, None, None, obj, opts);
        crate::admission::admit(self, res, ns, Operation::Create, &mut obj)?;
        let generate =
            meta::name(&obj).is_empty() && !meta::str_field(&obj, "generateName").is_empty();
        {
            let m = meta::meta_mut(&mut obj);
            m.insert("uid".into(), json!(meta::new_uid()));
            m.insert("creationTimestamp".into(), json!(meta::now()));
            for k in [
                "resourceVersion",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "selfLink",
            ] {
                m.remove(k);
            }
        }
        // Held until the object is stored: what it allocated is then on record.
        let _allocation = res.strategy.begin_create(self.store.as_ref(), &mut obj)?;
        res.strategy.prepare_for_create(&mut obj);
        res.strategy.record_requester(&mut obj, opts.user.as_ref());
        for attempt in 0..8 {
            if generate {
                let prefix = meta::str_field(&obj, "generateName").to_string();
                meta::meta_mut(&mut obj).insert("name".into(), json!(meta::generate_name(&prefix)));
            }
            let errs = hooks::validate_create(res, &obj);
            if !errs.is_empty() {
                return Err(ApiError::invalid(res, meta::name(&obj), &errs));
            }
            opts.warnings.extend(res.strategy.warnings_on_create(&obj));
            crate::admission::validate(self, res, ns, Operation::Create, &obj, opts.dry_run)?;
            if opts.dry_run {
                if self.store.get(res, ns, meta::name(&obj)).is_some() {
                    return Err(ApiError::already_exists(res, meta::name(&obj)));
                }
                return Ok(crate::store::Object::new(obj));
            }
            match self.store.create(res, obj.clone()) {
                Ok(o) => return Ok(o),
                Err(StoreError::AlreadyExists) if generate && attempt < 7 => continue,
                Err(e) => return Err(store_err(e, res, meta::name(&obj))),
            }
        }
        Err(ApiError::internal("could not generate a unique name"))
    }

    /// Replace (PUT) an object's status as a controller does (`UpdateStatus`): the namespace and
    /// name are the object's own.
    pub fn update_status(&self, res: &'static ResourceDef, obj: Value) -> ApiResult<Stored> {
        self.update_status_as(CONTROLLER_MANAGER, res, obj)
    }

    /// [`Api::update_status`] by the component `manager` names.
    pub fn update_status_as(
        &self,
        manager: &str,
        res: &'static ResourceDef,
        obj: Value,
    ) -> ApiResult<Stored> {
        let (ns, name) = (
            meta::namespace(&obj).to_string(),
            meta::name(&obj).to_string(),
        );
        self.update(
            res,
            &ns,
            &name,
            obj,
            Some("status"),
            &WriteOptions::by(manager),
        )
    }

    /// Replace (PUT) an object or its status.
    pub fn update(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        name: &str,
        mut obj: Value,
        subresource: Option<&str>,
        opts: &WriteOptions,
    ) -> ApiResult<Stored> {
        object_body(&obj)?;
        let body_name = meta::name(&obj).to_string();
        if !body_name.is_empty() && body_name != name {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the request ({name})"
            )));
        }
        request_namespace(res, ns, &obj)?;
        {
            let m = meta::meta_mut(&mut obj);
            m.insert("name".into(), json!(name));
            if res.namespaced {
                m.insert("namespace".into(), json!(ns));
            }
        }
        if precondition(res, name, &obj)?.is_none()
            && subresource.is_none()
            && !res.strategy.allow_unconditional_update()
        {
            // `Store.Update` names the resource, not the kind, in this one Invalid answer.
            return Err(ApiError::invalid_kind(
                &res.group_resource(),
                res.plural,
                res.group,
                name,
                &[FieldError::invalid(
                    "metadata.resourceVersion",
                    "0x0".into(),
                    "must be specified for an update",
                )],
            ));
        }
        self.guaranteed_update(res, ns, name, subresource, opts, |_| Ok(obj.clone()))
    }

    /// etcd3's `GuaranteedUpdate`: read the object, `change` it, compare-and-swap. When another
    /// writer (a controller's status write) got in between, `change` runs again on the fresh
    /// object, so a write without a precondition never answers a conflict it did not cause; a
    /// `resourceVersion` that `change` leaves in the object is the client's precondition.
    pub fn guaranteed_update(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        name: &str,
        subresource: Option<&str>,
        opts: &WriteOptions,
        mut change: impl FnMut(&Stored) -> ApiResult<Value>,
    ) -> ApiResult<Stored> {
        for _ in 0..RACE_ATTEMPTS {
            let old = self.get(res, ns, name)?;
            let obj = change(&old)?;
            if precondition(res, name, &obj)?.is_some_and(|rv| rv != old.resource_version()) {
                return Err(ApiError::stale(res, name));
            }
            match self.write_update(res, &old, obj, subresource, opts) {
                Err(e) if raced(&e) => continue,
                other => return other,
            }
        }
        Err(ApiError::stale(res, name))
    }

    /// Apply an update to a known stored object: strategy, validation, no-op detection,
    /// compare-and-swap.
    fn write_update(
        &self,
        res: &'static ResourceDef,
        old: &Stored,
        mut obj: Value,
        subresource: Option<&str>,
        opts: &WriteOptions,
    ) -> ApiResult<Stored> {
        let name = old.name().to_string();
        let mut _allocation = None;
        let errs = if subresource == Some("status") {
            strategy::prepare_status_update(res, &mut obj, &old.value);
            // A status write is decoded into the Go type like any other, so it reads back in
            // the shape Go's encoder gives it (`imageID: ""`, `lastState: {}`).
            hooks::default(res, &mut obj);
            obj = ownership::track(res, subresource, Some(&old.value), obj, opts);
            hooks::validate_status_update(res, &obj, &old.value)
        } else if subresource == Some("ephemeralcontainers") {
            // No ownership is recorded: upstream's field manager runs before `PrepareForUpdate`,
            // which starts again from the old pod, managed fields included.
            res.strategy
                .prepare_for_ephemeral_containers_update(&mut obj, &old.value);
            hooks::default(res, &mut obj);
            res.strategy
                .validate_ephemeral_containers_update(&obj, &old.value)
        } else if subresource == Some("approval") {
            strategy::prepare_approval_update(res, &mut obj, &old.value);
            hooks::default(res, &mut obj);
            obj = ownership::track(res, subresource, Some(&old.value), obj, opts);
            res.strategy.validate_approval_update(&obj, &old.value)
        } else {
            hooks::default(res, &mut obj);
            obj = ownership::track(res, None, Some(&old.value), obj, opts);
            let op = Operation::Update { old: &old.value };
            crate::admission::admit(self, res, old.namespace(), op, &mut obj)?;
            _allocation = res
                .strategy
                .begin_update(self.store.as_ref(), &mut obj, &old.value)?;
            strategy::prepare_update(res, &mut obj, &old.value);
            hooks::validate_update(res, &obj, &old.value)
        };
        if !errs.is_empty() {
            return Err(ApiError::invalid(res, &name, &errs));
        }
        if subresource.is_none() {
            let warnings = res.strategy.warnings_on_update(&obj, &old.value);
            opts.warnings.extend(warnings);
            let op = Operation::Update { old: &old.value };
            crate::admission::validate(self, res, old.namespace(), op, &obj, opts.dry_run)?;
        }
        meta::meta_mut(&mut obj).insert(
            "resourceVersion".into(),
            json!(old.resource_version().to_string()),
        );
        crate::fieldmanager::keep_times_of_a_no_op(&mut obj, &old.value);
        if obj == old.value {
            // A no-op write keeps its resourceVersion and sends no watch event (GuaranteedUpdate).
            return Ok(old.clone());
        }
        if opts.dry_run {
            return Ok(crate::store::Object::new(obj));
        }
        // Removing the last finalizer from an object being deleted completes the deletion.
        if meta::is_deleting(&obj)
            && meta::finalizers(&obj).is_empty()
            && !waits_for_grace_period(&obj)
        {
            return self
                .store
                .delete(res, old.namespace(), &name, Some(old.resource_version()))
                .map_err(|e| store_err(e, res, &name));
        }
        self.store
            .update(res, obj, Some(old.resource_version()))
            .map_err(|e| store_err(e, res, &name))
    }

    /// PATCH an object or its status.
    #[allow(clippy::too_many_arguments)]
    pub fn patch(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        name: &str,
        kind: PatchKind,
        body: &[u8],
        subresource: Option<&str>,
        opts: &WriteOptions,
    ) -> ApiResult<Stored> {
        if kind == PatchKind::Apply {
            return self.apply(res, ns, name, body, subresource, opts);
        }
        // The apiserver's patcher applies the patch again to the fresh object on a conflict.
        self.guaranteed_update(res, ns, name, subresource, opts, |old| {
            let mut patched = hooks::patch(res, &old.value, kind, body)?;
            let pname = meta::name(&patched).to_string();
            if pname != name {
                return Err(ApiError::bad_request(format!(
                    "the name of the object ({pname}) does not match the name on the request ({name})"
                )));
            }
            if res.namespaced {
                meta::meta_mut(&mut patched).insert("namespace".into(), json!(ns));
            }
            let (decoded, warnings) =
                hooks::decode_patched(res, &patched, kind, body, opts.field_validation)?;
            opts.warnings.extend(warnings);
            Ok(decoded)
        })
    }

    /// A server-side apply (`applyPatcher`): the field manager merges the configuration into
    /// the live object, or creates it, and works out who owns what.
    fn apply(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        name: &str,
        body: &[u8],
        subresource: Option<&str>,
        opts: &WriteOptions,
    ) -> ApiResult<Stored> {
        let config = crate::patch::apply_configuration(res, body)?;
        let opts = WriteOptions {
            ownership_recorded: true,
            ..opts.clone()
        };
        let named = |obj: &mut Value| -> ApiResult<()> {
            let pname = meta::name(obj).to_string();
            if pname != name {
                return Err(ApiError::bad_request(format!(
                    "the name of the object ({pname}) does not match the name on the request ({name})"
                )));
            }
            if res.namespaced {
                meta::meta_mut(obj).insert("namespace".into(), json!(ns));
            }
            Ok(())
        };
        if self.store.get(res, ns, name).is_none() {
            if subresource.is_some() {
                return Err(ApiError::not_found(res, name));
            }
            let mut created = ownership::apply(res, None, None, &config, &opts)?;
            named(&mut created)?;
            let encoded =
                serde_json::to_vec(&created).map_err(|e| ApiError::internal(e.to_string()))?;
            let (decoded, _) = hooks::decode(res, &encoded, opts.field_validation)?;
            return self.create(res, ns, decoded, &opts);
        }
        // The apply's own conflicts are answered by `change`, before anything is written; a
        // store conflict (another writer won) applies the configuration again.
        self.guaranteed_update(res, ns, name, subresource, &opts, |old| {
            let mut applied = ownership::apply(res, subresource, Some(&old.value), &config, &opts)?;
            named(&mut applied)?;
            let (decoded, _) = hooks::decode_patched(
                res,
                &applied,
                PatchKind::Apply,
                body,
                opts.field_validation,
            )?;
            Ok(decoded)
        })
    }

    /// DELETE one object. Returns the object as last seen: gone, or marked for deletion (graceful
    /// pod deletion, finalizers) — the HTTP answer is the same either way.
    pub fn delete(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        name: &str,
        opts: &DeleteOptions,
    ) -> ApiResult<Stored> {
        self.delete_reporting(res, ns, name, opts)
            .map(|(object, _)| object)
    }

    /// DELETE one object, saying whether it is gone (true) or only marked for deletion, as
    /// upstream's `Delete` does for the handler's answer. A kind's storage may refuse it.
    pub fn delete_reporting(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        name: &str,
        opts: &DeleteOptions,
    ) -> ApiResult<(Stored, bool)> {
        if let Some(why) = res.strategy.refuse_delete(name) {
            return Err(ApiError::forbidden(res, name, why));
        }
        self.store_delete(res, ns, name, opts)
    }

    /// The generic store's `Delete`, which `DeleteCollection` calls for each item (so a kind's
    /// own refusal does not apply there, as upstream).
    fn store_delete(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        name: &str,
        opts: &DeleteOptions,
    ) -> ApiResult<(Stored, bool)> {
        // etcd3's conditionalDelete and GuaranteedUpdate try again on the fresh object when
        // another writer (a controller's status write) got in between; a client's preconditions
        // are checked again each time. Upstream tries until the request times out.
        for _ in 0..RACE_ATTEMPTS {
            match self.delete_once(res, ns, name, opts) {
                Err(Attempt::Raced) => continue,
                Err(Attempt::Failed(e)) => return Err(e),
                Ok(gone) => return Ok(gone),
            }
        }
        Err(ApiError::stale(res, name))
    }

    fn delete_once(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<(Stored, bool), Attempt> {
        // The NamespaceLifecycle admission plugin's immortal namespaces, refused before the
        // object is looked up (admission runs ahead of the storage delete).
        if std::ptr::eq(res, &registry::NAMESPACES) && IMMORTAL_NAMESPACES.contains(&name) {
            return Err(ApiError::forbidden(res, name, "this namespace may not be deleted").into());
        }
        let old = self.get(res, ns, name)?;
        if let Some(uid) = &opts.precondition_uid {
            if uid != meta::uid(&old.value) {
                return Err(ApiError::conflict(
                    res,
                    name,
                    &format!(
                        "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                        meta::uid(&old.value)
                    ),
                )
                .into());
            }
        }
        if let Some(rv) = &opts.precondition_rv {
            if *rv != old.resource_version().to_string() {
                return Err(ApiError::conflict(
                    res,
                    name,
                    &format!(
                        "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
                        old.resource_version()
                    ),
                )
                .into());
            }
        }
        let mut obj = old.value.clone();
        let now = meta::now();
        match res.strategy.deletion(&mut obj, opts.grace_period_seconds) {
            Deletion::Unchanged => return Ok((old, false)),
            Deletion::Graceful => {
                return self
                    .finish_soft_delete(res, &old, obj, opts)
                    .map(|o| (o, false))
            }
            Deletion::Immediate => {}
        }
        let policy = opts.propagation.unwrap_or(Propagation::Background);
        let mut finalizers = meta::finalizers(&obj);
        let extra = match policy {
            Propagation::Orphan => Some("orphan"),
            Propagation::Foreground => Some("foregroundDeletion"),
            Propagation::Background => None,
        };
        if let Some(f) = extra {
            let has_dependents = self.has_dependents(&old);
            if has_dependents && !finalizers.iter().any(|x| x == f) {
                finalizers.push(f.to_string());
            }
        }
        if !finalizers.is_empty() {
            let m = meta::meta_mut(&mut obj);
            m.insert("finalizers".into(), json!(finalizers));
            if m.get("deletionTimestamp").is_none_or(|v| v.is_null()) {
                m.insert("deletionTimestamp".into(), json!(now));
                m.insert("deletionGracePeriodSeconds".into(), json!(0));
            }
            return self
                .finish_soft_delete(res, &old, obj, opts)
                .map(|o| (o, false));
        }
        if opts.dry_run {
            return Ok((old, true));
        }
        let gone = self
            .store
            .delete(res, ns, name, Some(old.resource_version()))
            .map_err(|e| Attempt::from_store(e, res, name))?;
        Ok((gone, true))
    }

    fn finish_soft_delete(
        &self,
        res: &'static ResourceDef,
        old: &Stored,
        obj: Value,
        opts: &DeleteOptions,
    ) -> Result<Stored, Attempt> {
        if obj == old.value {
            return Ok(old.clone());
        }
        if opts.dry_run {
            return Ok(crate::store::Object::new(obj));
        }
        let o = self
            .store
            .update(res, obj, Some(old.resource_version()))
            .map_err(|e| Attempt::from_store(e, res, old.name()))?;
        Ok(o)
    }

    /// Does any object name this one as its owner? (Decides whether orphan/foreground finalizers
    /// are needed at all.)
    fn has_dependents(&self, owner: &Stored) -> bool {
        let uid = meta::uid(&owner.value);
        let scope = Some(owner.namespace()).filter(|ns| !ns.is_empty());
        crate::registry::all(&self.store)
            .filter(|r| r.namespaced && !crate::convert::is_view(r))
            .any(|r| {
                self.store.list(r, scope).0.iter().any(|o| {
                    o.value["metadata"]["ownerReferences"]
                        .as_array()
                        .is_some_and(|refs| refs.iter().any(|r| r["uid"].as_str() == Some(uid)))
                })
            })
    }

    /// DELETE a collection.
    pub fn delete_collection(
        &self,
        res: &'static ResourceDef,
        ns: Option<&str>,
        list: &ListOptions,
        opts: &DeleteOptions,
    ) -> ApiResult<Vec<Stored>> {
        let items = self.list(res, ns, list)?.items;
        let mut out = Vec::new();
        for o in items {
            match self.store_delete(res, o.namespace(), o.name(), opts) {
                Ok((d, _)) => out.push(d),
                Err(e) if e.code == 404 => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }
}

/// An object marked for graceful deletion (a pod on a node) stays until its grace period is
/// cut to zero (the kubelet's final delete); `shouldDeleteDuringUpdate` removes only those at zero.
fn waits_for_grace_period(obj: &Value) -> bool {
    obj["metadata"]["deletionGracePeriodSeconds"]
        .as_i64()
        .unwrap_or(0)
        > 0
}

#[derive(serde::Serialize, serde::Deserialize)]
struct ContinueToken {
    v: String,
    rv: u64,
    start: String,
}

fn encode_continue(rv: u64, ns: &str, name: &str) -> String {
    use base64::Engine;
    let t = ContinueToken {
        v: "meta.k8s.io/v1".into(),
        rv,
        start: format!("{ns}/{name}\u{0}"),
    };
    base64::engine::general_purpose::URL_SAFE.encode(serde_json::to_vec(&t).unwrap_or_default())
}

fn decode_continue(token: &str) -> ApiResult<(String, String)> {
    use base64::Engine;
    let bad = || {
        ApiError::bad_request("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    };
    let raw = base64::engine::general_purpose::URL_SAFE
        .decode(token)
        .map_err(|_| bad())?;
    let t: ContinueToken = serde_json::from_slice(&raw).map_err(|_| bad())?;
    let start = t.start.trim_end_matches('\u{0}');
    let (ns, name) = start.split_once('/').ok_or_else(bad)?;
    Ok((ns.to_string(), name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// A delete that races a controller's writes is tried again, never answered 409 (kube-rs
    /// deleting a Deployment its controller was updating, found by the differential suite).
    #[test]
    fn a_delete_racing_other_writers_succeeds() {
        let api = Api::bootstrapped();
        for round in 0..50 {
            let name = format!("cm-{round}");
            let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
            api.create(
                &registry::CONFIGMAPS,
                "default",
                cm,
                &WriteOptions::default(),
            )
            .expect("created");
            let writes = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let writer = {
                let (api, name, writes, stop) =
                    (api.clone(), name.clone(), writes.clone(), stop.clone());
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                        let Ok(current) = api.get(&registry::CONFIGMAPS, "default", &name) else {
                            return;
                        };
                        let mut next = current.value.clone();
                        let i = writes.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        next["data"] = json!({"i": i.to_string()});
                        let _ = api.update(
                            &registry::CONFIGMAPS,
                            "default",
                            &name,
                            next,
                            None,
                            &WriteOptions::default(),
                        );
                    }
                })
            };
            while writes.load(std::sync::atomic::Ordering::SeqCst) < 20 {
                std::thread::yield_now();
            }
            let deleted = api.delete(
                &registry::CONFIGMAPS,
                "default",
                &name,
                &DeleteOptions::default(),
            );
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            writer.join().expect("writer");
            assert!(deleted.is_ok(), "round {round}: {deleted:?}");
        }
    }

    /// A write without a precondition that loses the compare-and-swap to another writer is
    /// changed again on the fresh object (client-go's `UpdateScale` while the Deployment
    /// controller wrote the status, found by the differential suite); one with a precondition
    /// answers the conflict.
    #[test]
    fn a_raced_write_is_tried_again_unless_the_client_set_a_precondition() {
        let api = Api::bootstrapped();
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}});
        let opts = WriteOptions::default();
        let created = api
            .create(&registry::CONFIGMAPS, "default", cm, &opts)
            .expect("created");
        let precondition = created.resource_version().to_string();
        let interleave = |api: &Api, round: usize| {
            let mut other = api
                .get(&registry::CONFIGMAPS, "default", "cm")
                .expect("read")
                .value
                .clone();
            other["data"] = json!({"other": round.to_string()});
            api.update(&registry::CONFIGMAPS, "default", "cm", other, None, &opts)
                .expect("the other writer");
        };
        let mut tries = 0;
        let written = api
            .guaranteed_update(&registry::CONFIGMAPS, "default", "cm", None, &opts, |old| {
                tries += 1;
                let mut mine = old.value.clone();
                if tries == 1 {
                    interleave(&api, tries);
                }
                mine["metadata"]["labels"] = json!({"mine": "yes"});
                Ok(mine)
            })
            .expect("tried again");
        assert_eq!(tries, 2);
        assert_eq!(written.value["data"]["other"], "1", "the other write kept");
        assert_eq!(written.value["metadata"]["labels"]["mine"], "yes");

        let refused = api
            .guaranteed_update(&registry::CONFIGMAPS, "default", "cm", None, &opts, |old| {
                interleave(&api, 2);
                let mut mine = old.value.clone();
                mine["metadata"]["resourceVersion"] = json!(precondition);
                Ok(mine)
            })
            .expect_err("stale");
        assert_eq!((refused.code, refused.reason.as_str()), (409, "Conflict"));
    }

    /// `kubectl delete namespace default` on a 1.32 cluster (found by the differential suite).
    #[test]
    fn immortal_namespaces_may_not_be_deleted() {
        let api = Api::new(Arc::new(Store::new()));
        for name in IMMORTAL_NAMESPACES {
            let error = api
                .delete(&registry::NAMESPACES, "", name, &DeleteOptions::default())
                .expect_err("refused");
            assert_eq!(error.code, 403);
            assert_eq!(
                error.message,
                format!("namespaces \"{name}\" is forbidden: this namespace may not be deleted")
            );
        }
    }
}
