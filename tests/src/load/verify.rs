//! Checking one watch's event stream, event by event, against the ground-truth log: nothing
//! missed, nothing extra, nothing out of order, each object delivered at the version the store
//! committed.
//!
//! A watch that resumes from a known resourceVersion (after a list, or after its own last event)
//! has exactly one correct continuation. A watch opened without one (`resourceVersion=0`) first
//! gets the server's current state as ADDED events, taken at some resourceVersion L the client
//! does not learn; L lies between the store's revision just before the request and just after
//! the response headers arrived. Every L in that window is tried: the stream must be, for at
//! least one of them, that state (in any order: the watch cache lists its store) followed by
//! every later change. Candidates that survive are indistinguishable to the client, so any of
//! them may be kept.

use std::collections::BTreeMap;

use super::problem::{Problem, ProblemKind};
use super::truth::{show_key, Change, Key, Scope, ScopeState, TruthLog};

/// One event as the client received it.
#[derive(Debug, Clone)]
pub struct Received {
    pub change: Change,
    pub key: Key,
    pub rv: u64,
    pub uid: String,
    pub labels: BTreeMap<String, String>,
}

impl std::fmt::Display for Received {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} at resourceVersion {}",
            self.change,
            show_key(&self.key),
            self.rv
        )
    }
}

/// Does the delivered object carry what the store committed at that version?
fn same_content(log: &TruthLog, ev: &Received) -> Result<(), Problem> {
    let Some(object) = log.get(ev.rv).and_then(|w| w.object.as_ref()) else {
        return Err(Problem::new(
            ProblemKind::Spurious,
            format!("{ev}: the store committed no object of this kind at that version"),
        ));
    };
    if object.key() != ev.key || object.uid != ev.uid || object.labels != ev.labels {
        return Err(Problem::new(
            ProblemKind::WrongContent,
            format!(
                "{ev}: delivered object (uid {}, labels {:?}) differs from the stored one ({}, uid {}, labels {:?})",
                ev.uid,
                ev.labels,
                show_key(&object.key()),
                object.uid,
                object.labels
            ),
        ));
    }
    Ok(())
}

/// Follows a watch whose state at `cursor - 1` is known exactly.
#[derive(Debug, Clone)]
pub struct Verifier {
    scope: Scope,
    /// What the watch must hold: the scope's objects at `cursor - 1`.
    state: ScopeState,
    /// The next resourceVersion to account for.
    cursor: u64,
}

impl Verifier {
    /// A watch that starts from `state`, known to be the scope's objects at `at`.
    pub fn new(scope: Scope, state: ScopeState, at: u64) -> Self {
        Self {
            scope,
            state,
            cursor: at + 1,
        }
    }

    /// The resourceVersion to resume from: everything up to it has been delivered.
    pub fn resume_rv(&self) -> u64 {
        self.cursor - 1
    }

    /// Account for one received event; the log must already hold `ev.rv`. Returns what was wrong
    /// (events skipped before it, or the event itself); the state follows the store regardless,
    /// so one lost event is reported once.
    pub fn feed(&mut self, log: &TruthLog, ev: &Received) -> Vec<Problem> {
        if ev.rv < self.cursor {
            return vec![Problem::new(
                ProblemKind::OutOfOrder,
                format!(
                    "{ev} after resourceVersion {} was delivered",
                    self.cursor - 1
                ),
            )];
        }
        let mut problems = Vec::new();
        for rv in self.cursor..ev.rv {
            let Some(w) = log.get(rv) else {
                problems.push(Problem::new(
                    ProblemKind::Lost,
                    format!("resourceVersion {rv} is missing from the ground-truth log"),
                ));
                continue;
            };
            if let Some(missed) = self.scope.translate(&mut self.state, rv, w) {
                problems.push(Problem::new(
                    ProblemKind::Lost,
                    format!("{missed} never delivered (next delivered: {ev})"),
                ));
            }
        }
        self.cursor = ev.rv + 1;
        match log
            .get(ev.rv)
            .map(|w| self.scope.translate(&mut self.state, ev.rv, w))
        {
            None => problems.push(Problem::new(
                ProblemKind::Spurious,
                format!("{ev}: not in the ground-truth log"),
            )),
            Some(None) => problems.push(Problem::new(
                ProblemKind::Spurious,
                format!("{ev}: the store's write at that version does not concern this watch"),
            )),
            Some(Some(want)) if want.key != ev.key => problems.push(Problem::new(
                ProblemKind::WrongContent,
                format!("{ev}: the store's write at that version is {want}"),
            )),
            Some(Some(want)) if want.change != ev.change => problems.push(Problem::new(
                ProblemKind::WrongType,
                format!("{ev}: should be {want}"),
            )),
            Some(Some(_)) => {
                if let Err(p) = same_content(log, ev) {
                    problems.push(p);
                }
            }
        }
        problems
    }

    /// The first event up to `upto` the watch has yet to deliver, if any.
    pub fn outstanding(&self, log: &TruthLog, upto: u64) -> Option<String> {
        let mut state = self.state.clone();
        for rv in self.cursor..=upto {
            let w = log.get(rv)?;
            if let Some(e) = self.scope.translate(&mut state, rv, w) {
                return Some(e.to_string());
            }
        }
        None
    }
}

/// One guess at the version the initial state of a `resourceVersion=0` watch was taken at.
#[derive(Debug, Clone)]
struct Candidate {
    at: u64,
    /// Initial ADDED events still to come: key -> object version.
    snapshot: ScopeState,
    then: Verifier,
    matched: usize,
}

/// The start of a `resourceVersion=0` watch, until its initial state is accounted for.
#[derive(Debug, Clone)]
pub struct Opening {
    /// The store's revision when the response headers arrived: later events are no candidate's
    /// initial state.
    after: u64,
    alive: Vec<Candidate>,
    /// Why the most successful candidate failed, once all have (with its progress).
    last_failure: Option<(usize, Problem, Option<Verifier>)>,
}

impl Opening {
    /// `before`/`after`: the store's revision before the request and after its response headers.
    pub fn new(scope: &Scope, log: &TruthLog, before: u64, after: u64) -> Self {
        let mut state = scope.state_at(log, before);
        let mut alive = Vec::new();
        for at in before..=after {
            if at > before {
                if let Some(w) = log.get(at) {
                    scope.translate(&mut state, at, w);
                }
            }
            alive.push(Candidate {
                at,
                snapshot: state.clone(),
                then: Verifier::new(scope.clone(), state.clone(), at),
                matched: 0,
            });
        }
        Self {
            after,
            alive,
            last_failure: None,
        }
    }

    fn kill(&mut self, matched: usize, why: Problem, then: Option<Verifier>) {
        if self
            .last_failure
            .as_ref()
            .is_none_or(|(m, _, _)| matched >= *m)
        {
            self.last_failure = Some((matched, why, then));
        }
    }

    /// Account for one received event; `Err` once no candidate explains the stream, with the
    /// failure of the candidate that explained the most, and its verifier (already past the
    /// failure) when it had delivered its initial state.
    pub fn feed(
        &mut self,
        log: &TruthLog,
        ev: &Received,
    ) -> Result<(), (Problem, Option<Verifier>)> {
        let mut survivors = Vec::with_capacity(self.alive.len());
        for mut c in std::mem::take(&mut self.alive) {
            let start = |detail: String| Problem::new(ProblemKind::NoConsistentStart, detail);
            let mut past_start = false;
            let verdict = if !c.snapshot.is_empty() {
                match c.snapshot.remove(&ev.key) {
                    Some(rv) if ev.change == Change::Added && rv == ev.rv => same_content(log, ev),
                    Some(rv) => Err(start(format!(
                        "{ev}: the initial state at {} has {} at resourceVersion {rv}, as ADDED",
                        c.at,
                        show_key(&ev.key)
                    ))),
                    None => Err(start(format!(
                        "{ev}: not in the initial state at {} ({} more objects were due)",
                        c.at,
                        c.snapshot.len() + 1
                    ))),
                }
            } else {
                past_start = true;
                match c.then.feed(log, ev).into_iter().next() {
                    None => Ok(()),
                    Some(p) => Err(Problem::new(
                        p.kind,
                        format!(
                            "after the initial state at resourceVersion {}: {}",
                            c.at, p.detail
                        ),
                    )),
                }
            };
            match verdict {
                Ok(()) => {
                    c.matched += 1;
                    survivors.push(c);
                }
                Err(why) => {
                    let then = past_start.then(|| c.then.clone());
                    // A candidate that got past its initial state explained more than one that
                    // did not, at equal counts.
                    self.kill(2 * c.matched + usize::from(past_start), why, then)
                }
            }
        }
        self.alive = survivors;
        if self.alive.is_empty() {
            return Err(self.last_failure.take().map_or_else(
                || {
                    (
                        Problem::new(ProblemKind::NoConsistentStart, "no candidate"),
                        None,
                    )
                },
                |(_, p, then)| (p, then),
            ));
        }
        Ok(())
    }

    /// Past the window, every survivor has delivered its initial state and they all agree.
    pub fn window_passed(&self, rv: u64) -> bool {
        rv > self.after
    }

    /// The verifier to continue with, once some candidate's initial state is fully delivered.
    /// The survivors hold the same objects as the client, so the most advanced one is kept.
    pub fn settled(&self) -> Option<Verifier> {
        self.alive
            .iter()
            .filter(|c| c.snapshot.is_empty())
            .max_by_key(|c| c.then.cursor)
            .map(|c| c.then.clone())
    }

    /// What is still owed, for the report when the watch never settles.
    pub fn owed(&self) -> String {
        match self.alive.iter().min_by_key(|c| c.snapshot.len()) {
            Some(c) => format!(
                "{} objects of the initial state at {} never arrived (e.g. {})",
                c.snapshot.len(),
                c.at,
                c.snapshot.keys().next().map(show_key).unwrap_or_default()
            ),
            None => "no candidate left".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::selector::LabelSelector;
    use crate::load::truth::{Kind, ObjectRecord, Write};
    use kwok::store::EventKind;
    use serde_json::json;

    /// A log of ConfigMap writes in `default`: (kind, name, color label) from resourceVersion 2.
    fn log(writes: &[(EventKind, &str, &str)]) -> TruthLog {
        let mut log = TruthLog::default();
        for (i, (kind, name, color)) in writes.iter().enumerate() {
            let rv = i as u64 + 2;
            let object = ObjectRecord::of(&json!({"metadata": {
                "name": name, "namespace": "default", "uid": format!("uid-{name}"),
                "resourceVersion": rv.to_string(), "labels": {"color": color}}}));
            let w = Write {
                kind: *kind,
                resource: Some(Kind::ConfigMaps),
                object: Some(object),
            };
            log.push(rv, w).unwrap();
        }
        log
    }

    fn scope(selector: &str) -> Scope {
        Scope {
            kind: Kind::ConfigMaps,
            namespace: None,
            selector: LabelSelector::parse(selector).unwrap(),
        }
    }

    fn ev(change: Change, name: &str, rv: u64, color: &str) -> Received {
        Received {
            change,
            key: ("default".into(), name.into()),
            rv,
            uid: format!("uid-{name}"),
            labels: [("color".to_string(), color.to_string())].into(),
        }
    }

    fn kinds(p: &[Problem]) -> Vec<ProblemKind> {
        p.iter().map(|p| p.kind).collect()
    }

    use Change::{Added, Deleted, Modified};
    use EventKind as E;

    #[test]
    fn an_exact_stream_passes_and_a_skipped_write_is_a_lost_event() {
        let log = log(&[
            (E::Added, "a", "red"),
            (E::Modified, "a", "red"),
            (E::Modified, "a", "red"),
        ]);
        let s = scope("");
        let mut v = Verifier::new(s.clone(), s.state_at(&log, 2), 2);
        assert!(v.feed(&log, &ev(Modified, "a", 3, "red")).is_empty());
        assert!(v.feed(&log, &ev(Modified, "a", 4, "red")).is_empty());
        assert_eq!(v.outstanding(&log, 4), None);

        let mut v = Verifier::new(s.clone(), s.state_at(&log, 2), 2);
        assert_eq!(
            v.outstanding(&log, 4).as_deref(),
            Some("MODIFIED default/a at resourceVersion 3")
        );
        assert_eq!(
            kinds(&v.feed(&log, &ev(Modified, "a", 4, "red"))),
            [ProblemKind::Lost]
        );
        assert_eq!(
            kinds(&v.feed(&log, &ev(Modified, "a", 3, "red"))),
            [ProblemKind::OutOfOrder]
        );
    }

    #[test]
    fn a_selector_turns_entering_and_leaving_into_added_and_deleted() {
        let log = log(&[
            (E::Added, "a", "blue"),
            (E::Modified, "a", "red"),
            (E::Modified, "a", "blue"),
            (E::Modified, "a", "green"),
        ]);
        let s = scope("color=red");
        let mut v = Verifier::new(s.clone(), s.state_at(&log, 2), 2);
        assert!(v.feed(&log, &ev(Added, "a", 3, "red")).is_empty());
        assert!(v.feed(&log, &ev(Deleted, "a", 4, "blue")).is_empty());
        assert_eq!(
            v.outstanding(&log, 5),
            None,
            "blue to green is not this watch's business"
        );

        let mut v = Verifier::new(s.clone(), s.state_at(&log, 2), 2);
        assert_eq!(
            kinds(&v.feed(&log, &ev(Modified, "a", 3, "red"))),
            [ProblemKind::WrongType]
        );
        let mut v = Verifier::new(s.clone(), s.state_at(&log, 4), 4);
        assert_eq!(
            kinds(&v.feed(&log, &ev(Deleted, "a", 5, "green"))),
            [ProblemKind::Spurious]
        );
        let mut v = Verifier::new(s.clone(), s.state_at(&log, 2), 2);
        assert_eq!(
            kinds(&v.feed(&log, &ev(Added, "a", 3, "blue"))),
            [ProblemKind::WrongContent]
        );
    }

    #[test]
    fn an_initial_state_may_come_in_any_order_at_any_version_of_its_window() {
        let log = log(&[
            (E::Added, "a", "red"),
            (E::Added, "b", "red"),
            (E::Modified, "a", "red"),
        ]);
        let s = scope("");
        // The server listed at 3 (a@2, b@3) and sends b first.
        let mut o = Opening::new(&s, &log, 2, 3);
        for e in [
            ev(Added, "b", 3, "red"),
            ev(Added, "a", 2, "red"),
            ev(Modified, "a", 4, "red"),
        ] {
            o.feed(&log, &e).unwrap();
        }
        assert!(o.window_passed(4));
        assert_eq!(o.settled().map(|v| v.resume_rv()), Some(4));
    }

    #[test]
    fn a_write_between_the_initial_state_and_the_live_events_is_lost() {
        let log = log(&[
            (E::Added, "a", "red"),
            (E::Added, "b", "red"),
            (E::Modified, "a", "red"),
        ]);
        let s = scope("");
        // Listed at 2 (only a), then b's creation at 3 was never sent.
        let mut o = Opening::new(&s, &log, 2, 3);
        o.feed(&log, &ev(Added, "a", 2, "red")).unwrap();
        let (p, then) = o.feed(&log, &ev(Modified, "a", 4, "red")).unwrap_err();
        assert_eq!(p.kind, ProblemKind::Lost);
        assert!(
            p.detail.contains("ADDED default/b at resourceVersion 3"),
            "{}",
            p.detail
        );
        assert_eq!(then.map(|v| v.resume_rv()), Some(4));
    }
}
