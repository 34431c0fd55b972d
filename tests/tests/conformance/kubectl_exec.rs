//! `kubectl exec` and `kubectl attach` on fake nodes, served from kwok's `ClusterExec` and
//! `ClusterAttach` documents. The expected texts are what kubectl printed against kwok v0.7.0
//! behind kube-apiserver v1.32.13 (kwokctl) given the same documents; the differential session
//! `exec` compares the two clusters side by side.

use proctor_tests::TestCluster;
use serde_json::json;

const PODS: &str = r#"apiVersion: v1
kind: Pod
metadata: {name: p1}
spec:
  containers: [{name: a, image: busybox}, {name: b, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: p2, namespace: kube-public}
spec:
  containers: [{name: a, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: unsched}
spec:
  nodeSelector: {none: none}
  containers: [{name: a, image: busybox}]
"#;

fn cluster(work_dir: &std::path::Path) -> TestCluster {
    let exec = json!({
        "apiVersion": "kwok.x-k8s.io/v1alpha1",
        "kind": "ClusterExec",
        "metadata": {"name": "all"},
        "spec": {"selector": {"matchNamespaces": ["default"]},
                 "execs": [{"local": {"workDir": work_dir,
                                      "envs": [{"name": "GREETING", "value": "hello"}]}}]},
    });
    let c = TestCluster::with_kwok_documents(&["n1"], &[exec]);
    c.kubectl_stdin(&["apply", "-f", "-"], PODS).ok();
    c.kubectl(&["wait", "--for=condition=Ready", "pod/p1", "--timeout=30s"])
        .ok();
    c
}

#[test]
fn exec_runs_the_command_where_the_target_says() {
    let work = tempfile::tempdir().expect("dir");
    std::fs::write(work.path().join("a.txt"), "file in workdir\n").expect("file");
    let c = cluster(work.path());

    let run = c.kubectl(&["exec", "p1", "--", "echo", "hi"]).ok();
    assert_eq!(run.stdout, "hi\n");
    assert_eq!(run.stderr, "Defaulted container \"a\" out of: a, b\n");
    let run = c
        .kubectl(&[
            "exec",
            "p1",
            "-c",
            "b",
            "--",
            "sh",
            "-c",
            "cat a.txt; echo $GREETING",
        ])
        .ok();
    assert_eq!(run.stdout, "file in workdir\nhello\n");
    let run = c
        .kubectl_stdin(
            &["exec", "-i", "p1", "-c", "a", "--", "cat"],
            "from stdin\n",
        )
        .ok();
    assert_eq!(run.stdout, "from stdin\n");
}

#[test]
fn exec_answers_as_kwok_and_the_api_server_do() {
    let work = tempfile::tempdir().expect("dir");
    let c = cluster(work.path());
    let run = c
        .kubectl(&[
            "exec",
            "p1",
            "-c",
            "a",
            "--",
            "sh",
            "-c",
            "echo out; echo err >&2; exit 2",
        ])
        .fails();
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "out\n");
    assert_eq!(
        run.stderr,
        "err\nerror: Internal error occurred: Internal error occurred: error executing command \
         in container: cmd wait: sh -c echo out; echo err >&2; exit 2: exit status 2\n"
    );
    let run = c
        .kubectl(&["exec", "p1", "-c", "a", "--", "nosuchcmd"])
        .fails();
    assert_eq!(
        run.stderr,
        "error: Internal error occurred: Internal error occurred: error executing command in \
         container: cmd start: nosuchcmd : exec: \"nosuchcmd\": executable file not found in \
         $PATH\n"
    );
    let run = c
        .kubectl(&["exec", "-n", "kube-public", "p2", "--", "echo", "hi"])
        .fails();
    assert_eq!(
        run.stderr,
        "error: Internal error occurred: Internal error occurred: error executing command in \
         container: no exec found for container \"a\" in pod \"kube-public/p2\"\n"
    );
    let run = c.kubectl(&["exec", "p1", "-c", "zz", "--", "echo"]).fails();
    assert_eq!(
        run.stderr,
        "Error from server (BadRequest): container zz is not valid for pod p1\n"
    );
    let run = c.kubectl(&["exec", "unsched", "--", "echo"]).fails();
    assert_eq!(
        run.stderr,
        "Error from server (BadRequest): pod unsched does not have a host assigned\n"
    );
    let run = c.kubectl(&["exec", "nosuch", "--", "echo"]).fails();
    assert_eq!(
        run.stderr,
        "Error from server (NotFound): pods \"nosuch\" not found\n"
    );
}

#[test]
fn attach_without_a_target_is_refused_as_kwok_refuses_it() {
    let work = tempfile::tempdir().expect("dir");
    let c = cluster(work.path());
    let run = c.kubectl(&["attach", "p1", "-c", "a"]).fails();
    assert_eq!(
        run.stderr,
        "If you don't see a command prompt, try pressing enter.\nerror: Internal error \
         occurred: Internal error occurred: error attaching to container: no attaches found \
         for container \"a\" in pod \"default/p1\"\n"
    );
}
