//! The Deployment controller (`pkg/controller/deployment`).

use std::time::Duration;

use super::Controller;
use crate::api::Api;
use crate::registry;
use crate::store::Event;

#[derive(Default)]
pub struct DeploymentController;

impl Controller for DeploymentController {
    fn name(&self) -> &'static str {
        "deployment-controller"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::DEPLOYMENTS) || std::ptr::eq(ev.res, &registry::REPLICASETS)
    }

    fn reconcile(&mut self, _api: &Api) -> Option<Duration> {
        None
    }
}
