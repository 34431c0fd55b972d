//! Real kubectl against the embedded cluster: nodes, labels, cordon — the lab's first steps.
//! Expected texts are what kubectl prints against a real 1.32 cluster.

use proctor_tests::TestCluster;

/// Replace the AGE cells (`0s`, `3s`, `2m`) so tables can be compared exactly.
fn mask_age(table: &str) -> String {
    table
        .lines()
        .map(|l| {
            l.split_inclusive(' ')
                .map(|w| {
                    let t = w.trim_end();
                    let is_age = !t.is_empty()
                        && t.chars().next().is_some_and(|c| c.is_ascii_digit())
                        && t.chars().all(|c| c.is_ascii_digit() || "smhdy".contains(c))
                        && t.chars().last().is_some_and(|c| "smhdy".contains(c));
                    if is_age {
                        format!("{:width$}", "AGE", width = w.len().max(3))
                    } else {
                        w.to_string()
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn get_nodes_prints_the_real_table() {
    let c = TestCluster::lab();
    let out = c.kubectl(&["get", "nodes"]).ok();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header, ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
    for (i, l) in lines[1..].iter().enumerate() {
        let cells: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(cells[0], format!("lab-node-{i}"));
        assert_eq!(cells[1], "Ready");
        assert_eq!(cells[2], "<none>");
    }
}

#[test]
fn wide_output_adds_the_real_columns() {
    let c = TestCluster::lab();
    let out = c.kubectl(&["get", "nodes", "-o", "wide"]).ok();
    let header: Vec<&str> = out
        .stdout
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        header,
        [
            "NAME",
            "STATUS",
            "ROLES",
            "AGE",
            "VERSION",
            "INTERNAL-IP",
            "EXTERNAL-IP",
            "OS-IMAGE",
            "KERNEL-VERSION",
            "CONTAINER-RUNTIME"
        ]
    );
    let row: Vec<&str> = out
        .stdout
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    // No external address: `<none>`; kwok leaves osImage empty: `<unknown>`.
    assert_eq!(row[6], "<none>");
    assert_eq!(row[7], "<unknown>");
}

#[test]
fn cordon_shows_scheduling_disabled_and_is_idempotent() {
    let c = TestCluster::lab();
    assert_eq!(
        c.kubectl(&["cordon", "lab-node-1"]).ok().stdout,
        "node/lab-node-1 cordoned\n"
    );
    assert_eq!(
        c.kubectl(&["cordon", "lab-node-1"]).ok().stdout,
        "node/lab-node-1 already cordoned\n"
    );
    let table = mask_age(&c.kubectl(&["get", "node", "lab-node-1"]).ok().stdout);
    let row: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(row[1], "Ready,SchedulingDisabled");
    let taints = c
        .kubectl(&[
            "get",
            "node",
            "lab-node-1",
            "-o",
            "jsonpath={.spec.taints[*].key}",
        ])
        .ok()
        .stdout;
    assert_eq!(taints, "node.kubernetes.io/unschedulable");
    assert_eq!(
        c.kubectl(&["uncordon", "lab-node-1"]).ok().stdout,
        "node/lab-node-1 uncordoned\n"
    );
    assert_eq!(
        c.kubectl(&["uncordon", "lab-node-1"]).ok().stdout,
        "node/lab-node-1 already uncordoned\n"
    );
    let taints = c
        .kubectl(&["get", "node", "lab-node-1", "-o", "jsonpath={.spec.taints}"])
        .ok()
        .stdout;
    assert_eq!(taints, "");
}

#[test]
fn label_refuses_to_overwrite_without_the_flag() {
    let c = TestCluster::lab();
    assert_eq!(
        c.kubectl(&["label", "node", "lab-node-0", "nvidia.com/gpu.present=true"])
            .ok()
            .stdout,
        "node/lab-node-0 labeled\n"
    );
    let refused = c
        .kubectl(&[
            "label",
            "node",
            "lab-node-0",
            "nvidia.com/gpu.present=false",
        ])
        .fails();
    assert_eq!(refused.code, 1);
    assert_eq!(
        refused.stderr,
        "error: 'nvidia.com/gpu.present' already has a value (true), and --overwrite is false\n"
    );
    c.kubectl(&[
        "label",
        "node",
        "lab-node-0",
        "nvidia.com/gpu.present=false",
        "--overwrite",
    ])
    .ok();
    let v = c
        .kubectl(&[
            "get",
            "node",
            "lab-node-0",
            "-o",
            r"jsonpath={.metadata.labels.nvidia\.com/gpu\.present}",
        ])
        .ok()
        .stdout;
    assert_eq!(v, "false");
    // Removing a label with the trailing dash.
    assert_eq!(
        c.kubectl(&["label", "node", "lab-node-0", "nvidia.com/gpu.present-"])
            .ok()
            .stdout,
        "node/lab-node-0 unlabeled\n"
    );
}

#[test]
fn label_selectors_and_label_columns() {
    let c = TestCluster::lab();
    c.kubectl(&[
        "label",
        "node",
        "lab-node-0",
        "lab-node-2",
        "nvidia.com/gpu.present=true",
    ])
    .ok();
    let names = c
        .kubectl(&[
            "get",
            "nodes",
            "-l",
            "nvidia.com/gpu.present=true",
            "-o",
            "name",
        ])
        .ok()
        .stdout;
    assert_eq!(names, "node/lab-node-0\nnode/lab-node-2\n");
    let none = c
        .kubectl(&[
            "get",
            "nodes",
            "-l",
            "nvidia.com/gpu.present!=true",
            "-o",
            "name",
        ])
        .ok()
        .stdout;
    assert_eq!(none, "node/lab-node-1\n");
    let set = c
        .kubectl(&[
            "get",
            "nodes",
            "-l",
            "nvidia.com/gpu.present in (true,yes),kubernetes.io/os",
            "-o",
            "name",
        ])
        .ok()
        .stdout;
    assert_eq!(set, "node/lab-node-0\nnode/lab-node-2\n");
    let cols = c
        .kubectl(&[
            "get",
            "nodes",
            "-L",
            "nvidia.com/gpu.present",
            "--no-headers",
            "-o",
            "custom-columns=N:.metadata.name,G:.metadata.labels.nvidia\\.com/gpu\\.present",
        ])
        .ok()
        .stdout;
    assert_eq!(
        cols,
        "lab-node-0   true\nlab-node-1   <none>\nlab-node-2   true\n"
    );
    let bad = c.kubectl(&["get", "nodes", "-l", "a in b"]).fails();
    assert!(
        bad.stderr.contains("unable to parse requirement"),
        "{}",
        bad.stderr
    );
}

#[test]
fn missing_objects_are_reported_like_a_real_server() {
    let c = TestCluster::lab();
    let r = c.kubectl(&["get", "node", "nope"]).fails();
    assert_eq!(
        r.stderr,
        "Error from server (NotFound): nodes \"nope\" not found\n"
    );
    let r = c.kubectl(&["get", "ds", "x", "-n", "default"]).fails();
    assert_eq!(
        r.stderr,
        "Error from server (NotFound): daemonsets.apps \"x\" not found\n"
    );
    // kubectl 1.32 looks the namespace up after a NotFound and reports that instead.
    let r = c.kubectl(&["get", "ds", "x", "-n", "gpu-operator"]).fails();
    assert_eq!(
        r.stderr,
        "Error from server (NotFound): namespaces \"gpu-operator\" not found\n"
    );
    let r = c.kubectl(&["get", "pods", "-n", "nowhere"]).ok();
    assert_eq!(r.stderr, "No resources found in nowhere namespace.\n");
}

#[test]
fn output_formats() {
    let c = TestCluster::lab();
    c.kubectl(&[
        "label",
        "node",
        "lab-node-0",
        "nvidia.com/cuda.driver.major=550",
    ])
    .ok();
    let tmpl = c
        .kubectl(&[
            "get",
            "node",
            "lab-node-0",
            "-o",
            "go-template={{index .metadata.labels \"nvidia.com/cuda.driver.major\"}}",
        ])
        .ok()
        .stdout;
    assert_eq!(tmpl, "550");
    let json = c
        .kubectl(&["get", "node", "lab-node-0", "-o", "json"])
        .ok()
        .stdout;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["kind"], "Node");
    assert_eq!(v["apiVersion"], "v1");
    assert_eq!(
        v["metadata"]["labels"]["nvidia.com/cuda.driver.major"],
        "550"
    );
    let yaml = c
        .kubectl(&["get", "node", "lab-node-0", "-o", "yaml"])
        .ok()
        .stdout;
    assert!(yaml.starts_with("apiVersion: v1\nkind: Node\n"), "{yaml}");
    let list = c.kubectl(&["get", "nodes", "-o", "json"]).ok().stdout;
    let v: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert_eq!(v["kind"], "List");
    assert_eq!(v["items"].as_array().unwrap().len(), 3);
    let range = c
        .kubectl(&[
            "get",
            "nodes",
            "-o",
            "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}",
        ])
        .ok()
        .stdout;
    assert_eq!(range, "lab-node-0\nlab-node-1\nlab-node-2\n");
}

#[test]
fn api_resources_lists_what_is_served() {
    let c = TestCluster::lab();
    let out = c.kubectl(&["api-resources"]).ok().stdout;
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows[0],
        ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    );
    let find = |name: &str| {
        rows.iter()
            .find(|r| r[0] == name)
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(find("pods"), ["pods", "po", "v1", "true", "Pod"]);
    assert_eq!(find("nodes"), ["nodes", "no", "v1", "false", "Node"]);
    assert_eq!(
        find("daemonsets"),
        ["daemonsets", "ds", "apps/v1", "true", "DaemonSet"]
    );
    assert_eq!(
        find("poddisruptionbudgets"),
        [
            "poddisruptionbudgets",
            "pdb",
            "policy/v1",
            "true",
            "PodDisruptionBudget"
        ]
    );
}
