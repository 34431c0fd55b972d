//! The Filter extension point: for each node, the default filter plugins run in their configured
//! order (`k/k pkg/scheduler/apis/config/v1/default_plugins.go`) and the first one that rejects the
//! node decides its status (`RunFilterPlugins`, `k/k pkg/scheduler/framework/runtime/framework.go`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use k8s_openapi::api::core::v1::{Pod, PodSpec, Taint, Toleration};

use super::inter_pod_affinity::{self, PodTerms};
use super::labels::Labels;
use super::node_affinity::{
    node_name, prefilter_node_names, required_node_affinity_matches, NodeNameHint, ERR_REASON_POD,
};
use super::node_ports::{self, HostPort};
use super::resources::{self, NodeResources, Resource};
use super::status::Status;
use super::taints::{
    find_untolerated_taint, tolerations_tolerate, untolerated_taint_reason, EFFECT_NO_EXECUTE,
    EFFECT_NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE,
};
use super::topology_spread;
use super::volume_binding::PodVolumes;
use super::{NodeInfo, SchedulingContext};

/// NodeUnschedulable's reason (`ErrReasonUnschedulable`).
pub const ERR_REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";
/// NodeName's reason (`ErrReason`).
pub const ERR_REASON_NODE_NAME: &str = "node(s) didn't match the requested node name";

fn default_spec() -> &'static PodSpec {
    static SPEC: OnceLock<PodSpec> = OnceLock::new();
    SPEC.get_or_init(PodSpec::default)
}

/// Everything PreFilter derives from the incoming pod alone.
pub struct PodCtx<'p> {
    pub pod: &'p Pod,
    pub spec: &'p PodSpec,
    pub requests: Resource,
    pub non_zero_requests: (i64, i64),
    pub host_ports: Vec<HostPort>,
    pub terms: PodTerms,
    /// Labels of the pod's namespace, when the caller supplied them.
    pub namespace_labels: Option<Labels>,
    pub node_hint: NodeNameHint,
    pub volumes: &'p PodVolumes,
}

impl<'p> PodCtx<'p> {
    pub fn new(pod: &'p Pod, cx: &SchedulingContext, volumes: &'p PodVolumes) -> Self {
        let spec = pod.spec.as_ref().unwrap_or(default_spec());
        let namespace = pod.metadata.namespace.as_deref().unwrap_or("");
        Self {
            pod,
            spec,
            requests: resources::pod_requests(pod),
            non_zero_requests: resources::pod_non_zero_requests(pod),
            host_ports: node_ports::host_ports(pod),
            terms: PodTerms::of_incoming(pod, &cx.namespace_labels),
            namespace_labels: cx.namespace_labels.get(namespace).cloned(),
            node_hint: prefilter_node_names(spec),
            volumes,
        }
    }

    pub fn tolerations(&self) -> &[Toleration] {
        self.spec.tolerations.as_deref().unwrap_or_default()
    }
}

/// The PreFilter states that depend on the pods of the whole snapshot.
pub struct SnapshotState {
    affinity: inter_pod_affinity::FilterState,
    spread: topology_spread::FilterState,
}

impl SnapshotState {
    pub fn new(ctx: &PodCtx<'_>, nodes: &[NodeInfo<'_>]) -> Self {
        Self {
            affinity: inter_pod_affinity::FilterState::new(
                ctx.pod,
                &ctx.terms,
                nodes,
                ctx.namespace_labels.as_ref(),
            ),
            spread: topology_spread::FilterState::new(ctx.pod, nodes),
        }
    }
}

fn node_taints<'n>(ni: &NodeInfo<'n>) -> &'n [Taint] {
    ni.node
        .spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default()
}

/// Runs the filters on one node; `None` when the pod fits.
pub fn filter_node(ctx: &PodCtx<'_>, state: &SnapshotState, ni: &NodeInfo<'_>) -> Option<Status> {
    let node = ni.node;
    // NodeUnschedulable: a cordoned node, unless the pod tolerates the unschedulable taint.
    let cordoned = node
        .spec
        .as_ref()
        .and_then(|s| s.unschedulable)
        .unwrap_or(false);
    if cordoned {
        let implied = Taint {
            key: TAINT_NODE_UNSCHEDULABLE.to_string(),
            effect: EFFECT_NO_SCHEDULE.to_string(),
            value: None,
            time_added: None,
        };
        if !tolerations_tolerate(ctx.tolerations(), &implied) {
            return Some(Status::unresolvable(ERR_REASON_UNSCHEDULABLE));
        }
    }
    // NodeName.
    if let Some(wanted) = ctx.spec.node_name.as_deref().filter(|n| !n.is_empty()) {
        if wanted != node_name(node) {
            return Some(Status::unresolvable(ERR_REASON_NODE_NAME));
        }
    }
    // TaintToleration: only NoSchedule and NoExecute taints; the first untolerated one is reported.
    if let Some(taint) = find_untolerated_taint(
        node_taints(ni),
        ctx.tolerations(),
        &[EFFECT_NO_SCHEDULE, EFFECT_NO_EXECUTE],
    ) {
        return Some(Status::unresolvable(untolerated_taint_reason(taint)));
    }
    // NodeAffinity.
    if !required_node_affinity_matches(ctx.spec, node) {
        return Some(Status::unresolvable(ERR_REASON_POD));
    }
    // NodePorts.
    let used: Vec<HostPort> = ni
        .pods
        .iter()
        .flat_map(|p| node_ports::host_ports(p))
        .collect();
    if !node_ports::fits(&ctx.host_ports, &used) {
        return Some(Status::unschedulable(node_ports::ERR_REASON));
    }
    // NodeResourcesFit: all insufficient resources are reported together.
    let reasons =
        resources::insufficient_resources(&ctx.requests, &NodeResources::new(node, &ni.pods));
    if !reasons.is_empty() {
        return Some(Status {
            code: super::status::Code::Unschedulable,
            reasons,
        });
    }
    // VolumeBinding.
    if let Some(status) = ctx.volumes.filter(node) {
        return Some(status);
    }
    // PodTopologySpread.
    if let Some(status) = state.spread.filter(ctx.pod, node) {
        return Some(status);
    }
    // InterPodAffinity.
    state.affinity.filter(&ctx.terms, node)
}

/// The result of filtering a set of nodes.
pub struct FilterRun {
    /// Rejected nodes by name.
    pub statuses: BTreeMap<String, Status>,
    /// Indexes (into the snapshot) of the nodes the pod fits on, in snapshot order.
    pub feasible: Vec<usize>,
}

/// Filters the nodes at `candidates` (indexes into `nodes`).
pub fn run_filters(ctx: &PodCtx<'_>, nodes: &[NodeInfo<'_>], candidates: &[usize]) -> FilterRun {
    let state = SnapshotState::new(ctx, nodes);
    let mut run = FilterRun {
        statuses: BTreeMap::new(),
        feasible: Vec::new(),
    };
    for &i in candidates {
        let Some(ni) = nodes.get(i) else { continue };
        match filter_node(ctx, &state, ni) {
            Some(status) => {
                run.statuses.insert(node_name(ni.node).to_string(), status);
            }
            None => run.feasible.push(i),
        }
    }
    run
}
