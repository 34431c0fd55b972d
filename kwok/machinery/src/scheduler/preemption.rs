//! PostFilter: DefaultPreemption (`k/k pkg/scheduler/framework/plugins/defaultpreemption/
//! default_preemption.go`) on top of the preemption evaluator
//! (`k/k pkg/scheduler/framework/preemption/preemption.go`).
//!
//! Only nodes whose filter status was `Unschedulable` are tried. On each, every pod of lower priority
//! is removed; if the pod then fits, as many of them as possible are put back (PDB-violating ones
//! first, most important first) and the rest become victims. Without any node where that works, the
//! message is a second FitError over all nodes: `No preemption victims found for incoming pod` for
//! tried nodes without lower-priority pods, the filter reasons for tried nodes that still do not fit,
//! and `Preemption is not helpful for scheduling` for every other node.
//!
//! Differences from upstream, all invisible without competing schedulers: nominated pods of other
//! preemptors are not added back when filtering, every potential node is evaluated (upstream samples
//! at least 100 nodes from a random offset), and ties between candidates go to the smallest node name.

use std::cmp::Ordering;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;

use super::filters::{filter_node, PodCtx, SnapshotState};
use super::fit_error::{Diagnosis, FitError, PostFilter, PreemptionPlan, Victim};
use super::labels::as_selector;
use super::node_affinity::node_name;
use super::status::{Code, Status};
use super::NodeInfo;
use crate::error::{aggregate, go_quote};

/// Absent-node status of the preemption FitError (and of nodes where preemption cannot help).
pub const PREEMPTION_NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
/// `SelectVictimsOnNode` on a node without pods of lower priority.
pub const NO_VICTIMS: &str = "No preemption victims found for incoming pod";
const NOT_ELIGIBLE_NEVER: &str = "not eligible due to preemptionPolicy=Never.";
const NOT_ELIGIBLE_TERMINATING: &str =
    "not eligible due to a terminating pod on the nominated node.";

/// `corev1helpers.PodPriority`: `spec.priority`, 0 when unset.
pub fn pod_priority(pod: &Pod) -> i32 {
    pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0)
}

/// `GetPodStartTime` ordering key: pods that have not started count as starting "now", i.e. after
/// every recorded start time.
fn start_key(
    pod: &Pod,
) -> (
    u8,
    Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
) {
    match pod.status.as_ref().and_then(|s| s.start_time.as_ref()) {
        Some(t) => (0, Some(t)),
        None => (1, None),
    }
}

/// `util.MoreImportantPod` as an ordering: higher priority first, then the earlier start.
fn more_important_first(a: &Pod, b: &Pod) -> Ordering {
    pod_priority(b)
        .cmp(&pod_priority(a))
        .then_with(|| start_key(a).cmp(&start_key(b)))
}

/// `podTerminatingByPreemption`.
fn terminating_by_preemption(pod: &Pod) -> bool {
    if pod.metadata.deletion_timestamp.is_none() {
        return false;
    }
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "DisruptionTarget"))
        .is_some_and(|c| c.status == "True" && c.reason.as_deref() == Some("PreemptionByScheduler"))
}

/// `PodEligibleToPreemptOthers`; `Err` carries the message.
fn eligible(
    ctx: &PodCtx<'_>,
    nodes: &[NodeInfo<'_>],
    diagnosis: &Diagnosis,
) -> Result<(), &'static str> {
    if ctx.spec.preemption_policy.as_deref() == Some("Never") {
        return Err(NOT_ELIGIBLE_NEVER);
    }
    let nominated = ctx
        .pod
        .status
        .as_ref()
        .and_then(|s| s.nominated_node_name.as_deref())
        .unwrap_or("");
    if nominated.is_empty() {
        return Ok(());
    }
    let unresolvable = diagnosis
        .status_of(nominated)
        .is_none_or(|s| s.code == Code::UnschedulableAndUnresolvable);
    if unresolvable {
        return Ok(());
    }
    let priority = pod_priority(ctx.pod);
    if let Some(ni) = nodes.iter().find(|n| node_name(n.node) == nominated) {
        if ni
            .pods
            .iter()
            .any(|p| pod_priority(p) < priority && terminating_by_preemption(p))
        {
            return Err(NOT_ELIGIBLE_TERMINATING);
        }
    }
    Ok(())
}

/// `filterPodsWithPDBViolation`: each PDB's `disruptionsAllowed` is spent pod by pod (pods already in
/// `disruptedPods` are free); a pod that drives any matching budget below zero is violating.
fn split_by_pdb<'a>(
    pods: &[&'a Pod],
    pdbs: &[PodDisruptionBudget],
) -> (Vec<&'a Pod>, Vec<&'a Pod>) {
    let mut allowed: Vec<i32> = pdbs
        .iter()
        .map(|p| {
            p.status
                .as_ref()
                .map(|s| s.disruptions_allowed)
                .unwrap_or(0)
        })
        .collect();
    let mut violating = Vec::new();
    let mut non_violating = Vec::new();
    for &pod in pods {
        let labels = pod.metadata.labels.clone().unwrap_or_default();
        let mut violated = false;
        if !labels.is_empty() {
            for (i, pdb) in pdbs.iter().enumerate() {
                if pdb.metadata.namespace != pod.metadata.namespace {
                    continue;
                }
                let selector = as_selector(pdb.spec.as_ref().and_then(|s| s.selector.as_ref()));
                if selector.is_empty() || !selector.matches(&labels) {
                    continue;
                }
                let name = pod.metadata.name.as_deref().unwrap_or("");
                let already = pdb
                    .status
                    .as_ref()
                    .and_then(|s| s.disrupted_pods.as_ref())
                    .is_some_and(|d| d.contains_key(name));
                if already {
                    continue;
                }
                allowed[i] -= 1;
                if allowed[i] < 0 {
                    violated = true;
                }
            }
        }
        if violated {
            violating.push(pod);
        } else {
            non_violating.push(pod);
        }
    }
    (violating, non_violating)
}

/// Filters node `idx` as if it held exactly `pods`.
fn fits_with(
    ctx: &PodCtx<'_>,
    nodes: &[NodeInfo<'_>],
    idx: usize,
    pods: &[&Pod],
) -> Option<Status> {
    let mut snapshot: Vec<NodeInfo<'_>> = nodes.to_vec();
    let target = snapshot.get_mut(idx)?;
    target
        .pods
        .retain(|p| pods.iter().any(|q| std::ptr::eq(*p, *q)));
    let state = SnapshotState::new(ctx, &snapshot);
    filter_node(ctx, &state, snapshot.get(idx)?)
}

struct Candidate<'a> {
    node: usize,
    victims: Vec<&'a Pod>,
    pdb_violations: usize,
}

/// `SelectVictimsOnNode`.
fn select_victims<'a>(
    ctx: &PodCtx<'_>,
    nodes: &[NodeInfo<'a>],
    idx: usize,
    pdbs: &[PodDisruptionBudget],
) -> Result<Candidate<'a>, Status> {
    let ni = nodes
        .get(idx)
        .ok_or_else(|| Status::new(Code::Error, "node not found"))?;
    let priority = pod_priority(ctx.pod);
    let mut potential: Vec<&'a Pod> = ni
        .pods
        .iter()
        .copied()
        .filter(|p| pod_priority(p) < priority)
        .collect();
    if potential.is_empty() {
        return Err(Status::unresolvable(NO_VICTIMS));
    }
    let mut kept: Vec<&'a Pod> = ni
        .pods
        .iter()
        .copied()
        .filter(|p| pod_priority(p) >= priority)
        .collect();
    if let Some(status) = fits_with(ctx, nodes, idx, &kept) {
        return Err(status);
    }
    potential.sort_by(|a, b| more_important_first(a, b));
    let (violating, non_violating) = split_by_pdb(&potential, pdbs);
    let mut victims: Vec<&'a Pod> = Vec::new();
    let mut pdb_violations = 0;
    for (pods, counts_violation) in [(&violating, true), (&non_violating, false)] {
        for &p in pods.iter() {
            kept.push(p);
            if fits_with(ctx, nodes, idx, &kept).is_some() {
                kept.pop();
                victims.push(p);
                if counts_violation {
                    pdb_violations += 1;
                }
            }
        }
    }
    if !violating.is_empty() && !non_violating.is_empty() {
        victims.sort_by(|a, b| more_important_first(a, b));
    }
    if victims.is_empty() {
        return Err(Status::new(
            Code::Error,
            format!(
                "expected at least one victim pod on node {}",
                go_quote(node_name(ni.node))
            ),
        ));
    }
    Ok(Candidate {
        node: idx,
        victims,
        pdb_violations,
    })
}

/// `GetEarliestPodStartTime` over the highest-priority victims.
fn earliest_start_of_top<'a>(
    victims: &[&'a Pod],
) -> (
    u8,
    Option<&'a k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
) {
    let top = victims.iter().map(|p| pod_priority(p)).max().unwrap_or(0);
    victims
        .iter()
        .filter(|p| pod_priority(p) == top)
        .map(|p| start_key(p))
        .min()
        .unwrap_or((1, None))
}

/// `pickOneNodeForPreemption`: fewest PDB violations, lowest highest victim priority, lowest sum of
/// priorities, fewest victims, latest start of the highest-priority victims; then smallest name.
fn pick<'c, 'a>(
    candidates: &'c [Candidate<'a>],
    nodes: &[NodeInfo<'_>],
) -> Option<&'c Candidate<'a>> {
    candidates.iter().min_by(|a, b| {
        let top = |c: &Candidate<'_>| c.victims.iter().map(|p| pod_priority(p)).max().unwrap_or(0);
        let sum = |c: &Candidate<'_>| {
            c.victims
                .iter()
                .map(|p| i64::from(pod_priority(p)) + i64::from(i32::MAX) + 1)
                .sum::<i64>()
        };
        let name = |c: &Candidate<'_>| nodes.get(c.node).map(|n| node_name(n.node)).unwrap_or("");
        a.pdb_violations
            .cmp(&b.pdb_violations)
            .then_with(|| top(a).cmp(&top(b)))
            .then_with(|| sum(a).cmp(&sum(b)))
            .then_with(|| a.victims.len().cmp(&b.victims.len()))
            .then_with(|| earliest_start_of_top(&b.victims).cmp(&earliest_start_of_top(&a.victims)))
            .then_with(|| name(a).cmp(name(b)))
    })
}

fn victim_ref(p: &Pod) -> Victim {
    Victim {
        namespace: p.metadata.namespace.clone().unwrap_or_default(),
        name: p.metadata.name.clone().unwrap_or_default(),
        uid: p.metadata.uid.clone().unwrap_or_default(),
    }
}

/// DefaultPreemption `PostFilter` after the filters rejected every node.
pub fn post_filter(
    ctx: &PodCtx<'_>,
    nodes: &[NodeInfo<'_>],
    diagnosis: &Diagnosis,
    pdbs: &[PodDisruptionBudget],
) -> PostFilter {
    if let Err(msg) = eligible(ctx, nodes, diagnosis) {
        return PostFilter::Failed(format!("preemption: {msg}"));
    }
    let potential: Vec<usize> = nodes
        .iter()
        .enumerate()
        .filter(|(_, ni)| {
            diagnosis
                .statuses
                .get(node_name(ni.node))
                .is_some_and(|s| s.code == Code::Unschedulable)
        })
        .map(|(i, _)| i)
        .collect();
    let mut preemption = Diagnosis {
        num_all_nodes: nodes.len(),
        absent: Some(Status::unresolvable(PREEMPTION_NOT_HELPFUL)),
        ..Default::default()
    };
    let mut candidates = Vec::new();
    let mut errors = Vec::new();
    for idx in potential {
        match select_victims(ctx, nodes, idx, pdbs) {
            Ok(c) => candidates.push(c),
            Err(status) => {
                if status.code == Code::Error {
                    errors.push(status.message());
                }
                let name = nodes.get(idx).map(|n| node_name(n.node)).unwrap_or("");
                preemption.statuses.insert(name.to_string(), status);
            }
        }
    }
    if candidates.is_empty() {
        if !errors.is_empty() {
            return PostFilter::Failed(format!("preemption: {}", aggregate(errors)));
        }
        let msg = FitError::unfit(preemption, PostFilter::Failed(String::new())).message();
        return PostFilter::Failed(format!("preemption: {msg}"));
    }
    match pick(&candidates, nodes) {
        Some(best) => PostFilter::Nominated(PreemptionPlan {
            node_name: nodes
                .get(best.node)
                .map(|n| node_name(n.node).to_string())
                .unwrap_or_default(),
            victims: best.victims.iter().map(|p| victim_ref(p)).collect(),
        }),
        None => PostFilter::Failed("preemption: no candidate node for preemption".to_string()),
    }
}
