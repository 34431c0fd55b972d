//! What a pod's annotations may say, alone and beside the fields that replaced them
//! (validation.go: `ValidatePodSpecificAnnotations`, `validateSeccompAnnotationsAndFields`,
//! `validateAppArmorAnnotationsAndFieldsMatchOnCreate`), for pods and pod templates alike.

use serde_json::Value;

use super::path::{forbidden, invalid, local_descending_path, Path};
use super::read::containers_with_path;
use crate::error::{go_quote, FieldError};

const MIRROR: &str = "kubernetes.io/config.mirror";
const DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";
pub const SECCOMP_POD: &str = "seccomp.security.alpha.kubernetes.io/pod";
pub const SECCOMP_CONTAINER: &str = "container.seccomp.security.alpha.kubernetes.io/";
pub const APPARMOR_CONTAINER: &str = "container.apparmor.security.beta.kubernetes.io/";
const LOCALHOST: &str = "localhost/";

/// `ValidatePodSpecificAnnotations` of `meta`'s annotations, at `p`. (The alpha tolerations
/// annotation is not read.)
pub fn specific(meta: &Value, spec: &Value, p: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(annotations) = meta["annotations"].as_object() else {
        return errs;
    };
    let value = |k: &str| annotations.get(k).and_then(Value::as_str);
    if let Some(v) = value(MIRROR) {
        if spec["nodeName"].as_str().unwrap_or_default().is_empty() {
            errs.push(invalid(
                &p.key(MIRROR),
                go_quote(v),
                "must set spec.nodeName if mirror pod annotation is set",
            ));
        }
    }
    if let Some(v) = value(DELETION_COST) {
        if !is_int32(v) {
            errs.push(invalid(
                &p.key(DELETION_COST),
                go_quote(v),
                "must be a 32bit integer",
            ));
        }
    }
    // `ValidateSeccompPodAnnotations` names these paths as children, not keys.
    if let Some(v) = value(SECCOMP_POD) {
        errs.extend(seccomp_profile(v, &p.child(SECCOMP_POD)));
    }
    for (k, v) in annotations {
        if k.starts_with(SECCOMP_CONTAINER) {
            errs.extend(seccomp_profile(v.as_str().unwrap_or_default(), &p.child(k)));
        }
    }
    for (k, v) in annotations {
        let Some(container) = k.strip_prefix(APPARMOR_CONTAINER) else {
            continue;
        };
        let named = |(c, _): &(&Value, Path)| c["name"] == container;
        if !containers_with_path(spec, &Path::new("spec"))
            .iter()
            .any(named)
        {
            errs.push(invalid(
                &p.key(k),
                go_quote(container),
                "container not found",
            ));
        }
        let profile = v.as_str().unwrap_or_default();
        let known = ["", "runtime/default", "unconfined"].contains(&profile);
        if !known && !profile.starts_with(LOCALHOST) {
            errs.push(invalid(
                &p.key(k),
                go_quote(profile),
                format!("invalid AppArmor profile name: {}", go_quote(profile)),
            ));
        }
    }
    errs
}

/// `GetDeletionCostFromPodAnnotations`: a decimal int32 without a plus sign or leading zeros.
fn is_int32(v: &str) -> bool {
    let first_ok = match v.as_bytes().first() {
        Some(b'-') | Some(b'1'..=b'9') => true,
        Some(b'0') => v == "0",
        _ => false,
    };
    first_ok && v.parse::<i32>().is_ok()
}

/// `ValidateSeccompProfile` of an annotation's value.
fn seccomp_profile(v: &str, p: &Path) -> Vec<FieldError> {
    if ["runtime/default", "docker/default", "unconfined"].contains(&v) {
        return Vec::new();
    }
    let Some(local) = v.strip_prefix(LOCALHOST) else {
        return vec![invalid(p, go_quote(v), "must be a valid seccomp profile")];
    };
    local_descending_path(local, p)
}

/// `validateSeccompAnnotationsAndFields` and `validateAppArmorAnnotationsAndFieldsMatchOnCreate`:
/// where both an annotation and its field are set, they must say the same. `sp` is the spec's
/// path.
pub fn match_fields(meta: &Value, spec: &Value, sp: &Path) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let annotation = |k: &str| meta["annotations"].get(k).and_then(Value::as_str);
    let pod_seccomp = &spec["securityContext"]["seccompProfile"];
    if let (false, Some(a)) = (pod_seccomp.is_null(), annotation(SECCOMP_POD)) {
        let at = sp.child("securityContext").child("seccompProfile");
        errs.extend(profiles_match("seccomp", a, pod_seccomp, &at));
    }
    for (c, cp) in containers_with_path(spec, sp) {
        let field = &c["securityContext"]["seccompProfile"];
        let key = format!(
            "{SECCOMP_CONTAINER}{}",
            c["name"].as_str().unwrap_or_default()
        );
        if let (false, Some(a)) = (field.is_null(), annotation(&key)) {
            let at = cp.child("securityContext").child("seccompProfile");
            errs.extend(profiles_match("seccomp", a, field, &at));
        }
    }
    if spec["os"]["name"] == "windows" {
        return errs;
    }
    let pod_apparmor = &spec["securityContext"]["appArmorProfile"];
    for (c, cp) in containers_with_path(spec, sp) {
        let own = &c["securityContext"]["appArmorProfile"];
        let field = if own.is_null() { pod_apparmor } else { own };
        let key = format!(
            "{APPARMOR_CONTAINER}{}",
            c["name"].as_str().unwrap_or_default()
        );
        if let (false, Some(a)) = (field.is_null(), annotation(&key)) {
            let at = cp.child("securityContext").child("appArmorProfile");
            errs.extend(profiles_match("apparmor", a, field, &at));
        }
    }
    errs
}

/// Does the annotation's profile (`runtime/default`, `unconfined`, `localhost/<name>`) name the
/// field's type and profile? Seccomp also takes `docker/default` for RuntimeDefault.
fn profiles_match(what: &str, annotation: &str, field: &Value, at: &Path) -> Vec<FieldError> {
    let type_differs = || {
        vec![forbidden(
            &at.child("type"),
            format!("{what} type in annotation and field must match"),
        )]
    };
    match field["type"].as_str().unwrap_or_default() {
        "Unconfined" if annotation != "unconfined" => type_differs(),
        "RuntimeDefault"
            if annotation != "runtime/default"
                && !(what == "seccomp" && annotation == "docker/default") =>
        {
            type_differs()
        }
        "Localhost" => match annotation.strip_prefix(LOCALHOST) {
            None => type_differs(),
            Some(name) if field["localhostProfile"].as_str() != Some(name) => vec![forbidden(
                &at.child("localhostProfile"),
                format!("{what} profile in annotation and field must match"),
            )],
            Some(_) => Vec::new(),
        },
        _ => Vec::new(),
    }
}
