//! Labels as the scheduler holds them (the maps of typed objects), and the selector conversions it
//! applies to them, over the one label-selector implementation in [`crate::selectors`].

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as ApiLabelSelector;

pub use crate::selectors::LabelSelector as Selector;

pub type Labels = BTreeMap<String, String>;

/// `metav1.LabelSelectorAsSelector` as the scheduler's plugins call it: nil selects nothing, `{}`
/// everything, and a selector the API server would have refused also selects nothing.
pub fn as_selector(sel: Option<&ApiLabelSelector>) -> Selector {
    Selector::from_typed(sel).unwrap_or_else(|_| Selector::nothing())
}
