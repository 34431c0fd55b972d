//! The ServiceAccount controller (`pkg/controller/serviceaccount/serviceaccounts_controller.go`):
//! every active namespace has a `default` ServiceAccount, recreated when it is deleted.

use super::{Controller, Pass};
use crate::admission::service_account::{ensure_default, DEFAULT_SERVICE_ACCOUNT};
use crate::api::Api;
use crate::meta;
use crate::registry;
use crate::store::{Event, EventKind};

#[derive(Default)]
pub struct ServiceAccountController;

impl Controller for ServiceAccountController {
    fn name(&self) -> &'static str {
        "serviceaccount"
    }

    /// `namespaceAdded`, `namespaceUpdated`, `serviceAccountDeleted`.
    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::NAMESPACES)
            || (std::ptr::eq(ev.res, &registry::SERVICEACCOUNTS)
                && ev.kind == EventKind::Deleted
                && ev.object.name() == DEFAULT_SERVICE_ACCOUNT)
    }

    /// `syncNamespace` for every namespace.
    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        for ns in api.store().list(&registry::NAMESPACES, None).0 {
            let active = ns.value["status"]["phase"].as_str() == Some("Active")
                && !meta::is_deleting(&ns.value);
            let name = ns.name();
            if !active
                || api
                    .store()
                    .get(&registry::SERVICEACCOUNTS, name, DEFAULT_SERVICE_ACCOUNT)
                    .is_some()
            {
                continue;
            }
            match ensure_default(api, name) {
                // A namespace that started terminating meanwhile is not an error.
                Err(error) if error.has_cause("NamespaceTerminating") => {}
                created => {
                    pass.check("creating the default service account", created);
                }
            }
        }
        pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{DeleteOptions, WriteOptions};
    use serde_json::json;

    fn namespaces_with_default(api: &Api) -> Vec<String> {
        api.store()
            .list(&registry::SERVICEACCOUNTS, None)
            .0
            .iter()
            .filter(|sa| sa.name() == DEFAULT_SERVICE_ACCOUNT)
            .map(|sa| sa.namespace().to_string())
            .collect()
    }

    fn delete_default(api: &Api, ns: &str) {
        api.delete(
            &registry::SERVICEACCOUNTS,
            ns,
            DEFAULT_SERVICE_ACCOUNT,
            &DeleteOptions::default(),
        )
        .expect("deleted");
    }

    #[test]
    fn every_active_namespace_gets_a_default_account_again_and_again() {
        let api = Api::bootstrapped();
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "lab"}});
        api.create(&registry::NAMESPACES, "", ns, &WriteOptions::default())
            .expect("namespace");
        let mut controller = ServiceAccountController;
        let pass = controller.reconcile(&api);
        assert!(!pass.failed());
        assert_eq!(pass.wake_after(), None);
        assert_eq!(
            namespaces_with_default(&api),
            [
                "default",
                "kube-node-lease",
                "kube-public",
                "kube-system",
                "lab"
            ]
        );
        delete_default(&api, "lab");
        assert!(!namespaces_with_default(&api).contains(&"lab".to_string()));
        assert!(!controller.reconcile(&api).failed());
        assert!(namespaces_with_default(&api).contains(&"lab".to_string()));

        // A terminating namespace gets none back.
        api.delete(&registry::NAMESPACES, "", "lab", &DeleteOptions::default())
            .expect("deleting");
        delete_default(&api, "lab");
        let pass = controller.reconcile(&api);
        assert!(!pass.failed());
        assert_eq!(pass.wake_after(), None);
        assert!(!namespaces_with_default(&api).contains(&"lab".to_string()));
    }
}
