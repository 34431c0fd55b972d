//! Admission plugins of kube-apiserver (plugin/pkg/admission) that change or refuse what a client
//! writes. They run after defaulting and before the kind's strategy and validation, in the order
//! of `AllOrderedPlugins` (pkg/kubeapiserver/options/plugins.go): LimitRanger,
//! TaintNodesByCondition, ServiceAccount, Priority, DefaultTolerationSeconds,
//! DefaultStorageClass, StorageObjectInUseProtection, RuntimeClass, DefaultIngressClass.
//! NamespaceLifecycle, which comes first, is `Api::admit_namespace`.
//!
//! The validating plugins ([`validate`]: LimitRanger, RuntimeClass, ResourceQuota) run once the
//! object has passed its kind's validation, just before it is stored, as the generic registry
//! calls them.
//!
//! Like upstream's plugins, which hold a loopback client, they read (and the ServiceAccount plugin
//! writes) through the [`Api`]. Only writes to an object itself pass here, never to a subresource,
//! and controllers' writes pass here like a client's.

// `ApiError` is the crate's Status error; it is returned by value like everywhere else.
#![allow(clippy::result_large_err)]

mod certificate_subject;
mod default_ingress_class;
mod limit_ranger;
mod node_taint;
mod priority;
mod resource_quota;
mod runtime_class;
pub mod service_account;
pub(crate) mod storage;
mod toleration_seconds;

#[cfg(test)]
mod tests;

use serde_json::Value;

use crate::error::{ApiError, ApiResult};
use crate::meta;
use crate::options::WriteOptions;
use crate::registry;
use crate::resource::ResourceDef;
use crate::store::{Store, Stored};

/// What the plugins ask of the cluster, as upstream's are given a client and informers: the
/// stored objects to read, and the few writes they make through the API like any client (a
/// quota's charged usage, a namespace's `default` ServiceAccount). The API server passes itself.
pub trait Client {
    fn store(&self) -> &Store;
    fn get(&self, res: &'static ResourceDef, ns: &str, name: &str) -> ApiResult<Stored>;
    fn create(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        obj: Value,
        opts: &WriteOptions,
    ) -> ApiResult<Stored>;
    fn update(
        &self,
        res: &'static ResourceDef,
        ns: &str,
        name: &str,
        obj: Value,
        subresource: Option<&str>,
        opts: &WriteOptions,
    ) -> ApiResult<Stored>;
}

/// What the write does (`admission.Operation`); an update carries the stored object.
#[derive(Clone, Copy)]
pub enum Operation<'a> {
    Create,
    Update { old: &'a Value },
}

/// Run the mutating plugins on `obj`, a write of kind `res` in namespace `ns`.
pub fn admit(
    api: &dyn Client,
    res: &'static ResourceDef,
    ns: &str,
    op: Operation,
    obj: &mut Value,
) -> ApiResult<()> {
    if std::ptr::eq(res, &registry::NODES) {
        if let Operation::Create = op {
            node_taint::admit(obj);
        }
    }
    if std::ptr::eq(res, &registry::PODS) {
        match op {
            Operation::Create => {
                limit_ranger::admit(api, ns, obj);
                service_account::admit(api, ns, obj).map_err(|why| forbidden(res, obj, &why))?;
                priority::admit_create(api, obj).map_err(|why| forbidden(res, obj, &why))?;
            }
            Operation::Update { old } => priority::keep_on_update(obj, old),
        }
        toleration_seconds::admit(obj);
    }
    let creating = matches!(op, Operation::Create);
    if std::ptr::eq(res, &registry::PERSISTENTVOLUMECLAIMS) && creating {
        storage::default_class_for(api, obj);
    }
    let protected = std::ptr::eq(res, &registry::PERSISTENTVOLUMECLAIMS)
        || std::ptr::eq(res, &registry::PERSISTENTVOLUMES);
    if protected && creating {
        storage::protect(res, obj);
    }
    if std::ptr::eq(res, &registry::PODS) && creating {
        runtime_class::admit(api, obj).map_err(|why| forbidden(res, obj, &why))?;
    }
    if std::ptr::eq(res, &registry::INGRESSES) && creating {
        default_ingress_class::admit(api, obj);
    }
    if std::ptr::eq(res, &registry::PRIORITYCLASSES) {
        let creating = matches!(op, Operation::Create);
        priority::admit_class(api, obj, creating).map_err(|why| forbidden(res, obj, &why))?;
    }
    Ok(())
}

/// Run the validating plugins on `obj`, a valid write of kind `res` in namespace `ns` about to be
/// stored; a dry run is judged but changes nothing.
pub fn validate(
    api: &dyn Client,
    res: &'static ResourceDef,
    ns: &str,
    op: Operation,
    obj: &Value,
    dry_run: bool,
) -> ApiResult<()> {
    if std::ptr::eq(res, &registry::PODS) && matches!(op, Operation::Create) {
        limit_ranger::validate(api, ns, obj).map_err(|why| forbidden(res, obj, &why))?;
        runtime_class::validate(api, obj).map_err(|why| forbidden(res, obj, &why))?;
    }
    let creating = matches!(op, Operation::Create);
    if std::ptr::eq(res, &registry::CERTIFICATESIGNINGREQUESTS) && creating {
        certificate_subject::validate(obj).map_err(|why| forbidden(res, obj, &why))?;
    }
    resource_quota::validate(api, res, ns, op, obj, dry_run)
}

/// `admission.NewForbidden`. Plugins run before a generated name is chosen, so the answer names
/// the object by its name, else its generateName, else "Unknown" (`extractResourceName`).
fn forbidden(res: &ResourceDef, obj: &Value, why: &str) -> ApiError {
    let name = match (meta::name(obj), meta::str_field(obj, "generateName")) {
        ("", "") => "Unknown",
        ("", prefix) => prefix,
        (name, _) => name,
    };
    ApiError::forbidden(res, name, why)
}

/// The name of the default among `classes` (`GetDefaultClass`, `getDefaultClass`): of several
/// marked default, the newest, then the lower name on a tie.
fn newest_default<'a>(
    classes: impl Iterator<Item = &'a Value>,
    is_default: impl Fn(&Value) -> bool,
) -> Option<String> {
    let created = |c: &Value| {
        c["metadata"]["creationTimestamp"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    classes
        .filter(|c| is_default(c))
        .max_by(|a, b| {
            created(a)
                .cmp(&created(b))
                .then_with(|| meta::name(b).cmp(meta::name(a)))
        })
        .map(|c| meta::name(c).to_string())
}
