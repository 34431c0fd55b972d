//! CertificateSigningRequests (`pkg/apis/certificates/validation/validation.go`) and signer
//! names (`ValidateSignerName`, `pkg/apis/core/validation/names.go`).

use serde_json::Value;

use super::meta::{object_meta, object_meta_update};
use super::path::{duplicate, forbidden, invalid, not_supported, required, too_long, Path};
use crate::certificate_request::{
    self as request, bytes_at, APPROVED, DENIED, FAILED, LEGACY_UNKNOWN,
};
use crate::error::{go_quote, FieldError};
use crate::names;

/// `allValidUsages`, sorted as `sets.String.List()` lists them.
const VALID_USAGES: &[&str] = &[
    "any",
    "cert sign",
    "client auth",
    "code signing",
    "content commitment",
    "crl sign",
    "data encipherment",
    "decipher only",
    "digital signature",
    "email protection",
    "encipher only",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "key agreement",
    "key encipherment",
    "microsoft sgc",
    "netscape sgc",
    "ocsp signing",
    "s/mime",
    "server auth",
    "signing",
    "timestamping",
];

/// Which endpoint writes: the main resource, `status` (the signer) or `approval`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    Main,
    Status,
    Approval,
}

/// `certificateValidationOptions`: what stored data (and the writing endpoint) tolerates.
#[derive(Default)]
struct Options {
    setting_approval_conditions: bool,
    setting_certificate: bool,
    both_approved_and_denied: bool,
    legacy_signer_name: bool,
    duplicate_condition_types: bool,
    empty_condition_type: bool,
    arbitrary_certificate: bool,
    unknown_usages: bool,
    duplicate_usages: bool,
}

fn conditions(obj: &Value) -> &[Value] {
    obj["status"]["conditions"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn usages(obj: &Value) -> Vec<&str> {
    obj["spec"]["usages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|u| u.as_str().unwrap_or(""))
        .collect()
}

/// `getValidationOptions`.
fn options(new: &Value, old: Option<&Value>) -> Options {
    let Some(old) = old else {
        return Options::default();
    };
    let has = |kind: &str| conditions(old).iter().any(|c| c["type"] == kind);
    let types: Vec<&str> = conditions(old)
        .iter()
        .map(|c| c["type"].as_str().unwrap_or(""))
        .collect();
    let old_usages = usages(old);
    let certificate = |obj: &Value| bytes_at(obj, &["status", "certificate"]);
    Options {
        both_approved_and_denied: has(APPROVED) && has(DENIED),
        legacy_signer_name: old["spec"]["signerName"] == LEGACY_UNKNOWN,
        duplicate_condition_types: (1..types.len()).any(|i| types[..i].contains(&types[i])),
        empty_condition_type: types.contains(&""),
        arbitrary_certificate: certificate(new) == certificate(old)
            || validate_certificate(&certificate(old)).is_err(),
        unknown_usages: old_usages.iter().any(|u| !VALID_USAGES.contains(u)),
        duplicate_usages: (1..old_usages.len()).any(|i| old_usages[..i].contains(&old_usages[i])),
        ..Options::default()
    }
}

/// `ValidateCertificateSigningRequestCreate`.
pub fn create(obj: &Value) -> Vec<FieldError> {
    request_errors(obj, &options(obj, None))
}

/// `ValidateCertificateSigningRequest{,Status,Approval}Update`.
pub fn update(new: &Value, old: &Value, writer: Writer) -> Vec<FieldError> {
    let mut opts = options(new, Some(old));
    opts.setting_certificate = writer == Writer::Status;
    opts.setting_approval_conditions = writer == Writer::Approval;
    let mut errs = request_errors(new, &opts);
    let path = Path::of(&["status", "conditions"]);
    let of_kind = |obj: &Value, kind: &str| -> Vec<Value> {
        conditions(obj)
            .iter()
            .filter(|c| c["type"] == kind)
            .cloned()
            .collect()
    };
    for kind in [APPROVED, DENIED, FAILED] {
        if of_kind(new, kind).len() < of_kind(old, kind).len() {
            errs.push(forbidden(
                &path,
                format!(
                    "updates may not remove a condition of type {}",
                    go_quote(kind)
                ),
            ));
        }
    }
    if !opts.setting_approval_conditions {
        for kind in [APPROVED, DENIED] {
            let (before, after) = (of_kind(old, kind), of_kind(new, kind));
            if after.len() > before.len() {
                errs.push(forbidden(
                    &path,
                    format!("updates may not add a condition of type {}", go_quote(kind)),
                ));
            } else if after.len() == before.len() && after != before {
                errs.push(forbidden(
                    &path,
                    format!(
                        "updates may not modify a condition of type {}",
                        go_quote(kind)
                    ),
                ));
            }
        }
    }
    let (before, after) = (
        bytes_at(old, &["status", "certificate"]),
        bytes_at(new, &["status", "certificate"]),
    );
    if before != after {
        let path = Path::of(&["status", "certificate"]);
        if !opts.setting_certificate {
            errs.push(forbidden(&path, "updates may not set certificate content"));
        } else if !before.is_empty() {
            errs.push(forbidden(
                &path,
                "updates may not modify existing certificate content",
            ));
        }
    }
    errs.extend(object_meta_update(new, old, true));
    errs
}

/// `validateCertificateSigningRequest`.
fn request_errors(obj: &Value, opts: &Options) -> Vec<FieldError> {
    // `ValidateCertificateRequestName` accepts every name.
    let mut errs = object_meta(obj, false, |_, _| Vec::new(), true);
    let spec = Path::new("spec");
    let pem = bytes_at(obj, &["spec", "request"]);
    if let Err(e) = request::parse(&pem) {
        errs.push(invalid(&spec.child("request"), go_bytes(&pem), e));
    }
    let usages = usages(obj);
    if usages.is_empty() {
        errs.push(required(&spec.child("usages"), ""));
    }
    let at = |i: usize| spec.child("usages").index(i);
    if !opts.unknown_usages {
        for (i, usage) in usages.iter().enumerate() {
            if !VALID_USAGES.contains(usage) {
                errs.push(not_supported(&at(i), go_quote(usage), VALID_USAGES));
            }
        }
    }
    if !opts.duplicate_usages {
        for (i, usage) in usages.iter().enumerate() {
            if usages[..i].contains(usage) {
                errs.push(duplicate(&at(i), go_quote(usage)));
            }
        }
    }
    let signer = obj["spec"]["signerName"].as_str().unwrap_or("");
    let signer_path = spec.child("signerName");
    if !opts.legacy_signer_name && signer == LEGACY_UNKNOWN {
        errs.push(invalid(
            &signer_path,
            go_quote(signer),
            "the legacy signerName is not allowed via this API version",
        ));
    } else {
        errs.extend(signer_name(&signer_path, signer));
    }
    if let Some(seconds) = obj["spec"]["expirationSeconds"].as_i64() {
        if seconds < 600 {
            errs.push(invalid(
                &spec.child("expirationSeconds"),
                seconds.to_string(),
                "may not specify a duration less than 600 seconds (10 minutes)",
            ));
        }
    }
    errs.extend(condition_errors(obj, opts));
    if !opts.arbitrary_certificate {
        if let Err(e) = validate_certificate(&bytes_at(obj, &["status", "certificate"])) {
            errs.push(invalid(
                &Path::of(&["status", "certificate"]),
                go_quote("<certificate data>"),
                e,
            ));
        }
    }
    errs
}

/// `validateConditions`.
fn condition_errors(obj: &Value, opts: &Options) -> Vec<FieldError> {
    let path = Path::of(&["status", "conditions"]);
    let mut errs = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let (mut approved, mut denied) = (false, false);
    for (i, condition) in conditions(obj).iter().enumerate() {
        let at = path.index(i);
        let kind = condition["type"].as_str().unwrap_or("");
        if !opts.empty_condition_type && kind.is_empty() {
            errs.push(required(&at.child("type"), ""));
        }
        let allowed: &[&str] = if [APPROVED, DENIED, FAILED].contains(&kind) {
            &["True"]
        } else {
            &["False", "True", "Unknown"]
        };
        match condition["status"].as_str().unwrap_or("") {
            "" => errs.push(required(&at.child("status"), "")),
            status if !allowed.contains(&status) => {
                errs.push(not_supported(
                    &at.child("status"),
                    go_quote(status),
                    allowed,
                ));
            }
            _ => {}
        }
        if !opts.both_approved_and_denied {
            let clash = match kind {
                APPROVED => {
                    approved = true;
                    denied
                }
                DENIED => {
                    denied = true;
                    approved
                }
                _ => false,
            };
            if clash {
                errs.push(invalid(
                    &at.child("type"),
                    go_quote(kind),
                    "Approved and Denied conditions are mutually exclusive",
                ));
            }
        }
        if !opts.duplicate_condition_types {
            if seen.contains(&kind) {
                errs.push(duplicate(&at.child("type"), go_quote(kind)));
            }
            seen.push(kind);
        }
    }
    errs
}

/// `validateCertificate`: nothing, or CERTIFICATE blocks only, each holding certificates.
pub fn validate_certificate(pem: &[u8]) -> Result<(), String> {
    if pem.is_empty() {
        return Ok(());
    }
    let mut blocks = 0;
    for block in x509_parser::pem::Pem::iter_from_buffer(pem) {
        let Ok(block) = block else {
            break;
        };
        if block.label != "CERTIFICATE" {
            return Err(format!(
                "only CERTIFICATE PEM blocks are allowed, found {}",
                go_quote(&block.label)
            ));
        }
        blocks += 1;
        block
            .parse_x509()
            .map_err(|e| format!("x509: malformed certificate: {e}"))?;
    }
    if blocks == 0 {
        return Err("must contain at least one CERTIFICATE PEM block".into());
    }
    Ok(())
}

/// `ValidateSignerName`: `<domain>/<path>`, the domain of at least two DNS labels.
pub fn signer_name(path: &Path, name: &str) -> Vec<FieldError> {
    if name.is_empty() {
        return vec![required(path, "")];
    }
    let parts: Vec<&str> = name.split('/').collect();
    let [domain, rest] = parts[..] else {
        return vec![invalid(
            path,
            go_quote(name),
            "must be a fully qualified domain and path of the form 'example.com/signer-name'",
        )];
    };
    let mut errs = Vec::new();
    if domain.len() > names::DNS1123_SUBDOMAIN_MAX {
        errs.push(too_long(path, names::DNS1123_SUBDOMAIN_MAX));
    }
    errs.extend(first_bad_label(path, domain, names::dns1123_label));
    if domain.split('.').count() < 2 {
        errs.push(invalid(
            path,
            go_quote(domain),
            "should be a domain with at least two segments separated by dots",
        ));
    }
    errs.extend(first_bad_label(path, rest, names::dns1123_subdomain));
    // A domain, a slash and a path of one subdomain and one label at most.
    let max = names::DNS1123_SUBDOMAIN_MAX
        + 1
        + names::DNS1123_SUBDOMAIN_MAX
        + names::DNS1123_LABEL_MAX
        + 1;
    if name.len() > max {
        errs.push(too_long(path, max));
    }
    errs
}

/// The problems of the first of `text`'s dot-separated labels that `check` refuses, each naming
/// the label and valued with the whole text.
fn first_bad_label(path: &Path, text: &str, check: fn(&str) -> Vec<String>) -> Vec<FieldError> {
    text.split('.')
        .map(|label| (label, check(label)))
        .find(|(_, problems)| !problems.is_empty())
        .map(|(label, problems)| {
            problems
                .into_iter()
                .map(|problem| {
                    invalid(
                        path,
                        go_quote(text),
                        format!("validating label {}: {problem}", go_quote(label)),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Go's `%#v` of a `[]byte`.
fn go_bytes(bytes: &[u8]) -> String {
    let items: Vec<String> = bytes.iter().map(|b| format!("0x{b:x}")).collect();
    format!("[]byte{{{}}}", items.join(", "))
}
