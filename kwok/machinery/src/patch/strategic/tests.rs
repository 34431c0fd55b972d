//! Cases ported from k8s.io/apimachinery `pkg/util/strategicpatch/patch_test.go` (the apply side:
//! `twoWay` applied to `original` gives `modified`/`twoWayResult`, `threeWay` applied to `current`
//! gives `result`), run against the same `MergeItem` test type.

use serde_json::{json, Value};

use super::schema::{Field, Schema, Strategy, UNTAGGED};
use super::{apply, SmpError};

const fn field(
    name: &'static str,
    strategy: Strategy,
    key: &'static str,
    schema: &'static Schema,
) -> Field {
    Field {
        name,
        strategy,
        merge_key: key,
        schema,
    }
}

/// `MergeItem` of patch_test.go.
static MERGE_ITEM: Schema = Schema::Struct(&[
    field("mergingList", Strategy::Merge, "name", &MERGE_ITEM),
    field("nonMergingList", Strategy::Default, "", &MERGE_ITEM),
    field("mergingIntList", Strategy::Merge, "", &UNTAGGED),
    field("nonMergingIntList", Strategy::Default, "", &UNTAGGED),
    field("mergeItemPtr", Strategy::Merge, "name", &MERGE_ITEM),
    field("replacingItem", Strategy::Replace, "", &UNTAGGED),
    field(
        "retainKeysMap",
        Strategy::Default,
        "",
        &RETAIN_KEYS_MERGE_ITEM,
    ),
    field(
        "retainKeysMergingList",
        Strategy::Merge,
        "name",
        &MERGE_ITEM,
    ),
]);

/// `RetainKeysMergeItem` of patch_test.go.
static RETAIN_KEYS_MERGE_ITEM: Schema = Schema::Struct(&[
    field("mergingIntList", Strategy::Merge, "", &UNTAGGED),
    field("mergingList", Strategy::Merge, "name", &MERGE_ITEM),
    field("nonMergingList", Strategy::Default, "", &MERGE_ITEM),
]);

fn yaml(s: &str) -> Value {
    let v: Value = serde_yaml::from_str(s).expect("test YAML");
    if v.is_null() {
        json!({})
    } else {
        v
    }
}

fn run(original: &str, patch: &str) -> Result<Value, SmpError> {
    let Value::Object(patch) = yaml(patch) else {
        panic!("test patch must be a map")
    };
    apply(&yaml(original), patch, &MERGE_ITEM)
}

/// Apply and compare, list order included (the raw upstream cases compare JSON bytes).
#[track_caller]
fn check(original: &str, patch: &str, expected: &str) {
    let got = run(original, patch).expect("patch applies");
    let want = yaml(expected);
    assert_eq!(
        serde_json::to_string(&crate::go_json::sorted_keys(&got)).unwrap(),
        serde_json::to_string(&crate::go_json::sorted_keys(&want)).unwrap()
    );
}

#[track_caller]
fn check_err(original: &str, patch: &str, contains: &str) {
    match run(original, patch) {
        Err(SmpError::Other(msg)) => assert!(msg.contains(contains), "{msg}"),
        other => panic!("expected an error containing {contains:?}, got {other:?}"),
    }
}

#[test]
fn unique_scalars_when_merging_lists() {
    check(
        "mergingIntList: [1, 2]",
        "mergingIntList: [2, 3]",
        "mergingIntList: [1, 2, 3]",
    );
}

#[test]
fn delete_map_from_nested_map() {
    check(
        "simpleMap: {key1: 1, key2: 1}",
        "simpleMap: {$patch: delete}",
        "simpleMap: {}",
    );
}

#[test]
fn replace_directive_in_merging_list_and_map() {
    check(
        "mergingList: [{name: 1}, {name: 2}]",
        "mergingList: [{$patch: replace}]",
        "mergingList: []",
    );
    check("{name: 1, value: 1}", "$patch: replace", "{}");
    check(
        "{name: 1, value: 1}",
        "{other: a, $patch: replace}",
        "other: a",
    );
    check("mergingList: []", "mergingList: []", "mergingList: []");
}

#[test]
fn delete_all_duplicate_entries_in_a_merging_list() {
    check(
        "mergingList: [{name: 1}, {name: 1}, {name: 2, value: a}, {name: 3}, {name: 3}]",
        "mergingList: [{name: 1, $patch: delete}, {name: 3, $patch: delete}]",
        "mergingList: [{name: 2, value: a}]",
    );
}

#[test]
fn retain_keys_map_without_directive_merges() {
    check(
        "retainKeysMap: {name: foo}",
        "retainKeysMap: {value: bar}",
        "retainKeysMap: {name: foo, value: bar}",
    );
    check(
        "retainKeysMap: {name: foo, value: a}",
        "retainKeysMap: {value: null}",
        "retainKeysMap: {name: foo}",
    );
    check(
        "retainKeysMap: {name: foo, value: a}",
        "retainKeysMap: {}",
        "retainKeysMap: {name: foo, value: a}",
    );
}

#[test]
fn preserve_the_order_from_the_patch() {
    check(
        "mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]",
        "mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, other: x}]",
        "mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, value: b, other: x}]",
    );
    check(
        "mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]",
        "mergingList: [{name: 3, value: c}, {name: 1, value: a}]",
        "mergingList: [{name: 2, value: b}, {name: 3, value: c}, {name: 1, value: a}]",
    );
    check(
        "mergingIntList: [1, 2, 3]",
        "mergingIntList: [3, 1, 2]",
        "mergingIntList: [3, 1, 2]",
    );
    check(
        "mergingIntList: [1, 2, 3]",
        "mergingIntList: [3, 1]",
        "mergingIntList: [2, 3, 1]",
    );
}

#[test]
fn set_element_order_with_items_absent_from_the_list() {
    check(
        "mergingList: [{name: 1}, {name: 3}]",
        "{$setElementOrder/mergingList: [{name: 3}, {name: 2}, {name: 1}], \
          mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]}",
        "mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]",
    );
    check(
        "mergingIntList: [1, 3]",
        "$setElementOrder/mergingIntList: [3, 2, 1]",
        "mergingIntList: [3, 1]",
    );
}

#[test]
fn set_element_order_must_match_the_patch_order() {
    check_err(
        "mergingList: [{name: 1}, {name: 3}, {name: 2}]",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}], \
          mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]}",
        "doesn't match",
    );
    check_err(
        "mergingIntList: [1, 3, 2]",
        "{$setElementOrder/mergingIntList: [1, 2, 3], mergingIntList: [3, 1]}",
        "doesn't match",
    );
}

#[test]
fn missing_merge_key_is_an_error() {
    match run(
        "mergingList: [{name: 1, value: a}]",
        "mergingList: [{value: b}]",
    ) {
        Err(SmpError::Other(msg)) => {
            assert_eq!(
                msg,
                "map: map[value:b] does not contain declared merge key: name"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn delete_from_primitive_list() {
    check(
        "mergingIntList: [1, 2]",
        "$deleteFromPrimitiveList/mergingIntList: [3]",
        "mergingIntList: [1, 2]",
    );
    check(
        "mergingIntList:",
        "$deleteFromPrimitiveList/mergingIntList: [3]",
        "mergingIntList:",
    );
    check(
        "foo: [bar]",
        "$deleteFromPrimitiveList/mergingIntList: [3]",
        "foo: [bar]",
    );
    check(
        "mergingIntList: [1, 2, 3]",
        "$deleteFromPrimitiveList/mergingIntList: [2]",
        "mergingIntList: [1, 3]",
    );
    check(
        "nonMergingIntList: [1, 2, 3]",
        "$deleteFromPrimitiveList/nonMergingIntList: [2]",
        "nonMergingIntList: [1, 3]",
    );
}

#[test]
fn nested_patch_merge_with_empty_list() {
    // Two-way: the list is new, so the `$patch: delete` item is dropped.
    check(
        "name: hi",
        "mergingList: [{name: hello}, {$patch: delete, name: doesntexist}]",
        "{name: hi, mergingList: [{name: hello}]}",
    );
    // Three-way against the live object.
    check(
        "{name: hi, mergingList: [{name: hello2}]}",
        "{$setElementOrder/mergingList: [{name: hello}, {name: doesntexist}], \
          mergingList: [{name: hello}, {$patch: delete, name: doesntexist}]}",
        "{name: hi, mergingList: [{name: hello}, {name: hello2}]}",
    );
}

#[test]
fn delete_and_add_items_in_lists_of_scalars() {
    check(
        "mergingIntList: [1, 2, 3, 4]",
        "{$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}",
        "mergingIntList: [1, 2, 4]",
    );
    check(
        "mergingIntList: [1, 2, 3, 3, 4]",
        "{$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}",
        "mergingIntList: [1, 2, 4]",
    );
    check(
        "mergingIntList: [1, 2, 3]",
        "{$setElementOrder/mergingIntList: [1, 2, 4], $deleteFromPrimitiveList/mergingIntList: [3], \
          mergingIntList: [4]}",
        "mergingIntList: [1, 2, 4]",
    );
}

#[test]
fn merge_lists_of_maps() {
    let patch = "{$setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}], \
                  mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]}";
    check(
        "mergingList: [{name: 1}, {name: 2, value: 2}]",
        patch,
        "mergingList: [{name: 4, value: 4}, {name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]",
    );
    check(
        "mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]",
        patch,
        "mergingList: [{name: 4, value: 4}, {name: 1, other: a}, {name: 2, value: 2, other: b}, \
         {name: 3, value: 3}]",
    );
}

#[test]
fn add_and_delete_maps_keep_server_only_items_in_place() {
    let patch = "{$setElementOrder/mergingList: [{name: 2}, {name: 3}], \
                  mergingList: [{name: 3}, {name: 1, $patch: delete}]}";
    check(
        "mergingList: [{name: 1}, {name: 2, other: b}, {name: 4, other: c}]",
        patch,
        "mergingList: [{name: 2, other: b}, {name: 4, other: c}, {name: 3}]",
    );
    check(
        "mergingList: [{name: 1, other: a}, {name: 4, other: c}]",
        "{$setElementOrder/mergingList: [{name: 2}, {name: 3}], \
          mergingList: [{name: 2}, {name: 3}, {name: 1, $patch: delete}]}",
        "mergingList: [{name: 4, other: c}, {name: 2}, {name: 3}]",
    );
    check(
        "mergingList: [{name: 3, other: a}]",
        "{$setElementOrder/mergingList: [{name: 2}], \
          mergingList: [{name: 2}, {name: 1, $patch: delete}]}",
        "mergingList: [{name: 2}, {name: 3, other: a}]",
    );
}

#[test]
fn null_deletes_and_unmatched_nulls_are_dropped() {
    check(
        "name: 2",
        "{name: 1, value: 1, other: null}",
        "{name: 1, value: 1}",
    );
    check(
        "{name: original-name, value: original-value, other: current-other}",
        "{name: modified-name, value: null}",
        "{name: modified-name, other: current-other}",
    );
    check(
        "mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1, value: null}]}",
        "mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]",
    );
}

#[test]
fn non_merging_list_nested_in_merging_list_is_replaced() {
    check(
        "mergingList: [{name: 1, other: a, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, \
         {name: 2, other: b}]",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}], \
          mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]}",
        "mergingList: [{name: 1, other: a, nonMergingList: [{name: 1, value: 1}]}, {name: 2, other: b}]",
    );
}

#[test]
fn retain_keys_in_merging_list_items() {
    let patch = "{$setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}], \
                  retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: new}]}";
    check(
        "retainKeysMergingList: [{name: bar}, {name: foo, value: modified, other: x}]",
        patch,
        "retainKeysMergingList: [{name: bar}, {name: foo, value: new}]",
    );
    check(
        "retainKeysMergingList: [{name: bar}, {name: foo, value: a, other: x}]",
        "{$setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}], \
          retainKeysMergingList: [{$retainKeys: [name], name: foo, value: null}]}",
        "retainKeysMergingList: [{name: bar}, {name: foo}]",
    );
}

#[test]
fn retain_keys_rejects_fields_outside_the_list() {
    assert_eq!(
        run(
            "retainKeysMap: {name: foo, value: a}",
            "retainKeysMap: {$retainKeys: [name], value: b}"
        ),
        Err(SmpError::BadRequest("invalid patch format of retainKeys"))
    );
    assert_eq!(
        run(
            "retainKeysMap: {name: foo}",
            "retainKeysMap: {$retainKeys: name}"
        ),
        Err(SmpError::BadRequest("invalid patch format of retainKeys"))
    );
}

#[test]
fn delete_and_reorder_in_one_list_reorder_in_another() {
    check(
        "{mergingList: [{name: a, value: a}, {name: b, value: b}], \
          mergeItemPtr: [{name: c, value: c}, {name: d, value: d}]}",
        "{$setElementOrder/mergingList: [{name: b}], \
          $setElementOrder/mergeItemPtr: [{name: d}, {name: c}], \
          mergingList: [{$patch: delete, name: a}]}",
        "{mergingList: [{name: b, value: b}], mergeItemPtr: [{name: d, value: d}, {name: c, value: c}]}",
    );
}

#[test]
fn replace_strategy_takes_the_patch_map() {
    check(
        "replacingItem: {a: 1, b: 2}",
        "replacingItem: {c: 3}",
        "replacingItem: {c: 3}",
    );
}

#[test]
fn bad_directives_fail_like_upstream() {
    assert_eq!(
        run(
            "mergingList: [{name: 1}]",
            "mergingList: [{name: 1, $patch: merge}]"
        ),
        Err(SmpError::Other(
            "merging lists cannot yet be specified in the patch".to_string()
        ))
    );
    assert_eq!(
        run("simpleMap: {a: b}", "simpleMap: {$patch: merge, a: c}"),
        Err(SmpError::Other(
            "unknown patch type: merge in map: map[$patch:merge a:c]".to_string()
        ))
    );
    assert_eq!(
        run(
            "mergingList: [{name: 1}]",
            "mergingList: [{name: 1, $patch: bogus}]"
        ),
        Err(SmpError::Other(
            "unknown patch type: bogus in map: map[$patch:bogus name:1]".to_string()
        ))
    );
    assert_eq!(
        run("mergingIntList: [1]", "$setElementOrder: [1]"),
        Err(SmpError::BadRequest(
            "invalid patch format of setElementOrder list"
        ))
    );
    assert_eq!(
        run("mergingIntList: [1]", "$deleteFromPrimitiveList: [1]"),
        Err(SmpError::BadRequest(
            "invalid patch format of primitive list"
        ))
    );
    assert_eq!(
        run("mergingIntList: [[1]]", "mergingIntList: [[2]]"),
        Err(SmpError::Unprocessable("lists of lists are not supported"))
    );
    assert_eq!(
        run("mergingIntList: [1]", "mergingIntList: [a]"),
        Err(SmpError::Other(
            "list element types are not identical: [[1] [a]]".to_string()
        ))
    );
}

#[test]
fn directives_inside_new_values_are_removed() {
    // A new key whose value carries `$patch` maps: those parts are dropped (removeDirectives),
    // nulls are discarded (discardNullValuesFromPatch).
    check(
        "name: a",
        "simpleMap: {key1: x, key2: null}",
        "{name: a, simpleMap: {key1: x}}",
    );
    check(
        "name: a",
        "retainKeysMap: {$patch: replace, name: b}",
        "name: a",
    );
}

#[test]
fn set_element_order_reorders_long_lists() {
    // More items than one insertion-sort block of Go's stable sort.
    let names: Vec<Value> = (0..45)
        .map(|i| json!({"name": format!("e{i:02}")}))
        .collect();
    let reversed: Vec<Value> = names.iter().rev().cloned().collect();
    let original = json!({"mergingList": names});
    let patch = json!({"$setElementOrder/mergingList": reversed});
    let Value::Object(patch) = patch else {
        unreachable!()
    };
    let out = apply(&original, patch, &MERGE_ITEM).unwrap();
    assert_eq!(out["mergingList"], Value::Array(reversed));
}
