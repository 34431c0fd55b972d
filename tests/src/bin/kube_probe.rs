//! Drive one served kind through kube-rs's typed `Api` (k8s-openapi types), for the differential
//! suite's kube-rs session: the steps of `differential/clients/python_client.py` in Rust.
//!
//! Usage: `kube-probe KIND` (a plural resource name, e.g. `configmaps`), with `KUBECONFIG` set;
//! `kube-probe discovery` and `kube-probe aggregated-discovery` print what kube-rs's `Discovery`
//! learns group by group and from the aggregated documents.
//!
//! Create, get, list by label, strategic merge, merge and server-side apply patches, a bounded
//! watch, replace, the status and scale subresources where the kind has them, the errors for a
//! duplicate and a missing object, deletes with a protobuf body as client-go's typed clients send
//! them, and delete. Each answer is printed as k8s-openapi decoded it,
//! as JSON with sorted keys; managedFields and the fields controllers change on their own schedule
//! are left out, so the output is no race.

use std::fmt::Debug;
use std::time::Duration;

use anyhow::Context;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet, Deployment, ReplicaSet};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Event, Namespace, Node, Pod, Secret, ServiceAccount};
use k8s_openapi::api::events::v1::Event as EventV1;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::api::{
    Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use kube::{Client, Resource};
use proctor_tests::protobuf_body;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

const NS: &str = "rs";
const SELECTOR: &str = "client=kube-rs";
const MANAGER: &str = "kube-probe";

/// What the probe knows of a kind: its body, the paths a controller may change at any time, and
/// its subresources.
struct Kind {
    body: Value,
    racy: &'static [&'static str],
    status: bool,
    scale: bool,
}

fn template(app: &str) -> Value {
    json!({"metadata": {"labels": {"app": app}}, "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}})
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let kind = std::env::args()
        .nth(1)
        .context("usage: kube-probe KIND (e.g. configmaps)")?;
    let client = Client::try_default().await.context("reading KUBECONFIG")?;
    let pod = json!({"containers": [{"name": "c", "image": "busybox:1.36"}]});
    let regarding = json!({"kind": "Pod", "name": "somewhere", "namespace": NS});
    let none: &[&str] = &[];
    let k = |body: Value, racy: &'static [&'static str], status: bool, scale: bool| Kind {
        body,
        racy,
        status,
        scale,
    };
    match kind.as_str() {
        "namespaces" => {
            run::<Namespace>(Api::all(client), k(json!({}), &["status"], true, false)).await
        }
        "nodes" => {
            run::<Node>(
                Api::all(client),
                k(
                    json!({"spec": {"podCIDR": "10.9.0.0/24"}}),
                    &["status", "spec.taints", "metadata.annotations"],
                    true,
                    false,
                ),
            )
            .await
        }
        "pods" => {
            run::<Pod>(
                namespaced(client),
                k(json!({"spec": pod}), &["status", "spec.nodeName"], true, false),
            )
            .await
        }
        "configmaps" => {
            run::<ConfigMap>(namespaced(client), k(json!({"data": {"a": "1"}}), none, false, false))
                .await
        }
        "secrets" => {
            run::<Secret>(
                namespaced(client),
                k(json!({"stringData": {"user": "admin"}}), none, false, false),
            )
            .await
        }
        "serviceaccounts" => {
            run::<ServiceAccount>(
                namespaced(client),
                k(json!({"automountServiceAccountToken": false}), none, false, false),
            )
            .await
        }
        "events" => {
            run::<Event>(
                namespaced(client),
                k(
                    json!({"involvedObject": regarding, "reason": "Testing", "message": "hello", "type": "Normal"}),
                    none,
                    false,
                    false,
                ),
            )
            .await
        }
        "events.events.k8s.io" => {
            run::<EventV1>(
                namespaced(client),
                k(
                    json!({"eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/rs",
                           "reportingInstance": "rs-1", "action": "Testing", "reason": "Tested",
                           "type": "Normal", "note": "hello", "regarding": regarding}),
                    none,
                    false,
                    false,
                ),
            )
            .await
        }
        "deployments" => {
            run::<Deployment>(
                namespaced(client),
                k(
                    json!({"spec": {"replicas": 1, "selector": {"matchLabels": {"app": "rs-d"}}, "template": template("rs-d")}}),
                    &["status", "metadata.annotations"],
                    true,
                    true,
                ),
            )
            .await
        }
        "replicasets" => {
            run::<ReplicaSet>(
                namespaced(client),
                k(
                    json!({"spec": {"replicas": 1, "selector": {"matchLabels": {"app": "rs-rs"}}, "template": template("rs-rs")}}),
                    &["status"],
                    true,
                    true,
                ),
            )
            .await
        }
        "daemonsets" => {
            run::<DaemonSet>(
                namespaced(client),
                k(
                    json!({"spec": {"selector": {"matchLabels": {"app": "rs-ds"}}, "template": template("rs-ds")}}),
                    &["status", "metadata.annotations"],
                    true,
                    false,
                ),
            )
            .await
        }
        "controllerrevisions" => {
            run::<ControllerRevision>(
                namespaced(client),
                k(json!({"data": {"x": 1}, "revision": 1}), none, false, false),
            )
            .await
        }
        "poddisruptionbudgets" => {
            run::<PodDisruptionBudget>(
                namespaced(client),
                k(
                    json!({"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "nothing"}}}}),
                    &["status"],
                    true,
                    false,
                ),
            )
            .await
        }
        "leases" => {
            run::<Lease>(
                namespaced(client),
                k(
                    json!({"spec": {"holderIdentity": "rs", "leaseDurationSeconds": 10}}),
                    none,
                    false,
                    false,
                ),
            )
            .await
        }
        "discovery" => discover(client, false).await,
        "aggregated-discovery" => discover(client, true).await,
        other => anyhow::bail!("kube-probe does not know the kind {other:?}"),
    }
}

fn namespaced<K: Resource<Scope = k8s_openapi::NamespaceResourceScope>>(client: Client) -> Api<K>
where
    K::DynamicType: Default,
{
    Api::namespaced(client, NS)
}

/// The object as JSON with sorted keys, without managedFields and the racy paths.
fn view<T: Serialize>(obj: &T, drop: &[&str]) -> String {
    let mut value = serde_json::to_value(obj).unwrap_or(Value::Null);
    if let Some(metadata) = value.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
    for path in drop {
        let parts: Vec<&str> = path.split('.').collect();
        let (leaf, parents) = parts.split_last().unwrap_or((&"", &[]));
        let mut node = Some(&mut value);
        for part in parents {
            node = node.and_then(|n| n.get_mut(*part));
        }
        if let Some(map) = node.and_then(Value::as_object_mut) {
            map.remove(*leaf);
        }
    }
    serde_json::to_string_pretty(&sorted(value)).unwrap_or_default()
}

fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

fn show<T: Serialize>(label: &str, obj: &T, drop: &[&str]) {
    println!(
        "## {label} ({})",
        std::any::type_name::<T>().rsplit("::").next().unwrap_or("")
    );
    println!("{}", view(obj, drop));
}

/// Print an answer, or the API error a client sees.
fn answer<T: Serialize>(label: &str, result: Result<T, kube::Error>, drop: Option<&[&str]>) {
    match result {
        Ok(obj) => match drop {
            Some(drop) => show(label, &obj, drop),
            None => println!("## {label}: accepted"),
        },
        Err(kube::Error::Api(status)) => {
            println!(
                "## {label}: {} {}: {}",
                status.code, status.reason, status.message
            )
        }
        Err(other) => println!("## {label}: client error: {other}"),
    }
}

async fn run<K>(api: Api<K>, kind: Kind) -> anyhow::Result<()>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    K::DynamicType: Default,
{
    let dt = K::DynamicType::default();
    let stem = K::kind(&dt).to_lowercase();
    let name = format!("rs-{stem}");
    let mut body = kind.body.clone();
    body["apiVersion"] = json!(K::api_version(&dt));
    body["kind"] = json!(K::kind(&dt));
    body["metadata"] = json!({"name": name, "labels": {"client": "kube-rs"}});
    let object: K = serde_json::from_value(body).context("the probe's own body")?;
    let post = PostParams::default();
    let racy = kind.racy;

    let created = api.create(&post, &object).await.context("create")?;
    show("create", &created, &[]);
    answer("create again", api.create(&post, &object).await, None);
    show("get", &api.get(&name).await.context("get")?, racy);
    let listed = api.list(&ListParams::default().labels(SELECTOR)).await?;
    let names: Vec<String> = listed
        .items
        .iter()
        .map(|o| o.meta().name.clone().unwrap_or_default())
        .collect();
    println!("## list: {names:?}");
    // The metadata-only forms (PartialObjectMetadata), as informers that need no spec ask.
    let partial = api
        .list_metadata(&ListParams::default().labels(SELECTOR))
        .await
        .context("list_metadata")?;
    let names: Vec<String> = partial
        .items
        .iter()
        .map(|o| o.metadata.name.clone().unwrap_or_default())
        .collect();
    println!("## list_metadata: {names:?}");
    show(
        "get_metadata",
        &api.get_metadata(&name).await.context("get_metadata")?,
        racy,
    );

    let params = PatchParams::default();
    let labels = |step: &str| json!({"metadata": {"labels": {"step": step}}});
    show(
        "strategic merge patch",
        &api.patch(&name, &params, &Patch::Strategic(labels("1")))
            .await?,
        racy,
    );
    show(
        "merge patch",
        &api.patch(&name, &params, &Patch::Merge(labels("2")))
            .await?,
        racy,
    );
    let mut applied = labels("apply");
    applied["apiVersion"] = json!(K::api_version(&dt));
    applied["kind"] = json!(K::kind(&dt));
    applied["metadata"]["name"] = json!(name);
    answer(
        "server-side apply",
        // Forced: the patches above made another manager own the label (the conflict itself
        // is the kinds session's).
        api.patch(
            &name,
            &PatchParams::apply(MANAGER).force(),
            &Patch::Apply(applied),
        )
        .await,
        Some(racy),
    );

    let since = api
        .list(&ListParams::default().labels(SELECTOR))
        .await?
        .metadata
        .resource_version
        .unwrap_or_default();
    api.patch(&name, &params, &Patch::Merge(labels("3")))
        .await?;
    let watch = WatchParams::default().labels(SELECTOR).timeout(2);
    let mut seen = std::collections::BTreeSet::new();
    let mut events = api.watch(&watch, &since).await?.boxed();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(10), events.try_next())
        .await
        .context("the watch outlived its timeout")??
    {
        let (kind, obj) = match event {
            WatchEvent::Added(o) => ("ADDED", o),
            WatchEvent::Modified(o) => ("MODIFIED", o),
            WatchEvent::Deleted(o) => ("DELETED", o),
            WatchEvent::Bookmark(_) => continue,
            WatchEvent::Error(e) => anyhow::bail!("watch error: {}", e.message),
        };
        // Only the write made after the list: a controller's status write in between is a race.
        let step = obj
            .meta()
            .labels
            .as_ref()
            .and_then(|l| l.get("step").cloned());
        if step.as_deref() == Some("3") {
            seen.insert((kind, obj.meta().name.clone().unwrap_or_default()));
        }
    }
    println!("## watch from the list's resourceVersion: {seen:?}");

    let mut current = api.get(&name).await?;
    current
        .meta_mut()
        .labels
        .get_or_insert_with(Default::default)
        .insert("step".into(), "4".into());
    // Unconditional, so a controller's status write in between is no conflict.
    current.meta_mut().resource_version = None;
    answer(
        "replace",
        api.replace(&name, &post, &current).await,
        Some(racy),
    );

    if kind.status {
        let status = api.get_status(&name).await.context("get status")?;
        println!(
            "## get status: {}",
            status.meta().name.clone().unwrap_or_default()
        );
    }
    if kind.scale {
        show("get scale", &api.get_scale(&name).await?, &["status"]);
        let replicas = Patch::Merge(json!({"spec": {"replicas": 0}}));
        show(
            "patch scale",
            &api.patch_scale(&name, &params, &replicas).await?,
            &["status"],
        );
    }

    answer("get a missing one", api.get("rs-missing").await, None);
    answer(
        "delete a missing one",
        api.delete("rs-missing", &DeleteParams::default())
            .await
            .map(|_| ()),
        None,
    );
    protobuf_deletes(&api, &name).await?;
    match api.delete(&name, &DeleteParams::default()).await? {
        either::Either::Left(obj) => {
            show("delete (the object)", &obj, &["status", "metadata", "spec"])
        }
        either::Either::Right(status) => show("delete (a Status)", &status, &["details"]),
    }
    for _ in 0..300 {
        match api.get_opt(&name).await? {
            None => {
                println!("## gone");
                return Ok(());
            }
            Some(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    println!("## still there after 30s");
    Ok(())
}

/// Deletes with a protobuf `DeleteOptions` body, as client-go's typed clients send them (Helm's
/// uninstall, `kubectl drain --disable-eviction`): of a missing object, of the object in dry-run
/// (it stays), and with a body that is no protobuf message.
async fn protobuf_deletes<K>(api: &Api<K>, name: &str) -> anyhow::Result<()>
where
    K: Resource + Clone + DeserializeOwned + Debug,
    K::DynamicType: Default,
{
    let dt = K::DynamicType::default();
    let version = K::api_version(&dt);
    let client = api.clone().into_client();
    let url = api.resource_url().to_string();
    let send = |path: String, body: Vec<u8>| {
        let client = client.clone();
        async move {
            let request = http::Request::delete(path)
                .header("Content-Type", "application/vnd.kubernetes.protobuf")
                .header("Accept", "application/json")
                .body(kube::client::Body::from(body))
                .context("a protobuf delete request")?;
            let response = client.send(request).await.context("a protobuf delete")?;
            let code = response.status().as_u16();
            let bytes = http_body_util::BodyExt::collect(response.into_body())
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            anyhow::Ok((code, body))
        }
    };
    let options = |grace: i64, dry_run: bool| {
        protobuf_body::delete_options(&version, grace, "Background", dry_run)
    };

    let (code, body) = send(format!("{url}/rs-missing"), options(0, false)).await?;
    println!(
        "## delete a missing one (protobuf body): {code} {}",
        body["reason"].as_str().unwrap_or("")
    );
    let (code, body) = send(format!("{url}/{name}"), options(30, true)).await?;
    println!(
        "## delete in dry-run (protobuf body): {code} {} {}",
        body["kind"].as_str().unwrap_or(""),
        body["metadata"]["name"].as_str().unwrap_or("")
    );
    println!(
        "## still there after the dry run: {}",
        api.get_opt(name).await?.is_some()
    );
    let (code, _) = send(format!("{url}/{name}"), b"k8s\0\x0a\xff".to_vec()).await?;
    println!("## delete with a body that is no protobuf message: {code}");
    Ok(())
}

/// What kube-rs's `Discovery` learns of the core group, apps, batch and autoscaling, group by
/// group (`run`) or from `/api` and `/apis` at once (`run_aggregated`): each group's versions and
/// preferred version, and each resource of each version with its kind, scope, verbs and
/// subresources.
async fn discover(client: Client, aggregated: bool) -> anyhow::Result<()> {
    let discovery = kube::Discovery::new(client).filter(&["", "apps", "batch", "autoscaling"]);
    let discovery = if aggregated {
        discovery.run_aggregated().await?
    } else {
        discovery.run().await?
    };
    for group in discovery.groups_alphabetical() {
        let versions: Vec<&str> = group.versions().collect();
        println!(
            "group {:?}: versions {versions:?}, preferred {:?}",
            group.name(),
            group.preferred_version()
        );
        for version in versions {
            let mut resources = group.versioned_resources(version);
            resources.sort_by(|a, b| a.0.plural.cmp(&b.0.plural));
            for (res, caps) in resources {
                let subs: Vec<String> = caps
                    .subresources
                    .iter()
                    .map(|(s, c)| format!("{}({}:{})", s.plural, s.kind, c.operations.join("/")))
                    .collect();
                println!(
                    "  {version} {} {} {:?} [{}] {}",
                    res.plural,
                    res.kind,
                    caps.scope,
                    caps.operations.join(","),
                    subs.join(" ")
                );
            }
        }
    }
    Ok(())
}
