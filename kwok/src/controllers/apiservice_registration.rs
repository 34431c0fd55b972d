//! The APIServices of custom resources (kube-apiserver's `crdregistration` controller feeding
//! kube-aggregator's `autoregister`): every version a CustomResourceDefinition serves has a local
//! APIService labelled `automanaged: "true"`, made again when deleted, its spec put back when
//! edited, and deleted once no definition of its group serves that version. The built-in ones
//! (`onstart`) are made once at start by the API server's bootstrap and left to the user after.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Controller, Pass};
use crate::api::{Api, DeleteOptions, WriteOptions};
use crate::kinds::apiregistration::apiservice::{local, CONTINUOUSLY, MANAGED_LABEL};
use crate::meta;
use crate::registry::{APISERVICES, CUSTOMRESOURCEDEFINITIONS};
use crate::store::Event;

#[derive(Default)]
pub struct ApiServiceRegistration;

/// `handleVersionUpdate` for every group version: the APIServices the definitions ask for.
fn desired(api: &Api) -> BTreeMap<String, Value> {
    let mut wanted = BTreeMap::new();
    for crd in api.store().list(&CUSTOMRESOURCEDEFINITIONS, None).0 {
        let group = crd.value["spec"]["group"].as_str().unwrap_or("");
        for version in crd.value["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if version["served"] != true {
                continue;
            }
            let name = version["name"].as_str().unwrap_or("");
            if let Some(service) = local(group, name, CONTINUOUSLY) {
                wanted.insert(format!("{name}.{group}"), service);
            }
        }
    }
    wanted
}

impl Controller for ApiServiceRegistration {
    fn name(&self) -> &'static str {
        "crd-autoregister"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &CUSTOMRESOURCEDEFINITIONS) || std::ptr::eq(ev.res, &APISERVICES)
    }

    /// `checkAPIService` for the continuously synced names.
    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let mut wanted = desired(api);
        let options = WriteOptions::default();
        for current in api.store().list(&APISERVICES, None).0 {
            let managed = current.value["metadata"]["labels"][MANAGED_LABEL] == CONTINUOUSLY;
            match wanted.remove(current.name()) {
                None if managed => {
                    let deleted = api.delete(
                        &APISERVICES,
                        "",
                        current.name(),
                        &DeleteOptions {
                            precondition_uid: Some(meta::uid(&current.value).to_string()),
                            ..DeleteOptions::default()
                        },
                    );
                    // A conflict: it changed or went meanwhile; the next event says how.
                    if !matches!(&deleted, Err(e) if e.code == 409) {
                        pass.check("deleting a custom resource's APIService", deleted);
                    }
                }
                Some(service) if managed && current.value["spec"] != service["spec"] => {
                    let mut updated = current.value.clone();
                    updated["spec"] = service["spec"].clone();
                    let written =
                        api.update(&APISERVICES, "", current.name(), updated, None, &options);
                    if !matches!(&written, Err(e) if e.code == 409) {
                        pass.check("updating a custom resource's APIService", written);
                    }
                }
                _ => {}
            }
        }
        for (_, service) in wanted {
            let created = api.create(&APISERVICES, "", service, &options);
            if !matches!(&created, Err(e) if e.code == 409) {
                pass.check("registering a custom resource's APIService", created);
            }
        }
        pass
    }
}
