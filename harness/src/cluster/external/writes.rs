//! The writes a restore sends through kubectl: deletes, replaces and creates, each at its API path.

use std::time::Duration;

use serde_json::Value;

use super::objects::{kubectl_name, text, ObjectKey};
use super::waiting::{removal_budget, Waiting};
use crate::cluster::kubectl::Kubectl;

pub(super) async fn delete(kubectl: &Kubectl, key: &ObjectKey) {
    delete_with(kubectl, key, &[]).await;
}

pub(super) async fn delete_with(kubectl: &Kubectl, key: &ObjectKey, extra: &[&str]) {
    let mut args = vec!["delete".to_string()];
    args.extend(kubectl_name(key));
    args.extend(["--ignore-not-found".to_string(), "--wait=false".to_string()]);
    args.extend(extra.iter().map(|arg| arg.to_string()));
    if key.0 == "pods" {
        args.extend(["--grace-period=0".to_string(), "--force".to_string()]);
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    if let Err(error) = kubectl.ok(&refs, None).await {
        tracing::warn!("restore: {error:#}");
    }
}

/// Pods bound to a node that is going away: nothing would ever run or remove them (their
/// controllers recreate them on the nodes that stay).
pub(crate) async fn delete_pods_on(kubectl: &Kubectl, node: &str) {
    let selector = format!("spec.nodeName={node}");
    if let Err(error) = kubectl
        .ok(
            &[
                "delete",
                "pods",
                "--all-namespaces",
                "--field-selector",
                &selector,
                "--grace-period=0",
                "--force",
                "--ignore-not-found",
                "--wait=false",
            ],
            None,
        )
        .await
    {
        tracing::warn!("restore: {error:#}");
    }
}

/// A namespace that goes is emptied by the namespace controller, which looks again only half
/// the longest grace period of the pods still in it later (`namespace_controller.go`:
/// `ResourcesRemainingError.Estimate / 2 + 1` s, 16 s for the default 30 s): its pods are removed
/// at once instead (nothing makes new ones in a namespace being terminated), and the namespace
/// is touched so that its controller looks again now rather than then.
pub(super) async fn hasten_namespace_removal(kubectl: &Kubectl, namespace: &str) {
    let pods = [
        "delete",
        "pods",
        "--all",
        "--namespace",
        namespace,
        "--grace-period=0",
        "--force",
        "--ignore-not-found",
        "--wait=false",
    ];
    if let Err(error) = kubectl.ok(&pods, None).await {
        tracing::debug!("restore: {error:#}");
        return;
    }
    let touch = format!(
        "proctor.dev/emptied={}",
        chrono::Utc::now().timestamp_micros()
    );
    let nudge = ["annotate", "namespace", namespace, &touch, "--overwrite"];
    // Gone already, or the controller got there first: nothing to hasten.
    if let Err(error) = kubectl.ok(&nudge, None).await {
        tracing::debug!("restore: {error:#}");
    }
}

/// The API path of `key`'s collection, or with `name` of the object itself, in the version the
/// snapshot read it in (`deployments.apps` in `apps/v1`: `/apis/apps/v1/namespaces/<ns>/deployments`).
pub(super) fn api_path(key: &ObjectKey, object: &Value, name: bool) -> String {
    let (resource, namespace, object_name) = key;
    let version = text(object, "/apiVersion");
    let root = if version.contains('/') { "apis" } else { "api" };
    let plural = resource.split('.').next().unwrap_or(resource);
    let mut path = format!("/{root}/{version}");
    if !namespace.is_empty() {
        path.push_str(&format!("/namespaces/{namespace}"));
    }
    path.push_str(&format!("/{plural}"));
    if name {
        path.push_str(&format!("/{object_name}"));
    }
    path
}

/// Sends `body` to `path` as it is (`kubectl create|replace --raw`). kubectl's own create and
/// replace rewrite an object's `last-applied-configuration` to the body they send
/// (`UpdateApplyAnnotation`): an object made again would carry another one than the snapshot's,
/// a change for every later restore, and another three-way merge for the learner's next
/// `kubectl apply` than on the embedded cluster.
/// Returns the object the server answered with (its resourceVersion is the next update's).
async fn send(kubectl: &Kubectl, verb: &str, path: &str, body: &Value) -> anyhow::Result<Value> {
    let bytes = serde_json::to_vec(body)?;
    let answer = kubectl
        .ok(&[verb, "--raw", path, "-f", "-"], Some(&bytes))
        .await?;
    Ok(serde_json::from_str(&answer).unwrap_or(Value::Null))
}

/// Replaces the object with `body`, naming the version it replaces as `kubectl replace` does
/// (`Helper.Replace` with overwrite reads it first): custom resources refuse an update without.
pub(super) async fn replace(kubectl: &Kubectl, key: &ObjectKey, body: &Value) {
    let path = api_path(key, body, true);
    let mut body = body.clone();
    let (resource, namespace, name) = key;
    // A controller may write the object between the read and the update: read it again.
    let mut attempts = 0;
    let written = loop {
        attempts += 1;
        let written = match kubectl.get_object(resource, namespace, name).await {
            Ok(Some(now)) => {
                body["metadata"]["resourceVersion"] = now["metadata"]["resourceVersion"].clone();
                send(kubectl, "replace", &path, &body).await
            }
            Ok(None) => Err(anyhow::anyhow!("{resource} {name} is gone")),
            Err(error) => Err(error),
        };
        match written {
            Ok(written) => break written,
            Err(error) if attempts < 5 && format!("{error:#}").contains("(Conflict)") => {}
            Err(error) => {
                tracing::warn!("restore: {error:#}");
                return;
            }
        }
    };
    // A node's capacity lives in its status, which the main resource's PUT leaves alone.
    if body["kind"] == "Node" && body.get("status").is_some() {
        body["metadata"]["resourceVersion"] = written["metadata"]["resourceVersion"].clone();
        if let Err(error) = send(kubectl, "replace", &format!("{path}/status"), &body).await {
            tracing::warn!("restore: {error:#}");
        }
    }
}

/// A create the cluster refuses only for now: the object's namespace is still being emptied
/// ("unable to create new content in namespace … because it is being terminated") or the object
/// itself is still on its way out ("object is being deleted: … already exists").
fn refused_for_now(error: &anyhow::Error) -> bool {
    let text = format!("{error:#}");
    text.contains("being terminated") || text.contains("object is being deleted")
}

pub(super) async fn create_with_retry(kubectl: &Kubectl, key: &ObjectKey, body: &Value) {
    let waiting = Waiting::new(removal_budget(key));
    let path = api_path(key, body, false);
    loop {
        match send(kubectl, "create", &path, body).await {
            Ok(_) => return,
            Err(error) if !waiting.over() && refused_for_now(&error) => {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Err(error) => {
                tracing::warn!("restore: {error:#}");
                return;
            }
        }
    }
}
