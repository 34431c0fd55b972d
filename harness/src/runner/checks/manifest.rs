//! `manifest` checks: the learner's YAML (multi-document) must declare the expected objects
//! with the expected shape, and (as the check's `cluster` asks) those objects must exist in the
//! cluster with that shape too (in grade mode the step's `replay` applied the file; in check
//! mode the learner did).

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::confine::{locate, outside, LabFile};
use super::object::resource_arg;
use super::outcome::Outcome;
use crate::cluster::{ObjectQuery, Target};
use crate::scenario::check::{InCluster, ManifestCheck, ManifestObject};

/// Every object in a multi-document YAML text; `kind: List` documents are flattened.
pub fn parse_documents(text: &str) -> Result<Vec<Value>, String> {
    let mut objects = Vec::new();
    for (index, document) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let value = Value::deserialize(document)
            .map_err(|error| format!("document {}: {error}", index + 1))?;
        match value {
            Value::Null => {}
            Value::Object(ref map)
                if map
                    .get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|kind| kind.ends_with("List")) =>
            {
                objects.extend(
                    map.get("items")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default(),
                );
            }
            other => objects.push(other),
        }
    }
    Ok(objects)
}

fn text<'a>(object: &'a Value, pointer: &str) -> Option<&'a str> {
    object.pointer(pointer).and_then(Value::as_str)
}

fn label(object: &Value) -> String {
    format!(
        "{} {}",
        text(object, "/kind").unwrap_or("<no kind>"),
        text(object, "/metadata/name").unwrap_or("<no name>")
    )
}

/// Checks one expected object against the document that declares it.
fn check_document(
    expected: &ManifestObject,
    documents: &[Value],
    path: &Path,
) -> Result<Value, String> {
    let Some(document) = documents.iter().find(|document| {
        text(document, "/kind") == Some(expected.kind.as_str())
            && text(document, "/metadata/name") == Some(expected.name.as_str())
    }) else {
        let found: Vec<String> = documents.iter().map(label).collect();
        return Err(format!(
            "{} declares no {} named {} (it declares: {})",
            path.display(),
            expected.kind,
            expected.name,
            if found.is_empty() {
                "nothing".to_string()
            } else {
                found.join(", ")
            }
        ));
    };
    if let (Some(want), Some(have)) = (&expected.namespace, text(document, "/metadata/namespace")) {
        if want != have {
            return Err(format!(
                "{} {} is in namespace {have}, expected {want}",
                expected.kind, expected.name
            ));
        }
    }
    if let Some(version) = &expected.api_version {
        if text(document, "/apiVersion") != Some(version.as_str()) {
            return Err(format!(
                "{} {} has apiVersion {}, expected {version}",
                expected.kind,
                expected.name,
                text(document, "/apiVersion").unwrap_or("<none>")
            ));
        }
    }
    check_shape(expected, document)?;
    Ok(document.clone())
}

/// `expect` (partial match) and `len` (exact list lengths at dotted paths).
fn check_shape(expected: &ManifestObject, object: &Value) -> Result<(), String> {
    let who = format!("{} {}", expected.kind, expected.name);
    if let Some(want) = &expected.expect {
        graders::partial::matches(want, object).map_err(|reason| format!("{who}: {reason}"))?;
    }
    for (path, want) in &expected.len {
        match graders::paths::get(object, path) {
            Some(Value::Array(items)) if items.len() == *want => {}
            Some(Value::Array(items)) => {
                return Err(format!(
                    "{who}: {path} has {} entries, expected {want}",
                    items.len()
                ))
            }
            Some(_) => return Err(format!("{who}: {path} is not a list")),
            None => return Err(format!("{who}: {path} is missing")),
        }
    }
    Ok(())
}

/// The object as the cluster has it, if it exists.
async fn live(
    target: &Target,
    expected: &ManifestObject,
    document: &Value,
) -> Result<Option<Value>, String> {
    let resource = resource_arg(&expected.kind.to_lowercase(), text(document, "/apiVersion"));
    let namespace = expected
        .namespace
        .as_deref()
        .or_else(|| text(document, "/metadata/namespace"));
    let query = ObjectQuery {
        resource: &resource,
        name: Some(&expected.name),
        namespace,
        label_selector: None,
        field_selector: None,
    };
    Ok(target.objects(&query).await?.into_iter().next())
}

pub async fn check_manifest(
    target: &Target,
    spec: &ManifestCheck,
    lab_dir: &Path,
    replay_note: Option<&str>,
) -> Outcome {
    match locate(lab_dir, &spec.path) {
        LabFile::Inside(_) => {}
        LabFile::Missing => return Outcome::missing(&spec.path),
        LabFile::Outside { link } => return outside(&spec.path, &link),
    }
    let Some(bytes) = crate::runner::workdir::read_lab_file(lab_dir, &spec.path) else {
        return Outcome::missing(&spec.path);
    };
    let source = String::from_utf8_lossy(&bytes).into_owned();
    let documents = match parse_documents(&source) {
        Ok(documents) => documents,
        Err(error) => {
            return Outcome::fail(format!(
                "{} is not valid YAML: {error}",
                spec.path.display()
            ))
            .with_actual(source)
        }
    };
    // The objects judged from the file alone because the cluster no longer has them.
    let mut from_file = Vec::new();
    for expected in &spec.objects {
        let document = match check_document(expected, &documents, &spec.path) {
            Ok(document) => document,
            Err(reason) => return Outcome::fail(reason).with_actual(source),
        };
        if spec.cluster == InCluster::Ignored {
            continue;
        }
        let where_ = expected
            .namespace
            .as_deref()
            .map(|ns| format!(" in namespace {ns}"))
            .unwrap_or_default();
        match live(target, expected, &document).await {
            Ok(Some(object)) => {
                if let Err(reason) = check_shape(expected, &object) {
                    return Outcome::fail(format!("in the cluster, {reason}")).with_actual(source);
                }
            }
            Ok(None) if spec.cluster == InCluster::IfPresent => {
                from_file.push(format!("{} {}", expected.kind, expected.name));
            }
            Ok(None) => {
                let mut message = format!(
                    "the cluster has no {} {}{where_}: was {} applied?",
                    expected.kind,
                    expected.name,
                    spec.path.display()
                );
                if let Some(note) = replay_note.filter(|note| !note.trim().is_empty()) {
                    message.push_str(&format!("\n{note}"));
                }
                return Outcome::fail(message).with_actual(source);
            }
            Err(error) => return Outcome::fail(error).with_actual(source),
        }
    }
    let judged = match (spec.cluster, from_file.is_empty()) {
        (InCluster::Ignored, _) => " (judged from the file: the cluster is not asked)".to_string(),
        (_, true) => String::new(),
        (_, false) => format!(
            " ({} judged from the file: the cluster no longer has {})",
            from_file.join(", "),
            if from_file.len() == 1 { "it" } else { "them" }
        ),
    };
    Outcome::pass(format!(
        "{} creates the expected objects{judged}",
        spec.path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(expect: Value, len: Value) -> ManifestObject {
        serde_json::from_value(json!({"kind": "Pod", "name": "cuda12-job", "namespace": "gpu-drv", "expect": expect, "len": len}))
            .expect("valid manifest object")
    }

    const TWO_TERMS: &str = "\
apiVersion: v1
kind: Pod
metadata: {name: cuda12-job, namespace: gpu-drv}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: nvidia.com/cuda.driver.major, operator: In, values: ['550']}]
        - matchExpressions: [{key: feature.node.kubernetes.io/system-os_release.VERSION_ID, operator: In, values: ['22.04']}]
  containers: [{name: trainer, image: nvcr.io/nvidia/pytorch:24.07-py3}]
---
";

    #[test]
    fn multi_document_and_lists() {
        let docs =
            parse_documents("a: 1\n---\n---\nkind: List\nitems: [{kind: Pod}, {kind: Node}]\n")
                .expect("parses");
        assert_eq!(docs.len(), 3);
        assert!(parse_documents("a: [1\n").is_err());
    }

    #[test]
    fn term_count_is_checked() {
        let docs = parse_documents(TWO_TERMS).expect("parses");
        let path = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
        let error = check_document(
            &object(json!({"kind": "Pod"}), json!({path: 1})),
            &docs,
            Path::new("k8s/cuda12-job.yaml"),
        )
        .expect_err("two terms");
        assert_eq!(
            error,
            format!("Pod cuda12-job: {path} has 2 entries, expected 1")
        );
    }

    #[test]
    fn missing_object_lists_what_is_declared() {
        let docs = parse_documents(TWO_TERMS).expect("parses");
        let mut wanted = object(json!({}), json!({}));
        wanted.name = "cuda13-job".into();
        let error = check_document(&wanted, &docs, Path::new("k8s/x.yaml")).expect_err("absent");
        assert_eq!(
            error,
            "k8s/x.yaml declares no Pod named cuda13-job (it declares: Pod cuda12-job)"
        );
    }
}
