//! `CertificateSubjectRestriction` (`plugin/pkg/admission/certificates/subjectrestriction`): no
//! client certificate for the `system:masters` group through the API server's client signer.

use serde_json::Value;

use crate::certificate_request::KUBE_APISERVER_CLIENT;
use crate::certificate_request::{self as request, bytes_at};

pub fn validate(obj: &Value) -> Result<(), String> {
    if obj["spec"]["signerName"] != KUBE_APISERVER_CLIENT {
        return Ok(());
    }
    let parsed = request::parse(&bytes_at(obj, &["spec", "request"]))
        .map_err(|e| format!("failed to parse CSR: {e}"))?;
    if parsed.organizations.iter().any(|o| o == "system:masters") {
        return Err(format!(
            "use of {KUBE_APISERVER_CLIENT} signer with system:masters group is not allowed"
        ));
    }
    Ok(())
}
