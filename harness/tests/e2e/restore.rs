//! The restore of a cluster Proctor does not own (`--kubeconfig`, kwokctl): here the embedded
//! cluster reached through its kubeconfig, the way a grader's own cluster is.

use proctor::cluster::{NodeTemplate, Target};

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
        let embedded = Target::embedded(&NodeTemplate::plain(1))
            .await
            .expect("embedded cluster");
        let target = Target::external(embedded.kubeconfig())
            .await
            .expect("reached through its kubeconfig");
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
