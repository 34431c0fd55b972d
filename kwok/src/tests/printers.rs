//! Expected cells are what upstream's printers produce for these objects, derived rule by rule from
//! `k/k pkg/printers/internalversion/printers.go` (and the cases of its `printers_test.go`), and
//! `apimachinery/pkg/util/duration/duration_test.go` for durations.

use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::{json, Value};

use crate::printers::*;
use crate::registry::{
    BINDINGS, CONFIGMAPS, CONTROLLERREVISIONS, DAEMONSETS, DEPLOYMENTS, EVENTS, EVENTS_V1, LEASES,
    NAMESPACES, NODES, PODDISRUPTIONBUDGETS, PODS, REPLICASETS, SECRETS, SERVICEACCOUNTS,
};
use crate::resource::ResourceDef;

/// The column definitions of `res`, wide ones included.
fn columns(res: &ResourceDef) -> Vec<Column> {
    res.strategy.columns().to_vec()
}

/// The cells of one object, one per column of [`columns`], as of `now`.
fn cells(res: &ResourceDef, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
    res.strategy.cells(obj, now)
}

fn row_conditions(res: &ResourceDef, obj: &Value) -> Option<Value> {
    res.strategy.row_conditions(obj)
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 3, 10, 12, 0, 0)
        .single()
        .unwrap_or_default()
}

/// RFC 3339 text of `now() - ago`.
fn ts(ago: Duration) -> String {
    (now() - ago).format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn names(res: &crate::resource::ResourceDef) -> Vec<(&'static str, &'static str, i32)> {
    columns(res)
        .iter()
        .map(|c| (c.name, c.type_, c.priority))
        .collect()
}

#[test]
fn human_duration_matches_apimachinery() {
    let h = |d: Duration| human_duration(d);
    assert_eq!(h(Duration::seconds(1)), "1s");
    assert_eq!(h(Duration::seconds(70)), "70s");
    assert_eq!(h(Duration::seconds(190)), "3m10s");
    assert_eq!(h(Duration::seconds(300)), "5m");
    assert_eq!(h(Duration::minutes(70)), "70m");
    assert_eq!(h(Duration::minutes(200)), "3h20m");
    assert_eq!(h(Duration::hours(5)), "5h");
    assert_eq!(h(Duration::hours(47)), "47h");
    assert_eq!(h(Duration::hours(49)), "2d1h");
    assert_eq!(h(Duration::hours(72)), "3d");
    assert_eq!(h(Duration::hours(8 * 24 + 2)), "8d");
    assert_eq!(h(Duration::hours(367 * 24)), "367d");
    assert_eq!(h(Duration::hours(365 * 2 * 24 + 25)), "2y1d");
    assert_eq!(h(Duration::hours(365 * 3 * 24)), "3y");
    assert_eq!(h(Duration::hours(365 * 8 * 24 + 2)), "8y");
    assert_eq!(h(Duration::milliseconds(-1500)), "0s");
    assert_eq!(h(Duration::seconds(-2)), "<invalid>");
}

fn kwok_running_pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-0", "namespace": "lab", "creationTimestamp": ts(Duration::minutes(5)),
                     "labels": {"app": "web"}},
        "spec": {"nodeName": "gpu-1", "containers": [{"name": "web", "image": "nginx:1.27"}]},
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": "Initialized", "status": "True"},
                {"type": "Ready", "status": "True"},
                {"type": "ContainersReady", "status": "True"},
                {"type": "PodScheduled", "status": "True"}
            ],
            "containerStatuses": [{"image": "nginx:1.27", "name": "web", "ready": true, "restartCount": 0,
                                   "state": {"running": {"startedAt": ts(Duration::minutes(4))}}}],
            "hostIP": "10.0.0.100", "podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}],
            "startTime": ts(Duration::minutes(4))
        }
    })
}

#[test]
fn pod_columns() {
    assert_eq!(
        names(&PODS),
        vec![
            ("Name", "string", 0),
            ("Ready", "string", 0),
            ("Status", "string", 0),
            ("Restarts", "string", 0),
            ("Age", "string", 0),
            ("IP", "string", 1),
            ("Node", "string", 1),
            ("Nominated Node", "string", 1),
            ("Readiness Gates", "string", 1),
        ]
    );
    assert_eq!(columns(&PODS)[0].format, "name");
}

#[test]
fn kwok_running_pod_cells() {
    assert_eq!(
        cells(&PODS, &kwok_running_pod(), now()),
        vec![
            json!("web-0"),
            json!("1/1"),
            json!("Running"),
            json!("0"),
            json!("5m"),
            json!("10.0.0.1"),
            json!("gpu-1"),
            json!("<none>"),
            json!("<none>")
        ]
    );
}

#[test]
fn pending_unschedulable_pod_cells() {
    let pod = json!({
        "metadata": {"name": "trainer", "namespace": "lab", "creationTimestamp": ts(Duration::seconds(42))},
        "spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]},
        "status": {"phase": "Pending", "conditions": [{
            "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
            "message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
        }]}
    });
    assert_eq!(
        cells(&PODS, &pod, now()),
        vec![
            json!("trainer"),
            json!("0/2"),
            json!("Pending"),
            json!("0"),
            json!("42s"),
            json!("<none>"),
            json!("<none>"),
            json!("<none>"),
            json!("<none>")
        ]
    );
    assert_eq!(row_conditions(&PODS, &pod), None);
}

/// Ready, Status and Restarts cells of a pod with this status and spec.
fn summary(spec: Value, status: Value, deletion: bool) -> (Value, Value, Value) {
    let mut metadata = json!({"name": "p", "creationTimestamp": ts(Duration::hours(1))});
    if deletion {
        metadata["deletionTimestamp"] = json!(ts(Duration::seconds(1)));
    }
    let pod = json!({"metadata": metadata, "spec": spec, "status": status});
    let c = cells(&PODS, &pod, now());
    (c[1].clone(), c[2].clone(), c[3].clone())
}

#[test]
fn pod_status_rules() {
    let one = json!({"containers": [{"name": "c"}]});
    // A waiting reason wins; restarts show when the last one ended.
    assert_eq!(
        summary(
            one.clone(),
            json!({"phase": "Running", "containerStatuses": [{"name": "c", "ready": false, "restartCount": 4,
                "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": ts(Duration::minutes(2))}}}]}),
            false
        ),
        (json!("0/1"), json!("CrashLoopBackOff"), json!("4 (2m ago)"))
    );
    // A terminated container without reason shows its exit code or signal.
    assert_eq!(
        summary(
            one.clone(),
            json!({"phase": "Failed", "containerStatuses": [{"name": "c", "state": {"terminated": {"exitCode": 3}}}]}),
            false
        ).1,
        json!("ExitCode:3")
    );
    assert_eq!(
        summary(
            one.clone(),
            json!({"phase": "Failed", "containerStatuses": [{"name": "c", "state": {"terminated": {"exitCode": 137, "signal": 9}}}]}),
            false
        ).1,
        json!("Signal:9")
    );
    // Being deleted: Terminating, unless the phase is terminal; NodeLost shows Unknown.
    let running = json!({"phase": "Running", "containerStatuses": [{"name": "c", "ready": true, "state": {"running": {}}}]});
    assert_eq!(
        summary(one.clone(), running.clone(), true).1,
        json!("Terminating")
    );
    assert_eq!(
        summary(one.clone(), json!({"phase": "Succeeded"}), true).1,
        json!("Succeeded")
    );
    assert_eq!(
        summary(
            one.clone(),
            json!({"phase": "Running", "reason": "NodeLost"}),
            true
        )
        .1,
        json!("Unknown")
    );
    // Scheduling gates.
    assert_eq!(
        summary(
            one.clone(),
            json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}),
            false
        ).1,
        json!("SchedulingGated")
    );
    // Completed next to a running container: Running with a Ready condition, else NotReady.
    let two = json!({"containers": [{"name": "a"}, {"name": "b"}]});
    let statuses = json!([
        {"name": "a", "ready": true, "state": {"running": {}}},
        {"name": "b", "ready": false, "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}
    ]);
    assert_eq!(
        summary(
            two.clone(),
            json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}], "containerStatuses": statuses}),
            false
        ),
        (json!("1/2"), json!("Running"), json!("0"))
    );
    assert_eq!(
        summary(
            two,
            json!({"phase": "Running", "containerStatuses": statuses}),
            false
        )
        .1,
        json!("NotReady")
    );
}

#[test]
fn pod_init_and_sidecar_rules() {
    let spec = json!({
        "initContainers": [{"name": "setup"}, {"name": "proxy", "restartPolicy": "Always"}],
        "containers": [{"name": "app"}]
    });
    // First init container still running: Init:0/2, and the sidecar counts in the total.
    assert_eq!(
        summary(
            spec.clone(),
            json!({"phase": "Pending", "initContainerStatuses": [
                {"name": "setup", "state": {"running": {}}},
                {"name": "proxy", "state": {"waiting": {"reason": "PodInitializing"}}}
            ]}),
            false
        ),
        (json!("0/2"), json!("Init:0/2"), json!("0"))
    );
    // A failing init container.
    assert_eq!(
        summary(
            spec.clone(),
            json!({"phase": "Pending", "initContainerStatuses": [
                {"name": "setup", "restartCount": 2, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
            ]}),
            false
        ).1,
        json!("Init:CrashLoopBackOff")
    );
    assert_eq!(
        summary(
            spec.clone(),
            json!({"phase": "Pending", "initContainerStatuses": [
                {"name": "setup", "state": {"terminated": {"exitCode": 2}}}
            ]}),
            false
        )
        .1,
        json!("Init:ExitCode:2")
    );
    // kwok's running pod with a sidecar: the started, ready sidecar counts as ready.
    assert_eq!(
        summary(
            spec,
            json!({"phase": "Running",
                "conditions": [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"}],
                "initContainerStatuses": [
                    {"name": "setup", "ready": false, "restartCount": 0,
                     "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
                    {"name": "proxy", "ready": true, "started": true, "restartCount": 1,
                     "state": {"running": {}},
                     "lastState": {"terminated": {"exitCode": 1, "finishedAt": ts(Duration::minutes(30))}}}
                ],
                "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0, "state": {"running": {}}}]}),
            false
        ),
        (json!("2/2"), json!("Running"), json!("1 (30m ago)"))
    );
}

#[test]
fn pod_wide_cells_and_conditions() {
    let pod = json!({
        "metadata": {"name": "p"},
        "spec": {"readinessGates": [{"conditionType": "example.com/lb"}, {"conditionType": "example.com/x"}]},
        "status": {"phase": "Succeeded", "nominatedNodeName": "gpu-2",
                   "conditions": [{"type": "example.com/lb", "status": "True"}, {"type": "example.com/x", "status": "False"}]}
    });
    let c = cells(&PODS, &pod, now());
    assert_eq!(
        c[4],
        json!("<unknown>"),
        "a zero creationTimestamp has no age"
    );
    assert_eq!(c[7], json!("gpu-2"));
    assert_eq!(c[8], json!("1/2"));
    assert_eq!(
        row_conditions(&PODS, &pod),
        Some(
            json!([{"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The pod has completed successfully."}])
        )
    );
}

fn cordoned_kwok_node() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {
            "name": "gpu-node-1", "creationTimestamp": ts(Duration::hours(50)),
            "annotations": {"kwok.x-k8s.io/node": "fake"},
            "labels": {"kubernetes.io/hostname": "gpu-node-1", "type": "kwok",
                       "nvidia.com/gpu.present": "true", "node-role.kubernetes.io/gpu": "",
                       "node-role.kubernetes.io/worker": "", "kubernetes.io/role": "lab"}
        },
        "spec": {"unschedulable": true,
                 "taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]},
        "status": {
            "conditions": [
                {"type": "Ready", "status": "True", "reason": "KubeletReady"},
                {"type": "MemoryPressure", "status": "False"},
                {"type": "DiskPressure", "status": "False"}
            ],
            "addresses": [{"type": "InternalIP", "address": "196.168.0.1"}, {"type": "Hostname", "address": "gpu-node-1"}],
            "nodeInfo": {"architecture": "amd64", "operatingSystem": "linux", "kubeletVersion": "kwok-v0.6.1",
                         "kubeProxyVersion": "kwok-v0.6.1", "containerRuntimeVersion": "kwok-v0.6.1",
                         "kernelVersion": "kwok-v0.6.1", "osImage": "", "bootID": "", "machineID": "", "systemUUID": ""}
        }
    })
}

#[test]
fn node_columns_and_cells() {
    assert_eq!(
        names(&NODES),
        vec![
            ("Name", "string", 0),
            ("Status", "string", 0),
            ("Roles", "string", 0),
            ("Age", "string", 0),
            ("Version", "string", 0),
            ("Internal-IP", "string", 1),
            ("External-IP", "string", 1),
            ("OS-Image", "string", 1),
            ("Kernel-Version", "string", 1),
            ("Container-Runtime", "string", 1),
        ]
    );
    assert_eq!(
        cells(&NODES, &cordoned_kwok_node(), now()),
        vec![
            json!("gpu-node-1"),
            json!("Ready,SchedulingDisabled"),
            json!("gpu,lab,worker"),
            json!("2d2h"),
            json!("kwok-v0.6.1"),
            json!("196.168.0.1"),
            json!("<none>"),
            json!("<unknown>"),
            json!("kwok-v0.6.1"),
            json!("kwok-v0.6.1")
        ]
    );
    let bare = json!({"metadata": {"name": "n"}, "status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}});
    let c = cells(&NODES, &bare, now());
    assert_eq!(
        (c[1].clone(), c[2].clone(), c[4].clone()),
        (json!("NotReady"), json!("<none>"), json!(""))
    );
    let c = cells(&NODES, &json!({"metadata": {"name": "n"}}), now());
    assert_eq!(c[1], json!("Unknown"));
}

#[test]
fn daemonset_cells_with_status() {
    assert_eq!(
        names(&DAEMONSETS),
        vec![
            ("Name", "string", 0),
            ("Desired", "integer", 0),
            ("Current", "integer", 0),
            ("Ready", "integer", 0),
            ("Up-to-date", "integer", 0),
            ("Available", "integer", 0),
            ("Node Selector", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ]
    );
    let ds = json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "gpu-agent", "namespace": "gpu-ops", "creationTimestamp": ts(Duration::seconds(190))},
        "spec": {
            "selector": {"matchLabels": {"app": "gpu-agent"}},
            "template": {"metadata": {"labels": {"app": "gpu-agent"}},
                         "spec": {"nodeSelector": {"nvidia.com/gpu.present": "true"},
                                  "containers": [{"name": "agent", "image": "registry.local/gpu-agent:1.4"},
                                                 {"name": "exporter", "image": "registry.local/exporter:2"}]}}
        },
        "status": {"currentNumberScheduled": 3, "desiredNumberScheduled": 4, "numberAvailable": 2,
                   "numberMisscheduled": 0, "numberReady": 2, "observedGeneration": 1, "updatedNumberScheduled": 3}
    });
    assert_eq!(
        cells(&DAEMONSETS, &ds, now()),
        vec![
            json!("gpu-agent"),
            json!(4),
            json!(3),
            json!(2),
            json!(3),
            json!(2),
            json!("nvidia.com/gpu.present=true"),
            json!("3m10s"),
            json!("agent,exporter"),
            json!("registry.local/gpu-agent:1.4,registry.local/exporter:2"),
            json!("app=gpu-agent")
        ]
    );
    // No status yet, no node selector.
    let fresh =
        json!({"metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": {"a": "b"}}}});
    let c = cells(&DAEMONSETS, &fresh, now());
    assert_eq!(
        &c[1..7],
        &[
            json!(0),
            json!(0),
            json!(0),
            json!(0),
            json!(0),
            json!("<none>")
        ]
    );
}

#[test]
fn pdb_bounds() {
    assert_eq!(
        names(&PODDISRUPTIONBUDGETS),
        vec![
            ("Name", "string", 0),
            ("Min Available", "string", 0),
            ("Max Unavailable", "string", 0),
            ("Allowed Disruptions", "integer", 0),
            ("Age", "string", 0),
        ]
    );
    let pdb = |spec: Value, allowed: i64| {
        json!({"metadata": {"name": "gpu-pdb", "creationTimestamp": ts(Duration::hours(3))},
               "spec": spec, "status": {"disruptionsAllowed": allowed}})
    };
    let min4 = pdb(
        json!({"minAvailable": 4, "selector": {"matchLabels": {"app": "t"}}}),
        0,
    );
    assert_eq!(
        cells(&PODDISRUPTIONBUDGETS, &min4, now()),
        vec![
            json!("gpu-pdb"),
            json!("4"),
            json!("N/A"),
            json!(0),
            json!("3h")
        ]
    );
    let pct = pdb(json!({"maxUnavailable": "50%"}), 2);
    assert_eq!(
        cells(&PODDISRUPTIONBUDGETS, &pct, now())[1..4],
        [json!("N/A"), json!("50%"), json!(2)]
    );
    let unset = pdb(json!({}), 0);
    assert_eq!(
        cells(&PODDISRUPTIONBUDGETS, &unset, now())[1..3],
        [json!("N/A"), json!("N/A")]
    );
}

#[test]
fn core_event_cells() {
    assert_eq!(
        names(&EVENTS),
        vec![
            ("Last Seen", "string", 0),
            ("Type", "string", 0),
            ("Reason", "string", 0),
            ("Object", "string", 0),
            ("Subobject", "string", 1),
            ("Source", "string", 1),
            ("Message", "string", 0),
            ("First Seen", "string", 1),
            ("Count", "string", 1),
            ("Name", "string", 1),
        ]
    );
    assert_eq!(columns(&EVENTS)[9].format, "name");
    // A scheduler event as core/v1 shows it: eventTime only, no count, reporting fields.
    let scheduler = json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "trainer.17f3a", "namespace": "lab"},
        "involvedObject": {"kind": "Pod", "name": "trainer", "namespace": "lab"},
        "reason": "FailedScheduling", "type": "Warning",
        "message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.\n",
        "source": {}, "firstTimestamp": null, "lastTimestamp": null,
        "eventTime": (now() - Duration::seconds(30)).format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string(),
        "reportingComponent": "default-scheduler", "reportingInstance": "default-scheduler-cp-1"
    });
    assert_eq!(
        cells(&EVENTS, &scheduler, now()),
        vec![
            json!("30s"),
            json!("Warning"),
            json!("FailedScheduling"),
            json!("pod/trainer"),
            json!(""),
            json!("default-scheduler, default-scheduler-cp-1"),
            json!("0/3 nodes are available: 3 Insufficient nvidia.com/gpu."),
            json!("30s"),
            json!(1),
            json!("trainer.17f3a")
        ]
    );
    // A kubelet-style event with both timestamps, a count and a source host.
    let kubelet = json!({
        "metadata": {"name": "web-0.1"},
        "involvedObject": {"kind": "Pod", "name": "web-0", "fieldPath": "spec.containers{web}"},
        "reason": "Pulled", "type": "Normal", "message": "ok",
        "source": {"component": "kubelet", "host": "gpu-1"},
        "firstTimestamp": ts(Duration::minutes(20)), "lastTimestamp": ts(Duration::minutes(3)), "count": 5
    });
    let c = cells(&EVENTS, &kubelet, now());
    assert_eq!(
        (
            c[0].clone(),
            c[4].clone(),
            c[5].clone(),
            c[7].clone(),
            c[8].clone()
        ),
        (
            json!("3m"),
            json!("spec.containers{web}"),
            json!("kubelet, gpu-1"),
            json!("20m"),
            json!(5)
        )
    );
    // A series overrides last seen and count; an object without a name prints the kind alone.
    let series = json!({
        "metadata": {"name": "e"}, "involvedObject": {"kind": "Node"},
        "firstTimestamp": ts(Duration::hours(2)), "lastTimestamp": ts(Duration::hours(1)), "count": 2,
        "series": {"count": 7, "lastObservedTime": ts(Duration::seconds(5))}
    });
    let c = cells(&EVENTS, &series, now());
    assert_eq!(
        (c[0].clone(), c[3].clone(), c[8].clone()),
        (json!("5s"), json!("node"), json!(7))
    );
}

#[test]
fn events_api_event_cells() {
    assert_eq!(columns(&EVENTS_V1), columns(&EVENTS));
    let ev = json!({
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "gpu-agent.1", "namespace": "gpu-ops"},
        "regarding": {"kind": "DaemonSet", "name": "gpu-agent", "namespace": "gpu-ops"},
        "reason": "SuccessfulCreate", "type": "Normal", "note": "Created pod: gpu-agent-x7k2p",
        "action": "Create", "reportingController": "daemonset-controller", "reportingInstance": "",
        "eventTime": null, "deprecatedFirstTimestamp": ts(Duration::minutes(12)),
        "deprecatedLastTimestamp": ts(Duration::minutes(12)), "deprecatedCount": 1,
        "deprecatedSource": {"component": "daemonset-controller"}
    });
    assert_eq!(
        cells(&EVENTS_V1, &ev, now()),
        vec![
            json!("12m"),
            json!("Normal"),
            json!("SuccessfulCreate"),
            json!("daemonset/gpu-agent"),
            json!(""),
            json!("daemonset-controller"),
            json!("Created pod: gpu-agent-x7k2p"),
            json!("12m"),
            json!(1),
            json!("gpu-agent.1")
        ]
    );
}

#[test]
fn deployment_replicaset_revision_cells() {
    let d = json!({
        "metadata": {"name": "web", "creationTimestamp": ts(Duration::days(9))},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"spec": {"containers": [{"name": "web", "image": "nginx"}]}}},
        "status": {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 2, "availableReplicas": 2}
    });
    assert_eq!(
        cells(&DEPLOYMENTS, &d, now()),
        vec![
            json!("web"),
            json!("2/3"),
            json!(3),
            json!(2),
            json!("9d"),
            json!("web"),
            json!("nginx"),
            json!("app=web")
        ]
    );
    assert_eq!(
        names(&DEPLOYMENTS)[1..4],
        [
            ("Ready", "string", 0),
            ("Up-to-date", "string", 0),
            ("Available", "string", 0)
        ]
    );
    let rs = json!({
        "metadata": {"name": "web-7d9f", "creationTimestamp": ts(Duration::days(9))},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web", "pod-template-hash": "7d9f"}},
                 "template": {"spec": {"containers": [{"name": "web", "image": "nginx"}]}}},
        "status": {"replicas": 3, "readyReplicas": 2}
    });
    assert_eq!(
        cells(&REPLICASETS, &rs, now()),
        vec![
            json!("web-7d9f"),
            json!(3),
            json!(3),
            json!(2),
            json!("9d"),
            json!("web"),
            json!("nginx"),
            json!("app=web,pod-template-hash=7d9f")
        ]
    );
    let cr = json!({
        "metadata": {"name": "gpu-agent-5c8d", "creationTimestamp": ts(Duration::minutes(1)),
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "gpu-agent",
                                          "uid": "u", "controller": true, "blockOwnerDeletion": true}]},
        "revision": 2
    });
    assert_eq!(
        cells(&CONTROLLERREVISIONS, &cr, now()),
        vec![
            json!("gpu-agent-5c8d"),
            json!("daemonset.apps/gpu-agent"),
            json!(2),
            json!("60s")
        ]
    );
    let orphan = json!({"metadata": {"name": "r"}, "revision": 1});
    assert_eq!(
        cells(&CONTROLLERREVISIONS, &orphan, now())[1],
        json!("<none>")
    );
}

#[test]
fn small_core_kinds() {
    let created = ts(Duration::hours(6));
    let ns = json!({"metadata": {"name": "lab", "creationTimestamp": created}, "status": {"phase": "Active"}});
    assert_eq!(
        cells(&NAMESPACES, &ns, now()),
        vec![json!("lab"), json!("Active"), json!("6h")]
    );
    let cm = json!({"metadata": {"name": "kube-root-ca.crt", "creationTimestamp": created},
                    "data": {"ca.crt": "x"}, "binaryData": {"b": "eA=="}});
    assert_eq!(
        cells(&CONFIGMAPS, &cm, now()),
        vec![json!("kube-root-ca.crt"), json!(2), json!("6h")]
    );
    let secret = json!({"metadata": {"name": "token", "creationTimestamp": created},
                        "type": "kubernetes.io/service-account-token", "data": {"a": "", "b": ""}});
    assert_eq!(
        cells(&SECRETS, &secret, now()),
        vec![
            json!("token"),
            json!("kubernetes.io/service-account-token"),
            json!(2),
            json!("6h")
        ]
    );
    let sa = json!({"metadata": {"name": "default", "creationTimestamp": created}});
    assert_eq!(
        cells(&SERVICEACCOUNTS, &sa, now()),
        vec![json!("default"), json!(0), json!("6h")]
    );
    let lease = json!({"metadata": {"name": "gpu-1", "creationTimestamp": created},
                       "spec": {"holderIdentity": "gpu-1", "leaseDurationSeconds": 40}});
    assert_eq!(
        cells(&LEASES, &lease, now()),
        vec![json!("gpu-1"), json!("gpu-1"), json!("6h")]
    );
    assert_eq!(
        names(&LEASES),
        vec![
            ("Name", "string", 0),
            ("Holder", "string", 0),
            ("Age", "string", 0)
        ]
    );
}

#[test]
fn default_table_for_kinds_without_printer() {
    assert_eq!(
        names(&BINDINGS),
        vec![("Name", "string", 0), ("Created At", "date", 0)]
    );
    let b = json!({"metadata": {"name": "b", "creationTimestamp": "2025-03-10T11:00:00Z"}});
    assert_eq!(
        cells(&BINDINGS, &b, now()),
        vec![json!("b"), json!("2025-03-10T11:00:00Z")]
    );
}
