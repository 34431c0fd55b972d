//! Reading `scenario.yaml` (and `expect.yaml`) into the typed model with precise errors.

use std::path::Path;

use serde::de::DeserializeOwned;

use super::error::{ScenarioError, ScenarioErrors};
use super::model::Scenario;
use super::validate::validate;

/// Parses YAML text into `T`, naming the key path and line:column of the first problem.
pub fn parse_yaml<T: DeserializeOwned>(text: &str, file: &Path) -> Result<T, ScenarioError> {
    let deserializer = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(deserializer).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        let location = inner.location().map(|l| (l.line(), l.column()));
        let message = strip_path(&strip_location(&inner.to_string()), &path);
        ScenarioError::new(file, path, message).at(location)
    })
}

/// serde_yaml prefixes messages with its own (shorter) key path; the path from
/// serde_path_to_error, which also names an unknown key itself, is reported instead.
fn strip_path(message: &str, path: &str) -> String {
    match message.split_once(": ") {
        Some((prefix, rest)) if !prefix.contains(' ') && path.starts_with(prefix) => {
            rest.to_string()
        }
        _ => message.to_string(),
    }
}

/// serde_yaml appends " at line L column C" to its messages; the location is reported in
/// `file:line:col` form instead, so the suffix would only repeat it.
fn strip_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(index) if message[index..].contains(" column ") => message[..index].to_string(),
        _ => message.to_string(),
    }
}

/// Loads and validates a scenario file. `scenario_dir` is where referenced files are resolved.
pub fn load_scenario(file: &Path) -> Result<Scenario, ScenarioErrors> {
    let text = std::fs::read_to_string(file).map_err(|error| {
        ScenarioErrors(vec![ScenarioError::new(
            file,
            "",
            format!("cannot read scenario: {error}"),
        )])
    })?;
    let mut scenario: Scenario =
        parse_yaml(&text, file).map_err(|error| ScenarioErrors(vec![error]))?;
    scenario.number_steps();
    let scenario_dir = file.parent().unwrap_or_else(|| Path::new("."));
    let problems = validate(&scenario, scenario_dir, file, &text);
    if problems.is_empty() {
        Ok(scenario)
    } else {
        Err(ScenarioErrors(problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const MINIMAL: &str = "\
apiVersion: proctor/v1
kind: Scenario
name: demo
title: A demo
labDir: /root/demo
steps:
  - id: 1
    title: First
    checks:
      - id: out
        title: out.txt
        file:
          path: out.txt
          compare: exact
";

    fn write_scenario(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("scenario.yaml");
        let mut handle = std::fs::File::create(&file).expect("create");
        handle.write_all(text.as_bytes()).expect("write");
        (dir, file)
    }

    #[test]
    fn minimal_scenario_loads() {
        let (_dir, file) = write_scenario(MINIMAL);
        let scenario = load_scenario(&file).expect("valid scenario");
        assert_eq!(scenario.name, "demo");
        assert_eq!(scenario.steps[0].checks[0].points, 1.0);
        assert_eq!(
            scenario.limits.timeout.0,
            std::time::Duration::from_secs(30)
        );
    }

    const GPU_NODE: &str = "\
cluster:
  nodes:
    - name: gpu-0
      capacity:
        nvidia.com/gpu: 4
        memory: 80Gi
      allocatable:
        memory: 79Gi
";

    #[test]
    fn node_capacity_takes_numbers_and_quantities() {
        let (_dir, file) = write_scenario(&format!("{MINIMAL}{GPU_NODE}"));
        let scenario = load_scenario(&file).expect("valid scenario");
        let node = &scenario.cluster.nodes[0];
        assert_eq!(node.capacity["nvidia.com/gpu"].0, "4");
        assert_eq!(node.capacity["memory"].0, "80Gi");
        assert_eq!(node.allocatable["memory"].0, "79Gi");
    }

    #[test]
    fn a_capacity_that_is_not_a_quantity_is_located() {
        let text =
            format!("{MINIMAL}{GPU_NODE}").replace("nvidia.com/gpu: 4", "nvidia.com/gpu: lots");
        let (_dir, file) = write_scenario(&text);
        let errors = load_scenario(&file).expect_err("not a quantity");
        let message = errors.to_string();
        assert!(
            message.contains("\"lots\" is not a number or a quantity"),
            "got {message:?}"
        );
        // Line 19, column 25: the value `lots`.
        assert_eq!(errors.0[0].location, Some((19, 25)), "{message}");
    }

    #[test]
    fn unknown_key_names_file_line_column_and_key() {
        let text = MINIMAL.replace("compare: exact", "comapre: exact");
        let (_dir, file) = write_scenario(&text);
        let errors = load_scenario(&file).expect_err("unknown key must be rejected");
        let message = errors.to_string();
        // `comapre` sits on line 14, column 11 (1-based) of the document above.
        let expected_prefix = format!(
            "{}:14:11: steps[0].checks[0].file.comapre: unknown field `comapre`, expected one of `path`, `compare`",
            file.display()
        );
        assert!(
            message.starts_with(&expected_prefix),
            "got {message:?}, want prefix {expected_prefix:?}"
        );
        assert_eq!(errors.0[0].location, Some((14, 11)));
    }

    #[test]
    fn unknown_top_level_key_is_located() {
        let text = MINIMAL.replace("labDir: /root/demo", "labDir: /root/demo\nlab_dir: /root/x");
        let (_dir, file) = write_scenario(&text);
        let errors = load_scenario(&file).expect_err("unknown key must be rejected");
        assert_eq!(errors.0[0].location, Some((6, 1)));
        assert!(
            errors.0[0].message.contains("unknown field `lab_dir`"),
            "{}",
            errors
        );
    }

    #[test]
    fn wrong_type_is_located() {
        let text = MINIMAL.replace("  - id: 1", "  - id: one");
        let (_dir, file) = write_scenario(&text);
        let errors = load_scenario(&file).expect_err("string id must be rejected");
        let error = &errors.0[0];
        assert_eq!(error.path, "steps[0].id");
        assert_eq!(error.location.map(|l| l.0), Some(7));
    }

    #[test]
    fn bad_enum_value_lists_variants() {
        let text = MINIMAL.replace("compare: exact", "compare: fuzzy");
        let (_dir, file) = write_scenario(&text);
        let errors = load_scenario(&file).expect_err("unknown variant");
        let message = errors.to_string();
        assert!(message.contains("unknown variant `fuzzy`"), "{message}");
        assert!(message.contains("linesUnordered"), "{message}");
        assert!(message.contains(":14:"), "{message}");
    }

    #[test]
    fn missing_file_is_an_error_naming_it() {
        let errors = load_scenario(Path::new("/nonexistent/scenario.yaml")).expect_err("missing");
        assert!(errors
            .to_string()
            .starts_with("/nonexistent/scenario.yaml: cannot read scenario"));
    }
}
