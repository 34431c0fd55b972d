//! The stages kwok plays on a kwokctl cluster: kwokctl's own defaults, taken from kwok's module by
//! `upstream/build.sh`, with Proctor's fault annotations realised the way the embedded cluster's
//! fake kubelet realises them (`kwok/src/controllers/kubelet`), so that a fault means the same on
//! both runtimes:
//! - `proctor.dev/node-ready: "False"` on a node: it reports `Ready=False` (`KubeletNotReady`)
//!   instead of being initialised Ready and heart-beaten;
//! - `proctor.dev/pod-fault` (with `proctor.dev/pod-fault-images`) on a pod: its matching
//!   containers wait in `ImagePullBackOff`/`ErrImagePull` (the pod stays Pending) or crash-loop;
//! - `proctor.dev/pod-exit-code` on a Job's pod that never restarts: it fails with that code
//!   instead of completing.
//!
//! kwokctl gives kwok no default stage once any stage is configured (`runtime/cluster.go`
//! `Save`), so the whole set is given: each default stage as upstream wrote it, its selector
//! narrowed to leave the faulted objects to Proctor's stages, which select exactly those. Every
//! object matches at most one stage of a kind at a time, as with the defaults.
//!
//! A fault set on a node for all its pods (`pod-fault` on a node) cannot be a stage: a pod's
//! stage sees only the pod. `scenario::lint::embedded_only` names it, and kwokctl refuses it.

use std::path::Path;

use anyhow::{bail, Context};
use serde_json::{json, Value};

/// kwokctl's default stages for the binary runtime, in the order it writes them
/// (`getDefaultNodeStages` with a lease, `getDefaultPodStages`), as `upstream/build.sh` copies
/// them from `kustomize/stage/` of kwok's module.
pub const DEFAULT_STAGES: [&str; 5] = [
    "node-initialize.yaml",
    "node-heartbeat-with-lease.yaml",
    "pod-ready.yaml",
    "pod-complete.yaml",
    "pod-delete.yaml",
];

/// "The node's `proctor.dev/node-ready` says False", as a jq query kwok's selectors evaluate
/// (`true`/`false`, compared as strings); case as the embedded kubelet reads it.
const NODE_NOT_READY: &str =
    r#"(.metadata.annotations["proctor.dev/node-ready"] // "" | ascii_downcase) == "false""#;

const POD_FAULT: &str = r#".metadata.annotations["proctor.dev/pod-fault"]"#;

/// "The pod fails with its `proctor.dev/pod-exit-code`": a non-zero integer on a pod that never
/// restarts (the embedded kubelet's `completed_pod`).
const POD_EXIT_CODE: &str = r#"(.metadata.annotations["proctor.dev/pod-exit-code"] // "") as $code | if .spec.restartPolicy == "Never" and ($code | test("^\\s*-?[0-9]+\\s*$")) then ($code | gsub("\\s"; "") | tonumber) != 0 else false end"#;

/// The Ready condition's status, as kwok's own node stages select it.
const NODE_READY_STATUS: &str = r#".status.conditions.[] | select( .type == "Ready" ) | .status"#;

/// What the embedded kubelet reports for a node that is not ready.
const NOT_READY_REASON: &str = "KubeletNotReady";
const NOT_READY_MESSAGE: &str = "container runtime network not ready: NetworkReady=false";

/// The multi-document kwok configuration (`kwokctl create cluster --config`) of the stages, built
/// from the default stages in `dir`.
pub fn stages_config(dir: &Path) -> anyhow::Result<String> {
    let read = |name: &str| -> anyhow::Result<Value> {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading kwok's stage {}", path.display()))?;
        serde_yaml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    };
    let [initialize, heartbeat, ready, complete, delete] = DEFAULT_STAGES.map(read);
    let (initialize, heartbeat, ready, complete, delete) =
        (initialize?, heartbeat?, ready?, complete?, delete?);

    let mut stages = Vec::new();
    let not_ready = node_not_ready(&initialize)?;
    stages.push(with_expression(
        initialize,
        NODE_NOT_READY,
        "NotIn",
        &["true"],
    )?);
    stages.push(with_expression(
        heartbeat,
        NODE_NOT_READY,
        "NotIn",
        &["true"],
    )?);
    stages.push(not_ready);
    stages.push(with_expression(ready, POD_FAULT, "DoesNotExist", &[])?);
    stages.push(pod_faulted());
    stages.push(with_expression(
        complete.clone(),
        POD_EXIT_CODE,
        "NotIn",
        &["true"],
    )?);
    stages.push(pod_failed(&complete)?);
    stages.push(delete);

    let mut text = String::new();
    for stage in &stages {
        text.push_str("---\n");
        text.push_str(&serde_yaml::to_string(stage).context("writing a kwok stage")?);
    }
    Ok(text)
}

/// `stage` whose selector also requires `key` `operator` `values`.
fn with_expression(
    mut stage: Value,
    key: &str,
    operator: &str,
    values: &[&str],
) -> anyhow::Result<Value> {
    let Some(expressions) = stage["spec"]["selector"]["matchExpressions"].as_array_mut() else {
        bail!(
            "kwok's stage {} has no selector expressions to narrow",
            stage["metadata"]["name"]
        );
    };
    let mut expression = json!({"key": key, "operator": operator});
    if !values.is_empty() {
        expression["values"] = json!(values);
    }
    expressions.push(expression);
    Ok(stage)
}

/// The status template of `stage`.
fn status_template(stage: &Value) -> anyhow::Result<&str> {
    stage["spec"]["next"]["statusTemplate"]
        .as_str()
        .with_context(|| {
            format!(
                "kwok's stage {} has no status template",
                stage["metadata"]["name"]
            )
        })
}

/// `node-initialize` for a node whose annotation says it is not ready: the same status, with
/// the Ready condition False, and selected while the node does not say so yet.
fn node_not_ready(initialize: &Value) -> anyhow::Result<Value> {
    let mut template = status_template(initialize)?.to_string();
    for (field, not_ready) in [
        ("message", format!("{NOT_READY_MESSAGE:?}")),
        ("reason", format!("{NOT_READY_REASON:?}")),
        ("status", "\"False\"".to_string()),
    ] {
        let each = format!("{field}: {{{{ .{field} | Quote }}}}");
        if template.matches(&each).count() != 1 {
            bail!("kwok's node-initialize stage does not write `{each}` once: not the one Proctor knows");
        }
        let ready_or_each = format!(
            "{field}: {{{{ if eq .type \"Ready\" }}}}{not_ready}{{{{ else }}}}{{{{ .{field} | Quote }}}}{{{{ end }}}}"
        );
        template = template.replace(&each, &ready_or_each);
    }
    let mut stage = initialize.clone();
    stage["metadata"]["name"] = json!("proctor-node-not-ready");
    stage["spec"]["selector"]["matchExpressions"] = json!([
        {"key": NODE_NOT_READY, "operator": "In", "values": ["true"]},
        {"key": NODE_READY_STATUS, "operator": "NotIn", "values": ["False"]},
    ]);
    stage["spec"]["next"]["statusTemplate"] = json!(template);
    Ok(stage)
}

/// `pod-complete` for a pod that fails with its exit code: every container terminated with it
/// (`Error`), the phase Failed.
fn pod_failed(complete: &Value) -> anyhow::Result<Value> {
    let mut stage = with_expression(complete.clone(), POD_EXIT_CODE, "In", &["true"])?;
    stage["metadata"]["name"] = json!("proctor-pod-failed");
    stage["spec"]["next"] = json!({"statusTemplate": POD_FAILED_STATUS});
    Ok(stage)
}

/// The status of a Job's pod that failed with `proctor.dev/pod-exit-code`.
const POD_FAILED_STATUS: &str = r#"{{ $now := Now }}
{{ $code := index .metadata.annotations "proctor.dev/pod-exit-code" | trim | atoi }}
containerStatuses:
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: false
  started: false
  restartCount: 0
  state:
    terminated:
      exitCode: {{ $code }}
      reason: Error
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}
{{ end }}
phase: Failed
"#;

/// The stage of a pod with `proctor.dev/pod-fault`, in place of `pod-ready`: the embedded
/// kubelet's `running_pod` with the fault.
fn pod_faulted() -> Value {
    json!({
        "apiVersion": "kwok.x-k8s.io/v1alpha1",
        "kind": "Stage",
        "metadata": {"name": "proctor-pod-faulted"},
        "spec": {
            "resourceRef": {"apiGroup": "v1", "kind": "Pod"},
            "selector": {"matchExpressions": [
                {"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"},
                {"key": ".status.podIP", "operator": "DoesNotExist"},
                {"key": POD_FAULT, "operator": "Exists"},
            ]},
            "next": {"statusTemplate": POD_FAULTED_STATUS},
        },
    })
}

/// The status of a pod with `proctor.dev/pod-fault`: a container whose image matches one of the
/// `proctor.dev/pod-fault-images` globs (any container without them) waits in the image fault
/// (and the pod stays Pending) or crash-loops; the others run. Unready containers make the pod
/// and its containers not Ready, as the kubelet words it.
const POD_FAULTED_STATUS: &str = r#"{{ $now := Now }}
{{ $pod := . }}
{{ $annotations := or .metadata.annotations dict }}
{{ $fault := index $annotations "proctor.dev/pod-fault" }}
{{ $globs := trim (or (index $annotations "proctor.dev/pod-fault-images") "") }}
{{ $unready := list }}
{{ $pending := false }}
containerStatuses:
{{ range .spec.containers }}
{{ $image := or .image "" }}
{{ $hit := true }}
{{ if $globs }}
{{ $hit = false }}
{{ range splitList "," $globs }}
{{ if regexMatch (printf "^%s$" (replace "\\*" ".*" (regexQuoteMeta (trim .)))) $image }}
{{ $hit = true }}
{{ end }}
{{ end }}
{{ end }}
{{ if not $hit }}
- name: {{ .name | Quote }}
  image: {{ $image | Quote }}
  ready: true
  restartCount: 0
  state:
    running:
      startedAt: {{ $now | Quote }}
{{ else if or (eq $fault "ImagePullBackOff") (eq $fault "ErrImagePull") }}
{{ $pending = true }}
{{ $unready = append $unready .name }}
- name: {{ .name | Quote }}
  image: {{ $image | Quote }}
  imageID: ""
  ready: false
  started: false
  restartCount: 0
  lastState: {}
  state:
    waiting:
      reason: {{ $fault | Quote }}
      message: {{ if eq $fault "ErrImagePull" }}{{ printf "failed to pull and unpack image %q: not found" $image | Quote }}{{ else }}{{ printf "Back-off pulling image %q" $image | Quote }}{{ end }}
{{ else }}
{{ $unready = append $unready .name }}
- name: {{ .name | Quote }}
  image: {{ $image | Quote }}
  imageID: ""
  ready: false
  started: false
  restartCount: 5
  lastState:
    terminated:
      exitCode: 1
      reason: Error
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}
  state:
    waiting:
      reason: CrashLoopBackOff
      message: {{ printf "back-off 5m0s restarting failed container=%s pod=%s_%s(%s)" .name $pod.metadata.name $pod.metadata.namespace $pod.metadata.uid | Quote }}
{{ end }}
{{ end }}
{{ with .spec.initContainers }}
initContainerStatuses:
{{ range . }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: true
  restartCount: 0
{{ if eq .restartPolicy "Always" }}
  started: true
  state:
    running:
      startedAt: {{ $now | Quote }}
{{ else }}
  state:
    terminated:
      exitCode: 0
      reason: Completed
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}
{{ end }}
{{ end }}
{{ end }}
{{ $why := printf "containers with unready status: [%s]" (join " " $unready) }}
conditions:
- type: Initialized
  status: "True"
  lastTransitionTime: {{ $now | Quote }}
{{ range list "Ready" "ContainersReady" }}
- type: {{ . }}
  lastTransitionTime: {{ $now | Quote }}
{{ if $unready }}
  status: "False"
  reason: ContainersNotReady
  message: {{ $why | Quote }}
{{ else }}
  status: "True"
{{ end }}
{{ end }}
{{ range .spec.readinessGates }}
- type: {{ .conditionType | Quote }}
  status: "True"
  lastTransitionTime: {{ $now | Quote }}
{{ end }}
hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
phase: {{ if $pending }}Pending{{ else }}Running{{ end }}
startTime: {{ $now | Quote }}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// Stages shaped like kwok's (a selector, a status template), written for the test.
    fn stage(name: &str, kind: &str, template: &str) -> String {
        format!(
            "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: {name}\nspec:\n  \
             resourceRef: {{apiGroup: v1, kind: {kind}}}\n  selector:\n    matchExpressions:\n    \
             - {{key: .metadata.name, operator: Exists}}\n  next:\n    statusTemplate: |\n      \
             {template}\n"
        )
    }

    fn defaults(node_template: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tmp");
        let conditions = node_template;
        for (file, kind, template) in [
            ("node-initialize.yaml", "Node", conditions),
            ("node-heartbeat-with-lease.yaml", "Node", "phase: Running"),
            ("pod-ready.yaml", "Pod", "phase: Running"),
            ("pod-complete.yaml", "Pod", "phase: Succeeded"),
            ("pod-delete.yaml", "Pod", "phase: Gone"),
        ] {
            let name = file.trim_end_matches(".yaml");
            std::fs::write(dir.path().join(file), stage(name, kind, template)).expect("write");
        }
        dir
    }

    const CONDITIONS: &str = "message: {{ .message | Quote }} reason: {{ .reason | Quote }} status: {{ .status | Quote }}";

    fn parsed(config: &str) -> Vec<Value> {
        use serde::Deserialize;
        serde_yaml::Deserializer::from_str(config)
            .map(|document| Value::deserialize(document).expect("a stage"))
            .collect()
    }

    fn selector(stage: &Value) -> Vec<(String, String)> {
        stage["spec"]["selector"]["matchExpressions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| {
                (
                    e["key"].as_str().unwrap_or("").to_string(),
                    e["operator"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn every_default_stage_is_kept_and_each_fault_has_a_stage_of_its_own() {
        let dir = defaults(CONDITIONS);
        let stages = parsed(&stages_config(dir.path()).expect("config"));
        let names: Vec<&str> = stages
            .iter()
            .map(|s| s["metadata"]["name"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(
            names,
            [
                "node-initialize",
                "node-heartbeat-with-lease",
                "proctor-node-not-ready",
                "pod-ready",
                "proctor-pod-faulted",
                "pod-complete",
                "proctor-pod-failed",
                "pod-delete"
            ]
        );
        // A default stage keeps its own selector and template, and leaves the faulted to ours.
        let initialize = &stages[0];
        assert_eq!(
            selector(initialize),
            [
                (".metadata.name".to_string(), "Exists".to_string()),
                (NODE_NOT_READY.to_string(), "NotIn".to_string())
            ]
        );
        assert_eq!(
            status_template(initialize).expect("template").trim(),
            CONDITIONS
        );
        assert_eq!(
            selector(&stages[3])[1],
            (POD_FAULT.to_string(), "DoesNotExist".to_string())
        );
        assert_eq!(
            selector(&stages[5])[1],
            (POD_EXIT_CODE.to_string(), "NotIn".to_string())
        );
        assert_eq!(
            selector(&stages[6])[1],
            (POD_EXIT_CODE.to_string(), "In".to_string())
        );
        assert_eq!(
            stages[7]["spec"],
            parsed(&stage("pod-delete", "Pod", "phase: Gone"))[0]["spec"]
        );
        // The not-ready node: Ready reads False, every other condition as kwok reports it.
        let template = status_template(&stages[2]).expect("template");
        assert!(template.contains(
            "status: {{ if eq .type \"Ready\" }}\"False\"{{ else }}{{ .status | Quote }}{{ end }}"
        ), "{template}");
        assert!(
            template.contains(&format!(
                "reason: {{{{ if eq .type \"Ready\" }}}}\"{NOT_READY_REASON}\""
            )),
            "{template}"
        );
    }

    #[test]
    fn a_node_stage_that_is_not_the_one_known_is_refused() {
        let dir = defaults("conditions: {{ NodeConditions }}");
        let error = stages_config(dir.path()).expect_err("no anchor");
        assert!(
            format!("{error:#}").contains("does not write `message: {{ .message | Quote }}` once"),
            "{error:#}"
        );
    }

    #[test]
    fn a_missing_default_stage_is_named() {
        let dir = defaults(CONDITIONS);
        std::fs::remove_file(dir.path().join("pod-complete.yaml")).expect("rm");
        let error = stages_config(dir.path()).expect_err("missing");
        assert!(
            format!("{error:#}").contains("pod-complete.yaml"),
            "{error:#}"
        );
    }

    #[cfg(feature = "embedded")]
    #[test]
    fn the_stages_read_the_kubelets_annotations() {
        use kwok::controllers::kubelet::{EXIT_CODE, FAULT, FAULT_IMAGES, NODE_READY};
        assert!(NODE_NOT_READY.contains(&format!("[\"{NODE_READY}\"]")));
        assert!(POD_FAULT.contains(&format!("[\"{FAULT}\"]")));
        assert!(POD_EXIT_CODE.contains(&format!("[\"{EXIT_CODE}\"]")));
        assert!(POD_FAULTED_STATUS.contains(&format!("\"{FAULT}\"")));
        assert!(POD_FAULTED_STATUS.contains(&format!("\"{FAULT_IMAGES}\"")));
        assert!(POD_FAILED_STATUS.contains(&format!("\"{EXIT_CODE}\"")));
    }
}
