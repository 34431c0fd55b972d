//! `user.Info`: who sent a request, as authentication (or impersonation) found it. The kinds that
//! record their requester (a CertificateSigningRequest) read it; `auth` decides what it may do.

use serde_json::{json, Map, Value};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserInfo {
    pub name: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: Map<String, Value>,
}

/// `user.SystemPrivilegedGroup`: authorized for everything before RBAC is asked.
pub const MASTERS: &str = "system:masters";
pub const AUTHENTICATED: &str = "system:authenticated";
/// The identity of the cluster's own kubeconfig (kwokctl's admin certificate names `kwok-admin`).
pub const ADMIN_USER: &str = "kwok-admin";
const SA_PREFIX: &str = "system:serviceaccount:";
const SA_GROUP: &str = "system:serviceaccounts";

impl UserInfo {
    /// The learner's own identity: cluster-admin through `system:masters`.
    pub fn admin() -> UserInfo {
        UserInfo {
            name: ADMIN_USER.into(),
            groups: vec![MASTERS.into(), AUTHENTICATED.into()],
            ..UserInfo::default()
        }
    }

    /// A service account's identity (`serviceaccount.UserInfo`), groups as the token
    /// authenticator and impersonation give them.
    pub fn service_account(ns: &str, name: &str, uid: &str) -> UserInfo {
        UserInfo {
            name: format!("{SA_PREFIX}{ns}:{name}"),
            uid: uid.into(),
            groups: vec![
                SA_GROUP.into(),
                format!("{SA_GROUP}:{ns}"),
                AUTHENTICATED.into(),
            ],
            extra: Map::new(),
        }
    }

    pub fn is_privileged(&self) -> bool {
        self.groups.iter().any(|g| g == MASTERS)
    }

    /// `SelfSubjectReviewStatus.userInfo`.
    pub fn to_json(&self) -> Value {
        let mut v = Map::new();
        v.insert("username".into(), json!(self.name));
        if !self.uid.is_empty() {
            v.insert("uid".into(), json!(self.uid));
        }
        if !self.groups.is_empty() {
            v.insert("groups".into(), json!(self.groups));
        }
        if !self.extra.is_empty() {
            v.insert("extra".into(), Value::Object(self.extra.clone()));
        }
        Value::Object(v)
    }
}

/// `serviceaccount.SplitUsername`: the namespace and name of a service account user.
pub fn split_service_account(username: &str) -> Option<(&str, &str)> {
    let rest = username.strip_prefix(SA_PREFIX)?;
    let (ns, name) = rest.split_once(':')?;
    (!ns.is_empty() && !name.is_empty() && !name.contains(':')).then_some((ns, name))
}
