//! Field ownership: `metadata.managedFields`, kept on every write as upstream's field manager
//! keeps it (k8s.io/apimachinery `util/managedfields/internal`, over structured-merge-diff).
//!
//! An update (create, update, patch) gives its manager the fields it changed and takes them
//! from the others; an apply (server-side apply) owns exactly what its configuration sets,
//! removes what it stopped setting, and conflicts with other owners unless forced. The chain of
//! upstream's managers is kept step by step below — `decodeLiveOrNew`, `skipNonApplied`,
//! `buildManagerInfo`, `managedFieldsUpdater`, `stripMeta`, `capManagers`, and for kubectl's
//! own applies `lastAppliedManager` and `lastAppliedUpdater`.

mod path;
mod schema;
mod set;
mod typed;
mod updater;

use serde_json::{json, Map, Value};

pub use schema::Definitions;
use schema::{Ty, Types};
use set::Set;
use typed::{MergeError, Side};
use updater::{ApplyError, Conflict, Managers, Updater, VersionedSet};

use crate::error::{go_quote, ApiError};

/// The manager `managedFieldsUpdater` records an update under before merging it into the
/// real one.
const CURRENT_OPERATION: &str = "current-operation";
/// `skipNonAppliedManager`: who owns an untracked object's fields when it is first applied.
const BEFORE_FIRST_APPLY: &str = "before-first-apply";
/// `capManagersManager`: the bucket the oldest update managers are merged into.
const ANCIENT_CHANGES: &str = "ancient-changes";
const MAX_UPDATE_MANAGERS: usize = 10;
/// `FieldManagerMaxLength`.
pub const MAX_MANAGER_LENGTH: usize = 128;
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The shape of one kind's objects: a built-in definition, or a custom resource's schema.
pub enum Kind<'a> {
    BuiltIn {
        defs: &'a Definitions,
        name: &'a str,
    },
    /// A custom resource: its version's `openAPIV3Schema`, whose `metadata` is the built-in
    /// ObjectMeta.
    Custom { defs: &'a Definitions, root: Value },
}

impl<'a> Kind<'a> {
    /// A custom resource's kind from its structural schema.
    pub fn custom(defs: &'a Definitions, schema: &Value) -> Kind<'a> {
        let mut root = schema.clone();
        if let Some(props) = root
            .as_object_mut()
            .map(|m| m.entry("properties").or_insert_with(|| json!({})))
            .and_then(Value::as_object_mut)
        {
            props.insert(
                "metadata".into(),
                json!({"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}),
            );
            props.insert("apiVersion".into(), json!({"type": "string"}));
            props.insert("kind".into(), json!({"type": "string"}));
        }
        Kind::Custom { defs, root }
    }

    fn parts(&self) -> (Types<'_>, Ty<'_>) {
        match self {
            Kind::BuiltIn { defs, name } => (Types::new(defs), Types::named(name)),
            Kind::Custom { defs, root } => (
                Types::new(defs),
                Ty::Inline {
                    schema: root,
                    preserve: false,
                },
            ),
        }
    }

    /// What an object is compared with on its creation: the kind's Go zero value (a custom
    /// resource's is empty).
    fn zero(&self, api_version: &str, kind: &str) -> Value {
        let mut zero = match self {
            Kind::BuiltIn { .. } => {
                let (types, ty) = self.parts();
                typed::zero(&types, ty)
            }
            Kind::Custom { .. } => json!({}),
        };
        if let Some(m) = zero.as_object_mut() {
            m.insert("apiVersion".into(), json!(api_version));
            m.insert("kind".into(), json!(kind));
        }
        zero
    }
}

/// One write path of one kind: which version and subresource it writes, and the fields it
/// resets (nobody gains or loses them there).
pub struct Endpoint<'a> {
    pub kind: Kind<'a>,
    pub api_version: String,
    pub kind_name: &'a str,
    pub subresource: &'a str,
    pub reset: Set,
    /// When this write happens, as `metav1.Time` prints it.
    pub now: String,
}

/// Reset fields given as dotted paths (`status`, `metadata.deletionTimestamp`).
pub fn reset_fields(paths: &[&str]) -> Set {
    let split: Vec<Vec<&str>> = paths.iter().map(|p| p.split('.').collect()).collect();
    let refs: Vec<&[&str]> = split.iter().map(Vec::as_slice).collect();
    set::of_fields(&refs)
}

/// `stripMetaManager`'s fields: nobody owns them. Built once: every write strips them.
fn stripped() -> &'static Set {
    static STRIPPED: std::sync::OnceLock<Set> = std::sync::OnceLock::new();
    STRIPPED.get_or_init(|| {
        set::of_fields(&[
            &["apiVersion"],
            &["kind"],
            &["metadata"],
            &["metadata", "name"],
            &["metadata", "namespace"],
            &["metadata", "creationTimestamp"],
            &["metadata", "selfLink"],
            &["metadata", "uid"],
            &["metadata", "clusterName"],
            &["metadata", "generation"],
            &["metadata", "managedFields"],
            &["metadata", "resourceVersion"],
        ])
    })
}

/// Decoded `managedFields`: each manager's fields and when it last changed them.
#[derive(Clone, Debug, Default)]
struct Managed {
    fields: Managers,
    times: std::collections::BTreeMap<String, Option<String>>,
}

/// `BuildManagerIdentifier`: the entry without its time and fields as JSON (an apply's
/// without its version), which keys a manager.
fn identifier(manager: &str, operation: &str, api_version: &str, subresource: &str) -> String {
    let mut m = Map::new();
    if !manager.is_empty() {
        m.insert("manager".into(), json!(manager));
    }
    m.insert("operation".into(), json!(operation));
    if operation != "Apply" && !api_version.is_empty() {
        m.insert("apiVersion".into(), json!(api_version));
    }
    if !subresource.is_empty() {
        m.insert("subresource".into(), json!(subresource));
    }
    Value::Object(m).to_string()
}

/// `DecodeManagedFields`.
fn decode(entries: Option<&Value>) -> Result<Managed, String> {
    let mut managed = Managed::default();
    let Some(entries) = entries.filter(|e| !e.is_null()) else {
        return Ok(managed);
    };
    let Value::Array(entries) = entries else {
        return Err("managedFields is not a list".into());
    };
    for (i, entry) in entries.iter().enumerate() {
        let text = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or_default();
        let operation = text("operation");
        if operation != "Apply" && operation != "Update" {
            return Err("operation must be `Apply` or `Update`".into());
        }
        if text("apiVersion").is_empty() {
            return Err("apiVersion must not be empty".into());
        }
        match text("fieldsType") {
            "FieldsV1" => {}
            "" => return Err(format!("missing fieldsType in managed fields entry {i}")),
            other => {
                return Err(format!(
                    "invalid fieldsType {other:?} in managed fields entry {i}"
                ))
            }
        }
        let id = identifier(
            text("manager"),
            operation,
            text("apiVersion"),
            text("subresource"),
        );
        let set = match entry.get("fieldsV1") {
            Some(f) if !f.is_null() => Set::from_fields_v1(f)?,
            _ => Set::default(),
        };
        managed.fields.insert(
            id.clone(),
            VersionedSet {
                set,
                api_version: text("apiVersion").to_owned(),
                applied: operation == "Apply",
            },
        );
        managed.times.insert(
            id,
            entry.get("time").and_then(Value::as_str).map(String::from),
        );
    }
    Ok(managed)
}

/// `encodeManagedFields`: the entries sorted as `sortEncodedManagedFields` sorts them
/// (applies first, then by time, manager, version, subresource); none when nobody owns anything.
fn encode(managed: &Managed) -> Option<Value> {
    if managed.fields.is_empty() {
        return None;
    }
    let mut entries: Vec<Map<String, Value>> = Vec::new();
    for (id, owned) in &managed.fields {
        let key: Map<String, Value> = serde_json::from_str(id).unwrap_or_default();
        let mut entry = Map::new();
        if let Some(m) = key.get("manager") {
            entry.insert("manager".into(), m.clone());
        }
        let operation = if owned.applied { "Apply" } else { "Update" };
        entry.insert("operation".into(), json!(operation));
        entry.insert("apiVersion".into(), json!(owned.api_version));
        if let Some(Some(t)) = managed.times.get(id) {
            entry.insert("time".into(), json!(t));
        }
        entry.insert("fieldsType".into(), json!("FieldsV1"));
        entry.insert("fieldsV1".into(), owned.set.to_fields_v1());
        if let Some(s) = key.get("subresource") {
            entry.insert("subresource".into(), s.clone());
        }
        entries.push(entry);
    }
    let text = |e: &Map<String, Value>, k: &str| {
        e.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    entries.sort_by(|p, q| {
        text(p, "operation")
            .cmp(&text(q, "operation"))
            .then_with(|| seconds(p.get("time")).cmp(&seconds(q.get("time"))))
            .then_with(|| text(p, "manager").cmp(&text(q, "manager")))
            .then_with(|| text(p, "apiVersion").cmp(&text(q, "apiVersion")))
            .then_with(|| text(p, "subresource").cmp(&text(q, "subresource")))
    });
    Some(Value::Array(
        entries.into_iter().map(Value::Object).collect(),
    ))
}

/// A managedFields time in Unix seconds (0 when absent).
fn seconds(time: Option<&Value>) -> i64 {
    time.and_then(Value::as_str)
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.timestamp())
        .unwrap_or(0)
}

fn managed_fields_of(obj: &Value) -> Option<&Value> {
    obj.get("metadata")?.get("managedFields")
}

fn set_managed_fields(obj: &mut Value, entries: Option<Value>) {
    if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        match entries {
            Some(e) => {
                meta.insert("managedFields".into(), e);
            }
            None => {
                meta.remove("managedFields");
            }
        }
    }
}

fn without_managed_fields(obj: &Value) -> Value {
    let mut obj = obj.clone();
    set_managed_fields(&mut obj, None);
    obj
}

/// `isResetManagedFields`: an empty list (or one empty entry) asks to clear ownership.
fn asks_for_reset(entries: Option<&Value>) -> bool {
    match entries {
        Some(Value::Array(list)) => {
            list.is_empty() || (list.len() == 1 && list[0].as_object().is_some_and(Map::is_empty))
        }
        _ => false,
    }
}

fn uid(obj: &Value) -> &str {
    obj.get("metadata")
        .and_then(|m| m.get("uid"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

impl Endpoint<'_> {
    /// The time a manager's entry gets. `ScaleHandler.ToParent` re-adds the scale writer's
    /// entry with the time of a parent entry of the scale's identity — which does not exist
    /// yet — so a scale entry carries none.
    fn time(&self) -> Option<String> {
        (self.subresource != "scale").then(|| self.now.clone())
    }

    /// What a write that creates an object compares it with.
    fn zero(&self) -> Value {
        self.kind.zero(&self.api_version, self.kind_name)
    }

    /// The stored object, or the zero object when the write creates one.
    fn live_or_zero<'v>(&self, live: Option<&'v Value>) -> std::borrow::Cow<'v, Value> {
        live.map_or_else(
            || std::borrow::Cow::Owned(self.zero()),
            std::borrow::Cow::Borrowed,
        )
    }

    fn updater<'t, 'a>(&'t self, types: &'t Types<'a>, ty: Ty<'a>) -> Updater<'t, 'a> {
        Updater {
            types,
            ty,
            ignored: &self.reset,
        }
    }

    /// `FieldManager.UpdateNoErrors` for a create (`live` is `None`), an update or a patch:
    /// `new` with its managedFields as of this write by `manager`.
    pub fn update(&self, live: Option<&Value>, mut new: Value, manager: &str) -> Value {
        let live = self.live_or_zero(live);
        let live = live.as_ref();
        // `decodeLiveOrNew`: ownership the request sends is taken (a subresource's never), an
        // empty list clears it, and none keeps the live object's.
        let sent = managed_fields_of(&new).cloned();
        let managed = if !self.subresource.is_empty() {
            decode(managed_fields_of(live)).unwrap_or_default()
        } else if asks_for_reset(sent.as_ref()) {
            Managed::default()
        } else {
            match decode(sent.as_ref()) {
                Ok(m) if !m.fields.is_empty() => m,
                _ => decode(managed_fields_of(live)).unwrap_or_default(),
            }
        };
        set_managed_fields(&mut new, None);
        // `skipNonAppliedManager`: an existing object nobody owns stays untracked until applied.
        if managed.fields.is_empty() && !uid(live).is_empty() {
            return new;
        }
        let managed = self.record_update(managed, &without_managed_fields(live), &new, manager);
        set_managed_fields(&mut new, encode(&managed));
        new
    }

    /// `buildManagerInfo` → `managedFieldsUpdater` → `stripMeta` → the structured update,
    /// then `capManagers`.
    fn record_update(
        &self,
        mut managed: Managed,
        live: &Value,
        new: &Value,
        manager: &str,
    ) -> Managed {
        let manager = if manager.is_empty() {
            "unknown"
        } else {
            manager
        };
        let id = identifier(manager, "Update", &self.api_version, self.subresource);
        let (types, ty) = self.kind.parts();
        self.updater(&types, ty).update(
            live,
            new,
            &self.api_version,
            &mut managed.fields,
            CURRENT_OPERATION,
        );
        strip(&mut managed.fields, CURRENT_OPERATION);
        if let Some(current) = managed.fields.remove(CURRENT_OPERATION) {
            let set = match managed.fields.get(&id) {
                Some(previous) => current.set.union(&previous.set),
                None => current.set,
            };
            managed.fields.insert(
                id.clone(),
                VersionedSet {
                    set,
                    api_version: current.api_version,
                    applied: current.applied,
                },
            );
            managed.times.insert(id, self.time());
        }
        cap_update_managers(&mut managed);
        managed
    }

    /// `FieldManager.Apply`: the object `config` makes of `live` (`None` when it does not
    /// exist yet), with managedFields; a conflict is a 409 naming each owner.
    pub fn apply(
        &self,
        live: Option<&Value>,
        config: &Value,
        manager: &str,
        force: bool,
    ) -> Result<Value, ApiError> {
        let live = self.live_or_zero(live);
        let live = live.as_ref();
        let managed = decode(managed_fields_of(live))
            .map_err(|e| ApiError::new(500, "", format!("failed to decode managed fields: {e}")))?;
        let live = without_managed_fields(live);
        let mut result = self.apply_managed(&live, config, managed.clone(), manager, force);
        // `lastAppliedManager`: kubectl taking over from its client-side apply may take the
        // fields whose values its last applied configuration still holds.
        if manager == "kubectl" {
            if let Err(ApplyError::Conflicts(conflicts)) = &result {
                if let Some(allowed) = self.allowed_from_last_applied(&live) {
                    let left: Vec<Conflict> = conflicts
                        .iter()
                        .filter(|c| !allowed.has(&c.path))
                        .cloned()
                        .collect();
                    result = if left.is_empty() {
                        self.apply_managed(&live, config, managed, manager, true)
                    } else {
                        Err(ApplyError::Conflicts(left))
                    };
                }
            }
        }
        let (mut object, managed) = result.map_err(|e| match e {
            ApplyError::Conflicts(c) => conflict_error(&c),
            ApplyError::Invalid(e) => self.invalid_error(config, &live, e),
        })?;
        // `lastAppliedUpdater`: kubectl's apply keeps its client-side annotation current.
        if manager == "kubectl" && has_last_applied(&object) {
            set_last_applied(&mut object, config);
        }
        set_managed_fields(&mut object, encode(&managed));
        Ok(object)
    }

    fn apply_managed(
        &self,
        live: &Value,
        config: &Value,
        mut managed: Managed,
        manager: &str,
        force: bool,
    ) -> Result<(Value, Managed), ApplyError> {
        let mut live = live.clone();
        if managed.fields.is_empty() {
            // `skipNonAppliedManager`: what the object already holds is someone else's.
            managed = self.record_update(managed, &self.zero(), &live, BEFORE_FIRST_APPLY);
            set_managed_fields(&mut live, None);
        }
        let id = identifier(manager, "Apply", "", self.subresource);
        let (types, ty) = self.kind.parts();
        let applied = self.updater(&types, ty).apply(
            &live,
            config,
            &self.api_version,
            &mut managed.fields,
            &id,
            force,
        )?;
        strip(&mut managed.fields, &id);
        let object = match applied {
            Some(object) => {
                managed.times.insert(id, self.time());
                object
            }
            None => live,
        };
        Ok((object, managed))
    }

    /// `structuredMergeManager.Apply`'s refusal of an object that does not fit its type: a
    /// 500, as upstream's typed conversion answers, naming the object as `objectGVKNN` does.
    fn invalid_error(&self, config: &Value, live: &Value, e: MergeError) -> ApiError {
        let (what, obj) = match e.side {
            Side::Config => ("patch", config),
            Side::Live => ("live", live),
        };
        let text = |o: &Value, k: &str| {
            o.get("metadata")
                .and_then(|m| m.get(k))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let (group, version) = match self.api_version.split_once('/') {
            Some((g, v)) => (g, v),
            None => ("", self.api_version.as_str()),
        };
        // Not a Status error: the handler answers it as a 500 without a reason.
        ApiError::new(
            500,
            "",
            format!(
                "failed to create typed {what} object ({}/{}; {group}/{version}, Kind={}): {}",
                text(obj, "namespace"),
                text(obj, "name"),
                self.kind_name,
                e.message
            ),
        )
    }

    /// `allowedConflictsFromLastApplied`: the fields of the last applied configuration whose
    /// values the live object still has.
    fn allowed_from_last_applied(&self, live: &Value) -> Option<Set> {
        let text = live
            .get("metadata")?
            .get("annotations")?
            .get(LAST_APPLIED)?
            .as_str()
            .filter(|t| !t.is_empty())?;
        let last: Value = serde_json::from_str(text).ok()?;
        if last.get("apiVersion").and_then(Value::as_str) != Some(self.api_version.as_str()) {
            return None;
        }
        let (types, ty) = self.kind.parts();
        let compare = typed::compare(&types, ty, &last, live);
        Some(
            typed::to_field_set(&types, ty, &last)
                .difference(&compare.modified)
                .difference(&compare.added)
                .difference(&compare.removed),
        )
    }
}

/// `IgnoreManagedFieldsTimestampsTransformer`: a write that changes nothing but the times of its
/// managers' entries keeps the stored times, so that it stays a no-op (an apply whose values
/// only look different before decoding, `cpu: 1` against `"1"`).
pub fn keep_times_of_a_no_op(new: &mut Value, old: &Value) {
    if new == old {
        return;
    }
    let (Some(Value::Array(mine)), Some(Value::Array(theirs))) =
        (managed_fields_of(new), managed_fields_of(old))
    else {
        return;
    };
    let without_time = |entries: &Vec<Value>| -> Vec<Value> {
        entries
            .iter()
            .map(|e| {
                let mut e = e.clone();
                if let Some(m) = e.as_object_mut() {
                    m.remove("time");
                }
                e
            })
            .collect()
    };
    if without_time(mine) != without_time(theirs)
        || without_managed_fields(new) != without_managed_fields(old)
    {
        return;
    }
    let kept = Value::Array(theirs.clone());
    set_managed_fields(new, Some(kept));
}

/// Whether any manager of `obj` owns the field at `path` (`ScaleHandler.ToSubresource` keeps
/// only the managers of the replicas).
pub fn anyone_owns(obj: &Value, path: &[&str]) -> bool {
    let path: Vec<path::PathElement> = path
        .iter()
        .map(|f| path::PathElement::Field((*f).to_owned()))
        .collect();
    decode(managed_fields_of(obj))
        .map(|m| m.fields.values().any(|owned| owned.set.has(&path)))
        .unwrap_or(false)
}

/// `stripMetaManager.stripFields`.
fn strip(fields: &mut Managers, manager: &str) {
    if let Some(owned) = fields.get_mut(manager) {
        owned.set = owned.set.difference(stripped());
        if owned.set.is_empty() {
            fields.remove(manager);
        }
    }
}

/// `capManagersManager.capUpdateManagers`: past ten update managers, the oldest are merged into
/// one `ancient-changes` entry per version.
fn cap_update_managers(managed: &mut Managed) {
    let mut updaters: Vec<String> = managed
        .fields
        .iter()
        .filter(|(_, owned)| !owned.applied)
        .map(|(id, _)| id.clone())
        .collect();
    if updaters.len() <= MAX_UPDATE_MANAGERS {
        return;
    }
    let time = |id: &String| {
        seconds(
            managed
                .times
                .get(id)
                .and_then(|t| t.as_ref())
                .map(|t| json!(t))
                .as_ref(),
        )
    };
    updaters.sort_by(|a, b| time(a).cmp(&time(b)).then_with(|| a.cmp(b)));
    let mut length = updaters.len();
    let mut first_of_version: std::collections::BTreeMap<String, String> = Default::default();
    for manager in updaters {
        if length <= MAX_UPDATE_MANAGERS {
            break;
        }
        let Some(owned) = managed.fields.get(&manager).cloned() else {
            continue;
        };
        let when = managed.times.get(&manager).cloned().flatten();
        let version = owned.api_version.clone();
        let bucket = identifier(ANCIENT_CHANGES, "Update", &version, "");
        match first_of_version.get(&version) {
            Some(first) => {
                if !managed.fields.contains_key(&bucket) {
                    if let Some(s) = managed.fields.remove(first) {
                        managed.fields.insert(bucket.clone(), s);
                    }
                }
                let merged = managed
                    .fields
                    .get(&bucket)
                    .map(|b| owned.set.union(&b.set))
                    .unwrap_or(owned.set.clone());
                managed.fields.insert(
                    bucket.clone(),
                    VersionedSet {
                        set: merged,
                        api_version: version,
                        applied: owned.applied,
                    },
                );
                managed.fields.remove(&manager);
                length -= 1;
                managed.times.insert(bucket, when);
            }
            None => {
                first_of_version.insert(version, manager);
            }
        }
    }
}

fn has_last_applied(obj: &Value) -> bool {
    obj.get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(LAST_APPLIED))
        .and_then(Value::as_str)
        .is_some_and(|t| !t.is_empty())
}

/// `buildLastApplied` and `SetLastApplied`: the configuration, without the annotation itself,
/// as Go encodes an unstructured object (keys sorted).
fn set_last_applied(obj: &mut Value, config: &Value) {
    let mut config = config.clone();
    if let Some(a) = config
        .get_mut("metadata")
        .and_then(|m| m.get_mut("annotations"))
        .and_then(Value::as_object_mut)
    {
        a.remove(LAST_APPLIED);
    }
    let text = crate::go_json::encode_unstructured(&config);
    if let Some(a) = obj
        .get_mut("metadata")
        .and_then(|m| m.get_mut("annotations"))
        .and_then(Value::as_object_mut)
    {
        a.insert(LAST_APPLIED.into(), json!(text));
    }
}

/// `printManager`: the manager quoted, its subresource, and an update's version.
fn print_manager(id: &str) -> String {
    let Ok(entry) = serde_json::from_str::<Map<String, Value>>(id) else {
        return go_quote(id);
    };
    let text = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or_default();
    let mut out = go_quote(text("manager"));
    if !text("subresource").is_empty() {
        out = format!("{out} with subresource {}", go_quote(text("subresource")));
    }
    if text("operation") == "Update" {
        out = format!("{out} using {}", text("apiVersion"));
    }
    out
}

/// `NewConflictError`: 409 with a cause per conflicting field.
fn conflict_error(conflicts: &[Conflict]) -> ApiError {
    let causes: Vec<Value> = conflicts
        .iter()
        .map(|c| {
            json!({
                "reason": "FieldManagerConflict",
                "message": format!("conflict with {}", print_manager(&c.manager)),
                "field": path::path_string(&c.path),
            })
        })
        .collect();
    let message = if let [only] = conflicts {
        format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            print_manager(&only.manager),
            path::path_string(&only.path)
        )
    } else {
        let mut by_manager: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
        for c in conflicts {
            by_manager
                .entry(c.manager.as_str())
                .or_default()
                .push(path::path_string(&c.path));
        }
        let mut lines = Vec::new();
        for (manager, paths) in by_manager {
            lines.push(format!("conflicts with {}:", print_manager(manager)));
            lines.extend(paths.into_iter().map(|p| format!("- {p}")));
        }
        format!(
            "Apply failed with {} conflicts: {}",
            conflicts.len(),
            lines.join("\n")
        )
    };
    ApiError::new(409, "Conflict", message).with_details(json!({ "causes": causes }))
}

/// `managerOrUserAgent`: the request's field manager, else its user agent up to the first `/`
/// without unprintable characters, at most 128 bytes.
pub fn manager_or_user_agent(manager: Option<&str>, user_agent: &str) -> String {
    if let Some(m) = manager.filter(|m| !m.is_empty()) {
        return m.to_owned();
    }
    let prefix = user_agent.split('/').next().unwrap_or_default();
    let mut out = String::new();
    for c in prefix.chars().filter(|c| is_print(*c)) {
        if out.len() + c.len_utf8() > MAX_MANAGER_LENGTH {
            break;
        }
        out.push(c);
    }
    out
}

/// `ValidateFieldManager`: at most 128 bytes, every character printable.
pub fn manager_errors(manager: &str, field: &str) -> Vec<crate::error::FieldError> {
    use crate::error::{FieldError, FieldErrorKind};
    let mut errs = Vec::new();
    if manager.len() > MAX_MANAGER_LENGTH {
        errs.push(FieldError::new(
            FieldErrorKind::TooLong,
            field,
            None,
            format!("may not be more than {MAX_MANAGER_LENGTH} bytes"),
        ));
    }
    for (i, c) in manager.char_indices() {
        if !is_print(c) {
            errs.push(FieldError::invalid(
                field,
                go_quote(manager),
                format!("invalid character {} (at position {i})", go_unicode(c)),
            ));
        }
    }
    errs
}

/// Go's `%#U`: `U+0007`, then the character quoted when it is printable.
fn go_unicode(c: char) -> String {
    let code = format!("U+{:04X}", c as u32);
    if is_print(c) {
        format!("{code} '{c}'")
    } else {
        code
    }
}

/// Go's `unicode.IsPrint`, near enough: no control characters, the ASCII space allowed.
pub fn is_print(c: char) -> bool {
    c == ' ' || !(c.is_control() || c.is_whitespace())
}

#[cfg(test)]
mod tests;
