//! CronJobs (`pkg/registry/batch/cronjob/strategy.go`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::batch::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::error::FieldError;
use crate::meta::{first_generation, keep_status_bump_generation_on_spec};
use crate::printers::{batch as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, FULL_VERBS};
use crate::validation::batch as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "batch",
    version: "v1",
    kind: "CronJob",
    plural: "cronjobs",
    singular: "cronjob",
    namespaced: true,
    short_names: &["cj"],
    categories: &["all"],
    verbs: FULL_VERBS,
    subresources: &[status("CronJob")],
    strategy: &CronJob,
};

/// The annotation a scheduled job carries: its scheduled time, RFC 3339 in the CronJob's zone.
pub const SCHEDULED_TIMESTAMP_ANNOTATION: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";

#[derive(Debug)]
pub struct CronJob;

crate::kinds::decodes_as!(CronJob, k8s::CronJob);

impl Strategy for CronJob {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::batch_v1::CRON_JOB)
    }

    fn default(&self, obj: &mut Map<String, Value>) {
        crate::defaults::batch::cron_job(obj);
    }

    /// An empty status and generation 1.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({});
        first_generation(obj);
    }

    /// `ValidateCronJobCreate`.
    fn warnings_on_create(&self, obj: &Value) -> Vec<String> {
        crate::warnings::job::cron_on_create(obj)
    }

    fn warnings_on_update(&self, new: &Value, old: &Value) -> Vec<String> {
        crate::warnings::job::cron_on_update(new, old)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::validate_cron_job(obj, None)
    }

    /// The status stays; a spec change bumps the generation.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep_status_bump_generation_on_spec(new, old);
    }

    /// `ValidateCronJobUpdate`.
    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::validate_cron_job(new, Some(old))
    }

    fn merge_schema(&self) -> &'static crate::patch::strategic::Schema {
        &crate::patch::strategic::CRON_JOB
    }

    fn columns(&self) -> &'static [Column] {
        printer::CRON_JOB_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::cron_job_cells(obj, now)
    }
}
