//! Aggregated discovery (`apidiscovery.k8s.io` v2 and v2beta1): `/api` and `/apis` answer every
//! group version's resources at once when the client asks for an `APIGroupDiscoveryList`, as
//! client-go (kubectl 1.26+) and kube-rs do first. Built from the unaggregated documents of
//! [`super::discovery`] the way `ConvertGroupVersionIntoToDiscovery` builds it from the
//! installer's `APIResource`s, so the two cannot disagree.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha512};

use super::discovery;
use super::respond;
use crate::resource::ResourceDef;

/// The aggregated version an `Accept` header asks for (`application/json;g=apidiscovery.k8s.io;
/// v=v2;as=APIGroupDiscoveryList`, parameters in any order), the first acceptable one it lists;
/// `None` for a client that wants the unaggregated documents.
pub fn requested_version(headers: &HeaderMap) -> Option<&'static str> {
    let accept = headers.get(header::ACCEPT)?.to_str().ok()?;
    accept.split(',').find_map(|range| {
        let mut parts = range.split(';').map(str::trim);
        if parts.next()? != "application/json" {
            return None;
        }
        let (mut g, mut v, mut r#as) = (None, None, None);
        for param in parts {
            match param.split_once('=') {
                Some(("g", x)) => g = Some(x),
                Some(("v", x)) => v = Some(x),
                Some(("as", x)) => r#as = Some(x),
                _ => {}
            }
        }
        if g != Some("apidiscovery.k8s.io") || r#as != Some("APIGroupDiscoveryList") {
            return None;
        }
        match v? {
            "v2" => Some("v2"),
            "v2beta1" => Some("v2beta1"),
            _ => None,
        }
    })
}

/// `/api` aggregated: the core group, unnamed, with its one version.
pub fn core(custom: &[&'static ResourceDef]) -> Value {
    let versions: Vec<Value> = discovery::resource_list(custom, "", "v1")
        .map(|list| version_entry("v1", &list))
        .into_iter()
        .collect();
    json!([{"metadata": {"creationTimestamp": null}, "versions": versions}])
}

/// `/apis` aggregated: every group in discovery's order, each version preferred first.
pub fn groups(custom: &[&'static ResourceDef]) -> Value {
    let items: Vec<Value> = discovery::served_groups(custom)
        .into_iter()
        .map(|(group, versions)| {
            let versions: Vec<Value> = versions
                .iter()
                .filter_map(|v| {
                    let list = discovery::resource_list(custom, group, v)?;
                    let mut entry = version_entry(v, &list);
                    if custom.iter().any(|r| r.group == group) {
                        name_custom_kinds(&mut entry, group, v);
                    }
                    Some(entry)
                })
                .collect();
            json!({"metadata": {"name": group, "creationTimestamp": null}, "versions": versions})
        })
        .collect();
    Value::Array(items)
}

/// One `APIVersionDiscovery` from an unaggregated `APIResourceList`: top-level resources in
/// their listed order, each subresource under its parent.
fn version_entry(version: &str, list: &Value) -> Value {
    let listed = list["resources"].as_array().cloned().unwrap_or_default();
    let mut resources: Vec<Map<String, Value>> = Vec::new();
    let scope = |r: &Value| {
        if r["namespaced"].as_bool().unwrap_or(false) {
            "Namespaced"
        } else {
            "Cluster"
        }
    };
    let kind_of = |r: &Value| {
        json!({
            "group": r["group"].as_str().unwrap_or_default(),
            "version": r["version"].as_str().unwrap_or_default(),
            "kind": r["kind"].as_str().unwrap_or_default(),
        })
    };
    for r in listed.iter().filter(|r| !name(r).contains('/')) {
        let mut entry = Map::new();
        entry.insert("resource".into(), json!(name(r)));
        entry.insert("responseKind".into(), kind_of(r));
        entry.insert("scope".into(), json!(scope(r)));
        entry.insert("singularResource".into(), r["singularName"].clone());
        entry.insert("verbs".into(), r["verbs"].clone());
        for key in ["shortNames", "categories"] {
            if let Some(v) = r.get(key) {
                entry.insert(key.into(), v.clone());
            }
        }
        resources.push(entry);
    }
    for r in &listed {
        let Some((parent, sub)) = name(r).split_once('/') else {
            continue;
        };
        let index = match resources.iter().position(|e| e["resource"] == parent) {
            Some(i) => i,
            None => {
                let mut entry = Map::new();
                entry.insert("resource".into(), json!(parent));
                entry.insert(
                    "responseKind".into(),
                    json!({"group": "", "version": "", "kind": ""}),
                );
                entry.insert("scope".into(), json!(scope(r)));
                resources.push(entry);
                resources.len() - 1
            }
        };
        let subresource = json!({
            "subresource": sub,
            "responseKind": kind_of(r),
            "verbs": r["verbs"].clone(),
        });
        let subs = resources[index]
            .entry("subresources")
            .or_insert_with(|| json!([]));
        if let Some(list) = subs.as_array_mut() {
            list.push(subresource);
        }
    }
    let resources: Vec<Value> = resources.into_iter().map(Value::Object).collect();
    json!({"version": version, "resources": resources, "freshness": "Current"})
}

/// apiextensions-apiserver builds its own aggregated documents: resources sorted by name, every
/// response kind naming the group and version unless borrowed from another group (a scale's).
fn name_custom_kinds(entry: &mut Value, group: &str, version: &str) {
    if let Some(resources) = entry["resources"].as_array_mut() {
        resources.sort_by(|a, b| a["resource"].as_str().cmp(&b["resource"].as_str()));
    }
    let fill = |kind: &mut Value| {
        if kind["group"] == "" && kind["version"] == "" {
            kind["group"] = json!(group);
            kind["version"] = json!(version);
        }
    };
    for r in entry["resources"].as_array_mut().into_iter().flatten() {
        fill(&mut r["responseKind"]);
        for s in r["subresources"].as_array_mut().into_iter().flatten() {
            fill(&mut s["responseKind"]);
        }
    }
}

fn name(r: &Value) -> &str {
    r["name"].as_str().unwrap_or_default()
}

/// The answer to an aggregated request (`ServeHTTPWithETag`): the list in the version asked
/// for, tagged with the SHA-512 of its groups, or 304 when the client already holds that tag.
pub fn respond(items: Value, version: &str, request: &HeaderMap) -> Response {
    // `calculateETag` hashes the list as json.Marshal writes it: no type meta, empty metadata.
    let hashed = json!({"metadata": {}, "items": &items});
    let serialized = serde_json::to_vec(&hashed).unwrap_or_default();
    let tag = format!("\"{}\"", hex_upper(&Sha512::digest(&serialized)));
    let unchanged = request
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == tag.as_bytes());
    let mut r = if unchanged {
        let mut r = Response::new(axum::body::Body::empty());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let list = json!({
            "kind": "APIGroupDiscoveryList",
            "apiVersion": format!("apidiscovery.k8s.io/{version}"),
            "metadata": {},
            "items": items,
        });
        let mut r = respond::value(StatusCode::OK, &list);
        let media =
            format!("application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList");
        if let Ok(v) = HeaderValue::from_str(&media) {
            r.headers_mut().insert(header::CONTENT_TYPE, v);
        }
        r
    };
    let headers = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&tag) {
        headers.insert(header::ETAG, v);
    }
    headers.insert(header::VARY, HeaderValue::from_static("Accept"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public"));
    r
}

fn hex_upper(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT,
            HeaderValue::from_str(value).expect("header"),
        );
        h
    }

    #[test]
    fn the_first_aggregated_type_a_client_lists_is_the_one_answered() {
        let kubectl = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        assert_eq!(requested_version(&accept(kubectl)), Some("v2"));
        let beta_first = "application/json;as=APIGroupDiscoveryList;v=v2beta1;g=apidiscovery.k8s.io, application/json";
        assert_eq!(requested_version(&accept(beta_first)), Some("v2beta1"));
        for plain in [
            "application/json",
            "*/*",
            "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
            "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList",
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupList",
        ] {
            assert_eq!(requested_version(&accept(plain)), None, "{plain}");
        }
        assert_eq!(requested_version(&HeaderMap::new()), None);
    }

    #[test]
    fn subresources_sit_under_their_resource_and_an_orphan_gets_a_bare_parent() {
        let list = json!({"resources": [
            {"name": "widgets", "singularName": "widget", "namespaced": true, "kind": "Widget",
             "verbs": ["get"], "shortNames": ["wd"]},
            {"name": "widgets/scale", "singularName": "", "namespaced": true, "kind": "Scale",
             "group": "autoscaling", "version": "v1", "verbs": ["get", "update"]},
            {"name": "gadgets/status", "singularName": "", "namespaced": false, "kind": "Gadget",
             "verbs": ["get"]},
        ]});
        let entry = version_entry("v1", &list);
        assert_eq!(
            entry,
            json!({"version": "v1", "resources": [
                {"resource": "widgets",
                 "responseKind": {"group": "", "version": "", "kind": "Widget"},
                 "scope": "Namespaced", "singularResource": "widget", "verbs": ["get"],
                 "shortNames": ["wd"],
                 "subresources": [{"subresource": "scale",
                   "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
                   "verbs": ["get", "update"]}]},
                {"resource": "gadgets",
                 "responseKind": {"group": "", "version": "", "kind": ""},
                 "scope": "Cluster",
                 "subresources": [{"subresource": "status",
                   "responseKind": {"group": "", "version": "", "kind": "Gadget"},
                   "verbs": ["get"]}]},
             ], "freshness": "Current"})
        );
    }

    #[test]
    fn a_client_holding_the_tag_gets_304() {
        let v2 = accept("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
        let first = respond(core(&[]), "v2", &v2);
        assert_eq!(first.status(), StatusCode::OK);
        let tag = first.headers()[header::ETAG].clone();
        let mut again = v2.clone();
        again.insert(header::IF_NONE_MATCH, tag.clone());
        let second = respond(core(&[]), "v2", &again);
        assert_eq!(second.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(second.headers()[header::ETAG], tag);
        again.insert(header::IF_NONE_MATCH, HeaderValue::from_static("\"other\""));
        assert_eq!(respond(core(&[]), "v2", &again).status(), StatusCode::OK);
    }
}
