//! The namespace controller (`pkg/controller/namespace`): a terminating namespace has its content
//! deleted, then its `kubernetes` finalizer removed, and then it goes.

use std::time::Duration;

use serde_json::json;

use super::Controller;
use crate::api::{meta, Api, DeleteOptions};
use crate::registry;
use crate::store::Event;

#[derive(Default)]
pub struct NamespaceController;

impl Controller for NamespaceController {
    fn name(&self) -> &'static str {
        "namespace"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::NAMESPACES) || ev.kind == crate::store::EventKind::Deleted
    }

    fn reconcile(&mut self, api: &Api) -> Option<Duration> {
        let mut again = None;
        for ns in api.store().list(&registry::NAMESPACES, None).0 {
            if !meta::is_deleting(&ns.value) {
                continue;
            }
            let name = ns.name().to_string();
            let mut remaining = 0;
            for res in registry::RESOURCES
                .iter()
                .copied()
                .filter(|r| r.namespaced && !crate::convert::is_view(r))
            {
                if !res.has_verb("list") {
                    continue;
                }
                let items = api.store().list(res, Some(&name)).0;
                remaining += items.len();
                for o in items {
                    if meta::is_deleting(&o.value) {
                        continue;
                    }
                    let _ = api.delete(res, &name, o.name(), &DeleteOptions::default());
                }
            }
            if remaining > 0 {
                // Pods on nodes without a kubelet never finish; look again now and then.
                again = Some(Duration::from_secs(1));
                continue;
            }
            let mut v = ns.value.clone();
            v["spec"]["finalizers"] = json!([]);
            if meta::finalizers(&v).is_empty() {
                let _ = api.store().delete(
                    &registry::NAMESPACES,
                    "",
                    &name,
                    Some(ns.resource_version()),
                );
            } else {
                let _ = api
                    .store()
                    .update(&registry::NAMESPACES, v, Some(ns.resource_version()));
            }
        }
        again
    }
}
