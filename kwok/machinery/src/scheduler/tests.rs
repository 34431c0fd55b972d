//! End-to-end checks of `schedule`: one test per filter and per message rule, with the exact strings
//! of docs/kubernetes-behaviors.md (1.2–1.5) and the gpudrv lab cases.

use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::{json, Value};

use super::fit_error::Victim;
use super::*;

/// The node's entry built from any pods, keeping only those bound to it and not terminal (as the
/// scheduler controller builds its snapshot).
fn node_info<'a>(node: &'a Node, pods: impl IntoIterator<Item = &'a Pod>) -> NodeInfo<'a> {
    let name = node_name(node);
    let pods = pods
        .into_iter()
        .filter(|p| {
            p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(name)
                && !matches!(
                    p.status.as_ref().and_then(|s| s.phase.as_deref()),
                    Some("Succeeded" | "Failed")
                )
        })
        .collect();
    NodeInfo { node, pods }
}

/// [`schedule_with`] knowing nothing but the nodes and their pods.
fn schedule(pod: &Pod, nodes: &[NodeInfo<'_>]) -> Result<String, FitError> {
    schedule_with(
        pod,
        nodes,
        &SchedulingContext::default(),
        &PodVolumes::default(),
    )
}

fn node_from(v: Value) -> Node {
    serde_json::from_value(v).expect("node json")
}

fn pod_from(v: Value) -> Pod {
    serde_json::from_value(v).expect("pod json")
}

/// A kwok-like node: hostname label plus `extra` labels, 32 cpu / 256Gi / 110 pods unless overridden.
fn node(name: &str, extra: Value) -> Node {
    let mut labels = json!({"kubernetes.io/hostname": name});
    if let (Some(l), Some(e)) = (labels.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            l.insert(k.clone(), v.clone());
        }
    }
    node_from(json!({
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110"}}
    }))
}

fn with_allocatable(mut n: Node, alloc: Value) -> Node {
    let mut v = serde_json::to_value(&n).expect("to json");
    v["status"]["allocatable"] = alloc;
    n = node_from(v);
    n
}

fn with_node_spec(n: Node, spec: Value) -> Node {
    let mut v = serde_json::to_value(&n).expect("to json");
    v["spec"] = spec;
    node_from(v)
}

/// A pod in `default` with one container and the given spec fields merged in.
fn pod(name: &str, spec: Value) -> Pod {
    pod_in("default", name, json!({}), spec)
}

fn pod_in(ns: &str, name: &str, labels: Value, spec: Value) -> Pod {
    let mut s = json!({"containers": [{"name": "c", "image": "busybox"}]});
    if let (Some(base), Some(extra)) = (s.as_object_mut(), spec.as_object()) {
        for (k, v) in extra {
            base.insert(k.clone(), v.clone());
        }
    }
    pod_from(json!({
        "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}"), "labels": labels},
        "spec": s
    }))
}

fn bound(mut p: Pod, node: &str) -> Pod {
    if let Some(s) = p.spec.as_mut() {
        s.node_name = Some(node.to_string());
    }
    p
}

fn requests(r: Value) -> Value {
    json!([{"name": "c", "image": "busybox", "resources": {"requests": r}}])
}

fn infos<'a>(nodes: &'a [Node], pods: &'a [Pod]) -> Vec<NodeInfo<'a>> {
    nodes.iter().map(|n| node_info(n, pods.iter())).collect()
}

fn message(pod: &Pod, nodes: &[Node], pods: &[Pod]) -> String {
    match schedule(pod, &infos(nodes, pods)) {
        Ok(n) => panic!("expected a FitError, got node {n}"),
        Err(e) => e.message(),
    }
}

fn lab_nodes() -> Vec<Node> {
    let gpu = |name: &str, major: &str, os: &str, kernel: &str| {
        node(
            name,
            json!({
                "nvidia.com/gpu.present": "true",
                "nvidia.com/cuda.driver.major": major,
                "feature.node.kubernetes.io/kernel-version.full": kernel,
                "feature.node.kubernetes.io/system-os_release.ID": "ubuntu",
                "feature.node.kubernetes.io/system-os_release.VERSION_ID": os,
            }),
        )
    };
    vec![
        gpu("lab-node-0", "550", "22.04", "5.15.0-119-generic"),
        gpu("lab-node-1", "535", "22.04", "5.15.0-107-generic"),
        gpu("lab-node-2", "550", "24.04", "6.8.0-45-generic"),
        gpu("lab-node-3", "550", "24.04", "6.8.0-52-generic"),
    ]
}

fn required_node_affinity(exprs: Value) -> Value {
    json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": exprs}]
    }}}})
}

fn trainer(i: usize) -> Pod {
    let mut p = pod_in(
        "gpu-drv",
        &format!("trainer-{i}"),
        json!({"app": "trainer"}),
        json!({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "trainer"}}, "topologyKey": "kubernetes.io/hostname"}
        ]}}}),
    );
    p.metadata.owner_references = serde_json::from_value(json!([{
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "trainer-abc", "uid": "rs-uid", "controller": true
    }]))
    .ok();
    p
}

// ---- gpudrv lab -------------------------------------------------------------------------------

#[test]
fn lab_cuda12_job_lands_on_lab_node_0() {
    let nodes = lab_nodes();
    let p = pod_in(
        "gpu-drv",
        "cuda12-job",
        json!({}),
        required_node_affinity(json!([
            {"key": "nvidia.com/cuda.driver.major", "operator": "In", "values": ["550"]},
            {"key": "feature.node.kubernetes.io/system-os_release.VERSION_ID", "operator": "In", "values": ["22.04"]}
        ])),
    );
    assert_eq!(
        schedule(&p, &infos(&nodes, &[])).ok().as_deref(),
        Some("lab-node-0")
    );
}

#[test]
fn lab_cuda13_job_stays_pending_with_the_exact_message() {
    let nodes = lab_nodes();
    let p = pod_in(
        "gpu-drv",
        "cuda13-job",
        json!({}),
        required_node_affinity(json!([
            {"key": "nvidia.com/cuda.driver.major", "operator": "Gt", "values": ["560"]}
        ])),
    );
    let err = schedule(&p, &infos(&nodes, &[])).expect_err("must not fit");
    assert_eq!(
        err.message(),
        "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    );
    assert_eq!(err.reason(), "Unschedulable");
    assert!(err.preemption().is_none());
}

#[test]
fn lab_trainers_with_hostname_anti_affinity_land_one_per_node() {
    let nodes = lab_nodes();
    let mut placed: Vec<Pod> = Vec::new();
    for i in 0..4 {
        let p = trainer(i);
        let target = schedule(&p, &infos(&nodes, &placed)).expect("a free node");
        placed.push(bound(p, &target));
    }
    let mut used: Vec<String> = placed
        .iter()
        .filter_map(|p| p.spec.as_ref().and_then(|s| s.node_name.clone()))
        .collect();
    used.sort();
    assert_eq!(
        used,
        vec!["lab-node-0", "lab-node-1", "lab-node-2", "lab-node-3"]
    );

    // A fifth replica has nowhere to go; anti-affinity is Unschedulable, so preemption is tried
    // on every node and finds no lower-priority pod.
    assert_eq!(
        message(&trainer(4), &nodes, &placed),
        "0/4 nodes are available: 4 node(s) didn't match pod anti-affinity rules. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod."
    );
}

#[test]
fn lab_drained_trainer_replacement_stays_pending() {
    // lab-node-1 is cordoned and its trainer evicted; the replacement cannot go anywhere.
    let mut nodes = lab_nodes();
    nodes[1] = with_node_spec(nodes[1].clone(), json!({"unschedulable": true}));
    let placed: Vec<Pod> = [(0, "lab-node-0"), (2, "lab-node-2"), (3, "lab-node-3")]
        .into_iter()
        .map(|(i, n)| bound(trainer(i), n))
        .collect();
    assert_eq!(
        message(&trainer(1), &nodes, &placed),
        "0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match pod anti-affinity rules. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
    );
    // After uncordon it goes back to lab-node-1.
    let nodes = lab_nodes();
    assert_eq!(
        schedule(&trainer(1), &infos(&nodes, &placed))
            .ok()
            .as_deref(),
        Some("lab-node-1")
    );
}

// ---- reference worked examples (1.4, 1.5) ----------------------------------------------------

#[test]
fn worked_example_selector_plus_anti_affinity() {
    let nodes = vec![
        node("n1", json!({"disk": "hdd"})),
        node("n2", json!({"disk": "hdd"})),
        node("n3", json!({"disk": "hdd"})),
        node("n4", json!({"disk": "ssd"})),
    ];
    let existing = vec![bound(
        pod_in("default", "db-0", json!({"app": "db"}), json!({})),
        "n4",
    )];
    let p = pod_in(
        "default",
        "db-1",
        json!({"app": "db"}),
        json!({
            "nodeSelector": {"disk": "ssd"},
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
            ]}}
        }),
    );
    assert_eq!(
        message(&p, &nodes, &existing),
        "0/4 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    );
}

#[test]
fn worked_example_tainted_control_plane_and_full_gpu_nodes() {
    let cp = with_node_spec(
        node("cp", json!({})),
        json!({"taints": [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]}),
    );
    let gpu = |name: &str| {
        with_allocatable(
            node(name, json!({})),
            json!({"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "1"}),
        )
    };
    let nodes = vec![cp, gpu("g1"), gpu("g2"), gpu("g3")];
    let busy: Vec<Pod> = ["g1", "g2", "g3"]
        .iter()
        .map(|n| {
            bound(
                pod(
                    &format!("on-{n}"),
                    json!({"containers": requests(json!({"nvidia.com/gpu": "1"}))}),
                ),
                n,
            )
        })
        .collect();
    let p = pod(
        "train",
        json!({"containers": requests(json!({"nvidia.com/gpu": "1"}))}),
    );
    assert_eq!(
        message(&p, &nodes, &busy),
        "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
    );
}

#[test]
fn worked_example_daemon_pod_prefilter_result() {
    let nodes = vec![
        node("w1", json!({})),
        node("w2", json!({})),
        with_allocatable(
            node("w3", json!({})),
            json!({"cpu": "4", "memory": "1Gi", "pods": "110"}),
        ),
        node("w4", json!({})),
    ];
    let mut spec = k8s_openapi::api::core::v1::PodSpec {
        containers: serde_json::from_value(requests(json!({"memory": "2Gi"}))).expect("containers"),
        ..Default::default()
    };
    spec.affinity = serde_json::from_value(json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["w3"]}]}]}}}))
    .expect("affinity");
    add_daemon_tolerations(&mut spec);
    let p = Pod {
        metadata: serde_json::from_value(json!({"name": "agent-x", "namespace": "kube-system"}))
            .expect("meta"),
        spec: Some(spec),
        status: None,
    };
    assert_eq!(
        message(&p, &nodes, &[]),
        "0/4 nodes are available: 1 Insufficient memory, 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    );
    // With room on w3 it binds there, whatever the other nodes offer.
    let roomy = vec![node("w1", json!({})), node("w3", json!({}))];
    assert_eq!(
        schedule(&p, &infos(&roomy, &[])).ok().as_deref(),
        Some("w3")
    );
}

// ---- one test per filter ----------------------------------------------------------------------

#[test]
fn no_nodes_at_all() {
    let err = schedule(&pod("p", json!({})), &[]).expect_err("no nodes");
    assert_eq!(err.message(), "no nodes available to schedule pods");
    assert_eq!(err.reason(), "Unschedulable");
}

#[test]
fn node_unschedulable_unless_tolerated() {
    let nodes = vec![with_node_spec(
        node("a", json!({})),
        json!({"unschedulable": true}),
    )];
    assert_eq!(
        message(&pod("p", json!({})), &nodes, &[]),
        "0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    );
    let tolerant = pod(
        "p",
        json!({"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]}),
    );
    assert_eq!(
        schedule(&tolerant, &infos(&nodes, &[])).ok().as_deref(),
        Some("a")
    );
}

#[test]
fn node_name_mismatch() {
    let nodes = vec![node("a", json!({}))];
    assert_eq!(
        message(&pod("p", json!({"nodeName": "b"})), &nodes, &[]),
        "0/1 nodes are available: 1 node(s) didn't match the requested node name. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    );
}

#[test]
fn taint_toleration_reports_first_untolerated_hard_taint() {
    let nodes = vec![
        with_node_spec(
            node("a", json!({})),
            json!({"taints": [
                {"key": "soft", "effect": "PreferNoSchedule"},
                {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
                {"key": "later", "effect": "NoExecute"}
            ]}),
        ),
        node("b", json!({"pool": "cpu"})),
    ];
    let p = pod("p", json!({"nodeSelector": {"pool": "gpu"}}));
    assert_eq!(
        message(&p, &nodes, &[]),
        "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
    let tolerant = pod(
        "p",
        json!({"tolerations": [{"operator": "Exists"}], "nodeName": "a"}),
    );
    assert_eq!(
        schedule(&tolerant, &infos(&nodes, &[])).ok().as_deref(),
        Some("a")
    );
}

#[test]
fn node_affinity_conflicting_name_terms_fail_in_prefilter() {
    let nodes = vec![node("a", json!({})), node("b", json!({}))];
    let p = pod(
        "p",
        json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["a"]},
                {"key": "metadata.name", "operator": "In", "values": ["b"]}
            ]}]
        }}}}),
    );
    assert_eq!(
        message(&p, &nodes, &[]),
        "0/2 nodes are available: pod affinity terms conflict. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
}

#[test]
fn node_ports_conflict_is_resolvable_by_preemption_only_in_principle() {
    let nodes = vec![node("a", json!({}))];
    let with_port = |name: &str| {
        pod(
            name,
            json!({"containers": [{"name": "c", "image": "x", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}),
        )
    };
    let existing = vec![bound(with_port("old"), "a")];
    assert_eq!(
        message(&with_port("new"), &nodes, &existing),
        "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
}

#[test]
fn node_resources_fit_lists_every_short_resource() {
    let nodes = vec![
        with_allocatable(
            node("a", json!({})),
            json!({"cpu": "1", "memory": "1Gi", "pods": "110"}),
        ),
        with_allocatable(
            node("b", json!({})),
            json!({"cpu": "4", "memory": "1Gi", "pods": "110"}),
        ),
    ];
    let p = pod(
        "p",
        json!({"containers": requests(json!({"cpu": "2", "memory": "2Gi"}))}),
    );
    assert_eq!(
        message(&p, &nodes, &[]),
        "0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
    );
}

#[test]
fn too_many_pods() {
    let nodes = vec![with_allocatable(
        node("a", json!({})),
        json!({"cpu": "1", "memory": "1Gi", "pods": "1"}),
    )];
    let existing = vec![bound(pod("old", json!({})), "a")];
    assert_eq!(
        message(&pod("new", json!({})), &nodes, &existing),
        "0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
}

#[test]
fn terminal_pods_do_not_hold_resources() {
    let nodes = vec![with_allocatable(
        node("a", json!({})),
        json!({"cpu": "1", "memory": "1Gi", "pods": "1"}),
    )];
    let mut done = bound(pod("old", json!({})), "a");
    done.status = serde_json::from_value(json!({"phase": "Succeeded"})).ok();
    assert_eq!(
        schedule(&pod("new", json!({})), &infos(&nodes, &[done]))
            .ok()
            .as_deref(),
        Some("a")
    );
}

#[test]
fn inter_pod_affinity_first_pod_of_a_self_affine_group_schedules() {
    let nodes = vec![node("a", json!({})), node("b", json!({}))];
    let affine = |name: &str| {
        pod_in(
            "default",
            name,
            json!({"app": "cache"}),
            json!({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}
            ]}}}),
        )
    };
    let first = schedule(&affine("c0"), &infos(&nodes, &[])).expect("first pod fits");
    assert_eq!(first, "a");
    // The second one must follow the first.
    let placed = vec![bound(affine("c0"), "b")];
    assert_eq!(
        schedule(&affine("c1"), &infos(&nodes, &placed))
            .ok()
            .as_deref(),
        Some("b")
    );
}

#[test]
fn inter_pod_affinity_without_matching_pods_is_unresolvable() {
    let nodes = vec![node("a", json!({})), node("b", json!({}))];
    let p = pod_in(
        "default",
        "web",
        json!({"app": "web"}),
        json!({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}
        ]}}}),
    );
    assert_eq!(
        message(&p, &nodes, &[]),
        "0/2 nodes are available: 2 node(s) didn't match pod affinity rules. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
    // A cache pod in another namespace does not count: the term defaults to the pod's namespace.
    let other_ns = vec![bound(
        pod_in("other", "cache", json!({"app": "cache"}), json!({})),
        "b",
    )];
    assert!(schedule(&p, &infos(&nodes, &other_ns)).is_err());
    let same_ns = vec![bound(
        pod_in("default", "cache", json!({"app": "cache"}), json!({})),
        "b",
    )];
    assert_eq!(
        schedule(&p, &infos(&nodes, &same_ns)).ok().as_deref(),
        Some("b")
    );
}

#[test]
fn existing_pods_anti_affinity_blocks_the_incoming_pod() {
    let nodes = vec![node("a", json!({})), node("b", json!({}))];
    let loner = bound(
        pod_in(
            "default",
            "loner",
            json!({"app": "loner"}),
            json!({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
            ]}}}),
        ),
        "a",
    );
    let web = pod_in(
        "default",
        "web",
        json!({"app": "web"}),
        json!({"nodeName": ""}),
    );
    let nodes_a = vec![nodes[0].clone()];
    assert_eq!(
        message(&web, &nodes_a, std::slice::from_ref(&loner)),
        "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
    assert_eq!(
        schedule(&web, &infos(&nodes, &[loner])).ok().as_deref(),
        Some("b")
    );
}

#[test]
fn topology_spread_do_not_schedule() {
    let nodes = vec![
        node("a", json!({"zone": "z1"})),
        node("b", json!({"zone": "z2"})),
        node("c", json!({})),
    ];
    let spread = |name: &str| {
        pod_in(
            "default",
            name,
            json!({"app": "s"}),
            json!({"topologySpreadConstraints": [{
                "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "s"}}
            }]}),
        )
    };
    let placed = vec![bound(spread("s0"), "a")];
    assert_eq!(
        schedule(&spread("s1"), &infos(&nodes, &placed))
            .ok()
            .as_deref(),
        Some("b")
    );
    let only_a = vec![nodes[0].clone(), nodes[2].clone()];
    let both = vec![bound(spread("s0"), "a")];
    // With zone z2 gone, z1 is the only domain: skew 1+1-1 = 1 is allowed; node c lacks the key.
    assert_eq!(
        schedule(&spread("s1"), &infos(&only_a, &both))
            .ok()
            .as_deref(),
        Some("a")
    );
    let crowded = vec![bound(spread("s0"), "a"), bound(spread("s1"), "a")];
    let zones = vec![nodes[0].clone(), nodes[1].clone(), nodes[2].clone()];
    let blocked_nodes = vec![
        nodes[0].clone(),
        with_node_spec(nodes[1].clone(), json!({"unschedulable": true})),
        nodes[2].clone(),
    ];
    assert_eq!(
        schedule(&spread("s2"), &infos(&zones, &crowded))
            .ok()
            .as_deref(),
        Some("b")
    );
    assert_eq!(
        message(&spread("s2"), &blocked_nodes, &crowded),
        "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) didn't match pod topology spread constraints (missing required label), 1 node(s) were unschedulable. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
    );
}

// ---- preemption -------------------------------------------------------------------------------

#[test]
fn higher_priority_pod_preempts_a_lower_priority_one() {
    let nodes = vec![with_allocatable(
        node("a", json!({})),
        json!({"cpu": "2", "memory": "4Gi", "pods": "110"}),
    )];
    let mut low = bound(
        pod(
            "low",
            json!({"containers": requests(json!({"cpu": "1500m"}))}),
        ),
        "a",
    );
    if let Some(s) = low.spec.as_mut() {
        s.priority = Some(-5);
    }
    let keep = bound(
        pod(
            "keep",
            json!({"containers": requests(json!({"cpu": "100m"}))}),
        ),
        "a",
    );
    let high = pod(
        "high",
        json!({"priority": 1000, "containers": requests(json!({"cpu": "1"}))}),
    );
    let err = schedule(&high, &infos(&nodes, &[low, keep])).expect_err("needs preemption");
    // A successful preemption leaves only the filter part in the message.
    assert_eq!(
        err.message(),
        "0/1 nodes are available: 1 Insufficient cpu."
    );
    let plan = err.preemption().expect("a plan");
    assert_eq!(plan.node_name, "a");
    assert_eq!(
        plan.victims,
        vec![Victim {
            namespace: "default".into(),
            name: "low".into(),
            uid: "uid-low".into()
        }]
    );
}

#[test]
fn preemption_that_cannot_free_enough_reports_the_filter_reason() {
    let nodes = vec![with_allocatable(
        node("a", json!({})),
        json!({"cpu": "2", "memory": "4Gi", "pods": "110"}),
    )];
    let mut low = bound(
        pod(
            "low",
            json!({"containers": requests(json!({"cpu": "500m"}))}),
        ),
        "a",
    );
    if let Some(s) = low.spec.as_mut() {
        s.priority = Some(0);
    }
    let high = pod(
        "high",
        json!({"priority": 10, "containers": requests(json!({"cpu": "3"}))}),
    );
    assert_eq!(
        message(&high, &nodes, &[low]),
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu."
    );
}

#[test]
fn preemption_policy_never() {
    let nodes = vec![with_allocatable(
        node("a", json!({})),
        json!({"cpu": "1", "memory": "1Gi", "pods": "110"}),
    )];
    let p = pod(
        "p",
        json!({"preemptionPolicy": "Never", "priority": 100, "containers": requests(json!({"cpu": "2"}))}),
    );
    assert_eq!(
        message(&p, &nodes, &[]),
        "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."
    );
}

#[test]
fn preemption_skips_pdb_protected_victims_when_it_can() {
    let nodes = vec![
        with_allocatable(
            node("a", json!({})),
            json!({"cpu": "1", "memory": "4Gi", "pods": "110"}),
        ),
        with_allocatable(
            node("b", json!({})),
            json!({"cpu": "1", "memory": "4Gi", "pods": "110"}),
        ),
    ];
    let filler = |name: &str, app: &str, n: &str| {
        bound(
            pod_in(
                "default",
                name,
                json!({"app": app}),
                json!({"containers": requests(json!({"cpu": "1"}))}),
            ),
            n,
        )
    };
    let pods = vec![
        filler("guarded", "guarded", "a"),
        filler("free", "free", "b"),
    ];
    let pdb: PodDisruptionBudget = serde_json::from_value(json!({
        "metadata": {"name": "g", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "guarded"}}},
        "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}
    }))
    .expect("pdb");
    let cx = SchedulingContext {
        pdbs: vec![pdb],
        ..Default::default()
    };
    let high = pod(
        "high",
        json!({"priority": 5, "containers": requests(json!({"cpu": "1"}))}),
    );
    let err = schedule_with(&high, &infos(&nodes, &pods), &cx, &PodVolumes::default())
        .expect_err("needs preemption");
    let plan = err.preemption().expect("plan");
    assert_eq!(plan.node_name, "b");
    assert_eq!(
        plan.victims
            .iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>(),
        vec!["free"]
    );
}

#[test]
fn nominated_node_is_tried_first() {
    let nodes = vec![node("a", json!({})), node("b", json!({}))];
    let mut p = pod("p", json!({}));
    p.status = serde_json::from_value(json!({"nominatedNodeName": "b"})).ok();
    assert_eq!(schedule(&p, &infos(&nodes, &[])).ok().as_deref(), Some("b"));
}

// ---- node choice --------------------------------------------------------------------------------

#[test]
fn equal_nodes_tie_break_by_name() {
    let nodes = vec![
        node("c", json!({})),
        node("a", json!({})),
        node("b", json!({})),
    ];
    assert_eq!(
        schedule(&pod("p", json!({})), &infos(&nodes, &[]))
            .ok()
            .as_deref(),
        Some("a")
    );
}

#[test]
fn emptier_node_wins() {
    let nodes = vec![node("a", json!({})), node("b", json!({}))];
    let hog = bound(
        pod(
            "hog",
            json!({"containers": requests(json!({"cpu": "16", "memory": "128Gi"}))}),
        ),
        "a",
    );
    let p = pod(
        "p",
        json!({"containers": requests(json!({"cpu": "1", "memory": "1Gi"}))}),
    );
    assert_eq!(
        schedule(&p, &infos(&nodes, &[hog])).ok().as_deref(),
        Some("b")
    );
}

#[test]
fn replicas_of_one_controller_spread_over_equal_nodes() {
    let nodes: Vec<Node> = (0..4).map(|i| node(&format!("n{i}"), json!({}))).collect();
    let replica = |i: usize| {
        let mut p = pod_in(
            "default",
            &format!("web-{i}"),
            json!({"app": "web"}),
            json!({}),
        );
        p.metadata.owner_references = serde_json::from_value(json!([{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "rs-web", "controller": true
        }]))
        .ok();
        p
    };
    let mut placed: Vec<Pod> = Vec::new();
    for i in 0..4 {
        let p = replica(i);
        let target = schedule(&p, &infos(&nodes, &placed)).expect("fits");
        placed.push(bound(p, &target));
    }
    let mut used: Vec<String> = placed
        .iter()
        .filter_map(|p| p.spec.as_ref().and_then(|s| s.node_name.clone()))
        .collect();
    used.sort();
    assert_eq!(used, vec!["n0", "n1", "n2", "n3"]);
}

#[test]
fn preferred_node_affinity_steers_the_choice() {
    let nodes = vec![node("a", json!({})), node("b", json!({"fast": "yes"}))];
    let p = pod(
        "p",
        json!({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "preference": {"matchExpressions": [{"key": "fast", "operator": "Exists"}]}}
        ]}}}),
    );
    assert_eq!(schedule(&p, &infos(&nodes, &[])).ok().as_deref(), Some("b"));
}

#[test]
fn prefer_no_schedule_taint_is_avoided() {
    let nodes = vec![
        with_node_spec(
            node("a", json!({})),
            json!({"taints": [{"key": "meh", "effect": "PreferNoSchedule"}]}),
        ),
        node("b", json!({})),
    ];
    assert_eq!(
        schedule(&pod("p", json!({})), &infos(&nodes, &[]))
            .ok()
            .as_deref(),
        Some("b")
    );
}

#[test]
fn failed_scheduling_note_keeps_short_messages() {
    let nodes = lab_nodes();
    let msg = message(
        &trainer(9),
        &nodes,
        &(0..4)
            .map(|i| bound(trainer(i), &format!("lab-node-{i}")))
            .collect::<Vec<_>>(),
    );
    assert_eq!(failed_scheduling_note(&msg), msg);
}

#[test]
fn namespace_selector_widens_affinity_terms() {
    let nodes = vec![node("a", json!({})), node("b", json!({}))];
    let anti = |sel: Value| {
        pod_in(
            "team-a",
            "p",
            json!({"app": "x"}),
            json!({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "x"}}, "namespaceSelector": sel,
                 "topologyKey": "kubernetes.io/hostname"}
            ]}}}),
        )
    };
    let elsewhere = vec![bound(
        pod_in("team-b", "other", json!({"app": "x"}), json!({})),
        "a",
    )];
    // `{}` selects every namespace, so the team-b pod on a repels the incoming pod.
    assert_eq!(
        schedule(&anti(json!({})), &infos(&nodes, &elsewhere))
            .ok()
            .as_deref(),
        Some("b")
    );
    // A label selector needs the namespaces' labels; team-b carries the label here.
    let cx = SchedulingContext {
        namespace_labels: [
            (
                "team-a".to_string(),
                [("tier".to_string(), "a".to_string())].into(),
            ),
            (
                "team-b".to_string(),
                [("tier".to_string(), "shared".to_string())].into(),
            ),
        ]
        .into(),
        ..Default::default()
    };
    let by_label = anti(json!({"matchLabels": {"tier": "shared"}}));
    let only_a = vec![nodes[0].clone()];
    assert_eq!(
        schedule_with(&by_label, &infos(&only_a, &elsewhere), &cx, &PodVolumes::default())
            .expect_err("repelled")
            .message(),
        "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
    // Without namespace labels the selector matches no namespace and the pod fits on a.
    assert_eq!(
        schedule(&by_label, &infos(&only_a, &elsewhere))
            .ok()
            .as_deref(),
        Some("a")
    );
}
