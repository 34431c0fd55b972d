//! `object` checks: query the cluster (in process on the embedded one, else with kubectl) and
//! partially match the objects, polling until they match (controllers need a moment) or the
//! timeout passes.

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::outcome::Outcome;
use crate::cluster::{ObjectQuery, Target};
use crate::scenario::check::ObjectCheck;

/// Time between samples; also the spacing of `stable` samples.
const SAMPLE_INTERVAL: Duration = Duration::from_millis(200);

/// On the embedded cluster a mismatch that outlasts this much settled time is final: its
/// controllers report when they have nothing left to do, so waiting out the full timeout (up
/// to a minute for a missing Deployment) would change nothing.
const SETTLED_GRACE: Duration = Duration::from_secs(2);

/// On an external cluster "settled" only means the pod and node lists stopped changing, which
/// a slow controller can also show; so a mismatch must outlast a longer quiet period there.
const EXTERNAL_SETTLED_GRACE: Duration = Duration::from_secs(3);

/// The kubectl resource argument, qualified with the API group when one is given
/// (`deployments` + `apps/v1` → `deployments.v1.apps`, as kubectl's resource builder accepts).
pub fn resource_arg(resource: &str, api_version: Option<&str>) -> String {
    match api_version.and_then(|version| version.split_once('/')) {
        Some((group, version)) if !resource.contains('.') => {
            format!("{resource}.{version}.{group}")
        }
        _ => resource.to_string(),
    }
}

/// What the check's query selects; `None` in the list means the named object does not exist.
fn describe(spec: &ObjectCheck) -> String {
    let mut text = spec.resource.clone();
    if let Some(name) = &spec.name {
        text = format!("{text}/{name}");
    }
    if let Some(namespace) = &spec.namespace {
        text = format!("{text} in namespace {namespace}");
    }
    if let Some(selector) = &spec.selector {
        text = format!("{text} with labels {selector}");
    }
    if let Some(selector) = &spec.field_selector {
        text = format!("{text} with fields {selector}");
    }
    text
}

async fn fetch(target: &Target, spec: &ObjectCheck) -> Result<Vec<Value>, String> {
    let resource = resource_arg(&spec.resource, spec.api_version.as_deref());
    let query = ObjectQuery {
        resource: &resource,
        name: spec.name.as_deref(),
        namespace: spec.namespace.as_deref(),
        label_selector: spec.selector.as_deref(),
        field_selector: spec.field_selector.as_deref(),
    };
    target.objects(&query).await
}

fn object_name(object: &Value) -> String {
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("?");
    match object
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
    {
        Some(namespace) => format!("{namespace}/{name}"),
        None => name.to_string(),
    }
}

/// One sample: Ok(()) when the objects satisfy the check, otherwise why not.
pub fn evaluate(spec: &ObjectCheck, objects: &[Value]) -> Result<(), String> {
    let what = describe(spec);
    if spec.absent {
        return match objects {
            [] => Ok(()),
            found => Err(format!(
                "{what} should not exist, found {}",
                found.iter().map(object_name).collect::<Vec<_>>().join(", ")
            )),
        };
    }
    if let Some(count) = spec.count {
        if objects.len() != count {
            let names: Vec<String> = objects.iter().map(object_name).collect();
            return Err(format!(
                "expected {count} {what}, found {}{}",
                objects.len(),
                if names.is_empty() {
                    String::new()
                } else {
                    format!(": {}", names.join(", "))
                }
            ));
        }
    } else if objects.is_empty() {
        return Err(format!("{what} not found"));
    }
    if let Some(expected) = &spec.expect {
        // Every object that differs is named: a learner fixing the first would otherwise learn
        // of the next one only at the next run.
        let differ: Vec<String> = objects
            .iter()
            .filter_map(|object| {
                graders::partial::matches(expected, object)
                    .err()
                    .map(|reason| format!("{}: {reason}", object_name(object)))
            })
            .collect();
        match differ.as_slice() {
            [] => {}
            [only] if objects.len() == 1 => return Err(only.clone()),
            _ => {
                let mut lines: Vec<String> = differ
                    .iter()
                    .take(LISTED)
                    .map(|line| format!("  {line}"))
                    .collect();
                if differ.len() > LISTED {
                    lines.push(format!("  … and {} more", differ.len() - LISTED));
                }
                return Err(format!(
                    "{} of {} {} differ:\n{}",
                    differ.len(),
                    objects.len(),
                    spec.resource,
                    lines.join("\n")
                ));
            }
        }
    }
    Ok(())
}

/// How many differing objects a message lists.
const LISTED: usize = 10;

pub async fn check_object(target: &Target, spec: &ObjectCheck) -> Outcome {
    let deadline = Instant::now() + spec.timeout.0;
    let needed = spec.stable.unwrap_or(1).max(1);
    let grace = if target.is_embedded() {
        SETTLED_GRACE
    } else {
        EXTERNAL_SETTLED_GRACE
    };
    let mut streak = 0;
    loop {
        let sample = fetch(target, spec).await;
        let verdict = match &sample {
            Ok(objects) => evaluate(spec, objects),
            Err(error) => Err(error.clone()),
        };
        match verdict {
            Ok(()) => {
                streak += 1;
                if streak >= needed {
                    return Outcome::pass(format!("{} matches", describe(spec)));
                }
            }
            Err(reason) => {
                streak = 0;
                if Instant::now() >= deadline || target.quiet_for().await >= grace {
                    let actual = sample
                        .map(|objects| serde_json::to_string_pretty(&objects).unwrap_or_default())
                        .unwrap_or_default();
                    return Outcome::fail(reason).with_actual(actual);
                }
            }
        }
        tokio::time::sleep(SAMPLE_INTERVAL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(extra: Value) -> ObjectCheck {
        let mut base = json!({"resource": "pods", "namespace": "gpu-drv"});
        if let (Some(base), Some(extra)) = (base.as_object_mut(), extra.as_object()) {
            base.extend(extra.clone());
        }
        serde_json::from_value(base).expect("valid object check")
    }

    #[test]
    fn count_and_absent() {
        let pod = json!({"metadata": {"name": "a", "namespace": "gpu-drv"}});
        assert!(evaluate(&spec(json!({"count": 1})), std::slice::from_ref(&pod)).is_ok());
        assert_eq!(
            evaluate(&spec(json!({"count": 2})), std::slice::from_ref(&pod)),
            Err("expected 2 pods in namespace gpu-drv, found 1: gpu-drv/a".to_string())
        );
        assert_eq!(
            evaluate(&spec(json!({"name": "a", "absent": true})), &[pod]),
            Err("pods/a in namespace gpu-drv should not exist, found gpu-drv/a".to_string())
        );
        assert!(evaluate(&spec(json!({"name": "a", "absent": true})), &[]).is_ok());
        assert_eq!(
            evaluate(&spec(json!({"name": "b"})), &[]),
            Err("pods/b in namespace gpu-drv not found".to_string())
        );
    }

    #[test]
    fn every_differing_object_is_named() {
        let node = |name: &str, gpus: &str| json!({"metadata": {"name": name}, "status": {"capacity": {"nvidia.com/gpu": gpus}}});
        let check: ObjectCheck = serde_json::from_value(json!({
            "resource": "nodes",
            "selector": "gpu=yes",
            "expect": {"status": {"capacity": {"nvidia.com/gpu": {"$quantity": 4}}}}
        }))
        .expect("valid object check");
        let nodes = [node("a", "4"), node("b", "1"), node("c", "2")];
        assert_eq!(
            evaluate(&check, &nodes),
            Err("2 of 3 nodes differ:\n  b: status.capacity[\"nvidia.com/gpu\"]: expected 4, got 1\n  c: status.capacity[\"nvidia.com/gpu\"]: expected 4, got 2".to_string())
        );
        assert_eq!(
            evaluate(&check, &nodes[1..2]),
            Err("b: status.capacity[\"nvidia.com/gpu\"]: expected 4, got 1".to_string())
        );
        assert!(evaluate(&check, &nodes[..1]).is_ok());
    }

    #[test]
    fn qualified_resources() {
        assert_eq!(
            resource_arg("deployments", Some("apps/v1")),
            "deployments.v1.apps"
        );
        assert_eq!(resource_arg("pods", Some("v1")), "pods");
        assert_eq!(resource_arg("nodes", None), "nodes");
    }
}
