//! Pod and container security contexts (validation.go: `validatePodSpecSecurityContext`,
//! `ValidateSecurityContext`, `validateSeccompProfileField`, `ValidateAppArmorProfileField`).
//! Sysctls and Windows options are not checked; `procMount` and `supplementalGroupsPolicy` are
//! not either, as v1.32 drops them while their feature gates are off.

use serde_json::Value;

use super::path::{
    inclusive_range, invalid, local_descending_path, not_supported, required, too_long, Path,
};
use crate::error::{go_quote, FieldError};

const MAX_ID: i64 = i32::MAX as i64;

/// `IsValidUserID` / `IsValidGroupID` of a number at `p`.
fn id(n: &Value, p: &Path) -> Option<FieldError> {
    let n = n.as_i64()?;
    (!(0..=MAX_ID).contains(&n)).then(|| invalid(p, n.to_string(), inclusive_range(0, MAX_ID)))
}

/// `validatePodSpecSecurityContext` at `p` (`spec.securityContext`).
pub fn pod(spec: &Value, p: &Path) -> Vec<FieldError> {
    let sc = &spec["securityContext"];
    if !sc.is_object() {
        return Vec::new();
    }
    let mut errs: Vec<FieldError> = ["fsGroup", "runAsUser", "runAsGroup"]
        .iter()
        .filter_map(|key| id(&sc[*key], &p.child(key)))
        .collect();
    let groups = sc["supplementalGroups"].as_array().into_iter().flatten();
    for (i, gid) in groups.enumerate() {
        errs.extend(id(gid, &p.child("supplementalGroups").index(i)));
    }
    if sc["shareProcessNamespace"] == true && spec["hostPID"] == true {
        errs.push(invalid(
            &p.child("shareProcessNamespace"),
            "true",
            "ShareProcessNamespace and HostPID cannot both be enabled",
        ));
    }
    if let Some(policy) = sc["fsGroupChangePolicy"].as_str() {
        if !["OnRootMismatch", "Always"].contains(&policy) {
            errs.push(not_supported(
                &p.child("fsGroupChangePolicy"),
                go_quote(policy),
                &["Always", "OnRootMismatch"],
            ));
        }
    }
    errs.extend(seccomp_profile(
        &sc["seccompProfile"],
        &p.child("seccompProfile"),
    ));
    errs.extend(apparmor_profile(
        &sc["appArmorProfile"],
        &p.child("appArmorProfile"),
    ));
    errs
}

/// `ValidateSecurityContext` of a container at `p` (`...securityContext`).
pub fn container(sc: &Value, p: &Path) -> Vec<FieldError> {
    if !sc.is_object() {
        return Vec::new();
    }
    let mut errs: Vec<FieldError> = ["runAsUser", "runAsGroup"]
        .iter()
        .filter_map(|key| id(&sc[*key], &p.child(key)))
        .collect();
    errs.extend(seccomp_profile(
        &sc["seccompProfile"],
        &p.child("seccompProfile"),
    ));
    if sc["allowPrivilegeEscalation"] == false {
        // Upstream quotes the whole context as Go's %#v, pointers as addresses.
        if sc["privileged"] == true {
            errs.push(invalid(
                p,
                "core.SecurityContext{...}",
                "cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
            ));
        }
        let added = sc["capabilities"]["add"].as_array().into_iter().flatten();
        for _ in added.filter(|c| *c == "CAP_SYS_ADMIN") {
            errs.push(invalid(
                p,
                "core.SecurityContext{...}",
                "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
            ));
        }
    }
    errs.extend(apparmor_profile(
        &sc["appArmorProfile"],
        &p.child("appArmorProfile"),
    ));
    errs
}

/// `validateSeccompProfileField`.
fn seccomp_profile(sp: &Value, p: &Path) -> Vec<FieldError> {
    if !sp.is_object() {
        return Vec::new();
    }
    let kind = sp["type"].as_str().unwrap_or_default();
    let mut errs: Vec<FieldError> = profile_type(kind, "seccompProfile", p)
        .into_iter()
        .collect();
    let local = &sp["localhostProfile"];
    if kind == "Localhost" {
        match local.as_str() {
            None => errs.push(required(
                &p.child("localhostProfile"),
                "must be set when seccomp type is Localhost",
            )),
            Some(path) => errs.extend(local_descending_path(path, &p.child("localhostProfile"))),
        }
    } else if !local.is_null() {
        // Upstream quotes the profile as Go's %#v, its pointer as an address.
        errs.push(invalid(
            &p.child("localhostProfile"),
            "core.SeccompProfile{...}",
            "can only be set when seccomp type is Localhost",
        ));
    }
    errs
}

/// `ValidateAppArmorProfileField`.
fn apparmor_profile(profile: &Value, p: &Path) -> Vec<FieldError> {
    if !profile.is_object() {
        return Vec::new();
    }
    let mut errs = Vec::new();
    let local = &profile["localhostProfile"];
    let kind = profile["type"].as_str().unwrap_or_default();
    match kind {
        "Localhost" => match local.as_str() {
            None => errs.push(required(
                &p.child("localhostProfile"),
                "must be set when AppArmor type is Localhost",
            )),
            Some(name) => {
                let at = p.child("localhostProfile");
                if name.trim() != name {
                    errs.push(invalid(
                        &at,
                        go_quote(name),
                        "must not be padded with whitespace",
                    ));
                } else if name.is_empty() {
                    errs.push(required(&at, "must be set when AppArmor type is Localhost"));
                }
                if name.len() > 4095 {
                    errs.push(too_long(&at, 4095));
                }
            }
        },
        "RuntimeDefault" | "Unconfined" => {
            if let Some(name) = local.as_str() {
                errs.push(invalid(
                    &p.child("localhostProfile"),
                    go_quote(name),
                    "can only be set when AppArmor type is Localhost",
                ));
            }
        }
        _ => errs.extend(profile_type(kind, "appArmorProfile", p)),
    }
    errs
}

/// A seccomp or AppArmor profile's `type` (`validateSeccompProfileType`, and the same cases in
/// `ValidateAppArmorProfileField`): required, and one of the three kinds.
fn profile_type(kind: &str, field: &str, p: &Path) -> Option<FieldError> {
    match kind {
        "Localhost" | "RuntimeDefault" | "Unconfined" => None,
        "" => Some(required(
            &p.child("type"),
            format!("type is required when {field} is set"),
        )),
        other => Some(not_supported(
            &p.child("type"),
            go_quote(other),
            &["Localhost", "RuntimeDefault", "Unconfined"],
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The one check the differential suite cannot compare: upstream quotes the context with
    /// pointer addresses. Path, kind and detail are upstream's.
    #[test]
    fn no_privilege_escalation_refuses_privileged_and_sys_admin() {
        let sc = json!({"allowPrivilegeEscalation": false, "privileged": true,
                        "capabilities": {"add": ["NET_ADMIN", "CAP_SYS_ADMIN"]}});
        let p = Path::new("spec.containers[0].securityContext");
        let texts: Vec<String> = container(&sc, &p).iter().map(|e| e.to_string()).collect();
        assert_eq!(
            texts,
            [
                "spec.containers[0].securityContext: Invalid value: core.SecurityContext{...}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
                "spec.containers[0].securityContext: Invalid value: core.SecurityContext{...}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
            ]
        );
        let allowed = json!({"allowPrivilegeEscalation": true, "privileged": true});
        assert!(container(&allowed, &p).is_empty());
    }
}
