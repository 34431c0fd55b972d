//! Lab `gpudrv` walked with real kubectl against the embedded cluster: node facts as labels,
//! driver image tags built from them, a node that joins, CUDA forward compatibility through node
//! affinity, and a driver upgrade blocked (then walked) past a PodDisruptionBudget.
//!
//! Manifests and scripts come from `scenarios/gpudrv/reference/` (one source of truth); the
//! expected texts are what the lab (`scenarios/gpudrv/LAB.md`) and a real 1.32 cluster print:
//! scheduler messages from `k/k pkg/scheduler/framework/types.go` (FitError) and
//! `defaultpreemption`, drain output from `kubectl pkg/drain/drain.go` and
//! `kubectl pkg/cmd/drain/drain.go`, table cells from `k/k pkg/printers/internalversion`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use proctor_tests::lab_walk::{
    self, cells, eventually, eventually_shaped, get, script, sorted_lines, table_prefix,
};
use proctor_tests::TestCluster;
use serde_json::Value;

const NS: &str = "gpu-drv";

const LAB: &str = "gpudrv";

/// Copy a reference file into the lab directory (the kubectl working directory).
fn install(c: &TestCluster, from: &str, to: &str) -> PathBuf {
    lab_walk::install(c, LAB, from, to)
}

// ---------------------------------------------------------------------------------------------
// The lab's data.

/// One node's driver facts (step 1).
struct Facts {
    node: &'static str,
    major: &'static str,
    minor: &'static str,
    rev: &'static str,
    kernel: &'static str,
    os_version: &'static str,
    tag: &'static str,
}

const LAB_NODES: [Facts; 3] = [
    Facts {
        node: "lab-node-0",
        major: "550",
        minor: "90",
        rev: "07",
        kernel: "5.15.0-119-generic",
        os_version: "22.04",
        tag: "550-5.15.0-119-generic-ubuntu22.04",
    },
    Facts {
        node: "lab-node-1",
        major: "535",
        minor: "183",
        rev: "06",
        kernel: "5.15.0-107-generic",
        os_version: "22.04",
        tag: "535-5.15.0-107-generic-ubuntu22.04",
    },
    Facts {
        node: "lab-node-2",
        major: "550",
        minor: "90",
        rev: "07",
        kernel: "6.8.0-45-generic",
        os_version: "24.04",
        tag: "550-6.8.0-45-generic-ubuntu24.04",
    },
];

/// The tag jsonpath of the reference drv-tag.sh: label keys with their dots escaped.
const TAG_JSONPATH: &str = r"jsonpath={.metadata.labels.nvidia\.com/cuda\.driver\.major}-{.metadata.labels.feature\.node\.kubernetes\.io/kernel-version\.full}-{.metadata.labels.feature\.node\.kubernetes\.io/system-os_release\.ID}{.metadata.labels.feature\.node\.kubernetes\.io/system-os_release\.VERSION_ID}";

/// The same tag through a go-template (a different, equally correct learner style).
const TAG_GO_TEMPLATE: &str = r#"go-template={{index .metadata.labels "nvidia.com/cuda.driver.major"}}-{{index .metadata.labels "feature.node.kubernetes.io/kernel-version.full"}}-{{index .metadata.labels "feature.node.kubernetes.io/system-os_release.ID"}}{{index .metadata.labels "feature.node.kubernetes.io/system-os_release.VERSION_ID"}}"#;

/// cuda13-job's PodScheduled message with four nodes (1.30+ format: one trailing period).
const CUDA13_MESSAGE: &str = "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.";

/// The replacement trainer while lab-node-1 is cordoned: NodeUnschedulable fails first on
/// lab-node-1 (UnschedulableAndUnresolvable), InterPodAffinity's own anti-affinity on the three
/// others (Unschedulable, so preemption tries them and finds no lower-priority victim). The
/// histogram is sorted as whole "N reason" strings.
const REPLACEMENT_MESSAGE: &str = "0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match pod anti-affinity rules. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.";

const DRAIN: [&str; 5] = [
    "drain",
    "lab-node-1",
    "--ignore-daemonsets",
    "--delete-emptydir-data",
    "--timeout=20s",
];

// ---------------------------------------------------------------------------------------------
// Steps. Each asserts what the lab documents for it.

/// Step 1: namespace and node facts; every label reads back through jsonpath with escaped dots.
fn step1_node_facts(c: &TestCluster) {
    assert_eq!(
        get(c, &["create", "namespace", NS]),
        "namespace/gpu-drv created\n"
    );
    for f in &LAB_NODES {
        let out = get(
            c,
            &[
                "label",
                "node",
                f.node,
                "nvidia.com/gpu.present=true",
                &format!("nvidia.com/cuda.driver.major={}", f.major),
                &format!("nvidia.com/cuda.driver.minor={}", f.minor),
                &format!("nvidia.com/cuda.driver.rev={}", f.rev),
                &format!(
                    "feature.node.kubernetes.io/kernel-version.full={}",
                    f.kernel
                ),
                "feature.node.kubernetes.io/system-os_release.ID=ubuntu",
                &format!(
                    "feature.node.kubernetes.io/system-os_release.VERSION_ID={}",
                    f.os_version
                ),
            ],
        );
        assert_eq!(out, format!("node/{} labeled\n", f.node));
    }
    for f in &LAB_NODES {
        for (key, want) in [
            (r"nvidia\.com/gpu\.present", "true"),
            (r"nvidia\.com/cuda\.driver\.major", f.major),
            (r"nvidia\.com/cuda\.driver\.minor", f.minor),
            (r"nvidia\.com/cuda\.driver\.rev", f.rev),
            (
                r"feature\.node\.kubernetes\.io/kernel-version\.full",
                f.kernel,
            ),
            (
                r"feature\.node\.kubernetes\.io/system-os_release\.ID",
                "ubuntu",
            ),
            (
                r"feature\.node\.kubernetes\.io/system-os_release\.VERSION_ID",
                f.os_version,
            ),
        ] {
            let jp = format!("jsonpath={{.metadata.labels.{key}}}");
            assert_eq!(
                get(c, &["get", "node", f.node, "-o", &jp]),
                want,
                "{} {key}",
                f.node
            );
        }
    }
    assert_eq!(
        get(
            c,
            &[
                "get",
                "nodes",
                "-l",
                "nvidia.com/gpu.present=true",
                "-o",
                "name"
            ]
        ),
        "node/lab-node-0\nnode/lab-node-1\nnode/lab-node-2\n"
    );
    // -L reads the labels from the Table rows' object metadata.
    let cols = get(
        c,
        &[
            "get",
            "nodes",
            "-L",
            "nvidia.com/cuda.driver.major",
            "--no-headers",
        ],
    );
    let majors: Vec<String> = cols
        .lines()
        .map(|l| cells(l).last().cloned().unwrap_or_default())
        .collect();
    assert_eq!(majors, ["550", "535", "550"], "{cols}");
}

/// Step 2: the tag of every lab node, built from its labels (jsonpath, go-template and the
/// reference drv-tag.sh agree); out/tags.txt as the lab shows it.
fn step2_tags(c: &TestCluster) {
    let tag_script = install(c, "drv-tag.sh", "drv-tag.sh");
    let mut tags = String::new();
    for f in &LAB_NODES {
        assert_eq!(get(c, &["get", "node", f.node, "-o", TAG_JSONPATH]), f.tag);
        assert_eq!(
            get(c, &["get", "node", f.node, "-o", TAG_GO_TEMPLATE]),
            f.tag
        );
        let r = script(c, &tag_script, &[f.node]);
        assert_eq!(
            (r.stdout.as_str(), r.code),
            (format!("{}\n", f.tag).as_str(), 0),
            "stderr: {}",
            r.stderr
        );
        tags.push_str(&format!("{} {}", f.node, r.stdout));
    }
    assert_eq!(
        tags,
        "lab-node-0 550-5.15.0-119-generic-ubuntu22.04\nlab-node-1 535-5.15.0-107-generic-ubuntu22.04\nlab-node-2 550-6.8.0-45-generic-ubuntu24.04\n"
    );
}

/// Step 3: the three built combinations; the audit says OK and exits 0.
fn step3_audit(c: &TestCluster) -> PathBuf {
    let audit = install(c, "drv-audit.sh", "drv-audit.sh");
    install(c, "support-matrix.step3.csv", "support-matrix.csv");
    let r = script(c, &audit, &[]);
    assert_eq!(
        (r.stdout.as_str(), r.code),
        ("OK\n", 0),
        "stderr: {}",
        r.stderr
    );
    audit
}

/// Apply the reference k8s/node3.yaml; lab-node-3 joins Ready with the manifest's facts.
fn join_node3(c: &TestCluster) {
    install(c, "k8s/node3.yaml", "k8s/node3.yaml");
    assert_eq!(
        get(c, &["apply", "-f", "k8s/node3.yaml"]),
        "node/lab-node-3 created\n"
    );
    assert_eq!(
        get(
            c,
            &[
                "wait",
                "--for=condition=Ready",
                "node/lab-node-3",
                "--timeout=30s"
            ]
        ),
        "node/lab-node-3 condition met\n"
    );
    let row = cells(&get(c, &["get", "node", "lab-node-3", "--no-headers"]));
    assert_eq!(row[..3], ["lab-node-3", "Ready", "<none>"], "{row:?}");
    assert_eq!(
        get(
            c,
            &[
                "get",
                "node",
                "lab-node-3",
                "-o",
                r"jsonpath={.metadata.annotations.kwok\.x-k8s\.io/node}"
            ]
        ),
        "fake"
    );
    assert_eq!(
        get(c, &["get", "node", "lab-node-3", "-o", "jsonpath={.status.allocatable.cpu} {.status.allocatable.memory} {.status.allocatable.pods}"]),
        "32 256Gi 110"
    );
    assert_eq!(
        get(c, &["get", "node", "lab-node-3", "-o", TAG_JSONPATH]),
        "550-6.8.0-52-generic-ubuntu24.04"
    );
}

/// Step 4: lab-node-3 joins on an unbuilt kernel; the audit reports it, then the new row fixes it.
fn step4_node_joins(c: &TestCluster, audit: &Path) {
    join_node3(c);
    let r = script(c, audit, &[]);
    assert_eq!(
        (r.stdout.as_str(), r.code),
        ("lab-node-3 MISSING 550-6.8.0-52-generic-ubuntu24.04\n", 1),
        "stderr: {}",
        r.stderr
    );
    install(c, "support-matrix.step4.csv", "support-matrix.csv");
    let r = script(c, audit, &[]);
    assert_eq!(
        (r.stdout.as_str(), r.code),
        ("OK\n", 0),
        "stderr: {}",
        r.stderr
    );
}

/// Step 5: one term with two expressions lands on lab-node-0 only; Gt 560 fits no node.
fn step5_cuda(c: &TestCluster) {
    install(c, "k8s/cuda12-job.yaml", "k8s/cuda12-job.yaml");
    install(c, "k8s/cuda13-job.yaml", "k8s/cuda13-job.yaml");
    assert_eq!(
        get(
            c,
            &[
                "apply",
                "-f",
                "k8s/cuda12-job.yaml",
                "-f",
                "k8s/cuda13-job.yaml"
            ]
        ),
        "pod/cuda12-job created\npod/cuda13-job created\n"
    );
    // The server keeps the affinity's structure: ONE term holding TWO expressions.
    let pod: Value = serde_json::from_str(&get(
        c,
        &["get", "pod", "cuda12-job", "-n", NS, "-o", "json"],
    ))
    .expect("pod json");
    let terms = &pod["spec"]["affinity"]["nodeAffinity"]
        ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
    assert_eq!(terms.as_array().map(Vec::len), Some(1), "{terms}");
    assert_eq!(
        terms[0]["matchExpressions"].as_array().map(Vec::len),
        Some(2),
        "{terms}"
    );

    eventually(
        c,
        &[
            "get",
            "pod",
            "cuda12-job",
            "-n",
            NS,
            "-o",
            "jsonpath={.spec.nodeName} {.status.phase}",
        ],
        "lab-node-0 Running",
    );
    let row = cells(&get(
        c,
        &["get", "pod", "cuda12-job", "-n", NS, "--no-headers"],
    ));
    assert_eq!(row[..4], ["cuda12-job", "1/1", "Running", "0"], "{row:?}");

    let cond = r#"jsonpath={.status.conditions[?(@.type=="PodScheduled")].status}/{.status.conditions[?(@.type=="PodScheduled")].reason}"#;
    eventually(
        c,
        &["get", "pod", "cuda13-job", "-n", NS, "-o", cond],
        "False/Unschedulable",
    );
    // out/cuda.txt, read the way the reference reads it.
    let msg = get(
        c,
        &[
            "get",
            "pod",
            "cuda13-job",
            "-n",
            NS,
            "-o",
            r#"jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}"#,
        ],
    );
    assert_eq!(msg, CUDA13_MESSAGE);
    assert_eq!(
        get(
            c,
            &[
                "get",
                "pod",
                "cuda13-job",
                "-n",
                NS,
                "-o",
                "jsonpath={.status.phase}|{.spec.nodeName}"
            ]
        ),
        "Pending|"
    );
    let row = cells(&get(
        c,
        &["get", "pod", "cuda13-job", "-n", NS, "--no-headers"],
    ));
    assert_eq!(row[..4], ["cuda13-job", "0/1", "Pending", "0"], "{row:?}");
    let ev = get(
        c,
        &[
            "get",
            "events",
            "-n",
            NS,
            "--field-selector",
            "reason=FailedScheduling,involvedObject.name=cuda13-job",
            "-o",
            "jsonpath={.items[0].type} {.items[0].message}",
        ],
    );
    assert_eq!(ev, format!("Warning {CUDA13_MESSAGE}"));
}

/// The four trainers' nodes, sorted: exactly one Running per node.
fn assert_one_trainer_per_node(c: &TestCluster) {
    eventually_shaped(
        c,
        &[
            "get",
            "pods",
            "-n",
            NS,
            "-l",
            "app=trainer",
            "--field-selector=status.phase=Running",
            "-o",
            "jsonpath={range .items[*]}{.spec.nodeName}{\"\\n\"}{end}",
        ],
        sorted_lines,
        "lab-node-0\nlab-node-1\nlab-node-2\nlab-node-3",
    );
}

/// `kubectl get pdb -n gpu-drv` shows these MIN AVAILABLE / MAX UNAVAILABLE / ALLOWED DISRUPTIONS.
fn assert_pdb_columns(c: &TestCluster, min: &str, allowed: &str) {
    eventually_shaped(
        c,
        &["get", "pdb", "-n", NS],
        |s| table_prefix(s, 4),
        &format!("NAME MIN AVAILABLE MAX\ntrainer-pdb {min} N/A {allowed}"),
    );
    let out = get(c, &["get", "pdb", "-n", NS]);
    let header: Vec<String> = cells(out.lines().next().unwrap_or_default());
    assert_eq!(
        header,
        [
            "NAME",
            "MIN",
            "AVAILABLE",
            "MAX",
            "UNAVAILABLE",
            "ALLOWED",
            "DISRUPTIONS",
            "AGE"
        ]
    );
}

/// The trainer pod running on `node`.
fn trainer_on(c: &TestCluster, node: &str) -> String {
    get(
        c,
        &[
            "get",
            "pods",
            "-n",
            NS,
            "-l",
            "app=trainer",
            "--field-selector",
            &format!("spec.nodeName={node}"),
            "-o",
            "jsonpath={.items[*].metadata.name}",
        ],
    )
}

/// Step 6, up to the drain: four trainers, one per node; the budget allows no disruption.
/// Returns the trainer on lab-node-1.
fn step6_trainers_and_budget(c: &TestCluster) -> String {
    install(c, "k8s/trainer.yaml", "k8s/trainer.yaml");
    install(c, "k8s/pdb.yaml", "k8s/pdb.yaml");
    assert_eq!(
        get(
            c,
            &["apply", "-f", "k8s/trainer.yaml", "-f", "k8s/pdb.yaml"]
        ),
        "deployment.apps/trainer created\npoddisruptionbudget.policy/trainer-pdb created\n"
    );
    assert_one_trainer_per_node(c);
    eventually_shaped(
        c,
        &["get", "deploy", "trainer", "-n", NS, "--no-headers"],
        |s| table_prefix(s, 4),
        "trainer 4/4 4 4",
    );
    // The ReplicaSet is named after the pod-template-hash that its pods carry.
    let victim = trainer_on(c, "lab-node-1");
    let hash = get(
        c,
        &[
            "get",
            "pod",
            &victim,
            "-n",
            NS,
            "-o",
            "jsonpath={.metadata.labels.pod-template-hash}",
        ],
    );
    assert!(!hash.is_empty(), "pod {victim} has no pod-template-hash");
    let suffix = victim
        .strip_prefix(&format!("trainer-{hash}-"))
        .unwrap_or_default();
    assert!(
        suffix.len() == 5
            && suffix
                .chars()
                .all(|ch| "bcdfghjklmnpqrstvwxz2456789".contains(ch)),
        "pod name {victim} is not trainer-{hash}-<5 generated characters>"
    );
    assert_eq!(
        table_prefix(&get(c, &["get", "rs", "-n", NS, "--no-headers"]), 4),
        format!("trainer-{hash} 4 4 4")
    );
    assert_pdb_columns(c, "4", "0");
    assert_eq!(
        get(c, &["get", "pdb", "trainer-pdb", "-n", NS, "-o", "jsonpath={.status.expectedPods} {.status.desiredHealthy} {.status.currentHealthy} {.status.disruptionsAllowed}"]),
        "4 4 4 0"
    );
    assert_eq!(
        get(
            c,
            &[
                "get",
                "pdb",
                "trainer-pdb",
                "-n",
                NS,
                "-o",
                r#"jsonpath={.status.conditions[?(@.type=="DisruptionAllowed")].status}/{.status.conditions[?(@.type=="DisruptionAllowed")].reason}"#
            ]
        ),
        "False/InsufficientPods"
    );
    victim
}

/// How many eviction attempts kubectl drain makes before its global timeout: one at once, then
/// one after every 5 s sleep; the attempt that starts past the deadline only prints its line.
fn attempts(timeout_secs: u64) -> usize {
    (timeout_secs.div_ceil(5) + 1) as usize
}

/// Step 6, the drain: refused by the budget (429 on every attempt), the node stays cordoned.
fn step6_drain_refused(c: &TestCluster, victim: &str, timeout: &str) {
    let secs: u64 = timeout
        .trim_end_matches('s')
        .parse()
        .expect("timeout in seconds");
    let flag = format!("--timeout={timeout}");
    let mut args = DRAIN.to_vec();
    args[4] = flag.as_str();
    let r = c.kubectl(&args);
    assert_eq!(r.code, 1, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    let n = attempts(secs);
    let mut want_out = String::from("node/lab-node-1 cordoned\n");
    for _ in 0..n {
        want_out.push_str(&format!("evicting pod gpu-drv/{victim}\n"));
    }
    assert_eq!(r.stdout, want_out);
    let mut want_err = String::new();
    for _ in 0..n - 1 {
        want_err.push_str(&format!(
            "error when evicting pods/\"{victim}\" -n \"gpu-drv\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n"
        ));
    }
    let timed_out = format!(
        "error when evicting pods/\"{victim}\" -n \"gpu-drv\": global timeout reached: {timeout}"
    );
    want_err.push_str(&format!(
        "There are pending pods in node \"lab-node-1\" when an error occurred: {timed_out}\n"
    ));
    want_err.push_str(&format!("pod/{victim}\n"));
    // kubectl 1.31+ puts a space after "due to error:".
    want_err.push_str(&format!("error: unable to drain node \"lab-node-1\" due to error: {timed_out}, continuing command...\n"));
    want_err.push_str("There are pending nodes to be drained:\n lab-node-1\n");
    want_err.push_str(&format!("{timed_out}\n"));
    assert_eq!(r.stderr, want_err);

    let row = cells(&get(c, &["get", "node", "lab-node-1", "--no-headers"]));
    assert_eq!(row[1], "Ready,SchedulingDisabled", "{row:?}");
    assert_eq!(
        trainer_on(c, "lab-node-1"),
        victim,
        "the refused eviction must leave the trainer in place"
    );
    assert_eq!(
        get(
            c,
            &[
                "get",
                "pod",
                victim,
                "-n",
                NS,
                "-o",
                "jsonpath={.status.phase}"
            ]
        ),
        "Running"
    );
    assert_pdb_columns(c, "4", "0");
}

/// Step 7: lower the budget, drain, watch the replacement wait, relabel, uncordon.
fn step7_walk_upgrade(c: &TestCluster, audit: &Path, victim: &str, timeout: &str) {
    install(c, "support-matrix.step7.csv", "support-matrix.csv");
    assert_eq!(
        get(
            c,
            &[
                "patch",
                "pdb",
                "trainer-pdb",
                "-n",
                NS,
                "--type",
                "merge",
                "-p",
                r#"{"spec":{"minAvailable":3}}"#
            ]
        ),
        "poddisruptionbudget.policy/trainer-pdb patched\n"
    );
    assert_pdb_columns(c, "3", "1");

    let flag = format!("--timeout={timeout}");
    let mut args = DRAIN.to_vec();
    args[4] = flag.as_str();
    let r = c.kubectl(&args);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (
            0,
            format!("node/lab-node-1 already cordoned\nevicting pod gpu-drv/{victim}\npod/{victim} evicted\nnode/lab-node-1 drained\n").as_str(),
            ""
        )
    );
    let gone = c.kubectl(&["get", "pod", victim, "-n", NS]).fails();
    assert_eq!(
        gone.stderr,
        format!("Error from server (NotFound): pods \"{victim}\" not found\n")
    );

    // The ReplicaSet's replacement has nowhere to go: anti-affinity on three nodes, cordon on one.
    eventually_shaped(
        c,
        &[
            "get",
            "pods",
            "-n",
            NS,
            "-l",
            "app=trainer",
            "--field-selector=status.phase=Pending",
            "-o",
            "name",
        ],
        |s| s.lines().count().to_string(),
        "1",
    );
    let replacement = get(
        c,
        &[
            "get",
            "pods",
            "-n",
            NS,
            "-l",
            "app=trainer",
            "--field-selector=status.phase=Pending",
            "-o",
            "jsonpath={.items[0].metadata.name}",
        ],
    );
    assert_ne!(replacement, victim);
    let cond = r#"jsonpath={.status.conditions[?(@.type=="PodScheduled")].status}/{.status.conditions[?(@.type=="PodScheduled")].reason}/{.status.conditions[?(@.type=="PodScheduled")].message}"#;
    eventually(
        c,
        &["get", "pod", &replacement, "-n", NS, "-o", cond],
        &format!("False/Unschedulable/{REPLACEMENT_MESSAGE}"),
    );
    assert_eq!(
        get(
            c,
            &[
                "get",
                "pod",
                &replacement,
                "-n",
                NS,
                "-o",
                "jsonpath={.spec.nodeName}"
            ]
        ),
        ""
    );
    eventually_shaped(
        c,
        &["get", "deploy", "trainer", "-n", NS, "--no-headers"],
        |s| table_prefix(s, 4),
        "trainer 3/4 4 3",
    );
    assert_pdb_columns(c, "3", "0");
    assert_eq!(
        get(c, &["get", "pdb", "trainer-pdb", "-n", NS, "-o", "jsonpath={.status.expectedPods} {.status.desiredHealthy} {.status.currentHealthy} {.status.disruptionsAllowed}"]),
        "4 3 3 0"
    );

    assert_eq!(
        get(
            c,
            &[
                "label",
                "node",
                "lab-node-1",
                "--overwrite",
                "nvidia.com/cuda.driver.major=550",
                "nvidia.com/cuda.driver.minor=90",
                "nvidia.com/cuda.driver.rev=07"
            ]
        ),
        "node/lab-node-1 labeled\n"
    );
    assert_eq!(
        get(c, &["uncordon", "lab-node-1"]),
        "node/lab-node-1 uncordoned\n"
    );
    eventually(
        c,
        &[
            "get",
            "pod",
            &replacement,
            "-n",
            NS,
            "-o",
            "jsonpath={.spec.nodeName} {.status.phase}",
        ],
        "lab-node-1 Running",
    );
    assert_one_trainer_per_node(c);
    let row = cells(&get(c, &["get", "node", "lab-node-1", "--no-headers"]));
    assert_eq!(row[1], "Ready", "{row:?}");
    assert_eq!(
        get(
            c,
            &[
                "get",
                "node",
                "lab-node-1",
                "-o",
                "jsonpath={.spec.unschedulable}"
            ]
        ),
        ""
    );
    eventually_shaped(
        c,
        &["get", "deploy", "trainer", "-n", NS, "--no-headers"],
        |s| table_prefix(s, 4),
        "trainer 4/4 4 4",
    );
    assert_pdb_columns(c, "3", "1");
    let r = script(c, audit, &[]);
    assert_eq!(
        (r.stdout.as_str(), r.code),
        ("OK\n", 0),
        "stderr: {}",
        r.stderr
    );
}

/// Step 8: the state label and the report, every value pulled from the live state.
fn step8_report(c: &TestCluster, audit: &Path) {
    assert_eq!(
        get(
            c,
            &[
                "label",
                "node",
                "lab-node-1",
                "--overwrite",
                "nvidia.com/gpu-driver-upgrade-state=upgrade-done"
            ]
        ),
        "node/lab-node-1 labeled\n"
    );
    let nodes = get(
        c,
        &[
            "get",
            "nodes",
            "-l",
            "nvidia.com/gpu.present=true",
            "-o",
            "name",
        ],
    )
    .lines()
    .count();
    let audit_run = script(c, audit, &[]);
    assert_eq!(audit_run.code, 0, "{audit_run:?}");
    let skew = audit_run
        .stdout
        .lines()
        .filter(|l| l.contains(" MISSING "))
        .count();
    let tag_script = c.dir().join("drv-tag.sh");
    if !tag_script.exists() {
        install(c, "drv-tag.sh", "drv-tag.sh");
    }
    let tag = script(c, &tag_script, &["lab-node-1"]);
    assert_eq!(tag.code, 0, "{tag:?}");
    let matrix = std::fs::read_to_string(c.dir().join("support-matrix.csv")).expect("matrix");
    let rows = matrix.lines().skip(1).filter(|l| !l.is_empty()).count();
    let state = get(
        c,
        &[
            "get",
            "node",
            "lab-node-1",
            "-o",
            r"jsonpath={.metadata.labels.nvidia\.com/gpu-driver-upgrade-state}",
        ],
    );
    let report = format!("NODES={nodes}\nSKEW={skew}\nLAB_NODE_1_TAG={}\nMATRIX_ROWS={rows}\nUPGRADE_STATE={state}\n", tag.stdout.trim_end());
    assert_eq!(
        report,
        "NODES=4\nSKEW=0\nLAB_NODE_1_TAG=550-5.15.0-107-generic-ubuntu22.04\nMATRIX_ROWS=5\nUPGRADE_STATE=upgrade-done\n"
    );
}

// ---------------------------------------------------------------------------------------------
// Tests.

#[test]
fn step1_node_facts_read_back_through_escaped_jsonpath() {
    let c = TestCluster::lab();
    step1_node_facts(&c);
    let ns = cells(&get(&c, &["get", "namespace", NS, "--no-headers"]));
    assert_eq!(ns[..2], ["gpu-drv", "Active"], "{ns:?}");
}

#[test]
fn step2_tags_are_built_from_the_labels_on_any_node() {
    let c = TestCluster::lab();
    step1_node_facts(&c);
    step2_tags(&c);
    // A GPU node the learner never saw (the grader's gpu-unbuilt): the same tool, new values.
    let node = r#"apiVersion: v1
kind: Node
metadata:
  name: gpu-node-x7k2p
  annotations:
    kwok.x-k8s.io/node: fake
  labels:
    nvidia.com/gpu.present: "true"
    nvidia.com/cuda.driver.major: "550"
    nvidia.com/cuda.driver.minor: "90"
    nvidia.com/cuda.driver.rev: "07"
    feature.node.kubernetes.io/kernel-version.full: 6.8.0-60-generic
    feature.node.kubernetes.io/system-os_release.ID: ubuntu
    feature.node.kubernetes.io/system-os_release.VERSION_ID: "24.04"
spec: {}
"#;
    assert_eq!(
        c.kubectl_stdin(&["apply", "-f", "-"], node).ok().stdout,
        "node/gpu-node-x7k2p created\n"
    );
    let r = script(&c, &c.dir().join("drv-tag.sh"), &["gpu-node-x7k2p"]);
    assert_eq!(
        (r.stdout.as_str(), r.code),
        ("550-6.8.0-60-generic-ubuntu24.04\n", 0),
        "stderr: {}",
        r.stderr
    );
    let audit = step3_audit_expecting(
        &c,
        "gpu-node-x7k2p MISSING 550-6.8.0-60-generic-ubuntu24.04\n",
        1,
    );
    // Non-GPU nodes are not audited.
    assert_eq!(
        get(
            &c,
            &[
                "label",
                "node",
                "gpu-node-x7k2p",
                "--overwrite",
                "nvidia.com/gpu.present=false"
            ]
        ),
        "node/gpu-node-x7k2p labeled\n"
    );
    let r = script(&c, &audit, &[]);
    assert_eq!(
        (r.stdout.as_str(), r.code),
        ("OK\n", 0),
        "stderr: {}",
        r.stderr
    );
}

/// Install the step-3 audit and matrix and expect this outcome.
fn step3_audit_expecting(c: &TestCluster, stdout: &str, code: i32) -> PathBuf {
    let audit = install(c, "drv-audit.sh", "drv-audit.sh");
    install(c, "support-matrix.step3.csv", "support-matrix.csv");
    let r = script(c, &audit, &[]);
    assert_eq!(
        (r.stdout.as_str(), r.code),
        (stdout, code),
        "stderr: {}",
        r.stderr
    );
    audit
}

#[test]
fn step3_4_audit_and_a_node_that_joins() {
    let c = TestCluster::lab();
    step1_node_facts(&c);
    let audit = step3_audit(&c);
    step4_node_joins(&c, &audit);
    let names = get(&c, &["get", "nodes", "-o", "name"]);
    assert_eq!(
        names,
        "node/lab-node-0\nnode/lab-node-1\nnode/lab-node-2\nnode/lab-node-3\n"
    );
}

#[test]
fn step5_one_term_lands_on_lab_node_0_and_cuda13_stays_pending() {
    let c = TestCluster::lab();
    step1_node_facts(&c);
    join_node3(&c);
    step5_cuda(&c);
    // Still Pending a moment later: nothing changed that could make it fit.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        get(
            &c,
            &[
                "get",
                "pod",
                "cuda13-job",
                "-n",
                NS,
                "-o",
                "jsonpath={.status.phase}"
            ]
        ),
        "Pending"
    );
}

/// The classic mistake: two nodeSelectorTerms are ORed, so the pod fits nodes the lab's single
/// term (AND) rejects. With lab-node-0 (the only 550 + 22.04 node) cordoned, the one-term pod
/// waits while the two-term pod runs on another node.
#[test]
fn step5_two_terms_are_or_the_classic_mistake() {
    let c = TestCluster::lab();
    step1_node_facts(&c);
    join_node3(&c);
    assert_eq!(
        get(&c, &["cordon", "lab-node-0"]),
        "node/lab-node-0 cordoned\n"
    );
    install(&c, "k8s/cuda12-job.yaml", "k8s/cuda12-job.yaml");
    let two_terms = r#"apiVersion: v1
kind: Pod
metadata:
  name: cuda12-two-terms
  namespace: gpu-drv
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - key: nvidia.com/cuda.driver.major
                operator: In
                values: ["550"]
          - matchExpressions:
              - key: feature.node.kubernetes.io/system-os_release.VERSION_ID
                operator: In
                values: ["22.04"]
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.07-py3
"#;
    c.file("k8s/cuda12-two-terms.yaml", two_terms);
    assert_eq!(
        get(
            &c,
            &[
                "apply",
                "-f",
                "k8s/cuda12-job.yaml",
                "-f",
                "k8s/cuda12-two-terms.yaml"
            ]
        ),
        "pod/cuda12-job created\npod/cuda12-two-terms created\n"
    );
    let cond = r#"jsonpath={.status.conditions[?(@.type=="PodScheduled")].status}/{.status.conditions[?(@.type=="PodScheduled")].reason}/{.status.conditions[?(@.type=="PodScheduled")].message}"#;
    eventually(
        &c,
        &["get", "pod", "cuda12-job", "-n", NS, "-o", cond],
        "False/Unschedulable/0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
    );
    eventually(
        &c,
        &[
            "get",
            "pod",
            "cuda12-two-terms",
            "-n",
            NS,
            "-o",
            "jsonpath={.status.phase}",
        ],
        "Running",
    );
    let node = get(
        &c,
        &[
            "get",
            "pod",
            "cuda12-two-terms",
            "-n",
            NS,
            "-o",
            "jsonpath={.spec.nodeName}",
        ],
    );
    assert!(
        ["lab-node-1", "lab-node-2", "lab-node-3"].contains(&node.as_str()),
        "two ORed terms match 535/22.04 and 550/24.04 nodes; the pod went to {node:?}"
    );
    // Uncordoned, the single term finds its one node.
    assert_eq!(
        get(&c, &["uncordon", "lab-node-0"]),
        "node/lab-node-0 uncordoned\n"
    );
    eventually(
        &c,
        &[
            "get",
            "pod",
            "cuda12-job",
            "-n",
            NS,
            "-o",
            "jsonpath={.spec.nodeName} {.status.phase}",
        ],
        "lab-node-0 Running",
    );
}

#[test]
fn step6_trainers_spread_one_per_node_under_a_budget() {
    let c = TestCluster::lab();
    step1_node_facts(&c);
    join_node3(&c);
    step6_trainers_and_budget(&c);
    // Every trainer carries the required anti-affinity of its template.
    let topo = get(
        &c,
        &["get", "pods", "-n", NS, "-l", "app=trainer", "-o", "jsonpath={range .items[*]}{.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey}{\"\\n\"}{end}"],
    );
    assert_eq!(topo, "kubernetes.io/hostname\n".repeat(4));
    // The ReplicaSet controller records each create (`k/k pkg/controller/controller_utils.go`).
    let rs = get(
        &c,
        &[
            "get",
            "rs",
            "-n",
            NS,
            "-o",
            "jsonpath={.items[0].metadata.name}",
        ],
    );
    let pods = get(
        &c,
        &[
            "get",
            "pods",
            "-n",
            NS,
            "-l",
            "app=trainer",
            "-o",
            "jsonpath={.items[*].metadata.name}",
        ],
    );
    let events = get(
        &c,
        &[
            "get",
            "events",
            "-n",
            NS,
            "-o",
            r#"jsonpath={range .items[*]}{.involvedObject.kind}/{.involvedObject.name} {.type} {.reason} {.message}{"\n"}{end}"#,
        ],
    );
    for pod in pods.split_whitespace() {
        assert!(
            events.contains(&format!(
                "ReplicaSet/{rs} Normal SuccessfulCreate Created pod: {pod}\n"
            )),
            "no SuccessfulCreate event for {pod}:\n{events}"
        );
    }
}

/// Steps 6 and 7 with a short drain timeout (the lab's 20 s runs once, in the full walk).
#[test]
fn step6_7_drain_refused_by_the_budget_then_walked() {
    let c = TestCluster::lab();
    step1_node_facts(&c);
    let audit = step3_audit(&c);
    step4_node_joins(&c, &audit);
    let victim = step6_trainers_and_budget(&c);
    step6_drain_refused(&c, &victim, "7s");
    step7_walk_upgrade(&c, &audit, &victim, "7s");
}

#[test]
fn step8_report_values_come_from_the_live_state() {
    let c = TestCluster::lab();
    step1_node_facts(&c);
    step2_tags(&c);
    let audit = step3_audit(&c);
    step4_node_joins(&c, &audit);
    install(&c, "support-matrix.step7.csv", "support-matrix.csv");
    c.kubectl(&[
        "label",
        "node",
        "lab-node-1",
        "--overwrite",
        "nvidia.com/cuda.driver.major=550",
        "nvidia.com/cuda.driver.minor=90",
        "nvidia.com/cuda.driver.rev=07",
    ])
    .ok();
    step8_report(&c, &audit);
}

/// The whole lab in order, with the lab's exact drain command (`--timeout=20s`).
#[test]
fn walk_all_eight_steps_with_the_labs_commands() {
    let c = TestCluster::lab();
    step1_node_facts(&c);
    step2_tags(&c);
    let audit = step3_audit(&c);
    step4_node_joins(&c, &audit);
    step5_cuda(&c);
    let victim = step6_trainers_and_budget(&c);
    step6_drain_refused(&c, &victim, "20s");
    step7_walk_upgrade(&c, &audit, &victim, "20s");
    step8_report(&c, &audit);
    // cuda13-job is still waiting: four nodes now, and no 560+ driver among them.
    assert_eq!(
        get(
            &c,
            &[
                "get",
                "pod",
                "cuda13-job",
                "-n",
                NS,
                "-o",
                r#"jsonpath={.status.phase} {.status.conditions[?(@.type=="PodScheduled")].message}"#
            ]
        ),
        format!("Pending {CUDA13_MESSAGE}")
    );
}
