//! Ground truth for the watches: every write the embedded store commits, recorded in-process in
//! resourceVersion order, and what a watch of a given scope must report for it.
//!
//! The store gives every write the next global resourceVersion (as etcd's revision), so the
//! recorded sequence must be gap-free; the tap checks that as it records. A watch's expected
//! stream is then computed from this log with the test's own selector matching and the watch
//! cache's rules for filtered watches (staging/src/k8s.io/apiserver/pkg/storage/cacher/
//! cache_watcher.go, `convertToWatchEvent`): an object that starts matching is ADDED, one that
//! stops matching is DELETED, a change while matching is MODIFIED, anything else is not sent.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use kwok::resource::ResourceDef;
use kwok::store::{EventKind, Store};
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;

use super::selector::LabelSelector;

/// The resources the load run watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Nodes,
    ConfigMaps,
    Pods,
}

impl Kind {
    fn of(res: &ResourceDef) -> Option<Self> {
        match (res.group, res.plural) {
            ("", "nodes") => Some(Self::Nodes),
            ("", "configmaps") => Some(Self::ConfigMaps),
            ("", "pods") => Some(Self::Pods),
            _ => None,
        }
    }

    pub fn plural(self) -> &'static str {
        match self {
            Self::Nodes => "nodes",
            Self::ConfigMaps => "configmaps",
            Self::Pods => "pods",
        }
    }

    /// The `kube` description of the resource, for untyped (`DynamicObject`) clients.
    pub fn api_resource(self) -> kube::core::ApiResource {
        use k8s_openapi::api::core::v1::{ConfigMap, Node, Pod};
        match self {
            Self::Nodes => kube::core::ApiResource::erase::<Node>(&()),
            Self::ConfigMaps => kube::core::ApiResource::erase::<ConfigMap>(&()),
            Self::Pods => kube::core::ApiResource::erase::<Pod>(&()),
        }
    }
}

/// `(namespace, name)`; the namespace is empty for cluster-scoped objects.
pub type Key = (String, String);

/// The three kinds of watch event a client can see for an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added,
    Modified,
    Deleted,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Added => "ADDED",
            Self::Modified => "MODIFIED",
            Self::Deleted => "DELETED",
        })
    }
}

/// What the checks need of a stored object. Kept instead of the object itself: the log lives
/// as long as the run, and holding every version would make the process's memory grow with the
/// write count whatever the server does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRecord {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub labels: BTreeMap<String, String>,
}

impl ObjectRecord {
    pub fn of(value: &Value) -> Self {
        let meta = &value["metadata"];
        let text = |k: &str| meta[k].as_str().unwrap_or("").to_string();
        Self {
            namespace: text("namespace"),
            name: text("name"),
            uid: text("uid"),
            labels: meta["labels"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    pub fn key(&self) -> Key {
        (self.namespace.clone(), self.name.clone())
    }
}

/// One committed write. The object is recorded only for the watched kinds.
#[derive(Debug, Clone)]
pub struct Write {
    pub kind: EventKind,
    pub resource: Option<Kind>,
    pub object: Option<ObjectRecord>,
}

/// Every write since the cluster started, indexed by resourceVersion.
#[derive(Debug, Default)]
pub struct TruthLog {
    /// The resourceVersion of `writes[0]`.
    first_rv: u64,
    writes: Vec<Write>,
}

impl TruthLog {
    /// The last recorded resourceVersion (the fresh store's 1 when nothing is recorded yet).
    pub fn head(&self) -> u64 {
        if self.writes.is_empty() {
            self.first_rv.saturating_sub(1).max(1)
        } else {
            self.first_rv + self.writes.len() as u64 - 1
        }
    }

    pub fn get(&self, rv: u64) -> Option<&Write> {
        let i = rv.checked_sub(self.first_rv)?;
        self.writes.get(usize::try_from(i).ok()?)
    }

    /// The first recorded resourceVersion; the store was empty before it.
    pub fn first(&self) -> u64 {
        self.first_rv
    }

    pub fn len(&self) -> usize {
        self.writes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    pub(super) fn push(&mut self, rv: u64, write: Write) -> Result<(), String> {
        if self.writes.is_empty() {
            self.first_rv = rv;
        } else if rv != self.head() + 1 {
            return Err(format!(
                "the store's write sequence has a gap or repeat: resourceVersion {rv} followed {}",
                self.head()
            ));
        }
        self.writes.push(write);
        Ok(())
    }
}

/// What a watch is subscribed to: one resource, optionally one namespace and a label selector.
#[derive(Debug, Clone)]
pub struct Scope {
    pub kind: Kind,
    pub namespace: Option<String>,
    pub selector: LabelSelector,
}

/// The objects a watch of some scope must hold at one resourceVersion: key -> object version.
pub type ScopeState = HashMap<Key, u64>;

/// An event a watch must deliver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    pub change: Change,
    pub key: Key,
    pub rv: u64,
}

impl std::fmt::Display for Expected {
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

pub fn show_key(key: &Key) -> String {
    if key.0.is_empty() {
        key.1.clone()
    } else {
        format!("{}/{}", key.0, key.1)
    }
}

impl Scope {
    pub fn describe(&self) -> String {
        let mut s = self.kind.plural().to_string();
        if let Some(ns) = &self.namespace {
            s.push_str(&format!(" in {ns}"));
        }
        if !self.selector.is_empty() {
            s.push_str(&format!(" with {}", self.selector.as_str()));
        }
        s
    }

    /// Advance `state` over one write, returning the event this watch must see for it, if any.
    pub fn translate(&self, state: &mut ScopeState, rv: u64, write: &Write) -> Option<Expected> {
        if write.resource != Some(self.kind) {
            return None;
        }
        let object = write.object.as_ref()?;
        if self
            .namespace
            .as_ref()
            .is_some_and(|ns| *ns != object.namespace)
        {
            return None;
        }
        let key = object.key();
        let was = state.contains_key(&key);
        let now = self.selector.matches(&object.labels);
        let change = match (write.kind, was, now) {
            (EventKind::Deleted, true, _) | (_, true, false) => {
                state.remove(&key);
                Change::Deleted
            }
            (EventKind::Deleted, false, _) | (_, false, false) => return None,
            (_, false, true) => {
                state.insert(key.clone(), rv);
                Change::Added
            }
            (_, true, true) => {
                state.insert(key.clone(), rv);
                Change::Modified
            }
        };
        Some(Expected { change, key, rv })
    }

    /// The scope's objects at resourceVersion `at`, replayed from the empty store.
    pub fn state_at(&self, log: &TruthLog, at: u64) -> ScopeState {
        let mut state = ScopeState::new();
        for rv in log.first()..=at {
            if let Some(w) = log.get(rv) {
                self.translate(&mut state, rv, w);
            }
        }
        state
    }
}

/// Records the store's writes from the cluster's first one on.
pub struct Tap {
    log: Arc<RwLock<TruthLog>>,
    head: tokio::sync::watch::Receiver<u64>,
    problems: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

/// A cheap handle on the tap for the watch tasks.
#[derive(Clone)]
pub struct Truth {
    log: Arc<RwLock<TruthLog>>,
    head: tokio::sync::watch::Receiver<u64>,
}

impl Tap {
    /// Start recording. Must run before anything but cluster bootstrap has written, while the
    /// store's history still holds every write.
    pub fn start(store: &Store) -> anyhow::Result<Self> {
        // History and live receiver are taken under one lock: nothing falls between them.
        let (missed, mut rx) = store.watch_from(1);
        let missed = missed.ok_or_else(|| {
            anyhow::anyhow!("the store's history no longer reaches back to its first write")
        })?;
        let log = Arc::new(RwLock::new(TruthLog::default()));
        let problems = Arc::new(Mutex::new(Vec::new()));
        let (head_tx, head) = tokio::sync::watch::channel(1u64);
        let record = {
            let log = log.clone();
            let problems = problems.clone();
            move |ev: kwok::store::Event| {
                let resource = Kind::of(ev.res);
                let write = Write {
                    kind: ev.kind,
                    resource,
                    object: resource.map(|_| ObjectRecord::of(&ev.object.value)),
                };
                let mut log = log.write().unwrap_or_else(|e| e.into_inner());
                if let Err(p) = log.push(ev.rv, write) {
                    problems.lock().unwrap_or_else(|e| e.into_inner()).push(p);
                }
                log.head()
            }
        };
        let mut last = 1;
        for ev in missed {
            last = record(ev);
        }
        head_tx.send_replace(last);
        let task_problems = problems.clone();
        let task = tokio::spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(ev) => {
                        let h = record(ev);
                        head_tx.send_replace(h);
                    }
                    Err(RecvError::Lagged(n)) => {
                        task_problems
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(format!(
                                "the ground-truth tap fell {n} writes behind the store"
                            ));
                        return;
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        });
        Ok(Self {
            log,
            head,
            problems,
            task,
        })
    }

    pub fn truth(&self) -> Truth {
        Truth {
            log: self.log.clone(),
            head: self.head.clone(),
        }
    }

    /// Stop recording; returns what went wrong while recording.
    pub fn stop(self) -> (Vec<String>, usize) {
        self.task.abort();
        let n = self.log.read().unwrap_or_else(|e| e.into_inner()).len();
        let p = self
            .problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        (p, n)
    }
}

impl Truth {
    /// Wait until the log holds resourceVersion `rv` (the store committed it before any watch
    /// could report it, so only the tap's own scheduling delays it).
    pub async fn reach(&self, rv: u64) -> anyhow::Result<()> {
        let mut head = self.head.clone();
        tokio::time::timeout(Duration::from_secs(10), head.wait_for(|h| *h >= rv))
            .await
            .map_err(|_| {
                anyhow::anyhow!(
                    "the store never committed resourceVersion {rv} (tap at {})",
                    *self.head.borrow()
                )
            })?
            .map_err(|_| {
                anyhow::anyhow!("the ground-truth tap stopped before resourceVersion {rv}")
            })?;
        Ok(())
    }

    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, TruthLog> {
        self.log.read().unwrap_or_else(|e| e.into_inner())
    }
}
