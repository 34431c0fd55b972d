//! Why a pod could not be scheduled, rendered exactly like `FitError.Error()`
//! (`k/k pkg/scheduler/framework/types.go`, 1.30+ format) and `ErrNoNodesAvailable`
//! (`k/k pkg/scheduler/schedule_one.go`).

use std::collections::{BTreeMap, HashMap};

use super::status::Status;

/// `ErrNoNodesAvailable`, returned when the snapshot holds no node at all.
pub const NO_NODES_AVAILABLE: &str = "no nodes available to schedule pods";

/// `v1.PodReasonUnschedulable`, the PodScheduled condition reason for every FitError.
pub const REASON_UNSCHEDULABLE: &str = "Unschedulable";

/// `validation.NoteLengthLimit` for events.k8s.io notes.
const NOTE_LENGTH_LIMIT: usize = 1024;

/// The per-node verdicts of one scheduling (or preemption) attempt (`framework.Diagnosis`).
#[derive(Debug, Clone, Default)]
pub struct Diagnosis {
    /// Number of nodes in the snapshot, the `N` of `0/N`.
    pub num_all_nodes: usize,
    /// Nodes with an explicit status.
    pub statuses: BTreeMap<String, Status>,
    /// The status of every snapshot node missing from `statuses` (`NodeToStatus.AbsentNodesStatus`).
    pub absent: Option<Status>,
    /// Set when a PreFilter plugin rejected the pod; replaces the per-node histogram.
    pub prefilter_msg: Option<String>,
}

impl Diagnosis {
    /// `FitError.Error()` without the PostFilter part: `0/N nodes are available: <histogram>.`
    /// where the histogram is `"<count> <reason>"` entries sorted bytewise (count included).
    pub fn message(&self) -> String {
        let mut msg = format!("0/{} nodes are available:", self.num_all_nodes);
        if let Some(pre) = &self.prefilter_msg {
            msg.push_str(&format!(" {pre}."));
            return msg;
        }
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for status in self.statuses.values() {
            for reason in &status.reasons {
                *counts.entry(reason).or_insert(0) += 1;
            }
        }
        let explicit = self.statuses.len();
        if explicit < self.num_all_nodes {
            if let Some(absent) = &self.absent {
                for reason in &absent.reasons {
                    *counts.entry(reason).or_insert(0) += self.num_all_nodes - explicit;
                }
            }
        }
        let mut entries: Vec<String> = counts
            .into_iter()
            .map(|(reason, n)| format!("{n} {reason}"))
            .collect();
        // sort.Strings: plain byte order of the whole "N reason" text.
        entries.sort();
        if !entries.is_empty() {
            msg.push_str(&format!(" {}.", entries.join(", ")));
        }
        msg
    }

    /// The status a node ended with; absent nodes get the absent status.
    pub fn status_of(&self, node: &str) -> Option<&Status> {
        self.statuses.get(node).or(self.absent.as_ref())
    }
}

/// A pod that preemption evicts to make room (`Victims.Pods`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Victim {
    pub namespace: String,
    pub name: String,
    pub uid: String,
}

/// A successful preemption: the preemptor is nominated to `node_name` once `victims` are deleted.
/// The scheduling loop sets `status.nominatedNodeName`, marks each victim with the
/// `DisruptionTarget` condition and deletes it (`prepareCandidate`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreemptionPlan {
    pub node_name: String,
    pub victims: Vec<Victim>,
}

/// What PostFilter (DefaultPreemption) concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PostFilter {
    /// Preemption cannot help; the text (`preemption: ...`) is appended to the message.
    Failed(String),
    /// Preemption found room; the message carries no PostFilter part.
    Nominated(PreemptionPlan),
}

#[derive(Debug, Clone)]
enum Kind {
    NoNodes,
    Unfit {
        diagnosis: Diagnosis,
        post_filter: PostFilter,
    },
}

/// The scheduling failure of one pod. `message()` is the text the real scheduler writes into the
/// pod's `PodScheduled=False` condition and (cut to 1024 bytes) its `FailedScheduling` event.
#[derive(Debug, Clone)]
pub struct FitError {
    kind: Box<Kind>,
}

impl FitError {
    pub fn no_nodes() -> Self {
        Self {
            kind: Box::new(Kind::NoNodes),
        }
    }

    pub fn unfit(diagnosis: Diagnosis, post_filter: PostFilter) -> Self {
        Self {
            kind: Box::new(Kind::Unfit {
                diagnosis,
                post_filter,
            }),
        }
    }

    /// The full message, e.g. `0/4 nodes are available: 4 node(s) didn't match Pod's node
    /// affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for
    /// scheduling.`, or `no nodes available to schedule pods`.
    pub fn message(&self) -> String {
        match self.kind.as_ref() {
            Kind::NoNodes => NO_NODES_AVAILABLE.to_string(),
            Kind::Unfit {
                diagnosis,
                post_filter,
            } => {
                let mut msg = diagnosis.message();
                if let PostFilter::Failed(post) = post_filter {
                    if !post.is_empty() {
                        msg.push(' ');
                        msg.push_str(post);
                    }
                }
                msg
            }
        }
    }

    /// The PodScheduled condition reason: always `Unschedulable` (both status codes map to it).
    pub fn reason(&self) -> &'static str {
        REASON_UNSCHEDULABLE
    }

    /// When preemption found a node: where to nominate the pod and which pods to evict.
    pub fn preemption(&self) -> Option<&PreemptionPlan> {
        match self.kind.as_ref() {
            Kind::Unfit {
                post_filter: PostFilter::Nominated(plan),
                ..
            } => Some(plan),
            _ => None,
        }
    }
}

impl std::fmt::Display for FitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for FitError {}

/// The `FailedScheduling` event note: the message cut like `truncateMessage` in schedule_one.go,
/// to the first 1020 bytes plus `" ..."` when longer than 1024 bytes. Go slices bytes; here the cut
/// moves back to a character boundary so the note stays valid UTF-8 (messages are ASCII in practice).
pub fn failed_scheduling_note(msg: &str) -> String {
    if msg.len() <= NOTE_LENGTH_LIMIT {
        return msg.to_string();
    }
    const SUFFIX: &str = " ...";
    let mut cut = NOTE_LENGTH_LIMIT - SUFFIX.len();
    while !msg.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{}", &msg[..cut], SUFFIX)
}

#[cfg(test)]
mod tests {
    use super::super::status::Code;
    use super::*;

    fn diag(n: usize, nodes: &[(&str, Status)]) -> Diagnosis {
        Diagnosis {
            num_all_nodes: n,
            statuses: nodes
                .iter()
                .map(|(k, s)| (k.to_string(), s.clone()))
                .collect(),
            absent: None,
            prefilter_msg: None,
        }
    }

    #[test]
    fn histogram_sorts_whole_entries_bytewise() {
        let mut statuses = Vec::new();
        for i in 0..10 {
            statuses.push((format!("cpu{i}"), Status::unschedulable("Insufficient cpu")));
        }
        statuses.push(("m1".into(), Status::unschedulable("Insufficient memory")));
        statuses.push(("m2".into(), Status::unschedulable("Insufficient memory")));
        let d = Diagnosis {
            num_all_nodes: 12,
            statuses: statuses.into_iter().collect(),
            ..Default::default()
        };
        // "10 ..." sorts before "2 ..." because '1' < '2'.
        assert_eq!(
            d.message(),
            "0/12 nodes are available: 10 Insufficient cpu, 2 Insufficient memory."
        );
    }

    #[test]
    fn upper_case_sorts_before_lower_case() {
        let d = diag(
            6,
            &[
                ("a", Status::unschedulable("Insufficient memory")),
                ("b", Status::unschedulable("Insufficient memory")),
                ("c", Status::unschedulable("Insufficient memory")),
                (
                    "d",
                    Status::unresolvable("node(s) didn't match Pod's node affinity/selector"),
                ),
                (
                    "e",
                    Status::unresolvable("node(s) didn't match Pod's node affinity/selector"),
                ),
                (
                    "f",
                    Status::unresolvable("node(s) didn't match Pod's node affinity/selector"),
                ),
            ],
        );
        assert_eq!(
            d.message(),
            "0/6 nodes are available: 3 Insufficient memory, 3 node(s) didn't match Pod's node affinity/selector."
        );
    }

    #[test]
    fn every_reason_of_a_node_counts() {
        let both = Status {
            code: Code::Unschedulable,
            reasons: vec!["Insufficient cpu".into(), "Insufficient memory".into()],
        };
        let d = diag(2, &[("a", both.clone()), ("b", both)]);
        assert_eq!(
            d.message(),
            "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory."
        );
    }

    #[test]
    fn absent_nodes_add_their_reason_once_each() {
        let mut d = diag(4, &[("w3", Status::unschedulable("Insufficient memory"))]);
        d.absent = Some(Status::unresolvable(
            "node(s) didn't satisfy plugin(s) [NodeAffinity]",
        ));
        assert_eq!(
            d.message(),
            "0/4 nodes are available: 1 Insufficient memory, 3 node(s) didn't satisfy plugin(s) [NodeAffinity]."
        );
    }

    #[test]
    fn prefilter_message_replaces_histogram() {
        let mut d = diag(3, &[]);
        d.prefilter_msg = Some("pod has unbound immediate PersistentVolumeClaims".into());
        let post = PostFilter::Failed(
            "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
                .into(),
        );
        assert_eq!(
            FitError::unfit(d, post).message(),
            "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
        );
    }

    #[test]
    fn no_nodes_message_and_reason() {
        let e = FitError::no_nodes();
        assert_eq!(e.message(), "no nodes available to schedule pods");
        assert_eq!(e.reason(), "Unschedulable");
    }

    #[test]
    fn note_is_cut_to_1020_bytes_plus_ellipsis() {
        let short = "x".repeat(1024);
        assert_eq!(failed_scheduling_note(&short), short);
        let long = "y".repeat(1025);
        let note = failed_scheduling_note(&long);
        assert_eq!(note.len(), 1024);
        assert_eq!(note, format!("{} ...", "y".repeat(1020)));
    }
}
