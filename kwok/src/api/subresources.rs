//! Subresources with their own server logic: pod binding and eviction, deployment and replica
//! set scale, namespace finalize.

use serde_json::{json, Value};

use super::{meta, Api, DeleteOptions, WriteOptions};
use crate::error::{go_quote, ApiError, ApiResult};
use crate::registry;
use crate::resource::{ResourceDef, ScalePaths};
use crate::resource_names::ResourceNames;
use crate::selectors::LabelSelector;

/// `POST pods/<name>/binding` (`pkg/registry/core/pod/storage/storage.go` BindingREST).
pub fn bind(
    api: &Api,
    ns: &str,
    name: &str,
    binding: &Value,
    opts: &WriteOptions,
) -> ApiResult<()> {
    let body_name = binding["metadata"]["name"].as_str().unwrap_or("");
    if !body_name.is_empty() && body_name != name {
        return Err(ApiError::bad_request(
            "name in URL does not match name in Binding object",
        ));
    }
    let node = binding["target"]["name"].as_str().unwrap_or("");
    if node.is_empty() {
        return Err(ApiError::invalid_kind(
            "Binding",
            "Binding",
            "",
            name,
            &[crate::error::FieldError::required("target.name", "")],
        ));
    }
    let pod = api.get(&registry::PODS, ns, name)?;
    // `assignPod`: what stops the update is a conflict on `pods/binding`.
    let refused = |why: String| ApiError::conflict_on("pods/binding", name, &why);
    if meta::is_deleting(&pod.value) {
        return Err(refused(format!(
            "pod {name} is being deleted, cannot be assigned to a host"
        )));
    }
    let current = pod.value["spec"]["nodeName"].as_str().unwrap_or("");
    if !current.is_empty() {
        return Err(refused(format!(
            "pod {name} is already assigned to node {}",
            go_quote(current)
        )));
    }
    if pod.value["spec"]["schedulingGates"]
        .as_array()
        .is_some_and(|gates| !gates.is_empty())
    {
        return Err(refused(format!(
            "pod {name} has non-empty .spec.schedulingGates"
        )));
    }
    let mut updated = pod.value.clone();
    updated["spec"]["nodeName"] = json!(node);
    set_condition(
        &mut updated,
        json!({"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": meta::now()}),
    );
    if opts.dry_run {
        return Ok(());
    }
    api.store()
        .update(&registry::PODS, updated, Some(pod.resource_version()))
        .map_err(|_| ApiError::stale(&registry::PODS, name))?;
    Ok(())
}

/// Put a pod condition in place of the one of the same type (keeping lastTransitionTime when
/// the status does not change).
pub fn set_condition(pod: &mut Value, cond: Value) {
    let Some(status) = pod.get_mut("status").and_then(Value::as_object_mut) else {
        pod["status"] = json!({"conditions": [cond]});
        return;
    };
    let conds = status.entry("conditions").or_insert_with(|| json!([]));
    let Some(list) = conds.as_array_mut() else {
        *conds = json!([cond]);
        return;
    };
    if let Some(existing) = list.iter_mut().find(|c| c["type"] == cond["type"]) {
        let mut cond = cond;
        if existing["status"] == cond["status"] && !existing["lastTransitionTime"].is_null() {
            cond["lastTransitionTime"] = existing["lastTransitionTime"].clone();
        }
        *existing = cond;
    } else {
        list.push(cond);
    }
}

/// `pod` marked `DisruptionTarget=True` for `reason`, as a controller marks a pod it is about to
/// delete (`apipod.UpdatePodCondition` in the scheduler's preemption and the taint manager).
pub fn disruption_target(pod: &Value, reason: &str, message: &str) -> Value {
    let mut marked = pod.clone();
    set_condition(
        &mut marked,
        json!({
            "type": "DisruptionTarget", "status": "True", "lastProbeTime": null,
            "lastTransitionTime": meta::now(), "reason": reason, "message": message,
        }),
    );
    marked
}

/// `POST pods/<name>/eviction` (`pkg/registry/core/pod/storage/eviction.go`).
pub fn evict(api: &Api, ns: &str, name: &str, eviction: &Value) -> ApiResult<()> {
    let body_name = eviction["metadata"]["name"].as_str().unwrap_or("");
    if !body_name.is_empty() && body_name != name {
        return Err(ApiError::bad_request(
            "name in URL does not match name in Eviction object",
        ));
    }
    let mut delete = DeleteOptions::default();
    if let Some(opts) = eviction.get("deleteOptions") {
        delete.grace_period_seconds = opts["gracePeriodSeconds"].as_i64();
        delete.dry_run = opts["dryRun"].as_array().is_some_and(|d| !d.is_empty());
        delete.precondition_uid = opts["preconditions"]["uid"].as_str().map(String::from);
        delete.precondition_rv = opts["preconditions"]["resourceVersion"]
            .as_str()
            .map(String::from);
    }
    for _ in 0..8 {
        let pod = api.get(&registry::PODS, ns, name)?;
        let phase = pod.value["status"]["phase"].as_str().unwrap_or("");
        // canIgnorePDB: terminal, pending or already terminating pods go at once.
        if matches!(phase, "Succeeded" | "Failed" | "Pending") || meta::is_deleting(&pod.value) {
            api.delete(&registry::PODS, ns, name, &delete)?;
            return Ok(());
        }
        let pdbs: Vec<_> = api
            .store()
            .list(&registry::PODDISRUPTIONBUDGETS, Some(ns))
            .0
            .into_iter()
            .filter(|p| {
                LabelSelector::from_api(&p.value["spec"]["selector"])
                    .map(|s| s.matches(meta::labels(&pod.value)))
                    .unwrap_or(false)
            })
            .collect();
        if pdbs.len() > 1 {
            return Err(ApiError::new(
                500,
                "InternalError",
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            ));
        }
        let Some(pdb) = pdbs.into_iter().next() else {
            add_disruption_target(api, ns, name, &delete)?;
            api.delete(&registry::PODS, ns, name, &delete)?;
            return Ok(());
        };
        let pdb_name = pdb.name().to_string();
        let status = &pdb.value["status"];
        let current = status["currentHealthy"].as_i64().unwrap_or(0);
        let desired = status["desiredHealthy"].as_i64().unwrap_or(0);
        if !crate::podutil::is_pod_ready(&pod.value) {
            let always =
                pdb.value["spec"]["unhealthyPodEvictionPolicy"].as_str() == Some("AlwaysAllow");
            if always || (current >= desired && desired > 0) {
                add_disruption_target(api, ns, name, &delete)?;
                api.delete(&registry::PODS, ns, name, &delete)?;
                return Ok(());
            }
        }
        let generation = pdb.value["metadata"]["generation"].as_i64().unwrap_or(0);
        let observed = status["observedGeneration"].as_i64().unwrap_or(0);
        if observed < generation {
            return Err(too_many(format!(
                "The disruption budget {pdb_name} is still being processed by the server."
            ))
            .with_details(json!({
                "causes": [{"reason": "DisruptionBudget", "message": format!("The disruption budget {pdb_name} is still being processed by the server.")}],
                "retryAfterSeconds": 10
            })));
        }
        let allowed = status["disruptionsAllowed"].as_i64().unwrap_or(0);
        if allowed < 0 {
            return Err(ApiError::forbidden(
                &registry::PODDISRUPTIONBUDGETS,
                &pdb_name,
                "pdb disruptions allowed is negative",
            ));
        }
        if allowed == 0 {
            return Err(too_many("Cannot evict pod as it would violate the pod's disruption budget.".into())
                .with_details(json!({"causes": [{
                    "reason": "DisruptionBudget",
                    "message": format!("The disruption budget {pdb_name} needs {desired} healthy pods and has {current} currently"),
                }]})));
        }
        if delete.dry_run {
            return Ok(());
        }
        let mut updated = pdb.value.clone();
        updated["status"]["disruptionsAllowed"] = json!(allowed - 1);
        let disrupted = updated["status"]
            .as_object_mut()
            .map(|s| s.entry("disruptedPods").or_insert_with(|| json!({})));
        if let Some(d) = disrupted.and_then(Value::as_object_mut) {
            d.insert(name.to_string(), json!(meta::now()));
        }
        if allowed - 1 == 0 {
            set_pdb_condition(&mut updated, "False", "InsufficientPods");
        }
        match api.store().update(
            &registry::PODDISRUPTIONBUDGETS,
            updated,
            Some(pdb.resource_version()),
        ) {
            Ok(_) => {}
            // The budget changed under us: look again (the apiserver retries the same way).
            Err(_) => continue,
        }
        add_disruption_target(api, ns, name, &delete)?;
        api.delete(&registry::PODS, ns, name, &delete)?;
        return Ok(());
    }
    Err(too_many(
        "Cannot evict pod as it would violate the pod's disruption budget.".into(),
    ))
}

fn too_many(message: String) -> ApiError {
    ApiError::too_many_requests(message)
}

fn set_pdb_condition(pdb: &mut Value, status: &str, reason: &str) {
    let observed = pdb["status"]["observedGeneration"].clone();
    let cond = json!({"type": "DisruptionAllowed", "status": status, "reason": reason, "message": "", "observedGeneration": observed, "lastTransitionTime": meta::now()});
    let list = pdb["status"]
        .as_object_mut()
        .map(|s| s.entry("conditions").or_insert_with(|| json!([])));
    if let Some(list) = list.and_then(Value::as_array_mut) {
        if let Some(c) = list.iter_mut().find(|c| c["type"] == "DisruptionAllowed") {
            if c["status"] != status {
                *c = cond;
            } else {
                c["reason"] = json!(reason);
            }
        } else {
            list.push(cond);
        }
    }
}

/// The DisruptionTarget condition the eviction writes before deleting (PodDisruptionConditions).
fn add_disruption_target(api: &Api, ns: &str, name: &str, delete: &DeleteOptions) -> ApiResult<()> {
    if delete.dry_run {
        return Ok(());
    }
    let pod = api.get(&registry::PODS, ns, name)?;
    let mut updated = pod.value.clone();
    set_condition(
        &mut updated,
        json!({"type": "DisruptionTarget", "status": "True", "lastProbeTime": null, "lastTransitionTime": meta::now(), "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting"}),
    );
    let _ = api
        .store()
        .update(&registry::PODS, updated, Some(pod.resource_version()));
    Ok(())
}

/// `GET <workload>/scale` as an autoscaling/v1 Scale.
pub fn get_scale(api: &Api, res: &'static ResourceDef, ns: &str, name: &str) -> ApiResult<Value> {
    let obj = api.get(res, ns, name)?;
    if let Some(paths) = res.strategy.scale_paths() {
        let (scale, found) = custom_scale(&obj.value, paths)?;
        if !found {
            return Err(ApiError::internal(format!(
                "the spec replicas field {} does not exist",
                go_quote(paths.spec_replicas)
            )));
        }
        return Ok(scale);
    }
    let v = &obj.value;
    let selector = crate::kinds::core::replicationcontroller::label_selector(res, v);
    let selector = LabelSelector::from_api(&selector)
        .map(|s| s.to_string())
        .unwrap_or_default();
    Ok(json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": name, "namespace": ns, "uid": v["metadata"]["uid"],
            "resourceVersion": v["metadata"]["resourceVersion"],
            "creationTimestamp": v["metadata"]["creationTimestamp"]
        },
        // `ScaleSpec.replicas` and `ScaleStatus.selector` are omitempty, `ScaleStatus.replicas`
        // is not.
        "spec": omit_zero("replicas", v["spec"]["replicas"].as_i64().unwrap_or(1)),
        "status": {"replicas": v["status"]["replicas"].as_i64().unwrap_or(0)},
    }))
    .map(|mut scale| {
        if !selector.is_empty() {
            scale["status"]["selector"] = json!(selector);
        }
        scale
    })
}

/// The replicas of the Scale an update starts from when a custom resource has none
/// (`invalidSpecReplicas`): a patch that leaves them so is refused.
const UNSET_REPLICAS: i64 = i32::MIN as i64;

/// The Scale an update or patch of `<resource>/scale` starts from: as read, except that a custom
/// resource without spec replicas starts from [`UNSET_REPLICAS`] (`scaleUpdatedObjectInfo`).
pub fn scale_for_update(
    api: &Api,
    res: &'static ResourceDef,
    ns: &str,
    name: &str,
) -> ApiResult<Value> {
    let Some(paths) = res.strategy.scale_paths() else {
        return get_scale(api, res, ns, name);
    };
    let obj = api.get(res, ns, name)?;
    let (mut scale, found) = custom_scale(&obj.value, paths)?;
    if !found {
        scale["spec"] = json!({ "replicas": UNSET_REPLICAS });
    }
    Ok(scale)
}

/// apiextensions-apiserver's `scaleFromCustomResource`: the Scale a custom resource's paths
/// describe, and whether its spec replicas are there (missing ones read as 0).
fn custom_scale(cr: &Value, paths: &ScalePaths) -> ApiResult<(Value, bool)> {
    let spec = nested_int(cr, paths.spec_replicas)?;
    let status = nested_int(cr, paths.status_replicas)?.unwrap_or(0);
    let mut scale = json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": cr["metadata"]["name"], "namespace": cr["metadata"]["namespace"],
            "uid": cr["metadata"]["uid"],
            "resourceVersion": cr["metadata"]["resourceVersion"],
            "creationTimestamp": cr["metadata"]["creationTimestamp"]
        },
        "spec": omit_zero("replicas", spec.unwrap_or(0)),
        "status": {"replicas": status},
    });
    if cr["metadata"]["namespace"]
        .as_str()
        .unwrap_or_default()
        .is_empty()
    {
        if let Some(m) = scale["metadata"].as_object_mut() {
            m.remove("namespace");
        }
    }
    if let Some(path) = paths.label_selector {
        let mut at = cr;
        for field in ScalePaths::fields(path) {
            at = &at[field];
        }
        match at {
            Value::String(s) if !s.is_empty() => scale["status"]["selector"] = json!(s),
            Value::Null | Value::String(_) => {}
            other => {
                return Err(ApiError::internal(format!(
                    "{path} accessor error: {} is of the type {}, expected string",
                    crate::gofmt::go_v(other),
                    crate::gofmt::go_type(other)
                )))
            }
        }
    }
    Ok((scale, spec.is_some()))
}

/// `unstructured.NestedInt64` at a JSON path: absent is `None`; another type is its accessor
/// error.
fn nested_int(obj: &Value, path: &str) -> ApiResult<Option<i64>> {
    let mut at = obj;
    for field in ScalePaths::fields(path) {
        match at.get(field) {
            Some(next) => at = next,
            None => return Ok(None),
        }
    }
    match at {
        Value::Null => Ok(None),
        v if v.as_i64().is_some() => Ok(v.as_i64()),
        other => Err(ApiError::internal(format!(
            "{path} accessor error: {} is of the type {}, expected int64",
            crate::gofmt::go_v(other),
            crate::gofmt::go_type(other)
        ))),
    }
}

/// Set the integer at a JSON path, making the objects on the way (`SetNestedField`).
fn set_nested(obj: &mut Value, path: &str, n: i64) {
    let mut at = obj;
    for field in ScalePaths::fields(path) {
        if !at.is_object() {
            *at = json!({});
        }
        at = &mut at[field];
    }
    *at = json!(n);
}

fn omit_zero(key: &str, n: i64) -> Value {
    if n == 0 {
        json!({})
    } else {
        json!({ key: n })
    }
}

/// `ValidateScale`: a Scale's replicas may not be negative.
fn check_replicas(name: &str, replicas: i64) -> ApiResult<()> {
    if replicas < 0 {
        return Err(ApiError::invalid_kind(
            "Scale.autoscaling",
            "Scale",
            "autoscaling",
            name,
            &[crate::error::FieldError::invalid(
                "spec.replicas",
                replicas.to_string(),
                "must be greater than or equal to 0",
            )],
        ));
    }
    Ok(())
}

/// A server-side apply to `<workload>/scale` (an autoscaling/v1 Scale): its applier owns the
/// replicas it sets, under the `scale` subresource, as the scale handler turns the Scale's
/// ownership into the parent's `spec.replicas`.
pub fn apply_scale(
    api: &Api,
    res: &'static ResourceDef,
    ns: &str,
    name: &str,
    body: &[u8],
    opts: &WriteOptions,
) -> ApiResult<Value> {
    let config = crate::patch::apply_configuration_of("autoscaling/v1", "Scale", body)?;
    let mut parent =
        json!({"apiVersion": res.api_version(), "kind": res.kind, "metadata": {"name": name}});
    if let Some(replicas) = config["spec"].get("replicas") {
        let n = replicas.as_i64().unwrap_or(0);
        check_replicas(name, n)?;
        set_nested(&mut parent, replicas_path(res), n);
    }
    let recorded = WriteOptions {
        ownership_recorded: true,
        ..opts.clone()
    };
    api.guaranteed_update(res, ns, name, None, &recorded, |old| {
        super::ownership::apply(res, Some("scale"), Some(&old.value), &parent, opts)
    })?;
    get_scale(api, res, ns, name)
}

pub fn set_scale(
    api: &Api,
    res: &'static ResourceDef,
    ns: &str,
    name: &str,
    scale: &Value,
    opts: &WriteOptions,
) -> ApiResult<Value> {
    // An omitted `replicas` is the Go zero value.
    let replicas = scale["spec"]["replicas"].as_i64().unwrap_or(0);
    if let (Some(paths), UNSET_REPLICAS) = (res.strategy.scale_paths(), replicas) {
        return Err(ApiError::bad_request(format!(
            "the spec replicas field {} cannot be empty",
            go_quote(paths.spec_replicas)
        )));
    }
    check_replicas(name, replicas)?;
    // `scaleUpdatedObjectInfo`: the Scale's resourceVersion, if any, is the precondition.
    let rv = meta::resource_version(scale).to_string();
    let recorded = WriteOptions {
        ownership_recorded: true,
        ..opts.clone()
    };
    let path = replicas_path(res);
    let fields = ScalePaths::fields(path);
    api.guaranteed_update(res, ns, name, None, &recorded, |old| {
        let mut updated = old.value.clone();
        set_nested(&mut updated, path, replicas);
        if !rv.is_empty() {
            updated["metadata"]["resourceVersion"] = json!(rv);
        }
        // The scale subresource's own field manager: its writer owns the replicas it set, and
        // takes them from their owners; with no owner, the scale handler records nothing.
        Ok(if crate::fieldmanager::anyone_owns(&old.value, &fields) {
            super::ownership::track(res, Some("scale"), Some(&old.value), updated, opts)
        } else {
            updated
        })
    })?;
    get_scale(api, res, ns, name)
}

/// Where the replicas a Scale sets go: a custom resource's `specReplicasPath`, or
/// `spec.replicas`.
fn replicas_path(res: &ResourceDef) -> &'static str {
    match res.strategy.scale_paths() {
        Some(paths) => paths.spec_replicas,
        None => ".spec.replicas",
    }
}

/// `PUT namespaces/<name>/finalize`: only `spec.finalizers` changes.
pub fn finalize_namespace(api: &Api, name: &str, body: &Value) -> ApiResult<crate::store::Stored> {
    let ns = api.get(&registry::NAMESPACES, "", name)?;
    let mut updated = ns.value.clone();
    updated["spec"]["finalizers"] = body["spec"]["finalizers"].clone();
    let empty = updated["spec"]["finalizers"]
        .as_array()
        .is_none_or(|a| a.is_empty());
    if empty && meta::is_deleting(&updated) && meta::finalizers(&updated).is_empty() {
        return api
            .store()
            .delete(&registry::NAMESPACES, "", name, Some(ns.resource_version()))
            .map_err(|_| ApiError::stale(&registry::NAMESPACES, name));
    }
    api.store()
        .update(&registry::NAMESPACES, updated, Some(ns.resource_version()))
        .map_err(|_| ApiError::stale(&registry::NAMESPACES, name))
}

#[cfg(test)]
mod tests {

    use super::*;

    fn pod(api: &Api, name: &str, spec: Value) {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": name, "namespace": "default"}, "spec": spec});
        api.create(&registry::PODS, "default", pod, &WriteOptions::default())
            .expect("pod");
    }

    fn bound(api: &Api, name: &str, node: &str) -> ApiResult<()> {
        let binding = json!({"metadata": {"name": name},
                             "target": {"kind": "Node", "name": node}});
        bind(api, "default", name, &binding, &WriteOptions::default())
    }

    /// `assignPod`: each refusal is a conflict on `pods/binding`.
    #[test]
    fn a_refused_binding_is_a_conflict_on_pods_binding() {
        let api = Api::bootstrapped();
        let container = json!([{"name": "c", "image": "busybox"}]);
        pod(&api, "p", json!({"containers": container}));
        bound(&api, "p", "node-a").expect("first binding");
        let error = bound(&api, "p", "node-b").expect_err("already bound");
        assert_eq!(error.code, 409);
        assert_eq!(
            error.message,
            r#"Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-a""#
        );
        assert_eq!(
            error.details,
            Some(json!({"name": "p", "kind": "pods/binding"}))
        );
        pod(
            &api,
            "gated",
            json!({"containers": container, "schedulingGates": [{"name": "example.com/wait"}]}),
        );
        let error = bound(&api, "gated", "node-a").expect_err("gated");
        assert_eq!(
            error.message,
            r#"Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates"#
        );
    }

    #[test]
    fn a_custom_scale_reads_and_writes_the_paths_its_definition_names() {
        let paths = ScalePaths {
            spec_replicas: ".spec.size.gpus",
            status_replicas: ".status.ready",
            label_selector: Some(".status.selector"),
        };
        let cr = json!({"metadata": {"name": "a100", "uid": "u", "resourceVersion": "7"},
                        "spec": {"size": {"gpus": 8}}, "status": {"ready": 5, "selector": "a=b"}});
        let (scale, found) = custom_scale(&cr, &paths).expect("scale");
        assert!(found);
        assert_eq!(scale["spec"], json!({"replicas": 8}));
        assert_eq!(scale["status"], json!({"replicas": 5, "selector": "a=b"}));
        assert!(
            scale["metadata"].get("namespace").is_none(),
            "cluster-scoped"
        );

        let bare = json!({"metadata": {"name": "x", "namespace": "ns"}, "spec": {}});
        let (scale, found) = custom_scale(&bare, &paths).expect("scale");
        assert!(!found);
        assert_eq!(scale["spec"], json!({}));
        assert_eq!(scale["status"], json!({"replicas": 0}));

        let mut grown = bare.clone();
        set_nested(&mut grown, paths.spec_replicas, 3);
        assert_eq!(grown["spec"], json!({"size": {"gpus": 3}}));

        let wrong = json!({"metadata": {"name": "x"}, "spec": {"size": {"gpus": "8"}}});
        let error = custom_scale(&wrong, &paths).expect_err("a string is no int64");
        assert_eq!(error.code, 500);
        assert!(error
            .message
            .contains("is of the type string, expected int64"));
    }
}
