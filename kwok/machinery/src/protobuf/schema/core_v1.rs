//! `core/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{Bool, Bytes, IntOrString, MicroTime, Msg, Quantity, Str, Time, I32, I64};
use super::{inline, keep, list, map, message, meta_v1, opt, Message};

pub static AFFINITY: Message = message(
    "Affinity",
    &[
        keep(1, "nodeAffinity", Msg(&NODE_AFFINITY)),
        keep(2, "podAffinity", Msg(&POD_AFFINITY)),
        keep(3, "podAntiAffinity", Msg(&POD_ANTI_AFFINITY)),
    ],
);

pub static APP_ARMOR_PROFILE: Message = message(
    "AppArmorProfile",
    &[keep(1, "type", Str), keep(2, "localhostProfile", Str)],
);

pub static ATTACHED_VOLUME: Message = message(
    "AttachedVolume",
    &[keep(1, "name", Str), keep(2, "devicePath", Str)],
);

pub static AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE: Message = message(
    "AWSElasticBlockStoreVolumeSource",
    &[
        keep(1, "volumeID", Str),
        opt(2, "fsType", Str),
        opt(3, "partition", I32),
        opt(4, "readOnly", Bool),
    ],
);

pub static AZURE_DISK_VOLUME_SOURCE: Message = message(
    "AzureDiskVolumeSource",
    &[
        keep(1, "diskName", Str),
        keep(2, "diskURI", Str),
        keep(3, "cachingMode", Str),
        keep(4, "fsType", Str),
        keep(5, "readOnly", Bool),
        keep(6, "kind", Str),
    ],
);

pub static AZURE_FILE_PERSISTENT_VOLUME_SOURCE: Message = message(
    "AzureFilePersistentVolumeSource",
    &[
        keep(1, "secretName", Str),
        keep(2, "shareName", Str),
        opt(3, "readOnly", Bool),
        keep(4, "secretNamespace", Str),
    ],
);

pub static AZURE_FILE_VOLUME_SOURCE: Message = message(
    "AzureFileVolumeSource",
    &[
        keep(1, "secretName", Str),
        keep(2, "shareName", Str),
        opt(3, "readOnly", Bool),
    ],
);

pub static BINDING: Message = message(
    "Binding",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "target", Msg(&OBJECT_REFERENCE)),
    ],
);

pub static CAPABILITIES: Message =
    message("Capabilities", &[list(1, "add", Str), list(2, "drop", Str)]);

pub static CEPH_FS_PERSISTENT_VOLUME_SOURCE: Message = message(
    "CephFSPersistentVolumeSource",
    &[
        list(1, "monitors", Str),
        opt(2, "path", Str),
        opt(3, "user", Str),
        opt(4, "secretFile", Str),
        keep(5, "secretRef", Msg(&SECRET_REFERENCE)),
        opt(6, "readOnly", Bool),
    ],
);

pub static CEPH_FS_VOLUME_SOURCE: Message = message(
    "CephFSVolumeSource",
    &[
        list(1, "monitors", Str),
        opt(2, "path", Str),
        opt(3, "user", Str),
        opt(4, "secretFile", Str),
        keep(5, "secretRef", Msg(&LOCAL_OBJECT_REFERENCE)),
        opt(6, "readOnly", Bool),
    ],
);

pub static CINDER_PERSISTENT_VOLUME_SOURCE: Message = message(
    "CinderPersistentVolumeSource",
    &[
        keep(1, "volumeID", Str),
        opt(2, "fsType", Str),
        opt(3, "readOnly", Bool),
        keep(4, "secretRef", Msg(&SECRET_REFERENCE)),
    ],
);

pub static CINDER_VOLUME_SOURCE: Message = message(
    "CinderVolumeSource",
    &[
        keep(1, "volumeID", Str),
        opt(2, "fsType", Str),
        opt(3, "readOnly", Bool),
        keep(4, "secretRef", Msg(&LOCAL_OBJECT_REFERENCE)),
    ],
);

pub static CLIENT_IP_CONFIG: Message = message("ClientIPConfig", &[keep(1, "timeoutSeconds", I32)]);

pub static CLUSTER_TRUST_BUNDLE_PROJECTION: Message = message(
    "ClusterTrustBundleProjection",
    &[
        keep(1, "name", Str),
        keep(2, "signerName", Str),
        keep(3, "labelSelector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(5, "optional", Bool),
        keep(4, "path", Str),
    ],
);

pub static CONFIG_MAP: Message = message(
    "ConfigMap",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(4, "immutable", Bool),
        map(2, "data", Str),
        map(3, "binaryData", Bytes),
    ],
);

pub static CONFIG_MAP_ENV_SOURCE: Message = message(
    "ConfigMapEnvSource",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        keep(2, "optional", Bool),
    ],
);

pub static CONFIG_MAP_KEY_SELECTOR: Message = message(
    "ConfigMapKeySelector",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        keep(2, "key", Str),
        keep(3, "optional", Bool),
    ],
);

pub static CONFIG_MAP_NODE_CONFIG_SOURCE: Message = message(
    "ConfigMapNodeConfigSource",
    &[
        keep(1, "namespace", Str),
        keep(2, "name", Str),
        opt(3, "uid", Str),
        opt(4, "resourceVersion", Str),
        keep(5, "kubeletConfigKey", Str),
    ],
);

pub static CONFIG_MAP_PROJECTION: Message = message(
    "ConfigMapProjection",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Msg(&KEY_TO_PATH)),
        keep(4, "optional", Bool),
    ],
);

pub static CONFIG_MAP_VOLUME_SOURCE: Message = message(
    "ConfigMapVolumeSource",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Msg(&KEY_TO_PATH)),
        keep(3, "defaultMode", I32),
        keep(4, "optional", Bool),
    ],
);

pub static CONTAINER: Message = message(
    "Container",
    &[
        keep(1, "name", Str),
        opt(2, "image", Str),
        list(3, "command", Str),
        list(4, "args", Str),
        opt(5, "workingDir", Str),
        list(6, "ports", Msg(&CONTAINER_PORT)),
        list(19, "envFrom", Msg(&ENV_FROM_SOURCE)),
        list(7, "env", Msg(&ENV_VAR)),
        keep(8, "resources", Msg(&RESOURCE_REQUIREMENTS)),
        list(23, "resizePolicy", Msg(&CONTAINER_RESIZE_POLICY)),
        keep(24, "restartPolicy", Str),
        list(9, "volumeMounts", Msg(&VOLUME_MOUNT)),
        list(21, "volumeDevices", Msg(&VOLUME_DEVICE)),
        keep(10, "livenessProbe", Msg(&PROBE)),
        keep(11, "readinessProbe", Msg(&PROBE)),
        keep(22, "startupProbe", Msg(&PROBE)),
        keep(12, "lifecycle", Msg(&LIFECYCLE)),
        opt(13, "terminationMessagePath", Str),
        opt(20, "terminationMessagePolicy", Str),
        opt(14, "imagePullPolicy", Str),
        keep(15, "securityContext", Msg(&SECURITY_CONTEXT)),
        opt(16, "stdin", Bool),
        opt(17, "stdinOnce", Bool),
        opt(18, "tty", Bool),
    ],
);

pub static CONTAINER_IMAGE: Message = message(
    "ContainerImage",
    &[list(1, "names", Str), opt(2, "sizeBytes", I64)],
);

pub static CONTAINER_PORT: Message = message(
    "ContainerPort",
    &[
        opt(1, "name", Str),
        opt(2, "hostPort", I32),
        keep(3, "containerPort", I32),
        opt(4, "protocol", Str),
        opt(5, "hostIP", Str),
    ],
);

pub static CONTAINER_RESIZE_POLICY: Message = message(
    "ContainerResizePolicy",
    &[keep(1, "resourceName", Str), keep(2, "restartPolicy", Str)],
);

pub static CONTAINER_STATE: Message = message(
    "ContainerState",
    &[
        keep(1, "waiting", Msg(&CONTAINER_STATE_WAITING)),
        keep(2, "running", Msg(&CONTAINER_STATE_RUNNING)),
        keep(3, "terminated", Msg(&CONTAINER_STATE_TERMINATED)),
    ],
);

pub static CONTAINER_STATE_RUNNING: Message =
    message("ContainerStateRunning", &[keep(1, "startedAt", Time)]);

pub static CONTAINER_STATE_TERMINATED: Message = message(
    "ContainerStateTerminated",
    &[
        keep(1, "exitCode", I32),
        opt(2, "signal", I32),
        opt(3, "reason", Str),
        opt(4, "message", Str),
        keep(5, "startedAt", Time),
        keep(6, "finishedAt", Time),
        opt(7, "containerID", Str),
    ],
);

pub static CONTAINER_STATE_WAITING: Message = message(
    "ContainerStateWaiting",
    &[opt(1, "reason", Str), opt(2, "message", Str)],
);

pub static CONTAINER_STATUS: Message = message(
    "ContainerStatus",
    &[
        keep(1, "name", Str),
        keep(2, "state", Msg(&CONTAINER_STATE)),
        keep(3, "lastState", Msg(&CONTAINER_STATE)),
        keep(4, "ready", Bool),
        keep(5, "restartCount", I32),
        keep(6, "image", Str),
        keep(7, "imageID", Str),
        opt(8, "containerID", Str),
        keep(9, "started", Bool),
        map(10, "allocatedResources", Quantity),
        keep(11, "resources", Msg(&RESOURCE_REQUIREMENTS)),
        list(12, "volumeMounts", Msg(&VOLUME_MOUNT_STATUS)),
        keep(13, "user", Msg(&CONTAINER_USER)),
        list(14, "allocatedResourcesStatus", Msg(&RESOURCE_STATUS)),
    ],
);

pub static CONTAINER_USER: Message = message(
    "ContainerUser",
    &[keep(1, "linux", Msg(&LINUX_CONTAINER_USER))],
);

pub static CSI_PERSISTENT_VOLUME_SOURCE: Message = message(
    "CSIPersistentVolumeSource",
    &[
        keep(1, "driver", Str),
        keep(2, "volumeHandle", Str),
        opt(3, "readOnly", Bool),
        opt(4, "fsType", Str),
        map(5, "volumeAttributes", Str),
        keep(6, "controllerPublishSecretRef", Msg(&SECRET_REFERENCE)),
        keep(7, "nodeStageSecretRef", Msg(&SECRET_REFERENCE)),
        keep(8, "nodePublishSecretRef", Msg(&SECRET_REFERENCE)),
        keep(9, "controllerExpandSecretRef", Msg(&SECRET_REFERENCE)),
        keep(10, "nodeExpandSecretRef", Msg(&SECRET_REFERENCE)),
    ],
);

pub static CSI_VOLUME_SOURCE: Message = message(
    "CSIVolumeSource",
    &[
        keep(1, "driver", Str),
        keep(2, "readOnly", Bool),
        keep(3, "fsType", Str),
        map(4, "volumeAttributes", Str),
        keep(5, "nodePublishSecretRef", Msg(&LOCAL_OBJECT_REFERENCE)),
    ],
);

pub static DAEMON_ENDPOINT: Message = message("DaemonEndpoint", &[keep(1, "Port", I32)]);

pub static DOWNWARD_API_PROJECTION: Message = message(
    "DownwardAPIProjection",
    &[list(1, "items", Msg(&DOWNWARD_API_VOLUME_FILE))],
);

pub static DOWNWARD_API_VOLUME_FILE: Message = message(
    "DownwardAPIVolumeFile",
    &[
        keep(1, "path", Str),
        keep(2, "fieldRef", Msg(&OBJECT_FIELD_SELECTOR)),
        keep(3, "resourceFieldRef", Msg(&RESOURCE_FIELD_SELECTOR)),
        keep(4, "mode", I32),
    ],
);

pub static DOWNWARD_API_VOLUME_SOURCE: Message = message(
    "DownwardAPIVolumeSource",
    &[
        list(1, "items", Msg(&DOWNWARD_API_VOLUME_FILE)),
        keep(2, "defaultMode", I32),
    ],
);

pub static EMPTY_DIR_VOLUME_SOURCE: Message = message(
    "EmptyDirVolumeSource",
    &[opt(1, "medium", Str), keep(2, "sizeLimit", Quantity)],
);

pub static ENDPOINTS: Message = message(
    "Endpoints",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        list(2, "subsets", Msg(&ENDPOINT_SUBSET)),
    ],
);

pub static ENDPOINT_ADDRESS: Message = message(
    "EndpointAddress",
    &[
        keep(1, "ip", Str),
        opt(3, "hostname", Str),
        keep(4, "nodeName", Str),
        keep(2, "targetRef", Msg(&OBJECT_REFERENCE)),
    ],
);

pub static ENDPOINT_PORT: Message = message(
    "EndpointPort",
    &[
        opt(1, "name", Str),
        keep(2, "port", I32),
        opt(3, "protocol", Str),
        keep(4, "appProtocol", Str),
    ],
);

pub static ENDPOINT_SUBSET: Message = message(
    "EndpointSubset",
    &[
        list(1, "addresses", Msg(&ENDPOINT_ADDRESS)),
        list(2, "notReadyAddresses", Msg(&ENDPOINT_ADDRESS)),
        list(3, "ports", Msg(&ENDPOINT_PORT)),
    ],
);

pub static ENV_FROM_SOURCE: Message = message(
    "EnvFromSource",
    &[
        opt(1, "prefix", Str),
        keep(2, "configMapRef", Msg(&CONFIG_MAP_ENV_SOURCE)),
        keep(3, "secretRef", Msg(&SECRET_ENV_SOURCE)),
    ],
);

pub static ENV_VAR: Message = message(
    "EnvVar",
    &[
        keep(1, "name", Str),
        opt(2, "value", Str),
        keep(3, "valueFrom", Msg(&ENV_VAR_SOURCE)),
    ],
);

pub static ENV_VAR_SOURCE: Message = message(
    "EnvVarSource",
    &[
        keep(1, "fieldRef", Msg(&OBJECT_FIELD_SELECTOR)),
        keep(2, "resourceFieldRef", Msg(&RESOURCE_FIELD_SELECTOR)),
        keep(3, "configMapKeyRef", Msg(&CONFIG_MAP_KEY_SELECTOR)),
        keep(4, "secretKeyRef", Msg(&SECRET_KEY_SELECTOR)),
    ],
);

pub static EPHEMERAL_CONTAINER: Message = message(
    "EphemeralContainer",
    &[
        inline(1, &EPHEMERAL_CONTAINER_COMMON),
        opt(2, "targetContainerName", Str),
    ],
);

pub static EPHEMERAL_CONTAINER_COMMON: Message = message(
    "EphemeralContainerCommon",
    &[
        keep(1, "name", Str),
        opt(2, "image", Str),
        list(3, "command", Str),
        list(4, "args", Str),
        opt(5, "workingDir", Str),
        list(6, "ports", Msg(&CONTAINER_PORT)),
        list(19, "envFrom", Msg(&ENV_FROM_SOURCE)),
        list(7, "env", Msg(&ENV_VAR)),
        keep(8, "resources", Msg(&RESOURCE_REQUIREMENTS)),
        list(23, "resizePolicy", Msg(&CONTAINER_RESIZE_POLICY)),
        keep(24, "restartPolicy", Str),
        list(9, "volumeMounts", Msg(&VOLUME_MOUNT)),
        list(21, "volumeDevices", Msg(&VOLUME_DEVICE)),
        keep(10, "livenessProbe", Msg(&PROBE)),
        keep(11, "readinessProbe", Msg(&PROBE)),
        keep(22, "startupProbe", Msg(&PROBE)),
        keep(12, "lifecycle", Msg(&LIFECYCLE)),
        opt(13, "terminationMessagePath", Str),
        opt(20, "terminationMessagePolicy", Str),
        opt(14, "imagePullPolicy", Str),
        keep(15, "securityContext", Msg(&SECURITY_CONTEXT)),
        opt(16, "stdin", Bool),
        opt(17, "stdinOnce", Bool),
        opt(18, "tty", Bool),
    ],
);

pub static EPHEMERAL_VOLUME_SOURCE: Message = message(
    "EphemeralVolumeSource",
    &[keep(
        1,
        "volumeClaimTemplate",
        Msg(&PERSISTENT_VOLUME_CLAIM_TEMPLATE),
    )],
);

pub static EVENT: Message = message(
    "Event",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "involvedObject", Msg(&OBJECT_REFERENCE)),
        opt(3, "reason", Str),
        opt(4, "message", Str),
        keep(5, "source", Msg(&EVENT_SOURCE)),
        keep(6, "firstTimestamp", Time),
        keep(7, "lastTimestamp", Time),
        opt(8, "count", I32),
        opt(9, "type", Str),
        keep(10, "eventTime", MicroTime),
        keep(11, "series", Msg(&EVENT_SERIES)),
        opt(12, "action", Str),
        keep(13, "related", Msg(&OBJECT_REFERENCE)),
        keep(14, "reportingComponent", Str),
        keep(15, "reportingInstance", Str),
    ],
);

pub static EVENT_SERIES: Message = message(
    "EventSeries",
    &[opt(1, "count", I32), keep(2, "lastObservedTime", MicroTime)],
);

pub static EVENT_SOURCE: Message = message(
    "EventSource",
    &[opt(1, "component", Str), opt(2, "host", Str)],
);

pub static EXEC_ACTION: Message = message("ExecAction", &[list(1, "command", Str)]);

pub static FC_VOLUME_SOURCE: Message = message(
    "FCVolumeSource",
    &[
        list(1, "targetWWNs", Str),
        keep(2, "lun", I32),
        opt(3, "fsType", Str),
        opt(4, "readOnly", Bool),
        list(5, "wwids", Str),
    ],
);

pub static FLEX_PERSISTENT_VOLUME_SOURCE: Message = message(
    "FlexPersistentVolumeSource",
    &[
        keep(1, "driver", Str),
        opt(2, "fsType", Str),
        keep(3, "secretRef", Msg(&SECRET_REFERENCE)),
        opt(4, "readOnly", Bool),
        map(5, "options", Str),
    ],
);

pub static FLEX_VOLUME_SOURCE: Message = message(
    "FlexVolumeSource",
    &[
        keep(1, "driver", Str),
        opt(2, "fsType", Str),
        keep(3, "secretRef", Msg(&LOCAL_OBJECT_REFERENCE)),
        opt(4, "readOnly", Bool),
        map(5, "options", Str),
    ],
);

pub static FLOCKER_VOLUME_SOURCE: Message = message(
    "FlockerVolumeSource",
    &[opt(1, "datasetName", Str), opt(2, "datasetUUID", Str)],
);

pub static GCE_PERSISTENT_DISK_VOLUME_SOURCE: Message = message(
    "GCEPersistentDiskVolumeSource",
    &[
        keep(1, "pdName", Str),
        opt(2, "fsType", Str),
        opt(3, "partition", I32),
        opt(4, "readOnly", Bool),
    ],
);

pub static GIT_REPO_VOLUME_SOURCE: Message = message(
    "GitRepoVolumeSource",
    &[
        keep(1, "repository", Str),
        opt(2, "revision", Str),
        opt(3, "directory", Str),
    ],
);

pub static GLUSTERFS_PERSISTENT_VOLUME_SOURCE: Message = message(
    "GlusterfsPersistentVolumeSource",
    &[
        keep(1, "endpoints", Str),
        keep(2, "path", Str),
        opt(3, "readOnly", Bool),
        keep(4, "endpointsNamespace", Str),
    ],
);

pub static GLUSTERFS_VOLUME_SOURCE: Message = message(
    "GlusterfsVolumeSource",
    &[
        keep(1, "endpoints", Str),
        keep(2, "path", Str),
        opt(3, "readOnly", Bool),
    ],
);

pub static GRPC_ACTION: Message = message(
    "GRPCAction",
    &[keep(1, "port", I32), keep(2, "service", Str)],
);

pub static HOST_ALIAS: Message = message(
    "HostAlias",
    &[keep(1, "ip", Str), list(2, "hostnames", Str)],
);

pub static HOST_IP: Message = message("HostIP", &[keep(1, "ip", Str)]);

pub static HOST_PATH_VOLUME_SOURCE: Message = message(
    "HostPathVolumeSource",
    &[keep(1, "path", Str), keep(2, "type", Str)],
);

pub static HTTP_GET_ACTION: Message = message(
    "HTTPGetAction",
    &[
        opt(1, "path", Str),
        keep(2, "port", IntOrString),
        opt(3, "host", Str),
        opt(4, "scheme", Str),
        list(5, "httpHeaders", Msg(&HTTP_HEADER)),
    ],
);

pub static HTTP_HEADER: Message =
    message("HTTPHeader", &[keep(1, "name", Str), keep(2, "value", Str)]);

pub static IMAGE_VOLUME_SOURCE: Message = message(
    "ImageVolumeSource",
    &[opt(1, "reference", Str), opt(2, "pullPolicy", Str)],
);

pub static ISCSI_PERSISTENT_VOLUME_SOURCE: Message = message(
    "ISCSIPersistentVolumeSource",
    &[
        keep(1, "targetPortal", Str),
        keep(2, "iqn", Str),
        keep(3, "lun", I32),
        opt(4, "iscsiInterface", Str),
        opt(5, "fsType", Str),
        opt(6, "readOnly", Bool),
        list(7, "portals", Str),
        opt(8, "chapAuthDiscovery", Bool),
        opt(11, "chapAuthSession", Bool),
        keep(10, "secretRef", Msg(&SECRET_REFERENCE)),
        keep(12, "initiatorName", Str),
    ],
);

pub static ISCSI_VOLUME_SOURCE: Message = message(
    "ISCSIVolumeSource",
    &[
        keep(1, "targetPortal", Str),
        keep(2, "iqn", Str),
        keep(3, "lun", I32),
        opt(4, "iscsiInterface", Str),
        opt(5, "fsType", Str),
        opt(6, "readOnly", Bool),
        list(7, "portals", Str),
        opt(8, "chapAuthDiscovery", Bool),
        opt(11, "chapAuthSession", Bool),
        keep(10, "secretRef", Msg(&LOCAL_OBJECT_REFERENCE)),
        keep(12, "initiatorName", Str),
    ],
);

pub static KEY_TO_PATH: Message = message(
    "KeyToPath",
    &[
        keep(1, "key", Str),
        keep(2, "path", Str),
        keep(3, "mode", I32),
    ],
);

pub static LIFECYCLE: Message = message(
    "Lifecycle",
    &[
        keep(1, "postStart", Msg(&LIFECYCLE_HANDLER)),
        keep(2, "preStop", Msg(&LIFECYCLE_HANDLER)),
    ],
);

pub static LIFECYCLE_HANDLER: Message = message(
    "LifecycleHandler",
    &[
        keep(1, "exec", Msg(&EXEC_ACTION)),
        keep(2, "httpGet", Msg(&HTTP_GET_ACTION)),
        keep(3, "tcpSocket", Msg(&TCP_SOCKET_ACTION)),
        keep(4, "sleep", Msg(&SLEEP_ACTION)),
    ],
);

pub static LIMIT_RANGE: Message = message(
    "LimitRange",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&LIMIT_RANGE_SPEC)),
    ],
);

pub static LIMIT_RANGE_ITEM: Message = message(
    "LimitRangeItem",
    &[
        keep(1, "type", Str),
        map(2, "max", Quantity),
        map(3, "min", Quantity),
        map(4, "default", Quantity),
        map(5, "defaultRequest", Quantity),
        map(6, "maxLimitRequestRatio", Quantity),
    ],
);

pub static LIMIT_RANGE_SPEC: Message = message(
    "LimitRangeSpec",
    &[list(1, "limits", Msg(&LIMIT_RANGE_ITEM))],
);

pub static LINUX_CONTAINER_USER: Message = message(
    "LinuxContainerUser",
    &[
        keep(1, "uid", I64),
        keep(2, "gid", I64),
        list(3, "supplementalGroups", I64),
    ],
);

pub static LOAD_BALANCER_INGRESS: Message = message(
    "LoadBalancerIngress",
    &[
        opt(1, "ip", Str),
        opt(2, "hostname", Str),
        keep(3, "ipMode", Str),
        list(4, "ports", Msg(&PORT_STATUS)),
    ],
);

pub static LOAD_BALANCER_STATUS: Message = message(
    "LoadBalancerStatus",
    &[list(1, "ingress", Msg(&LOAD_BALANCER_INGRESS))],
);

pub static LOCAL_OBJECT_REFERENCE: Message =
    message("LocalObjectReference", &[opt(1, "name", Str)]);

pub static LOCAL_VOLUME_SOURCE: Message = message(
    "LocalVolumeSource",
    &[keep(1, "path", Str), keep(2, "fsType", Str)],
);

pub static MODIFY_VOLUME_STATUS: Message = message(
    "ModifyVolumeStatus",
    &[
        opt(1, "targetVolumeAttributesClassName", Str),
        keep(2, "status", Str),
    ],
);

pub static NAMESPACE: Message = message(
    "Namespace",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&NAMESPACE_SPEC)),
        keep(3, "status", Msg(&NAMESPACE_STATUS)),
    ],
);

pub static NAMESPACE_CONDITION: Message = message(
    "NamespaceCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(4, "lastTransitionTime", Time),
        opt(5, "reason", Str),
        opt(6, "message", Str),
    ],
);

pub static NAMESPACE_SPEC: Message = message("NamespaceSpec", &[list(1, "finalizers", Str)]);

pub static NAMESPACE_STATUS: Message = message(
    "NamespaceStatus",
    &[
        opt(1, "phase", Str),
        list(2, "conditions", Msg(&NAMESPACE_CONDITION)),
    ],
);

pub static NFS_VOLUME_SOURCE: Message = message(
    "NFSVolumeSource",
    &[
        keep(1, "server", Str),
        keep(2, "path", Str),
        opt(3, "readOnly", Bool),
    ],
);

pub static NODE: Message = message(
    "Node",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&NODE_SPEC)),
        keep(3, "status", Msg(&NODE_STATUS)),
    ],
);

pub static NODE_ADDRESS: Message = message(
    "NodeAddress",
    &[keep(1, "type", Str), keep(2, "address", Str)],
);

pub static NODE_AFFINITY: Message = message(
    "NodeAffinity",
    &[
        keep(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            Msg(&NODE_SELECTOR),
        ),
        list(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            Msg(&PREFERRED_SCHEDULING_TERM),
        ),
    ],
);

pub static NODE_CONDITION: Message = message(
    "NodeCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastHeartbeatTime", Time),
        keep(4, "lastTransitionTime", Time),
        opt(5, "reason", Str),
        opt(6, "message", Str),
    ],
);

pub static NODE_CONFIG_SOURCE: Message = message(
    "NodeConfigSource",
    &[keep(2, "configMap", Msg(&CONFIG_MAP_NODE_CONFIG_SOURCE))],
);

pub static NODE_CONFIG_STATUS: Message = message(
    "NodeConfigStatus",
    &[
        keep(1, "assigned", Msg(&NODE_CONFIG_SOURCE)),
        keep(2, "active", Msg(&NODE_CONFIG_SOURCE)),
        keep(3, "lastKnownGood", Msg(&NODE_CONFIG_SOURCE)),
        opt(4, "error", Str),
    ],
);

pub static NODE_DAEMON_ENDPOINTS: Message = message(
    "NodeDaemonEndpoints",
    &[keep(1, "kubeletEndpoint", Msg(&DAEMON_ENDPOINT))],
);

pub static NODE_FEATURES: Message =
    message("NodeFeatures", &[keep(1, "supplementalGroupsPolicy", Bool)]);

pub static NODE_RUNTIME_HANDLER: Message = message(
    "NodeRuntimeHandler",
    &[
        keep(1, "name", Str),
        keep(2, "features", Msg(&NODE_RUNTIME_HANDLER_FEATURES)),
    ],
);

pub static NODE_RUNTIME_HANDLER_FEATURES: Message = message(
    "NodeRuntimeHandlerFeatures",
    &[
        keep(1, "recursiveReadOnlyMounts", Bool),
        keep(2, "userNamespaces", Bool),
    ],
);

pub static NODE_SELECTOR: Message = message(
    "NodeSelector",
    &[list(1, "nodeSelectorTerms", Msg(&NODE_SELECTOR_TERM))],
);

pub static NODE_SELECTOR_REQUIREMENT: Message = message(
    "NodeSelectorRequirement",
    &[
        keep(1, "key", Str),
        keep(2, "operator", Str),
        list(3, "values", Str),
    ],
);

pub static NODE_SELECTOR_TERM: Message = message(
    "NodeSelectorTerm",
    &[
        list(1, "matchExpressions", Msg(&NODE_SELECTOR_REQUIREMENT)),
        list(2, "matchFields", Msg(&NODE_SELECTOR_REQUIREMENT)),
    ],
);

pub static NODE_SPEC: Message = message(
    "NodeSpec",
    &[
        opt(1, "podCIDR", Str),
        list(7, "podCIDRs", Str),
        opt(3, "providerID", Str),
        opt(4, "unschedulable", Bool),
        list(5, "taints", Msg(&TAINT)),
        keep(6, "configSource", Msg(&NODE_CONFIG_SOURCE)),
        opt(2, "externalID", Str),
    ],
);

pub static NODE_STATUS: Message = message(
    "NodeStatus",
    &[
        map(1, "capacity", Quantity),
        map(2, "allocatable", Quantity),
        opt(3, "phase", Str),
        list(4, "conditions", Msg(&NODE_CONDITION)),
        list(5, "addresses", Msg(&NODE_ADDRESS)),
        keep(6, "daemonEndpoints", Msg(&NODE_DAEMON_ENDPOINTS)),
        keep(7, "nodeInfo", Msg(&NODE_SYSTEM_INFO)),
        list(8, "images", Msg(&CONTAINER_IMAGE)),
        list(9, "volumesInUse", Str),
        list(10, "volumesAttached", Msg(&ATTACHED_VOLUME)),
        keep(11, "config", Msg(&NODE_CONFIG_STATUS)),
        list(12, "runtimeHandlers", Msg(&NODE_RUNTIME_HANDLER)),
        keep(13, "features", Msg(&NODE_FEATURES)),
    ],
);

pub static NODE_SYSTEM_INFO: Message = message(
    "NodeSystemInfo",
    &[
        keep(1, "machineID", Str),
        keep(2, "systemUUID", Str),
        keep(3, "bootID", Str),
        keep(4, "kernelVersion", Str),
        keep(5, "osImage", Str),
        keep(6, "containerRuntimeVersion", Str),
        keep(7, "kubeletVersion", Str),
        keep(8, "kubeProxyVersion", Str),
        keep(9, "operatingSystem", Str),
        keep(10, "architecture", Str),
    ],
);

pub static OBJECT_FIELD_SELECTOR: Message = message(
    "ObjectFieldSelector",
    &[opt(1, "apiVersion", Str), keep(2, "fieldPath", Str)],
);

pub static OBJECT_REFERENCE: Message = message(
    "ObjectReference",
    &[
        opt(1, "kind", Str),
        opt(2, "namespace", Str),
        opt(3, "name", Str),
        opt(4, "uid", Str),
        opt(5, "apiVersion", Str),
        opt(6, "resourceVersion", Str),
        opt(7, "fieldPath", Str),
    ],
);

pub static PERSISTENT_VOLUME: Message = message(
    "PersistentVolume",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&PERSISTENT_VOLUME_SPEC)),
        keep(3, "status", Msg(&PERSISTENT_VOLUME_STATUS)),
    ],
);

pub static PERSISTENT_VOLUME_CLAIM: Message = message(
    "PersistentVolumeClaim",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&PERSISTENT_VOLUME_CLAIM_SPEC)),
        keep(3, "status", Msg(&PERSISTENT_VOLUME_CLAIM_STATUS)),
    ],
);

pub static PERSISTENT_VOLUME_CLAIM_CONDITION: Message = message(
    "PersistentVolumeClaimCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastProbeTime", Time),
        keep(4, "lastTransitionTime", Time),
        opt(5, "reason", Str),
        opt(6, "message", Str),
    ],
);

pub static PERSISTENT_VOLUME_CLAIM_SPEC: Message = message(
    "PersistentVolumeClaimSpec",
    &[
        list(1, "accessModes", Str),
        keep(4, "selector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(2, "resources", Msg(&VOLUME_RESOURCE_REQUIREMENTS)),
        opt(3, "volumeName", Str),
        keep(5, "storageClassName", Str),
        keep(6, "volumeMode", Str),
        keep(7, "dataSource", Msg(&TYPED_LOCAL_OBJECT_REFERENCE)),
        keep(8, "dataSourceRef", Msg(&TYPED_OBJECT_REFERENCE)),
        keep(9, "volumeAttributesClassName", Str),
    ],
);

pub static PERSISTENT_VOLUME_CLAIM_STATUS: Message = message(
    "PersistentVolumeClaimStatus",
    &[
        opt(1, "phase", Str),
        list(2, "accessModes", Str),
        map(3, "capacity", Quantity),
        list(4, "conditions", Msg(&PERSISTENT_VOLUME_CLAIM_CONDITION)),
        map(5, "allocatedResources", Quantity),
        map(7, "allocatedResourceStatuses", Str),
        keep(8, "currentVolumeAttributesClassName", Str),
        keep(9, "modifyVolumeStatus", Msg(&MODIFY_VOLUME_STATUS)),
    ],
);

pub static PERSISTENT_VOLUME_CLAIM_TEMPLATE: Message = message(
    "PersistentVolumeClaimTemplate",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&PERSISTENT_VOLUME_CLAIM_SPEC)),
    ],
);

pub static PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE: Message = message(
    "PersistentVolumeClaimVolumeSource",
    &[keep(1, "claimName", Str), opt(2, "readOnly", Bool)],
);

pub static PERSISTENT_VOLUME_SOURCE: Message = message(
    "PersistentVolumeSource",
    &[
        keep(
            1,
            "gcePersistentDisk",
            Msg(&GCE_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        keep(
            2,
            "awsElasticBlockStore",
            Msg(&AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE),
        ),
        keep(3, "hostPath", Msg(&HOST_PATH_VOLUME_SOURCE)),
        keep(4, "glusterfs", Msg(&GLUSTERFS_PERSISTENT_VOLUME_SOURCE)),
        keep(5, "nfs", Msg(&NFS_VOLUME_SOURCE)),
        keep(6, "rbd", Msg(&RBD_PERSISTENT_VOLUME_SOURCE)),
        keep(7, "iscsi", Msg(&ISCSI_PERSISTENT_VOLUME_SOURCE)),
        keep(8, "cinder", Msg(&CINDER_PERSISTENT_VOLUME_SOURCE)),
        keep(9, "cephfs", Msg(&CEPH_FS_PERSISTENT_VOLUME_SOURCE)),
        keep(10, "fc", Msg(&FC_VOLUME_SOURCE)),
        keep(11, "flocker", Msg(&FLOCKER_VOLUME_SOURCE)),
        keep(12, "flexVolume", Msg(&FLEX_PERSISTENT_VOLUME_SOURCE)),
        keep(13, "azureFile", Msg(&AZURE_FILE_PERSISTENT_VOLUME_SOURCE)),
        keep(
            14,
            "vsphereVolume",
            Msg(&VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE),
        ),
        keep(15, "quobyte", Msg(&QUOBYTE_VOLUME_SOURCE)),
        keep(16, "azureDisk", Msg(&AZURE_DISK_VOLUME_SOURCE)),
        keep(
            17,
            "photonPersistentDisk",
            Msg(&PHOTON_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        keep(18, "portworxVolume", Msg(&PORTWORX_VOLUME_SOURCE)),
        keep(19, "scaleIO", Msg(&SCALE_IO_PERSISTENT_VOLUME_SOURCE)),
        keep(20, "local", Msg(&LOCAL_VOLUME_SOURCE)),
        keep(21, "storageos", Msg(&STORAGE_OS_PERSISTENT_VOLUME_SOURCE)),
        keep(22, "csi", Msg(&CSI_PERSISTENT_VOLUME_SOURCE)),
    ],
);

pub static PERSISTENT_VOLUME_SPEC: Message = message(
    "PersistentVolumeSpec",
    &[
        map(1, "capacity", Quantity),
        inline(2, &PERSISTENT_VOLUME_SOURCE),
        list(3, "accessModes", Str),
        keep(4, "claimRef", Msg(&OBJECT_REFERENCE)),
        opt(5, "persistentVolumeReclaimPolicy", Str),
        opt(6, "storageClassName", Str),
        list(7, "mountOptions", Str),
        keep(8, "volumeMode", Str),
        keep(9, "nodeAffinity", Msg(&VOLUME_NODE_AFFINITY)),
        keep(10, "volumeAttributesClassName", Str),
    ],
);

pub static PERSISTENT_VOLUME_STATUS: Message = message(
    "PersistentVolumeStatus",
    &[
        opt(1, "phase", Str),
        opt(2, "message", Str),
        opt(3, "reason", Str),
        keep(4, "lastPhaseTransitionTime", Time),
    ],
);

pub static PHOTON_PERSISTENT_DISK_VOLUME_SOURCE: Message = message(
    "PhotonPersistentDiskVolumeSource",
    &[keep(1, "pdID", Str), opt(2, "fsType", Str)],
);

pub static POD: Message = message(
    "Pod",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&POD_SPEC)),
        keep(3, "status", Msg(&POD_STATUS)),
    ],
);

pub static POD_AFFINITY: Message = message(
    "PodAffinity",
    &[
        list(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            Msg(&POD_AFFINITY_TERM),
        ),
        list(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            Msg(&WEIGHTED_POD_AFFINITY_TERM),
        ),
    ],
);

pub static POD_AFFINITY_TERM: Message = message(
    "PodAffinityTerm",
    &[
        keep(1, "labelSelector", Msg(&meta_v1::LABEL_SELECTOR)),
        list(2, "namespaces", Str),
        keep(3, "topologyKey", Str),
        keep(4, "namespaceSelector", Msg(&meta_v1::LABEL_SELECTOR)),
        list(5, "matchLabelKeys", Str),
        list(6, "mismatchLabelKeys", Str),
    ],
);

pub static POD_ANTI_AFFINITY: Message = message(
    "PodAntiAffinity",
    &[
        list(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            Msg(&POD_AFFINITY_TERM),
        ),
        list(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            Msg(&WEIGHTED_POD_AFFINITY_TERM),
        ),
    ],
);

pub static POD_CONDITION: Message = message(
    "PodCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastProbeTime", Time),
        keep(4, "lastTransitionTime", Time),
        opt(5, "reason", Str),
        opt(6, "message", Str),
    ],
);

pub static POD_DNS_CONFIG: Message = message(
    "PodDNSConfig",
    &[
        list(1, "nameservers", Str),
        list(2, "searches", Str),
        list(3, "options", Msg(&POD_DNS_CONFIG_OPTION)),
    ],
);

pub static POD_DNS_CONFIG_OPTION: Message = message(
    "PodDNSConfigOption",
    &[opt(1, "name", Str), keep(2, "value", Str)],
);

pub static POD_IP: Message = message("PodIP", &[keep(1, "ip", Str)]);

pub static POD_OS: Message = message("PodOS", &[keep(1, "name", Str)]);

pub static POD_READINESS_GATE: Message =
    message("PodReadinessGate", &[keep(1, "conditionType", Str)]);

pub static POD_RESOURCE_CLAIM: Message = message(
    "PodResourceClaim",
    &[
        keep(1, "name", Str),
        keep(3, "resourceClaimName", Str),
        keep(4, "resourceClaimTemplateName", Str),
    ],
);

pub static POD_RESOURCE_CLAIM_STATUS: Message = message(
    "PodResourceClaimStatus",
    &[keep(1, "name", Str), keep(2, "resourceClaimName", Str)],
);

pub static POD_SCHEDULING_GATE: Message = message("PodSchedulingGate", &[keep(1, "name", Str)]);

pub static POD_SECURITY_CONTEXT: Message = message(
    "PodSecurityContext",
    &[
        keep(1, "seLinuxOptions", Msg(&SE_LINUX_OPTIONS)),
        keep(8, "windowsOptions", Msg(&WINDOWS_SECURITY_CONTEXT_OPTIONS)),
        keep(2, "runAsUser", I64),
        keep(6, "runAsGroup", I64),
        keep(3, "runAsNonRoot", Bool),
        list(4, "supplementalGroups", I64),
        keep(12, "supplementalGroupsPolicy", Str),
        keep(5, "fsGroup", I64),
        list(7, "sysctls", Msg(&SYSCTL)),
        keep(9, "fsGroupChangePolicy", Str),
        keep(10, "seccompProfile", Msg(&SECCOMP_PROFILE)),
        keep(11, "appArmorProfile", Msg(&APP_ARMOR_PROFILE)),
        keep(13, "seLinuxChangePolicy", Str),
    ],
);

pub static POD_SPEC: Message = message(
    "PodSpec",
    &[
        list(1, "volumes", Msg(&VOLUME)),
        list(20, "initContainers", Msg(&CONTAINER)),
        list(2, "containers", Msg(&CONTAINER)),
        list(34, "ephemeralContainers", Msg(&EPHEMERAL_CONTAINER)),
        opt(3, "restartPolicy", Str),
        keep(4, "terminationGracePeriodSeconds", I64),
        keep(5, "activeDeadlineSeconds", I64),
        opt(6, "dnsPolicy", Str),
        map(7, "nodeSelector", Str),
        opt(8, "serviceAccountName", Str),
        opt(9, "serviceAccount", Str),
        keep(21, "automountServiceAccountToken", Bool),
        opt(10, "nodeName", Str),
        opt(11, "hostNetwork", Bool),
        opt(12, "hostPID", Bool),
        opt(13, "hostIPC", Bool),
        keep(27, "shareProcessNamespace", Bool),
        keep(14, "securityContext", Msg(&POD_SECURITY_CONTEXT)),
        list(15, "imagePullSecrets", Msg(&LOCAL_OBJECT_REFERENCE)),
        opt(16, "hostname", Str),
        opt(17, "subdomain", Str),
        keep(18, "affinity", Msg(&AFFINITY)),
        opt(19, "schedulerName", Str),
        list(22, "tolerations", Msg(&TOLERATION)),
        list(23, "hostAliases", Msg(&HOST_ALIAS)),
        opt(24, "priorityClassName", Str),
        keep(25, "priority", I32),
        keep(26, "dnsConfig", Msg(&POD_DNS_CONFIG)),
        list(28, "readinessGates", Msg(&POD_READINESS_GATE)),
        keep(29, "runtimeClassName", Str),
        keep(30, "enableServiceLinks", Bool),
        keep(31, "preemptionPolicy", Str),
        map(32, "overhead", Quantity),
        list(
            33,
            "topologySpreadConstraints",
            Msg(&TOPOLOGY_SPREAD_CONSTRAINT),
        ),
        keep(35, "setHostnameAsFQDN", Bool),
        keep(36, "os", Msg(&POD_OS)),
        keep(37, "hostUsers", Bool),
        list(38, "schedulingGates", Msg(&POD_SCHEDULING_GATE)),
        list(39, "resourceClaims", Msg(&POD_RESOURCE_CLAIM)),
        keep(40, "resources", Msg(&RESOURCE_REQUIREMENTS)),
    ],
);

pub static POD_STATUS: Message = message(
    "PodStatus",
    &[
        opt(1, "phase", Str),
        list(2, "conditions", Msg(&POD_CONDITION)),
        opt(3, "message", Str),
        opt(4, "reason", Str),
        opt(11, "nominatedNodeName", Str),
        opt(5, "hostIP", Str),
        list(16, "hostIPs", Msg(&HOST_IP)),
        opt(6, "podIP", Str),
        list(12, "podIPs", Msg(&POD_IP)),
        keep(7, "startTime", Time),
        list(10, "initContainerStatuses", Msg(&CONTAINER_STATUS)),
        list(8, "containerStatuses", Msg(&CONTAINER_STATUS)),
        opt(9, "qosClass", Str),
        list(13, "ephemeralContainerStatuses", Msg(&CONTAINER_STATUS)),
        opt(14, "resize", Str),
        list(15, "resourceClaimStatuses", Msg(&POD_RESOURCE_CLAIM_STATUS)),
    ],
);

pub static POD_TEMPLATE: Message = message(
    "PodTemplate",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "template", Msg(&POD_TEMPLATE_SPEC)),
    ],
);

pub static POD_TEMPLATE_SPEC: Message = message(
    "PodTemplateSpec",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&POD_SPEC)),
    ],
);

pub static PORTWORX_VOLUME_SOURCE: Message = message(
    "PortworxVolumeSource",
    &[
        keep(1, "volumeID", Str),
        opt(2, "fsType", Str),
        opt(3, "readOnly", Bool),
    ],
);

pub static PORT_STATUS: Message = message(
    "PortStatus",
    &[
        keep(1, "port", I32),
        keep(2, "protocol", Str),
        keep(3, "error", Str),
    ],
);

pub static PREFERRED_SCHEDULING_TERM: Message = message(
    "PreferredSchedulingTerm",
    &[
        keep(1, "weight", I32),
        keep(2, "preference", Msg(&NODE_SELECTOR_TERM)),
    ],
);

pub static PROBE: Message = message(
    "Probe",
    &[
        inline(1, &PROBE_HANDLER),
        opt(2, "initialDelaySeconds", I32),
        opt(3, "timeoutSeconds", I32),
        opt(4, "periodSeconds", I32),
        opt(5, "successThreshold", I32),
        opt(6, "failureThreshold", I32),
        keep(7, "terminationGracePeriodSeconds", I64),
    ],
);

pub static PROBE_HANDLER: Message = message(
    "ProbeHandler",
    &[
        keep(1, "exec", Msg(&EXEC_ACTION)),
        keep(2, "httpGet", Msg(&HTTP_GET_ACTION)),
        keep(3, "tcpSocket", Msg(&TCP_SOCKET_ACTION)),
        keep(4, "grpc", Msg(&GRPC_ACTION)),
    ],
);

pub static PROJECTED_VOLUME_SOURCE: Message = message(
    "ProjectedVolumeSource",
    &[
        list(1, "sources", Msg(&VOLUME_PROJECTION)),
        keep(2, "defaultMode", I32),
    ],
);

pub static QUOBYTE_VOLUME_SOURCE: Message = message(
    "QuobyteVolumeSource",
    &[
        keep(1, "registry", Str),
        keep(2, "volume", Str),
        opt(3, "readOnly", Bool),
        opt(4, "user", Str),
        opt(5, "group", Str),
        opt(6, "tenant", Str),
    ],
);

pub static RBD_PERSISTENT_VOLUME_SOURCE: Message = message(
    "RBDPersistentVolumeSource",
    &[
        list(1, "monitors", Str),
        keep(2, "image", Str),
        opt(3, "fsType", Str),
        opt(4, "pool", Str),
        opt(5, "user", Str),
        opt(6, "keyring", Str),
        keep(7, "secretRef", Msg(&SECRET_REFERENCE)),
        opt(8, "readOnly", Bool),
    ],
);

pub static RBD_VOLUME_SOURCE: Message = message(
    "RBDVolumeSource",
    &[
        list(1, "monitors", Str),
        keep(2, "image", Str),
        opt(3, "fsType", Str),
        opt(4, "pool", Str),
        opt(5, "user", Str),
        opt(6, "keyring", Str),
        keep(7, "secretRef", Msg(&LOCAL_OBJECT_REFERENCE)),
        opt(8, "readOnly", Bool),
    ],
);

pub static REPLICATION_CONTROLLER: Message = message(
    "ReplicationController",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&REPLICATION_CONTROLLER_SPEC)),
        keep(3, "status", Msg(&REPLICATION_CONTROLLER_STATUS)),
    ],
);

pub static REPLICATION_CONTROLLER_CONDITION: Message = message(
    "ReplicationControllerCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastTransitionTime", Time),
        opt(4, "reason", Str),
        opt(5, "message", Str),
    ],
);

pub static REPLICATION_CONTROLLER_SPEC: Message = message(
    "ReplicationControllerSpec",
    &[
        keep(1, "replicas", I32),
        opt(4, "minReadySeconds", I32),
        map(2, "selector", Str),
        keep(3, "template", Msg(&POD_TEMPLATE_SPEC)),
    ],
);

pub static REPLICATION_CONTROLLER_STATUS: Message = message(
    "ReplicationControllerStatus",
    &[
        keep(1, "replicas", I32),
        opt(2, "fullyLabeledReplicas", I32),
        opt(4, "readyReplicas", I32),
        opt(5, "availableReplicas", I32),
        opt(3, "observedGeneration", I64),
        list(6, "conditions", Msg(&REPLICATION_CONTROLLER_CONDITION)),
    ],
);

pub static RESOURCE_CLAIM: Message = message(
    "ResourceClaim",
    &[keep(1, "name", Str), opt(2, "request", Str)],
);

pub static RESOURCE_FIELD_SELECTOR: Message = message(
    "ResourceFieldSelector",
    &[
        opt(1, "containerName", Str),
        keep(2, "resource", Str),
        keep(3, "divisor", Quantity),
    ],
);

pub static RESOURCE_HEALTH: Message = message(
    "ResourceHealth",
    &[keep(1, "resourceID", Str), opt(2, "health", Str)],
);

pub static RESOURCE_QUOTA: Message = message(
    "ResourceQuota",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&RESOURCE_QUOTA_SPEC)),
        keep(3, "status", Msg(&RESOURCE_QUOTA_STATUS)),
    ],
);

pub static RESOURCE_QUOTA_SPEC: Message = message(
    "ResourceQuotaSpec",
    &[
        map(1, "hard", Quantity),
        list(2, "scopes", Str),
        keep(3, "scopeSelector", Msg(&SCOPE_SELECTOR)),
    ],
);

pub static RESOURCE_QUOTA_STATUS: Message = message(
    "ResourceQuotaStatus",
    &[map(1, "hard", Quantity), map(2, "used", Quantity)],
);

pub static RESOURCE_REQUIREMENTS: Message = message(
    "ResourceRequirements",
    &[
        map(1, "limits", Quantity),
        map(2, "requests", Quantity),
        list(3, "claims", Msg(&RESOURCE_CLAIM)),
    ],
);

pub static RESOURCE_STATUS: Message = message(
    "ResourceStatus",
    &[
        keep(1, "name", Str),
        list(2, "resources", Msg(&RESOURCE_HEALTH)),
    ],
);

pub static SCALE_IO_PERSISTENT_VOLUME_SOURCE: Message = message(
    "ScaleIOPersistentVolumeSource",
    &[
        keep(1, "gateway", Str),
        keep(2, "system", Str),
        keep(3, "secretRef", Msg(&SECRET_REFERENCE)),
        opt(4, "sslEnabled", Bool),
        opt(5, "protectionDomain", Str),
        opt(6, "storagePool", Str),
        opt(7, "storageMode", Str),
        opt(8, "volumeName", Str),
        opt(9, "fsType", Str),
        opt(10, "readOnly", Bool),
    ],
);

pub static SCALE_IO_VOLUME_SOURCE: Message = message(
    "ScaleIOVolumeSource",
    &[
        keep(1, "gateway", Str),
        keep(2, "system", Str),
        keep(3, "secretRef", Msg(&LOCAL_OBJECT_REFERENCE)),
        opt(4, "sslEnabled", Bool),
        opt(5, "protectionDomain", Str),
        opt(6, "storagePool", Str),
        opt(7, "storageMode", Str),
        opt(8, "volumeName", Str),
        opt(9, "fsType", Str),
        opt(10, "readOnly", Bool),
    ],
);

pub static SCOPED_RESOURCE_SELECTOR_REQUIREMENT: Message = message(
    "ScopedResourceSelectorRequirement",
    &[
        keep(1, "scopeName", Str),
        keep(2, "operator", Str),
        list(3, "values", Str),
    ],
);

pub static SCOPE_SELECTOR: Message = message(
    "ScopeSelector",
    &[list(
        1,
        "matchExpressions",
        Msg(&SCOPED_RESOURCE_SELECTOR_REQUIREMENT),
    )],
);

pub static SECCOMP_PROFILE: Message = message(
    "SeccompProfile",
    &[keep(1, "type", Str), keep(2, "localhostProfile", Str)],
);

pub static SECRET: Message = message(
    "Secret",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(5, "immutable", Bool),
        map(2, "data", Bytes),
        map(4, "stringData", Str),
        opt(3, "type", Str),
    ],
);

pub static SECRET_ENV_SOURCE: Message = message(
    "SecretEnvSource",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        keep(2, "optional", Bool),
    ],
);

pub static SECRET_KEY_SELECTOR: Message = message(
    "SecretKeySelector",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        keep(2, "key", Str),
        keep(3, "optional", Bool),
    ],
);

pub static SECRET_PROJECTION: Message = message(
    "SecretProjection",
    &[
        inline(1, &LOCAL_OBJECT_REFERENCE),
        list(2, "items", Msg(&KEY_TO_PATH)),
        keep(4, "optional", Bool),
    ],
);

pub static SECRET_REFERENCE: Message = message(
    "SecretReference",
    &[opt(1, "name", Str), opt(2, "namespace", Str)],
);

pub static SECRET_VOLUME_SOURCE: Message = message(
    "SecretVolumeSource",
    &[
        opt(1, "secretName", Str),
        list(2, "items", Msg(&KEY_TO_PATH)),
        keep(3, "defaultMode", I32),
        keep(4, "optional", Bool),
    ],
);

pub static SECURITY_CONTEXT: Message = message(
    "SecurityContext",
    &[
        keep(1, "capabilities", Msg(&CAPABILITIES)),
        keep(2, "privileged", Bool),
        keep(3, "seLinuxOptions", Msg(&SE_LINUX_OPTIONS)),
        keep(10, "windowsOptions", Msg(&WINDOWS_SECURITY_CONTEXT_OPTIONS)),
        keep(4, "runAsUser", I64),
        keep(8, "runAsGroup", I64),
        keep(5, "runAsNonRoot", Bool),
        keep(6, "readOnlyRootFilesystem", Bool),
        keep(7, "allowPrivilegeEscalation", Bool),
        keep(9, "procMount", Str),
        keep(11, "seccompProfile", Msg(&SECCOMP_PROFILE)),
        keep(12, "appArmorProfile", Msg(&APP_ARMOR_PROFILE)),
    ],
);

pub static SERVICE: Message = message(
    "Service",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&SERVICE_SPEC)),
        keep(3, "status", Msg(&SERVICE_STATUS)),
    ],
);

pub static SERVICE_ACCOUNT: Message = message(
    "ServiceAccount",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        list(2, "secrets", Msg(&OBJECT_REFERENCE)),
        list(3, "imagePullSecrets", Msg(&LOCAL_OBJECT_REFERENCE)),
        keep(4, "automountServiceAccountToken", Bool),
    ],
);

pub static SERVICE_ACCOUNT_TOKEN_PROJECTION: Message = message(
    "ServiceAccountTokenProjection",
    &[
        opt(1, "audience", Str),
        keep(2, "expirationSeconds", I64),
        keep(3, "path", Str),
    ],
);

pub static SERVICE_PORT: Message = message(
    "ServicePort",
    &[
        opt(1, "name", Str),
        opt(2, "protocol", Str),
        keep(6, "appProtocol", Str),
        keep(3, "port", I32),
        keep(4, "targetPort", IntOrString),
        opt(5, "nodePort", I32),
    ],
);

pub static SERVICE_SPEC: Message = message(
    "ServiceSpec",
    &[
        list(1, "ports", Msg(&SERVICE_PORT)),
        map(2, "selector", Str),
        opt(3, "clusterIP", Str),
        list(18, "clusterIPs", Str),
        opt(4, "type", Str),
        list(5, "externalIPs", Str),
        opt(7, "sessionAffinity", Str),
        opt(8, "loadBalancerIP", Str),
        list(9, "loadBalancerSourceRanges", Str),
        opt(10, "externalName", Str),
        opt(11, "externalTrafficPolicy", Str),
        opt(12, "healthCheckNodePort", I32),
        opt(13, "publishNotReadyAddresses", Bool),
        keep(14, "sessionAffinityConfig", Msg(&SESSION_AFFINITY_CONFIG)),
        list(19, "ipFamilies", Str),
        keep(17, "ipFamilyPolicy", Str),
        keep(20, "allocateLoadBalancerNodePorts", Bool),
        keep(21, "loadBalancerClass", Str),
        keep(22, "internalTrafficPolicy", Str),
        keep(23, "trafficDistribution", Str),
    ],
);

pub static SERVICE_STATUS: Message = message(
    "ServiceStatus",
    &[
        keep(1, "loadBalancer", Msg(&LOAD_BALANCER_STATUS)),
        list(2, "conditions", Msg(&meta_v1::CONDITION)),
    ],
);

pub static SESSION_AFFINITY_CONFIG: Message = message(
    "SessionAffinityConfig",
    &[keep(1, "clientIP", Msg(&CLIENT_IP_CONFIG))],
);

pub static SE_LINUX_OPTIONS: Message = message(
    "SELinuxOptions",
    &[
        opt(1, "user", Str),
        opt(2, "role", Str),
        opt(3, "type", Str),
        opt(4, "level", Str),
    ],
);

pub static SLEEP_ACTION: Message = message("SleepAction", &[keep(1, "seconds", I64)]);

pub static STORAGE_OS_PERSISTENT_VOLUME_SOURCE: Message = message(
    "StorageOSPersistentVolumeSource",
    &[
        opt(1, "volumeName", Str),
        opt(2, "volumeNamespace", Str),
        opt(3, "fsType", Str),
        opt(4, "readOnly", Bool),
        keep(5, "secretRef", Msg(&OBJECT_REFERENCE)),
    ],
);

pub static STORAGE_OS_VOLUME_SOURCE: Message = message(
    "StorageOSVolumeSource",
    &[
        opt(1, "volumeName", Str),
        opt(2, "volumeNamespace", Str),
        opt(3, "fsType", Str),
        opt(4, "readOnly", Bool),
        keep(5, "secretRef", Msg(&LOCAL_OBJECT_REFERENCE)),
    ],
);

pub static SYSCTL: Message = message("Sysctl", &[keep(1, "name", Str), keep(2, "value", Str)]);

pub static TAINT: Message = message(
    "Taint",
    &[
        keep(1, "key", Str),
        opt(2, "value", Str),
        keep(3, "effect", Str),
        keep(4, "timeAdded", Time),
    ],
);

pub static TCP_SOCKET_ACTION: Message = message(
    "TCPSocketAction",
    &[keep(1, "port", IntOrString), opt(2, "host", Str)],
);

pub static TOLERATION: Message = message(
    "Toleration",
    &[
        opt(1, "key", Str),
        opt(2, "operator", Str),
        opt(3, "value", Str),
        opt(4, "effect", Str),
        keep(5, "tolerationSeconds", I64),
    ],
);

pub static TOPOLOGY_SELECTOR_LABEL_REQUIREMENT: Message = message(
    "TopologySelectorLabelRequirement",
    &[keep(1, "key", Str), list(2, "values", Str)],
);

pub static TOPOLOGY_SELECTOR_TERM: Message = message(
    "TopologySelectorTerm",
    &[list(
        1,
        "matchLabelExpressions",
        Msg(&TOPOLOGY_SELECTOR_LABEL_REQUIREMENT),
    )],
);

pub static TOPOLOGY_SPREAD_CONSTRAINT: Message = message(
    "TopologySpreadConstraint",
    &[
        keep(1, "maxSkew", I32),
        keep(2, "topologyKey", Str),
        keep(3, "whenUnsatisfiable", Str),
        keep(4, "labelSelector", Msg(&meta_v1::LABEL_SELECTOR)),
        keep(5, "minDomains", I32),
        keep(6, "nodeAffinityPolicy", Str),
        keep(7, "nodeTaintsPolicy", Str),
        list(8, "matchLabelKeys", Str),
    ],
);

pub static TYPED_LOCAL_OBJECT_REFERENCE: Message = message(
    "TypedLocalObjectReference",
    &[
        keep(1, "apiGroup", Str),
        keep(2, "kind", Str),
        keep(3, "name", Str),
    ],
);

pub static TYPED_OBJECT_REFERENCE: Message = message(
    "TypedObjectReference",
    &[
        keep(1, "apiGroup", Str),
        keep(2, "kind", Str),
        keep(3, "name", Str),
        keep(4, "namespace", Str),
    ],
);

pub static VOLUME: Message = message("Volume", &[keep(1, "name", Str), inline(2, &VOLUME_SOURCE)]);

pub static VOLUME_DEVICE: Message = message(
    "VolumeDevice",
    &[keep(1, "name", Str), keep(2, "devicePath", Str)],
);

pub static VOLUME_MOUNT: Message = message(
    "VolumeMount",
    &[
        keep(1, "name", Str),
        opt(2, "readOnly", Bool),
        keep(7, "recursiveReadOnly", Str),
        keep(3, "mountPath", Str),
        opt(4, "subPath", Str),
        keep(5, "mountPropagation", Str),
        opt(6, "subPathExpr", Str),
    ],
);

pub static VOLUME_MOUNT_STATUS: Message = message(
    "VolumeMountStatus",
    &[
        keep(1, "name", Str),
        keep(2, "mountPath", Str),
        opt(3, "readOnly", Bool),
        keep(4, "recursiveReadOnly", Str),
    ],
);

pub static VOLUME_NODE_AFFINITY: Message = message(
    "VolumeNodeAffinity",
    &[keep(1, "required", Msg(&NODE_SELECTOR))],
);

pub static VOLUME_PROJECTION: Message = message(
    "VolumeProjection",
    &[
        keep(1, "secret", Msg(&SECRET_PROJECTION)),
        keep(2, "downwardAPI", Msg(&DOWNWARD_API_PROJECTION)),
        keep(3, "configMap", Msg(&CONFIG_MAP_PROJECTION)),
        keep(
            4,
            "serviceAccountToken",
            Msg(&SERVICE_ACCOUNT_TOKEN_PROJECTION),
        ),
        keep(
            5,
            "clusterTrustBundle",
            Msg(&CLUSTER_TRUST_BUNDLE_PROJECTION),
        ),
    ],
);

pub static VOLUME_RESOURCE_REQUIREMENTS: Message = message(
    "VolumeResourceRequirements",
    &[map(1, "limits", Quantity), map(2, "requests", Quantity)],
);

pub static VOLUME_SOURCE: Message = message(
    "VolumeSource",
    &[
        keep(1, "hostPath", Msg(&HOST_PATH_VOLUME_SOURCE)),
        keep(2, "emptyDir", Msg(&EMPTY_DIR_VOLUME_SOURCE)),
        keep(
            3,
            "gcePersistentDisk",
            Msg(&GCE_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        keep(
            4,
            "awsElasticBlockStore",
            Msg(&AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE),
        ),
        keep(5, "gitRepo", Msg(&GIT_REPO_VOLUME_SOURCE)),
        keep(6, "secret", Msg(&SECRET_VOLUME_SOURCE)),
        keep(7, "nfs", Msg(&NFS_VOLUME_SOURCE)),
        keep(8, "iscsi", Msg(&ISCSI_VOLUME_SOURCE)),
        keep(9, "glusterfs", Msg(&GLUSTERFS_VOLUME_SOURCE)),
        keep(
            10,
            "persistentVolumeClaim",
            Msg(&PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE),
        ),
        keep(11, "rbd", Msg(&RBD_VOLUME_SOURCE)),
        keep(12, "flexVolume", Msg(&FLEX_VOLUME_SOURCE)),
        keep(13, "cinder", Msg(&CINDER_VOLUME_SOURCE)),
        keep(14, "cephfs", Msg(&CEPH_FS_VOLUME_SOURCE)),
        keep(15, "flocker", Msg(&FLOCKER_VOLUME_SOURCE)),
        keep(16, "downwardAPI", Msg(&DOWNWARD_API_VOLUME_SOURCE)),
        keep(17, "fc", Msg(&FC_VOLUME_SOURCE)),
        keep(18, "azureFile", Msg(&AZURE_FILE_VOLUME_SOURCE)),
        keep(19, "configMap", Msg(&CONFIG_MAP_VOLUME_SOURCE)),
        keep(
            20,
            "vsphereVolume",
            Msg(&VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE),
        ),
        keep(21, "quobyte", Msg(&QUOBYTE_VOLUME_SOURCE)),
        keep(22, "azureDisk", Msg(&AZURE_DISK_VOLUME_SOURCE)),
        keep(
            23,
            "photonPersistentDisk",
            Msg(&PHOTON_PERSISTENT_DISK_VOLUME_SOURCE),
        ),
        keep(26, "projected", Msg(&PROJECTED_VOLUME_SOURCE)),
        keep(24, "portworxVolume", Msg(&PORTWORX_VOLUME_SOURCE)),
        keep(25, "scaleIO", Msg(&SCALE_IO_VOLUME_SOURCE)),
        keep(27, "storageos", Msg(&STORAGE_OS_VOLUME_SOURCE)),
        keep(28, "csi", Msg(&CSI_VOLUME_SOURCE)),
        keep(29, "ephemeral", Msg(&EPHEMERAL_VOLUME_SOURCE)),
        keep(30, "image", Msg(&IMAGE_VOLUME_SOURCE)),
    ],
);

pub static VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE: Message = message(
    "VsphereVirtualDiskVolumeSource",
    &[
        keep(1, "volumePath", Str),
        opt(2, "fsType", Str),
        opt(3, "storagePolicyName", Str),
        opt(4, "storagePolicyID", Str),
    ],
);

pub static WEIGHTED_POD_AFFINITY_TERM: Message = message(
    "WeightedPodAffinityTerm",
    &[
        keep(1, "weight", I32),
        keep(2, "podAffinityTerm", Msg(&POD_AFFINITY_TERM)),
    ],
);

pub static WINDOWS_SECURITY_CONTEXT_OPTIONS: Message = message(
    "WindowsSecurityContextOptions",
    &[
        keep(1, "gmsaCredentialSpecName", Str),
        keep(2, "gmsaCredentialSpec", Str),
        keep(3, "runAsUserName", Str),
        keep(4, "hostProcess", Bool),
    ],
);
