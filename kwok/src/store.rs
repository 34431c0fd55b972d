//! Versioned object storage with a watch log, standing in for etcd.
//!
//! Every write takes the next global resourceVersion, as etcd's revision does, and is appended to a
//! bounded history so that a watch can resume from any version still in the window (older ones get
//! 410 Gone, as after an etcd compaction). Objects are immutable `Arc`s with their JSON encoding
//! cached, so a 10,000-pod list is mostly a memcpy.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, OnceLock, RwLock};

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::broadcast;

use crate::convert;
use crate::resource::{ResourceDef, StoredObjects};

/// How many writes a watch may lag behind and still resume. Each entry keeps an object version
/// and its predecessor alive (about 16 KiB a write under the load test), so the window is bounded
/// like the apiserver's watch cache rather than etcd's history: a client further behind gets 410
/// Gone and relists, as client-go's reflector does.
pub const HISTORY: usize = 2_000;

/// One stored object: its JSON value plus a lazily cached encoding.
#[derive(Debug)]
pub struct Object {
    pub value: Value,
    encoded: OnceLock<Bytes>,
}

impl Object {
    pub fn new(value: Value) -> Arc<Self> {
        Arc::new(Self {
            value,
            encoded: OnceLock::new(),
        })
    }

    /// The JSON encoding, computed once.
    pub fn json(&self) -> Bytes {
        self.encoded
            .get_or_init(|| Bytes::from(serde_json::to_vec(&self.value).unwrap_or_default()))
            .clone()
    }

    pub fn name(&self) -> &str {
        self.value["metadata"]["name"].as_str().unwrap_or("")
    }

    pub fn namespace(&self) -> &str {
        self.value["metadata"]["namespace"].as_str().unwrap_or("")
    }

    pub fn resource_version(&self) -> u64 {
        self.value["metadata"]["resourceVersion"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }
}

pub type Stored = Arc<Object>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Added,
    Modified,
    Deleted,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Added => "ADDED",
            Self::Modified => "MODIFIED",
            Self::Deleted => "DELETED",
        }
    }
}

/// A change to one object, as a watch reports it.
#[derive(Debug, Clone)]
pub struct Event {
    pub kind: EventKind,
    pub res: &'static ResourceDef,
    pub object: Stored,
    /// The object before this change (None for ADDED): filtered watches decide from it whether
    /// the watcher saw the object before, as the apiserver's watch cache does.
    pub prev: Option<Stored>,
    pub rv: u64,
}

impl Event {
    /// This change as a watcher of `res` sees it: itself, converted when `res` is a view of the
    /// changed resource's storage, or nothing when it concerns another resource.
    pub fn seen_as(&self, res: &'static ResourceDef) -> Option<Event> {
        if self.res == res {
            return Some(self.clone());
        }
        if convert::storage(res) != self.res {
            return None;
        }
        Some(Event {
            kind: self.kind,
            res,
            object: from_storage(res, &self.object),
            prev: self.prev.as_ref().map(|p| from_storage(res, p)),
            rv: self.rv,
        })
    }
}

/// A stored object as `res` shows it ([`convert::view_of`]): the stored object itself unless
/// `res` converts it.
fn from_storage(res: &'static ResourceDef, stored: &Stored) -> Stored {
    convert::view_of(res, &stored.value).map_or_else(|| stored.clone(), Object::new)
}

type Table = BTreeMap<(String, String), Stored>;
type TableKey = (&'static str, &'static str);

fn table_key(res: &ResourceDef) -> TableKey {
    (res.group, res.plural)
}

#[derive(Default, Clone)]
struct Tables {
    by_resource: HashMap<TableKey, (&'static ResourceDef, Table)>,
}

struct Inner {
    rv: u64,
    tables: Tables,
    history: VecDeque<Event>,
}

/// One difference found while restoring a snapshot.
type Change = (
    EventKind,
    &'static ResourceDef,
    Option<Value>,
    (String, String),
);

/// An object a restore put back: changed back, re-created or deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewound {
    pub resource: &'static ResourceDef,
    pub namespace: String,
    pub name: String,
}

/// Whole-cluster state at one moment, for the harness to rewind to.
#[derive(Clone)]
pub struct Snapshot {
    tables: Tables,
}

impl Snapshot {
    /// Every object, by resource (resources in no particular order, each one's objects in key
    /// order: namespace, then name).
    pub fn objects(&self) -> impl Iterator<Item = (&'static ResourceDef, &Value)> + '_ {
        self.tables
            .by_resource
            .values()
            .flat_map(|(res, table)| table.values().map(move |obj| (*res, &obj.value)))
    }

    /// A snapshot holding exactly `objects` (keyed by their namespace and name, as stored).
    pub fn from_objects(
        objects: impl IntoIterator<Item = (&'static ResourceDef, Value)>,
    ) -> Snapshot {
        let mut tables = Tables::default();
        for (res, value) in objects {
            let key = key_of(&value);
            tables
                .by_resource
                .entry(table_key(res))
                .or_insert_with(|| (res, Table::new()))
                .1
                .insert(key, Object::new(value));
        }
        Snapshot { tables }
    }

    /// How many objects the snapshot holds.
    pub fn len(&self) -> usize {
        self.tables.by_resource.values().map(|(_, t)| t.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Why a write was refused by the store itself.
#[derive(Debug, PartialEq, Eq)]
pub enum StoreError {
    AlreadyExists,
    NotFound,
    /// The caller's expected resourceVersion is not the stored one.
    Conflict,
}

/// The object store.
pub struct Store {
    inner: RwLock<Inner>,
    events: broadcast::Sender<Event>,
    history_cap: usize,
}

impl Default for Store {
    fn default() -> Self {
        Self::new()
    }
}

/// `value` as stored at revision `rv`: its `resourceVersion` stamped.
fn stamped(mut value: Value, rv: u64) -> Stored {
    if let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("resourceVersion".into(), Value::String(rv.to_string()));
    }
    Object::new(value)
}

/// The table of a resource that has objects; none is `NotFound` for a write that needs one.
fn existing_table<'a>(
    inner: &'a mut Inner,
    res: &'static ResourceDef,
) -> Result<&'a mut Table, StoreError> {
    match inner.tables.by_resource.get_mut(&table_key(res)) {
        Some((_, t)) => Ok(t),
        None => Err(StoreError::NotFound),
    }
}

/// etcd's compare on `mod_revision`: the object must exist, and with `expect_rv`, be at it.
fn at_version(old: Option<&Stored>, expect_rv: Option<u64>) -> Result<(), StoreError> {
    let old = old.ok_or(StoreError::NotFound)?;
    match expect_rv {
        Some(expect) if old.resource_version() != expect => Err(StoreError::Conflict),
        _ => Ok(()),
    }
}

fn key_of(value: &Value) -> (String, String) {
    (
        value["metadata"]["namespace"]
            .as_str()
            .unwrap_or("")
            .to_string(),
        value["metadata"]["name"].as_str().unwrap_or("").to_string(),
    )
}

impl Store {
    pub fn new() -> Self {
        Self::with_history(HISTORY)
    }

    /// A store whose watch history keeps `cap` writes (older resume points get 410 Gone).
    pub fn with_history(cap: usize) -> Self {
        let cap = cap.max(1);
        // The live channel holds as many events as the history: a subscriber further behind
        // than that resyncs (controllers) or is closed and relists (watches), as with a real server.
        let (events, _) = broadcast::channel(cap.max(1024));
        Self {
            history_cap: cap,
            inner: RwLock::new(Inner {
                rv: 1,
                tables: Tables::default(),
                history: VecDeque::new(),
            }),
            events,
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The current resourceVersion (the last write's).
    pub fn revision(&self) -> u64 {
        self.read().rv
    }

    pub fn get(&self, res: &'static ResourceDef, ns: &str, name: &str) -> Option<Stored> {
        let inner = self.read();
        inner
            .tables
            .by_resource
            .get(&table_key(convert::storage(res)))
            .and_then(|(_, t)| t.get(&(ns.to_string(), name.to_string())))
            .map(|o| from_storage(res, o))
    }

    /// All objects of a resource (in one namespace, or all), ordered by namespace then name as
    /// etcd's key order gives, with the revision the list is consistent with.
    pub fn list(&self, res: &'static ResourceDef, ns: Option<&str>) -> (Vec<Stored>, u64) {
        let inner = self.read();
        let items = match inner
            .tables
            .by_resource
            .get(&table_key(convert::storage(res)))
        {
            None => Vec::new(),
            Some((_, t)) => match ns {
                None => t.values().map(|o| from_storage(res, o)).collect(),
                Some(ns) => t
                    .range((ns.to_string(), String::new())..)
                    .take_while(|((n, _), _)| n == ns)
                    .map(|(_, o)| from_storage(res, o))
                    .collect(),
            },
        };
        (items, inner.rv)
    }

    /// Count objects of a resource without cloning them.
    pub fn count(&self, res: &'static ResourceDef) -> usize {
        self.read()
            .tables
            .by_resource
            .get(&table_key(convert::storage(res)))
            .map_or(0, |(_, t)| t.len())
    }

    #[allow(clippy::too_many_arguments)]
    fn commit(
        &self,
        inner: &mut Inner,
        kind: EventKind,
        res: &'static ResourceDef,
        object: Stored,
        prev: Option<Stored>,
        rv: u64,
    ) {
        let event = Event {
            kind,
            res,
            object,
            prev,
            rv,
        };
        if inner.history.len() >= self.history_cap {
            inner.history.pop_front();
        }
        inner.history.push_back(event.clone());
        // No receivers is fine: nobody is watching.
        let _ = self.events.send(event);
    }

    /// Commit a write of `view`'s storage and answer the object as `view` shows it.
    fn committed(
        &self,
        inner: &mut Inner,
        kind: EventKind,
        view: &'static ResourceDef,
        obj: Stored,
        prev: Option<Stored>,
        rv: u64,
    ) -> Stored {
        inner.rv = rv;
        let answer = from_storage(view, &obj);
        self.commit(inner, kind, convert::storage(view), obj, prev, rv);
        answer
    }

    /// Insert a new object; fails if the key exists.
    pub fn create(&self, view: &'static ResourceDef, value: Value) -> Result<Stored, StoreError> {
        let (res, value) = (convert::storage(view), convert::into_storage(view, value));
        let key = key_of(&value);
        let mut inner = self.write();
        let rv = inner.rv + 1;
        let table = &mut inner
            .tables
            .by_resource
            .entry(table_key(res))
            .or_insert_with(|| (res, Table::new()))
            .1;
        if table.contains_key(&key) {
            return Err(StoreError::AlreadyExists);
        }
        let obj = stamped(value, rv);
        table.insert(key, obj.clone());
        Ok(self.committed(&mut inner, EventKind::Added, view, obj, None, rv))
    }

    /// Replace an existing object. With `expect_rv`, the stored object must still be at that
    /// version (compare-and-swap, like etcd's transaction on mod_revision).
    pub fn update(
        &self,
        view: &'static ResourceDef,
        value: Value,
        expect_rv: Option<u64>,
    ) -> Result<Stored, StoreError> {
        let (res, value) = (convert::storage(view), convert::into_storage(view, value));
        let key = key_of(&value);
        let mut inner = self.write();
        let rv = inner.rv + 1;
        let table = existing_table(&mut inner, res)?;
        at_version(table.get(&key), expect_rv)?;
        let obj = stamped(value, rv);
        let prev = table.insert(key, obj.clone());
        Ok(self.committed(&mut inner, EventKind::Modified, view, obj, prev, rv))
    }

    /// Remove an object; with `expect_rv`, only if unchanged since.
    pub fn delete(
        &self,
        view: &'static ResourceDef,
        ns: &str,
        name: &str,
        expect_rv: Option<u64>,
    ) -> Result<Stored, StoreError> {
        let res = convert::storage(view);
        let key = (ns.to_string(), name.to_string());
        let mut inner = self.write();
        let rv = inner.rv + 1;
        let table = existing_table(&mut inner, res)?;
        at_version(table.get(&key), expect_rv)?;
        let Some(old) = table.remove(&key) else {
            return Err(StoreError::NotFound);
        };
        // A deleted object is reported at the deletion's revision, as the watch cache does.
        let obj = stamped(old.value.clone(), rv);
        Ok(self.committed(&mut inner, EventKind::Deleted, view, obj, Some(old), rv))
    }

    /// Subscribe to changes after `since`. Returns the missed events still in the history window
    /// (or `None` when `since` is older than the window: 410 Gone) and a live receiver; no event
    /// can fall between the two because both are taken under the same lock.
    pub fn watch_from(&self, since: u64) -> (Option<Vec<Event>>, broadcast::Receiver<Event>) {
        let inner = self.read();
        let rx = self.events.subscribe();
        let oldest = inner.history.front().map_or(inner.rv + 1, |e| e.rv);
        if since + 1 < oldest && since < inner.rv {
            return (None, rx);
        }
        let missed = inner
            .history
            .iter()
            .filter(|e| e.rv > since)
            .cloned()
            .collect();
        (Some(missed), rx)
    }

    /// Subscribe to all future changes.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// The oldest revision a watch can still resume from.
    pub fn oldest_revision(&self) -> u64 {
        let inner = self.read();
        inner
            .history
            .front()
            .map_or(inner.rv, |e| e.rv.saturating_sub(1))
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            tables: self.read().tables.clone(),
        }
    }

    /// Rewind to a snapshot. Every difference is written as a new revision and reported to
    /// watchers, so controllers and clients see an ordinary stream of changes. Returns the
    /// objects that differed (none: the store already held the snapshot's state).
    pub fn restore(&self, snap: &Snapshot) -> Vec<Rewound> {
        let mut inner = self.write();
        let current = inner.tables.clone();
        let mut changes: Vec<Change> = Vec::new();
        for (tk, (res, table)) in &current.by_resource {
            let target = snap.tables.by_resource.get(tk).map(|(_, t)| t);
            for (key, obj) in table {
                match target.and_then(|t| t.get(key)) {
                    None => changes.push((EventKind::Deleted, res, None, key.clone())),
                    Some(want) if !Arc::ptr_eq(want, obj) => changes.push((
                        EventKind::Modified,
                        res,
                        Some(want.value.clone()),
                        key.clone(),
                    )),
                    Some(_) => {}
                }
            }
        }
        for (tk, (res, table)) in &snap.tables.by_resource {
            let have = current.by_resource.get(tk).map(|(_, t)| t);
            for (key, want) in table {
                if have.and_then(|t| t.get(key)).is_none() {
                    changes.push((EventKind::Added, res, Some(want.value.clone()), key.clone()));
                }
            }
        }
        let rewound = changes
            .iter()
            .map(|(_, res, _, (namespace, name))| Rewound {
                resource: res,
                namespace: namespace.clone(),
                name: name.clone(),
            })
            .collect();
        for (kind, res, value, key) in changes {
            let rv = inner.rv + 1;
            inner.rv = rv;
            let table = &mut inner
                .tables
                .by_resource
                .entry(table_key(res))
                .or_insert_with(|| (res, Table::new()))
                .1;
            let (obj, prev) = match (kind, value) {
                (EventKind::Deleted, _) | (_, None) => {
                    let Some(old) = table.remove(&key) else {
                        continue;
                    };
                    (stamped(old.value.clone(), rv), Some(old))
                }
                (_, Some(v)) => {
                    let obj = stamped(v, rv);
                    let prev = table.insert(key, obj.clone());
                    (obj, prev)
                }
            };
            self.commit(&mut inner, kind, res, obj, prev, rv);
        }
        rewound
    }
}

impl StoredObjects for Store {
    fn for_each(&self, res: &'static ResourceDef, f: &mut dyn FnMut(&Value)) {
        for object in self.list(res, None).0 {
            f(&object.value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{NODES, PODS};
    use serde_json::json;

    fn pod(ns: &str, name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}})
    }

    fn node(name: &str) -> Value {
        json!({"metadata": {"name": name}})
    }

    #[test]
    fn lists_in_etcd_key_order_and_versions_grow() {
        let s = Store::new();
        let b = s.create(&PODS, pod("b", "x")).unwrap();
        let a = s.create(&PODS, pod("a", "z")).unwrap();
        s.create(&PODS, pod("a", "y")).unwrap();
        assert!(a.resource_version() > b.resource_version());
        let (all, _) = s.list(&PODS, None);
        let names: Vec<_> = all.iter().map(|o| (o.namespace(), o.name())).collect();
        assert_eq!(names, vec![("a", "y"), ("a", "z"), ("b", "x")]);
        let (in_a, _) = s.list(&PODS, Some("a"));
        assert_eq!(in_a.len(), 2);
        assert_eq!(
            s.create(&PODS, pod("a", "y")).unwrap_err(),
            StoreError::AlreadyExists
        );
    }

    #[test]
    fn compare_and_swap_refuses_stale_versions() {
        let s = Store::new();
        let o = s.create(&NODES, node("n")).unwrap();
        let rv = o.resource_version();
        s.update(&NODES, node("n"), Some(rv)).unwrap();
        assert_eq!(
            s.update(&NODES, node("n"), Some(rv)).unwrap_err(),
            StoreError::Conflict
        );
    }

    #[test]
    fn watch_resumes_from_a_version_and_restore_emits_changes() {
        let s = Store::new();
        let o = s.create(&NODES, node("a")).unwrap();
        let snap = s.snapshot();
        s.create(&NODES, node("b")).unwrap();
        let (missed, _rx) = s.watch_from(o.resource_version());
        assert_eq!(missed.unwrap().len(), 1);
        let mut rx = s.subscribe();
        s.restore(&snap);
        let ev = rx.try_recv().unwrap();
        assert_eq!(ev.kind, EventKind::Deleted);
        assert_eq!(ev.object.name(), "b");
        assert_eq!(s.list(&NODES, None).0.len(), 1);
    }
}
