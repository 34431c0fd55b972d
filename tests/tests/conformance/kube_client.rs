//! The embedded cluster through the `kube` crate: list, watch (with resume and 410), patch,
//! optimistic concurrency, paging.

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{Namespace, Node};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kwok::{Cluster, ClusterConfig};
use serde_json::json;

async fn start(nodes: usize) -> (Cluster, kube::Client) {
    let cluster = Cluster::start(ClusterConfig::default().with_fake_nodes("lab-node-", nodes))
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_is_ordered_by_name_and_pages_with_continue() {
    let (cluster, client) = start(7).await;
    let nodes: Api<Node> = Api::all(client);
    let all = nodes.list(&ListParams::default()).await.unwrap();
    let names: Vec<String> = all
        .items
        .iter()
        .map(|n| n.metadata.name.clone().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert_eq!(names.len(), 7);
    let page1 = nodes.list(&ListParams::default().limit(3)).await.unwrap();
    assert_eq!(page1.items.len(), 3);
    assert_eq!(page1.metadata.remaining_item_count, Some(4));
    let token = page1.metadata.continue_.clone().expect("continue token");
    let page2 = nodes
        .list(&ListParams::default().limit(3).continue_token(&token))
        .await
        .unwrap();
    assert_eq!(page2.items[0].metadata.name.as_deref(), Some("lab-node-3"));
    let token = page2.metadata.continue_.clone().unwrap();
    let page3 = nodes
        .list(&ListParams::default().limit(3).continue_token(&token))
        .await
        .unwrap();
    assert_eq!(page3.items.len(), 1);
    assert!(page3.metadata.continue_.is_none());
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_streams_changes_and_resumes_from_a_version() {
    let (cluster, client) = start(2).await;
    let nodes: Api<Node> = Api::all(client);
    let list = nodes.list(&ListParams::default()).await.unwrap();
    let rv = list.metadata.resource_version.clone().unwrap();
    let mut stream = nodes
        .watch(&WatchParams::default(), &rv)
        .await
        .unwrap()
        .boxed();
    nodes
        .patch(
            "lab-node-0",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"x": "1"}}})),
        )
        .await
        .unwrap();
    let ev = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        loop {
            match stream.try_next().await.unwrap() {
                Some(WatchEvent::Modified(n))
                    if n.metadata
                        .labels
                        .as_ref()
                        .is_some_and(|l| l.contains_key("x")) =>
                {
                    return n
                }
                Some(_) => continue,
                None => panic!("watch ended"),
            }
        }
    })
    .await
    .expect("modified event");
    assert_eq!(ev.metadata.name.as_deref(), Some("lab-node-0"));
    // A label selector turns "stopped matching" into DELETED.
    let mut filtered = nodes
        .watch(&WatchParams::default().labels("x=1"), "0")
        .await
        .unwrap()
        .boxed();
    match filtered.try_next().await.unwrap() {
        Some(WatchEvent::Added(n)) => assert_eq!(n.metadata.name.as_deref(), Some("lab-node-0")),
        other => panic!("expected ADDED, got {other:?}"),
    }
    nodes
        .patch(
            "lab-node-0",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"x": null}}})),
        )
        .await
        .unwrap();
    match tokio::time::timeout(std::time::Duration::from_secs(5), filtered.try_next())
        .await
        .unwrap()
        .unwrap()
    {
        Some(WatchEvent::Deleted(n)) => assert_eq!(n.metadata.name.as_deref(), Some("lab-node-0")),
        other => panic!("expected DELETED, got {other:?}"),
    }
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_from_a_compacted_version_gets_410_gone() {
    let mut config = ClusterConfig::default().with_fake_nodes("lab-node-", 1);
    config.watch_history = 8;
    config.controllers = false;
    let cluster = Cluster::start(config).await.expect("cluster");
    let kc = kube::config::Kubeconfig::from_yaml(&cluster.kubeconfig_yaml()).unwrap();
    let cfg = kube::Config::from_custom_kubeconfig(kc, &Default::default())
        .await
        .unwrap();
    let nodes: Api<Node> = Api::all(kube::Client::try_from(cfg).unwrap());
    let start = nodes
        .list(&ListParams::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    for i in 0..20 {
        nodes
            .patch(
                "lab-node-0",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"labels": {"i": i.to_string()}}})),
            )
            .await
            .unwrap();
    }
    let mut gone = nodes
        .watch(&WatchParams::default(), &start)
        .await
        .unwrap()
        .boxed();
    match gone.try_next().await.unwrap() {
        Some(WatchEvent::Error(e)) => {
            assert_eq!(e.code, 410);
            assert_eq!(e.reason, "Expired");
            assert!(
                e.message.starts_with("too old resource version: "),
                "{}",
                e.message
            );
        }
        other => panic!("expected ERROR 410, got {other:?}"),
    }
    // A recent version still resumes and replays what came after it.
    let recent = cluster.api().store().revision() - 2;
    let mut ok = nodes
        .watch(&WatchParams::default(), &recent.to_string())
        .await
        .unwrap()
        .boxed();
    match ok.try_next().await.unwrap() {
        Some(WatchEvent::Modified(n)) => assert_eq!(n.metadata.labels.unwrap()["i"], "18"),
        other => panic!("expected MODIFIED, got {other:?}"),
    }
    cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_updates_conflict_and_creates_collide() {
    let (cluster, client) = start(1).await;
    let ns: Api<Namespace> = Api::all(client);
    let created = ns
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": "gpu-drv"}})).unwrap(),
        )
        .await
        .unwrap();
    let mut a = created.clone();
    a.metadata.labels = Some([("a".to_string(), "1".to_string())].into());
    ns.replace("gpu-drv", &PostParams::default(), &a)
        .await
        .unwrap();
    let mut b = created.clone();
    b.metadata.labels = Some([("b".to_string(), "2".to_string())].into());
    let err = ns
        .replace("gpu-drv", &PostParams::default(), &b)
        .await
        .unwrap_err();
    match err {
        kube::Error::Api(s) => {
            assert_eq!(s.code, 409);
            assert_eq!(s.reason, "Conflict");
            assert_eq!(
                s.message,
                "Operation cannot be fulfilled on namespaces \"gpu-drv\": the object has been modified; please apply your changes to the latest version and try again"
            );
        }
        other => panic!("expected a conflict, got {other}"),
    }
    let dup = ns
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": "gpu-drv"}})).unwrap(),
        )
        .await
        .unwrap_err();
    match dup {
        kube::Error::Api(s) => assert_eq!((s.code, s.reason.as_str()), (409, "AlreadyExists")),
        other => panic!("expected AlreadyExists, got {other}"),
    }
    cluster.shutdown().await;
}
