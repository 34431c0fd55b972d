//! RBAC defaults (pkg/apis/rbac/v1/defaults.go): the role reference's group, and each subject's
//! (`""` for service accounts, the RBAC group for users and groups).

use serde_json::{json, Map, Value};

use super::fields::{child, default_zero, each, str_of};

pub const GROUP: &str = "rbac.authorization.k8s.io";

/// `SetDefaults_RoleBinding` / `SetDefaults_ClusterRoleBinding` and `SetDefaults_Subject`.
pub fn binding(obj: &mut Map<String, Value>) {
    if let Some(role_ref) = child(obj, "roleRef") {
        default_zero(role_ref, "apiGroup", json!(GROUP));
    }
    for subject in each(obj, "subjects") {
        if str_of(subject, "apiGroup").is_empty() {
            match str_of(subject, "kind") {
                // The core group: `""`, which `omitempty` leaves out.
                "ServiceAccount" => {}
                "User" | "Group" => {
                    subject.insert("apiGroup".into(), json!(GROUP));
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn users_and_groups_get_the_rbac_group_accounts_none() {
        let mut b = json!({"roleRef": {"kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "name": "a"}, {"kind": "ServiceAccount", "name": "s", "namespace": "n"}]});
        super::binding(b.as_object_mut().expect("object"));
        assert_eq!(b["roleRef"]["apiGroup"], super::GROUP);
        assert_eq!(b["subjects"][0]["apiGroup"], super::GROUP);
        assert!(b["subjects"][1].get("apiGroup").is_none());
    }
}
