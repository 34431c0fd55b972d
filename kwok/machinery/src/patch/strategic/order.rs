//! Where merged list items end up: `normalizeElementOrder` and its helpers from
//! strategicpatch/patch.go. Items named by the patch (or `$setElementOrder`) take the patch's
//! order; items only the server has keep their place relative to them.

use serde_json::Value;

use super::errors::{err_bad_arg_type, err_no_merge_key, Result, MAP_TYPE};
use super::{find_map_in_slice, GoType, DELETE_DIRECTIVE, DIRECTIVE_MARKER};
use crate::patch::go_sort::slice_stable;

/// `partitionPrimitivesByPresentInList`.
pub(super) fn partition_primitives_by_present_in_list(
    items: Vec<Value>,
    partition_by: &[Value],
) -> (Vec<Value>, Vec<Value>) {
    items.into_iter().partition(|v| partition_by.contains(v))
}

/// `partitionMapsByPresentInList`.
pub(super) fn partition_maps_by_present_in_list(
    items: Vec<Value>,
    partition_by: &[Value],
    merge_key: &str,
) -> Result<(Vec<Value>, Vec<Value>)> {
    let mut in_patch = Vec::new();
    let mut server_only = Vec::new();
    for v in items {
        let Value::Object(m) = &v else {
            return Err(err_bad_arg_type(MAP_TYPE, &v));
        };
        let Some(value) = m.get(merge_key) else {
            return Err(err_no_merge_key(m, merge_key));
        };
        if find_map_in_slice(partition_by, merge_key, value)?.is_some() {
            in_patch.push(v);
        } else {
            server_only.push(v);
        }
    }
    Ok((in_patch, server_only))
}

/// The value `index()` compares: the merge key's value for maps (nil when absent), the item itself
/// otherwise.
fn order_key<'a>(item: &'a Value, merge_key: &str, kind: GoType) -> Option<&'a Value> {
    let v = if kind == GoType::Map {
        item.as_object().and_then(|m| m.get(merge_key))
    } else {
        Some(item)
    };
    v.filter(|v| !v.is_null())
}

/// `index`: position of `value` in `list`, comparing merge keys (or the scalars themselves).
fn index(list: &[Value], value: &Value, merge_key: &str, kind: GoType) -> Option<usize> {
    let wanted = order_key(value, merge_key, kind);
    list.iter()
        .position(|v| order_key(v, merge_key, kind) == wanted)
}

/// `normalizeElementOrder`: sort the patch items by `patch_order` and the server-only items by
/// `server_order`, then interleave them.
pub(super) fn normalize_element_order(
    patch: Vec<Value>,
    server_only: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    merge_key: &str,
    kind: GoType,
) -> Result<Vec<Value>> {
    let patch = normalize_slice_order(patch, patch_order, merge_key, kind)?;
    let server_only = normalize_slice_order(server_only, server_order, merge_key, kind)?;
    Ok(merge_sorted_slice(
        server_only,
        patch,
        server_order,
        merge_key,
        kind,
    ))
}

/// `normalizeSliceOrder`: sort `to_sort` by the positions in `order` (items not in `order` compare
/// as "less", exactly as upstream), `$patch: delete` items last.
fn normalize_slice_order(
    to_sort: Vec<Value>,
    order: &[Value],
    merge_key: &str,
    kind: GoType,
) -> Result<Vec<Value>> {
    let (mut to_sort, to_delete) = if kind == GoType::Map {
        validate_merge_key_in_lists(merge_key, &[&to_sort, order])?;
        extract_to_delete_items(to_sort)?
    } else {
        (to_sort, Vec::new())
    };
    slice_stable(&mut to_sort, &mut |a, b| {
        if let Some(ia) = index(order, a, merge_key, kind) {
            if let Some(ib) = index(order, b, merge_key, kind) {
                return ia < ib;
            }
        }
        true
    });
    to_sort.extend(to_delete);
    Ok(to_sort)
}

/// `mergeSortedSlice`: insert each of `left` (server-only items) into `right` (patch items) before
/// the first item it precedes in `server_order`.
fn merge_sorted_slice(
    left: Vec<Value>,
    right: Vec<Value>,
    server_order: &[Value],
    merge_key: &str,
    kind: GoType,
) -> Vec<Value> {
    let size = left.len() + right.len();
    let mut left = left.into_iter().peekable();
    let mut right = right.into_iter().peekable();
    let mut out = Vec::with_capacity(size);
    for _ in 0..size {
        let take_left = match (left.peek(), right.peek()) {
            (None, Some(_)) => false,
            (Some(_), None) => true,
            (Some(l), Some(r)) => {
                let li = index(server_order, l, merge_key, kind);
                let ri = index(server_order, r, merge_key, kind);
                matches!((li, ri), (Some(li), Some(ri)) if li < ri)
            }
            (None, None) => break,
        };
        let next = if take_left { left.next() } else { right.next() };
        out.extend(next);
    }
    out
}

/// `validateMergeKeyInLists`: every item is a map carrying the merge key.
fn validate_merge_key_in_lists(merge_key: &str, lists: &[&[Value]]) -> Result<()> {
    for item in lists.iter().flat_map(|l| l.iter()) {
        let Value::Object(m) = item else {
            return Err(err_bad_arg_type(MAP_TYPE, item));
        };
        if !m.contains_key(merge_key) {
            return Err(err_no_merge_key(m, merge_key));
        }
    }
    Ok(())
}

fn is_delete_item(v: &Value) -> bool {
    v.get(DIRECTIVE_MARKER).and_then(Value::as_str) == Some(DELETE_DIRECTIVE)
}

/// `extractToDeleteItems`: split off the `$patch: delete` items.
pub(super) fn extract_to_delete_items(list: Vec<Value>) -> Result<(Vec<Value>, Vec<Value>)> {
    if let Some(bad) = list.iter().find(|v| !v.is_object()) {
        return Err(err_bad_arg_type(MAP_TYPE, bad));
    }
    Ok(list.into_iter().partition(|v| !is_delete_item(v)))
}
