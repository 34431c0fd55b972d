//! The namespace controller (`pkg/controller/namespace`): a terminating namespace has its content
//! deleted, then its `kubernetes` finalizer removed, and then it goes.

use std::time::Duration;

use serde_json::json;

use super::{Controller, Pass};
use crate::api::{subresources, Api, DeleteOptions};
use crate::meta;
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

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        for ns in api.store().list(&registry::NAMESPACES, None).0 {
            if !meta::is_deleting(&ns.value) {
                continue;
            }
            let name = ns.name().to_string();
            let mut remaining = 0;
            for res in crate::registry::all(api.store())
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
                    let deleted = api.delete(res, &name, o.name(), &DeleteOptions::default());
                    pass.check("deleting a terminating namespace's content", deleted);
                }
            }
            if remaining > 0 {
                // Pods on nodes without a kubelet never finish; look again now and then.
                pass.wake(Some(Duration::from_secs(1)));
                continue;
            }
            let spec_finalized = ns.value["spec"]["finalizers"]
                .as_array()
                .is_none_or(Vec::is_empty);
            if spec_finalized && !meta::finalizers(&ns.value).is_empty() {
                // Someone else's finalizer holds it; their update ends it.
                continue;
            }
            // The finalize subresource, as `namespaced_resources_deleter.go finalizeNamespace`
            // calls it; it also removes a namespace left with no finalizer at all.
            let finalized =
                subresources::finalize_namespace(api, &name, &json!({"spec": {"finalizers": []}}));
            pass.check("finalizing a namespace", finalized);
        }
        pass
    }
}
