//! RBAC objects (pkg/apis/rbac/validation/validation.go): rules, role references and subjects.

use serde_json::Value;

use super::labels::label_selector;
use super::meta::{object_meta, object_meta_update};
use super::path::{invalid, not_supported, required, Path};
use super::read::{list, s};
use crate::error::{go_quote, FieldError};
use crate::gofmt::go_syntax;
use crate::names;

const GROUP: &str = crate::defaults::rbac::GROUP;

/// `ValidateRBACName` = `path.IsValidPathSegmentName`.
fn rbac_name(name: &str, _prefix: bool) -> Vec<String> {
    names::path_segment_name(name)
}

/// `ValidatePolicyRule`.
fn policy_rule(rule: &Value, namespaced: bool, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if list(rule, "verbs").is_empty() {
        errs.push(required(
            &p.child("verbs"),
            "verbs must contain at least one value",
        ));
    }
    let urls = list(rule, "nonResourceURLs");
    if !urls.is_empty() {
        let value = go_syntax::string_slice(rule.get("nonResourceURLs"));
        if namespaced {
            errs.push(invalid(
                &p.child("nonResourceURLs"),
                value.clone(),
                "namespaced rules cannot apply to non-resource URLs",
            ));
        }
        if ["apiGroups", "resources", "resourceNames"]
            .iter()
            .any(|k| !list(rule, k).is_empty())
        {
            errs.push(invalid(
                &p.child("nonResourceURLs"),
                value,
                "rules cannot apply to both regular resources and non-resource URLs",
            ));
        }
        return errs;
    }
    if list(rule, "apiGroups").is_empty() {
        errs.push(required(
            &p.child("apiGroups"),
            "resource rules must supply at least one api group",
        ));
    }
    if list(rule, "resources").is_empty() {
        errs.push(required(
            &p.child("resources"),
            "resource rules must supply at least one resource",
        ));
    }
    errs
}

fn rules(obj: &Value, namespaced: bool) -> Vec<FieldError> {
    list(obj, "rules")
        .iter()
        .enumerate()
        .flat_map(|(i, r)| policy_rule(r, namespaced, &Path::new("rules").index(i)))
        .collect()
}

/// `ValidateRole`.
pub fn role(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, true, rbac_name, true);
    errs.extend(rules(obj, true));
    errs
}

/// `ValidateClusterRole`, with the aggregation rule's selectors.
pub fn cluster_role(obj: &Value) -> Vec<FieldError> {
    let mut errs = object_meta(obj, false, rbac_name, true);
    errs.extend(rules(obj, false));
    if let Some(rule) = obj.get("aggregationRule").filter(|v| !v.is_null()) {
        let p = Path::new("aggregationRule").child("clusterRoleSelectors");
        let selectors = list(rule, "clusterRoleSelectors");
        if selectors.is_empty() {
            errs.push(required(
                &p,
                "at least one clusterRoleSelector required if aggregationRule is non-nil",
            ));
        }
        for (i, sel) in selectors.iter().enumerate() {
            errs.extend(label_selector(Some(sel), &p.index(i)));
        }
    }
    errs
}

pub fn role_update(new: &Value, old: &Value, namespaced: bool) -> Vec<FieldError> {
    let mut errs = if namespaced {
        role(new)
    } else {
        cluster_role(new)
    };
    errs.extend(object_meta_update(new, old, true));
    errs
}

/// `ValidateRoleBindingSubject`.
fn subject(subject: &Value, namespaced: bool, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name = s(subject, "name");
    if name.is_empty() {
        errs.push(required(&p.child("name"), ""));
    }
    let group = s(subject, "apiGroup");
    match s(subject, "kind") {
        "ServiceAccount" => {
            if !name.is_empty() {
                for m in names::name_is_dns_subdomain(name, false) {
                    errs.push(invalid(&p.child("name"), go_quote(name), m));
                }
            }
            if !group.is_empty() {
                errs.push(not_supported(&p.child("apiGroup"), go_quote(group), &[""]));
            }
            if !namespaced && s(subject, "namespace").is_empty() {
                errs.push(required(&p.child("namespace"), ""));
            }
        }
        "User" | "Group" => {
            if group != GROUP {
                errs.push(not_supported(
                    &p.child("apiGroup"),
                    go_quote(group),
                    &[GROUP],
                ));
            }
        }
        other => errs.push(not_supported(
            &p.child("kind"),
            go_quote(other),
            &["ServiceAccount", "User", "Group"],
        )),
    }
    errs
}

/// `ValidateRoleBinding` / `ValidateClusterRoleBinding`.
pub fn binding(obj: &Value, namespaced: bool) -> Vec<FieldError> {
    let mut errs = object_meta(obj, namespaced, rbac_name, true);
    let role_ref = obj.get("roleRef").unwrap_or(&Value::Null);
    let rp = Path::new("roleRef");
    let group = s(role_ref, "apiGroup");
    if group != GROUP {
        errs.push(not_supported(
            &rp.child("apiGroup"),
            go_quote(group),
            &[GROUP],
        ));
    }
    let kinds: &[&str] = if namespaced {
        &["Role", "ClusterRole"]
    } else {
        &["ClusterRole"]
    };
    let kind = s(role_ref, "kind");
    if !kinds.contains(&kind) {
        errs.push(not_supported(&rp.child("kind"), go_quote(kind), kinds));
    }
    let name = s(role_ref, "name");
    if name.is_empty() {
        errs.push(required(&rp.child("name"), ""));
    } else {
        for m in rbac_name(name, false) {
            errs.push(invalid(&rp.child("name"), go_quote(name), m));
        }
    }
    for (i, sub) in list(obj, "subjects").iter().enumerate() {
        errs.extend(subject(sub, namespaced, &Path::new("subjects").index(i)));
    }
    errs
}

/// The internal `rbac.RoleRef` as `%#v` prints it.
fn role_ref_value(r: &Value) -> String {
    format!(
        "rbac.RoleRef{{APIGroup:{}, Kind:{}, Name:{}}}",
        go_quote(s(r, "apiGroup")),
        go_quote(s(r, "kind")),
        go_quote(s(r, "name"))
    )
}

/// `ValidateRoleBindingUpdate`: the role reference is fixed.
pub fn binding_update(new: &Value, old: &Value, namespaced: bool) -> Vec<FieldError> {
    let mut errs = binding(new, namespaced);
    errs.extend(object_meta_update(new, old, true));
    if new.get("roleRef") != old.get("roleRef") {
        errs.push(invalid(
            &Path::new("roleRef"),
            role_ref_value(&new["roleRef"]),
            "cannot change roleRef",
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use crate::validation::messages;
    use serde_json::json;

    #[test]
    fn rules_need_verbs_groups_and_resources() {
        let role = json!({"metadata": {"name": "r", "namespace": "n"},
            "rules": [{"verbs": []}, {"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]});
        assert_eq!(messages(super::role(&role)), vec![
            "rules[0].verbs: Required value: verbs must contain at least one value",
            "rules[0].apiGroups: Required value: resource rules must supply at least one api group",
            "rules[0].resources: Required value: resource rules must supply at least one resource",
            "rules[1].nonResourceURLs: Invalid value: []string{\"/healthz\"}: namespaced rules cannot apply to non-resource URLs",
        ]);
    }

    #[test]
    fn bindings_check_the_reference_and_subjects() {
        let b = json!({"metadata": {"name": "b"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "x"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "Robot", "name": "r"}]});
        assert_eq!(messages(super::binding(&b, false)), vec![
            "roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"",
            "subjects[0].namespace: Required value",
            "subjects[1].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\"",
        ]);
        let mut new = b.clone();
        new["roleRef"]["name"] = json!("y");
        let errs = messages(super::binding_update(&new, &b, true));
        assert_eq!(errs.last().map(String::as_str), Some(
            "roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"Role\", Name:\"y\"}: cannot change roleRef"
        ));
    }
}
