//! Taints and tolerations: `Toleration.ToleratesTaint` (k8s.io/api `core/v1/toleration.go`),
//! `v1helper.FindMatchingUntoleratedTaint` / `TolerationsTolerateTaint`
//! (component-helpers `scheduling/corev1/helpers.go`) and the TaintToleration plugin
//! (`k/k pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go`).

use k8s_openapi::api::core::v1::{Taint, Toleration};

pub const EFFECT_NO_SCHEDULE: &str = "NoSchedule";
pub const EFFECT_NO_EXECUTE: &str = "NoExecute";
pub const EFFECT_PREFER_NO_SCHEDULE: &str = "PreferNoSchedule";

/// `v1.TaintNodeUnschedulable`, the taint a cordoned node implies.
pub const TAINT_NODE_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

fn s(o: &Option<String>) -> &str {
    o.as_deref().unwrap_or("")
}

/// `Toleration.ToleratesTaint`: an empty effect matches every effect, an empty key (only valid with
/// `Exists`) matches every key; operator `Exists` ignores the value, `Equal` (or empty) compares it.
pub fn tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    let effect = s(&toleration.effect);
    if !effect.is_empty() && effect != taint.effect {
        return false;
    }
    let key = s(&toleration.key);
    if !key.is_empty() && key != taint.key {
        return false;
    }
    match s(&toleration.operator) {
        "" | "Equal" => s(&toleration.value) == s(&taint.value),
        "Exists" => true,
        _ => false,
    }
}

/// `TolerationsTolerateTaint`.
pub fn tolerations_tolerate(tolerations: &[Toleration], taint: &Taint) -> bool {
    tolerations.iter().any(|t| tolerates(t, taint))
}

/// `FindMatchingUntoleratedTaint`: the first taint whose effect is one of `effects` that no toleration
/// tolerates, in the node's taint order.
pub fn find_untolerated_taint<'t>(
    taints: &'t [Taint],
    tolerations: &[Toleration],
    effects: &[&str],
) -> Option<&'t Taint> {
    taints
        .iter()
        .filter(|t| effects.contains(&t.effect.as_str()))
        .find(|t| !tolerations_tolerate(tolerations, t))
}

/// TaintToleration's filter reason, `node(s) had untolerated taint {%s: %s}` with key and value.
pub fn untolerated_taint_reason(taint: &Taint) -> String {
    format!(
        "node(s) had untolerated taint {{{}: {}}}",
        taint.key,
        s(&taint.value)
    )
}

/// TaintToleration `Score`: how many `PreferNoSchedule` taints the pod's tolerations with an empty or
/// `PreferNoSchedule` effect do not tolerate (fewer is better).
pub fn intolerable_prefer_no_schedule(taints: &[Taint], tolerations: &[Toleration]) -> i64 {
    let relevant: Vec<Toleration> = tolerations
        .iter()
        .filter(|t| matches!(s(&t.effect), "" | EFFECT_PREFER_NO_SCHEDULE))
        .cloned()
        .collect();
    let count = taints
        .iter()
        .filter(|t| t.effect == EFFECT_PREFER_NO_SCHEDULE)
        .filter(|t| !tolerations_tolerate(&relevant, t))
        .count();
    i64::try_from(count).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(key: &str, value: &str, effect: &str) -> Taint {
        Taint {
            key: key.into(),
            value: if value.is_empty() {
                None
            } else {
                Some(value.into())
            },
            effect: effect.into(),
            time_added: None,
        }
    }

    fn tol(key: &str, op: &str, value: &str, effect: &str) -> Toleration {
        let opt = |v: &str| (!v.is_empty()).then(|| v.to_string());
        Toleration {
            key: opt(key),
            operator: opt(op),
            value: opt(value),
            effect: opt(effect),
            toleration_seconds: None,
        }
    }

    #[test]
    fn operator_rules_match_tolerates_taint() {
        let t = taint("gpu", "yes", "NoSchedule");
        assert!(tolerates(&tol("gpu", "Equal", "yes", "NoSchedule"), &t));
        assert!(tolerates(&tol("gpu", "", "yes", ""), &t)); // empty operator = Equal, empty effect = all
        assert!(!tolerates(&tol("gpu", "Equal", "no", "NoSchedule"), &t));
        assert!(tolerates(&tol("gpu", "Exists", "", "NoSchedule"), &t));
        assert!(tolerates(&tol("", "Exists", "", ""), &t)); // tolerate everything
        assert!(!tolerates(&tol("gpu", "Exists", "", "NoExecute"), &t));
        assert!(!tolerates(&tol("other", "Exists", "", ""), &t));
        assert!(!tolerates(&tol("gpu", "Bogus", "yes", ""), &t));
    }

    #[test]
    fn first_untolerated_taint_of_the_requested_effects_wins() {
        let taints = vec![
            taint("soft", "", "PreferNoSchedule"),
            taint("a", "1", "NoSchedule"),
            taint("b", "", "NoExecute"),
        ];
        let tols = vec![tol("a", "Exists", "", "")];
        let found = find_untolerated_taint(&taints, &tols, &["NoSchedule", "NoExecute"]);
        assert_eq!(found.map(|t| t.key.as_str()), Some("b"));
        assert_eq!(
            find_untolerated_taint(&taints, &[], &["NoSchedule"]).map(|t| t.key.as_str()),
            Some("a")
        );
        assert!(find_untolerated_taint(&taints, &tols, &["NoSchedule"]).is_none());
    }

    #[test]
    fn reason_prints_key_and_possibly_empty_value() {
        assert_eq!(
            untolerated_taint_reason(&taint(
                "node-role.kubernetes.io/control-plane",
                "",
                "NoSchedule"
            )),
            "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
        );
        assert_eq!(
            untolerated_taint_reason(&taint("nvidia.com/gpu", "present", "NoSchedule")),
            "node(s) had untolerated taint {nvidia.com/gpu: present}"
        );
    }

    #[test]
    fn prefer_no_schedule_counts_only_soft_taints() {
        let taints = vec![
            taint("x", "", "PreferNoSchedule"),
            taint("y", "", "PreferNoSchedule"),
            taint("z", "", "NoSchedule"),
        ];
        assert_eq!(intolerable_prefer_no_schedule(&taints, &[]), 2);
        // A toleration limited to NoSchedule does not count for the soft taint score.
        let tols = vec![
            tol("x", "Exists", "", "NoSchedule"),
            tol("y", "Exists", "", ""),
        ];
        assert_eq!(intolerable_prefer_no_schedule(&taints, &tols), 1);
    }
}
