//! Placement rules of the DaemonSet controller: `NodeShouldRunDaemonPod`
//! (`k/k pkg/controller/daemon/daemon_controller.go`) and `AddOrUpdateDaemonPodTolerations`
//! (`k/k pkg/controller/daemon/util/daemonset_util.go`).

use k8s_openapi::api::core::v1::{Node, PodSpec, PodTemplateSpec, Toleration};

use super::node_affinity::{node_name, required_node_affinity_matches};
use super::taints::{find_untolerated_taint, EFFECT_NO_EXECUTE, EFFECT_NO_SCHEDULE};

/// The tolerations every daemon pod gets, in the order they are added (all `operator: Exists`,
/// no tolerationSeconds).
const DAEMON_TOLERATIONS: &[(&str, &str)] = &[
    ("node.kubernetes.io/not-ready", EFFECT_NO_EXECUTE),
    ("node.kubernetes.io/unreachable", EFFECT_NO_EXECUTE),
    ("node.kubernetes.io/disk-pressure", EFFECT_NO_SCHEDULE),
    ("node.kubernetes.io/memory-pressure", EFFECT_NO_SCHEDULE),
    ("node.kubernetes.io/pid-pressure", EFFECT_NO_SCHEDULE),
    ("node.kubernetes.io/unschedulable", EFFECT_NO_SCHEDULE),
];

/// Added only to host-network daemon pods.
const NETWORK_UNAVAILABLE: (&str, &str) =
    ("node.kubernetes.io/network-unavailable", EFFECT_NO_SCHEDULE);

fn exists_toleration(key: &str, effect: &str) -> Toleration {
    Toleration {
        key: Some(key.to_string()),
        operator: Some("Exists".to_string()),
        effect: Some(effect.to_string()),
        value: None,
        toleration_seconds: None,
    }
}

fn field(o: &Option<String>) -> &str {
    o.as_deref().unwrap_or("")
}

/// `Toleration.MatchToleration`: same key, effect, operator and value.
fn same_identity(a: &Toleration, b: &Toleration) -> bool {
    field(&a.key) == field(&b.key)
        && field(&a.effect) == field(&b.effect)
        && field(&a.operator) == field(&b.operator)
        && field(&a.value) == field(&b.value)
}

/// `v1helper.AddOrUpdateTolerationInPodSpec`: a toleration with the same identity is replaced in
/// place (which drops e.g. its tolerationSeconds), otherwise the toleration is appended.
fn add_or_update(spec: &mut PodSpec, toleration: Toleration) {
    let list = spec.tolerations.get_or_insert_with(Vec::new);
    match list.iter_mut().find(|t| same_identity(t, &toleration)) {
        Some(existing) => *existing = toleration,
        None => list.push(toleration),
    }
}

/// `AddOrUpdateDaemonPodTolerations`: not-ready and unreachable (NoExecute), disk-, memory- and
/// pid-pressure and unschedulable (NoSchedule), and network-unavailable (NoSchedule) when the pod
/// uses the host network.
pub fn add_daemon_tolerations(spec: &mut PodSpec) {
    for (key, effect) in DAEMON_TOLERATIONS {
        add_or_update(spec, exists_toleration(key, effect));
    }
    if spec.host_network == Some(true) {
        let (key, effect) = NETWORK_UNAVAILABLE;
        add_or_update(spec, exists_toleration(key, effect));
    }
}

/// `NodeShouldRunDaemonPod` → `(should_run, should_continue_running)`.
///
/// The simulated pod is the template with `nodeName` set to the node and the daemon tolerations
/// added. A template `nodeName` naming another node, or a nodeSelector / required node affinity the
/// node does not match, gives `(false, false)`. An untolerated NoSchedule/NoExecute taint gives
/// `(false, true)` unless one of them is NoExecute. Readiness, resources and cordoning are not
/// checked (cordoned nodes keep their daemon pods).
pub fn node_should_run_daemon_pod(template: &PodTemplateSpec, node: &Node) -> (bool, bool) {
    let mut spec = template.spec.clone().unwrap_or_default();
    let name = node_name(node);
    if let Some(wanted) = spec.node_name.as_deref().filter(|n| !n.is_empty()) {
        if wanted != name {
            return (false, false);
        }
    }
    spec.node_name = Some(name.to_string());
    add_daemon_tolerations(&mut spec);
    if !required_node_affinity_matches(&spec, node) {
        return (false, false);
    }
    let taints = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default();
    let tolerations = spec.tolerations.as_deref().unwrap_or_default();
    if find_untolerated_taint(
        taints,
        tolerations,
        &[EFFECT_NO_SCHEDULE, EFFECT_NO_EXECUTE],
    )
    .is_some()
    {
        let no_execute = find_untolerated_taint(taints, tolerations, &[EFFECT_NO_EXECUTE]);
        return (false, no_execute.is_none());
    }
    (true, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{NodeSpec, Taint};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn node(name: &str, labels: &[(&str, &str)], taints: Vec<Taint>, cordoned: bool) -> Node {
        Node {
            metadata: ObjectMeta {
                name: Some(name.into()),
                labels: Some(
                    labels
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                ),
                ..Default::default()
            },
            spec: Some(NodeSpec {
                taints: Some(taints),
                unschedulable: Some(cordoned),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn taint(key: &str, effect: &str) -> Taint {
        Taint {
            key: key.into(),
            effect: effect.into(),
            value: None,
            time_added: None,
        }
    }

    fn template(node_selector: &[(&str, &str)]) -> PodTemplateSpec {
        PodTemplateSpec {
            metadata: None,
            spec: Some(PodSpec {
                node_selector: Some(
                    node_selector
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                ),
                ..Default::default()
            }),
        }
    }

    fn keys(spec: &PodSpec) -> Vec<(String, String)> {
        spec.tolerations
            .iter()
            .flatten()
            .map(|t| (field(&t.key).to_string(), field(&t.effect).to_string()))
            .collect()
    }

    #[test]
    fn tolerations_are_appended_in_upstream_order() {
        let mut spec = PodSpec {
            tolerations: Some(vec![exists_toleration("nvidia.com/gpu", "NoSchedule")]),
            ..Default::default()
        };
        add_daemon_tolerations(&mut spec);
        let expected: Vec<(String, String)> = [
            ("nvidia.com/gpu", "NoSchedule"),
            ("node.kubernetes.io/not-ready", "NoExecute"),
            ("node.kubernetes.io/unreachable", "NoExecute"),
            ("node.kubernetes.io/disk-pressure", "NoSchedule"),
            ("node.kubernetes.io/memory-pressure", "NoSchedule"),
            ("node.kubernetes.io/pid-pressure", "NoSchedule"),
            ("node.kubernetes.io/unschedulable", "NoSchedule"),
        ]
        .iter()
        .map(|(k, e)| (k.to_string(), e.to_string()))
        .collect();
        assert_eq!(keys(&spec), expected);
        assert!(spec
            .tolerations
            .iter()
            .flatten()
            .skip(1)
            .all(|t| field(&t.operator) == "Exists" && t.toleration_seconds.is_none()));
    }

    #[test]
    fn host_network_adds_network_unavailable_last() {
        let mut spec = PodSpec {
            host_network: Some(true),
            ..Default::default()
        };
        add_daemon_tolerations(&mut spec);
        let last = keys(&spec).pop();
        assert_eq!(
            last,
            Some((
                "node.kubernetes.io/network-unavailable".to_string(),
                "NoSchedule".to_string()
            ))
        );
        assert_eq!(keys(&spec).len(), 7);
    }

    #[test]
    fn an_identical_toleration_is_updated_in_place() {
        let mut with_seconds = exists_toleration("node.kubernetes.io/not-ready", "NoExecute");
        with_seconds.toleration_seconds = Some(300);
        let mut spec = PodSpec {
            tolerations: Some(vec![with_seconds]),
            ..Default::default()
        };
        add_daemon_tolerations(&mut spec);
        let tols = spec.tolerations.unwrap_or_default();
        assert_eq!(tols.len(), 6);
        assert_eq!(field(&tols[0].key), "node.kubernetes.io/not-ready");
        assert_eq!(tols[0].toleration_seconds, None);
    }

    #[test]
    fn node_selector_decides_and_cordon_does_not_matter() {
        let t = template(&[("nvidia.com/gpu.deploy.driver", "true")]);
        let on = node(
            "lab-node-0",
            &[("nvidia.com/gpu.deploy.driver", "true")],
            vec![],
            true,
        );
        let off = node(
            "lab-node-1",
            &[("nvidia.com/gpu.deploy.driver", "false")],
            vec![],
            false,
        );
        let none = node("lab-node-2", &[], vec![], false);
        assert_eq!(node_should_run_daemon_pod(&t, &on), (true, true));
        assert_eq!(node_should_run_daemon_pod(&t, &off), (false, false));
        assert_eq!(node_should_run_daemon_pod(&t, &none), (false, false));
        // The cordon taint is tolerated by daemon pods.
        let tainted = node(
            "c",
            &[("nvidia.com/gpu.deploy.driver", "true")],
            vec![taint("node.kubernetes.io/unschedulable", "NoSchedule")],
            true,
        );
        assert_eq!(node_should_run_daemon_pod(&t, &tainted), (true, true));
    }

    #[test]
    fn untolerated_taints_stop_new_pods_and_no_execute_evicts() {
        let t = template(&[]);
        let no_schedule = node("a", &[], vec![taint("dedicated", "NoSchedule")], false);
        let no_execute = node("b", &[], vec![taint("dedicated", "NoExecute")], false);
        let soft = node(
            "c",
            &[],
            vec![taint("dedicated", "PreferNoSchedule")],
            false,
        );
        assert_eq!(node_should_run_daemon_pod(&t, &no_schedule), (false, true));
        assert_eq!(node_should_run_daemon_pod(&t, &no_execute), (false, false));
        assert_eq!(node_should_run_daemon_pod(&t, &soft), (true, true));
        // not-ready NoExecute is tolerated by the default daemon tolerations.
        let not_ready = node(
            "d",
            &[],
            vec![taint("node.kubernetes.io/not-ready", "NoExecute")],
            false,
        );
        assert_eq!(node_should_run_daemon_pod(&t, &not_ready), (true, true));
    }

    #[test]
    fn template_node_name_pins_the_node() {
        let mut t = template(&[]);
        if let Some(s) = t.spec.as_mut() {
            s.node_name = Some("lab-node-1".into());
        }
        assert_eq!(
            node_should_run_daemon_pod(&t, &node("lab-node-0", &[], vec![], false)),
            (false, false)
        );
        assert_eq!(
            node_should_run_daemon_pod(&t, &node("lab-node-1", &[], vec![], false)),
            (true, true)
        );
    }
}
