//! Walks of a value by its type (structured-merge-diff `typed`): the set of fields a value sets
//! (`tofieldset.go`), what changed between two values (`compare.go`), an applied configuration
//! merged into a live object (`merge.go`), and fields taken out of a value (`remove.go`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::path::{values_equal, PathElement};
use super::schema::{ListKind, ListType, MapType, Shape, Ty, Types};
use super::set::Set;

const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// The item's path element in its list (`listItemToPathElement`).
fn item_element(
    types: &Types<'_>,
    list: &ListType<'_>,
    item: &Value,
) -> Result<PathElement, String> {
    match &list.kind {
        ListKind::Atomic => Err("invalid indexing of non-associative list".into()),
        ListKind::Map(keys) => {
            let Value::Object(fields) = item else {
                return Err(if item.is_null() {
                    "associative list with keys may not have a null element".into()
                } else {
                    "associative list with keys may not have non-map elements".into()
                });
            };
            let elem = match types.shape(list.elem, Some(item)) {
                Shape::Map(m) => Some(m),
                _ => None,
            };
            let mut key = Vec::new();
            for name in keys {
                let value = fields
                    .get(*name)
                    .or_else(|| elem.as_ref().and_then(|m| m.field_default(name)));
                match value {
                    Some(v) => key.push(((*name).to_owned(), v.clone())),
                    None => {
                        return Err(format!(
                            "associative list with keys has an element that omits key field {name:?} (and doesn't have default value)"
                        ))
                    }
                }
            }
            key.sort_by(|a, b| a.0.cmp(&b.0));
            Ok(PathElement::Key(key))
        }
        ListKind::Set => match item {
            Value::Object(_) => {
                Err("associative list without keys has an element that's a map type".into())
            }
            Value::Array(_) => Err("not supported: associative list with lists as elements".into()),
            Value::Null => {
                Err("associative list without keys has an element that's an explicit null".into())
            }
            v => Ok(PathElement::Value(v.clone())),
        },
    }
}

fn with(path: &[PathElement], pe: &PathElement) -> Vec<PathElement> {
    let mut p = path.to_vec();
    p.push(pe.clone());
    p
}

/// What upstream's typed conversion of an applied configuration refuses (`AsTyped`'s
/// validation): a field its struct does not declare (the first of each object), an
/// associative list item without its key, a key repeated. Each as `<path>: <why>`.
pub fn config_errors(types: &Types<'_>, ty: Ty<'_>, value: &Value) -> Vec<String> {
    let mut errs = Vec::new();
    check_config(types, ty, value, &mut Vec::new(), &mut errs);
    errs
}

fn check_config(
    types: &Types<'_>,
    ty: Ty<'_>,
    value: &Value,
    path: &mut Vec<PathElement>,
    errs: &mut Vec<String>,
) {
    let here = |path: &[PathElement]| super::path::path_string(path);
    match types.shape(ty, Some(value)) {
        Shape::Scalar | Shape::Invalid => {}
        Shape::List(list) => {
            let Value::Array(items) = value else { return };
            if list.kind == ListKind::Atomic {
                return;
            }
            let mut seen = BTreeSet::new();
            for (i, item) in items.iter().enumerate() {
                match item_element(types, &list, item) {
                    Err(e) => errs.push(format!("{}: element {i}: {e}", here(path))),
                    Ok(pe) if !seen.insert(pe.clone()) => {
                        errs.push(format!("{}: duplicate entries for key {pe}", here(path)))
                    }
                    Ok(pe) => {
                        path.push(pe);
                        check_config(types, list.elem, item, path, errs);
                        path.pop();
                    }
                }
            }
        }
        Shape::Map(map) => {
            let Value::Object(entries) = value else {
                return;
            };
            for (key, child) in entries {
                path.push(PathElement::Field(key.clone()));
                let ty = map.field_or_elem(key);
                if matches!(ty, Ty::Missing) {
                    // `validatingObjectWalker` stops at an object's first undeclared field.
                    errs.push(format!("{}: field not declared in schema", here(path)));
                    path.pop();
                    return;
                }
                check_config(types, ty, child, path, errs);
                path.pop();
            }
        }
    }
}

/// `ToFieldSet`: the fields `value` sets — scalars, atomic lists and maps, list items, map
/// entries, and empty or null fields.
pub fn to_field_set(types: &Types<'_>, ty: Ty<'_>, value: &Value) -> Set {
    let mut set = Set::default();
    field_set(types, ty, value, &mut Vec::new(), &mut set);
    set
}

fn field_set(
    types: &Types<'_>,
    ty: Ty<'_>,
    value: &Value,
    path: &mut Vec<PathElement>,
    set: &mut Set,
) {
    match types.shape(ty, Some(value)) {
        Shape::Scalar | Shape::Invalid => set.insert(path),
        Shape::List(list) => {
            if list.kind == ListKind::Atomic {
                set.insert(path);
                return;
            }
            let Value::Array(items) = value else { return };
            let elements: Vec<Option<PathElement>> = items
                .iter()
                .map(|item| item_element(types, &list, item).ok())
                .collect();
            let mut seen = BTreeSet::new();
            let mut duplicates = BTreeSet::new();
            for pe in elements.iter().flatten() {
                if !seen.insert(pe.clone()) && duplicates.insert(pe.clone()) {
                    set.insert(&with(path, pe));
                }
            }
            for (item, pe) in items.iter().zip(&elements) {
                let Some(pe) = pe else { continue };
                if duplicates.contains(pe) {
                    continue;
                }
                path.push(pe.clone());
                field_set(types, list.elem, item, path, set);
                set.insert(path);
                path.pop();
            }
        }
        Shape::Map(map) => {
            if map.atomic {
                set.insert(path);
                return;
            }
            let Value::Object(entries) = value else {
                return;
            };
            for (key, child) in entries {
                path.push(PathElement::Field(key.clone()));
                field_set(types, map.field_or_elem(key), child, path, set);
                let empty = child.is_null() || child.as_object().is_some_and(Map::is_empty);
                if empty || !map.declares(key) {
                    set.insert(path);
                }
                path.pop();
            }
        }
    }
}

/// What changed from `lhs` to `rhs` (`typed.Comparison`).
#[derive(Debug, Default)]
pub struct Comparison {
    pub removed: Set,
    pub modified: Set,
    pub added: Set,
}

impl Comparison {
    /// The comparison without `ignored` and what lies below it (an exclude filter).
    pub fn without(&self, ignored: &Set) -> Comparison {
        Comparison {
            removed: self.removed.recursive_difference(ignored),
            modified: self.modified.recursive_difference(ignored),
            added: self.added.recursive_difference(ignored),
        }
    }
}

/// `TypedValue.Compare`.
pub fn compare(types: &Types<'_>, ty: Ty<'_>, lhs: &Value, rhs: &Value) -> Comparison {
    let mut out = Comparison::default();
    Comparer {
        types,
        out: &mut out,
    }
    .compare(ty, Some(lhs), Some(rhs), &mut Vec::new());
    out
}

struct Comparer<'t, 'a> {
    types: &'t Types<'a>,
    out: &'t mut Comparison,
}

impl<'a> Comparer<'_, 'a> {
    fn compare(
        &mut self,
        ty: Ty<'a>,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
        path: &mut Vec<PathElement>,
    ) {
        let left = self.types.shape(ty, lhs);
        let right = self.types.shape(ty, rhs);
        let in_leaf = if rhs.is_none() {
            self.handle(&left, lhs, rhs, path)
        } else if lhs.is_none() || left.same_kind(&right) {
            self.handle(&right, lhs, rhs, path)
        } else {
            self.handle(&left, lhs, rhs, path);
            self.handle(&right, lhs, rhs, path)
        };
        if !in_leaf {
            if lhs.is_none() {
                self.out.added.insert(path);
            } else if rhs.is_none() {
                self.out.removed.insert(path);
            }
        }
    }

    /// Returns whether the value was compared as one leaf.
    fn handle(
        &mut self,
        shape: &Shape<'a>,
        lhs: Option<&Value>,
        rhs: Option<&Value>,
        path: &mut Vec<PathElement>,
    ) -> bool {
        match shape {
            Shape::Scalar | Shape::Invalid => self.leaf(lhs, rhs, path),
            Shape::List(list) => {
                let l = lhs.and_then(Value::as_array);
                let r = rhs.and_then(Value::as_array);
                let empty = l.is_none_or(Vec::is_empty) && r.is_none_or(Vec::is_empty);
                if list.kind == ListKind::Atomic || empty {
                    return self.leaf(lhs, rhs, path);
                }
                self.list_items(list, l, r, path);
                false
            }
            Shape::Map(map) => {
                let l = lhs.and_then(Value::as_object);
                let r = rhs.and_then(Value::as_object);
                let empty = l.is_none_or(Map::is_empty) && r.is_none_or(Map::is_empty);
                if map.atomic || empty {
                    return self.leaf(lhs, rhs, path);
                }
                self.map_items(map, l, r, path);
                false
            }
        }
    }

    fn leaf(&mut self, lhs: Option<&Value>, rhs: Option<&Value>, path: &[PathElement]) -> bool {
        match (lhs, rhs) {
            (None, _) => self.out.added.insert(path),
            (_, None) => self.out.removed.insert(path),
            (Some(l), Some(r)) if !values_equal(l, r) => self.out.modified.insert(path),
            _ => {}
        }
        true
    }

    fn map_items(
        &mut self,
        map: &MapType<'a>,
        lhs: Option<&Map<String, Value>>,
        rhs: Option<&Map<String, Value>>,
        path: &mut Vec<PathElement>,
    ) {
        let mut keys: BTreeSet<&String> = lhs.into_iter().flat_map(Map::keys).collect();
        keys.extend(rhs.into_iter().flat_map(Map::keys));
        for key in keys {
            path.push(PathElement::Field(key.clone()));
            self.compare(
                map.field_or_elem(key),
                lhs.and_then(|m| m.get(key)),
                rhs.and_then(|m| m.get(key)),
                path,
            );
            path.pop();
        }
    }

    fn list_items(
        &mut self,
        list: &ListType<'a>,
        lhs: Option<&Vec<Value>>,
        rhs: Option<&Vec<Value>>,
        path: &mut Vec<PathElement>,
    ) {
        let mut order: Vec<PathElement> = Vec::new();
        let mut left: BTreeMap<PathElement, Vec<&Value>> = BTreeMap::new();
        let mut right: BTreeMap<PathElement, Vec<&Value>> = BTreeMap::new();
        for item in lhs.into_iter().flatten() {
            let Ok(pe) = item_element(self.types, list, item) else {
                continue;
            };
            let entry = left.entry(pe.clone()).or_default();
            if entry.is_empty() {
                order.push(pe);
            }
            entry.push(item);
        }
        for item in rhs.into_iter().flatten() {
            let Ok(pe) = item_element(self.types, list, item) else {
                continue;
            };
            let entry = right.entry(pe.clone()).or_default();
            if entry.is_empty() && !left.contains_key(&pe) {
                order.push(pe.clone());
            }
            entry.push(item);
        }
        for pe in order {
            let l = left.get(&pe).map(Vec::as_slice).unwrap_or_default();
            let r = right.get(&pe).map(Vec::as_slice).unwrap_or_default();
            path.push(pe);
            match (l.len(), r.len()) {
                (0, 0) => {}
                (0 | 1, 0 | 1) => {
                    self.compare(list.elem, l.first().copied(), r.first().copied(), path)
                }
                (2.., 2..) => {
                    let same =
                        l.len() == r.len() && l.iter().zip(r).all(|(a, b)| values_equal(a, b));
                    if !same {
                        self.out.modified.insert(path);
                    }
                }
                (2.., _) => {
                    if let Some(first) = r.first() {
                        self.compare(list.elem, None, Some(first), path);
                    }
                    self.out.removed.insert(path);
                }
                (_, _) => {
                    if let Some(first) = l.first() {
                        self.compare(list.elem, Some(first), None, path);
                    }
                    self.out.added.insert(path);
                }
            }
            path.pop();
        }
    }
}

/// Which side of a merge a value that does not fit its type is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Live,
    Config,
}

/// A value that does not fit its type (`ValidationError`): where, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeError {
    pub side: Side,
    pub message: String,
}

/// `TypedValue.Merge`: `rhs` applied over `lhs` — maps merged by key, associative lists by
/// item (in the order `merge.go` gives them), everything else replaced. A list item without
/// its key, or a key the configuration repeats, stops the merge, as upstream's typed
/// conversion refuses such objects.
pub fn merge(types: &Types<'_>, ty: Ty<'_>, lhs: &Value, rhs: &Value) -> Result<Value, MergeError> {
    Ok(merge_value(types, ty, Some(lhs), Some(rhs), &mut Vec::new())?.unwrap_or(Value::Null))
}

fn merge_value(
    types: &Types<'_>,
    ty: Ty<'_>,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    path: &mut Vec<PathElement>,
) -> Result<Option<Value>, MergeError> {
    let left = types.shape(ty, lhs);
    let right = types.shape(ty, rhs);
    let shape = if rhs.is_none() { left } else { right };
    Ok(match shape {
        Shape::Scalar | Shape::Invalid => rhs.or(lhs).cloned(),
        Shape::List(list) => {
            let l = lhs.and_then(Value::as_array);
            let r = rhs.and_then(Value::as_array);
            let empty = l.is_none_or(Vec::is_empty) && r.is_none_or(Vec::is_empty);
            if list.kind == ListKind::Atomic || empty {
                return Ok(rhs.or(lhs).cloned());
            }
            if l.is_none() && r.is_none() {
                return Ok(None);
            }
            let out = merge_list(types, &list, l, r, path)?;
            (!out.is_empty()).then_some(Value::Array(out))
        }
        Shape::Map(map) => {
            let l = lhs.and_then(Value::as_object);
            let r = rhs.and_then(Value::as_object);
            let empty = l.is_none_or(Map::is_empty) && r.is_none_or(Map::is_empty);
            if map.atomic || empty {
                return Ok(rhs.or(lhs).cloned());
            }
            if l.is_none() && r.is_none() {
                return Ok(None);
            }
            let mut out = Map::new();
            let keys = l.into_iter().flat_map(Map::keys).chain(
                r.into_iter()
                    .flat_map(Map::keys)
                    .filter(|k| !l.is_some_and(|l| l.contains_key(*k))),
            );
            for key in keys {
                path.push(PathElement::Field(key.clone()));
                let merged = merge_value(
                    types,
                    map.field_or_elem(key),
                    l.and_then(|m| m.get(key)),
                    r.and_then(|m| m.get(key)),
                    path,
                );
                path.pop();
                if let Some(v) = merged? {
                    out.insert(key.clone(), v);
                }
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
    })
}

/// The items of one side of a list merge, each with its path element, and each element's item
/// (`None` for one the live object repeats); `indexListPathElements`.
type Indexed = (Vec<PathElement>, BTreeMap<PathElement, Option<Value>>);

fn index_items(
    types: &Types<'_>,
    list: &ListType<'_>,
    items: Option<&Vec<Value>>,
    side: Side,
    path: &[PathElement],
) -> Result<Indexed, MergeError> {
    let fail = |message: String| MergeError {
        side,
        message: format!("{}: {message}", super::path::path_string(path)),
    };
    let mut pes = Vec::new();
    let mut observed: BTreeMap<PathElement, Option<Value>> = BTreeMap::new();
    for (i, item) in items.into_iter().flatten().enumerate() {
        let pe = item_element(types, list, item).map_err(|e| fail(format!("element {i}: {e}")))?;
        match observed.get_mut(&pe) {
            // The live object may repeat a key (it is observed as absent); a configuration may not.
            Some(_) if side == Side::Config => {
                return Err(fail(format!("duplicate entries for key {pe}")))
            }
            Some(slot) => *slot = None,
            None => {
                observed.insert(pe.clone(), Some(item.clone()));
            }
        }
        pes.push(pe);
    }
    Ok((pes, observed))
}

/// `mergingWalker.visitListItems`: the live items in their order, each item the configuration
/// shares placed where the configuration has it, new items after the shared item they follow.
fn merge_list(
    types: &Types<'_>,
    list: &ListType<'_>,
    lhs: Option<&Vec<Value>>,
    rhs: Option<&Vec<Value>>,
    path: &mut Vec<PathElement>,
) -> Result<Vec<Value>, MergeError> {
    let (rhs_pes, observed_rhs) = index_items(types, list, rhs, Side::Config, path)?;
    let (lhs_pes, observed_lhs) = index_items(types, list, lhs, Side::Live, path)?;
    let mut shared: std::collections::VecDeque<&PathElement> = rhs_pes
        .iter()
        .filter(|pe| observed_lhs.contains_key(*pe))
        .collect();
    let mut next_shared = shared.pop_front();
    let mut merged_rhs: BTreeSet<PathElement> = BTreeSet::new();
    let mut out = Vec::new();
    let item = |observed: &BTreeMap<PathElement, Option<Value>>, pe: &PathElement| {
        observed.get(pe).cloned().flatten()
    };
    let mut merge_item =
        |pe: &PathElement, l: Option<&Value>, r: Option<&Value>, out: &mut Vec<Value>| {
            path.push(pe.clone());
            let merged = merge_value(types, list.elem, l, r, path);
            path.pop();
            merged.map(|v| out.extend(v))
        };
    let (mut li, mut ri) = (0, 0);
    while li < lhs_pes.len() || ri < rhs_pes.len() {
        if li < lhs_pes.len() && ri < rhs_pes.len() {
            let pe = &lhs_pes[li];
            if *pe == rhs_pes[ri] {
                merged_rhs.insert(pe.clone());
                let (l, r) = (item(&observed_lhs, pe), item(&observed_rhs, pe));
                merge_item(pe, l.as_ref(), r.as_ref(), &mut out)?;
                li += 1;
                ri += 1;
                next_shared = shared.pop_front();
                continue;
            }
            if observed_rhs.contains_key(pe) && next_shared.is_some_and(|n| n != pe) {
                li += 1;
                continue;
            }
        }
        if li < lhs_pes.len() {
            let pe = &lhs_pes[li];
            if !observed_rhs.contains_key(pe) {
                // Every live item has its element (an error stopped the merge otherwise), so
                // `li` is the item's own index.
                let l = lhs.and_then(|items| items.get(li));
                merge_item(pe, l, None, &mut out)?;
                li += 1;
                continue;
            } else if merged_rhs.contains(pe) {
                li += 1;
            }
        }
        if ri < rhs_pes.len() {
            let pe = &rhs_pes[ri];
            merged_rhs.insert(pe.clone());
            let (l, r) = (item(&observed_lhs, pe), item(&observed_rhs, pe));
            merge_item(pe, l.as_ref(), r.as_ref(), &mut out)?;
            ri += 1;
            if next_shared.is_some_and(|n| n == pe) {
                next_shared = shared.pop_front();
            }
        }
    }
    Ok(out)
}

/// `TypedValue.RemoveItems`: `value` without the paths of `remove` (a member takes its whole
/// subtree). A list or map left empty becomes null, as in `remove.go`.
pub fn remove_items(types: &Types<'_>, ty: Ty<'_>, value: &Value, remove: &Set) -> Value {
    match types.shape(ty, Some(value)) {
        Shape::Scalar | Shape::Invalid => value.clone(),
        Shape::List(list) => {
            let Value::Array(items) = value else {
                return Value::Null;
            };
            if items.is_empty() || list.kind == ListKind::Atomic {
                return Value::Null;
            }
            let mut out = Vec::new();
            for item in items {
                let Ok(pe) = item_element(types, &list, item) else {
                    out.push(item.clone());
                    continue;
                };
                if remove.has_member(&pe) {
                    continue;
                }
                match remove.with_prefix(&pe) {
                    Some(below) => out.push(remove_items(types, list.elem, item, below)),
                    None => out.push(item.clone()),
                }
            }
            if out.is_empty() {
                Value::Null
            } else {
                Value::Array(out)
            }
        }
        Shape::Map(map) => {
            let Value::Object(entries) = value else {
                return Value::Null;
            };
            if entries.is_empty() || map.atomic {
                return Value::Null;
            }
            let mut out = Map::new();
            for (key, child) in entries {
                let pe = PathElement::Field(key.clone());
                if remove.has_member(&pe) {
                    continue;
                }
                let kept = match remove.with_prefix(&pe) {
                    Some(below) => remove_items(types, map.field_or_elem(key), child, below),
                    None => child.clone(),
                };
                out.insert(key.clone(), kept);
            }
            if out.is_empty() {
                Value::Null
            } else {
                Value::Object(out)
            }
        }
    }
}

/// `EnsureNamedFieldsAreMembers`: `set` with every declared struct field that has paths below
/// it made a member too, so that removing it takes the field itself.
pub fn ensure_named_fields_are_members(types: &Types<'_>, ty: Ty<'_>, set: &Set) -> Set {
    let atom = types.atom(ty);
    let mut members = set.members().clone();
    let mut children = BTreeMap::new();
    for (pe, child) in set.children() {
        let child_ty = match (pe, &atom.map, &atom.list) {
            (PathElement::Field(name), Some(map), _) => {
                if map.declares(name) {
                    members.insert(pe.clone());
                }
                map.field_or_elem(name)
            }
            (PathElement::Key(_), _, Some(list)) => list.elem,
            _ => Ty::Missing,
        };
        children.insert(
            pe.clone(),
            ensure_named_fields_are_members(types, child_ty, child),
        );
    }
    Set::from_parts(members, children)
}

/// The value a Go zero object of the type encodes to, which an object's creation is compared
/// against: the structs it always has (`default: {}`), and its fields without `omitempty`
/// (OpenAPI `required`) as their zero values.
pub fn zero(types: &Types<'_>, ty: Ty<'_>) -> Value {
    let Some(map) = types.atom(ty).map.filter(|m| m.fields.is_some()) else {
        return Value::Object(Map::new());
    };
    let mut out = Map::new();
    if matches!(
        ty,
        Ty::Named {
            name: OBJECT_META,
            ..
        }
    ) {
        // Go's `metav1.Time` encodes its zero as null, omitempty or not.
        out.insert("creationTimestamp".into(), Value::Null);
    }
    for (name, field) in map.fields.into_iter().flatten() {
        let struct_default = field
            .get("default")
            .is_some_and(|d| d.as_object().is_some_and(Map::is_empty));
        if struct_default {
            out.insert(name.clone(), zero(types, map.field_or_elem(name)));
        } else if map.required(name) {
            out.insert(name.clone(), scalar_zero(types, map.field_or_elem(name)));
        }
    }
    Value::Object(out)
}

/// A required field's zero: `""`, `0`, `false`, or null for pointers, lists and maps.
fn scalar_zero(types: &Types<'_>, ty: Ty<'_>) -> Value {
    let atom = types.atom(ty);
    if atom.map.is_some() || atom.list.is_some() || !atom.scalar {
        return Value::Null;
    }
    match ty {
        Ty::Inline { schema, .. } => match schema.get("type").and_then(Value::as_str) {
            Some("string") if schema.get("format").and_then(Value::as_str) != Some("date-time") => {
                Value::from("")
            }
            Some("integer" | "number") => Value::from(0),
            Some("boolean") => Value::from(false),
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}
