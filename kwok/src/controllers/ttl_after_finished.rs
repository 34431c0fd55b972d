//! The TTL-after-finished controller (`pkg/controller/ttlafterfinished`): a finished Job with
//! `ttlSecondsAfterFinished` is deleted, in the foreground, that many seconds after the
//! transition of its Complete or Failed condition. It records no events.

use chrono::Utc;

use super::job::finished_condition;
use super::{just_after, Controller, Pass};
use crate::api::{Api, DeleteOptions, Propagation};
use crate::podutil::parse_time;
use crate::registry;
use crate::store::Event;

pub struct TtlAfterFinished;

impl Controller for TtlAfterFinished {
    fn name(&self) -> &'static str {
        "ttl-after-finished-controller"
    }

    fn interested(&self, ev: &Event) -> bool {
        std::ptr::eq(ev.res, &registry::JOBS)
    }

    fn reconcile(&mut self, api: &Api) -> Pass {
        let mut pass = Pass::default();
        let now = Utc::now();
        for job in api.store().list(&registry::JOBS, None).0 {
            let v = &job.value;
            let Some(ttl) = v["spec"]["ttlSecondsAfterFinished"].as_i64() else {
                continue;
            };
            if crate::meta::is_deleting(v) {
                continue;
            }
            // `jobFinishTime`: when the finished condition came.
            let finished_at =
                finished_condition(v).and_then(|c| parse_time(&c["lastTransitionTime"]));
            let Some(finished_at) = finished_at else {
                continue;
            };
            let expires = finished_at + chrono::Duration::seconds(ttl);
            if expires > now {
                pass.wake(Some(just_after(expires, now)));
                continue;
            }
            let opts = DeleteOptions {
                propagation: Some(Propagation::Foreground),
                ..Default::default()
            };
            let deleted = api.delete(&registry::JOBS, job.namespace(), job.name(), &opts);
            pass.check("deleting an expired job", deleted);
        }
        pass
    }
}
