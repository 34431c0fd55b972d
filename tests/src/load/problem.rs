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

/// Problems counted by kind (a [`ProblemKind`], or any other grouping key), with the first few
/// examples of each kept verbatim.
#[derive(Debug)]
pub struct Tally<K: Ord = ProblemKind> {
    kinds: BTreeMap<K, (usize, Vec<String>)>,
}

impl<K: Ord> Default for Tally<K> {
    fn default() -> Self {
        Self {
            kinds: BTreeMap::new(),
        }
    }
}

impl<K: Ord> Tally<K> {
    pub const EXAMPLES: usize = 3;

    pub fn note(&mut self, key: K, detail: impl Into<String>) {
        let (n, examples) = self.kinds.entry(key).or_default();
        *n += 1;
        if examples.len() < Self::EXAMPLES {
            examples.push(detail.into());
        }
    }

    /// Add another tally's counts. With a context (which watch), only its first example of each
    /// kind joins, and only if none from the same context is there yet, so the examples come
    /// from different watches.
    pub fn merge(&mut self, other: Tally<K>, context: &str) {
        for (kind, (n, examples)) in other.kinds {
            let (total, mine) = self.kinds.entry(kind).or_default();
            *total += n;
            if context.is_empty() {
                let room = Self::EXAMPLES.saturating_sub(mine.len());
                mine.extend(examples.into_iter().take(room));
                continue;
            }
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

    /// `(kind, count, examples)`, in key order.
    pub fn entries(&self) -> impl Iterator<Item = (&K, usize, &[String])> {
        self.kinds.iter().map(|(k, (n, e))| (k, *n, e.as_slice()))
    }

    /// Report lines: `<what>: <kind>: <n> in all, e.g.` and the examples indented.
    pub fn lines(&self, what: &str) -> Vec<String>
    where
        K: std::fmt::Display,
    {
        let mut out = Vec::new();
        for (kind, n, examples) in self.entries() {
            out.push(format!("{what}: {kind}: {n} in all, e.g."));
            out.extend(examples.iter().map(|e| format!("    {e}")));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_problem_and_keeps_a_few_examples() {
        let mut a = Tally::default();
        for i in 0..5 {
            a.note(ProblemKind::Lost, format!("#{i}"));
        }
        let mut b = Tally::default();
        b.note(ProblemKind::Lost, "#9");
        let mut c = Tally::default();
        c.note(ProblemKind::Lost, "#7");
        let mut all = Tally::default();
        all.merge(a, "w1");
        all.merge(b, "w1");
        all.merge(c, "w3");
        let mut d = Tally::default();
        d.note(ProblemKind::Spurious, "x");
        all.merge(d, "w2");
        let e: Vec<_> = all
            .entries()
            .map(|(k, n, ex)| (*k, n, ex.to_vec()))
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
