//! What can go wrong with a watch under load, by kind, so that a run's report can say how often
//! each kind happened and show a few examples instead of a wall of one symptom.

use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProblemKind {
    /// A committed change the watch's scope covers was never delivered.
    Lost,
    /// An event at or below a resourceVersion already delivered.
    OutOfOrder,
    /// The right change with the wrong type (e.g. MODIFIED for an object new to the watch).
    WrongType,
    /// An event for a change the watch's scope does not cover.
    Spurious,
    /// The delivered object is not the stored version (uid, labels).
    WrongContent,
    /// A `resourceVersion=0` stream matches no initial state in its window.
    NoConsistentStart,
    /// The server ended the stream before the initial state was delivered.
    IncompleteStart,
    /// The state rebuilt from the events differs from a list taken after the load.
    FinalState,
    /// A list differs from the store's state at the list's resourceVersion.
    ListState,
    /// A failed list or watch request, an ERROR event, a broken stream.
    Request,
}

impl std::fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Lost => "lost event",
            Self::OutOfOrder => "out-of-order or repeated event",
            Self::WrongType => "wrong event type",
            Self::Spurious => "event the watch must not see",
            Self::WrongContent => "delivered object differs from the stored version",
            Self::NoConsistentStart => "resourceVersion=0 stream fits no initial state",
            Self::IncompleteStart => "stream ended inside its initial state",
            Self::FinalState => "rebuilt state differs from a final list",
            Self::ListState => "list differs from the store at its resourceVersion",
            Self::Request => "request or stream error",
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    pub detail: String,
}

impl Problem {
    pub fn new(kind: ProblemKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

/// Problems counted by kind, with the first few examples of each kept verbatim.
#[derive(Debug, Default)]
pub struct Tally {
    kinds: BTreeMap<ProblemKind, (usize, Vec<String>)>,
}

impl Tally {
    pub const EXAMPLES: usize = 3;

    pub fn add(&mut self, p: Problem, context: &str) {
        let (n, examples) = self.kinds.entry(p.kind).or_default();
        *n += 1;
        if examples.len() < Self::EXAMPLES {
            examples.push(if context.is_empty() {
                p.detail
            } else {
                format!("{context}: {}", p.detail)
            });
        }
    }

    /// Add another tally's counts; its first example of each kind joins this one's examples
    /// unless one from the same context is already there, so the examples come from different
    /// watches.
    pub fn merge(&mut self, other: Tally, context: &str) {
        for (kind, (n, examples)) in other.kinds {
            let (total, mine) = self.kinds.entry(kind).or_default();
            *total += n;
            let prefix = format!("{context}: ");
            let fresh = !mine.iter().any(|e| e.starts_with(&prefix));
            if let Some(e) = examples
                .into_iter()
                .next()
                .filter(|_| fresh && mine.len() < Self::EXAMPLES)
            {
                mine.push(format!("{prefix}{e}"));
            }
        }
    }

    pub fn total(&self) -> usize {
        self.kinds.values().map(|(n, _)| n).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// `(kind, count, examples)`, in kind order.
    pub fn entries(&self) -> impl Iterator<Item = (ProblemKind, usize, &[String])> {
        self.kinds.iter().map(|(k, (n, e))| (*k, *n, e.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_problem_and_keeps_a_few_examples() {
        let mut a = Tally::default();
        for i in 0..5 {
            a.add(Problem::new(ProblemKind::Lost, format!("#{i}")), "");
        }
        let mut b = Tally::default();
        b.add(Problem::new(ProblemKind::Lost, "#9"), "");
        let mut c = Tally::default();
        c.add(Problem::new(ProblemKind::Lost, "#7"), "");
        let mut all = Tally::default();
        all.merge(a, "w1");
        all.merge(b, "w1");
        all.merge(c, "w3");
        all.add(Problem::new(ProblemKind::Spurious, "x"), "w2");
        let e: Vec<_> = all
            .entries()
            .map(|(k, n, ex)| (k, n, ex.to_vec()))
            .collect();
        // One example per watch, so the examples show different watches.
        assert_eq!(
            e[0],
            (
                ProblemKind::Lost,
                7,
                vec!["w1: #0".to_string(), "w3: #7".to_string()]
            )
        );
        assert_eq!(e[1], (ProblemKind::Spurious, 1, vec!["w2: x".into()]));
        assert_eq!(all.total(), 8);
    }
}
