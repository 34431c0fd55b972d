//! Real kubectl against the embedded cluster: Deployments end to end (scale, rollout status,
//! rollout history), `get all`, describe, sort-by, wait for deletion.

use proctor_tests::TestCluster;

fn deploy(c: &TestCluster) {
    assert_eq!(
        c.kubectl(&["create", "namespace", "web"]).ok().stdout,
        "namespace/web created\n"
    );
    assert_eq!(
        c.kubectl(&[
            "create",
            "deployment",
            "web",
            "--image=nginx:1.27",
            "--replicas=2",
            "-n",
            "web"
        ])
        .ok()
        .stdout,
        "deployment.apps/web created\n"
    );
}

#[test]
fn rollout_status_scale_and_history() {
    let c = TestCluster::lab();
    deploy(&c);
    let status = c
        .kubectl(&[
            "rollout",
            "status",
            "deployment/web",
            "-n",
            "web",
            "--timeout=20s",
        ])
        .ok();
    assert_eq!(
        status.stdout,
        "deployment \"web\" successfully rolled out\n"
    );
    assert_eq!(
        c.kubectl(&["scale", "deployment/web", "--replicas=3", "-n", "web"])
            .ok()
            .stdout,
        "deployment.apps/web scaled\n"
    );
    c.kubectl(&[
        "rollout",
        "status",
        "deployment/web",
        "-n",
        "web",
        "--timeout=20s",
    ])
    .ok();
    let ready = c
        .kubectl(&[
            "get",
            "deploy",
            "web",
            "-n",
            "web",
            "-o",
            "jsonpath={.status.readyReplicas}/{.spec.replicas}",
        ])
        .ok()
        .stdout;
    assert_eq!(ready, "3/3");
    assert_eq!(
        c.kubectl(&[
            "set",
            "image",
            "deployment/web",
            "nginx=nginx:1.28",
            "-n",
            "web"
        ])
        .ok()
        .stdout,
        "deployment.apps/web image updated\n"
    );
    c.kubectl(&[
        "rollout",
        "status",
        "deployment/web",
        "-n",
        "web",
        "--timeout=20s",
    ])
    .ok();
    let images = c
        .kubectl(&[
            "get",
            "pods",
            "-n",
            "web",
            "-o",
            "jsonpath={range .items[*]}{.spec.containers[0].image}{\"\\n\"}{end}",
        ])
        .ok()
        .stdout;
    assert_eq!(images, "nginx:1.28\nnginx:1.28\nnginx:1.28\n");
    let history = c
        .kubectl(&["rollout", "history", "deployment/web", "-n", "web"])
        .ok()
        .stdout;
    let rows: Vec<Vec<&str>> = history
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], ["deployment.apps/web"]);
    assert_eq!(rows[1], ["REVISION", "CHANGE-CAUSE"]);
    assert_eq!(rows[2], ["1", "<none>"]);
    assert_eq!(rows[3], ["2", "<none>"]);
    let rs = c
        .kubectl(&[
            "get",
            "rs",
            "-n",
            "web",
            "-o",
            "jsonpath={range .items[*]}{.spec.replicas}{\" \"}{end}",
        ])
        .ok()
        .stdout;
    let mut counts: Vec<&str> = rs.split_whitespace().collect();
    counts.sort();
    assert_eq!(counts, ["0", "3"]);
}

#[test]
fn get_all_expands_the_category() {
    let c = TestCluster::lab();
    deploy(&c);
    c.kubectl(&[
        "rollout",
        "status",
        "deployment/web",
        "-n",
        "web",
        "--timeout=20s",
    ])
    .ok();
    let out = c
        .kubectl(&["get", "all", "-n", "web", "-o", "name"])
        .ok()
        .stdout;
    let kinds: Vec<&str> = out
        .lines()
        .map(|l| l.split('/').next().unwrap_or(""))
        .collect();
    assert_eq!(kinds.iter().filter(|k| **k == "pod").count(), 2, "{out}");
    assert!(kinds.contains(&"deployment.apps"), "{out}");
    assert!(kinds.contains(&"replicaset.apps"), "{out}");
}

#[test]
fn describe_node_lists_its_pods_and_conditions() {
    let c = TestCluster::lab();
    deploy(&c);
    c.kubectl(&[
        "rollout",
        "status",
        "deployment/web",
        "-n",
        "web",
        "--timeout=20s",
    ])
    .ok();
    c.kubectl(&["cordon", "lab-node-2"]).ok();
    let d = c.kubectl(&["describe", "node", "lab-node-2"]).ok().stdout;
    assert!(d.starts_with("Name:               lab-node-2\n"), "{d}");
    assert!(
        d.contains("Taints:             node.kubernetes.io/unschedulable:NoSchedule\n"),
        "{d}"
    );
    assert!(d.contains("Unschedulable:      true\n"), "{d}");
    let ready = d
        .lines()
        .find(|l| l.trim_start().starts_with("Ready "))
        .unwrap_or("");
    assert_eq!(ready.split_whitespace().nth(1), Some("True"), "{d}");
    assert!(
        d.contains("KubeletReady                 kubelet is posting ready status"),
        "{d}"
    );
    assert!(d.contains("Non-terminated Pods:"), "{d}");
}

#[test]
fn sort_by_and_wait_for_delete() {
    let c = TestCluster::lab();
    for (n, v) in [
        ("lab-node-0", "3"),
        ("lab-node-1", "1"),
        ("lab-node-2", "2"),
    ] {
        c.kubectl(&["label", "node", n, &format!("rank={v}")]).ok();
    }
    let sorted = c
        .kubectl(&[
            "get",
            "nodes",
            "--sort-by=.metadata.labels.rank",
            "-o",
            "custom-columns=NAME:.metadata.name",
            "--no-headers",
        ])
        .ok()
        .stdout;
    assert_eq!(sorted, "lab-node-1\nlab-node-2\nlab-node-0\n");
    c.kubectl(&["create", "configmap", "cfg", "--from-literal=a=b"])
        .ok();
    let wait = c
        .kubectl(&["wait", "--for=delete", "configmap/cfg", "--timeout=1s"])
        .fails();
    assert!(
        wait.stderr.contains("timed out waiting for the condition"),
        "{}",
        wait.stderr
    );
    c.kubectl(&["delete", "configmap", "cfg"]).ok();
    c.kubectl(&["wait", "--for=delete", "configmap/cfg", "--timeout=5s"])
        .ok();
}
