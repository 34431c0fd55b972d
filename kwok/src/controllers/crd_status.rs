//! The naming and establishing controllers of the apiextensions server
//! (`pkg/controller/status/naming_controller.go`, `pkg/controller/establish`): a definition's
//! names are accepted unless another definition of its group holds them, then it is
//! established.

use serde_json::Value;

use super::{Controller, Pass};
use crate::api::Api;
use crate::kinds::apiextensions::customresourcedefinition::set_condition;
use crate::meta;
use crate::registry::CUSTOMRESOURCEDEFINITIONS;
use crate::store::{Event, Stored};

#[derive(Default)]
pub struct CrdStatus;

fn condition<'a>(crd: &'a Value, type_: &str) -> Option<&'a Value> {
    crd["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

/// `calculateNamesAndConditions`: every requested name that is ours already or free is
/// accepted; each one another definition of the group holds sets the condition, the last
/// conflict checked giving its reason, as upstream carries on past errors.
fn names_and_conflict(crd: &Stored, all: &[Stored]) -> (Value, Option<(&'static str, String)>) {
    let requested = &crd.value["spec"]["names"];
    let accepted = &crd.value["status"]["acceptedNames"];
    let group = &crd.value["spec"]["group"];
    let others: Vec<&Value> = all
        .iter()
        .filter(|o| o.name() != crd.name() && o.value["spec"]["group"] == *group)
        .map(|o| &o.value["status"]["acceptedNames"])
        .collect();
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_str().map(str::to_owned))
            .collect()
    };
    // `allResources`: the plurals, singulars and short names others have been granted.
    let mut resources: Vec<String> = Vec::new();
    let mut kinds: Vec<String> = Vec::new();
    for a in &others {
        for key in ["plural", "singular"] {
            resources.extend(a[key].as_str().map(str::to_owned));
        }
        resources.extend(strings(&a["shortNames"]));
        for key in ["kind", "listKind"] {
            kinds.extend(a[key].as_str().map(str::to_owned));
        }
    }
    let in_use = |n: &str| format!("{n:?} is already in use");
    // `equalToAcceptedOrFresh`.
    let fresh = |key: &str, taken: &[String]| -> Result<(), String> {
        let name = requested[key].as_str().unwrap_or("");
        if name == accepted[key].as_str().unwrap_or("") || !taken.iter().any(|t| t == name) {
            Ok(())
        } else {
            Err(in_use(name))
        }
    };
    let mut names = serde_json::Map::new();
    let mut conflict = None;
    let mut take =
        |key: &'static str, reason: &'static str, taken: &[String]| match fresh(key, taken) {
            Ok(()) => {
                if let Some(v) = requested.get(key).filter(|v| !v.is_null()) {
                    names.insert(key.into(), v.clone());
                }
            }
            Err(message) => conflict = Some((reason, message)),
        };
    take("plural", "PluralConflict", &resources);
    take("singular", "SingularConflict", &resources);
    let short = strings(&requested["shortNames"]);
    let ours = strings(&accepted["shortNames"]);
    let clashes: Vec<String> = short
        .iter()
        .filter(|s| !ours.contains(s) && resources.contains(s))
        .map(|s| in_use(s))
        .collect();
    if short != ours && !clashes.is_empty() {
        // `utilerrors.NewAggregate`: one error alone, several as a bracketed list.
        let message = match clashes.as_slice() {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        if !ours.is_empty() {
            names.insert("shortNames".into(), accepted["shortNames"].clone());
        }
        conflict = Some(("ShortNamesConflict", message));
    } else if let Some(v) = requested.get("shortNames").filter(|v| !v.is_null()) {
        names.insert("shortNames".into(), v.clone());
    }
    let mut take = |key: &'static str, reason: &'static str| match fresh(key, &kinds) {
        Ok(()) => {
            if let Some(v) = requested.get(key).filter(|v| !v.is_null()) {
                names.insert(key.into(), v.clone());
            }
        }
        Err(message) => conflict = Some((reason, message)),
    };
    take("kind", "KindConflict");
    take("listKind", "ListKindConflict");
    if let Some(v) = requested.get("categories").filter(|v| !v.is_null()) {
        names.insert("categories".into(), v.clone());
    }
    (Value::Object(names), conflict)
}

impl Controller for CrdStatus {
    fn name(&self) -> &'static str {
        "crd-status"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &CUSTOMRESOURCEDEFINITIONS)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let all = api.store().list(&CUSTOMRESOURCEDEFINITIONS, None).0;
        for crd in &all {
            if meta::is_deleting(&crd.value) {
                continue;
            }
            let mut updated = crd.value.clone();
            let (names, conflict) = names_and_conflict(crd, &all);
            updated["status"]["acceptedNames"] = names;
            match conflict {
                Some((reason, message)) => {
                    set_condition(&mut updated, "NamesAccepted", "False", reason, &message);
                    if condition(&updated, "Established").is_none() {
                        set_condition(
                            &mut updated,
                            "Established",
                            "False",
                            "NotAccepted",
                            "not all names are accepted",
                        );
                    }
                }
                None => {
                    set_condition(
                        &mut updated,
                        "NamesAccepted",
                        "True",
                        "NoConflicts",
                        "no conflicts found",
                    );
                    set_condition(
                        &mut updated,
                        "Established",
                        "True",
                        "InitialNamesAccepted",
                        "the initial names have been accepted",
                    );
                }
            }
            if updated != crd.value {
                pass.check(
                    "writing a definition's names and conditions",
                    api.update_status(&CUSTOMRESOURCEDEFINITIONS, updated),
                );
            }
        }
        pass
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::api::WriteOptions;

    fn crd(name: &str, plural: &str, kind: &str) -> Value {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": name},
            "spec": {"group": "nvidia.com", "scope": "Cluster",
                "names": {"plural": plural, "kind": kind},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object"}}}]}})
    }

    #[test]
    fn names_are_accepted_then_a_taken_kind_conflicts() {
        let api = Api::new(Arc::new(crate::store::Store::new()));
        let opts = WriteOptions::default();
        api.create(
            &CUSTOMRESOURCEDEFINITIONS,
            "",
            crd(
                "clusterpolicies.nvidia.com",
                "clusterpolicies",
                "ClusterPolicy",
            ),
            &opts,
        )
        .expect("first");
        let mut controller = CrdStatus;
        assert!(!controller.reconcile(&api).failed());
        let first = api
            .get(&CUSTOMRESOURCEDEFINITIONS, "", "clusterpolicies.nvidia.com")
            .expect("crd");
        assert_eq!(
            first.value["status"]["acceptedNames"]["listKind"],
            "ClusterPolicyList"
        );
        assert_eq!(first.value["status"]["storedVersions"], json!(["v1"]));
        let established = condition(&first.value, "Established").expect("established");
        assert_eq!(
            (
                established["status"].as_str(),
                established["reason"].as_str()
            ),
            (Some("True"), Some("InitialNamesAccepted"))
        );

        api.create(
            &CUSTOMRESOURCEDEFINITIONS,
            "",
            crd("policies.nvidia.com", "policies", "ClusterPolicy"),
            &opts,
        )
        .expect("second");
        assert!(!controller.reconcile(&api).failed());
        let second = api
            .get(&CUSTOMRESOURCEDEFINITIONS, "", "policies.nvidia.com")
            .expect("crd");
        let names = condition(&second.value, "NamesAccepted").expect("names");
        // Singular, kind and list kind all clash; upstream reports the last one checked and
        // grants only the names that are free.
        assert_eq!(names["reason"], "ListKindConflict");
        assert_eq!(names["message"], "\"ClusterPolicyList\" is already in use");
        assert_eq!(
            second.value["status"]["acceptedNames"],
            json!({"plural": "policies"})
        );
        assert_eq!(
            condition(&second.value, "Established").expect("e")["status"],
            "False"
        );
    }
}
