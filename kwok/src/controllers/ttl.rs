//! The TTL controller (`pkg/controller/ttl/ttl_controller.go`): every node carries
//! `node.alpha.kubernetes.io/ttl`, the seconds a kubelet may cache the objects it watches, chosen
//! from the cluster's size with hysteresis between the boundaries (`ttlBoundaries`).

use super::{Controller, Pass};
use crate::api::{Api, WriteOptions};
use crate::registry;
use crate::store::Event;

/// `v1.ObjectTTLAnnotationKey`.
pub const TTL_ANNOTATION: &str = "node.alpha.kubernetes.io/ttl";

/// `ttlBoundaries`: (sizeMin, sizeMax, ttlSeconds).
const BOUNDARIES: [(usize, usize, u32); 5] = [
    (0, 100, 0),
    (90, 500, 15),
    (450, 1000, 30),
    (900, 2000, 60),
    (1800, i32::MAX as usize, 300),
];

#[derive(Default)]
pub struct TtlController {
    /// Which boundary the cluster's size is in (`boundaryStep`).
    step: usize,
}

impl TtlController {
    /// `addNode`/`deleteNode` move one step at a time as the count crosses a boundary; a pass
    /// that sees the count move further (many nodes at once) keeps stepping.
    fn desired_ttl(&mut self, nodes: usize) -> u32 {
        while self.step + 1 < BOUNDARIES.len() && nodes > BOUNDARIES[self.step].1 {
            self.step += 1;
        }
        while self.step > 0 && nodes < BOUNDARIES[self.step].0 {
            self.step -= 1;
        }
        BOUNDARIES[self.step].2
    }
}

impl Controller for TtlController {
    fn name(&self) -> &'static str {
        "ttl"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::NODES)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let nodes = api.store().list(&registry::NODES, None).0;
        let want = self.desired_ttl(nodes.len()).to_string();
        for node in nodes {
            // `updateNodeIfNeeded`: an annotation that parses to the desired value stays.
            let current = node.value["metadata"]["annotations"][TTL_ANNOTATION].as_str();
            if current.and_then(|v| v.parse::<u32>().ok()) == want.parse().ok() {
                continue;
            }
            let mut updated = node.value.clone();
            let Some(metadata) = updated["metadata"].as_object_mut() else {
                continue;
            };
            let annotations = metadata
                .entry("annotations")
                .or_insert_with(|| serde_json::json!({}));
            if let Some(annotations) = annotations.as_object_mut() {
                annotations.insert(TTL_ANNOTATION.into(), want.clone().into());
            }
            let options = WriteOptions::controller_manager();
            let written = api.update(&registry::NODES, "", node.name(), updated, None, &options);
            pass.check("setting the ttl annotation", written);
        }
        pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ttl_follows_the_cluster_size_with_hysteresis() {
        let mut ttl = TtlController::default();
        assert_eq!(ttl.desired_ttl(3), 0);
        assert_eq!(ttl.desired_ttl(100), 0);
        assert_eq!(ttl.desired_ttl(101), 15);
        // Back below 100 but not below the next step's minimum of 90: still 15.
        assert_eq!(ttl.desired_ttl(95), 15);
        assert_eq!(ttl.desired_ttl(89), 0);
        assert_eq!(ttl.desired_ttl(2500), 300);
        assert_eq!(ttl.desired_ttl(1), 0);
    }
}
