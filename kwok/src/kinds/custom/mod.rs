//! Custom resources: the kinds CustomResourceDefinitions define, served per cluster from the
//! definitions it stores (apiextensions-apiserver `pkg/apiserver/customresource_handler.go`).
//!
//! Every other kind is a static; a custom one is built from its definition the first time it is
//! asked for and kept for the life of the process, keyed by the definition's uid, generation
//! and version, so the rest of the server handles both alike. A definition's spec changes build
//! a new one; the old stays reachable only to requests already holding it.

mod columns;
pub(crate) mod schema;
mod strategy;

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

use crate::kinds::apiextensions::customresourcedefinition::RESOURCE as CUSTOMRESOURCEDEFINITIONS;
use crate::meta;
use crate::printers::Column;
use crate::resource::{status, ResourceDef, ScalePaths, SubresourceDef};
use crate::store::Store;
use strategy::CustomResource;

type Key = (String, i64, String);

/// The verbs of a custom resource, in the order its discovery lists them.
const VERBS: &[&str] = &[
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];

fn interned() -> &'static Mutex<HashMap<Key, &'static ResourceDef>> {
    static TABLE: OnceLock<Mutex<HashMap<Key, &'static ResourceDef>>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

fn leak_strings(v: &Value) -> &'static [&'static str] {
    let items: Vec<&'static str> = v
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(leak)
        .collect();
    Box::leak(items.into_boxed_slice())
}

/// `IsCRDConditionTrue(crd, Established)`: only established definitions are served.
fn established(crd: &Value) -> bool {
    crd["status"]["conditions"].as_array().is_some_and(|c| {
        c.iter()
            .any(|c| c["type"] == "Established" && c["status"] == "True")
    })
}

/// The definition of one served version of `crd`.
fn build(crd: &Value, version: &Value) -> ResourceDef {
    let spec = &crd["spec"];
    let names = &spec["names"];
    let kind = leak(names["kind"].as_str().unwrap_or(""));
    // Listed as apiextensions-apiserver lists them: status, then scale.
    let mut listed = Vec::new();
    let status_subresource = version["subresources"]["status"].is_object();
    if status_subresource {
        listed.push(status(kind));
    }
    let scale_spec = &version["subresources"]["scale"];
    let scale = scale_spec.is_object().then(|| ScalePaths {
        spec_replicas: leak(scale_spec["specReplicasPath"].as_str().unwrap_or("")),
        status_replicas: leak(scale_spec["statusReplicasPath"].as_str().unwrap_or("")),
        label_selector: scale_spec["labelSelectorPath"].as_str().map(leak),
    });
    if scale.is_some() {
        listed.push(crate::kinds::autoscaling::scale::subresource());
    }
    let subresources: &'static [SubresourceDef] = Box::leak(listed.into_boxed_slice());
    let columns = columns::of_version(version);
    ResourceDef {
        group: leak(spec["group"].as_str().unwrap_or("")),
        version: leak(version["name"].as_str().unwrap_or("")),
        kind,
        plural: leak(names["plural"].as_str().unwrap_or("")),
        singular: leak(names["singular"].as_str().unwrap_or("")),
        namespaced: spec["scope"] == "Namespaced",
        short_names: leak_strings(&names["shortNames"]),
        categories: leak_strings(&names["categories"]),
        verbs: VERBS,
        subresources,
        strategy: Box::leak(Box::new(CustomResource {
            namespaced: spec["scope"] == "Namespaced",
            schema: version["schema"]["openAPIV3Schema"].clone(),
            status_subresource,
            columns: Box::leak(columns.0.into_boxed_slice()) as &'static [Column],
            paths: columns.1,
            deprecation: deprecation_warning(spec, version),
            storage_version:
                crate::kinds::apiextensions::customresourcedefinition::storage_version(crd)
                    .map(|v| (leak(spec["group"].as_str().unwrap_or("")), leak(v))),
            scale,
        })),
    }
}

/// A deprecated version's warning: its own, or `defaultDeprecationWarning`'s, which names the
/// most preferred served version newer than it that is not deprecated.
fn deprecation_warning(spec: &Value, version: &Value) -> Option<String> {
    if version["deprecated"] != true {
        return None;
    }
    if let Some(w) = version["deprecationWarning"].as_str() {
        return Some(w.to_owned());
    }
    let name = version["name"].as_str().unwrap_or_default();
    let group = spec["group"].as_str().unwrap_or_default();
    let kind = spec["names"]["kind"].as_str().unwrap_or_default();
    let mut message = format!("{group}/{name} {kind} is deprecated");
    let newer = spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| v["served"] == true && v["deprecated"] != true)
        .filter_map(|v| v["name"].as_str())
        .filter(|v| version_rank(v) < version_rank(name))
        .min_by_key(|v| version_rank(v));
    if let Some(newer) = newer {
        message.push_str(&format!("; use {group}/{newer} {kind}"));
    }
    Some(message)
}

/// Kube-aware version order (`version.CompareKubeAwareVersionStrings`): GA before beta before
/// alpha, higher numbers first, anything else last by name.
fn version_rank(v: &str) -> (u8, i64, i64, String) {
    let parse = |s: &str| -> Option<(i64, u8, i64)> {
        let rest = s.strip_prefix('v')?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let major: i64 = digits.parse().ok()?;
        let tail = &rest[digits.len()..];
        if tail.is_empty() {
            return Some((major, 0, 0));
        }
        for (stage, rank) in [("beta", 1), ("alpha", 2)] {
            if let Some(n) = tail.strip_prefix(stage) {
                return n.parse().ok().map(|n| (major, rank, n));
            }
        }
        None
    };
    match parse(v) {
        Some((major, rank, minor)) => (rank, -major, -minor, String::new()),
        None => (3, 0, 0, v.to_owned()),
    }
}

/// Calls `f` with each served version of each established definition `store` holds, a
/// definition's versions in kube-aware order (the preferred one first): the definition and the
/// version's entry. A visit rather than a list: discovery asks on every request, and nothing
/// needs the definitions copied.
pub fn for_each_served_version(store: &Store, mut f: impl FnMut(&Value, &Value)) {
    for crd in store.list(&CUSTOMRESOURCEDEFINITIONS, None).0 {
        let crd = &crd.value;
        if !established(crd) || meta::is_deleting(crd) {
            continue;
        }
        let mut versions: Vec<&Value> = crd["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|v| v["served"] == true)
            .collect();
        versions.sort_by_key(|v| version_rank(v["name"].as_str().unwrap_or("")));
        for version in versions {
            f(crd, version);
        }
    }
}

/// The custom resources `store` serves: each served version of each established definition, a
/// definition's versions in kube-aware order (the preferred one first).
pub fn served(store: &Store) -> Vec<&'static ResourceDef> {
    let mut out = Vec::new();
    let Ok(mut table) = interned().lock() else {
        return out;
    };
    for_each_served_version(store, |crd, version| {
        out.push(intern(&mut table, crd, version));
    });
    out
}

/// The custom resource at `group`/`version`/`plural`, when `store` serves one: what routing a
/// request asks, so only the definition it names is built.
pub fn find(
    store: &Store,
    group: &str,
    version: &str,
    plural: &str,
) -> Option<&'static ResourceDef> {
    let crds = store.list(&CUSTOMRESOURCEDEFINITIONS, None).0;
    let crd = crds.iter().map(|c| &c.value).find(|crd| {
        crd["spec"]["group"] == group
            && crd["spec"]["names"]["plural"] == plural
            && established(crd)
            && !meta::is_deleting(crd)
    })?;
    let served = crd["spec"]["versions"]
        .as_array()?
        .iter()
        .find(|v| v["name"] == version && v["served"] == true)?;
    let mut table = interned().lock().ok()?;
    Some(intern(&mut table, crd, served))
}

/// The storage version's resource of `crd`, served or not (a definition being deleted still
/// names the objects to remove).
pub fn storage_of(crd: &Value) -> Option<&'static ResourceDef> {
    let version = crd["spec"]["versions"]
        .as_array()?
        .iter()
        .find(|v| v["storage"] == true)?;
    let mut table = interned().lock().ok()?;
    Some(intern(&mut table, crd, version))
}

/// The definition of `version` of `crd`, built once per spec generation.
fn intern(
    table: &mut HashMap<Key, &'static ResourceDef>,
    crd: &Value,
    version: &Value,
) -> &'static ResourceDef {
    let key = (
        meta::uid(crd).to_owned(),
        crd["metadata"]["generation"].as_i64().unwrap_or(0),
        version["name"].as_str().unwrap_or("").to_owned(),
    );
    table
        .entry(key)
        .or_insert_with(|| Box::leak(Box::new(build(crd, version))))
}

#[cfg(test)]
mod tests {
    use super::version_rank;

    #[test]
    fn versions_sort_as_kube_aware_versions() {
        let mut v = vec!["v1alpha1", "foo", "v2beta1", "v1", "v2", "v1beta2", "v10"];
        v.sort_by_key(|s| version_rank(s));
        assert_eq!(
            v,
            ["v10", "v2", "v1", "v2beta1", "v1beta2", "v1alpha1", "foo"]
        );
    }
}
