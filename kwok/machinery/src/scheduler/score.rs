//! The Score extension point and host selection (`RunScorePlugins`, `selectHost` in
//! `k/k pkg/scheduler/schedule_one.go`). Each default score plugin yields 0..100 per feasible node,
//! multiplied by its default weight (`default_plugins.go`): TaintToleration 3, NodeAffinity 2,
//! NodeResourcesFit 1, PodTopologySpread 2, InterPodAffinity 2, NodeResourcesBalancedAllocation 1.
//! ImageLocality is left out (fake nodes report no images).
//!
//! Upstream picks randomly among the nodes with the top score; here the tie goes to the smallest
//! node name so that a given cluster state always schedules the same way.

use super::filters::PodCtx;
use super::inter_pod_affinity;
use super::node_affinity::{node_name, preferred_score};
use super::resources::{balanced_allocation_score, least_allocated_score, NodeResources};
use super::taints::intolerable_prefer_no_schedule;
use super::topology_spread;
use super::NodeInfo;

const MAX_NODE_SCORE: i64 = 100;

const WEIGHT_TAINT_TOLERATION: i64 = 3;
const WEIGHT_NODE_AFFINITY: i64 = 2;
const WEIGHT_NODE_RESOURCES_FIT: i64 = 1;
const WEIGHT_POD_TOPOLOGY_SPREAD: i64 = 2;
const WEIGHT_INTER_POD_AFFINITY: i64 = 2;
const WEIGHT_BALANCED_ALLOCATION: i64 = 1;

/// `helper.DefaultNormalizeScore`: scale to 0..100 by the maximum, optionally reversed.
fn default_normalize(scores: &mut [i64], reverse: bool) {
    let max = scores.iter().copied().max().unwrap_or(0);
    if max == 0 {
        if reverse {
            scores.iter_mut().for_each(|s| *s = MAX_NODE_SCORE);
        }
        return;
    }
    for s in scores.iter_mut() {
        let scaled = MAX_NODE_SCORE * *s / max;
        *s = if reverse {
            MAX_NODE_SCORE - scaled
        } else {
            scaled
        };
    }
}

/// The weighted total score of each node in `feasible` (indexes into `nodes`), in the same order.
pub fn total_scores(ctx: &PodCtx<'_>, nodes: &[NodeInfo<'_>], feasible: &[usize]) -> Vec<i64> {
    let feasible_nodes: Vec<&NodeInfo<'_>> =
        feasible.iter().filter_map(|&i| nodes.get(i)).collect();
    let mut totals = vec![0i64; feasible_nodes.len()];
    let mut add = |scores: Vec<i64>, weight: i64| {
        for (t, s) in totals.iter_mut().zip(scores) {
            *t += s * weight;
        }
    };

    let mut taint_scores: Vec<i64> = feasible_nodes
        .iter()
        .map(|ni| {
            let taints = ni
                .node
                .spec
                .as_ref()
                .and_then(|s| s.taints.as_deref())
                .unwrap_or_default();
            intolerable_prefer_no_schedule(taints, ctx.tolerations())
        })
        .collect();
    default_normalize(&mut taint_scores, true);
    add(taint_scores, WEIGHT_TAINT_TOLERATION);

    let mut affinity_scores: Vec<i64> = feasible_nodes
        .iter()
        .map(|ni| preferred_score(ctx.spec, ni.node))
        .collect();
    default_normalize(&mut affinity_scores, false);
    add(affinity_scores, WEIGHT_NODE_AFFINITY);

    let resources: Vec<NodeResources> = feasible_nodes
        .iter()
        .map(|ni| NodeResources::new(ni.node, &ni.pods))
        .collect();
    add(
        resources
            .iter()
            .map(|r| least_allocated_score(ctx.non_zero_requests, r))
            .collect(),
        WEIGHT_NODE_RESOURCES_FIT,
    );
    add(
        resources
            .iter()
            .map(|r| balanced_allocation_score(&ctx.requests, r))
            .collect(),
        WEIGHT_BALANCED_ALLOCATION,
    );

    add(
        topology_spread::normalized_scores(ctx.pod, nodes, &feasible_nodes),
        WEIGHT_POD_TOPOLOGY_SPREAD,
    );
    add(
        inter_pod_affinity::normalized_scores(
            ctx.pod,
            &ctx.terms,
            nodes,
            &feasible_nodes,
            ctx.namespace_labels.as_ref(),
        ),
        WEIGHT_INTER_POD_AFFINITY,
    );
    totals
}

/// Picks the node with the highest total score; ties go to the smallest node name.
pub fn select_host(ctx: &PodCtx<'_>, nodes: &[NodeInfo<'_>], feasible: &[usize]) -> Option<usize> {
    if feasible.len() <= 1 {
        return feasible.first().copied();
    }
    let totals = total_scores(ctx, nodes, feasible);
    feasible
        .iter()
        .zip(totals)
        .max_by(|(ia, sa), (ib, sb)| {
            sa.cmp(sb).then_with(|| {
                // Reverse name order so that max_by keeps the smallest name among equals.
                let na = nodes.get(**ia).map(|n| node_name(n.node)).unwrap_or("");
                let nb = nodes.get(**ib).map(|n| node_name(n.node)).unwrap_or("");
                nb.cmp(na)
            })
        })
        .map(|(i, _)| *i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_normalize_scales_by_max_and_reverses() {
        let mut s = vec![0, 1, 2];
        default_normalize(&mut s, false);
        assert_eq!(s, vec![0, 50, 100]);
        let mut r = vec![0, 1, 2];
        default_normalize(&mut r, true);
        assert_eq!(r, vec![100, 50, 0]);
        let mut z = vec![0, 0];
        default_normalize(&mut z, true);
        assert_eq!(z, vec![100, 100]);
    }
}
