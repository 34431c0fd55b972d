//! The ReplicaSet controller (`pkg/controller/replicaset`).

use std::time::Duration;

use super::Controller;
use crate::api::Api;
use crate::registry;
use crate::store::Event;

#[derive(Default)]
pub struct ReplicaSetController;

impl Controller for ReplicaSetController {
    fn name(&self) -> &'static str {
        "replicaset-controller"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::REPLICASETS) || std::ptr::eq(ev.res, &registry::PODS)
    }

    fn reconcile(&mut self, _api: &Api) -> Option<Duration> {
        None
    }
}
