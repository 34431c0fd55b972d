//! The root CA publisher (`pkg/controller/certificates/rootcacertpublisher/publisher.go`): every
//! namespace has a `kube-root-ca.crt` ConfigMap holding the cluster's CA, for the token volume
//! pods mount; edits and deletions are undone.

use serde_json::{json, Value};

use super::{Controller, Pass};
use crate::admission::service_account::ROOT_CA_CONFIG_MAP;
use crate::api::{Api, WriteOptions};
use crate::meta;
use crate::registry;
use crate::store::{Event, EventKind};

/// `DescriptionAnnotation` and `Description`.
const DESCRIPTION_ANNOTATION: &str = "kubernetes.io/description";
const DESCRIPTION: &str = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

pub struct RootCaPublisher {
    /// The CA's PEM, as the kubeconfig's `certificate-authority-data` carries it.
    root_ca: String,
}

impl RootCaPublisher {
    pub fn new(root_ca: impl Into<String>) -> Self {
        Self {
            root_ca: root_ca.into(),
        }
    }

    fn data(&self) -> Value {
        json!({"ca.crt": self.root_ca})
    }

    /// `syncNamespace`.
    fn sync(&self, api: &Api, ns: &str) -> crate::ApiResult<()> {
        let options = WriteOptions::controller_manager();
        let Some(current) = api
            .store()
            .get(&registry::CONFIGMAPS, ns, ROOT_CA_CONFIG_MAP)
        else {
            let created = json!({
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": ROOT_CA_CONFIG_MAP,
                    "namespace": ns,
                    "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION},
                },
                "data": self.data(),
            });
            return match api.create(&registry::CONFIGMAPS, ns, created, &options) {
                // Not retried: the namespace is gone or going.
                Err(e) if e.code == 404 || e.has_cause("NamespaceTerminating") => Ok(()),
                other => other.map(drop),
            };
        };
        let described = current.value["metadata"]["annotations"][DESCRIPTION_ANNOTATION]
            .as_str()
            .is_some_and(|d| !d.is_empty());
        if current.value["data"] == self.data() && described {
            return Ok(());
        }
        let mut updated = current.value.clone();
        updated["data"] = self.data();
        let metadata = meta::meta_mut(&mut updated);
        let annotations = metadata.entry("annotations").or_insert_with(|| json!({}));
        if !annotations.is_object() {
            *annotations = json!({});
        }
        annotations[DESCRIPTION_ANNOTATION] = json!(DESCRIPTION);
        api.update(
            &registry::CONFIGMAPS,
            ns,
            ROOT_CA_CONFIG_MAP,
            updated,
            None,
            &options,
        )
        .map(drop)
    }
}

impl Controller for RootCaPublisher {
    fn name(&self) -> &'static str {
        "root-ca-cert-publisher"
    }

    /// `namespaceAdded`, `namespaceUpdated`, `configMapUpdated`, `configMapDeleted`.
    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::NAMESPACES)
            || (std::ptr::eq(ev.res, &registry::CONFIGMAPS)
                && ev.kind != EventKind::Added
                && ev.object.name() == ROOT_CA_CONFIG_MAP)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        for ns in api.store().list(&registry::NAMESPACES, None).0 {
            // A terminating namespace refuses new content; upstream's create fails and is let go.
            if meta::is_deleting(&ns.value) {
                continue;
            }
            let synced = self.sync(api, ns.name());
            pass.check("publishing the root CA", synced);
        }
        pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::DeleteOptions;

    const PEM: &str = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

    #[test]
    fn every_namespace_holds_the_ca_and_edits_are_undone() {
        let api = Api::bootstrapped();
        let mut publisher = RootCaPublisher::new(PEM);
        let pass = publisher.reconcile(&api);
        assert!(!pass.failed());
        assert_eq!(pass.wake_after(), None);
        let maps = api.store().list(&registry::CONFIGMAPS, None).0;
        let namespaces: Vec<&str> = maps.iter().map(|m| m.namespace()).collect();
        assert_eq!(
            namespaces,
            ["default", "kube-node-lease", "kube-public", "kube-system"]
        );
        let published = &maps[0].value;
        assert_eq!(published["data"], json!({"ca.crt": PEM}));
        assert_eq!(
            published["metadata"]["annotations"],
            json!({DESCRIPTION_ANNOTATION: DESCRIPTION})
        );

        // An edit loses its data but keeps its labels; a deletion is undone.
        let mut edited = published.clone();
        edited["data"] = json!({"ca.crt": "mine", "extra": "x"});
        edited["metadata"]["labels"] = json!({"team": "a"});
        edited["metadata"]["annotations"] = json!({});
        api.update(
            &registry::CONFIGMAPS,
            "default",
            ROOT_CA_CONFIG_MAP,
            edited,
            None,
            &WriteOptions::default(),
        )
        .expect("edited");
        api.delete(
            &registry::CONFIGMAPS,
            "kube-public",
            ROOT_CA_CONFIG_MAP,
            &DeleteOptions::default(),
        )
        .expect("deleted");
        assert!(!publisher.reconcile(&api).failed());
        let restored = api
            .get(&registry::CONFIGMAPS, "default", ROOT_CA_CONFIG_MAP)
            .expect("kept");
        assert_eq!(restored.value["data"], json!({"ca.crt": PEM}));
        assert_eq!(restored.value["metadata"]["labels"], json!({"team": "a"}));
        assert_eq!(
            restored.value["metadata"]["annotations"][DESCRIPTION_ANNOTATION],
            DESCRIPTION
        );
        assert!(api
            .get(&registry::CONFIGMAPS, "kube-public", ROOT_CA_CONFIG_MAP)
            .is_ok());
    }
}
