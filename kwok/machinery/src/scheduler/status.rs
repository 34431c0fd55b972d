//! A plugin's verdict on one node (`framework.Status`, `k/k pkg/scheduler/framework/interface.go`).

/// The status codes that matter once a node is rejected. The code decides whether preemption may help
/// on that node: it only tries nodes whose filter status is [`Code::Unschedulable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// Rejected, but removing pods from the node might make room.
    Unschedulable,
    /// Rejected for a reason no preemption can change (labels, taints, node name ...).
    UnschedulableAndUnresolvable,
    /// An internal failure (only produced by preemption bookkeeping).
    Error,
}

/// A rejection: its code and one or more reason strings. Each reason is counted separately in the
/// FitError histogram (`status.Reasons()`), so NodeResourcesFit can contribute several per node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub code: Code,
    pub reasons: Vec<String>,
}

impl Status {
    pub fn new(code: Code, reason: impl Into<String>) -> Self {
        Self {
            code,
            reasons: vec![reason.into()],
        }
    }

    pub fn unschedulable(reason: impl Into<String>) -> Self {
        Self::new(Code::Unschedulable, reason)
    }

    pub fn unresolvable(reason: impl Into<String>) -> Self {
        Self::new(Code::UnschedulableAndUnresolvable, reason)
    }

    /// `Status.Message()`: the reasons joined with ", ".
    pub fn message(&self) -> String {
        self.reasons.join(", ")
    }
}
