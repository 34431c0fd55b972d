//! How many pods a budget expects (`getExpectedPodCount`, `getExpectedScale` and the scale
//! finders of `disruption.go`: the owners' replicas, or the selected pods for an integer
//! minAvailable).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::api::Api;
use crate::error::go_quote;
use crate::intstr::scaled_value;
use crate::meta;
use crate::registry;
use crate::resource::ResourceDef;
use crate::resource_names::ResourceNames;
use crate::store::Stored;

/// `schema.ParseGroupVersion` → (group, version).
pub(super) fn parse_group_version(gv: &str) -> Result<(&str, &str), String> {
    if gv.is_empty() || gv == "/" {
        return Ok(("", ""));
    }
    match gv.matches('/').count() {
        0 => Ok(("", gv)),
        1 => Ok(gv.split_once('/').unwrap_or(("", gv))),
        _ => Err(format!("unexpected GroupVersion string: {gv}")),
    }
}

/// `verifyGroupKind`.
pub(super) fn is_group_kind(owner: &Value, kind: &str, groups: &[&str]) -> Result<bool, String> {
    let (group, _) = parse_group_version(owner["apiVersion"].as_str().unwrap_or(""))?;
    Ok(owner["kind"] == kind && groups.contains(&group))
}

pub(super) fn replicas(obj: &Value) -> i64 {
    obj["spec"]["replicas"].as_i64().unwrap_or(1)
}

/// The owner named by `r` in `ns`, if it exists with that uid.
pub(super) fn lookup(api: &Api, res: &'static ResourceDef, ns: &str, r: &Value) -> Option<Stored> {
    let o = api.store().get(res, ns, r["name"].as_str().unwrap_or(""))?;
    (meta::uid(&o.value) == r["uid"].as_str().unwrap_or("")).then_some(o)
}

type Found = Result<Option<(String, i64)>, String>;

/// `getPodDeployment`: a ReplicaSet owned by a Deployment counts the Deployment's replicas.
pub(super) fn deployment_of(api: &Api, owner: &Value, ns: &str) -> Found {
    if !is_group_kind(owner, "ReplicaSet", &["apps", "extensions"])? {
        return Ok(None);
    }
    let Some(rs) = lookup(api, &registry::REPLICASETS, ns, owner) else {
        return Ok(None);
    };
    let Some(rs_owner) = meta::controller_ref(&rs.value) else {
        return Ok(None);
    };
    if !is_group_kind(rs_owner, "Deployment", &["apps", "extensions"])? {
        return Ok(None);
    }
    let Some(d) = lookup(api, &registry::DEPLOYMENTS, ns, rs_owner) else {
        return Ok(None);
    };
    Ok(Some((meta::uid(&d.value).to_string(), replicas(&d.value))))
}

/// `getPodReplicaSet`: a ReplicaSet no Deployment controls.
pub(super) fn replicaset_of(api: &Api, owner: &Value, ns: &str) -> Found {
    if !is_group_kind(owner, "ReplicaSet", &["apps", "extensions"])? {
        return Ok(None);
    }
    let Some(rs) = lookup(api, &registry::REPLICASETS, ns, owner) else {
        return Ok(None);
    };
    if meta::controller_ref(&rs.value).is_some_and(|r| r["kind"] == "Deployment") {
        return Ok(None);
    }
    Ok(Some((
        meta::uid(&rs.value).to_string(),
        replicas(&rs.value),
    )))
}

/// `getScaleController`: anything else through its `/scale` subresource.
pub(super) fn scale_of(api: &Api, owner: &Value, ns: &str) -> Found {
    let api_version = owner["apiVersion"].as_str().unwrap_or("");
    let (group, version) = parse_group_version(api_version)?;
    let kind = owner["kind"].as_str().unwrap_or("");
    let Some(res) = registry::by_kind(group, kind).filter(|r| r.version == version) else {
        let gv = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        return Err(format!(
            "no matches for kind {} in version {}",
            go_quote(kind),
            go_quote(&gv)
        ));
    };
    if res.subresource("scale").is_none() {
        return Err(format!(
            "{} does not implement the scale subresource",
            res.group_resource()
        ));
    }
    let Some(o) = lookup(api, res, ns, owner) else {
        return Ok(None);
    };
    Ok(Some((meta::uid(&o.value).to_string(), replicas(&o.value))))
}

/// `getExpectedScale`: the sum of the scales of the pods' controllers, and the pods without one.
pub(super) fn expected_scale(
    api: &Api,
    ns: &str,
    pods: &[&Stored],
) -> Result<(i64, Vec<String>), String> {
    let mut scales: BTreeMap<String, i64> = BTreeMap::new();
    let mut unmanaged = Vec::new();
    for pod in pods {
        let Some(owner) = meta::controller_ref(&pod.value) else {
            unmanaged.push(pod.name().to_string());
            continue;
        };
        if owner["uid"]
            .as_str()
            .is_some_and(|u| scales.contains_key(u))
        {
            continue;
        }
        // ReplicationControllers and StatefulSets are not served here, so their finders never
        // match; the rest run in upstream's order.
        let mut found = None;
        for finder in [
            deployment_of as fn(&Api, &Value, &str) -> Found,
            replicaset_of,
            scale_of,
        ] {
            if let Some(f) = finder(api, owner, ns)? {
                found = Some(f);
                break;
            }
        }
        match found {
            Some((uid, n)) => {
                scales.insert(uid, n);
            }
            None => {
                return Err(format!(
                    "found no controllers for pod {}",
                    go_quote(pod.name())
                ))
            }
        }
    }
    Ok((scales.values().sum(), unmanaged))
}

/// `getExpectedPodCount` → (expectedPods, desiredHealthy, unmanaged pods).
pub(super) fn expected_pod_count(
    api: &Api,
    pdb: &Value,
    pods: &[&Stored],
) -> Result<(i64, i64, Vec<String>), String> {
    let spec = &pdb["spec"];
    let ns = meta::namespace(pdb);
    if !spec["maxUnavailable"].is_null() {
        let (expected, unmanaged) = expected_scale(api, ns, pods)?;
        let max_unavailable = scaled_value(&spec["maxUnavailable"], expected, true)?;
        return Ok((expected, (expected - max_unavailable).max(0), unmanaged));
    }
    match &spec["minAvailable"] {
        Value::Number(n) => Ok((pods.len() as i64, n.as_i64().unwrap_or(0), Vec::new())),
        v @ Value::String(_) => {
            let (expected, unmanaged) = expected_scale(api, ns, pods)?;
            Ok((expected, scaled_value(v, expected, true)?, unmanaged))
        }
        _ => Ok((0, 0, Vec::new())),
    }
}
