//! ServiceAccounts (`pkg/registry/core/serviceaccount/strategy.go`, `storage/storage.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1 as k8s;
use serde_json::Value;

use crate::error::FieldError;
use crate::printers::{core as printer, Column};
use crate::resource::Strategy;
use crate::resource::{ResourceDef, SubresourceDef, FULL_VERBS};
use crate::validation::{core as validation, meta};

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "",
    version: "v1",
    kind: "ServiceAccount",
    plural: "serviceaccounts",
    singular: "serviceaccount",
    namespaced: true,
    short_names: &["sa"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &[SubresourceDef {
        name: "token",
        kind: "TokenRequest",
        group: "authentication.k8s.io",
        version: "v1",
        verbs: &["create"],
        body: Some(&crate::kinds::authorization::TOKEN_REQUEST),
    }],
    strategy: &ServiceAccount,
};

#[derive(Debug)]
pub struct ServiceAccount;

crate::kinds::decodes_as!(ServiceAccount, k8s::ServiceAccount);

impl Strategy for ServiceAccount {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::core_v1::SERVICE_ACCOUNT)
    }

    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        enforce_mountable_secrets_warning(obj, None)
    }

    fn warnings_on_update(&self, new: &Value, old: &Value) -> Vec<String> {
        enforce_mountable_secrets_warning(new, Some(old))
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::service_account(obj)
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        meta::object_meta_update(new, old, true)
    }

    fn returns_deleted_object(&self) -> bool {
        true
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::SERVICE_ACCOUNT
    }

    fn columns(&self) -> &'static [Column] {
        printer::SERVICEACCOUNT_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::serviceaccount_cells(obj, now)
    }
}

const ENFORCE_MOUNTABLE_SECRETS: &str = "kubernetes.io/enforce-mountable-secrets";

/// `warnIfHasEnforceMountableSecretsAnnotation`: the annotation is deprecated; an update that
/// keeps it is not warned again.
fn enforce_mountable_secrets_warning(sa: &Value, old: Option<&Value>) -> Vec<String> {
    let annotated = |obj: &Value| crate::meta::annotation(obj, ENFORCE_MOUNTABLE_SECRETS).is_some();
    if old.is_some_and(annotated) || !annotated(sa) {
        return Vec::new();
    }
    vec![format!(
        "metadata.annotations[{ENFORCE_MOUNTABLE_SECRETS}]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets"
    )]
}
