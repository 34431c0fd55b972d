//! `manifest` checks and the cluster: a file applied and later deleted by the step can still be
//! judged, from the file, when the check says the cluster need not have it any more.

use proctor::cluster::{ClusterSetup, NodeTemplate, Target};
use proctor::runner::checks::manifest::check_manifest;
use proctor::scenario::check::ManifestCheck;

fn spec(cluster: Option<&str>) -> ManifestCheck {
    let mut text = "path: k8s/job.yaml\nobjects:\n  - kind: ConfigMap\n    name: settings\n    \
                    namespace: lab\n    expect: {data: {mode: fast}}\n"
        .to_string();
    if let Some(cluster) = cluster {
        text.push_str(&format!("cluster: {cluster}\n"));
    }
    serde_yaml::from_str(&text).expect("a manifest check")
}

#[test]
fn a_deleted_object_is_judged_from_the_file_only_when_the_check_allows_it() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let target = Target::embedded(&ClusterSetup::with_nodes(&NodeTemplate::plain(1)))
            .await
            .expect("embedded cluster");
        let lab = tempfile::tempdir().expect("lab dir");
        std::fs::create_dir_all(lab.path().join("k8s")).expect("mkdir");
        let file = lab.path().join("k8s/job.yaml");
        let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: lab}\ndata: {mode: fast}\n";
        std::fs::write(&file, manifest).expect("write");
        let kubectl = target.kubectl();
        kubectl
            .ok(&["create", "namespace", "lab"], None)
            .await
            .expect("namespace");
        let path = file.display().to_string();
        kubectl.ok(&["apply", "-f", &path], None).await.expect("apply");

        // Applied: every setting judges the cluster's object as well, and it passes.
        for cluster in [None, Some("required"), Some("ifPresent")] {
            let outcome = check_manifest(&target, &spec(cluster), lab.path(), None).await;
            assert!(outcome.passed, "{cluster:?}: {}", outcome.message);
            assert_eq!(outcome.message, "k8s/job.yaml creates the expected objects");
        }
        // Changed in the cluster: the cluster's object fails where the cluster is asked.
        kubectl
            .ok(&["-n", "lab", "patch", "configmap", "settings", "-p", r#"{"data":{"mode":"slow"}}"#], None)
            .await
            .expect("patch");
        let outcome = check_manifest(&target, &spec(Some("ifPresent")), lab.path(), None).await;
        assert!(!outcome.passed && outcome.message.starts_with("in the cluster, ConfigMap settings"));
        let outcome = check_manifest(&target, &spec(Some("ignored")), lab.path(), None).await;
        assert!(outcome.passed, "{}", outcome.message);
        assert_eq!(
            outcome.message,
            "k8s/job.yaml creates the expected objects (judged from the file: the cluster is not asked)"
        );

        // Deleted: required fails; ifPresent judges the file and says so.
        kubectl
            .ok(&["-n", "lab", "delete", "configmap", "settings"], None)
            .await
            .expect("delete");
        let outcome = check_manifest(&target, &spec(None), lab.path(), None).await;
        assert!(!outcome.passed);
        assert!(outcome.message.starts_with("the cluster has no ConfigMap settings in namespace lab"), "{}", outcome.message);
        let outcome = check_manifest(&target, &spec(Some("ifPresent")), lab.path(), None).await;
        assert!(outcome.passed, "{}", outcome.message);
        assert_eq!(
            outcome.message,
            "k8s/job.yaml creates the expected objects (ConfigMap settings judged from the file: \
             the cluster no longer has it)"
        );
        // The file is still held to the expected shape.
        std::fs::write(&file, manifest.replace("fast", "slow")).expect("write");
        let outcome = check_manifest(&target, &spec(Some("ifPresent")), lab.path(), None).await;
        assert!(!outcome.passed, "{}", outcome.message);
        target.shutdown().await;
    });
}
