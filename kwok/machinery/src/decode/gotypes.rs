//! Go type names for decode errors (`... of type v1.RestartPolicy`).
//!
//! The walk learns most types from the k8s-openapi structs (their names are the Go struct names),
//! but those model Go's named string types (`type RestartPolicy string`) as plain `String`, so the
//! fields whose Go type is a named type are listed here: (Go struct, JSON field) → Go type, as
//! `reflect.Type.String()` prints it. Field types follow k8s.io/api core/v1, apps/v1, policy/v1,
//! coordination/v1 and apimachinery meta/v1 `types.go`.

const NAMED_FIELDS: &[(&str, &str, &str)] = &[
    // core/v1 PodSpec and friends
    ("PodSpec", "restartPolicy", "v1.RestartPolicy"),
    ("PodSpec", "dnsPolicy", "v1.DNSPolicy"),
    ("PodSpec", "preemptionPolicy", "v1.PreemptionPolicy"),
    ("PodSpec", "overhead", "v1.ResourceList"),
    ("Container", "imagePullPolicy", "v1.PullPolicy"),
    (
        "Container",
        "terminationMessagePolicy",
        "v1.TerminationMessagePolicy",
    ),
    ("Container", "restartPolicy", "v1.ContainerRestartPolicy"),
    ("EphemeralContainer", "imagePullPolicy", "v1.PullPolicy"),
    (
        "EphemeralContainer",
        "terminationMessagePolicy",
        "v1.TerminationMessagePolicy",
    ),
    (
        "EphemeralContainer",
        "restartPolicy",
        "v1.ContainerRestartPolicy",
    ),
    ("ContainerPort", "protocol", "v1.Protocol"),
    ("ResourceRequirements", "limits", "v1.ResourceList"),
    ("ResourceRequirements", "requests", "v1.ResourceList"),
    ("VolumeResourceRequirements", "limits", "v1.ResourceList"),
    ("VolumeResourceRequirements", "requests", "v1.ResourceList"),
    ("ContainerResizePolicy", "resourceName", "v1.ResourceName"),
    (
        "ContainerResizePolicy",
        "restartPolicy",
        "v1.ResourceResizeRestartPolicy",
    ),
    ("Capabilities", "add", "[]v1.Capability"),
    ("Capabilities", "drop", "[]v1.Capability"),
    ("SecurityContext", "procMount", "v1.ProcMountType"),
    (
        "PodSecurityContext",
        "fsGroupChangePolicy",
        "v1.PodFSGroupChangePolicy",
    ),
    (
        "PodSecurityContext",
        "supplementalGroupsPolicy",
        "v1.SupplementalGroupsPolicy",
    ),
    (
        "PodSecurityContext",
        "seLinuxChangePolicy",
        "v1.PodSELinuxChangePolicy",
    ),
    ("SeccompProfile", "type", "v1.SeccompProfileType"),
    ("AppArmorProfile", "type", "v1.AppArmorProfileType"),
    ("VolumeMount", "mountPropagation", "v1.MountPropagationMode"),
    (
        "VolumeMount",
        "recursiveReadOnly",
        "v1.RecursiveReadOnlyMode",
    ),
    ("HTTPGetAction", "scheme", "v1.URIScheme"),
    ("Toleration", "operator", "v1.TolerationOperator"),
    ("Toleration", "effect", "v1.TaintEffect"),
    ("Taint", "effect", "v1.TaintEffect"),
    (
        "NodeSelectorRequirement",
        "operator",
        "v1.NodeSelectorOperator",
    ),
    (
        "TopologySpreadConstraint",
        "whenUnsatisfiable",
        "v1.UnsatisfiableConstraintAction",
    ),
    (
        "TopologySpreadConstraint",
        "nodeAffinityPolicy",
        "v1.NodeInclusionPolicy",
    ),
    (
        "TopologySpreadConstraint",
        "nodeTaintsPolicy",
        "v1.NodeInclusionPolicy",
    ),
    ("PodOS", "name", "v1.OSName"),
    ("PodReadinessGate", "conditionType", "v1.PodConditionType"),
    ("HostPathVolumeSource", "type", "v1.HostPathType"),
    ("EmptyDirVolumeSource", "medium", "v1.StorageMedium"),
    (
        "PersistentVolumeClaimSpec",
        "accessModes",
        "[]v1.PersistentVolumeAccessMode",
    ),
    (
        "PersistentVolumeClaimSpec",
        "volumeMode",
        "v1.PersistentVolumeMode",
    ),
    ("Lifecycle", "stopSignal", "v1.Signal"),
    // core/v1 status types
    ("PodStatus", "phase", "v1.PodPhase"),
    ("PodStatus", "qosClass", "v1.PodQOSClass"),
    ("PodStatus", "resize", "v1.PodResizeStatus"),
    ("PodCondition", "type", "v1.PodConditionType"),
    ("PodCondition", "status", "v1.ConditionStatus"),
    ("ContainerStatus", "allocatedResources", "v1.ResourceList"),
    ("ContainerStatus", "stopSignal", "v1.Signal"),
    ("NodeStatus", "capacity", "v1.ResourceList"),
    ("NodeStatus", "allocatable", "v1.ResourceList"),
    ("NodeStatus", "phase", "v1.NodePhase"),
    ("NodeStatus", "volumesInUse", "[]v1.UniqueVolumeName"),
    ("AttachedVolume", "name", "v1.UniqueVolumeName"),
    ("NodeCondition", "type", "v1.NodeConditionType"),
    ("NodeCondition", "status", "v1.ConditionStatus"),
    ("NodeAddress", "type", "v1.NodeAddressType"),
    ("NamespaceSpec", "finalizers", "[]v1.FinalizerName"),
    ("NamespaceStatus", "phase", "v1.NamespacePhase"),
    ("NamespaceCondition", "type", "v1.NamespaceConditionType"),
    ("NamespaceCondition", "status", "v1.ConditionStatus"),
    ("Secret", "type", "v1.SecretType"),
    ("Secret", "data", "map[string][]uint8"),
    ("ConfigMap", "binaryData", "map[string][]uint8"),
    ("ObjectReference", "uid", "types.UID"),
    // apps/v1
    ("DeploymentStrategy", "type", "v1.DeploymentStrategyType"),
    (
        "DaemonSetUpdateStrategy",
        "type",
        "v1.DaemonSetUpdateStrategyType",
    ),
    ("DeploymentCondition", "type", "v1.DeploymentConditionType"),
    ("DeploymentCondition", "status", "v1.ConditionStatus"),
    ("ReplicaSetCondition", "type", "v1.ReplicaSetConditionType"),
    ("ReplicaSetCondition", "status", "v1.ConditionStatus"),
    ("DaemonSetCondition", "type", "v1.DaemonSetConditionType"),
    ("DaemonSetCondition", "status", "v1.ConditionStatus"),
    // policy/v1, coordination/v1
    (
        "PodDisruptionBudgetSpec",
        "unhealthyPodEvictionPolicy",
        "v1.UnhealthyPodEvictionPolicyType",
    ),
    ("LeaseSpec", "strategy", "v1.CoordinatedLeaseStrategy"),
    // apimachinery meta/v1
    ("ObjectMeta", "uid", "types.UID"),
    ("OwnerReference", "uid", "types.UID"),
    ("Preconditions", "uid", "types.UID"),
    (
        "ManagedFieldsEntry",
        "operation",
        "v1.ManagedFieldsOperationType",
    ),
    (
        "LabelSelectorRequirement",
        "operator",
        "v1.LabelSelectorOperator",
    ),
    ("Condition", "status", "v1.ConditionStatus"),
    (
        "DeleteOptions",
        "propagationPolicy",
        "v1.DeletionPropagation",
    ),
];

/// The Go type of `field` in Go struct `owner`, when it is a named type.
pub fn named_field(owner: &str, field: &str) -> Option<&'static str> {
    NAMED_FIELDS
        .iter()
        .find(|(o, f, _)| *o == owner && *f == field)
        .map(|(_, _, t)| *t)
}

/// The Go type of the elements of a slice or map type.
pub fn element_of(go_type: &str) -> Option<String> {
    if let Some(rest) = go_type.strip_prefix("[]") {
        return Some(rest.to_string());
    }
    if let Some(rest) = go_type.strip_prefix("map[") {
        // Key types here are never nested, so the first ']' closes the key.
        return rest.find(']').map(|i| rest[i + 1..].to_string());
    }
    match go_type {
        "v1.ResourceList" => Some("resource.Quantity".into()),
        _ => None,
    }
}

/// The Go name of a struct type, given its (k8s-openapi = Go) struct name. All served API types
/// live in packages named `v1` (core, apps, meta, policy, coordination, events, autoscaling).
pub fn struct_type(name: &str) -> String {
    format!("v1.{name}")
}

/// Go names of the types k8s-openapi models as newtypes.
pub fn newtype(name: &str) -> Option<&'static str> {
    match name {
        "Quantity" => Some("resource.Quantity"),
        "Time" => Some("v1.Time"),
        "MicroTime" => Some("v1.MicroTime"),
        "RawExtension" => Some("runtime.RawExtension"),
        "FieldsV1" => Some("v1.FieldsV1"),
        _ => None,
    }
}
