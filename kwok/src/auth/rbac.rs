//! The RBAC authorizer (`plugin/pkg/auth/authorizer/rbac/rbac.go`, with the rule resolver of
//! `pkg/registry/rbac/validation/rule.go` and the matchers of
//! `pkg/apis/rbac/v1/evaluation_helpers.go`), behind the privileged-group short cut the API
//! server puts first.

use serde_json::Value;

use super::attributes::Attributes;
use super::UserInfo;
use crate::api::Api;
use crate::registry::{CLUSTERROLEBINDINGS, CLUSTERROLES, ROLEBINDINGS, ROLES};

/// What the authorizer chain says.
#[derive(Debug, PartialEq)]
pub struct Decision {
    pub allowed: bool,
    pub reason: String,
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(String::from))
        .collect()
}

/// `appliesTo`: the first subject of the binding that is this user.
fn matching_subject<'a>(
    binding: &'a Value,
    user: &UserInfo,
    binding_ns: &str,
) -> Option<&'a Value> {
    binding["subjects"].as_array()?.iter().find(|s| {
        let name = s["name"].as_str().unwrap_or("");
        match s["kind"].as_str() {
            Some("User") => user.name == name,
            Some("Group") => user.groups.iter().any(|g| g == name),
            Some("ServiceAccount") => {
                let ns = s["namespace"]
                    .as_str()
                    .filter(|n| !n.is_empty())
                    .unwrap_or(binding_ns);
                !ns.is_empty() && user.name == format!("system:serviceaccount:{ns}:{name}")
            }
            _ => false,
        }
    })
}

/// `describeSubject`.
fn describe_subject(s: &Value, binding_ns: &str) -> String {
    let name = s["name"].as_str().unwrap_or("");
    let kind = s["kind"].as_str().unwrap_or("");
    if kind == "ServiceAccount" {
        let ns = s["namespace"]
            .as_str()
            .filter(|n| !n.is_empty())
            .unwrap_or(binding_ns);
        format!("{kind} {:?}", format!("{name}/{ns}"))
    } else {
        format!("{kind} {name:?}")
    }
}

/// A binding that applies, its source text, and the rules of its role (or why they are missing).
struct Applied {
    source: String,
    rules: Result<Vec<Value>, String>,
}

/// `VisitRulesFor`: every cluster role binding, then the namespace's role bindings.
fn applied(api: &Api, user: &UserInfo, ns: &str) -> Vec<Applied> {
    let mut out = Vec::new();
    let role_rules = |kind: &str, name: &str, binding_ns: &str| -> Result<Vec<Value>, String> {
        let found = match kind {
            "ClusterRole" => api.store().get(&CLUSTERROLES, "", name),
            "Role" => api.store().get(&ROLES, binding_ns, name),
            other => return Err(format!("unsupported role reference kind: {other:?}")),
        };
        match found {
            Some(role) => Ok(role.value["rules"].as_array().cloned().unwrap_or_default()),
            None => Err(format!(
                "{}.rbac.authorization.k8s.io {name:?} not found",
                kind.to_ascii_lowercase()
            )),
        }
    };
    let mut crbs = api.store().list(&CLUSTERROLEBINDINGS, None).0;
    crbs.sort_by(|a, b| a.name().cmp(b.name()));
    for b in &crbs {
        if let Some(s) = matching_subject(&b.value, user, "") {
            let (kind, role) = (
                b.value["roleRef"]["kind"].as_str().unwrap_or(""),
                b.value["roleRef"]["name"].as_str().unwrap_or(""),
            );
            out.push(Applied {
                source: format!(
                    "ClusterRoleBinding {:?} of {kind} {role:?} to {}",
                    b.name(),
                    describe_subject(s, "")
                ),
                rules: role_rules(kind, role, ""),
            });
        }
    }
    if !ns.is_empty() {
        let mut rbs = api.store().list(&ROLEBINDINGS, Some(ns)).0;
        rbs.sort_by(|a, b| a.name().cmp(b.name()));
        for b in &rbs {
            if let Some(s) = matching_subject(&b.value, user, ns) {
                let (kind, role) = (
                    b.value["roleRef"]["kind"].as_str().unwrap_or(""),
                    b.value["roleRef"]["name"].as_str().unwrap_or(""),
                );
                out.push(Applied {
                    source: format!(
                        "RoleBinding {:?} of {kind} {role:?} to {}",
                        format!("{}/{ns}", b.name()),
                        describe_subject(s, ns)
                    ),
                    rules: role_rules(kind, role, ns),
                });
            }
        }
    }
    out
}

fn has(list: &[String], want: &str) -> bool {
    list.iter().any(|x| x == "*" || x == want)
}

/// `RuleAllows`.
pub fn rule_allows(a: &Attributes, rule: &Value) -> bool {
    let verbs = strings(rule, "verbs");
    if !has(&verbs, &a.verb) {
        return false;
    }
    if !a.resource_request {
        return strings(rule, "nonResourceURLs").iter().any(|u| {
            u == "*"
                || *u == a.path
                || (u.ends_with('*') && a.path.starts_with(u.trim_end_matches('*')))
        });
    }
    let combined = if a.subresource.is_empty() {
        a.resource.clone()
    } else {
        format!("{}/{}", a.resource, a.subresource)
    };
    let resources = strings(rule, "resources");
    let resource_matches = resources.iter().any(|r| {
        r == "*"
            || *r == combined
            || (!a.subresource.is_empty() && *r == format!("*/{}", a.subresource))
    });
    let names = strings(rule, "resourceNames");
    has(&strings(rule, "apiGroups"), &a.group)
        && resource_matches
        && (names.is_empty() || names.contains(&a.name))
}

/// The authorizer chain: `system:masters` first, then RBAC.
pub fn authorize(api: &Api, user: &UserInfo, a: &Attributes) -> Decision {
    if user.is_privileged() {
        return Decision {
            allowed: true,
            reason: String::new(),
        };
    }
    let mut errors = Vec::new();
    for binding in applied(api, user, &a.namespace) {
        match binding.rules {
            Ok(rules) => {
                if rules.iter().any(|r| rule_allows(a, r)) {
                    return Decision {
                        allowed: true,
                        reason: format!("RBAC: allowed by {}", binding.source),
                    };
                }
            }
            Err(e) => errors.push(e),
        }
    }
    let reason = match errors.len() {
        0 => String::new(),
        1 => format!("RBAC: {}", errors[0]),
        _ => format!("RBAC: [{}]", errors.join(", ")),
    };
    Decision {
        allowed: false,
        reason,
    }
}

/// `RulesFor`: the rules of every binding that applies, for `SelfSubjectRulesReview`, and the
/// errors met resolving them.
pub fn rules_for(api: &Api, user: &UserInfo, ns: &str) -> (Vec<Value>, Vec<String>) {
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    for binding in applied(api, user, ns) {
        match binding.rules {
            Ok(r) => rules.extend(r),
            Err(e) => errors.push(e),
        }
    }
    (rules, errors)
}
