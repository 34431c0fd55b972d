//! Who may approve and sign certificate requests for a signer: the `CertificateApproval` and
//! `CertificateSigning` admission plugins (`plugin/pkg/admission/certificates`), which ask the
//! authorizer about the `signers` resource, as they do upstream.

use serde_json::Value;

use super::attributes::Attributes;
use super::{rbac, UserInfo};
use crate::api::Api;
use crate::error::{go_quote, ApiError};
use crate::resource::ResourceDef;

/// `approve` (an `approval` write) or `sign` (a `status` write).
#[derive(Clone, Copy)]
pub enum SignerVerb {
    Approve,
    Sign,
}

impl SignerVerb {
    fn verb(self) -> &'static str {
        match self {
            SignerVerb::Approve => "approve",
            SignerVerb::Sign => "sign",
        }
    }
}

/// `certificates.IsAuthorizedForSignerName`: the signer by name, else its domain's `<domain>/*`.
fn authorized(api: &Api, user: &UserInfo, verb: SignerVerb, signer: &str) -> bool {
    let ask = |name: String| {
        let attributes = Attributes {
            verb: verb.verb().into(),
            resource_request: true,
            group: "certificates.k8s.io".into(),
            version: "*".into(),
            resource: "signers".into(),
            name,
            ..Attributes::default()
        };
        rbac::authorize(api, user, &attributes).allowed
    };
    ask(signer.to_string())
        || signer
            .split_once('/')
            .is_some_and(|(domain, _)| ask(format!("{domain}/*")))
}

/// The plugins' check, on the stored request's signer.
pub fn admit(
    api: &Api,
    user: &UserInfo,
    res: &ResourceDef,
    stored: &Value,
    verb: SignerVerb,
) -> Result<(), ApiError> {
    let signer = stored["spec"]["signerName"].as_str().unwrap_or("");
    if authorized(api, user, verb, signer) {
        return Ok(());
    }
    let name = stored["metadata"]["name"].as_str().unwrap_or("");
    Err(ApiError::forbidden(
        res,
        name,
        &format!(
            "user not permitted to {} requests with signerName {}",
            verb.verb(),
            go_quote(signer)
        ),
    ))
}
