//! Discovery documents, unaggregated: what clients read group by group, and what
//! [`super::discovery_aggregated`] gathers into one answer.

use serde_json::{json, Value};

use crate::registry;
use crate::resource::ResourceDef;

/// The Kubernetes version the embedded cluster reports.
pub const GIT_VERSION: &str = "v1.32.0-kwok";

pub fn version() -> Value {
    json!({
        "major": "1",
        "minor": "32",
        "gitVersion": GIT_VERSION,
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2024-12-11T00:00:00Z",
        "goVersion": "go1.23.4",
        "compiler": "gc",
        "platform": "linux/amd64"
    })
}

pub fn api_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]
    })
}

fn group(name: &str, versions: &[&str]) -> Value {
    let gv = |v: &str| json!({"groupVersion": format!("{name}/{v}"), "version": v});
    let all: Vec<Value> = versions.iter().map(|v| gv(v)).collect();
    let preferred = versions.first().map(|v| gv(v)).unwrap_or(Value::Null);
    json!({"name": name, "versions": all, "preferredVersion": preferred})
}

/// Every served group with its versions, preferred first: the built-in groups, then the groups
/// of custom resources by name (the aggregator orders them by their APIService priority, the
/// same for every definition).
pub(super) fn served_groups(
    custom: &[&'static ResourceDef],
) -> Vec<(&'static str, Vec<&'static str>)> {
    // A group listed more than once serves several versions, the first preferred.
    let mut out: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    for (g, v) in registry::GROUPS {
        match out.iter_mut().find(|(group, _)| group == g) {
            Some((_, versions)) => versions.push(v),
            None => out.push((g, vec![v])),
        }
    }
    let mut extra: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    for res in custom {
        match extra.iter_mut().find(|(g, _)| *g == res.group) {
            Some((_, versions)) => {
                if !versions.contains(&res.version) {
                    versions.push(res.version);
                }
            }
            None => extra.push((res.group, vec![res.version])),
        }
    }
    // Custom resources' APIServices rank 1000, metrics-server's 100: lower ranks last.
    extra.sort_by_key(|(g, _)| (*g == crate::kinds::metrics::GROUP, *g));
    out.extend(extra);
    out
}

pub fn group_list(custom: &[&'static ResourceDef]) -> Value {
    let groups: Vec<Value> = served_groups(custom)
        .iter()
        .map(|(g, v)| group(g, v))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

pub fn api_group(custom: &[&'static ResourceDef], name: &str) -> Option<Value> {
    served_groups(custom)
        .into_iter()
        .find(|(g, _)| *g == name)
        .map(|(g, v)| {
            // TypeMeta first, as the Go struct declares it.
            let mut doc = serde_json::Map::new();
            doc.insert("kind".into(), json!("APIGroup"));
            doc.insert("apiVersion".into(), json!("v1"));
            if let Value::Object(fields) = group(g, &v) {
                doc.extend(fields);
            }
            Value::Object(doc)
        })
}

fn entry(res: &ResourceDef) -> Value {
    let mut e = json!({
        "name": res.plural,
        "singularName": res.singular,
        "namespaced": res.namespaced,
        "kind": res.kind,
        "verbs": res.verbs,
    });
    if !res.short_names.is_empty() {
        e["shortNames"] = json!(res.short_names);
    }
    if !res.categories.is_empty() {
        e["categories"] = json!(res.categories);
    }
    if let Some(hash) = storage_version_hash(res) {
        e["storageVersionHash"] = json!(hash);
    }
    e
}

/// `discovery.StorageVersionHash` of the group, version and kind the resource is stored as:
/// the first 8 bytes of their SHA-256, in base64. Kinds without storage (reviews, bindings:
/// create-only; metrics) have none.
fn storage_version_hash(res: &ResourceDef) -> Option<String> {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    if !res.has_verb("get") || !res.strategy.stored() {
        return None;
    }
    let (group, version) = res
        .strategy
        .storage_version()
        .unwrap_or((res.group, res.version));
    let digest = Sha256::digest(format!("{group}/{version}/{}", res.kind));
    Some(base64::engine::general_purpose::STANDARD.encode(&digest[..8]))
}

/// `/api/v1`, `/apis/<g>/<v>`; `None` for a group version that is not served.
pub fn resource_list(custom: &[&'static ResourceDef], group: &str, version: &str) -> Option<Value> {
    let served = (group.is_empty() && version == "v1")
        || served_groups(custom)
            .iter()
            .any(|(g, v)| *g == group && v.contains(&version));
    if !served {
        return None;
    }
    let mut resources = Vec::new();
    let custom_here = custom
        .iter()
        .copied()
        .filter(|r| r.group == group && r.version == version);
    for res in registry::in_group_version(group, version).chain(custom_here) {
        resources.push(entry(res));
        for sub in res.subresources {
            let mut e = json!({
                "name": format!("{}/{}", res.plural, sub.name),
                "singularName": "",
                "namespaced": res.namespaced,
                "kind": sub.kind,
                "verbs": sub.verbs,
            });
            if !sub.group.is_empty() {
                e["group"] = json!(sub.group);
                e["version"] = json!(sub.version);
            }
            resources.push(e);
        }
    }
    if registry::in_group_version(group, version).next().is_some() {
        // `APIInstaller.Install` registers a built-in group version's paths sorted, so
        // subresources sit beside their resource in name order.
        resources.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    }
    let gv = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    // The legacy core group's list is written without an apiVersion.
    Some(if group.is_empty() {
        json!({"kind": "APIResourceList", "groupVersion": gv, "resources": resources})
    } else {
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources})
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eviction_carries_its_group_for_drain() {
        // kubectl drain's CheckEvictionSupport needs group and version on pods/eviction.
        let doc = resource_list(&[], "", "v1").unwrap();
        let ev = doc["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "pods/eviction")
            .unwrap();
        assert_eq!(ev["kind"], "Eviction");
        assert_eq!(ev["group"], "policy");
        assert_eq!(ev["version"], "v1");
        let pdb = resource_list(&[], "policy", "v1").unwrap();
        assert!(pdb["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["shortNames"] == json!(["pdb"])));
        assert!(resource_list(&[], "flowcontrol.apiserver.k8s.io", "v1").is_none());
    }
}
