//! `WarningsForJobSpec` (`pkg/api/job/warnings.go`), for Jobs and CronJobs' job templates.

use serde_json::Value;

use crate::validation::path::Path;

/// An Indexed Job this large may not be able to track its completed indexes.
const COMPLETIONS_SOFT_LIMIT: i64 = 100_000;
const PARALLELISM_SOFT_LIMIT: i64 = 10_000;

/// The warnings of the job spec at `path`.
pub fn spec(spec: &Value, path: &Path) -> Vec<String> {
    let mut warnings = Vec::new();
    if spec["completionMode"] == "Indexed" {
        let completions = spec["completions"].as_i64().unwrap_or(0);
        let parallelism = spec["parallelism"].as_i64().unwrap_or(0);
        if completions > COMPLETIONS_SOFT_LIMIT && parallelism > PARALLELISM_SOFT_LIMIT {
            warnings.push(format!("{}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail", path.as_str()));
        }
    }
    warnings.extend(super::pod::template(
        &spec["template"],
        &path.child("template"),
    ));
    warnings
}

/// The job strategy's `WarningsOnCreate`.
pub fn on_create(job: &Value) -> Vec<String> {
    let mut warnings: Vec<String> = super::pod::workload_name(job).into_iter().collect();
    warnings.extend(spec(&job["spec"], &Path::new("spec")));
    warnings
}

/// The job strategy's `WarningsOnUpdate`: the spec's warnings when the spec changed.
pub fn on_update(new: &Value, old: &Value) -> Vec<String> {
    if crate::meta::generation(new) == crate::meta::generation(old) {
        return Vec::new();
    }
    spec(&new["spec"], &Path::new("spec"))
}

/// The cron job strategy's `WarningsOnCreate`.
pub fn cron_on_create(cron: &Value) -> Vec<String> {
    let mut warnings: Vec<String> = super::pod::workload_name(cron).into_iter().collect();
    let path = Path::of(&["spec", "jobTemplate", "spec"]);
    warnings.extend(spec(&cron["spec"]["jobTemplate"]["spec"], &path));
    warnings
}

/// The cron job strategy's `WarningsOnUpdate`, which also names a time zone in the schedule
/// (at the path upstream gives it, `spec.spec.schedule`).
pub fn cron_on_update(new: &Value, old: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    if crate::meta::generation(new) != crate::meta::generation(old) {
        let path = Path::of(&["spec", "jobTemplate", "spec"]);
        warnings.extend(spec(&new["spec"]["jobTemplate"]["spec"], &path));
    }
    if new["spec"]["schedule"]
        .as_str()
        .is_some_and(|s| s.contains("TZ"))
    {
        warnings.push("cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details".into());
    }
    warnings
}
