//! The CSR signer (`pkg/controller/certificates/signer`): an approved request to one of the
//! Kubernetes signers gets a certificate from the cluster's CA in `status.certificate`, or, when
//! it does not meet its signer's rules, a `Failed` condition saying why. Requests it has signed,
//! failed or not yet approved are left alone; nothing approves requests on its own (the
//! `csrapproving` controller only approves kubelets' client certificates, and there are none).

use std::sync::Arc;

use base64::Engine;
use rcgen::{CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyUsagePurpose, SanType};
use serde_json::{json, Value};

use super::{Controller, Pass};
use crate::api::Api;
use crate::certificate_request::{self as request, bytes_at, Request};
use crate::certificate_request::{
    FAILED, KUBELET_SERVING, KUBE_APISERVER_CLIENT, KUBE_APISERVER_CLIENT_KUBELET, LEGACY_UNKNOWN,
};
use crate::kinds::certificates::certificatesigningrequest::{has_true_condition, is_approved};
use crate::meta;
use crate::registry;
use crate::store::Event;
use crate::tls::ClusterCa;

/// `--cluster-signing-duration`'s default: a year.
const SIGNING_DURATION: time::Duration = time::Duration::hours(8760);
/// `PermissiveSigningPolicy`: certificates start five minutes back, and lose those five minutes
/// at the end when they last eight hours or more.
const BACKDATE: time::Duration = time::Duration::minutes(5);
const SHORT: time::Duration = time::Duration::hours(8);

pub struct CsrSigning {
    ca: Arc<ClusterCa>,
}

impl CsrSigning {
    pub fn new(ca: Arc<ClusterCa>) -> Self {
        Self { ca }
    }

    /// `signer.handle`: what the request's status becomes, if anything.
    fn status_for(&self, csr: &Value) -> Option<Value> {
        let issued = csr["status"]["certificate"]
            .as_str()
            .is_some_and(|c| !c.is_empty());
        if issued || !is_approved(csr) || has_true_condition(csr, FAILED) {
            return None;
        }
        let signer = csr["spec"]["signerName"].as_str().unwrap_or("");
        if ![
            KUBE_APISERVER_CLIENT,
            KUBE_APISERVER_CLIENT_KUBELET,
            KUBELET_SERVING,
            LEGACY_UNKNOWN,
        ]
        .contains(&signer)
        {
            return None;
        }
        let parsed = match request::parse(&bytes_at(csr, &["spec", "request"])) {
            Ok(parsed) => parsed,
            Err(e) => {
                tracing::debug!(error = %e, "unable to parse csr {}", meta::name(csr));
                return None;
            }
        };
        let usages: Vec<&str> = csr["spec"]["usages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut status = csr["status"].clone();
        if !status.is_object() {
            status = json!({});
        }
        if let Err(why) = verify(signer, &parsed, &usages) {
            let failed = json!({
                "type": FAILED,
                "status": "True",
                "reason": "SignerValidationFailure",
                "message": why,
                "lastUpdateTime": meta::now(),
            });
            match status["conditions"].as_array_mut() {
                Some(conditions) => conditions.push(failed),
                None => status["conditions"] = json!([failed]),
            }
            return Some(status);
        }
        let seconds = csr["spec"]["expirationSeconds"].as_i64();
        match self.issue(&parsed, &usages, seconds) {
            Ok(pem) => {
                status["certificate"] =
                    json!(base64::engine::general_purpose::STANDARD.encode(pem));
                Some(status)
            }
            Err(e) => {
                tracing::debug!(error = %e, "error auto signing csr {}", meta::name(csr));
                None
            }
        }
    }

    /// `CertificateAuthority.Sign` under the permissive policy.
    fn issue(
        &self,
        parsed: &Request,
        usages: &[&str],
        expiration_seconds: Option<i64>,
    ) -> anyhow::Result<String> {
        let mut params = CertificateParams::default();
        // Not rcgen's placeholder common name.
        params.distinguished_name = rcgen::DistinguishedName::new();
        // Go re-encodes the subject in this order (street, postal code and serial number, which
        // it also keeps, are left out here); rcgen keeps one value per attribute type, the last.
        for (kind, values) in [
            (DnType::CountryName, &parsed.countries),
            (DnType::StateOrProvinceName, &parsed.provinces),
            (DnType::LocalityName, &parsed.localities),
            (DnType::OrganizationName, &parsed.organizations),
            (DnType::OrganizationalUnitName, &parsed.organizational_units),
        ] {
            for value in values {
                params.distinguished_name.push(kind.clone(), value.as_str());
            }
        }
        if !parsed.common_name.is_empty() {
            params
                .distinguished_name
                .push(DnType::CommonName, parsed.common_name.as_str());
        }
        for dns in &parsed.dns_names {
            params
                .subject_alt_names
                .push(SanType::DnsName(dns.clone().try_into()?));
        }
        for ip in &parsed.ip_addresses {
            params
                .subject_alt_names
                .push(SanType::IpAddress(ip.parse()?));
        }
        for email in &parsed.emails {
            params
                .subject_alt_names
                .push(SanType::Rfc822Name(email.clone().try_into()?));
        }
        for uri in &parsed.uris {
            params
                .subject_alt_names
                .push(SanType::URI(uri.clone().try_into()?));
        }
        let (key_usages, extended) = key_usages(usages)?;
        params.key_usages = key_usages;
        params.extended_key_usages = extended;
        params.is_ca = IsCa::ExplicitNoCa;
        params.use_authority_key_identifier_extension = true;
        let serial: [u8; 16] = rand::random();
        params.serial_number = Some(rcgen::SerialNumber::from_slice(&serial));
        let ttl = match expiration_seconds {
            None => SIGNING_DURATION,
            Some(seconds) => time::Duration::seconds(seconds)
                .clamp(time::Duration::minutes(10), SIGNING_DURATION),
        };
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now - BACKDATE;
        params.not_after = if ttl < SHORT {
            now + ttl
        } else {
            now + ttl - BACKDATE
        };
        if params.not_after > self.ca.not_after {
            params.not_after = self.ca.not_after;
        }
        Ok(self.ca.sign(&params, &parsed.public_key)?.pem())
    }
}

/// The per-signer checks (`signer.go` `verify`, `ValidateKubelet{Serving,Client}CSR`).
fn verify(signer: &str, parsed: &Request, usages: &[&str]) -> Result<(), String> {
    let kubelet_subject = || {
        if parsed.organizations != ["system:nodes"] {
            return Err("subject organization is not system:nodes".to_string());
        }
        Ok(())
    };
    let kubelet_name = || {
        if !parsed.common_name.starts_with("system:node:") {
            return Err("subject common name does not begin with system:node:".to_string());
        }
        Ok(())
    };
    match signer {
        KUBE_APISERVER_CLIENT => {
            let mut client_auth = false;
            for usage in usages {
                match *usage {
                    "digital signature" | "key encipherment" => {}
                    "client auth" => client_auth = true,
                    other => return Err(format!("invalid usage for client certificate: {other}")),
                }
            }
            if !client_auth {
                return Err("missing required usage for client certificate: client auth".into());
            }
            Ok(())
        }
        KUBELET_SERVING => {
            kubelet_subject()?;
            if parsed.dns_names.is_empty() && parsed.ip_addresses.is_empty() {
                return Err("DNS or IP subjectAltName is required".into());
            }
            if !parsed.emails.is_empty() {
                return Err("Email subjectAltNames are not allowed".into());
            }
            if !parsed.uris.is_empty() {
                return Err("URI subjectAltNames are not allowed".into());
            }
            let set = usage_set(usages);
            if set != ["digital signature", "key encipherment", "server auth"]
                && set != ["digital signature", "server auth"]
            {
                return Err(
                    "usages did not match [digital signature key encipherment server auth]".into(),
                );
            }
            kubelet_name()
        }
        KUBE_APISERVER_CLIENT_KUBELET => {
            kubelet_subject()?;
            for (present, kind) in [
                (!parsed.dns_names.is_empty(), "DNS"),
                (!parsed.emails.is_empty(), "Email"),
                (!parsed.ip_addresses.is_empty(), "IP"),
                (!parsed.uris.is_empty(), "URI"),
            ] {
                if present {
                    return Err(format!("{kind} subjectAltNames are not allowed"));
                }
            }
            kubelet_name()?;
            let set = usage_set(usages);
            if set != ["client auth", "digital signature", "key encipherment"]
                && set != ["client auth", "digital signature"]
            {
                return Err(
                    "usages did not match [client auth digital signature key encipherment]".into(),
                );
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Usages compared as a set.
fn usage_set<'a>(list: &[&'a str]) -> Vec<&'a str> {
    let mut sorted: Vec<&str> = list.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    sorted
}

/// `keyUsagesFromStrings`.
fn key_usages(
    usages: &[&str],
) -> anyhow::Result<(Vec<KeyUsagePurpose>, Vec<ExtendedKeyUsagePurpose>)> {
    let mut key = Vec::new();
    let mut extended = Vec::new();
    let mut unknown = Vec::new();
    for usage in usages {
        let bit = match *usage {
            "signing" | "digital signature" => Some(KeyUsagePurpose::DigitalSignature),
            "content commitment" => Some(KeyUsagePurpose::ContentCommitment),
            "key encipherment" => Some(KeyUsagePurpose::KeyEncipherment),
            "key agreement" => Some(KeyUsagePurpose::KeyAgreement),
            "data encipherment" => Some(KeyUsagePurpose::DataEncipherment),
            "cert sign" => Some(KeyUsagePurpose::KeyCertSign),
            "crl sign" => Some(KeyUsagePurpose::CrlSign),
            "encipher only" => Some(KeyUsagePurpose::EncipherOnly),
            "decipher only" => Some(KeyUsagePurpose::DecipherOnly),
            _ => None,
        };
        let purpose = match *usage {
            "any" => Some(ExtendedKeyUsagePurpose::Any),
            "server auth" => Some(ExtendedKeyUsagePurpose::ServerAuth),
            "client auth" => Some(ExtendedKeyUsagePurpose::ClientAuth),
            "code signing" => Some(ExtendedKeyUsagePurpose::CodeSigning),
            "email protection" | "s/mime" => Some(ExtendedKeyUsagePurpose::EmailProtection),
            "timestamping" => Some(ExtendedKeyUsagePurpose::TimeStamping),
            "ocsp signing" => Some(ExtendedKeyUsagePurpose::OcspSigning),
            "ipsec end system" => Some(ExtendedKeyUsagePurpose::Other(vec![
                1, 3, 6, 1, 5, 5, 7, 3, 5,
            ])),
            "ipsec tunnel" => Some(ExtendedKeyUsagePurpose::Other(vec![
                1, 3, 6, 1, 5, 5, 7, 3, 6,
            ])),
            "ipsec user" => Some(ExtendedKeyUsagePurpose::Other(vec![
                1, 3, 6, 1, 5, 5, 7, 3, 7,
            ])),
            "microsoft sgc" => Some(ExtendedKeyUsagePurpose::Other(vec![
                1, 3, 6, 1, 4, 1, 311, 10, 3, 3,
            ])),
            "netscape sgc" => Some(ExtendedKeyUsagePurpose::Other(vec![
                2, 16, 840, 1, 113730, 4, 1,
            ])),
            _ => None,
        };
        match (bit, purpose) {
            (None, None) => unknown.push(*usage),
            (bit, purpose) => {
                if let Some(bit) = bit {
                    if !key.contains(&bit) {
                        key.push(bit);
                    }
                }
                if let Some(purpose) = purpose {
                    if !extended.contains(&purpose) {
                        extended.push(purpose);
                    }
                }
            }
        }
    }
    if !unknown.is_empty() {
        anyhow::bail!("unrecognized usage values: {unknown:?}");
    }
    Ok((key, extended))
}

impl Controller for CsrSigning {
    fn name(&self) -> &'static str {
        "csrsigning"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::CERTIFICATESIGNINGREQUESTS)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let requests = api
            .store()
            .list(&registry::CERTIFICATESIGNINGREQUESTS, None)
            .0;
        for csr in requests {
            let Some(status) = self.status_for(&csr.value) else {
                continue;
            };
            let mut updated = csr.value.clone();
            updated["status"] = status;
            let written = api.update_status(&registry::CERTIFICATESIGNINGREQUESTS, updated);
            pass.check("updating a certificate request's status", written);
        }
        pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::WriteOptions;
    use crate::certificate_request::encoded_for_tests;
    use crate::store::Store;
    use x509_parser::prelude::{FromDer, X509Certificate};

    fn approved(name: &str, usages: Value, seconds: Option<i64>) -> Value {
        let mut spec = json!({"request": encoded_for_tests("jane", "developers"), "usages": usages,
            "signerName": KUBE_APISERVER_CLIENT});
        if let Some(seconds) = seconds {
            spec["expirationSeconds"] = json!(seconds);
        }
        json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"name": name}, "spec": spec})
    }

    fn approve(api: &Api, name: &str) {
        let mut obj = api
            .get(&registry::CERTIFICATESIGNINGREQUESTS, "", name)
            .expect("stored")
            .value
            .clone();
        obj["status"]["conditions"] = json!([{"type": "Approved", "status": "True"}]);
        api.update(
            &registry::CERTIFICATESIGNINGREQUESTS,
            "",
            name,
            obj,
            Some("approval"),
            &WriteOptions::default(),
        )
        .expect("approved");
    }

    #[test]
    fn an_approved_request_gets_a_certificate_of_the_ca_for_its_subject_and_duration() {
        let api = Api::new(Arc::new(Store::new()));
        let ca = Arc::new(ClusterCa::generate().expect("ca"));
        let mut signer = CsrSigning::new(ca.clone());
        let csrs = &registry::CERTIFICATESIGNINGREQUESTS;
        api.create(
            csrs,
            "",
            approved("jane", json!(["client auth"]), Some(86400)),
            &WriteOptions::default(),
        )
        .expect("created");
        // Not approved yet: nothing happens.
        assert!(!signer.reconcile(&api).failed());
        let pending = api.get(csrs, "", "jane").expect("stored");
        assert!(pending.value["status"].get("certificate").is_none());

        approve(&api, "jane");
        assert!(!signer.reconcile(&api).failed());
        let issued = api.get(csrs, "", "jane").expect("stored");
        let pem = bytes_at(&issued.value, &["status", "certificate"]);
        let (_, block) = x509_parser::pem::parse_x509_pem(&pem).expect("pem");
        let (_, certificate) = X509Certificate::from_der(&block.contents).expect("certificate");
        assert_eq!(certificate.subject().to_string(), "O=developers, CN=jane");
        assert_eq!(certificate.issuer().to_string(), "CN=kubernetes");
        let validity = certificate.validity();
        // Backdated five minutes, and five minutes short at the end: a day in all.
        assert_eq!(
            validity.not_after.timestamp() - validity.not_before.timestamp(),
            86400
        );
        let usage = certificate
            .extended_key_usage()
            .expect("eku")
            .expect("present");
        assert!(usage.value.client_auth && !usage.value.server_auth);
    }

    #[test]
    fn a_request_its_signer_may_not_sign_fails_with_the_reason() {
        let api = Api::new(Arc::new(Store::new()));
        let mut signer = CsrSigning::new(Arc::new(ClusterCa::generate().expect("ca")));
        let csrs = &registry::CERTIFICATESIGNINGREQUESTS;
        api.create(
            csrs,
            "",
            approved("serving", json!(["server auth"]), None),
            &WriteOptions::default(),
        )
        .expect("created");
        approve(&api, "serving");
        assert!(!signer.reconcile(&api).failed());
        let failed = api.get(csrs, "", "serving").expect("stored").value.clone();
        assert!(failed["status"].get("certificate").is_none());
        let condition = &failed["status"]["conditions"][1];
        assert_eq!(condition["type"], "Failed");
        assert_eq!(condition["reason"], "SignerValidationFailure");
        assert_eq!(
            condition["message"],
            "invalid usage for client certificate: server auth"
        );
    }
}
