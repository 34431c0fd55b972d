//! The finalizer of CustomResourceDefinitions (apiextensions-apiserver
//! `pkg/controller/finalizer/crd_finalizer.go`): a definition being deleted first removes every
//! object it defines, then lets itself go.

use serde_json::json;

use super::{Controller, Pass};
use crate::api::{Api, DeleteOptions, WriteOptions};
use crate::kinds::apiextensions::customresourcedefinition::CLEANUP_FINALIZER;
use crate::meta;
use crate::registry::CUSTOMRESOURCEDEFINITIONS;
use crate::store::Event;

pub struct CrdCleanup;

impl Controller for CrdCleanup {
    fn name(&self) -> &'static str {
        "crd-cleanup"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &CUSTOMRESOURCEDEFINITIONS) || ev.res.strategy.custom()
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        for crd in api.store().list(&CUSTOMRESOURCEDEFINITIONS, None).0 {
            let finalizers = meta::finalizers(&crd.value);
            if !meta::is_deleting(&crd.value) || !finalizers.iter().any(|f| f == CLEANUP_FINALIZER)
            {
                continue;
            }
            let Some(res) = crate::kinds::custom::storage_of(&crd.value) else {
                continue;
            };
            let objects = api.store().list(res, None).0;
            for o in objects.iter().filter(|o| !meta::is_deleting(&o.value)) {
                pass.check(
                    "deleting an object of a definition being deleted",
                    api.delete(res, o.namespace(), o.name(), &DeleteOptions::default()),
                );
            }
            if api.store().count(res) > 0 {
                continue;
            }
            let mut done = crd.value.clone();
            let rest: Vec<&String> = finalizers
                .iter()
                .filter(|f| *f != CLEANUP_FINALIZER)
                .collect();
            done["metadata"]["finalizers"] = json!(rest);
            pass.check(
                "releasing a definition whose objects are gone",
                api.update(
                    &CUSTOMRESOURCEDEFINITIONS,
                    "",
                    crd.name(),
                    done,
                    None,
                    &WriteOptions::default(),
                ),
            );
        }
        pass
    }
}
