//! Strategic merge patch, the server half: `strategicpatch.StrategicMergeMapPatch` from
//! k8s.io/apimachinery `pkg/util/strategicpatch/patch.go`, with `MergeParallelList` and
//! `IgnoreUnmatchedNulls` set as the API server sets them.
//!
//! The functions mirror their Go namesakes one for one, including the order in which lists come
//! out (`normalizeElementOrder`, `mergeSortedSlice`, Go's stable sort) and the error texts, because
//! kubectl shows both to the user. Go maps are unordered; where Go iterates a map this follows the
//! patch's key order.

mod errors;
mod order;
mod schema;

pub use errors::SmpError;
pub use schema::{
    Schema, Strategy, API_SERVICE, CONTROLLER_REVISION, CRON_JOB, CSI_NODE, META_ONLY, NAMESPACE,
    NODE, POD, POD_DISRUPTION_BUDGET, POD_TEMPLATE, SERVICE, SERVICE_ACCOUNT, WORKLOAD,
};

use serde_json::{Map, Value};

use crate::gofmt::go_v;
use errors::{
    err_bad_arg_type, err_bad_patch_type, err_no_merge_key, Result,
    ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST, ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS,
    ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST, ERR_NO_LIST_OF_LISTS, MAP_TYPE, SLICE_TYPE,
};
use order::{
    extract_to_delete_items, normalize_element_order, partition_maps_by_present_in_list,
    partition_primitives_by_present_in_list,
};
use schema::PatchMeta;

const DIRECTIVE_MARKER: &str = "$patch";
const DELETE_DIRECTIVE: &str = "delete";
const REPLACE_DIRECTIVE: &str = "replace";
const MERGE_DIRECTIVE: &str = "merge";
const RETAIN_KEYS_DIRECTIVE: &str = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST_PREFIX: &str = "$deleteFromPrimitiveList";
const SET_ELEMENT_ORDER_PREFIX: &str = "$setElementOrder";

/// Go's dynamic type of a decoded JSON value (`reflect.TypeOf`); integers decode as int64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GoType {
    Map,
    Slice,
    String,
    Int,
    Float,
    Bool,
    Nil,
}

fn go_kind(v: &Value) -> GoType {
    match v {
        Value::Object(_) => GoType::Map,
        Value::Array(_) => GoType::Slice,
        Value::String(_) => GoType::String,
        Value::Number(n) if n.as_i64().is_some() => GoType::Int,
        Value::Number(_) => GoType::Float,
        Value::Bool(_) => GoType::Bool,
        Value::Null => GoType::Nil,
    }
}

/// `StrategicMergeMapPatch(original, patch, schema)`.
pub fn apply(
    original: &Value,
    patch: Map<String, Value>,
    schema: &'static Schema,
) -> Result<Value> {
    let original = match original {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    merge_map(original, patch, schema).map(Value::Object)
}

/// `mergeMap`: merge the fields of `patch` into `original`.
fn merge_map(
    mut original: Map<String, Value>,
    mut patch: Map<String, Value>,
    schema: &'static Schema,
) -> Result<Map<String, Value>> {
    if let Some(directive) = patch.get(DIRECTIVE_MARKER).cloned() {
        return handle_directive_in_merge_map(&directive, patch);
    }
    apply_retain_keys_directive(&mut original, &mut patch)?;
    // `$setElementOrder` lists and the lists they order are merged first and leave the patch.
    merge_patch_into_original(&mut original, &mut patch, schema)?;

    for (patch_key, patch_v) in patch {
        // `preprocessDeletionListForMerging`: a parallel deletion list acts on the list it names.
        let (key, is_delete_list) = if patch_key.starts_with(DELETE_FROM_PRIMITIVE_LIST_PREFIX) {
            let key = extract_key(&patch_key, DELETE_FROM_PRIMITIVE_LIST_PREFIX)?;
            (if key.is_empty() { patch_key } else { key }, true)
        } else {
            (patch_key, false)
        };

        // null deletes the key; unmatched nulls are ignored (IgnoreUnmatchedNulls).
        if patch_v.is_null() {
            original.shift_remove(&key);
            continue;
        }

        let same_type = original
            .get(&key)
            .is_some_and(|orig| go_kind(orig) == go_kind(&patch_v));
        if !same_type {
            // Absent from the original, or of another type: take the patch value as it is, minus
            // nulls and directives. A deletion list never adds anything.
            if !is_delete_list {
                set_without_directives(&mut original, key, patch_v);
            }
            continue;
        }

        let orig_v = original
            .get_mut(&key)
            .map(std::mem::take)
            .unwrap_or_default();
        let merged = match (orig_v, patch_v) {
            (Value::Object(o), Value::Object(p)) => {
                let meta = schema.lookup(&key).map_err(SmpError::Other)?;
                Value::Object(merge_map_handler(o, p, meta)?)
            }
            (Value::Array(o), Value::Array(p)) => {
                let meta = schema.lookup(&key).map_err(SmpError::Other)?;
                Value::Array(merge_slice_handler(o, p, meta, is_delete_list)?)
            }
            (_, p) => {
                set_without_directives(&mut original, key, p);
                continue;
            }
        };
        original.insert(key, merged);
    }
    Ok(original)
}

/// `original[k], ok = removeDirectives(patchV)` after `discardNullValuesFromPatch(patchV)`.
fn set_without_directives(original: &mut Map<String, Value>, key: String, mut v: Value) {
    discard_null_values(&mut v);
    match remove_directives(v) {
        Some(v) => {
            original.insert(key, v);
        }
        None => {
            original.shift_remove(&key);
        }
    }
}

/// `handleDirectiveInMergeMap`: `$patch: replace` takes the patch map as is, `$patch: delete`
/// empties the map; anything else is an unknown patch type.
fn handle_directive_in_merge_map(
    directive: &Value,
    mut patch: Map<String, Value>,
) -> Result<Map<String, Value>> {
    match directive.as_str() {
        Some(REPLACE_DIRECTIVE) => {
            patch.shift_remove(DIRECTIVE_MARKER);
            Ok(patch)
        }
        Some(DELETE_DIRECTIVE) => Ok(Map::new()),
        _ => Err(err_bad_patch_type(directive, &patch)),
    }
}

/// `mergeMapHandler`.
fn merge_map_handler(
    original: Map<String, Value>,
    patch: Map<String, Value>,
    meta: PatchMeta,
) -> Result<Map<String, Value>> {
    if meta.strategy == Strategy::Replace {
        Ok(patch)
    } else {
        merge_map(original, patch, meta.schema)
    }
}

/// `mergeSliceHandler`: merge lists tagged `merge` (and deletion lists whatever the tag), replace
/// the others.
fn merge_slice_handler(
    original: Vec<Value>,
    patch: Vec<Value>,
    meta: PatchMeta,
    is_delete_list: bool,
) -> Result<Vec<Value>> {
    if meta.strategy == Strategy::Merge || is_delete_list {
        merge_slice(original, patch, meta.schema, meta.merge_key, is_delete_list)
    } else {
        Ok(patch)
    }
}

/// `mergeSlice`.
fn merge_slice(
    original: Vec<Value>,
    patch: Vec<Value>,
    schema: &'static Schema,
    merge_key: &str,
    is_delete_list: bool,
) -> Result<Vec<Value>> {
    merge_slice_aliased(original, patch, schema, merge_key, is_delete_list)
        .map(|(merged, _)| merged)
}

/// A Go slice over a backing array the caller still sees: `append(s[:i], s[i+1:]...)` shifts the
/// shared array in place and a later `append` writes into the freed slots. Upstream's
/// `mergePatchIntoOriginal` keeps using its own (full-length) header of the original list after
/// `mergeSlice` did this, so the order it computes depends on these in-place edits.
struct GoSlice {
    buf: Vec<Value>,
    len: usize,
}

impl GoSlice {
    fn new(items: Vec<Value>) -> Self {
        let len = items.len();
        Self { buf: items, len }
    }

    fn items(&self) -> &[Value] {
        &self.buf[..self.len]
    }

    /// `s = append(s[:i], s[i+1:]...)`: the last slot keeps its stale value.
    fn delete(&mut self, i: usize) {
        for k in i..self.len - 1 {
            self.buf[k] = self.buf[k + 1].clone();
        }
        self.len -= 1;
    }

    /// `s = append(s, v)`: within capacity (the original length) it overwrites the backing array.
    fn push(&mut self, v: Value) {
        if self.len < self.buf.len() {
            self.buf[self.len] = v;
        } else {
            self.buf.push(v);
        }
        self.len += 1;
    }
}

/// `mergeSlice`, also returning what a caller's header of `original` (same length, same backing
/// array) reads afterwards.
fn merge_slice_aliased(
    original: Vec<Value>,
    patch: Vec<Value>,
    schema: &'static Schema,
    merge_key: &str,
    is_delete_list: bool,
) -> Result<(Vec<Value>, Vec<Value>)> {
    if original.is_empty() && patch.is_empty() {
        return Ok((original.clone(), original));
    }
    let kind = slice_element_type(&[&original, &patch])?;
    let n = original.len();

    let (server_order, patch, merged, view) = if kind != GoType::Map {
        if is_delete_list {
            return Ok((delete_from_slice(original.clone(), &patch), original));
        }
        let mut both = original.clone();
        both.extend(patch.iter().cloned());
        let merged = deduplicate_scalars(both);
        (original.clone(), patch, merged, original)
    } else {
        if merge_key.is_empty() {
            // `schema.Name()` of PatchMetaFromStruct is the element's reflect.Kind: lists of
            // objects are lists of structs.
            return Err(SmpError::Other(
                "cannot merge lists without merge key for struct".to_string(),
            ));
        }
        let mut shared = GoSlice::new(original);
        match merge_slice_with_special_elements(&mut shared, patch, merge_key)? {
            // `$patch: replace`: the patch items become the list; nothing is left to merge.
            SpecialElements::Replace(items) => {
                let view = shared.buf[..n].to_vec();
                (items.clone(), Vec::new(), items, view)
            }
            SpecialElements::Merge(patch) => {
                let post_deletion_len = shared.len;
                merge_slice_without_special_elements(&mut shared, &patch, merge_key, schema)?;
                let merged = shared.items().to_vec();
                let server_order = shared.buf[..post_deletion_len].to_vec();
                let view = shared.buf[..n].to_vec();
                (server_order, patch, merged, view)
            }
        }
    };

    // Enforce the order: patch items in patch order, server-only items kept around them.
    let (patch_items, server_only) = if merge_key.is_empty() {
        partition_primitives_by_present_in_list(merged, &patch)
    } else {
        partition_maps_by_present_in_list(merged, &patch, merge_key)?
    };
    let ordered = normalize_element_order(
        patch_items,
        server_only,
        &patch,
        &server_order,
        merge_key,
        kind,
    )?;
    Ok((ordered, view))
}

/// What `mergeSliceWithSpecialElements` leaves to merge.
enum SpecialElements {
    /// The patch items without directive items, to merge into the original.
    Merge(Vec<Value>),
    /// `$patch: replace` was present: these items are the new list.
    Replace(Vec<Value>),
}

/// `mergeSliceWithSpecialElements`: apply `$patch: delete` items (in place) and detect
/// `$patch: replace`.
fn merge_slice_with_special_elements(
    original: &mut GoSlice,
    patch: Vec<Value>,
    merge_key: &str,
) -> Result<SpecialElements> {
    let mut without_special = Vec::new();
    let mut replace = false;
    for v in patch {
        let Value::Object(item) = &v else {
            // Unreachable: the caller checked that every element is a map.
            without_special.push(v);
            continue;
        };
        let Some(directive) = item.get(DIRECTIVE_MARKER) else {
            without_special.push(v);
            continue;
        };
        match directive.as_str() {
            Some(DELETE_DIRECTIVE) => match item.get(merge_key) {
                Some(value) => delete_matching_entries(original, merge_key, value)?,
                None => return Err(err_no_merge_key(item, merge_key)),
            },
            // Keep going to prune any other directive items.
            Some(REPLACE_DIRECTIVE) => replace = true,
            Some(MERGE_DIRECTIVE) => {
                return Err(SmpError::Other(
                    "merging lists cannot yet be specified in the patch".to_string(),
                ))
            }
            _ => return Err(err_bad_patch_type(directive, item)),
        }
    }
    Ok(if replace {
        SpecialElements::Replace(without_special)
    } else {
        SpecialElements::Merge(without_special)
    })
}

/// `deleteMatchingEntries`: drop every item whose merge key has this value.
fn delete_matching_entries(original: &mut GoSlice, merge_key: &str, value: &Value) -> Result<()> {
    while let Some(i) = find_map_in_slice(original.items(), merge_key, value)? {
        original.delete(i);
    }
    Ok(())
}

/// `mergeSliceWithoutSpecialElements`: merge items with a matching key, append the others.
fn merge_slice_without_special_elements(
    original: &mut GoSlice,
    patch: &[Value],
    merge_key: &str,
    schema: &'static Schema,
) -> Result<()> {
    for v in patch {
        let Value::Object(item) = v else { continue };
        let Some(value) = item.get(merge_key) else {
            return Err(err_no_merge_key(item, merge_key));
        };
        match find_map_in_slice(original.items(), merge_key, value)? {
            Some(i) => {
                let orig = match std::mem::take(&mut original.buf[i]) {
                    Value::Object(m) => m,
                    _ => Map::new(),
                };
                original.buf[i] = Value::Object(merge_map(orig, item.clone(), schema)?);
            }
            None => original.push(v.clone()),
        }
    }
    Ok(())
}

/// `deleteFromSlice`: remove the scalars listed in a parallel deletion list.
fn delete_from_slice(current: Vec<Value>, to_delete: &[Value]) -> Vec<Value> {
    current
        .into_iter()
        .filter(|v| !to_delete.contains(v))
        .collect()
}

/// `findMapInSliceBasedOnKeyValue`.
fn find_map_in_slice(list: &[Value], key: &str, value: &Value) -> Result<Option<usize>> {
    for (i, v) in list.iter().enumerate() {
        let Value::Object(m) = v else {
            return Err(SmpError::Other(format!("value for key {i} is not a map.")));
        };
        if m.get(key) == Some(value) {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// `sliceElementType`: all elements of all lists must share one Go type, which is not a list.
fn slice_element_type(lists: &[&[Value]]) -> Result<GoType> {
    let mut prev: Option<GoType> = None;
    for v in lists.iter().flat_map(|l| l.iter()) {
        let t = go_kind(v);
        match prev {
            None => {
                if t == GoType::Slice {
                    return Err(SmpError::Unprocessable(ERR_NO_LIST_OF_LISTS));
                }
                prev = Some(t);
            }
            Some(p) if p != t => {
                let all = Value::Array(lists.iter().map(|l| Value::Array(l.to_vec())).collect());
                return Err(SmpError::Other(format!(
                    "list element types are not identical: {}",
                    go_v(&all)
                )));
            }
            Some(_) => {}
        }
    }
    prev.ok_or_else(|| SmpError::Other("no elements in any of the given slices".to_string()))
}

/// `deduplicateScalars`, including its habit of moving the last element into a duplicate's slot.
fn deduplicate_scalars(mut s: Vec<Value>) -> Vec<Value> {
    let mut length = s.len() as isize - 1;
    let mut i: isize = 0;
    while i < length {
        let mut j = i + 1;
        while j <= length {
            if s[i as usize] == s[j as usize] {
                s[j as usize] = s[length as usize].clone();
                s.truncate(length as usize);
                length -= 1;
                j -= 1;
            }
            j += 1;
        }
        i += 1;
    }
    s
}

fn contains_directive_marker(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| m.contains_key(DIRECTIVE_MARKER))
}

/// `mergeKeyValueEqual`.
fn merge_key_value_equal(left: &Value, right: &Value, merge_key: &str) -> Result<bool> {
    if merge_key.is_empty() {
        return Ok(left == right);
    }
    let Value::Object(l) = left else {
        return Err(err_bad_arg_type(MAP_TYPE, left));
    };
    let Value::Object(r) = right else {
        return Err(err_bad_arg_type(MAP_TYPE, right));
    };
    let lv = l
        .get(merge_key)
        .ok_or_else(|| err_no_merge_key(l, merge_key))?;
    let rv = r
        .get(merge_key)
        .ok_or_else(|| err_no_merge_key(r, merge_key))?;
    Ok(lv == rv)
}

/// `extractKey`: the list name after `<prefix>/`.
fn extract_key(s: &str, prefix: &str) -> Result<String> {
    match s.split_once('/') {
        Some((head, rest)) if head == prefix => Ok(rest.to_string()),
        _ => Err(if prefix == DELETE_FROM_PRIMITIVE_LIST_PREFIX {
            SmpError::BadRequest(ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST)
        } else if prefix == SET_ELEMENT_ORDER_PREFIX {
            SmpError::BadRequest(ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST)
        } else {
            SmpError::Other(format!("fail to find unknown prefix {prefix:?} in {s}\n"))
        }),
    }
}

/// `validatePatchWithSetOrderList`: the patch list's items must appear in the `$setElementOrder`
/// list, in the same relative order (deletions aside).
fn validate_patch_with_set_order_list(
    patch_list: &[Value],
    set_order: &[Value],
    merge_key: &str,
) -> Result<()> {
    if set_order.is_empty() || patch_list.is_empty() {
        return Ok(());
    }
    let non_delete = if merge_key.is_empty() {
        patch_list.to_vec()
    } else {
        extract_to_delete_items(patch_list.to_vec())?.0
    };
    let (mut pi, mut si) = (0, 0);
    while pi < non_delete.len() && si < set_order.len() {
        if contains_directive_marker(&non_delete[pi]) {
            pi += 1;
            continue;
        }
        if merge_key_value_equal(&non_delete[pi], &set_order[si], merge_key)? {
            pi += 1;
        }
        si += 1;
    }
    if pi < non_delete.len() && si >= set_order.len() {
        return Err(SmpError::Other(format!(
            "The order in patch list:\n{}\n doesn't match {SET_ELEMENT_ORDER_PREFIX} list:\n{}\n",
            go_v(&Value::Array(patch_list.to_vec())),
            go_v(&Value::Array(set_order.to_vec()))
        )));
    }
    Ok(())
}

/// `applyRetainKeysDirective`: drop the original's fields missing from `$retainKeys`, after
/// checking that the patch sets no field outside it.
fn apply_retain_keys_directive(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
) -> Result<()> {
    let Some(retain) = patch.shift_remove(RETAIN_KEYS_DIRECTIVE) else {
        return Ok(());
    };
    let Value::Array(retain) = retain else {
        return Err(SmpError::BadRequest(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS));
    };
    let retained = |k: &str| retain.iter().any(|v| v.as_str() == Some(k));
    for (k, v) in patch.iter() {
        if v.is_null()
            || k.starts_with(DELETE_FROM_PRIMITIVE_LIST_PREFIX)
            || k.starts_with(SET_ELEMENT_ORDER_PREFIX)
        {
            continue;
        }
        if !retained(k) {
            return Err(SmpError::BadRequest(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS));
        }
    }
    original.retain(|k, _| retained(k));
    Ok(())
}

/// `mergePatchIntoOriginal`: merge each list that has a `$setElementOrder/<list>` directive and
/// order it as the directive says (then the patch order, then the live order).
fn merge_patch_into_original(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
    schema: &'static Schema,
) -> Result<()> {
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER_PREFIX))
        .cloned()
        .collect();
    for key in keys {
        let Some(set_order) = patch.shift_remove(&key) else {
            continue;
        };
        let Value::Array(set_order) = set_order else {
            return Err(err_bad_arg_type(SLICE_TYPE, &set_order));
        };
        let list_key = extract_key(&key, SET_ELEMENT_ORDER_PREFIX)?;
        let original_list = list_of(original.get(&list_key))?;
        let patch_list = list_of(patch.get(&list_key))?;
        let meta = schema.lookup(&list_key).map_err(SmpError::Other)?;
        validate_patch_with_set_order_list(
            patch_list.as_deref().unwrap_or_default(),
            &set_order,
            meta.merge_key,
        )?;

        // `merged`, and what upstream's header of the original list reads after merging (see
        // `GoSlice`): it is the "live order" the result is sorted by.
        let (merged, original_view) = match (&original_list, &patch_list) {
            // No change to the list's contents, only its order.
            (Some(o), None) => (o.clone(), o.clone()),
            (None, Some(p)) => match remove_directives(Value::Array(p.clone())) {
                Some(Value::Array(list)) => (list, Vec::new()),
                _ => continue,
            },
            (Some(o), Some(p)) if meta.strategy == Strategy::Merge => {
                merge_slice_aliased(o.clone(), p.clone(), meta.schema, meta.merge_key, false)?
            }
            (Some(o), Some(p)) => (p.clone(), o.clone()),
            (None, None) => continue,
        };

        let (patch_items, server_only) = if meta.merge_key.is_empty() {
            partition_primitives_by_present_in_list(merged, &set_order)
        } else {
            partition_maps_by_present_in_list(merged, &set_order, meta.merge_key)?
        };
        let kind =
            slice_element_type(&[&original_view, patch_list.as_deref().unwrap_or_default()])?;
        let ordered = normalize_element_order(
            patch_items,
            server_only,
            &set_order,
            &original_view,
            meta.merge_key,
            kind,
        )?;
        original.insert(list_key.clone(), Value::Array(ordered));
        patch.shift_remove(&list_key);
    }
    Ok(())
}

/// The list at a key, if present; a non-list is `ErrBadArgType`.
fn list_of(v: Option<&Value>) -> Result<Option<Vec<Value>>> {
    match v {
        None => Ok(None),
        Some(Value::Array(list)) => Ok(Some(list.clone())),
        Some(other) => Err(err_bad_arg_type(SLICE_TYPE, other)),
    }
}

/// `removeDirectives`: strip `$patch` maps and list items from a value the original lacks;
/// `None` when the value itself is a directive map.
fn remove_directives(v: Value) -> Option<Value> {
    match v {
        Value::Object(m) => {
            if m.contains_key(DIRECTIVE_MARKER) {
                return None;
            }
            let cleaned = m
                .into_iter()
                .filter_map(|(k, v)| remove_directives(v).map(|v| (k, v)))
                .collect();
            Some(Value::Object(cleaned))
        }
        Value::Array(items) => Some(Value::Array(
            items.into_iter().filter_map(remove_directives).collect(),
        )),
        other => Some(other),
    }
}

/// `discardNullValuesFromPatch`: drop null fields at any depth (null list items stay).
fn discard_null_values(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, v| !v.is_null());
            m.values_mut().for_each(discard_null_values);
        }
        Value::Array(items) => items.iter_mut().for_each(discard_null_values),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
