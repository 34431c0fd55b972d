//! The scheduling decisions of the embedded cluster, as pure functions over typed objects.
//!
//! [`schedule`] does what one kube-scheduler scheduling cycle does for one pod with the default
//! profile: PreFilter, Filter (first failing plugin per node wins), PostFilter (DefaultPreemption) and,
//! when several nodes fit, Score and host selection. On failure it returns a [`FitError`] whose
//! [`FitError::message`] is the exact text of the `PodScheduled=False` condition (1.30+ format).
//!
//! Filters, in upstream order: NodeUnschedulable, NodeName, TaintToleration, NodeAffinity (with the
//! `metadata.name` PreFilter), NodePorts, NodeResourcesFit, VolumeBinding, PodTopologySpread,
//! InterPodAffinity. The other volume plugins (limits, zones, restrictions) and DRA are not
//! modelled: fake nodes attach nothing.
//!
//! The DaemonSet controller shares the placement helpers: [`required_node_affinity_matches`],
//! [`find_untolerated_taint`], [`node_should_run_daemon_pod`] and [`add_daemon_tolerations`]; it
//! writes and reads the `metadata.name` term of a daemon pod itself (`daemon/util`).
//!
//! There is no I/O here: the caller passes the nodes and the pods bound to them, binds the chosen
//! node, and writes conditions and events.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;

mod daemon;
mod filters;
mod fit_error;
mod inter_pod_affinity;
mod labels;
mod node_affinity;
mod node_ports;
mod preemption;
mod resources;
mod score;
mod status;
mod taints;
mod topology_spread;
mod volume_binding;

#[cfg(test)]
mod tests;

pub use daemon::{add_daemon_tolerations, node_should_run_daemon_pod};
pub use fit_error::{failed_scheduling_note, FitError, PreemptionPlan};
pub use preemption::pod_priority;
pub use taints::{tolerates, EFFECT_NO_EXECUTE};
pub use volume_binding::{Candidate, DelayedClaim, PodVolumes, Provision, VolumePlan};

use filters::{run_filters, PodCtx};
use fit_error::Diagnosis;
use node_affinity::{node_name, NodeNameHint, ERR_REASON_CONFLICT};
use status::Status;

/// One node of the scheduler's snapshot with the pods assigned to it.
///
/// `pods` are the pods whose `spec.nodeName` is this node and that are not terminal (phase neither
/// Succeeded nor Failed); pods being deleted still count until they are gone, as upstream.
#[derive(Debug, Clone)]
pub struct NodeInfo<'a> {
    pub node: &'a Node,
    pub pods: Vec<&'a Pod>,
}

/// Cluster facts beyond nodes and pods that some decisions read.
#[derive(Debug, Clone, Default)]
pub struct SchedulingContext {
    /// Labels of each namespace by name, for `namespaceSelector` in pod (anti-)affinity terms.
    /// Without them a namespaceSelector other than `{}` selects no namespace.
    pub namespace_labels: BTreeMap<String, BTreeMap<String, String>>,
    /// PodDisruptionBudgets (with status), consulted when preemption picks its victims.
    pub pdbs: Vec<PodDisruptionBudget>,
}

/// Schedules `pod` onto one of `nodes`, returning the chosen node's name: with namespace labels
/// and PodDisruptionBudgets, and what VolumeBinding knows of the pod's claims.
pub fn schedule_with(
    pod: &Pod,
    nodes: &[NodeInfo<'_>],
    cx: &SchedulingContext,
    volumes: &PodVolumes,
) -> Result<String, FitError> {
    if nodes.is_empty() {
        return Err(FitError::no_nodes());
    }
    let ctx = PodCtx::new(pod, cx, volumes);
    let mut diagnosis = Diagnosis {
        num_all_nodes: nodes.len(),
        ..Default::default()
    };

    // PreFilter: NodeAffinity may reject the pod outright or narrow the candidates.
    let candidates: Vec<usize> = match &ctx.node_hint {
        NodeNameHint::Conflict => {
            for ni in nodes {
                diagnosis.statuses.insert(
                    node_name(ni.node).to_string(),
                    Status::unresolvable(ERR_REASON_CONFLICT),
                );
            }
            diagnosis.prefilter_msg = Some(ERR_REASON_CONFLICT.to_string());
            let post = preemption::post_filter(&ctx, nodes, &diagnosis, &cx.pdbs);
            return Err(FitError::unfit(diagnosis, post));
        }
        _ if volumes.reject.is_some() => {
            // VolumeBinding's PreFilter, after NodeAffinity's.
            let msg = volumes.reject.clone().unwrap_or_default();
            for ni in nodes {
                diagnosis.statuses.insert(
                    node_name(ni.node).to_string(),
                    Status::unresolvable(msg.clone()),
                );
            }
            diagnosis.prefilter_msg = Some(msg);
            let post = preemption::post_filter(&ctx, nodes, &diagnosis, &cx.pdbs);
            return Err(FitError::unfit(diagnosis, post));
        }
        NodeNameHint::AllNodes => (0..nodes.len()).collect(),
        NodeNameHint::Only(names) => {
            // Nodes outside the PreFilterResult are reported with the plugin that excluded them
            // (1.31+ wording, schedule_one.go findNodesThatFitPod).
            diagnosis.absent = Some(Status::unresolvable(
                "node(s) didn't satisfy plugin(s) [NodeAffinity]",
            ));
            nodes
                .iter()
                .enumerate()
                .filter(|(_, ni)| names.contains(node_name(ni.node)))
                .map(|(i, _)| i)
                .collect()
        }
    };

    // A pod nominated by an earlier preemption tries its nominated node first.
    let nominated = pod
        .status
        .as_ref()
        .and_then(|s| s.nominated_node_name.as_deref())
        .filter(|n| !n.is_empty());
    if let Some(idx) = nominated.and_then(|n| nodes.iter().position(|ni| node_name(ni.node) == n)) {
        if run_filters(&ctx, nodes, &[idx]).feasible == [idx] {
            return Ok(node_name(nodes[idx].node).to_string());
        }
    }

    let run = run_filters(&ctx, nodes, &candidates);
    if let Some(best) = score::select_host(&ctx, nodes, &run.feasible) {
        return Ok(node_name(nodes[best].node).to_string());
    }
    diagnosis.statuses = run.statuses;
    let post = preemption::post_filter(&ctx, nodes, &diagnosis, &cx.pdbs);
    Err(FitError::unfit(diagnosis, post))
}
