//! `user.Info`: who sent a request, as authentication (or impersonation) found it. The kinds that
//! record their requester (a CertificateSigningRequest) read it; `auth` decides what it may do.

use serde_json::{Map, Value};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserInfo {
    pub name: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: Map<String, Value>,
}
