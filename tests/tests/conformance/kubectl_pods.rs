//! Real kubectl against the embedded cluster: pods, apply, patch, delete, wait, describe, events.

use proctor_tests::TestCluster;

const POD: &str = r#"apiVersion: v1
kind: Pod
metadata:
  name: cuda12-job
  namespace: gpu-drv
spec:
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:24.07-py3
"#;

fn with_ns(c: &TestCluster, ns: &str) {
    assert_eq!(
        c.kubectl(&["create", "namespace", ns]).ok().stdout,
        format!("namespace/{ns} created\n")
    );
}

#[test]
fn apply_reports_created_unchanged_configured() {
    let c = TestCluster::lab();
    with_ns(&c, "gpu-drv");
    let f = c.file("pod.yaml", POD);
    let f = f.to_str().unwrap();
    assert_eq!(
        c.kubectl(&["apply", "-f", f]).ok().stdout,
        "pod/cuda12-job created\n"
    );
    assert_eq!(
        c.kubectl(&["apply", "-f", f]).ok().stdout,
        "pod/cuda12-job unchanged\n"
    );
    let relabelled = POD.replace(
        "  namespace: gpu-drv\n",
        "  namespace: gpu-drv\n  labels:\n    app: trainer\n",
    );
    c.file("pod.yaml", &relabelled);
    assert_eq!(
        c.kubectl(&["apply", "-f", f]).ok().stdout,
        "pod/cuda12-job configured\n"
    );
    let labels = c
        .kubectl(&[
            "get",
            "pod",
            "cuda12-job",
            "-n",
            "gpu-drv",
            "-o",
            "jsonpath={.metadata.labels.app}",
        ])
        .ok()
        .stdout;
    assert_eq!(labels, "trainer");
}

#[test]
fn a_pod_on_a_kwok_node_runs_with_an_ip_and_events() {
    let c = TestCluster::lab();
    with_ns(&c, "gpu-drv");
    c.kubectl_stdin(&["apply", "-f", "-"], POD).ok();
    c.kubectl(&[
        "wait",
        "--for=condition=Ready",
        "pod/cuda12-job",
        "-n",
        "gpu-drv",
        "--timeout=10s",
    ])
    .ok();
    let out = c
        .kubectl(&["get", "pods", "-n", "gpu-drv", "--no-headers"])
        .ok()
        .stdout;
    let cells: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(&cells[..4], ["cuda12-job", "1/1", "Running", "0"]);
    let ip = c
        .kubectl(&[
            "get",
            "pod",
            "cuda12-job",
            "-n",
            "gpu-drv",
            "-o",
            "jsonpath={.status.podIP}",
        ])
        .ok()
        .stdout;
    assert_eq!(
        ip, "10.0.0.1",
        "kwok hands out the first address of 10.0.0.0/24"
    );
    let node = c
        .kubectl(&[
            "get",
            "pod",
            "cuda12-job",
            "-n",
            "gpu-drv",
            "-o",
            "jsonpath={.spec.nodeName}",
        ])
        .ok()
        .stdout;
    assert!(node.starts_with("lab-node-"), "{node}");
    let events = c
        .kubectl(&[
            "get",
            "events",
            "-n",
            "gpu-drv",
            "-o",
            "jsonpath={range .items[*]}{.reason}:{.message}{\"\\n\"}{end}",
        ])
        .ok()
        .stdout;
    assert!(
        events.contains(&format!(
            "Scheduled:Successfully assigned gpu-drv/cuda12-job to {node}"
        )),
        "{events}"
    );
    let described = c
        .kubectl(&["describe", "pod", "cuda12-job", "-n", "gpu-drv"])
        .ok()
        .stdout;
    assert!(
        described.contains("Status:           Running"),
        "{described}"
    );
    assert!(described.contains("default-scheduler"), "{described}");
}

#[test]
fn deleting_in_a_missing_namespace_and_twice() {
    let c = TestCluster::lab();
    with_ns(&c, "gpu-drv");
    c.kubectl_stdin(&["apply", "-f", "-"], POD).ok();
    assert_eq!(
        c.kubectl(&["delete", "pod", "cuda12-job", "-n", "gpu-drv"])
            .ok()
            .stdout,
        "pod \"cuda12-job\" deleted\n"
    );
    let again = c
        .kubectl(&["delete", "pod", "cuda12-job", "-n", "gpu-drv"])
        .fails();
    assert_eq!(
        again.stderr,
        "Error from server (NotFound): pods \"cuda12-job\" not found\n"
    );
    let missing_ns = c
        .kubectl_stdin(&["create", "-f", "-"], &POD.replace("gpu-drv", "nowhere"))
        .fails();
    assert_eq!(
        missing_ns.stderr,
        "Error from server (NotFound): error when creating \"STDIN\": namespaces \"nowhere\" not found\n"
    );
    let dup = c.kubectl(&["create", "namespace", "gpu-drv"]).fails();
    assert_eq!(
        dup.stderr,
        "Error from server (AlreadyExists): namespaces \"gpu-drv\" already exists\n"
    );
}

#[test]
fn patch_in_all_three_flavours() {
    let c = TestCluster::lab();
    let merge = c
        .kubectl(&[
            "patch",
            "node",
            "lab-node-0",
            "--type",
            "merge",
            "-p",
            r#"{"metadata":{"labels":{"tier":"gpu"}}}"#,
        ])
        .ok();
    assert_eq!(merge.stdout, "node/lab-node-0 patched\n");
    let json = c
        .kubectl(&[
            "patch",
            "node",
            "lab-node-0",
            "--type",
            "json",
            "-p",
            r#"[{"op":"replace","path":"/metadata/labels/tier","value":"cpu"}]"#,
        ])
        .ok();
    assert_eq!(json.stdout, "node/lab-node-0 patched\n");
    let smp = c
        .kubectl(&[
            "patch",
            "node",
            "lab-node-0",
            "-p",
            r#"{"spec":{"taints":[{"key":"gpu","value":"only","effect":"NoSchedule"}]}}"#,
        ])
        .ok();
    assert_eq!(smp.stdout, "node/lab-node-0 patched\n");
    let noop = c
        .kubectl(&[
            "patch",
            "node",
            "lab-node-0",
            "--type",
            "merge",
            "-p",
            r#"{"metadata":{"labels":{"tier":"cpu"}}}"#,
        ])
        .ok();
    assert_eq!(noop.stdout, "node/lab-node-0 patched (no change)\n");
    let tier = c
        .kubectl(&[
            "get",
            "node",
            "lab-node-0",
            "-o",
            "jsonpath={.metadata.labels.tier} {.spec.taints[0].key}={.spec.taints[0].value}",
        ])
        .ok()
        .stdout;
    assert_eq!(tier, "cpu gpu=only");
    let bad = c
        .kubectl(&[
            "patch",
            "node",
            "lab-node-0",
            "--type",
            "json",
            "-p",
            r#"[{"op":"test","path":"/metadata/labels/tier","value":"nope"}]"#,
        ])
        .fails();
    // A failed `test` op is a 422 with no kind or name: kubectl's generic Invalid rendering.
    assert!(
        bad.stderr.starts_with("The request is invalid: "),
        "{}",
        bad.stderr
    );
}

#[test]
fn an_unschedulable_pod_gets_the_schedulers_message() {
    let c = TestCluster::lab();
    with_ns(&c, "gpu-drv");
    let pod = r#"apiVersion: v1
kind: Pod
metadata:
  name: cuda13-job
  namespace: gpu-drv
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: nvidia.com/cuda.driver.major
            operator: Gt
            values: ["560"]
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:25.03-py3
"#;
    c.kubectl_stdin(&["apply", "-f", "-"], pod).ok();
    let msg = c
        .kubectl(&[
            "get",
            "pod",
            "cuda13-job",
            "-n",
            "gpu-drv",
            "-o",
            "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].message}",
        ])
        .ok()
        .stdout;
    assert_eq!(
        msg,
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    );
    let row = c
        .kubectl(&["get", "pod", "cuda13-job", "-n", "gpu-drv", "--no-headers"])
        .ok()
        .stdout;
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cells[..4], ["cuda13-job", "0/1", "Pending", "0"]);
    let reason = c
        .kubectl(&[
            "get",
            "events",
            "-n",
            "gpu-drv",
            "--field-selector",
            "reason=FailedScheduling",
            "-o",
            "jsonpath={.items[0].type}",
        ])
        .ok()
        .stdout;
    assert_eq!(reason, "Warning");
}
