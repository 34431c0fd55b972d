//! The review endpoints' answers: access reviews (`pkg/registry/authorization/*/rest.go`), the
//! rules review behind `kubectl auth can-i --list`, `SelfSubjectReview` (`kubectl auth whoami`),
//! and `TokenRequest` (`pkg/registry/core/serviceaccount/storage/token.go`).

use serde_json::{json, Map, Value};

use super::attributes::Attributes;
use super::token::{Keys, ISSUER};
use super::{rbac, UserInfo};
use crate::api::Api;
use crate::error::{ApiError, ApiResult, FieldError};
use crate::meta;
use crate::registry::SERVICEACCOUNTS;
use crate::resource::ResourceDef;

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(String::from))
        .collect()
}

/// The review's Invalid answer: the decoded internal object has no Kind, so the group kind
/// reads `.authorization.k8s.io`.
fn invalid(errs: &[FieldError]) -> ApiError {
    ApiError::invalid_kind(
        ".authorization.k8s.io",
        "",
        "authorization.k8s.io",
        "",
        errs,
    )
}

/// `ValidateSelfSubjectAccessReviewSpec` (and the user check of `ValidateSubjectAccessReviewSpec`).
fn validate_spec(spec: &Value, needs_user: bool) -> Result<(), ApiError> {
    let resource = spec.get("resourceAttributes").filter(|v| !v.is_null());
    let non_resource = spec.get("nonResourceAttributes").filter(|v| !v.is_null());
    let mut errs = Vec::new();
    if let (Some(_), Some(n)) = (resource, non_resource) {
        errs.push(FieldError::invalid(
            "spec.nonResourceAttributes",
            format!(
                "authorization.NonResourceAttributes{{Path:{}, Verb:{}}}",
                crate::error::go_quote(n["path"].as_str().unwrap_or("")),
                crate::error::go_quote(n["verb"].as_str().unwrap_or(""))
            ),
            "cannot be specified in combination with resourceAttributes",
        ));
    }
    if resource.is_none() && non_resource.is_none() {
        errs.push(FieldError::invalid(
            "spec.resourceAttributes",
            "\"null\"".into(),
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        ));
    }
    if needs_user
        && spec["user"].as_str().unwrap_or("").is_empty()
        && strings(&spec["groups"]).is_empty()
    {
        errs.push(FieldError::invalid(
            "spec.user",
            "\"\"".into(),
            "at least one of user or group must be specified",
        ));
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(invalid(&errs))
    }
}

/// `ResourceAttributesFrom` / `NonResourceAttributesFrom`.
fn attributes(spec: &Value) -> Attributes {
    if let Some(r) = spec.get("resourceAttributes").filter(|v| !v.is_null()) {
        let s = |k: &str| r[k].as_str().unwrap_or("").to_string();
        let version = match s("version") {
            v if v.is_empty() => "*".to_string(),
            v => v,
        };
        Attributes {
            verb: s("verb"),
            resource_request: true,
            group: s("group"),
            version,
            resource: s("resource"),
            subresource: s("subresource"),
            namespace: s("namespace"),
            name: s("name"),
            path: String::new(),
        }
    } else {
        let n = &spec["nonResourceAttributes"];
        Attributes {
            verb: n["verb"].as_str().unwrap_or("").into(),
            path: n["path"].as_str().unwrap_or("").into(),
            ..Attributes::default()
        }
    }
}

fn answer(api: &Api, user: &UserInfo, mut review: Value) -> Value {
    let decision = rbac::authorize(api, user, &attributes(&review["spec"]));
    let mut status = Map::new();
    status.insert("allowed".into(), json!(decision.allowed));
    if !decision.reason.is_empty() {
        status.insert("reason".into(), json!(decision.reason));
    }
    review["status"] = Value::Object(status);
    review
}

/// A POST to one of the review resources, as `user`, in `ns` (LocalSubjectAccessReview).
pub fn create(
    api: &Api,
    keys: &Keys,
    user: &UserInfo,
    res: &ResourceDef,
    ns: &str,
    review: Value,
) -> ApiResult<Value> {
    let spec = review.get("spec").cloned().unwrap_or(Value::Null);
    match res.plural {
        "selfsubjectaccessreviews" => {
            validate_spec(&spec, false)?;
            Ok(answer(api, user, review))
        }
        "subjectaccessreviews" | "localsubjectaccessreviews" => {
            validate_spec(&spec, true)?;
            if res.namespaced {
                let asked = spec["resourceAttributes"]["namespace"]
                    .as_str()
                    .unwrap_or("");
                if asked != ns {
                    return Err(ApiError::bad_request(format!(
                        "spec.resourceAttributes.namespace must match namespace: {ns}"
                    )));
                }
            }
            let subject = UserInfo {
                name: spec["user"].as_str().unwrap_or("").into(),
                uid: spec["uid"].as_str().unwrap_or("").into(),
                groups: strings(&spec["groups"]),
                extra: spec["extra"].as_object().cloned().unwrap_or_default(),
            };
            Ok(answer(api, &subject, review))
        }
        "selfsubjectrulesreviews" => {
            let ns = spec["namespace"].as_str().unwrap_or("");
            if ns.is_empty() {
                return Err(ApiError::bad_request("no namespace on request"));
            }
            let (rules, errors) = rbac::rules_for(api, user, ns);
            let mut resource_rules = Vec::new();
            let mut non_resource_rules = Vec::new();
            for r in rules {
                if r["resources"].as_array().is_some_and(|a| !a.is_empty()) {
                    let mut rule = Map::new();
                    for k in ["verbs", "apiGroups", "resources", "resourceNames"] {
                        if let Some(v) = r.get(k).filter(|v| !v.is_null()) {
                            rule.insert(k.into(), v.clone());
                        }
                    }
                    resource_rules.push(Value::Object(rule));
                }
                if r["nonResourceURLs"]
                    .as_array()
                    .is_some_and(|a| !a.is_empty())
                {
                    non_resource_rules.push(
                        json!({"verbs": r["verbs"], "nonResourceURLs": r["nonResourceURLs"]}),
                    );
                }
            }
            let mut status = json!({"resourceRules": resource_rules,
                "nonResourceRules": non_resource_rules, "incomplete": false});
            if !errors.is_empty() {
                status["evaluationError"] = json!(errors.join(", "));
            }
            let mut review = review;
            review["status"] = status;
            Ok(review)
        }
        "tokenreviews" => {
            // `TokenReview`: who a bearer token names, for webhook authenticators.
            let token = spec["token"].as_str().unwrap_or("");
            let mut review = review;
            review["status"] = match keys.authenticate(api, token, chrono::Utc::now().timestamp()) {
                Some(found) => json!({"authenticated": true, "user": found.to_json(),
                    "audiences": [ISSUER]}),
                None => {
                    json!({"user": {}, "error": "[invalid bearer token, service account token could not be validated]"})
                }
            };
            Ok(review)
        }
        "selfsubjectreviews" => {
            let mut review = review;
            review["status"] = json!({"userInfo": user.to_json()});
            Ok(review)
        }
        _ => Err(ApiError::method_not_supported(res, "create")),
    }
}

/// `MinTokenAgeSec` and the upper bound of `ValidateTokenRequest`.
const MIN_TOKEN_SECONDS: i64 = 600;

/// `TokenREST.Create`: a token for the service account `ns/name`.
pub fn token_request(
    api: &Api,
    keys: &Keys,
    ns: &str,
    name: &str,
    mut request: Value,
) -> ApiResult<Value> {
    let body_name = meta::name(&request).to_string();
    if !body_name.is_empty() && body_name != name {
        return Err(ApiError::invalid_kind(
            "TokenRequest.authentication.k8s.io",
            "TokenRequest",
            "authentication.k8s.io",
            &body_name,
            &[FieldError::invalid(
                "metadata.name",
                crate::error::go_quote(&body_name),
                "must match the service account name if specified",
            )],
        ));
    }
    let sa = api.get(&SERVICEACCOUNTS, ns, name)?;
    let spec = request.get("spec").cloned().unwrap_or(json!({}));
    let mut audiences = strings(&spec["audiences"]);
    if audiences.is_empty() {
        audiences = vec![ISSUER.to_string()];
    }
    let seconds = spec["expirationSeconds"].as_i64().unwrap_or(3600);
    let too_short = seconds < MIN_TOKEN_SECONDS;
    if too_short || seconds > 1 << 32 {
        let detail = if too_short {
            "may not specify a duration less than 10 minutes"
        } else {
            "may not specify a duration larger than 2^32 seconds"
        };
        return Err(ApiError::invalid_kind(
            "TokenRequest.authentication.k8s.io",
            "TokenRequest",
            "authentication.k8s.io",
            "",
            &[FieldError::invalid(
                "spec.expirationSeconds",
                seconds.to_string(),
                detail,
            )],
        ));
    }
    if let Some(kind) = spec["boundObjectRef"]["kind"].as_str() {
        if !matches!(kind, "Pod" | "Secret") {
            return Err(ApiError::bad_request(format!(
                "cannot bind token to object of type {kind}"
            )));
        }
    }
    let now = chrono::Utc::now();
    let token = keys.issue(&sa.value, &audiences, now.timestamp(), seconds);
    let expires = meta::time(now + chrono::Duration::seconds(seconds));
    request["apiVersion"] = json!("authentication.k8s.io/v1");
    request["kind"] = json!("TokenRequest");
    request["metadata"] =
        json!({"name": name, "namespace": ns, "creationTimestamp": meta::time(now)});
    request["spec"] = json!({"audiences": audiences, "expirationSeconds": seconds,
        "boundObjectRef": spec.get("boundObjectRef").cloned().unwrap_or(Value::Null)});
    request["status"] = json!({"token": token, "expirationTimestamp": expires});
    Ok(request)
}
