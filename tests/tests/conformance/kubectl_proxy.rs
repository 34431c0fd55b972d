//! `pods/proxy`, `services/proxy` and `nodes/proxy` through `kubectl get --raw`. The refusals'
//! texts are what kubectl printed against kube-apiserver v1.32.13 (kwokctl) for the same
//! objects; what a fake node's kubelet answers is kwok v0.7.0's server (`healthz.go`,
//! `debugging_logs.go`). The differential session `proxy` compares the two clusters side by side.

use proctor_tests::TestCluster;
use serde_json::json;

const OBJECTS: &str = r#"apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers: [{name: web, image: nginx, ports: [{containerPort: 8080, name: http}]}]
---
apiVersion: v1
kind: Pod
metadata: {name: pending}
spec:
  nodeSelector: {none: none}
  containers: [{name: a, image: busybox}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: v1
kind: Service
metadata: {name: empty}
spec:
  selector: {app: none}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: ext}
spec:
  type: ExternalName
  externalName: example.com
"#;

fn cluster(logs: &std::path::Path) -> TestCluster {
    let file = logs.join("web.log");
    std::fs::write(
        &file,
        "2026-01-02T03:04:05.000000000Z stdout F serving on :8080\n",
    )
    .expect("log file");
    let logs = json!({
        "apiVersion": "kwok.x-k8s.io/v1alpha1",
        "kind": "ClusterLogs",
        "metadata": {"name": "all"},
        "spec": {"logs": [{"containers": ["web"], "logsFile": file}]},
    });
    let c = TestCluster::with_kwok_documents(&["n1"], &[logs]);
    c.kubectl_stdin(&["apply", "-f", "-"], OBJECTS).ok();
    c.kubectl(&["wait", "--for=condition=Ready", "pod/web", "--timeout=30s"])
        .ok();
    c
}

fn refusal(c: &TestCluster, path: &str) -> String {
    c.kubectl(&["get", "--raw", path]).fails().stderr
}

#[test]
fn the_api_server_finds_the_backend_or_says_why_not() {
    let logs = tempfile::tempdir().expect("dir");
    let c = cluster(logs.path());
    let pods = "/api/v1/namespaces/default/pods";
    let services = "/api/v1/namespaces/default/services";
    let cases = [
        (
            format!("{pods}/nope/proxy/"),
            "Error from server (NotFound): pods \"nope\" not found\n",
        ),
        (
            format!("{pods}/ftp:web:21/proxy/"),
            "Error from server (BadRequest): invalid pod request \"ftp:web:21\"\n",
        ),
        (
            format!("{pods}/pending/proxy/"),
            "Error from server (BadRequest): address not allowed\n",
        ),
        (
            format!("{services}/nope/proxy/"),
            "Error from server (NotFound): services \"nope\" not found\n",
        ),
        (
            format!("{services}/web:82/proxy/"),
            "Error from server (ServiceUnavailable): no service port 82 found for service \
             \"web\"\n",
        ),
        // The service's ports are named, so an id without one matches none of them.
        (
            format!("{services}/web/proxy/"),
            "Error from server (ServiceUnavailable): no endpoints available for service \
             \"web\"\n",
        ),
        (
            format!("{services}/empty/proxy/"),
            "Error from server (ServiceUnavailable): no endpoints available for service \
             \"empty\"\n",
        ),
        // An ExternalName service has no Endpoints, named after the service.
        (
            format!("{services}/ext/proxy/"),
            "Error from server (NotFound): services \"ext\" not found\n",
        ),
        (
            "/api/v1/nodes/nope/proxy/healthz".to_string(),
            "Error from server (NotFound): nodes \"nope\" not found\n",
        ),
        (
            "/api/v1/nodes/a:b:c:d/proxy/".to_string(),
            "Error from server (BadRequest): invalid node request \"a:b:c:d\"\n",
        ),
    ];
    for (path, expected) in cases {
        assert_eq!(refusal(&c, &path), expected, "{path}");
    }
    // A fake pod has no network; the API server found it and could not reach it.
    let unreachable = refusal(&c, &format!("{services}/web:80/proxy/"));
    assert!(
        unreachable.starts_with(
            "Error from server (ServiceUnavailable): error trying to reach service: dial tcp "
        ),
        "{unreachable}"
    );
}

#[test]
fn a_fake_nodes_kubelet_is_kwoks_server() {
    let logs = tempfile::tempdir().expect("dir");
    let c = cluster(logs.path());
    let run = c
        .kubectl(&["get", "--raw", "/api/v1/nodes/n1/proxy/healthz"])
        .ok();
    assert_eq!(run.stdout, "ok");
    let run = c
        .kubectl(&[
            "get",
            "--raw",
            "/api/v1/nodes/n1/proxy/containerLogs/default/web/web",
        ])
        .ok();
    assert_eq!(run.stdout, "serving on :8080\n");
    let run = c
        .kubectl(&["get", "--raw", "/api/v1/nodes/n1:10250/proxy/stats/summary"])
        .fails();
    assert_eq!(
        run.stderr,
        "Error from server (NotFound): the server could not find the requested resource\n"
    );
}

#[test]
fn discovery_lists_the_three_proxies() {
    let logs = tempfile::tempdir().expect("dir");
    let c = cluster(logs.path());
    let run = c.kubectl(&["get", "--raw", "/api/v1"]).ok();
    let list: serde_json::Value = serde_json::from_str(&run.stdout).expect("APIResourceList");
    let proxies: Vec<&serde_json::Value> = list["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter(|r| r["name"].as_str().is_some_and(|n| n.ends_with("/proxy")))
        .collect();
    let verbs = json!(["create", "delete", "get", "patch", "update"]);
    let expected = [
        ("nodes/proxy", false, "NodeProxyOptions"),
        ("pods/proxy", true, "PodProxyOptions"),
        ("services/proxy", true, "ServiceProxyOptions"),
    ];
    assert_eq!(proxies.len(), expected.len());
    for (found, (name, namespaced, kind)) in proxies.iter().zip(expected) {
        assert_eq!(
            **found,
            json!({"name": name, "singularName": "", "namespaced": namespaced,
                   "kind": kind, "verbs": verbs})
        );
    }
}
