//! One module per kind, as upstream keeps one `pkg/registry/<group>/<kind>/strategy.go` per kind:
//! each declares its resource (discovery's description of it) and a [`Strategy`](crate::resource::Strategy) that holds
//! everything the server does differently for that kind — the Go type a body decodes into, scheme
//! defaulting, what create, update and status writes reset, validation, the printer, the strategic
//! merge patch schema and the protobuf message. The layers below (validation, defaults, printers,
//! protobuf, patch) hold the shared machinery; nothing outside this folder switches on a kind's
//! strategy. (Admission plugins and field-selector labels are registered per resource where they
//! live, as upstream registers them.) The registry lists the kinds.
//!
//! Subresource bodies that are not resources of their own (`autoscaling/v1` Scale, `policy/v1`
//! Eviction) are kinds here too, with only the facets a body needs.

/// A kind whose bodies decode into the k8s-openapi type that stands in for its Go type
/// (`GoType` by the walker, which reports what Go's decoder would). A strategy that serves
/// several versions or kinds picks its [`Decode`](crate::decode::Decode) from itself:
/// `decodes_as!(Kind, |this| if this.v1 { walk::<V1> } else { walk::<V2> })`.
macro_rules! decodes_as {
    ($kind:ty, |$this:ident| $pick:expr) => {
        impl crate::decode::GoType for $kind {
            fn decode_into(
                &self,
                val: &crate::decode::json::Val,
                how: crate::decode::Decoding,
                root: (&str, &str),
            ) -> Result<crate::decode::walker::Outcome, String> {
                let $this = self;
                let decode: crate::decode::Decode = $pick;
                decode(val, how, root)
            }
        }
    };
    ($kind:ty, $go_type:ty) => {
        crate::kinds::decodes_as!($kind, |_this| crate::decode::walker::walk::<$go_type>);
    };
}
pub(crate) use decodes_as;

/// The `WarningsOnCreate` and `WarningsOnUpdate` of the workloads whose pods come from
/// `spec.template` — Deployments, ReplicaSets, ReplicationControllers — which upstream spells
/// out in each strategy: the name, then the template on create; the template when the spec
/// changed.
macro_rules! spec_template_warnings {
    () => {
        fn warnings_on_create(&self, obj: &serde_json::Value) -> Vec<String> {
            crate::warnings::pod::workload_on_create(obj)
        }

        fn warnings_on_update(
            &self,
            new: &serde_json::Value,
            old: &serde_json::Value,
        ) -> Vec<String> {
            crate::warnings::pod::spec_template_on_update(new, old)
        }
    };
}
pub(crate) use spec_template_warnings;

pub mod apiextensions;
pub mod apiregistration;
pub mod apps;
pub mod authorization;
pub mod autoscaling;
pub mod batch;
pub mod certificates;
pub mod coordination;
pub mod core;
pub mod custom;
pub mod discovery;
pub mod events;
pub mod metrics;
pub mod networking;
pub mod node;
pub mod policy;
pub mod rbac;
pub mod scheduling;
pub mod storage;

use serde_json::Value;

use crate::resource::ResourceDef;

/// Scheme defaulting of `obj`, a `res` object, in place: what decoding into the Go type does.
pub(crate) fn default(res: &ResourceDef, obj: &mut Value) {
    if let Some(map) = obj.as_object_mut() {
        res.strategy.default(map);
    }
}
