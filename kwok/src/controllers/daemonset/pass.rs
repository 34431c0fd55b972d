//! One pass's view of the cluster: nodes, pods and revisions indexed once per pass (what the
//! informer caches and the work queue give upstream's controller).

use std::collections::HashMap;
use std::time::Instant;

use chrono::{DateTime, Utc};

use super::manage::controller_uid;
use crate::meta;
use crate::store::Stored;

/// A cheap summary of a set of objects: any add or update raises the highest resourceVersion
/// (they only grow), any removal lowers the count. Equal summaries mean an unchanged set.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct SetVersion {
    pub(super) count: usize,
    pub(super) max_rv: u64,
}

impl SetVersion {
    pub(super) fn add(&mut self, o: &Stored) {
        self.count += 1;
        self.max_rv = self.max_rv.max(o.resource_version());
    }

    pub(super) fn of<'a>(objs: impl IntoIterator<Item = &'a Stored>) -> Self {
        let mut v = Self::default();
        for o in objs {
            v.add(o);
        }
        v
    }
}

/// Objects grouped by a key borrowed from the pass's lists, with their summaries.
pub(super) struct Grouped<'a> {
    pub(super) groups: HashMap<&'a str, (Vec<&'a Stored>, SetVersion)>,
}

impl<'a> Grouped<'a> {
    pub(super) fn new() -> Self {
        Self {
            groups: HashMap::new(),
        }
    }

    pub(super) fn push(&mut self, key: &'a str, o: &'a Stored) {
        let (items, version) = self.groups.entry(key).or_default();
        items.push(o);
        version.add(o);
    }

    pub(super) fn get(&self, key: &str) -> &[&'a Stored] {
        self.groups
            .get(key)
            .map_or(&[], |(items, _)| items.as_slice())
    }

    pub(super) fn version(&self, key: &str) -> SetVersion {
        self.groups.get(key).map(|(_, v)| *v).unwrap_or_default()
    }
}

/// What one pass sees: pods by controller uid, ownerless pods and revisions by namespace.
pub(super) struct Snapshot<'a> {
    pub(super) nodes: &'a [Stored],
    pub(super) node_index: HashMap<&'a str, usize>,
    pub(super) nodes_version: SetVersion,
    pub(super) owned_pods: Grouped<'a>,
    pub(super) orphan_pods: Grouped<'a>,
    pub(super) revisions: Grouped<'a>,
    pub(super) now: DateTime<Utc>,
    pub(super) instant: Instant,
}

impl<'a> Snapshot<'a> {
    pub(super) fn build(nodes: &'a [Stored], pods: &'a [Stored], revisions: &'a [Stored]) -> Self {
        let mut owned_pods = Grouped::new();
        let mut orphan_pods = Grouped::new();
        for p in pods {
            match controller_uid(&p.value) {
                Some(uid) => owned_pods.push(uid, p),
                None => orphan_pods.push(p.namespace(), p),
            }
        }
        let mut by_ns = Grouped::new();
        for cr in revisions {
            by_ns.push(cr.namespace(), cr);
        }
        Self {
            nodes,
            node_index: nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.name(), i))
                .collect(),
            nodes_version: SetVersion::of(nodes),
            owned_pods,
            orphan_pods,
            revisions: by_ns,
            now: Utc::now(),
            instant: Instant::now(),
        }
    }

    /// Everything a sync of `ds` reads. While it is unchanged (and no timer is due), a sync would
    /// decide the same and is skipped.
    pub(super) fn inputs_of(&self, ds: &Stored) -> Inputs {
        Inputs {
            ds_rv: ds.resource_version(),
            nodes: self.nodes_version,
            owned: self.owned_pods.version(meta::uid(&ds.value)),
            orphans: self.orphan_pods.version(ds.namespace()),
            revisions: self.revisions.version(ds.namespace()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Inputs {
    pub(super) ds_rv: u64,
    pub(super) nodes: SetVersion,
    pub(super) owned: SetVersion,
    pub(super) orphans: SetVersion,
    pub(super) revisions: SetVersion,
}

/// The last sync of a DaemonSet: its inputs, when it must run again regardless (timers, error
/// backoff), and how many syncs in a row failed.
pub(super) struct Synced {
    pub(super) inputs: Inputs,
    pub(super) due: Option<Instant>,
    pub(super) failures: u32,
}
