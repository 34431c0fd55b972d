//! Service account tokens: the JWTs `TokenRequest` issues (`pkg/serviceaccount/claims.go`) and
//! the authenticator that accepts them. Signed with HMAC-SHA256 under a key made when the cluster
//! starts (upstream signs with the `--service-account-signing-key-file` key); the claims are
//! upstream's.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::UserInfo;
use crate::api::Api;
use crate::meta;
use crate::registry::SERVICEACCOUNTS;

/// kwokctl's `--service-account-issuer`, the default audience too.
pub const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";
/// `credential-id` extra key (ServiceAccountTokenJTI).
const CREDENTIAL_ID: &str = "authentication.kubernetes.io/credential-id";

/// The signing key of one cluster.
#[derive(Clone)]
pub struct Keys {
    secret: [u8; 32],
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys(..)")
    }
}

impl Default for Keys {
    fn default() -> Self {
        use rand::Rng;
        Keys {
            secret: rand::rng().random(),
        }
    }
}

/// HMAC-SHA256 (RFC 2104).
fn hmac(key: &[u8; 32], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(key);
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

impl Keys {
    /// A token for the service account `sa`, valid `seconds` from `now` (unix seconds).
    pub fn issue(&self, sa: &Value, audiences: &[String], now: i64, seconds: i64) -> String {
        let ns = meta::namespace(sa);
        let name = meta::name(sa);
        let claims = json!({
            "aud": audiences,
            "exp": now + seconds,
            "iat": now,
            "iss": ISSUER,
            "jti": meta::new_uid(),
            "kubernetes.io": {"namespace": ns,
                "serviceaccount": {"name": name, "uid": meta::uid(sa)}},
            "nbf": now,
            "sub": format!("system:serviceaccount:{ns}:{name}"),
        });
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
        let body = URL_SAFE_NO_PAD.encode(claims.to_string());
        let signed = format!("{header}.{body}");
        let sig = URL_SAFE_NO_PAD.encode(hmac(&self.secret, signed.as_bytes()));
        format!("{signed}.{sig}")
    }

    /// The user a token names, when it is ours, current, and its account still exists with
    /// the uid it was issued for (`validator.Validate`).
    pub fn authenticate(&self, api: &Api, token: &str, now: i64) -> Option<UserInfo> {
        let (signed, sig) = token.rsplit_once('.')?;
        let expected = URL_SAFE_NO_PAD.encode(hmac(&self.secret, signed.as_bytes()));
        if !constant_time_eq(expected.as_bytes(), sig.as_bytes()) {
            return None;
        }
        let (_, body) = signed.split_once('.')?;
        let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body).ok()?).ok()?;
        if claims["exp"].as_i64()? < now || claims["nbf"].as_i64()? > now {
            return None;
        }
        let k = &claims["kubernetes.io"];
        let (ns, name) = (
            k["namespace"].as_str()?,
            k["serviceaccount"]["name"].as_str()?,
        );
        let uid = k["serviceaccount"]["uid"].as_str()?;
        let sa = api.store().get(&SERVICEACCOUNTS, ns, name)?;
        if meta::uid(&sa.value) != uid || meta::is_deleting(&sa.value) {
            return None;
        }
        let mut user = UserInfo::service_account(ns, name, uid);
        if let Some(jti) = claims["jti"].as_str() {
            user.extra
                .insert(CREDENTIAL_ID.into(), json!([format!("JTI={jti}")]));
        }
        Some(user)
    }
}

/// Equality of two secrets that takes as long wherever they differ, so that a guess learns
/// nothing from the time an answer takes.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_case_2_shape() {
        // RFC 4231 test case 1 uses a 20-byte key; padded to 32 bytes with zeros it is the same
        // key for HMAC (keys shorter than the block are zero-padded).
        let mut key = [0u8; 32];
        key[..20].copy_from_slice(&[0x0b; 20]);
        let mac = hmac(&key, b"Hi There");
        let hex = crate::gofmt::go_x(&mac);
        assert_eq!(
            hex,
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
    }
}
