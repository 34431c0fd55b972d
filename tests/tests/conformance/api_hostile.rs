//! The API server under malformed and hostile requests: every one gets a Status with the right
//! code, nothing changes state, and the server keeps answering.

use http::Request;
use kwok::{Cluster, ClusterConfig};
use serde_json::Value;

pub(crate) async fn start() -> (Cluster, kube::Client) {
    let cluster = Cluster::start(ClusterConfig::default().with_fake_nodes("lab-node-", 3))
        .await
        .expect("cluster");
    let kc = kube::config::Kubeconfig::from_yaml(&cluster.kubeconfig_yaml()).expect("kubeconfig");
    let cfg = kube::Config::from_custom_kubeconfig(kc, &Default::default())
        .await
        .expect("config");
    let client = kube::Client::try_from(cfg).expect("client");
    cluster.settle().await;
    (cluster, client)
}

pub(crate) async fn send(
    client: &kube::Client,
    method: &str,
    path: &str,
    ct: &str,
    body: Vec<u8>,
) -> (u16, Value) {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header("Content-Type", ct)
        .body(body)
        .expect("request");
    let resp = client
        .send(req.map(kube::client::Body::from))
        .await
        .expect("response");
    let code = resp.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(resp.into_body())
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    (code, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// What the hostile requests below aim at: the namespaces, the pods, and lab-node-0's metadata
/// and spec (not its status, which heartbeats rewrite).
async fn touchable(client: &kube::Client) -> Value {
    let names = |list: &Value| -> Vec<Value> {
        list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|item| item["metadata"]["name"].clone())
            .collect()
    };
    let get = |path: &'static str| send(client, "GET", path, "application/json", vec![]);
    let (_, namespaces) = get("/api/v1/namespaces").await;
    let (_, pods) = get("/api/v1/pods").await;
    let (_, node) = get("/api/v1/nodes/lab-node-0").await;
    serde_json::json!({
        "namespaces": names(&namespaces),
        "pods": names(&pods),
        "node": {
            "labels": node["metadata"]["labels"],
            "annotations": node["metadata"]["annotations"],
            "spec": node["spec"],
        },
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_get_a_status_and_change_nothing() {
    let (cluster, client) = start().await;
    let before = touchable(&client).await;
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    let huge = vec![b' '; 4 * 1024 * 1024];
    let cases: Vec<(&str, &str, &str, Vec<u8>, u16)> = vec![
        ("POST", "/api/v1/namespaces", "application/json", b"{not json".to_vec(), 400),
        ("POST", "/api/v1/namespaces", "application/json", vec![0xff, 0xfe, 0x00], 400),
        ("POST", "/api/v1/namespaces", "application/json", deep.clone().into_bytes(), 400),
        ("POST", "/api/v1/namespaces", "application/json", huge, 413),
        ("POST", "/api/v1/namespaces", "text/plain", b"hello".to_vec(), 415),
        ("POST", "/api/v1/namespaces", "application/json", b"[]".to_vec(), 400),
        // A body without kind or apiVersion takes them from the URL, then fails validation.
        ("POST", "/api/v1/namespaces", "application/json", b"null".to_vec(), 422),
        ("POST", "/api/v1/namespaces", "application/json", b"{}".to_vec(), 422),
        ("POST", "/api/v1/namespaces", "application/json", br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}"#.to_vec(), 400),
        ("POST", "/api/v1/widgets", "application/json", b"{}".to_vec(), 404),
        ("GET", "/api/v1/nodes/%zz", "application/json", vec![], 404),
        ("GET", "/api/v1/nodes?labelSelector=a%20in%20(", "application/json", vec![], 400),
        ("GET", "/api/v1/pods?fieldSelector=spec.nope%3Dx", "application/json", vec![], 400),
        ("GET", "/api/v1/nodes?limit=abc", "application/json", vec![], 400),
        ("GET", "/api/v1/nodes?continue=garbage", "application/json", vec![], 400),
        ("PATCH", "/api/v1/nodes/lab-node-0", "application/merge-patch+json", b"{bad".to_vec(), 400),
        ("PATCH", "/api/v1/nodes/lab-node-0", "application/x-unknown", b"{}".to_vec(), 415),
        ("PATCH", "/api/v1/nodes/lab-node-0", "application/json-patch+json", br#"[{"op":"remove","path":"/nope/x"}]"#.to_vec(), 422),
        ("PUT", "/api/v1/nodes/lab-node-0", "application/json", br#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"other"}}"#.to_vec(), 400),
        ("PUT", "/api/v1/nodes/lab-node-0", "application/json", br#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"lab-node-0","resourceVersion":"1"}}"#.to_vec(), 409),
        ("DELETE", "/api/v1/nodes/nope", "application/json", vec![], 404),
        ("DELETE", "/api/v1/namespaces", "application/json", vec![], 405),
        ("POST", "/api/v1/nodes/lab-node-0", "application/json", b"{}".to_vec(), 405),
        ("GET", "/apis/apps/v1/namespaces/default/deployments/x/scale", "application/json", vec![], 404),
        ("POST", "/api/v1/namespaces/default/pods/nope/eviction", "application/json", br#"{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"nope"}}"#.to_vec(), 404),
    ];
    for (method, path, ct, body, want) in cases {
        let (code, status) = send(&client, method, path, ct, body).await;
        assert_eq!(code, want, "{method} {path}: {status}");
        assert_eq!(status["kind"], "Status", "{method} {path}: {status}");
        assert_eq!(
            status["code"].as_u64(),
            Some(u64::from(want)),
            "{method} {path}"
        );
        assert_eq!(status["status"], "Failure");
    }
    // The controllers keep writing (node heartbeats, leases), so the store's revision moves on
    // by itself: what the requests aimed at must be as it was.
    assert_eq!(
        touchable(&client).await,
        before,
        "a refused request changed state"
    );
    // Still serving.
    let (code, v) = send(&client, "GET", "/version", "application/json", vec![]).await;
    assert_eq!(code, 200);
    assert_eq!(v["major"], "1");
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_without_the_token_are_unauthorized() {
    let (cluster, _) = start().await;
    let mut kc =
        kube::config::Kubeconfig::from_yaml(&cluster.kubeconfig_yaml()).expect("kubeconfig");
    for u in &mut kc.auth_infos {
        if let Some(a) = u.auth_info.as_mut() {
            a.token = None;
        }
    }
    let cfg = kube::Config::from_custom_kubeconfig(kc, &Default::default())
        .await
        .expect("config");
    let anon = kube::Client::try_from(cfg).expect("client");
    let (code, status) = send(&anon, "GET", "/api/v1/nodes", "application/json", vec![]).await;
    assert_eq!(code, 401);
    assert_eq!(status["reason"], "Unauthorized");
    cluster.shutdown().await;
}
