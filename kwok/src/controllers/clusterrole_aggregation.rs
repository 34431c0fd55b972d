//! The ClusterRole aggregation controller
//! (`pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go`): a ClusterRole
//! with an aggregation rule gets the rules of every ClusterRole its selectors pick, by name, each
//! rule once.

use serde_json::Value;

use super::{Controller, Pass};
use crate::api::{Api, WriteOptions};
use crate::meta;
use crate::registry::CLUSTERROLES;
use crate::selectors::LabelSelector;
use crate::store::Event;

#[derive(Default)]
pub struct ClusterRoleAggregation;

/// `syncClusterRole`: the rules an aggregated role should hold.
fn aggregated_rules(role: &Value, all: &[crate::store::Stored]) -> Vec<Value> {
    let mut rules: Vec<Value> = Vec::new();
    let selectors = role["aggregationRule"]["clusterRoleSelectors"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for sel in &selectors {
        let Ok(selector) = LabelSelector::from_api(sel) else {
            continue;
        };
        let mut picked: Vec<&crate::store::Stored> = all
            .iter()
            .filter(|r| r.name() != meta::name(role))
            .filter(|r| meta::labels(&r.value).is_some_and(|l| selector.matches(l)))
            .collect();
        picked.sort_by(|a, b| a.name().cmp(b.name()));
        for other in picked {
            for rule in other.value["rules"].as_array().into_iter().flatten() {
                if !rules.contains(rule) {
                    rules.push(rule.clone());
                }
            }
        }
    }
    rules
}

impl Controller for ClusterRoleAggregation {
    fn name(&self) -> &'static str {
        "clusterrole-aggregation"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &CLUSTERROLES)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let all = api.store().list(&CLUSTERROLES, None).0;
        for role in all
            .iter()
            .filter(|r| r.value["aggregationRule"].is_object())
        {
            let rules = aggregated_rules(&role.value, &all);
            let current = role.value["rules"].as_array().cloned().unwrap_or_default();
            if current == rules {
                continue;
            }
            let mut updated = role.value.clone();
            updated["rules"] = Value::Array(rules);
            let written = api.update(
                &CLUSTERROLES,
                "",
                role.name(),
                updated,
                None,
                &WriteOptions::default(),
            );
            pass.check("aggregating a cluster role", written);
        }
        pass
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn view_edit_and_admin_collect_their_parts_in_name_order() {
        let api = Api::bootstrapped();
        let mut controller = ClusterRoleAggregation;
        // Each pass lets one more level settle (view, then edit, then admin).
        for _ in 0..3 {
            assert!(!controller.reconcile(&api).failed());
        }
        let rules = |name: &str| -> Vec<Value> {
            api.store()
                .get(&CLUSTERROLES, "", name)
                .expect("role")
                .value["rules"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        };
        let view = rules("view");
        assert_eq!(view, rules("system:aggregate-to-view"));
        let edit = rules("edit");
        let mut expected = rules("system:aggregate-to-edit");
        expected.extend(view);
        assert_eq!(edit, expected);
        let admin = rules("admin");
        let mut expected = edit;
        expected.extend(rules("system:aggregate-to-admin"));
        assert_eq!(admin, expected);
    }
}
