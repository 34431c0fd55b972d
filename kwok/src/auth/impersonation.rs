//! `WithImpersonation` (`staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go`):
//! `Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid` and `Impersonate-Extra-*`, each
//! authorized as the `impersonate` verb on what it names.

use axum::http::HeaderMap;
use serde_json::{json, Value};

use super::attributes::Attributes;
use super::{rbac, split_service_account, UserInfo, AUTHENTICATED};
use crate::api::Api;
use crate::error::ApiError;

fn values(headers: &HeaderMap, name: &str) -> Vec<String> {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok().map(String::from))
        .collect()
}

fn impersonate(
    group: &str,
    resource: &str,
    subresource: &str,
    namespace: &str,
    name: &str,
) -> Attributes {
    Attributes {
        verb: "impersonate".into(),
        resource_request: true,
        group: group.into(),
        version: "v1".into(),
        resource: resource.into(),
        subresource: subresource.into(),
        namespace: namespace.into(),
        name: name.into(),
        path: String::new(),
    }
}

/// The user the request acts as: `requestor` unless it impersonates someone it may.
pub fn apply(
    api: &Api,
    requestor: UserInfo,
    headers: &HeaderMap,
    uri: &str,
) -> Result<UserInfo, ApiError> {
    let users = values(headers, "impersonate-user");
    let groups = values(headers, "impersonate-group");
    let uids = values(headers, "impersonate-uid");
    let extras: Vec<(String, String)> = headers
        .iter()
        .filter_map(|(k, v)| {
            let key = k.as_str().strip_prefix("impersonate-extra-")?;
            let key = percent_encoding::percent_decode_str(key)
                .decode_utf8()
                .ok()?
                .to_lowercase();
            Some((key, v.to_str().ok()?.to_string()))
        })
        .collect();
    let Some(username) = users.first() else {
        if groups.is_empty() && uids.is_empty() && extras.is_empty() {
            return Ok(requestor);
        }
        return Err(ApiError::new(
            500,
            "InternalError",
            format!("Internal Server Error: {uri:?}: requested impersonation without impersonating a user"),
        ));
    };
    let check = |a: Attributes| -> Result<(), ApiError> {
        if rbac::authorize(api, &requestor, &a).allowed {
            Ok(())
        } else {
            Err(a.forbidden(&requestor.name, ""))
        }
    };
    let mut user = UserInfo {
        name: username.clone(),
        ..UserInfo::default()
    };
    match split_service_account(username) {
        Some((ns, name)) => {
            check(impersonate("", "serviceaccounts", "", ns, name))?;
            if groups.is_empty() {
                user.groups = vec![
                    "system:serviceaccounts".into(),
                    format!("system:serviceaccounts:{ns}"),
                ];
            }
        }
        None => check(impersonate("", "users", "", "", username))?,
    }
    for g in &groups {
        check(impersonate("", "groups", "", "", g))?;
        user.groups.push(g.clone());
    }
    for (key, value) in &extras {
        check(impersonate(
            "authentication.k8s.io",
            "userextras",
            key,
            "",
            value,
        ))?;
        let entry = user.extra.entry(key.clone()).or_insert_with(|| json!([]));
        if let Value::Array(a) = entry {
            a.push(json!(value));
        }
    }
    if let Some(uid) = uids.first() {
        check(impersonate("authentication.k8s.io", "uids", "", "", uid))?;
        user.uid = uid.clone();
    }
    let anonymous = user.name == "system:anonymous";
    let marker = if anonymous {
        "system:unauthenticated"
    } else {
        AUTHENTICATED
    };
    if !user
        .groups
        .iter()
        .any(|g| g == AUTHENTICATED || g == "system:unauthenticated")
    {
        user.groups.push(marker.into());
    }
    Ok(user)
}
