//! The restore of a cluster Proctor does not own (`--kubeconfig`, kwokctl): here the embedded
//! cluster reached through its kubeconfig, the way a grader's own cluster is.

use proctor::cluster::{ClusterSetup, NodeTemplate, Target};

/// An embedded cluster with one node, and the same cluster as a grader's own: reached by its
/// kubeconfig, restored object by object.
async fn reached_by_kubeconfig() -> (Target, Target) {
    let embedded = Target::embedded(&ClusterSetup::with_nodes(&NodeTemplate::plain(1)))
        .await
        .expect("embedded cluster");
    let target = Target::external(embedded.kubeconfig())
        .await
        .expect("reached through its kubeconfig");
    (embedded, target)
}

/// The pods of the `trainer` Deployment as `name node phase` lines, sorted by node and phase.
async fn trainers(target: &Target) -> Vec<String> {
    let output = target
        .kubectl()
        .run(
            &[
                "-n",
                "lab",
                "get",
                "pods",
                "-l",
                "app=trainer",
                "-o",
                "jsonpath={range .items[*]}{.spec.nodeName}={.status.phase}{\"\\n\"}{end}",
            ],
            None,
        )
        .await
        .expect("kubectl get pods");
    let mut lines: Vec<String> = output.stdout.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// A cordoned node with one trainer on it and a second one Pending (the cordon keeps it off):
/// after the Deployment is deleted, the restore makes it again, lets the node take its trainer
/// back, and leaves the second one Pending as the snapshot has it, not placed on the node while
/// it was open.
#[test]
fn a_pod_pending_in_the_snapshot_is_pending_after_a_restore() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let (embedded, target) = reached_by_kubeconfig().await;
        let kubectl = target.kubectl();
        let deployment = br#"{"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "trainer", "namespace": "lab"},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "trainer"}},
              "template": {"metadata": {"labels": {"app": "trainer"}},
                "spec": {"containers": [{"name": "c", "image": "trainer:1"}]}}}}"#;
        for (args, stdin) in [
            (vec!["create", "namespace", "lab"], None),
            (vec!["apply", "-f", "-"], Some(&deployment[..])),
            (
                vec![
                    "-n",
                    "lab",
                    "rollout",
                    "status",
                    "deployment/trainer",
                    "--timeout=60s",
                ],
                None,
            ),
            (vec!["cordon", "lab-node-0"], None),
            (
                vec!["-n", "lab", "scale", "deployment/trainer", "--replicas=2"],
                None,
            ),
        ] {
            kubectl.ok(&args, stdin).await.expect("set-up");
        }
        target.settle().await;
        let before = trainers(&target).await;
        assert_eq!(before, ["=Pending", "lab-node-0=Running"]);
        let snapshot = target.snapshot().await.expect("snapshot");

        kubectl
            .ok(
                &["-n", "lab", "delete", "deployment", "trainer", "--wait"],
                None,
            )
            .await
            .expect("delete");
        assert!(trainers(&target).await.is_empty());
        target.restore(&snapshot).await.expect("restore");

        assert_eq!(trainers(&target).await, before);
        let cordoned = kubectl
            .run(
                &[
                    "get",
                    "node",
                    "lab-node-0",
                    "-o",
                    "jsonpath={.spec.unschedulable}",
                ],
                None,
            )
            .await
            .expect("get node");
        assert_eq!(cordoned.stdout, "true", "the node is cordoned again");
        embedded.shutdown().await;
    });
}

/// The `ServiceMonitor`s in the `lab` namespace as `name port` lines.
async fn monitors(target: &Target) -> String {
    target
        .kubectl()
        .ok(
            &[
                "-n",
                "lab",
                "get",
                "servicemonitors",
                "--ignore-not-found",
                "-o",
                "jsonpath={range .items[*]}{.metadata.name} {.spec.port}{\"\\n\"}{end}",
            ],
            None,
        )
        .await
        .expect("kubectl get servicemonitors")
}

/// A lab whose starter ships a CRD: the custom resources a learner changed, deleted or added are
/// put back as the snapshot has them, and a CRD the learner added goes.
#[test]
fn custom_resources_are_restored_with_their_crd() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let (embedded, target) = reached_by_kubeconfig().await;
        let kubectl = target.kubectl();
        let crd = |plural: &str, kind: &str| {
            format!(
                r#"{{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {{"name": "{plural}.monitoring.example.com"}},
                "spec": {{"group": "monitoring.example.com", "scope": "Namespaced",
                  "names": {{"plural": "{plural}", "kind": "{kind}"}},
                  "versions": [{{"name": "v1", "served": true, "storage": true,
                    "schema": {{"openAPIV3Schema": {{"type": "object",
                      "x-kubernetes-preserve-unknown-fields": true}}}}}}]}}}}"#
            )
        };
        let monitor = |name: &str, port: &str| {
            format!(
                r#"{{"apiVersion": "monitoring.example.com/v1", "kind": "ServiceMonitor",
                "metadata": {{"name": "{name}", "namespace": "lab"}}, "spec": {{"port": "{port}"}}}}"#
            )
        };
        let apply = |body: String| async move {
            kubectl
                .ok(&["apply", "-f", "-"], Some(body.as_bytes()))
                .await
                .expect("apply")
        };
        kubectl
            .ok(&["create", "namespace", "lab"], None)
            .await
            .expect("namespace");
        apply(crd("servicemonitors", "ServiceMonitor")).await;
        kubectl
            .ok(
                &["wait", "--for=condition=established", "crd", "--all", "--timeout=60s"],
                None,
            )
            .await
            .expect("established");
        apply(monitor("dcgm", "metrics")).await;
        apply(monitor("gone", "metrics")).await;
        target.settle().await;
        let before = monitors(&target).await;
        assert_eq!(before, "dcgm metrics\ngone metrics\n");
        let snapshot = target.snapshot().await.expect("snapshot");

        apply(monitor("dcgm", "web")).await;
        apply(monitor("new", "metrics")).await;
        kubectl
            .ok(&["-n", "lab", "delete", "servicemonitor", "gone"], None)
            .await
            .expect("delete");
        apply(crd("alerts", "Alert")).await;
        target.restore(&snapshot).await.expect("restore");

        assert_eq!(monitors(&target).await, before);
        let crds = kubectl
            .ok(&["get", "crd", "-o", "name"], None)
            .await
            .expect("crds");
        assert_eq!(
            crds,
            "customresourcedefinition.apiextensions.k8s.io/servicemonitors.monitoring.example.com\n"
        );

        // A learner who deletes the CRD itself gets it back with its objects.
        kubectl
            .ok(&["delete", "crd", "servicemonitors.monitoring.example.com"], None)
            .await
            .expect("delete crd");
        target.restore(&snapshot).await.expect("restore");
        assert_eq!(monitors(&target).await, before);
        embedded.shutdown().await;
    });
}

/// Volumes and claims as `name=phase:bound-to` lines, classes as `class:name`.
async fn storage(target: &Target) -> String {
    let get = |args: &'static [&'static str]| async move {
        target
            .kubectl()
            .ok(args, None)
            .await
            .expect("kubectl get storage")
    };
    let classes = get(&[
        "get",
        "storageclasses",
        "-o",
        "jsonpath={range .items[*]}class:{.metadata.name}{\"\\n\"}{end}",
    ])
    .await;
    let volumes = get(&["get", "pv", "-o", "jsonpath={range .items[*]}{.metadata.name}={.status.phase}:{.spec.claimRef.name}{\"\\n\"}{end}"]).await;
    let claims = get(&["-n", "lab", "get", "pvc", "-o", "jsonpath={range .items[*]}{.metadata.name}={.status.phase}:{.spec.volumeName}{\"\\n\"}{end}"]).await;
    format!("{classes}{volumes}{claims}")
}

/// Storage is state: a claim the learner deleted comes back bound to its volume (whose bind
/// to the old claim is undone), a class they deleted comes back, and a volume they added goes.
#[test]
fn claims_volumes_and_classes_are_restored_with_their_bindings() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let (embedded, target) = reached_by_kubeconfig().await;
        let kubectl = target.kubectl();
        let volume = |name: &str| {
            format!(
                r#"{{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {{"name": "{name}"}},
                "spec": {{"capacity": {{"storage": "1Gi"}}, "accessModes": ["ReadWriteOnce"],
                  "storageClassName": "manual", "hostPath": {{"path": "/data/{name}"}}}}}}"#
            )
        };
        let class = br#"{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "manual"}, "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "Immediate"}"#;
        let claim = br#"{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": "lab"},
            "spec": {"storageClassName": "manual", "accessModes": ["ReadWriteOnce"],
              "resources": {"requests": {"storage": "1Gi"}}}}"#;
        let apply = |body: Vec<u8>| async move {
            kubectl
                .ok(&["apply", "-f", "-"], Some(&body))
                .await
                .expect("apply")
        };
        let bound = || async {
            kubectl
                .ok(
                    &["-n", "lab", "wait", "--for=jsonpath={.status.phase}=Bound", "pvc/data", "--timeout=30s"],
                    None,
                )
                .await
                .expect("the claim is bound");
        };
        kubectl
            .ok(&["create", "namespace", "lab"], None)
            .await
            .expect("namespace");
        apply(class.to_vec()).await;
        apply(volume("pv-a").into_bytes()).await;
        apply(claim.to_vec()).await;
        bound().await;
        target.settle().await;
        let before = storage(&target).await;
        assert_eq!(before, "class:manual\npv-a=Bound:data\ndata=Bound:pv-a\n");
        let snapshot = target.snapshot().await.expect("snapshot");

        kubectl
            .ok(&["-n", "lab", "delete", "pvc", "data", "--wait"], None)
            .await
            .expect("delete claim");
        kubectl
            .ok(&["delete", "storageclass", "manual"], None)
            .await
            .expect("delete class");
        apply(volume("pv-b").into_bytes()).await;
        target.restore(&snapshot).await.expect("restore");
        bound().await;
        target.settle().await;
        assert_eq!(storage(&target).await, before);

        // Restored again with nothing changed: the binding under its new uids is the snapshot's.
        let claim_uid = kubectl
            .ok(&["-n", "lab", "get", "pvc", "data", "-o", "jsonpath={.metadata.uid}"], None)
            .await
            .expect("uid");
        target.restore(&snapshot).await.expect("restore");
        let again = kubectl
            .ok(&["-n", "lab", "get", "pvc", "data", "-o", "jsonpath={.metadata.uid}"], None)
            .await
            .expect("uid");
        assert_eq!(again, claim_uid, "the claim was not made again");
        embedded.shutdown().await;
    });
}
