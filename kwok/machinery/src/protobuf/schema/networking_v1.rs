//! `networking/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{IntOrString, Msg, Str, I32};
use super::{core_v1, inline, keep, list, message, meta_v1, opt, Message};

pub static HTTP_INGRESS_PATH: Message = message(
    "HTTPIngressPath",
    &[
        opt(1, "path", Str),
        keep(3, "pathType", Str),
        keep(2, "backend", Msg(&INGRESS_BACKEND)),
    ],
);

pub static HTTP_INGRESS_RULE_VALUE: Message = message(
    "HTTPIngressRuleValue",
    &[list(1, "paths", Msg(&HTTP_INGRESS_PATH))],
);

pub static INGRESS: Message = message(
    "Ingress",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&INGRESS_SPEC)),
        keep(3, "status", Msg(&INGRESS_STATUS)),
    ],
);

pub static INGRESS_BACKEND: Message = message(
    "IngressBackend",
    &[
        keep(4, "service", Msg(&INGRESS_SERVICE_BACKEND)),
        keep(3, "resource", Msg(&core_v1::TYPED_LOCAL_OBJECT_REFERENCE)),
    ],
);

pub static INGRESS_CLASS: Message = message(
    "IngressClass",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&INGRESS_CLASS_SPEC)),
    ],
);

pub static INGRESS_CLASS_PARAMETERS_REFERENCE: Message = message(
    "IngressClassParametersReference",
    &[
        keep(1, "apiGroup", Str),
        keep(2, "kind", Str),
        keep(3, "name", Str),
        keep(4, "scope", Str),
        keep(5, "namespace", Str),
    ],
);

pub static INGRESS_CLASS_SPEC: Message = message(
    "IngressClassSpec",
    &[
        opt(1, "controller", Str),
        keep(2, "parameters", Msg(&INGRESS_CLASS_PARAMETERS_REFERENCE)),
    ],
);

pub static INGRESS_LOAD_BALANCER_INGRESS: Message = message(
    "IngressLoadBalancerIngress",
    &[
        opt(1, "ip", Str),
        opt(2, "hostname", Str),
        list(4, "ports", Msg(&INGRESS_PORT_STATUS)),
    ],
);

pub static INGRESS_LOAD_BALANCER_STATUS: Message = message(
    "IngressLoadBalancerStatus",
    &[list(1, "ingress", Msg(&INGRESS_LOAD_BALANCER_INGRESS))],
);

pub static INGRESS_PORT_STATUS: Message = message(
    "IngressPortStatus",
    &[
        keep(1, "port", I32),
        keep(2, "protocol", Str),
        keep(3, "error", Str),
    ],
);

pub static INGRESS_RULE: Message = message(
    "IngressRule",
    &[opt(1, "host", Str), inline(2, &INGRESS_RULE_VALUE)],
);

pub static INGRESS_RULE_VALUE: Message = message(
    "IngressRuleValue",
    &[keep(1, "http", Msg(&HTTP_INGRESS_RULE_VALUE))],
);

pub static INGRESS_SERVICE_BACKEND: Message = message(
    "IngressServiceBackend",
    &[
        keep(1, "name", Str),
        keep(2, "port", Msg(&SERVICE_BACKEND_PORT)),
    ],
);

pub static INGRESS_SPEC: Message = message(
    "IngressSpec",
    &[
        keep(4, "ingressClassName", Str),
        keep(1, "defaultBackend", Msg(&INGRESS_BACKEND)),
        list(2, "tls", Msg(&INGRESS_TLS)),
        list(3, "rules", Msg(&INGRESS_RULE)),
    ],
);

pub static INGRESS_STATUS: Message = message(
    "IngressStatus",
    &[keep(1, "loadBalancer", Msg(&INGRESS_LOAD_BALANCER_STATUS))],
);

pub static INGRESS_TLS: Message = message(
    "IngressTLS",
    &[list(1, "hosts", Str), opt(2, "secretName", Str)],
);

pub static IP_BLOCK: Message = message("IPBlock", &[keep(1, "cidr", Str), list(2, "except", Str)]);

pub static NETWORK_POLICY: Message = message(
    "NetworkPolicy",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&NETWORK_POLICY_SPEC)),
    ],
);

pub static NETWORK_POLICY_EGRESS_RULE: Message = message(
    "NetworkPolicyEgressRule",
    &[
        list(1, "ports", Msg(&NETWORK_POLICY_PORT)),
        list(2, "to", Msg(&NETWORK_POLICY_PEER)),
    ],
);

pub static NETWORK_POLICY_INGRESS_RULE: Message = message(
    "NetworkPolicyIngressRule",
    &[
        list(1, "ports", Msg(&NETWORK_POLICY_PORT)),
        list(2, "from", Msg(&NETWORK_POLICY_PEER)),
    ],
);

pub static NETWORK_POLICY_PEER: Message = message(
    "NetworkPolicyPeer",
    &[
        keep(1, "podSelector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(2, "namespaceSelector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(3, "ipBlock", Msg(&IP_BLOCK)),
    ],
);

pub static NETWORK_POLICY_PORT: Message = message(
    "NetworkPolicyPort",
    &[
        keep(1, "protocol", Str),
        keep(2, "port", IntOrString),
        keep(3, "endPort", I32),
    ],
);

pub static NETWORK_POLICY_SPEC: Message = message(
    "NetworkPolicySpec",
    &[
        keep(1, "podSelector", Msg(&meta_v1::LABEL_SELECTOR)),
        list(2, "ingress", Msg(&NETWORK_POLICY_INGRESS_RULE)),
        list(3, "egress", Msg(&NETWORK_POLICY_EGRESS_RULE)),
        list(4, "policyTypes", Str),
    ],
);

pub static SERVICE_BACKEND_PORT: Message = message(
    "ServiceBackendPort",
    &[opt(1, "name", Str), opt(2, "number", I32)],
);
