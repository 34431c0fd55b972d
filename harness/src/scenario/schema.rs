//! The JSON Schema of `scenario.yaml`, generated from the model so that it cannot drift from what
//! the loader accepts. Editors with the YAML language server read it through the modeline at the
//! top of each scenario (`# yaml-language-server: $schema=../scenario.schema.json`) and complete
//! and check keys as the author types; `proctor schema` prints it.

use super::model::Scenario;

/// Where the schema is kept in the repository, relative to the scenarios dir.
pub const SCHEMA_FILE: &str = "scenario.schema.json";

/// The schema, pretty-printed with a final newline (the form kept in the repository).
pub fn scenario_schema() -> String {
    pretty_schema::<Scenario>()
}

/// `T`'s JSON Schema as the repository keeps schemas: pretty-printed, with a final newline.
pub fn pretty_schema<T: schemars::JsonSchema>() -> String {
    let schema = schemars::schema_for!(T);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn scenarios_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
    }

    /// The schema compiled with an independent JSON Schema validator.
    fn compiled() -> (boon::Schemas, boon::SchemaIndex) {
        let schema: serde_json::Value =
            serde_json::from_str(&scenario_schema()).expect("the schema is JSON");
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        compiler
            .add_resource("urn:proctor:scenario", schema)
            .expect("resource");
        let index = compiler
            .compile("urn:proctor:scenario", &mut schemas)
            .expect("the schema compiles");
        (schemas, index)
    }

    fn yaml(text: &str) -> serde_json::Value {
        serde_yaml::from_str(text).expect("YAML")
    }

    #[test]
    fn the_kept_schema_is_the_generated_one() {
        let kept = std::fs::read_to_string(scenarios_dir().join(SCHEMA_FILE)).unwrap_or_default();
        assert!(
            kept == scenario_schema(),
            "scenarios/{SCHEMA_FILE} is out of date: run `proctor schema > scenarios/{SCHEMA_FILE}`"
        );
    }

    #[test]
    fn every_lab_names_the_schema_and_meets_it() {
        let (schemas, index) = compiled();
        let mut labs = 0;
        for entry in std::fs::read_dir(scenarios_dir()).expect("scenarios dir") {
            let file = entry.expect("entry").path().join("scenario.yaml");
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            labs += 1;
            assert!(
                text.starts_with(&format!(
                    "# yaml-language-server: $schema=../{SCHEMA_FILE}\n"
                )),
                "{} does not start with the schema modeline",
                file.display()
            );
            if let Err(error) = schemas.validate(&yaml(&text), index) {
                panic!("{}: {error}", file.display());
            }
        }
        assert!(labs >= 2, "found {labs} labs");
    }

    #[test]
    fn the_schema_refuses_what_the_loader_refuses() {
        let (schemas, index) = compiled();
        let base = "apiVersion: proctor/v1\nkind: Scenario\nname: t\ntitle: t\nlabDir: /root/t\nsteps:\n  - title: one\n    checks:\n      - id: a\n        title: a\n";
        let good = format!("{base}        script: {{path: a.sh, compare: [stdout, exitCode], nodes: {{includeInjected: false}}}}\n");
        assert!(schemas.validate(&yaml(&good), index).is_ok());
        for bad in [
            format!("{base}        script: {{path: a.sh, compare: [stdout, exit_code]}}\n"),
            format!("{base}        script: {{path: a.sh, nodes: {{include_injected: false}}}}\n"),
            format!("{base}        file: {{path: out/a.txt, normalise: [trailing-whitespace]}}\n"),
            format!("{base}        file: {{path: out/a.txt}}\n        visibilty: hidden\n"),
            base.replace("apiVersion: proctor/v1", "apiVersion: proctor/v2"),
            base.replace("  - title: one", "  - id: 0\n    title: one"),
        ] {
            assert!(
                schemas.validate(&yaml(&bad), index).is_err(),
                "accepted:\n{bad}"
            );
        }
    }
}
