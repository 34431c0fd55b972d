//! Structure-aware request bodies: objects shaped like the Kubernetes kind of a resource
//! (apiVersion/kind/metadata/spec with the real field names and the right value types), where,
//! as often as the [`Noise`] level says, a field is of the wrong type, a value is out of range
//! or malformed, or unknown and repeated fields join in.

use kwok::resource::ResourceDef;
use kwok::resource_names::ResourceNames;
use proptest::prelude::*;

use super::json_text::{any_json, jstr, number_literal, JStr, J};

type Gen = BoxedStrategy<J>;

/// Per mille odds that a generated value is replaced by a wrong one. Low noise makes bodies that
/// mostly decode (and so reach the success paths); high noise makes bodies that mostly fail.
#[derive(Debug, Clone, Copy)]
pub struct Noise(pub u32);

impl Noise {
    pub const LOW: Noise = Noise(4);
    pub const HIGH: Noise = Noise(90);

    /// `good`, or with this noise's odds `bad`.
    fn either<T: std::fmt::Debug + 'static>(
        self,
        good: impl Strategy<Value = T> + 'static,
        bad: impl Strategy<Value = T> + 'static,
    ) -> BoxedStrategy<T> {
        prop_oneof![1000 - self.0 => good, self.0 => bad].boxed()
    }
}

/// Usually `good`, sometimes any JSON at all (the wrong type for the field).
fn noisy(n: Noise, good: impl Strategy<Value = J> + 'static) -> Gen {
    n.either(good, any_json())
}

/// `good` values, or with the noise's odds one of `bad` (a value of the right type but wrong).
fn from_pools(n: Noise, good: &'static [&'static str], bad: &'static [&'static str]) -> Gen {
    noisy(
        n,
        n.either(
            prop::sample::select(good).prop_map(J::s),
            prop::sample::select(bad).prop_map(J::s),
        ),
    )
}

/// An object with each listed field present at random, plus, with the noise's odds, unknown or
/// repeated fields.
fn obj(n: Noise, fields: Vec<(&'static str, Gen)>) -> Gen {
    let names: Vec<&'static str> = fields.iter().map(|(k, _)| *k).collect();
    let present: Vec<BoxedStrategy<Option<(JStr, J)>>> = fields
        .into_iter()
        .map(|(k, g)| prop::option::weighted(0.6, g.prop_map(move |v| (JStr::text(k), v))).boxed())
        .collect();
    let extra = n.either(
        Just(Vec::new()),
        prop::collection::vec((extra_key(names), any_json()), 1..3),
    );
    noisy(
        n,
        (present, extra).prop_map(|(present, extra)| {
            J::Obj(present.into_iter().flatten().chain(extra).collect())
        }),
    )
}

/// The key of an extra field: a repeat of one of the object's own fields, or an unknown one.
fn extra_key(names: Vec<&'static str>) -> BoxedStrategy<JStr> {
    if names.is_empty() {
        return jstr().boxed();
    }
    prop_oneof![prop::sample::select(names).prop_map(JStr::text), jstr(),].boxed()
}

fn list(n: Noise, item: Gen, max: usize) -> Gen {
    noisy(n, prop::collection::vec(item, 0..max).prop_map(J::Arr))
}

fn string(n: Noise) -> Gen {
    noisy(
        n,
        n.either(
            "[a-z0-9]([a-z0-9.-]{0,12}[a-z0-9])?".prop_map(J::s),
            jstr().prop_map(J::Str),
        ),
    )
}

/// One of `values` (enum-like fields; some lists include a wrong member on purpose).
fn pick(n: Noise, values: &'static [&'static str]) -> Gen {
    noisy(n, prop::sample::select(values).prop_map(J::s))
}

fn name(n: Noise) -> Gen {
    string(n)
}

fn int(n: Noise) -> Gen {
    noisy(
        n,
        n.either(
            (0i64..12).prop_map(|i| J::n(i.to_string())),
            number_literal().prop_map(J::Num),
        ),
    )
}

fn boolean(n: Noise) -> Gen {
    noisy(n, any::<bool>().prop_map(J::Bool))
}

fn quantity(n: Noise) -> Gen {
    const GOOD: &[&str] = &[
        "100m", "1", "0.5", "1Gi", "512Mi", "2", "1e3", "1k", "0", "1.5Gi", "5m", "0.001", "1Ei",
    ];
    const BAD: &[&str] = &[
        "-1",
        "abc",
        "1000000000000000000000000",
        "9Ei",
        "",
        "1.",
        ".5",
        "+1",
        "1 ",
        "1Mi ",
        "1e",
        "0.0000000001",
        "1E3",
    ];
    n.either(from_pools(n, GOOD, BAD), number_literal().prop_map(J::Num))
}

fn int_or_string(n: Noise) -> Gen {
    const GOOD: &[&str] = &["25%", "0%", "100%", "50%"];
    const BAD: &[&str] = &["150%", "%", "-5%", "x", "1.5%", "", "1"];
    prop_oneof![
        from_pools(n, GOOD, BAD),
        n.either(
            (0i64..5).prop_map(|i| J::n(i.to_string())),
            number_literal().prop_map(J::Num)
        ),
    ]
    .boxed()
}

/// A time that both `metav1.Time` and `metav1.MicroTime` take, or a malformed one.
fn time(n: Noise) -> Gen {
    const GOOD: &[&str] = &["2024-01-02T03:04:05.123456Z", "2025-12-31T23:59:59.000000Z"];
    const BAD: &[&str] = &[
        "2024-01-02T03:04:05Z",
        "2024-01-02T03:04:05.1234567891Z",
        "2024-01-02T03:04:05+01:00",
        "2024-02-30T00:00:00Z",
        "0000-01-01T00:00:00Z",
        "9999-12-31T23:59:59Z",
        "10000-01-01T00:00:00Z",
        "2024-01-02 03:04:05",
        "",
        "now",
    ];
    from_pools(n, GOOD, BAD)
}

fn base64(n: Noise) -> Gen {
    const GOOD: &[&str] = &["aGVsbG8=", "", "YQ==", "a+b/"];
    const BAD: &[&str] = &["aGVsbG8", "!!", "YQ", "Y", "a-b_", "aGVs\nbG8="];
    from_pools(n, GOOD, BAD)
}

/// A field this generator does not detail: `{}`, which every struct field takes.
fn empty_obj(n: Noise) -> Gen {
    noisy(n, Just(J::Obj(Vec::new())))
}

fn empty_list(n: Noise) -> Gen {
    noisy(n, Just(J::Arr(Vec::new())))
}

/// A `map[string]string` with label-ish keys and values.
fn string_map(n: Noise) -> Gen {
    const KEYS: &[&str] = &[
        "app",
        "tier",
        "gpu",
        "example.com/role",
        "kubernetes.io/hostname",
        "a",
    ];
    const BAD_KEYS: &[&str] = &["-bad", "UPPER", "", "a/b/c"];
    const VALUES: &[&str] = &["web", "db", "1", "10", "true", "", "x_y"];
    const BAD_VALUES: &[&str] = &["-bad", "a b"];
    let key = n.either(
        prop::sample::select(KEYS).prop_map(JStr::text),
        prop::sample::select(BAD_KEYS).prop_map(JStr::text),
    );
    noisy(
        n,
        prop::collection::vec((key, from_pools(n, VALUES, BAD_VALUES)), 0..4).prop_map(J::Obj),
    )
}

fn metadata(n: Noise) -> Gen {
    obj(
        n,
        vec![
            ("name", name(n)),
            ("generateName", name(n)),
            ("namespace", name(n)),
            ("uid", string(n)),
            ("resourceVersion", string(n)),
            ("generation", int(n)),
            ("creationTimestamp", time(n)),
            ("deletionTimestamp", time(n)),
            ("deletionGracePeriodSeconds", int(n)),
            ("labels", string_map(n)),
            ("annotations", string_map(n)),
            ("finalizers", list(n, string(n), 3)),
            (
                "ownerReferences",
                list(
                    n,
                    obj(
                        n,
                        vec![
                            ("apiVersion", pick(n, &["v1", "apps/v1", "x/y/z"])),
                            ("kind", pick(n, &["ReplicaSet", "Deployment", "Node"])),
                            ("name", name(n)),
                            ("uid", string(n)),
                            ("controller", boolean(n)),
                            ("blockOwnerDeletion", boolean(n)),
                        ],
                    ),
                    3,
                ),
            ),
            (
                "managedFields",
                list(
                    n,
                    obj(
                        n,
                        vec![
                            ("manager", string(n)),
                            ("operation", pick(n, &["Update", "Apply", "Bogus"])),
                            ("time", time(n)),
                            ("fieldsType", pick(n, &["FieldsV1", "x"])),
                            ("fieldsV1", any_json()),
                        ],
                    ),
                    2,
                ),
            ),
        ],
    )
}

fn label_selector(n: Noise) -> Gen {
    obj(
        n,
        vec![
            ("matchLabels", string_map(n)),
            (
                "matchExpressions",
                list(
                    n,
                    obj(
                        n,
                        vec![
                            ("key", name(n)),
                            (
                                "operator",
                                pick(n, &["In", "NotIn", "Exists", "DoesNotExist", "Gt", "in"]),
                            ),
                            ("values", list(n, string(n), 3)),
                        ],
                    ),
                    3,
                ),
            ),
        ],
    )
}

fn container(n: Noise) -> Gen {
    obj(
        n,
        vec![
            ("name", name(n)),
            ("image", string(n)),
            ("command", list(n, string(n), 3)),
            ("args", list(n, string(n), 3)),
            (
                "ports",
                list(
                    n,
                    obj(
                        n,
                        vec![
                            ("name", name(n)),
                            ("containerPort", int(n)),
                            ("hostPort", int(n)),
                            ("protocol", pick(n, &["TCP", "UDP", "SCTP", "tcp"])),
                        ],
                    ),
                    3,
                ),
            ),
            (
                "env",
                list(
                    n,
                    obj(
                        n,
                        vec![
                            ("name", name(n)),
                            ("value", string(n)),
                            ("valueFrom", empty_obj(n)),
                        ],
                    ),
                    3,
                ),
            ),
            (
                "resources",
                obj(
                    n,
                    vec![("limits", resource_list(n)), ("requests", resource_list(n))],
                ),
            ),
            (
                "imagePullPolicy",
                pick(n, &["Always", "IfNotPresent", "Never", "Sometimes"]),
            ),
            ("securityContext", empty_obj(n)),
        ],
    )
}

fn resource_list(n: Noise) -> Gen {
    const R: &[&str] = &[
        "cpu",
        "memory",
        "nvidia.com/gpu",
        "pods",
        "ephemeral-storage",
        "bad key",
    ];
    noisy(
        n,
        prop::collection::vec(
            (prop::sample::select(R).prop_map(JStr::text), quantity(n)),
            0..3,
        )
        .prop_map(J::Obj),
    )
}

fn toleration(n: Noise) -> Gen {
    obj(
        n,
        vec![
            ("key", string(n)),
            ("operator", pick(n, &["Exists", "Equal", "Bogus"])),
            ("value", string(n)),
            (
                "effect",
                pick(n, &["NoSchedule", "NoExecute", "PreferNoSchedule", ""]),
            ),
            ("tolerationSeconds", int(n)),
        ],
    )
}

fn pod_spec(n: Noise) -> Gen {
    obj(
        n,
        vec![
            ("containers", list(n, container(n), 3)),
            ("initContainers", list(n, container(n), 2)),
            (
                "restartPolicy",
                pick(n, &["Always", "OnFailure", "Never", "Sometimes"]),
            ),
            ("terminationGracePeriodSeconds", int(n)),
            ("nodeName", name(n)),
            ("nodeSelector", string_map(n)),
            ("tolerations", list(n, toleration(n), 3)),
            ("affinity", empty_obj(n)),
            ("priority", int(n)),
            ("priorityClassName", string(n)),
            ("serviceAccountName", name(n)),
            ("hostNetwork", boolean(n)),
            (
                "volumes",
                list(
                    n,
                    obj(n, vec![("name", name(n)), ("emptyDir", empty_obj(n))]),
                    2,
                ),
            ),
            ("topologySpreadConstraints", empty_list(n)),
        ],
    )
}

fn pod_template(n: Noise) -> Gen {
    obj(n, vec![("metadata", metadata(n)), ("spec", pod_spec(n))])
}

fn object_reference(n: Noise) -> Gen {
    obj(
        n,
        vec![
            ("kind", pick(n, &["Pod", "Node", "Deployment"])),
            ("namespace", name(n)),
            ("name", name(n)),
            ("uid", string(n)),
            ("apiVersion", pick(n, &["v1", "apps/v1"])),
            ("fieldPath", string(n)),
        ],
    )
}

/// The kind-specific top-level fields of `res` (everything but apiVersion/kind/metadata).
fn body_fields(n: Noise, res: &ResourceDef) -> Vec<(&'static str, Gen)> {
    match (res.group, res.kind) {
        ("", "Pod") => vec![
            ("spec", pod_spec(n)),
            (
                "status",
                obj(
                    n,
                    vec![
                        (
                            "phase",
                            pick(n, &["Pending", "Running", "Succeeded", "Failed", "Unknown"]),
                        ),
                        ("podIP", string(n)),
                        ("hostIP", string(n)),
                        ("startTime", time(n)),
                        ("conditions", empty_list(n)),
                        ("containerStatuses", empty_list(n)),
                    ],
                ),
            ),
        ],
        ("", "Node") => vec![
            (
                "spec",
                obj(
                    n,
                    vec![
                        ("podCIDR", string(n)),
                        ("unschedulable", boolean(n)),
                        (
                            "taints",
                            list(
                                n,
                                obj(
                                    n,
                                    vec![
                                        ("key", string(n)),
                                        ("value", string(n)),
                                        ("effect", pick(n, &["NoSchedule", "NoExecute", "x"])),
                                        ("timeAdded", time(n)),
                                    ],
                                ),
                                3,
                            ),
                        ),
                    ],
                ),
            ),
            (
                "status",
                obj(
                    n,
                    vec![
                        ("capacity", resource_list(n)),
                        ("allocatable", resource_list(n)),
                        ("conditions", empty_list(n)),
                        ("addresses", empty_list(n)),
                    ],
                ),
            ),
        ],
        ("", "Namespace") => vec![
            ("spec", obj(n, vec![("finalizers", list(n, string(n), 3))])),
            (
                "status",
                obj(n, vec![("phase", pick(n, &["Active", "Terminating"]))]),
            ),
        ],
        ("", "ConfigMap") => vec![
            ("data", string_map(n)),
            (
                "binaryData",
                noisy(
                    n,
                    prop::collection::vec((jstr(), base64(n)), 0..3).prop_map(J::Obj),
                ),
            ),
            ("immutable", boolean(n)),
        ],
        ("", "Secret") => vec![
            (
                "data",
                noisy(
                    n,
                    prop::collection::vec((jstr(), base64(n)), 0..3).prop_map(J::Obj),
                ),
            ),
            ("stringData", string_map(n)),
            ("type", pick(n, &["Opaque", "kubernetes.io/tls", ""])),
            ("immutable", boolean(n)),
        ],
        ("", "ServiceAccount") => vec![
            ("secrets", list(n, object_reference(n), 2)),
            (
                "imagePullSecrets",
                list(n, obj(n, vec![("name", name(n))]), 2),
            ),
            ("automountServiceAccountToken", boolean(n)),
        ],
        ("", "Binding") => vec![("target", object_reference(n))],
        ("", "Event") => vec![
            ("involvedObject", object_reference(n)),
            ("reason", string(n)),
            ("message", string(n)),
            (
                "source",
                obj(n, vec![("component", string(n)), ("host", string(n))]),
            ),
            ("firstTimestamp", time(n)),
            ("lastTimestamp", time(n)),
            ("count", int(n)),
            ("type", pick(n, &["Normal", "Warning"])),
            ("eventTime", time(n)),
            ("reportingComponent", string(n)),
            (
                "series",
                obj(n, vec![("count", int(n)), ("lastObservedTime", time(n))]),
            ),
        ],
        ("events.k8s.io", "Event") => vec![
            ("eventTime", time(n)),
            (
                "series",
                obj(n, vec![("count", int(n)), ("lastObservedTime", time(n))]),
            ),
            ("reportingController", string(n)),
            ("reportingInstance", string(n)),
            ("action", string(n)),
            ("reason", string(n)),
            ("regarding", object_reference(n)),
            ("related", object_reference(n)),
            ("note", string(n)),
            ("type", pick(n, &["Normal", "Warning"])),
            ("deprecatedCount", int(n)),
            ("deprecatedFirstTimestamp", time(n)),
        ],
        ("apps", "Deployment") => vec![(
            "spec",
            obj(
                n,
                vec![
                    ("replicas", int(n)),
                    ("selector", label_selector(n)),
                    ("template", pod_template(n)),
                    (
                        "strategy",
                        obj(
                            n,
                            vec![
                                ("type", pick(n, &["RollingUpdate", "Recreate", "x"])),
                                (
                                    "rollingUpdate",
                                    obj(
                                        n,
                                        vec![
                                            ("maxSurge", int_or_string(n)),
                                            ("maxUnavailable", int_or_string(n)),
                                        ],
                                    ),
                                ),
                            ],
                        ),
                    ),
                    ("minReadySeconds", int(n)),
                    ("revisionHistoryLimit", int(n)),
                    ("paused", boolean(n)),
                    ("progressDeadlineSeconds", int(n)),
                ],
            ),
        )],
        ("apps", "ReplicaSet") => vec![(
            "spec",
            obj(
                n,
                vec![
                    ("replicas", int(n)),
                    ("minReadySeconds", int(n)),
                    ("selector", label_selector(n)),
                    ("template", pod_template(n)),
                ],
            ),
        )],
        ("apps", "DaemonSet") => vec![(
            "spec",
            obj(
                n,
                vec![
                    ("selector", label_selector(n)),
                    ("template", pod_template(n)),
                    (
                        "updateStrategy",
                        obj(
                            n,
                            vec![
                                ("type", pick(n, &["RollingUpdate", "OnDelete", "x"])),
                                (
                                    "rollingUpdate",
                                    obj(
                                        n,
                                        vec![
                                            ("maxSurge", int_or_string(n)),
                                            ("maxUnavailable", int_or_string(n)),
                                        ],
                                    ),
                                ),
                            ],
                        ),
                    ),
                    ("minReadySeconds", int(n)),
                    ("revisionHistoryLimit", int(n)),
                ],
            ),
        )],
        ("apps", "ControllerRevision") => vec![("data", any_json()), ("revision", int(n))],
        ("policy", "PodDisruptionBudget") => vec![(
            "spec",
            obj(
                n,
                vec![
                    ("minAvailable", int_or_string(n)),
                    ("maxUnavailable", int_or_string(n)),
                    ("selector", label_selector(n)),
                    (
                        "unhealthyPodEvictionPolicy",
                        pick(n, &["IfHealthyBudget", "AlwaysAllow", "x"]),
                    ),
                ],
            ),
        )],
        ("coordination.k8s.io", "Lease") => vec![(
            "spec",
            obj(
                n,
                vec![
                    ("holderIdentity", string(n)),
                    ("leaseDurationSeconds", int(n)),
                    ("acquireTime", time(n)),
                    ("renewTime", time(n)),
                    ("leaseTransitions", int(n)),
                    ("strategy", string(n)),
                    ("preferredHolder", string(n)),
                ],
            ),
        )],
        _ => vec![("spec", empty_obj(n)), ("status", empty_obj(n))],
    }
}

/// A request body for `res`: its own apiVersion and kind, or with the noise's odds another's.
pub fn document(n: Noise, res: &'static ResourceDef) -> Gen {
    const API_VERSIONS: &[&str] = &[
        "",
        "v1",
        "v2",
        "apps/v1",
        "apps/v1beta1",
        "policy/v1beta1",
        "policy/v1",
        "x/y/z",
        "/v1",
        "apps/",
        "events.k8s.io/v1",
        "coordination.k8s.io/v1",
        "meta.k8s.io/v1",
    ];
    const KINDS: &[&str] = &[
        "",
        "Pod",
        "Node",
        "Deployment",
        "Status",
        "DeleteOptions",
        "Eviction",
        "Scale",
        "pod",
        "List",
    ];
    let api_version = noisy(
        n,
        n.either(
            Just(J::s(res.api_version())),
            prop::sample::select(API_VERSIONS).prop_map(J::s),
        ),
    );
    let kind = noisy(
        n,
        n.either(
            Just(J::s(res.kind)),
            prop::sample::select(KINDS).prop_map(J::s),
        ),
    );
    let mut fields: Vec<BoxedStrategy<Option<(JStr, J)>>> = vec![
        prop::option::weighted(0.9, api_version.prop_map(|v| (JStr::text("apiVersion"), v)))
            .boxed(),
        prop::option::weighted(0.9, kind.prop_map(|v| (JStr::text("kind"), v))).boxed(),
        prop::option::weighted(0.8, metadata(n).prop_map(|v| (JStr::text("metadata"), v))).boxed(),
    ];
    let mut names = vec!["apiVersion", "kind", "metadata"];
    for (k, g) in body_fields(n, res) {
        names.push(k);
        fields.push(prop::option::weighted(0.7, g.prop_map(move |v| (JStr::text(k), v))).boxed());
    }
    let extra = n.either(
        Just(Vec::new()),
        prop::collection::vec((extra_key(names), any_json()), 1..3),
    );
    (fields, extra)
        .prop_map(|(fields, extra)| J::Obj(fields.into_iter().flatten().chain(extra).collect()))
        .boxed()
}
