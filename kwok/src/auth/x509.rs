//! Client certificate authentication (`staging/src/k8s.io/apiserver/pkg/authentication/request/
//! x509`, `CommonNameUserConversion`): the certificate's common name is the user, its
//! organizations the groups, its digest the credential id. Only a certificate the cluster's CA
//! issued gets here (`tls::ClusterCa::issued`).

use serde_json::json;
use sha2::{Digest, Sha256};
use x509_parser::prelude::{FromDer, X509Certificate};

use super::{UserInfo, AUTHENTICATED};

/// The user a client certificate names; none without a common name (upstream then asks the
/// next authenticator).
pub fn user_of(der: &[u8]) -> Option<UserInfo> {
    let (_, certificate) = X509Certificate::from_der(der).ok()?;
    let subject = certificate.subject();
    let name = subject
        .iter_common_name()
        .next()?
        .as_str()
        .ok()?
        .to_string();
    if name.is_empty() {
        return None;
    }
    let mut groups: Vec<String> = subject
        .iter_organization()
        .filter_map(|o| o.as_str().ok().map(str::to_string))
        .collect();
    // The authenticator chain adds the authenticated group to every user it found.
    if !groups.iter().any(|g| g == AUTHENTICATED) {
        groups.push(AUTHENTICATED.to_string());
    }
    // `authentication.kubernetes.io/credential-id`, as the x509 authenticator records it.
    let digest = crate::gofmt::go_x(&Sha256::digest(der));
    let mut extra = serde_json::Map::new();
    extra.insert(
        "authentication.kubernetes.io/credential-id".into(),
        json!([format!("X509SHA256={digest}")]),
    );
    Some(UserInfo {
        name,
        groups,
        extra,
        ..UserInfo::default()
    })
}
