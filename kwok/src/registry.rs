//! The resources the embedded API server serves, as discovery describes them.
//!
//! Each kind declares its resource in its module under [`crate::kinds`]; this table lists them,
//! and discovery, routing, error messages and printing all read it.

use crate::kinds;
use crate::protobuf::schema::Message;
use crate::protobuf::Scheme;
use crate::resource::ResourceDef;
use crate::resource::Strategy;
use crate::store::Store;

pub use kinds::apiextensions::customresourcedefinition::RESOURCE as CUSTOMRESOURCEDEFINITIONS;
pub use kinds::apiregistration::apiservice::RESOURCE as APISERVICES;
pub use kinds::apps::controllerrevision::RESOURCE as CONTROLLERREVISIONS;
pub use kinds::apps::daemonset::RESOURCE as DAEMONSETS;
pub use kinds::apps::deployment::RESOURCE as DEPLOYMENTS;
pub use kinds::apps::replicaset::RESOURCE as REPLICASETS;
pub use kinds::apps::statefulset::RESOURCE as STATEFULSETS;
pub use kinds::authorization::{
    LOCAL_SUBJECT_ACCESS_REVIEWS, SELF_SUBJECT_ACCESS_REVIEWS, SELF_SUBJECT_REVIEWS,
    SELF_SUBJECT_RULES_REVIEWS, SUBJECT_ACCESS_REVIEWS, TOKEN_REVIEWS,
};
pub use kinds::autoscaling::horizontalpodautoscaler::RESOURCE as HORIZONTALPODAUTOSCALERS;
pub use kinds::autoscaling::horizontalpodautoscaler::RESOURCE_V1 as HORIZONTALPODAUTOSCALERS_V1;
pub use kinds::batch::cronjob::RESOURCE as CRONJOBS;
pub use kinds::batch::job::RESOURCE as JOBS;
pub use kinds::certificates::certificatesigningrequest::RESOURCE as CERTIFICATESIGNINGREQUESTS;
pub use kinds::coordination::lease::RESOURCE as LEASES;
pub use kinds::core::binding::RESOURCE as BINDINGS;
pub use kinds::core::configmap::RESOURCE as CONFIGMAPS;
pub use kinds::core::endpoints::RESOURCE as ENDPOINTS;
pub use kinds::core::event::RESOURCE as EVENTS;
pub use kinds::core::limitrange::RESOURCE as LIMITRANGES;
pub use kinds::core::namespace::RESOURCE as NAMESPACES;
pub use kinds::core::node::RESOURCE as NODES;
pub use kinds::core::persistentvolume::RESOURCE as PERSISTENTVOLUMES;
pub use kinds::core::persistentvolumeclaim::RESOURCE as PERSISTENTVOLUMECLAIMS;
pub use kinds::core::pod::RESOURCE as PODS;
pub use kinds::core::podtemplate::RESOURCE as PODTEMPLATES;
pub use kinds::core::replicationcontroller::RESOURCE as REPLICATIONCONTROLLERS;
pub use kinds::core::resourcequota::RESOURCE as RESOURCEQUOTAS;
pub use kinds::core::secret::RESOURCE as SECRETS;
pub use kinds::core::service::RESOURCE as SERVICES;
pub use kinds::core::serviceaccount::RESOURCE as SERVICEACCOUNTS;
pub use kinds::discovery::endpointslice::RESOURCE as ENDPOINTSLICES;
pub use kinds::events::event::RESOURCE as EVENTS_V1;
pub use kinds::networking::ingress::RESOURCE as INGRESSES;
pub use kinds::networking::ingressclass::RESOURCE as INGRESSCLASSES;
pub use kinds::networking::networkpolicy::RESOURCE as NETWORKPOLICIES;
pub use kinds::node::runtimeclass::RESOURCE as RUNTIMECLASSES;
pub use kinds::policy::poddisruptionbudget::RESOURCE as PODDISRUPTIONBUDGETS;
pub use kinds::rbac::clusterrole::RESOURCE as CLUSTERROLES;
pub use kinds::rbac::clusterrolebinding::RESOURCE as CLUSTERROLEBINDINGS;
pub use kinds::rbac::role::RESOURCE as ROLES;
pub use kinds::rbac::rolebinding::RESOURCE as ROLEBINDINGS;
pub use kinds::scheduling::priorityclass::RESOURCE as PRIORITYCLASSES;
pub use kinds::storage::csidriver::RESOURCE as CSIDRIVERS;
pub use kinds::storage::csinode::RESOURCE as CSINODES;
pub use kinds::storage::csistoragecapacity::RESOURCE as CSISTORAGECAPACITIES;
pub use kinds::storage::storageclass::RESOURCE as STORAGECLASSES;
pub use kinds::storage::volumeattachment::RESOURCE as VOLUMEATTACHMENTS;

/// Every served resource, in discovery order.
pub static RESOURCES: &[&ResourceDef] = &[
    &BINDINGS,
    &CONFIGMAPS,
    &ENDPOINTS,
    &EVENTS,
    &LIMITRANGES,
    &NAMESPACES,
    &NODES,
    &PERSISTENTVOLUMECLAIMS,
    &PERSISTENTVOLUMES,
    &PODS,
    &PODTEMPLATES,
    &REPLICATIONCONTROLLERS,
    &RESOURCEQUOTAS,
    &SECRETS,
    &SERVICEACCOUNTS,
    &SERVICES,
    &APISERVICES,
    &CONTROLLERREVISIONS,
    &DAEMONSETS,
    &DEPLOYMENTS,
    &REPLICASETS,
    &STATEFULSETS,
    &SELF_SUBJECT_REVIEWS,
    &TOKEN_REVIEWS,
    &LOCAL_SUBJECT_ACCESS_REVIEWS,
    &SELF_SUBJECT_ACCESS_REVIEWS,
    &SELF_SUBJECT_RULES_REVIEWS,
    &SUBJECT_ACCESS_REVIEWS,
    &HORIZONTALPODAUTOSCALERS,
    &HORIZONTALPODAUTOSCALERS_V1,
    &CRONJOBS,
    &JOBS,
    &CERTIFICATESIGNINGREQUESTS,
    &INGRESSCLASSES,
    &INGRESSES,
    &NETWORKPOLICIES,
    &PODDISRUPTIONBUDGETS,
    &CLUSTERROLEBINDINGS,
    &CLUSTERROLES,
    &ROLEBINDINGS,
    &ROLES,
    &CSIDRIVERS,
    &CSINODES,
    &CSISTORAGECAPACITIES,
    &STORAGECLASSES,
    &VOLUMEATTACHMENTS,
    &CUSTOMRESOURCEDEFINITIONS,
    &PRIORITYCLASSES,
    &LEASES,
    &RUNTIMECLASSES,
    &ENDPOINTSLICES,
    &EVENTS_V1,
];

/// API groups in discovery order, with their single served version.
pub static GROUPS: &[(&str, &str)] = &[
    ("apiregistration.k8s.io", "v1"),
    ("apps", "v1"),
    ("events.k8s.io", "v1"),
    ("authentication.k8s.io", "v1"),
    ("authorization.k8s.io", "v1"),
    ("autoscaling", "v2"),
    ("autoscaling", "v1"),
    ("batch", "v1"),
    ("certificates.k8s.io", "v1"),
    ("networking.k8s.io", "v1"),
    ("policy", "v1"),
    ("rbac.authorization.k8s.io", "v1"),
    ("storage.k8s.io", "v1"),
    ("apiextensions.k8s.io", "v1"),
    ("scheduling.k8s.io", "v1"),
    ("coordination.k8s.io", "v1"),
    ("node.k8s.io", "v1"),
    ("discovery.k8s.io", "v1"),
];

/// Whether a built-in API serves `group` (the core group included): paths under any other group
/// fall through the built-in handlers (custom resources' included) to a bare 404.
pub fn is_built_in_group(group: &str) -> bool {
    group.is_empty() || GROUPS.iter().any(|(g, _)| *g == group)
}

/// Look a resource up by group, version and plural name.
pub fn find(group: &str, version: &str, plural: &str) -> Option<&'static ResourceDef> {
    RESOURCES
        .iter()
        .copied()
        .find(|r| r.group == group && r.version == version && r.plural == plural)
}

/// Look a resource up by group and Kind (for bodies and owner references).
pub fn by_kind(group: &str, kind: &str) -> Option<&'static ResourceDef> {
    RESOURCES
        .iter()
        .copied()
        .find(|r| r.group == group && r.kind == kind && !std::ptr::eq(*r, &BINDINGS))
}

/// The kind of a body by group, version and Kind: a served resource's, or a subresource body's
/// (`autoscaling/v1` Scale, `policy/v1` Eviction).
pub(crate) fn strategy_of(group: &str, version: &str, kind: &str) -> Option<&'static dyn Strategy> {
    let resource = RESOURCES
        .iter()
        .find(|r| r.group == group && r.version == version && r.kind == kind)
        .map(|r| r.strategy);
    resource.or_else(|| {
        RESOURCES
            .iter()
            .flat_map(|r| r.subresources.iter())
            .find(|s| s.group == group && s.version == version && s.kind == kind)
            .and_then(|s| s.body)
    })
}

/// The embedded cluster's protobuf scheme: a served kind's message, or a subresource body's.
pub static SCHEME: Scheme = Scheme(protobuf_message);

fn protobuf_message(group: &str, version: &str, kind: &str) -> Option<&'static Message> {
    strategy_of(group, version, kind).and_then(|s| s.protobuf())
}

/// Resources of one group version.
pub fn in_group_version<'a>(
    group: &'a str,
    version: &'a str,
) -> impl Iterator<Item = &'static ResourceDef> + 'a {
    RESOURCES
        .iter()
        .copied()
        .filter(move |r| r.group == group && r.version == version)
}

/// The resource a kubectl resource argument names (`pods`, `po`, `pod`, `Pod`, `ds.apps`,
/// `daemonsets.v1.apps`), as kubectl's REST mapper resolves it: plural, singular, short name
/// or kind, case-insensitive, optionally qualified by `group` or `version.group`; the core group
/// wins a tie (`events`). Subresources and served-elsewhere resources give `None`.
pub fn resolve(arg: &str) -> Option<&'static ResourceDef> {
    let arg = arg.to_ascii_lowercase();
    let (name, qualifier) = match arg.split_once('.') {
        Some((name, rest)) => (name, Some(rest)),
        None => (arg.as_str(), None),
    };
    RESOURCES.iter().copied().find(|r| {
        !std::ptr::eq(*r, &BINDINGS)
            && (r.plural == name
                || r.singular == name
                || r.short_names.contains(&name)
                || r.kind.eq_ignore_ascii_case(name))
            && match qualifier {
                None => true,
                Some(q) => q == r.group || q == format!("{}.{}", r.version, r.group),
            }
    })
}

/// Every resource `store` serves, built-in then custom: what loops over all objects walk.
pub fn all(store: &Store) -> impl Iterator<Item = &'static ResourceDef> {
    RESOURCES
        .iter()
        .copied()
        .chain(kinds::custom::served(store))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource_names::ResourceNames;

    #[test]
    fn names_follow_apimachinery() {
        assert_eq!(DAEMONSETS.group_resource(), "daemonsets.apps");
        assert_eq!(PODS.group_resource(), "pods");
        assert_eq!(DAEMONSETS.group_kind(), "DaemonSet.apps");
        assert_eq!(PODDISRUPTIONBUDGETS.api_version(), "policy/v1");
        assert!(find("apps", "v1", "daemonsets").is_some());
        assert!(std::ptr::eq(by_kind("", "Pod").unwrap(), &PODS));
    }

    #[test]
    fn kubectl_resource_arguments() {
        let is = |arg: &str, want: &ResourceDef| {
            assert!(
                resolve(arg).is_some_and(|r| std::ptr::eq(r, want)),
                "{arg} → {:?}",
                resolve(arg).map(|r| r.group_resource())
            )
        };
        is("pods", &PODS);
        is("po", &PODS);
        is("Pod", &PODS);
        is("ds", &DAEMONSETS);
        is("daemonset.apps", &DAEMONSETS);
        is("daemonsets.v1.apps", &DAEMONSETS);
        is("pdb", &PODDISRUPTIONBUDGETS);
        is("events", &EVENTS);
        is("events.events.k8s.io", &EVENTS_V1);
        assert!(resolve("daemonsets.v2.apps").is_none());
        assert!(resolve("pods.apps").is_none());
        assert!(resolve("bindings").is_none());
        assert!(resolve("widgets").is_none());
    }
}
