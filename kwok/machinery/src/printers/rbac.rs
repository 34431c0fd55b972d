//! RBAC bindings (`printRoleBinding`, `printClusterRoleBinding` in printers.go). Roles and
//! ClusterRoles have no printer: their storage uses the default table (`NAME`, `CREATED AT`).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::column::Column;
use super::docs;
use super::values::{age, arr_at, name, str_at};

pub const ROLE_BINDING_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Role", "string", docs::ROLE_BINDING_ROLE_REF),
    Column::age(),
    Column::new("Users", "string", "Users in the roleBinding").wide(),
    Column::new("Groups", "string", "Groups in the roleBinding").wide(),
    Column::new(
        "ServiceAccounts",
        "string",
        "ServiceAccounts in the roleBinding",
    )
    .wide(),
];

pub const CLUSTER_ROLE_BINDING_COLUMNS: &[Column] = &[
    Column::name(),
    Column::new("Role", "string", docs::ROLE_BINDING_ROLE_REF),
    Column::age(),
    Column::new("Users", "string", "Users in the clusterRoleBinding").wide(),
    Column::new("Groups", "string", "Groups in the clusterRoleBinding").wide(),
    Column::new(
        "ServiceAccounts",
        "string",
        "ServiceAccounts in the clusterRoleBinding",
    )
    .wide(),
];

/// `rbac.SubjectsStrings`: users, groups, and service accounts as `namespace/name`.
fn subjects(binding: &Value) -> [String; 3] {
    let (mut users, mut groups, mut sas) = (Vec::new(), Vec::new(), Vec::new());
    for s in arr_at(binding, &["subjects"]) {
        let n = str_at(s, &["name"]).to_string();
        match str_at(s, &["kind"]) {
            "User" => users.push(n),
            "Group" => groups.push(n),
            "ServiceAccount" => sas.push(format!("{}/{n}", str_at(s, &["namespace"]))),
            _ => {}
        }
    }
    [users.join(", "), groups.join(", "), sas.join(", ")]
}

pub fn binding_cells(binding: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let role = format!(
        "{}/{}",
        str_at(binding, &["roleRef", "kind"]),
        str_at(binding, &["roleRef", "name"])
    );
    let [users, groups, sas] = subjects(binding);
    vec![
        name(binding),
        Value::from(role),
        age(binding, now),
        Value::from(users),
        Value::from(groups),
        Value::from(sas),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn bindings_show_the_role_and_subjects_by_kind() {
        let b = json!({"metadata": {"name": "auditors"},
            "roleRef": {"kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "ServiceAccount", "name": "gpu-auditor", "namespace": "gpu-share"},
                         {"kind": "User", "name": "alice"}, {"kind": "Group", "name": "devs"},
                         {"kind": "User", "name": "bob"}]});
        let cells = super::binding_cells(&b, chrono::Utc::now());
        assert_eq!(cells[1], "ClusterRole/view");
        assert_eq!(cells[3], "alice, bob");
        assert_eq!(cells[4], "devs");
        assert_eq!(cells[5], "gpu-share/gpu-auditor");
    }
}
