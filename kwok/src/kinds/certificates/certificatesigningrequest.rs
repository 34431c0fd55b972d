//! CertificateSigningRequests (`pkg/registry/certificates/certificates/strategy.go`): a request
//! for a certificate, recorded with who asked; approved or denied through its `approval`
//! subresource, issued through its `status` (the signer, `controllers::csr_signing`).

use chrono::{DateTime, Utc};
use k8s_openapi::api::certificates::v1 as k8s;
use serde_json::{json, Map, Value};

use crate::certificate_request::{APPROVED, DENIED};
use crate::error::FieldError;
use crate::meta::keep;
use crate::printers::{certificates as printer, Column};
use crate::resource::Strategy;
use crate::resource::{parent_body, status, ResourceDef, SubresourceDef, FULL_VERBS};
use crate::user::UserInfo;
use crate::validation::certificates as validation;

pub static RESOURCE: ResourceDef = ResourceDef {
    group: "certificates.k8s.io",
    version: "v1",
    kind: "CertificateSigningRequest",
    plural: "certificatesigningrequests",
    singular: "certificatesigningrequest",
    namespaced: false,
    short_names: &["csr"],
    categories: &[],
    verbs: FULL_VERBS,
    subresources: &SUBRESOURCES,
    strategy: &CertificateSigningRequest,
};

static SUBRESOURCES: [SubresourceDef; 2] = [
    parent_body("approval", "CertificateSigningRequest"),
    status("CertificateSigningRequest"),
];

#[derive(Debug)]
pub struct CertificateSigningRequest;

crate::kinds::decodes_as!(CertificateSigningRequest, k8s::CertificateSigningRequest);

impl Strategy for CertificateSigningRequest {
    /// `csrStrategy.GetResetFields` (the spec too: only the requester writes it, on create),
    /// `csrStatusStrategy` and `csrApprovalStrategy`.
    fn reset_fields(&self, subresource: &str) -> &'static [&'static str] {
        match subresource {
            "" => &["spec", "status"],
            "status" => &["spec", "status.conditions"],
            "approval" => &["spec", "status.certificate"],
            _ => &[],
        }
    }

    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(&crate::protobuf::schema::certificates_v1::CERTIFICATE_SIGNING_REQUEST)
    }

    /// `PrepareForCreate`: the status starts empty (its empty conditions list is omitted).
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({});
    }

    /// `PrepareForCreate`: who asked, whatever the body claimed.
    fn record_requester(&self, obj: &mut Value, user: Option<&UserInfo>) {
        let Some(spec) = obj.get_mut("spec").and_then(Value::as_object_mut) else {
            return;
        };
        for key in ["username", "uid", "groups", "extra"] {
            spec.shift_remove(key);
        }
        let Some(user) = user else {
            return;
        };
        if !user.name.is_empty() {
            spec.insert("username".into(), json!(user.name));
        }
        if !user.uid.is_empty() {
            spec.insert("uid".into(), json!(user.uid));
        }
        if !user.groups.is_empty() {
            spec.insert("groups".into(), json!(user.groups));
        }
        if !user.extra.is_empty() {
            spec.insert("extra".into(), Value::Object(user.extra.clone()));
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::create(obj)
    }

    /// `PrepareForUpdate`: only metadata changes through the main resource.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "spec");
        keep(new, old, "status");
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::update(new, old, validation::Writer::Main)
    }

    /// `csrStatusStrategy.PrepareForUpdate`: the spec stays, and so do the approval and denial
    /// a status write would change.
    fn prepare_for_status_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "spec");
        for kind in [APPROVED, DENIED] {
            preserve_condition_instances(new, old, kind);
        }
        populate_condition_timestamps(new, old);
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::update(new, old, validation::Writer::Status)
    }

    /// `csrApprovalStrategy.PrepareForUpdate`: only the conditions are taken from the write.
    fn prepare_for_approval_update(&self, new: &mut Value, old: &Value) {
        populate_condition_timestamps(new, old);
        let conditions = new["status"]["conditions"].take();
        keep(new, old, "spec");
        keep(new, old, "status");
        let status = new
            .as_object_mut()
            .map(|o| o.entry("status").or_insert_with(|| json!({})));
        if let Some(Value::Object(status)) = status {
            if conditions.is_null() {
                status.shift_remove("conditions");
            } else {
                status.insert("conditions".into(), conditions);
            }
        }
    }

    fn validate_approval_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::update(new, old, validation::Writer::Approval)
    }

    fn columns(&self) -> &'static [Column] {
        printer::CSR_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::csr_cells(obj, now)
    }
}

fn conditions(obj: &Value) -> &[Value] {
    obj["status"]["conditions"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The conditions of a write, when it has some (indexing would add a null list to one without).
fn conditions_mut(obj: &mut Value) -> Option<&mut Vec<Value>> {
    obj.get_mut("status")?.get_mut("conditions")?.as_array_mut()
}

/// `preserveConditionInstances`: when the write has as many conditions of `kind` as the stored
/// object, they are the stored ones again.
fn preserve_condition_instances(new: &mut Value, old: &Value, kind: &str) {
    let of_kind = |obj: &Value| -> Vec<usize> {
        conditions(obj)
            .iter()
            .enumerate()
            .filter(|(_, c)| c["type"] == kind)
            .map(|(i, _)| i)
            .collect()
    };
    let (old_at, new_at) = (of_kind(old), of_kind(new));
    if old_at.len() != new_at.len() {
        return;
    }
    let stored = conditions(old).to_vec();
    if let Some(list) = conditions_mut(new) {
        for (o, n) in old_at.into_iter().zip(new_at) {
            list[n] = stored[o].clone();
        }
    }
}

/// `populateConditionTimestamps`: an update time of now where none is given; a transition time
/// kept from a stored condition of the same type and status, else now.
fn populate_condition_timestamps(new: &mut Value, old: &Value) {
    let now = json!(crate::meta::now());
    let stored = conditions(old).to_vec();
    let Some(list) = conditions_mut(new) else {
        return;
    };
    for condition in list.iter_mut().filter_map(Value::as_object_mut) {
        let unset = |c: &Map<String, Value>, key: &str| {
            c.get(key).and_then(Value::as_str).is_none_or(str::is_empty)
        };
        if unset(condition, "lastUpdateTime") {
            condition.insert("lastUpdateTime".into(), now.clone());
        }
        if unset(condition, "lastTransitionTime") {
            let kept = stored.iter().find_map(|o| {
                let same = o["type"] == condition["type"] && o["status"] == condition["status"];
                let time = o["lastTransitionTime"].as_str().filter(|t| !t.is_empty());
                same.then_some(time).flatten()
            });
            let time = kept.map_or(now.clone(), |t| json!(t));
            condition.insert("lastTransitionTime".into(), time);
        }
    }
}

/// `IsCertificateRequestApproved`: an Approved condition and no Denied one.
pub(crate) fn is_approved(obj: &Value) -> bool {
    let has = |kind: &str| conditions(obj).iter().any(|c| c["type"] == kind);
    has(APPROVED) && !has(DENIED)
}

/// `HasTrueCondition`: a condition of `kind` whose status is True (or empty).
pub(crate) fn has_true_condition(obj: &Value, kind: &str) -> bool {
    conditions(obj).iter().any(|c| {
        c["type"] == kind && matches!(c["status"].as_str(), None | Some("") | Some("True"))
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{json, Value};

    use crate::api::{Api, WriteOptions};
    use crate::certificate_request::encoded_for_tests;
    use crate::registry::CERTIFICATESIGNINGREQUESTS as CSRS;
    use crate::store::{Store, Stored};
    use crate::user::UserInfo;

    fn csr(name: &str, organization: &str, usages: Value) -> Value {
        json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"name": name},
            "spec": {"request": encoded_for_tests("jane", organization), "usages": usages,
                "signerName": "kubernetes.io/kube-apiserver-client",
                "username": "claimed", "groups": ["system:masters"]}})
    }

    fn as_user(name: &str) -> WriteOptions {
        WriteOptions {
            user: Some(UserInfo {
                name: name.into(),
                groups: vec!["devs".into(), "system:authenticated".into()],
                ..UserInfo::default()
            }),
            ..WriteOptions::default()
        }
    }

    /// Alice asks for a client certificate for jane of the developers.
    fn alice_asks_for_jane(api: &Api) -> Stored {
        let request = csr("jane", "developers", json!(["client auth"]));
        api.create(&CSRS, "", request, &as_user("alice"))
            .expect("created")
    }

    #[test]
    fn a_request_records_who_sent_it_whatever_it_claims_and_starts_pending() {
        let created = alice_asks_for_jane(&Api::new(Arc::new(Store::new())));
        assert_eq!(created.value["spec"]["username"], "alice");
        assert_eq!(
            created.value["spec"]["groups"],
            json!(["devs", "system:authenticated"])
        );
        assert_eq!(created.value["status"], json!({}));
    }

    #[test]
    fn the_main_resource_changes_metadata_only_and_approval_changes_conditions_only() {
        let api = Api::new(Arc::new(Store::new()));
        let stored = alice_asks_for_jane(&api);
        let mut edited = stored.value.clone();
        edited["spec"]["signerName"] = json!("example.com/other");
        edited["metadata"]["labels"] = json!({"team": "gpu"});
        let updated = api
            .update(&CSRS, "", "jane", edited, None, &WriteOptions::default())
            .expect("updated");
        assert_eq!(
            updated.value["spec"]["signerName"],
            "kubernetes.io/kube-apiserver-client"
        );
        assert_eq!(updated.value["metadata"]["labels"]["team"], "gpu");

        let mut approving = updated.value.clone();
        approving["spec"]["usages"] = json!(["server auth"]);
        approving["status"] = json!({"certificate": "bm9wZQ==", "conditions": [
            {"type": "Approved", "status": "True", "reason": "KubectlApprove"}]});
        let approved = api
            .update(
                &CSRS,
                "",
                "jane",
                approving,
                Some("approval"),
                &WriteOptions::default(),
            )
            .expect("approved");
        assert_eq!(approved.value["spec"]["usages"], json!(["client auth"]));
        assert!(approved.value["status"].get("certificate").is_none());
        let condition = &approved.value["status"]["conditions"][0];
        assert_eq!(condition["reason"], "KubectlApprove");
        assert!(condition["lastUpdateTime"].is_string());
        assert_eq!(condition["lastTransitionTime"], condition["lastUpdateTime"]);

        // An approval may not be taken back, nor added through the main resource.
        let mut withdrawn = approved.value.clone();
        withdrawn["status"]["conditions"] = json!([]);
        let refused = api
            .update(
                &CSRS,
                "",
                "jane",
                withdrawn,
                Some("approval"),
                &WriteOptions::default(),
            )
            .expect_err("refused");
        assert!(
            refused.message.contains("status.conditions: Forbidden: updates may not remove a condition of type \"Approved\""),
            "{}",
            refused.message
        );
    }

    #[test]
    fn an_invalid_request_is_refused_as_upstream_words_it() {
        let api = Api::new(Arc::new(Store::new()));
        let mut broken = csr(
            "broken",
            "developers",
            json!(["client auth", "flying", "client auth"]),
        );
        broken["spec"]["request"] = json!("bm90IGEgcmVxdWVzdA==");
        broken["spec"]["signerName"] = json!("example");
        broken["spec"]["expirationSeconds"] = json!(60);
        let error = api
            .create(&CSRS, "", broken, &WriteOptions::default())
            .expect_err("invalid");
        let expected = [
            "spec.request: Invalid value: []byte{0x6e, 0x6f, 0x74, 0x20, 0x61, 0x20, 0x72, 0x65, 0x71, 0x75, 0x65, 0x73, 0x74}: PEM block type must be CERTIFICATE REQUEST",
            "spec.usages[1]: Unsupported value: \"flying\": supported values: \"any\", \"cert sign\", \"client auth\"",
            "spec.usages[2]: Duplicate value: \"client auth\"",
            "spec.signerName: Invalid value: \"example\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
            "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)",
        ];
        for part in expected {
            assert!(error.message.contains(part), "{part}\n{}", error.message);
        }
    }

    #[test]
    fn no_client_certificate_for_the_masters_group() {
        let api = Api::new(Arc::new(Store::new()));
        let error = api
            .create(
                &CSRS,
                "",
                csr("masters", "system:masters", json!(["client auth"])),
                &WriteOptions::default(),
            )
            .expect_err("forbidden");
        assert_eq!(error.code, 403);
        assert_eq!(
            error.message,
            "certificatesigningrequests.certificates.k8s.io \"masters\" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed"
        );
    }
}
