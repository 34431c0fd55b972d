//! One watch of the load run: a `kube` client watch that reconnects from its last
//! resourceVersion when the server ends it, with every event checked against the ground truth,
//! and at the end its rebuilt state compared with a fresh list.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;
use futures::StreamExt;
use kube::api::{Api, DynamicObject, ListParams, WatchEvent, WatchParams};
use kwok::store::Store;
use tokio::time::Instant;

use super::problem::{Problem, ProblemKind, Tally};
use super::truth::{show_key, Change, Key, Scope, ScopeState, Truth};
use super::verify::{Opening, Received, Verifier};

/// How long a watch may take to deliver what the store committed before the run ended.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// How a watch starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// `resourceVersion=0`: the current state as ADDED events, then changes.
    Snapshot,
    /// List first, then watch from the list's resourceVersion (the informer pattern).
    AfterList,
}

#[derive(Debug, Clone)]
pub struct WatchSpec {
    pub scope: Scope,
    pub start: Start,
    /// Ask the server to end each watch after this many seconds (`timeoutSeconds`), so the
    /// watch keeps resuming from its last resourceVersion.
    pub reconnect_after: Option<u32>,
    /// Open this long after the load starts (a late joiner), or at once.
    pub delay: Duration,
}

impl WatchSpec {
    pub fn describe(&self) -> String {
        format!(
            "{} ({}{}{})",
            self.scope.describe(),
            match self.start {
                Start::Snapshot => "from resourceVersion 0",
                Start::AfterList => "from a list's resourceVersion",
            },
            self.reconnect_after
                .map(|s| format!(", resumed every {s}s"))
                .unwrap_or_default(),
            if self.delay.is_zero() {
                String::new()
            } else {
                format!(", opened after {:?}", self.delay)
            }
        )
    }
}

/// What one watch saw.
#[derive(Debug, Default)]
pub struct WatchOutcome {
    pub spec: String,
    pub events: u64,
    pub connections: u64,
    /// Lists after 410 Expired.
    pub relists: u64,
    pub requests: u64,
    pub problems: Tally,
}

impl WatchOutcome {
    fn problem(&mut self, p: Problem) {
        self.problems.note(p.kind, p.detail);
    }
}

/// What the task needs from the run.
#[derive(Clone)]
pub struct WatchContext {
    pub client: kube::Client,
    pub truth: Truth,
    pub store: Arc<Store>,
    /// Set to the store's final revision once the load is over: deliver up to it, then stop.
    pub finish: tokio::sync::watch::Receiver<Option<u64>>,
    /// Told once the first watch is established.
    pub opened: tokio::sync::mpsc::UnboundedSender<()>,
}

/// Where the stream's check stands.
enum Check {
    Opening(Box<Opening>),
    Following(Verifier),
    /// The stream could not be explained; later events are counted but not checked.
    Broken,
}

impl Check {
    fn feed(&mut self, truth: &Truth, ev: &Received) -> Vec<Problem> {
        let log = truth.read();
        match self {
            Check::Following(v) => v.feed(&log, ev),
            Check::Opening(o) => match o.feed(&log, ev) {
                Err((p, then)) => {
                    // Past the initial state the closest candidate can go on checking.
                    *self = then.map_or(Check::Broken, Check::Following);
                    vec![p]
                }
                Ok(()) => {
                    if o.window_passed(ev.rv) {
                        if let Some(v) = o.settled() {
                            *self = Check::Following(v);
                        }
                    }
                    Vec::new()
                }
            },
            Check::Broken => Vec::new(),
        }
    }

    /// What the watch still owes up to `upto`, if anything.
    fn owed(&self, truth: &Truth, upto: u64) -> Option<String> {
        let log = truth.read();
        match self {
            Check::Following(v) => v.outstanding(&log, upto),
            Check::Opening(o) => match o.settled() {
                Some(v) => v.outstanding(&log, upto),
                None => Some(o.owed()),
            },
            Check::Broken => None,
        }
    }

    /// Where to resume after the server ended the stream.
    fn resume_rv(&mut self) -> Result<u64, Problem> {
        match self {
            Check::Following(v) => Ok(v.resume_rv()),
            Check::Opening(o) => match o.settled() {
                Some(v) => {
                    let rv = v.resume_rv();
                    *self = Check::Following(v);
                    Ok(rv)
                }
                None => Err(Problem::new(
                    ProblemKind::IncompleteStart,
                    format!(
                        "the watch ended before its initial state was delivered: {}",
                        o.owed()
                    ),
                )),
            },
            Check::Broken => Err(Problem::new(
                ProblemKind::Request,
                "the stream was already inconsistent",
            )),
        }
    }
}

type Events = BoxStream<'static, kube::Result<WatchEvent<DynamicObject>>>;

fn received(change: Change, obj: &DynamicObject) -> Result<Received, Problem> {
    let rv = obj
        .metadata
        .resource_version
        .as_deref()
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or_else(|| {
            Problem::new(
                ProblemKind::WrongContent,
                format!(
                    "{change} event without a numeric resourceVersion: {:?}",
                    obj.metadata.name
                ),
            )
        })?;
    let labels = obj
        .metadata
        .labels
        .clone()
        .unwrap_or_default()
        .into_iter()
        .collect();
    Ok(Received {
        change,
        key: (
            obj.metadata.namespace.clone().unwrap_or_default(),
            obj.metadata.name.clone().unwrap_or_default(),
        ),
        rv,
        uid: obj.metadata.uid.clone().unwrap_or_default(),
        labels,
    })
}

fn key_of(obj: &DynamicObject) -> Key {
    (
        obj.metadata.namespace.clone().unwrap_or_default(),
        obj.metadata.name.clone().unwrap_or_default(),
    )
}

fn object_rv(obj: &DynamicObject) -> u64 {
    obj.metadata
        .resource_version
        .as_deref()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Differences between two key -> version maps, for the report.
fn diff(have: &ScopeState, want: &ScopeState) -> Option<String> {
    let mut out = Vec::new();
    for (k, rv) in want {
        match have.get(k) {
            None => out.push(format!("missing {} (at {rv})", show_key(k))),
            Some(h) if h != rv => out.push(format!("{} at {h} instead of {rv}", show_key(k))),
            Some(_) => {}
        }
    }
    for k in have.keys().filter(|k| !want.contains_key(*k)) {
        out.push(format!("extra {}", show_key(k)));
    }
    out.sort();
    if out.is_empty() {
        return None;
    }
    let n = out.len();
    out.truncate(5);
    Some(format!("{n} difference(s): {}", out.join(", ")))
}

struct Watch {
    spec: WatchSpec,
    ctx: WatchContext,
    api: Api<DynamicObject>,
    out: WatchOutcome,
    check: Check,
    /// The objects as the client rebuilt them from its events.
    held: ScopeState,
    /// The resourceVersion the current stream was opened from.
    resumed_from: u64,
}

/// What to do after one item of the stream.
enum Next {
    Continue,
    /// The server ended the stream (or it broke): resume from the last delivered version.
    Reopen,
    /// 410 Expired: relist.
    Expired,
}

impl Watch {
    fn params(&self) -> WatchParams {
        let mut wp = WatchParams::default();
        if !self.spec.scope.selector.is_empty() {
            wp = wp.labels(self.spec.scope.selector.as_str());
        }
        if let Some(t) = self.spec.reconnect_after {
            wp = wp.timeout(t);
        }
        wp
    }

    fn list_params(&self) -> ListParams {
        let mut lp = ListParams::default();
        if !self.spec.scope.selector.is_empty() {
            lp = lp.labels(self.spec.scope.selector.as_str());
        }
        lp
    }

    /// A list, checked against the store's state at the list's resourceVersion.
    async fn list(&mut self) -> Result<(ScopeState, u64), Problem> {
        self.out.requests += 1;
        let list = self
            .api
            .list(&self.list_params())
            .await
            .map_err(|e| Problem::new(ProblemKind::Request, format!("list failed: {e}")))?;
        let rv = list
            .metadata
            .resource_version
            .as_deref()
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or_else(|| {
                Problem::new(
                    ProblemKind::Request,
                    "list without a numeric resourceVersion",
                )
            })?;
        let state: ScopeState = list
            .items
            .iter()
            .map(|o| (key_of(o), object_rv(o)))
            .collect();
        self.ctx
            .truth
            .reach(rv)
            .await
            .map_err(|e| Problem::new(ProblemKind::ListState, e.to_string()))?;
        let want = self.spec.scope.state_at(&self.ctx.truth.read(), rv);
        if let Some(d) = diff(&state, &want) {
            self.out.problem(Problem::new(
                ProblemKind::ListState,
                format!("list at resourceVersion {rv} differs from the store's state then: {d}"),
            ));
        }
        Ok((state, rv))
    }

    async fn open(&mut self, version: &str) -> Result<Events, Problem> {
        self.out.requests += 1;
        self.out.connections += 1;
        let wp = self.params();
        let stream = self.api.watch(&wp, version).await.map_err(|e| {
            Problem::new(
                ProblemKind::Request,
                format!("watch from {version:?} failed: {e}"),
            )
        })?;
        Ok(stream.boxed())
    }

    async fn first_open(&mut self) -> Result<Events, Problem> {
        match self.spec.start {
            Start::AfterList => {
                let (state, rv) = self.list().await?;
                self.resumed_from = rv;
                self.held = state.clone();
                self.check = Check::Following(Verifier::new(self.spec.scope.clone(), state, rv));
                self.open(&rv.to_string()).await
            }
            Start::Snapshot => {
                let before = self.ctx.store.revision();
                let stream = self.open("0").await?;
                let after = self.ctx.store.revision();
                self.ctx
                    .truth
                    .reach(after)
                    .await
                    .map_err(|e| Problem::new(ProblemKind::Request, e.to_string()))?;
                let opening = Opening::new(&self.spec.scope, &self.ctx.truth.read(), before, after);
                self.check = Check::Opening(Box::new(opening));
                Ok(stream)
            }
        }
    }

    /// Take one item of the stream: check an event, or say how to go on.
    async fn take(&mut self, item: Option<kube::Result<WatchEvent<DynamicObject>>>) -> Next {
        let (change, obj) = match item {
            None => return Next::Reopen,
            Some(Ok(WatchEvent::Added(o))) => (Change::Added, o),
            Some(Ok(WatchEvent::Modified(o))) => (Change::Modified, o),
            Some(Ok(WatchEvent::Deleted(o))) => (Change::Deleted, o),
            Some(Ok(WatchEvent::Bookmark(_))) => return Next::Continue,
            Some(Ok(WatchEvent::Error(s))) if s.code == 410 => return Next::Expired,
            Some(Ok(WatchEvent::Error(s))) => {
                self.out.problem(Problem::new(
                    ProblemKind::Request,
                    format!("ERROR event: {} {} {}", s.code, s.reason, s.message),
                ));
                return Next::Reopen;
            }
            Some(Err(e)) => {
                self.out.problem(Problem::new(
                    ProblemKind::Request,
                    format!("watch stream error: {e}"),
                ));
                return Next::Reopen;
            }
        };
        self.out.events += 1;
        let ev = match received(change, &obj) {
            Ok(ev) => ev,
            Err(p) => {
                self.out.problem(p);
                return Next::Continue;
            }
        };
        match change {
            Change::Deleted => self.held.remove(&ev.key),
            _ => self.held.insert(ev.key.clone(), ev.rv),
        };
        if let Err(e) = self.ctx.truth.reach(ev.rv).await {
            self.out
                .problem(Problem::new(ProblemKind::Spurious, format!("{ev}: {e}")));
            self.check = Check::Broken;
            return Next::Continue;
        }
        for p in self.check.feed(&self.ctx.truth, &ev) {
            self.out.problem(p);
        }
        Next::Continue
    }

    /// Resume where the check stands; `Err(None)` when the stream is past checking.
    async fn reopen(&mut self) -> Result<Events, Option<Problem>> {
        let rv = match self.check.resume_rv() {
            Ok(rv) => rv,
            Err(_) if matches!(self.check, Check::Broken) => return Err(None),
            Err(p) => return Err(Some(p)),
        };
        self.resumed_from = rv;
        self.open(&rv.to_string()).await.map_err(Some)
    }

    /// After 410 Expired, start over from a list, as an informer does. The 410 itself is only
    /// right when the version is older than the store's history (which only moves forward, so
    /// checking after the fact cannot wrong the server).
    async fn relist(&mut self) -> Result<Events, Option<Problem>> {
        let oldest = self.ctx.store.oldest_revision();
        if self.resumed_from >= oldest {
            self.out.problem(Problem::new(
                ProblemKind::Request,
                format!(
                    "410 Expired for resourceVersion {} although the store's history reaches back to {oldest}",
                    self.resumed_from
                ),
            ));
        }
        self.out.relists += 1;
        let (state, rv) = self.list().await.map_err(Some)?;
        self.held = state.clone();
        self.check = Check::Following(Verifier::new(self.spec.scope.clone(), state, rv));
        self.resumed_from = rv;
        self.open(&rv.to_string()).await.map_err(Some)
    }

    /// Read (reconnecting as needed) until everything up to the target revision is delivered:
    /// `upto`, or else the finish revision the run announces. Returns the open stream, if any.
    async fn follow(&mut self, mut stream: Events, upto: Option<u64>) -> Option<Events> {
        let mut target = upto;
        let mut deadline = Instant::now()
            + if upto.is_some() {
                DRAIN_TIMEOUT
            } else {
                Duration::from_secs(3600)
            };
        loop {
            if let Some(t) = target {
                match self.check.owed(&self.ctx.truth, t) {
                    None => return Some(stream),
                    Some(owed) if Instant::now() >= deadline => {
                        self.out.problem(Problem::new(
                            ProblemKind::Lost,
                            format!(
                                "{owed} never arrived within {DRAIN_TIMEOUT:?} of the load's end"
                            ),
                        ));
                        return None;
                    }
                    Some(_) => {}
                }
            }
            let mut finish = self.ctx.finish.clone();
            tokio::select! {
                item = stream.next() => {
                    let reopened = match self.take(item).await {
                        Next::Continue => None,
                        Next::Reopen => Some(self.reopen().await),
                        Next::Expired => Some(self.relist().await),
                    };
                    match reopened {
                        None => {}
                        Some(Ok(s)) => stream = s,
                        Some(Err(p)) => {
                            if let Some(p) = p {
                                self.out.problem(p);
                            }
                            return None;
                        }
                    }
                }
                announced = async { finish.wait_for(Option::is_some).await.ok().and_then(|t| *t) }, if target.is_none() => {
                    target = Some(announced.unwrap_or(0));
                    deadline = Instant::now() + DRAIN_TIMEOUT;
                }
                _ = tokio::time::sleep(Duration::from_millis(100)), if target.is_some() => {}
            }
        }
    }

    /// The state the client rebuilt from its events must equal a list taken after the load.
    async fn compare_with_list(&mut self, stream: Events) {
        if matches!(self.check, Check::Broken) {
            return;
        }
        let (state, rv) = match self.list().await {
            Ok(x) => x,
            Err(p) => return self.out.problem(p),
        };
        // Writes after the finish revision (controllers) must reach the watch first.
        if self.follow(stream, Some(rv)).await.is_none() {
            return;
        }
        if let Some(d) = diff(&self.held, &state) {
            self.out.problem(Problem::new(
                ProblemKind::FinalState,
                format!("rebuilt from the events vs a list at resourceVersion {rv}: {d}"),
            ));
        }
    }
}

/// Run one watch until the load is over and its events are checked.
pub async fn run(spec: WatchSpec, ctx: WatchContext) -> WatchOutcome {
    let ar = spec.scope.kind.api_resource();
    let api = match &spec.scope.namespace {
        Some(ns) => Api::namespaced_with(ctx.client.clone(), ns, &ar),
        None => Api::all_with(ctx.client.clone(), &ar),
    };
    let mut w = Watch {
        out: WatchOutcome {
            spec: spec.describe(),
            ..Default::default()
        },
        spec,
        ctx,
        api,
        check: Check::Broken,
        held: HashMap::new(),
        resumed_from: 0,
    };
    tokio::time::sleep(w.spec.delay).await;
    let stream = match w.first_open().await {
        Ok(s) => s,
        Err(p) => {
            w.out.problem(p);
            let _ = w.ctx.opened.send(());
            return w.out;
        }
    };
    let _ = w.ctx.opened.send(());
    if let Some(stream) = w.follow(stream, None).await {
        w.compare_with_list(stream).await;
    }
    w.out
}
