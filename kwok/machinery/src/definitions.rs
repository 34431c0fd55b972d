//! The OpenAPI bundle of the pinned Kubernetes release (`upstream/openapi.sh` writes
//! `kwok/openapi/kubernetes.json.gz`): the documents the server publishes, and the definitions
//! of every built-in kind, which field ownership walks objects by.

use std::collections::HashMap;
use std::io::Read;
use std::sync::OnceLock;

use serde_json::{Map, Value};

static BUNDLE: &[u8] = include_bytes!("../../openapi/kubernetes.json.gz");

/// The whole bundle: `release`, `schemas` (every definition by name), `documents` (the
/// served documents, naming the definitions they hold) and `custom` (a sample custom
/// resource's document).
pub fn read_bundle() -> anyhow::Result<Value> {
    Ok(serde_json::from_slice(&unzipped()?)?)
}

fn unzipped() -> anyhow::Result<Vec<u8>> {
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(BUNDLE).read_to_end(&mut json)?;
    Ok(json)
}

/// The bundle's definitions alone: its documents (four fifths of it) are skipped while reading,
/// not built and dropped.
#[derive(serde::Deserialize)]
struct SchemasOnly {
    schemas: Map<String, Value>,
}

/// The built-in definitions, and which one describes each group, version and kind.
pub struct Definitions {
    pub schemas: Map<String, Value>,
    by_kind: HashMap<(String, String, String), String>,
}

impl Definitions {
    /// The definition of a kind (`io.k8s.api.apps.v1.Deployment` for apps, v1, Deployment).
    pub fn of_kind(&self, group: &str, version: &str, kind: &str) -> Option<&str> {
        self.by_kind
            .get(&(group.to_owned(), version.to_owned(), kind.to_owned()))
            .map(String::as_str)
    }
}

/// Read on first use, as the documents are.
pub fn definitions() -> &'static Definitions {
    static DEFINITIONS: OnceLock<Definitions> = OnceLock::new();
    DEFINITIONS.get_or_init(|| {
        let read = unzipped().and_then(|json| Ok(serde_json::from_slice::<SchemasOnly>(&json)?));
        let schemas = match read {
            Ok(only) => only.schemas,
            Err(e) => {
                tracing::error!("the built-in OpenAPI definitions cannot be read: {e}");
                Map::new()
            }
        };
        let mut by_kind = HashMap::new();
        for (name, schema) in &schemas {
            let gvks = schema["x-kubernetes-group-version-kind"].as_array();
            for gvk in gvks.into_iter().flatten() {
                let field = |k: &str| gvk[k].as_str().unwrap_or_default().to_owned();
                by_kind.insert(
                    (field("group"), field("version"), field("kind")),
                    name.clone(),
                );
            }
        }
        Definitions { schemas, by_kind }
    })
}
