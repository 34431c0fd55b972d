//! `/openapi/v3` as kube-openapi's `handler3` serves it: the discovery document's hashed URLs,
//! a stale hash redirected to the current one, a fresh one cacheable for good, ETags a client can
//! revalidate with, and the forms a client may ask for.

use http::{HeaderMap, Request};
use serde_json::Value;

use crate::api_hostile::start;

async fn get(
    client: &kube::Client,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, HeaderMap, Vec<u8>) {
    let mut req = Request::builder().method("GET").uri(path);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = client
        .send(
            req.body(Vec::new())
                .expect("request")
                .map(kube::client::Body::from),
        )
        .await
        .expect("response");
    let code = resp.status().as_u16();
    let headers = resp.headers().clone();
    let bytes = http_body_util::BodyExt::collect(resp.into_body())
        .await
        .map(|b| b.to_bytes().to_vec())
        .unwrap_or_default();
    (code, headers, bytes)
}

fn header<'a>(h: &'a HeaderMap, name: &str) -> &'a str {
    h.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_are_found_by_hash_cached_and_revalidated() {
    let (_cluster, client) = start().await;
    let (code, _, body) = get(&client, "/openapi/v3", &[]).await;
    assert_eq!(code, 200);
    let discovery: Value = serde_json::from_slice(&body).expect("json");
    let url = discovery["paths"]["apis/apps/v1"]["serverRelativeURL"]
        .as_str()
        .expect("apps/v1 is listed")
        .to_owned();
    let hash = url.split("hash=").nth(1).expect("hash").to_owned();
    assert_eq!(hash.len(), 128);

    let (code, h, body) = get(&client, &url, &[]).await;
    assert_eq!(code, 200);
    assert_eq!(header(&h, "cache-control"), "public, immutable");
    assert_eq!(header(&h, "etag"), format!("\"{hash}\""));
    assert_eq!(header(&h, "content-type"), "application/json");
    let doc: Value = serde_json::from_slice(&body).expect("json");
    assert!(doc["components"]["schemas"]["io.k8s.api.apps.v1.Deployment"].is_object());

    // A stale hash (a client's cached discovery) is sent to the current document.
    let (code, h, _) = get(&client, "/openapi/v3/apis/apps/v1?hash=0123", &[]).await;
    assert_eq!(code, 301);
    assert_eq!(header(&h, "location"), url);

    // Without a hash the answer is not cacheable for good, and a client holding it revalidates.
    let (code, h, _) = get(&client, "/openapi/v3/apis/apps/v1", &[]).await;
    assert_eq!(code, 200);
    assert_eq!(header(&h, "cache-control"), "");
    let etag = format!("\"{hash}\"");
    let (code, _, body) = get(
        &client,
        "/openapi/v3/apis/apps/v1",
        &[("If-None-Match", &etag)],
    )
    .await;
    assert_eq!(code, 304);
    assert!(body.is_empty());

    // Only the JSON form is rendered; an unknown document is an empty 404.
    let protobuf = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf";
    let (code, _, _) = get(&client, "/openapi/v3/apis/apps/v1", &[("Accept", protobuf)]).await;
    assert_eq!(code, 406);
    let both = format!("{protobuf};q=0.5, application/json");
    let (code, _, _) = get(&client, "/openapi/v3/apis/apps/v1", &[("Accept", &both)]).await;
    assert_eq!(code, 200);
    let (code, _, body) = get(&client, "/openapi/v3/apis/nothing.example.com/v1", &[]).await;
    assert_eq!((code, body.len()), (404, 0));
}
