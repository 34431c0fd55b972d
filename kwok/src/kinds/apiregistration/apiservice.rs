//! APIServices (kube-aggregator `pkg/registry/apiservice/strategy.go`): which API server serves
//! each group version. This server serves every group itself, so its APIServices are local: the
//! built-in ones made at start (`autoregister`, labelled `onstart`), one per version a
//! CustomResourceDefinition serves (`crdregistration`, labelled `true`, see
//! `controllers::apiservice_registration`), and any a user creates. Nothing is proxied: an
//! APIService naming a Service is stored and never becomes available.

use chrono::{DateTime, Utc};
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::error::FieldError;
use crate::meta::{keep, reset_meta_for_status};
use crate::printers::{apiregistration as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, SubresourceDef, FULL_VERBS};
use crate::validation::apiregistration as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "apiregistration.k8s.io",
    version: "v1",
    kind: "APIService",
    plural: "apiservices",
    singular: "apiservice",
    namespaced: false,
    short_names: &[],
    categories: &["api-extensions"],
    verbs: FULL_VERBS,
    subresources: &SUBRESOURCES,
    strategy: &ApiService,
};

static SUBRESOURCES: [SubresourceDef; 1] = [status("APIService")];

/// `AutoRegisterManagedLabel` and its two values: synced once at start, or kept in sync.
pub const MANAGED_LABEL: &str = "kube-aggregator.kubernetes.io/automanaged";
pub const ON_START: &str = "onstart";
pub const CONTINUOUSLY: &str = "true";

/// `DefaultGenericAPIServicePriorities` with kube-apiserver's overrides, for the group versions
/// this server serves: (group, version, groupPriorityMinimum, versionPriority).
const PRIORITIES: &[(&str, &str, i64, i64)] = &[
    ("", "v1", 18000, 1),
    ("apps", "v1", 17800, 15),
    ("events.k8s.io", "v1", 17750, 15),
    ("authentication.k8s.io", "v1", 17700, 15),
    ("authorization.k8s.io", "v1", 17600, 15),
    ("autoscaling", "v2", 17500, 30),
    ("autoscaling", "v1", 17500, 15),
    ("batch", "v1", 17400, 15),
    ("certificates.k8s.io", "v1", 17300, 15),
    ("networking.k8s.io", "v1", 17200, 15),
    ("policy", "v1", 17100, 15),
    ("rbac.authorization.k8s.io", "v1", 17000, 15),
    ("storage.k8s.io", "v1", 16800, 15),
    ("apiextensions.k8s.io", "v1", 16700, 15),
    ("scheduling.k8s.io", "v1", 16600, 15),
    ("coordination.k8s.io", "v1", 16500, 15),
    ("discovery.k8s.io", "v1", 16200, 15),
];

/// The priorities `crdregistration` gives a custom resource's group version.
const CUSTOM_PRIORITIES: (i64, i64) = (1000, 100);

/// A local APIService for `group`/`version` (`makeAPIService`), labelled `managed`.
pub fn local(group: &str, version: &str, managed: &str) -> Option<Value> {
    let (group_priority, version_priority) = if managed == CONTINUOUSLY {
        CUSTOM_PRIORITIES
    } else {
        PRIORITIES
            .iter()
            .find(|(g, v, _, _)| *g == group && *v == version)
            .map(|(_, _, g, v)| (*g, *v))?
    };
    Some(json!({
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": format!("{version}.{group}"), "labels": {MANAGED_LABEL: managed}},
        "spec": {"group": group, "version": version,
            "groupPriorityMinimum": group_priority, "versionPriority": version_priority},
    }))
}

/// The built-in APIServices the API server registers at start: the core group's, then one per
/// served group version (apiregistration.k8s.io's own has none: the aggregator serves it).
pub fn built_in(groups: &'static [(&'static str, &'static str)]) -> impl Iterator<Item = Value> {
    groups
        .iter()
        .copied()
        .chain([("", "v1")])
        .filter_map(|(group, version)| local(group, version, ON_START))
}

/// `NewLocalAvailableAPIServiceCondition`.
pub fn local_available() -> Value {
    json!({"type": "Available", "status": "True", "lastTransitionTime": crate::meta::now(),
        "reason": "Local", "message": "Local APIServices are always available"})
}

#[derive(Debug)]
pub struct ApiService;

crate::kinds::decodes_as!(ApiService, k8s::APIService);

impl Strategy for ApiService {
    /// `apiServerStrategy.GetResetFields`, `apiServerStatusStrategy.GetResetFields`.
    fn reset_fields(&self, subresource: &str) -> &'static [&'static str] {
        crate::resource::status_resets_metadata(subresource)
    }

    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::apiregistration_v1::API_SERVICE)
    }

    /// `SetDefaults_ServiceReference`: port 443.
    fn default(&self, obj: &mut Map<String, Value>) {
        if let Some(Value::Object(service)) =
            obj.get_mut("spec").and_then(|spec| spec.get_mut("service"))
        {
            service.entry("port").or_insert(json!(443));
        }
    }

    /// `PrepareForCreate`: a fresh status; a local APIService is available from the start.
    fn prepare_for_create(&self, obj: &mut Value) {
        let local = obj["spec"]["service"].is_null();
        obj["status"] = if local {
            json!({"conditions": [local_available()]})
        } else {
            json!({})
        };
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::api_service(obj)
    }

    /// `PrepareForUpdate`: the status is the status subresource's.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "status");
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::api_service_update(new, old)
    }

    /// `apiServiceStatusStrategy.PrepareForUpdate`: the spec and the metadata stay.
    fn prepare_for_status_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "spec");
        reset_meta_for_status(new, old);
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::api_service_status_update(new, old)
    }

    fn allow_unconditional_update(&self) -> bool {
        false
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::API_SERVICE
    }

    fn columns(&self) -> &'static [Column] {
        printer::API_SERVICE_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::api_service_cells(obj, now)
    }
}
