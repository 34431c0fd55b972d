//! The kwok configuration documents (`kwok.x-k8s.io/v1alpha1`) a lab's declarations become:
//! each a `Cluster*` document selecting pods as the scenario does (namespaces, exact pod names),
//! given to the embedded cluster as values and to kwok under kwokctl in its configuration file.

use anyhow::Context;
use serde_json::{json, Value};

/// kwok's configuration group.
const API_VERSION: &str = "kwok.x-k8s.io/v1alpha1";

/// A `kind` document named `name` whose selector takes `namespaces` and `pods` (none: all) and
/// whose `spec.<field>` holds `entry` alone.
pub fn cluster_document(
    kind: &str,
    name: &str,
    namespaces: &[String],
    pods: &[String],
    field: &str,
    entry: Value,
) -> Value {
    let mut selector = json!({});
    if !namespaces.is_empty() {
        selector["matchNamespaces"] = json!(namespaces);
    }
    if !pods.is_empty() {
        selector["matchNames"] = json!(pods);
    }
    json!({
        "apiVersion": API_VERSION,
        "kind": kind,
        "metadata": {"name": name},
        "spec": {"selector": selector, field: [entry]},
    })
}

/// Documents as a multi-document YAML stream, for kwok's configuration file.
pub fn yaml_stream(documents: &[Value]) -> anyhow::Result<String> {
    let mut out = String::new();
    for document in documents {
        out.push_str("---\n");
        let kind = document["kind"].as_str().unwrap_or("kwok");
        out.push_str(
            &serde_yaml::to_string(document)
                .with_context(|| format!("writing a {kind} document"))?,
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_selects_as_the_scenario_says_and_reads_back_from_yaml() {
        let document = cluster_document(
            "ClusterExec",
            "x",
            &["gpu".into()],
            &[],
            "execs",
            json!({"local": {"workDir": "/w"}}),
        );
        assert_eq!(
            document["spec"]["selector"],
            json!({"matchNamespaces": ["gpu"]})
        );
        assert_eq!(
            document["spec"]["execs"],
            json!([{"local": {"workDir": "/w"}}])
        );
        let text = yaml_stream(&[document.clone(), document.clone()]).expect("yaml");
        let back: Vec<Value> = serde_yaml::Deserializer::from_str(&text)
            .map(|d| serde::Deserialize::deserialize(d).expect("a document"))
            .collect();
        assert_eq!(back, [document.clone(), document]);
    }
}
