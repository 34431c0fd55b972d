//! DELETE bodies as clients other than kubectl send them: client-go's typed clients (Helm's
//! uninstall and history pruning, `kubectl drain --disable-eviction`) send `DeleteOptions` as
//! protobuf, and the meta codecs that handlers/delete.go decodes them with read YAML too.

use proctor_tests::protobuf_body::delete_options;

use crate::api_hostile::{send, start};

const SECRETS: &str = "/api/v1/namespaces/default/secrets";

async fn create_secret(client: &kube::Client, name: &str) {
    let body =
        serde_json::json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}});
    let (code, _) = send(
        client,
        "POST",
        SECRETS,
        "application/json",
        body.to_string().into_bytes(),
    )
    .await;
    assert_eq!(code, 201);
}

async fn exists(client: &kube::Client, name: &str) -> bool {
    let (code, _) = send(client, "GET", &format!("{SECRETS}/{name}"), "", vec![]).await;
    code == 200
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_protobuf_delete_is_read_as_client_go_sends_it() {
    let (cluster, client) = start().await;
    let protobuf = "application/vnd.kubernetes.protobuf";
    create_secret(&client, "sh.helm.release.v1.demo.v1").await;
    let path = format!("{SECRETS}/sh.helm.release.v1.demo.v1");

    let (code, body) = send(
        &client,
        "DELETE",
        &path,
        protobuf,
        delete_options("v1", 30, "Background", true),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert!(
        exists(&client, "sh.helm.release.v1.demo.v1").await,
        "a dry run deleted the secret"
    );

    let (code, body) = send(
        &client,
        "DELETE",
        &path,
        protobuf,
        delete_options("v1", 0, "Background", false),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["kind"], "Status", "{body}");
    assert!(!exists(&client, "sh.helm.release.v1.demo.v1").await);

    // Under the group version of any typed client, as `metav1.AddToGroupVersion` registers it.
    create_secret(&client, "apps-client").await;
    let (code, body) = send(
        &client,
        "DELETE",
        &format!("{SECRETS}/apps-client"),
        protobuf,
        delete_options("apps/v1", 0, "Foreground", false),
    )
    .await;
    assert_eq!(code, 200, "{body}");

    // A body the protobuf serializer cannot read is answered unwrapped: 500, and nothing changes.
    create_secret(&client, "kept").await;
    let (code, _) = send(
        &client,
        "DELETE",
        &format!("{SECRETS}/kept"),
        protobuf,
        b"k8s\0\x0a\xff".to_vec(),
    )
    .await;
    assert_eq!(code, 500);
    assert!(exists(&client, "kept").await);
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_yaml_delete_body_is_read() {
    let (cluster, client) = start().await;
    create_secret(&client, "yaml-deleted").await;
    let body = b"apiVersion: meta.k8s.io/v1\nkind: DeleteOptions\ndryRun: [All]\n".to_vec();
    let path = format!("{SECRETS}/yaml-deleted");
    let (code, answer) = send(&client, "DELETE", &path, "application/yaml", body).await;
    assert_eq!(code, 200, "{answer}");
    assert!(
        exists(&client, "yaml-deleted").await,
        "a dry run deleted the secret"
    );

    let (code, answer) = send(&client, "DELETE", &path, "text/plain", b"{}".to_vec()).await;
    assert_eq!(code, 415, "{answer}");
    cluster.shutdown().await;
}
