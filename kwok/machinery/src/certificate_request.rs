//! A CertificateSigningRequest's `spec.request`: the PKCS#10 request it carries, read as
//! `certificates.ParseCSR` (`pkg/apis/certificates/helpers.go`) and `CheckSignature` read it.

use x509_parser::certification_request::X509CertificationRequest;
use x509_parser::extensions::{GeneralName, ParsedExtension};
use x509_parser::prelude::FromDer;

/// The signers of `k8s.io/api/certificates/v1`.
pub const KUBE_APISERVER_CLIENT: &str = "kubernetes.io/kube-apiserver-client";
pub const KUBE_APISERVER_CLIENT_KUBELET: &str = "kubernetes.io/kube-apiserver-client-kubelet";
pub const KUBELET_SERVING: &str = "kubernetes.io/kubelet-serving";
pub const LEGACY_UNKNOWN: &str = "kubernetes.io/legacy-unknown";

/// Condition types (`RequestConditionType`).
pub const APPROVED: &str = "Approved";
pub const DENIED: &str = "Denied";
pub const FAILED: &str = "Failed";

/// What the signers and admission read of a request.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Request {
    /// The requester's public key (`SubjectPublicKeyInfo`).
    pub public_key: Vec<u8>,
    pub common_name: String,
    pub organizations: Vec<String>,
    pub organizational_units: Vec<String>,
    pub countries: Vec<String>,
    pub provinces: Vec<String>,
    pub localities: Vec<String>,
    pub dns_names: Vec<String>,
    pub ip_addresses: Vec<String>,
    pub emails: Vec<String>,
    pub uris: Vec<String>,
}

/// `ParseCSR` then `CheckSignature`: the first PEM block must be a `CERTIFICATE REQUEST` whose
/// signature its own key verifies. Errors read as Go's where the message is the server's own.
pub fn parse(pem: &[u8]) -> Result<Request, String> {
    const WRONG_BLOCK: &str = "PEM block type must be CERTIFICATE REQUEST";
    let block = match x509_parser::pem::parse_x509_pem(pem) {
        Ok((_, block)) if block.label == "CERTIFICATE REQUEST" => block,
        _ => return Err(WRONG_BLOCK.into()),
    };
    let (_, csr) = X509CertificationRequest::from_der(&block.contents)
        .map_err(|e| format!("asn1: structure error: {e}"))?;
    csr.verify_signature()
        .map_err(|_| "x509: signature verification failure".to_string())?;
    let subject = &csr.certification_request_info.subject;
    let text = |attr: &x509_parser::x509::AttributeTypeAndValue| {
        attr.as_str().map(str::to_string).unwrap_or_default()
    };
    let mut request = Request {
        public_key: csr.certification_request_info.subject_pki.raw.to_vec(),
        // `FillFromRDNSequence` keeps the last common name.
        common_name: subject
            .iter_common_name()
            .last()
            .map(text)
            .unwrap_or_default(),
        organizations: subject.iter_organization().map(text).collect(),
        organizational_units: subject.iter_organizational_unit().map(text).collect(),
        countries: subject.iter_country().map(text).collect(),
        provinces: subject.iter_state_or_province().map(text).collect(),
        localities: subject.iter_locality().map(text).collect(),
        ..Request::default()
    };
    for extension in csr.requested_extensions().into_iter().flatten() {
        let ParsedExtension::SubjectAlternativeName(names) = extension else {
            continue;
        };
        for name in &names.general_names {
            match name {
                GeneralName::DNSName(dns) => request.dns_names.push(dns.to_string()),
                GeneralName::RFC822Name(email) => request.emails.push(email.to_string()),
                GeneralName::URI(uri) => request.uris.push(uri.to_string()),
                GeneralName::IPAddress(bytes) => request.ip_addresses.push(ip_text(bytes)),
                _ => {}
            }
        }
    }
    Ok(request)
}

fn ip_text(bytes: &[u8]) -> String {
    match bytes.len() {
        4 => std::net::Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3]).to_string(),
        16 => {
            let mut octets = [0u8; 16];
            octets.copy_from_slice(bytes);
            std::net::Ipv6Addr::from(octets).to_string()
        }
        _ => String::new(),
    }
}

/// `spec.request` (or `status.certificate`) of a stored object: base64 in JSON.
pub fn bytes_at(obj: &serde_json::Value, path: &[&str]) -> Vec<u8> {
    use base64::Engine;
    let text = path
        .iter()
        .fold(obj, |v, key| &v[*key])
        .as_str()
        .unwrap_or("");
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap_or_default()
}

/// A request for `CN=<common_name>, O=<organization>` with a new key, base64 as
/// `spec.request` holds it. For tests, here and in the crates above (`test-support`).
#[cfg(any(test, feature = "test-support"))]
pub fn encoded_for_tests(common_name: &str, organization: &str) -> String {
    use base64::Engine;
    let key = rcgen::KeyPair::generate().unwrap_or_else(|e| panic!("key: {e}"));
    let mut params = rcgen::CertificateParams::default();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, common_name);
    params
        .distinguished_name
        .push(rcgen::DnType::OrganizationName, organization);
    let pem = params
        .serialize_request(&key)
        .and_then(|csr| csr.pem())
        .unwrap_or_else(|e| panic!("request: {e}"));
    base64::engine::general_purpose::STANDARD.encode(pem)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request_pem(names: &[&str], organization: Option<&str>) -> String {
        let key = rcgen::KeyPair::generate().expect("key");
        let mut params =
            rcgen::CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
                .expect("params");
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "alice");
        if let Some(o) = organization {
            params
                .distinguished_name
                .push(rcgen::DnType::OrganizationName, o);
        }
        params
            .serialize_request(&key)
            .expect("request")
            .pem()
            .expect("pem")
    }

    #[test]
    fn a_request_gives_its_subject_and_names() {
        let pem = request_pem(&["alice.example.com", "10.0.0.1"], Some("devs"));
        let parsed = parse(pem.as_bytes()).expect("parses");
        assert_eq!(parsed.common_name, "alice");
        assert_eq!(parsed.organizations, ["devs"]);
        assert_eq!(parsed.dns_names, ["alice.example.com"]);
        assert_eq!(parsed.ip_addresses, ["10.0.0.1"]);
    }

    #[test]
    fn anything_but_a_certificate_request_block_is_refused_as_upstream_words_it() {
        let wrong = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
        for text in ["", "not pem at all", wrong] {
            assert_eq!(
                parse(text.as_bytes()),
                Err("PEM block type must be CERTIFICATE REQUEST".to_string()),
                "{text}"
            );
        }
    }

    #[test]
    fn a_request_whose_signature_does_not_verify_is_refused() {
        let pem = request_pem(&["a.example.com"], None);
        let (_, block) = x509_parser::pem::parse_x509_pem(pem.as_bytes()).expect("pem");
        let mut der = block.contents.clone();
        // The last byte belongs to the signature.
        let last = der.len() - 1;
        der[last] ^= 0x01;
        use base64::Engine;
        let body = base64::engine::general_purpose::STANDARD.encode(&der);
        let tampered = format!(
            "-----BEGIN CERTIFICATE REQUEST-----\n{body}\n-----END CERTIFICATE REQUEST-----\n"
        );
        assert!(parse(tampered.as_bytes()).is_err());
    }
}
