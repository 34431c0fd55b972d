#![no_main]
//! `?labelSelector=` and `?fieldSelector=` text. A selector that parses prints as text that parses
//! to a selector with the same meaning: the same requirements for field selectors, the same
//! matches on label sets made from the selector's own keys and values for label selectors.

mod common;

use kwok::registry::RESOURCES;
use kwok::selectors::{self, FieldOp, FieldSelector, LabelSelector};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fn label_sets(sel: &LabelSelector) -> Vec<Option<Map<String, Value>>> {
    let mut sets = vec![None, Some(Map::new())];
    for r in sel.requirements() {
        for v in r.values().iter().map(String::as_str).chain(["", "0", "x"]) {
            let mut m = Map::new();
            m.insert(r.key().to_string(), Value::String(v.to_string()));
            sets.push(Some(m));
        }
    }
    sets
}

fn sorted_terms(sel: &FieldSelector) -> Vec<(String, bool, String)> {
    let mut terms: Vec<_> = sel
        .terms()
        .iter()
        .map(|t| (t.field.clone(), t.op == FieldOp::Equals, t.value.clone()))
        .collect();
    terms.sort();
    terms
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(sel) = LabelSelector::parse(&text) {
        let printed = sel.to_string();
        let again = LabelSelector::parse(&printed)
            .unwrap_or_else(|e| panic!("{text:?} printed as {printed:?}, which fails: {e}"));
        assert_eq!(again.to_string(), printed);
        for labels in label_sets(&sel) {
            assert_eq!(sel.matches(labels.as_ref()), again.matches(labels.as_ref()));
        }
    }
    if let Ok(sel) = FieldSelector::parse(&text) {
        let printed = sel.to_string();
        let again = FieldSelector::parse(&printed)
            .unwrap_or_else(|e| panic!("{text:?} printed as {printed:?}, which fails: {e}"));
        assert_eq!(sorted_terms(&again), sorted_terms(&sel));
    }
    let res = RESOURCES[data.len() % RESOURCES.len()];
    if let Err(e) = selectors::list_selectors(res, Some(&text), Some(&text)) {
        common::assert_status(&e);
    }
});
