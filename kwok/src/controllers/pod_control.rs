//! `RealPodControl` (`pkg/controller/controller_utils.go`): how the ReplicaSet, DaemonSet and Job
//! controllers create and delete their pods, with the events upstream records on the owner.

use serde_json::Value;

use super::events::Recorder;
use crate::api::{Api, DeleteOptions, WriteOptions};
use crate::error::ApiError;
use crate::registry;
use crate::resource::ResourceDef;
use crate::store::Stored;

/// One owner's pod writes: the events name `owner`, an object of kind `kind`.
pub(crate) struct PodControl<'a> {
    pub api: &'a Api,
    pub recorder: &'a Recorder,
    pub kind: &'static ResourceDef,
    pub owner: &'a Value,
}

impl PodControl<'_> {
    /// `createPods`: `SuccessfulCreate`, or `FailedCreate` — except in a terminating namespace,
    /// where every create fails and upstream records nothing. The error is the caller's to weigh.
    pub(crate) fn create(&self, ns: &str, pod: Value) -> Result<Stored, ApiError> {
        match self
            .api
            .create(&registry::PODS, ns, pod, &WriteOptions::default())
        {
            Ok(created) => {
                let message = format!("Created pod: {}", created.name());
                self.event("Normal", "SuccessfulCreate", &message);
                Ok(created)
            }
            Err(e) => {
                if !e.has_cause("NamespaceTerminating") {
                    let message = format!("Error creating: {}", e.message);
                    self.event("Warning", "FailedCreate", &message);
                }
                Err(e)
            }
        }
    }

    /// `DeletePod`: `SuccessfulDelete`, or `FailedDelete`. A pod already gone is no failure and
    /// no event: `Ok(false)`.
    pub(crate) fn delete(&self, ns: &str, name: &str) -> Result<bool, ApiError> {
        match self
            .api
            .delete(&registry::PODS, ns, name, &DeleteOptions::default())
        {
            Ok(_) => {
                let message = format!("Deleted pod: {name}");
                self.event("Normal", "SuccessfulDelete", &message);
                Ok(true)
            }
            Err(e) if e.code == 404 => Ok(false),
            Err(e) => {
                let message = format!("Error deleting: {}", e.message);
                self.event("Warning", "FailedDelete", &message);
                Err(e)
            }
        }
    }

    fn event(&self, type_: &str, reason: &str, message: &str) {
        self.recorder
            .event(self.api, self.kind, self.owner, type_, reason, message);
    }
}
