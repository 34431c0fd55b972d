//! Semantic checks that serde cannot express: step numbering, unique check ids, exactly one
//! kind per check, references to perturbations and files that exist.

use std::collections::BTreeSet;
use std::path::{Component, Path};

use super::check::{Check, CheckKind, FileCompare};
use super::error::ScenarioError;
use super::locate::locate_item;
use super::model::{Scenario, API_VERSION, KIND};

/// Every problem in the scenario, in file order. Empty means valid.
pub fn validate(
    scenario: &Scenario,
    scenario_dir: &Path,
    file: &Path,
    text: &str,
) -> Vec<ScenarioError> {
    let mut problems = Problems {
        file,
        list: Vec::new(),
    };
    if scenario.api_version != API_VERSION {
        problems.add(
            "apiVersion",
            None,
            format!("must be {API_VERSION}, got {:?}", scenario.api_version),
        );
    }
    if scenario.kind != KIND {
        problems.add(
            "kind",
            None,
            format!("must be {KIND}, got {:?}", scenario.kind),
        );
    }
    if scenario.name.trim().is_empty() {
        problems.add("name", None, "must not be empty".to_string());
    }
    if !scenario.lab_dir.is_absolute() {
        problems.add(
            "labDir",
            None,
            format!(
                "must be an absolute path, got {}",
                scenario.lab_dir.display()
            ),
        );
    }
    if let Some(runtimes) = &scenario.runtimes {
        let mut named = BTreeSet::new();
        if runtimes.iter().any(|runtime| !named.insert(runtime.name())) {
            problems.add("runtimes", None, "names a runtime twice".to_string());
        }
        if runtimes.is_empty() {
            let message = "is empty: the lab would run nowhere (leave it out to run anywhere)";
            problems.add("runtimes", None, message.to_string());
        }
    }
    validate_cluster(scenario, scenario_dir, &mut problems);
    validate_limits(scenario, &mut problems);
    for (name, perturbation) in &scenario.perturbations {
        for (index, pod) in perturbation.pods.iter().enumerate() {
            let path = format!("perturbations.{name}.pods[{index}]");
            if let Some(problem) = pod_problem(pod) {
                problems.add(&path, None, problem);
            }
        }
        if !is_dns_prefix(&perturbation.name_prefix) {
            problems.add(
                &format!("perturbations.{name}.namePrefix"),
                None,
                format!(
                    "{:?} must be lowercase letters, digits and '-' so that a node name can be made from it",
                    perturbation.name_prefix
                ),
            );
        }
    }
    if scenario.steps.is_empty() {
        problems.add(
            "steps",
            None,
            "a scenario needs at least one step".to_string(),
        );
    }
    let mut ids = BTreeSet::new();
    for (index, step) in scenario.steps.iter().enumerate() {
        let path = format!("steps[{index}]");
        if !ids.insert(step.id) {
            problems.add(
                &format!("{path}.id"),
                locate_item(text, index, None),
                format!(
                    "step id {} is taken by an earlier step (a step without an id is numbered by \
                     its position)",
                    step.id
                ),
            );
        }
        for (k, artifact) in step.artifacts.iter().enumerate() {
            if !is_inside(artifact) {
                problems.add(
                    &format!("{path}.artifacts[{k}]"),
                    locate_item(text, index, None),
                    format!(
                        "{} must be a relative path inside the lab dir",
                        artifact.display()
                    ),
                );
            }
        }
        let mut seen = BTreeSet::new();
        for (check_index, check) in step.checks.iter().enumerate() {
            let check_path = format!("{path}.checks[{check_index}]");
            let location = locate_item(text, index, Some(check_index));
            if !seen.insert(check.id.as_str()) {
                problems.add(
                    &format!("{check_path}.id"),
                    location,
                    format!("duplicate check id {:?} in step {}", check.id, step.id),
                );
            }
            validate_check(scenario, check, &check_path, location, &mut problems);
        }
    }
    problems.list
}

struct Problems<'a> {
    file: &'a Path,
    list: Vec<ScenarioError>,
}

impl Problems<'_> {
    fn add(&mut self, path: &str, location: Option<(usize, usize)>, message: String) {
        self.list
            .push(ScenarioError::new(self.file, path, message).at(location));
    }
}

fn validate_cluster(scenario: &Scenario, scenario_dir: &Path, problems: &mut Problems) {
    let mut names = BTreeSet::new();
    for (index, node) in scenario.cluster.nodes.iter().enumerate() {
        if !is_dns_prefix(&node.name) || node.name.is_empty() {
            problems.add(
                &format!("cluster.nodes[{index}].name"),
                None,
                format!("{:?} is not a valid node name", node.name),
            );
        }
        if !names.insert(node.name.as_str()) {
            problems.add(
                &format!("cluster.nodes[{index}].name"),
                None,
                format!("duplicate node {:?}", node.name),
            );
        }
    }
    for (index, manifest) in scenario.cluster.manifests.iter().enumerate() {
        if !scenario_dir.join(manifest).is_file() {
            problems.add(
                &format!("cluster.manifests[{index}]"),
                None,
                format!(
                    "file {} does not exist in {}",
                    manifest.display(),
                    scenario_dir.display()
                ),
            );
        }
    }
    for (index, exec) in scenario.cluster.exec.iter().enumerate() {
        for name in exec.commands.keys() {
            if !crate::cluster::pod_exec::is_command_name(name) {
                problems.add(
                    &format!("cluster.exec[{index}].commands.{name}"),
                    None,
                    format!(
                        "{name:?} is not a command name: letters, digits, `.`, `_`, `+` and `-`, \
                         not starting with `.` or `-`"
                    ),
                );
            }
        }
        for name in exec.env.keys() {
            if name.is_empty() || name.contains('=') || name.contains('\0') {
                problems.add(
                    &format!("cluster.exec[{index}].env.{name}"),
                    None,
                    format!("{name:?} is not a variable name"),
                );
            }
        }
    }
    for (index, usage) in scenario.cluster.usage.iter().enumerate() {
        let declared = [("cpu", &usage.cpu), ("memory", &usage.memory)];
        for (resource, value) in declared {
            let Some(value) = value else { continue };
            match graders::quantity::Amount::parse(value) {
                Ok(amount) if amount.is_negative() => problems.add(
                    &format!("cluster.usage[{index}].{resource}"),
                    None,
                    format!("{value:?} is negative: a usage is zero or more"),
                ),
                Ok(_) => {}
                Err(e) => problems.add(
                    &format!("cluster.usage[{index}].{resource}"),
                    None,
                    format!("{value:?} is not a quantity: {e}"),
                ),
            }
        }
        if usage.cpu.is_none() && usage.memory.is_none() {
            problems.add(
                &format!("cluster.usage[{index}]"),
                None,
                "declares neither cpu nor memory".to_string(),
            );
        }
    }
    for (index, starter) in scenario.starter.iter().enumerate() {
        if !scenario_dir.join(&starter.from).is_file() {
            problems.add(
                &format!("starter[{index}].from"),
                None,
                format!(
                    "file {} does not exist in {}",
                    starter.from.display(),
                    scenario_dir.display()
                ),
            );
        }
        if !is_inside(&starter.to) {
            problems.add(
                &format!("starter[{index}].to"),
                None,
                format!(
                    "{} must be a relative path inside the lab dir",
                    starter.to.display()
                ),
            );
        }
    }
}

fn validate_limits(scenario: &Scenario, problems: &mut Problems) {
    let limits = &scenario.limits;
    if limits.timeout.0.is_zero() {
        problems.add(
            "limits.timeout",
            None,
            "must be greater than zero".to_string(),
        );
    }
    if limits.processes == 0 {
        problems.add(
            "limits.processes",
            None,
            "must be greater than zero".to_string(),
        );
    }
    if limits.output.0 == 0 {
        problems.add(
            "limits.output",
            None,
            "must be greater than zero".to_string(),
        );
    }
    if limits.memory.0 == 0 {
        problems.add(
            "limits.memory",
            None,
            "must be greater than zero".to_string(),
        );
    }
    if limits.grade.0.is_zero() {
        problems.add(
            "limits.grade",
            None,
            "must be greater than zero".to_string(),
        );
    }
}

fn validate_check(
    scenario: &Scenario,
    check: &Check,
    path: &str,
    location: Option<(usize, usize)>,
    problems: &mut Problems,
) {
    if check.id.trim().is_empty() {
        problems.add(
            &format!("{path}.id"),
            location,
            "must not be empty".to_string(),
        );
    }
    if !check.points.is_finite() || check.points < 0.0 {
        problems.add(
            &format!("{path}.points"),
            location,
            format!("must be a non-negative number, got {}", check.points),
        );
    }
    if check.modes.is_empty() {
        problems.add(
            &format!("{path}.modes"),
            location,
            "must list at least one of check, grade".to_string(),
        );
    }
    for (index, hint) in check.hints.iter().enumerate() {
        if let Err(error) = regex::Regex::new(&hint.pattern) {
            problems.add(
                &format!("{path}.hints[{index}].match"),
                location,
                format!("invalid regex: {error}"),
            );
        }
    }
    let kinds = check.kinds();
    match kinds.as_slice() {
        [] => problems.add(
            path,
            location,
            "a check needs exactly one of file, script, object, manifest; found none".to_string(),
        ),
        [kind] => validate_kind(scenario, *kind, path, location, problems),
        several => problems.add(
            path,
            location,
            format!(
                "a check needs exactly one of file, script, object, manifest; found {}",
                several
                    .iter()
                    .map(CheckKind::name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
    }
}

fn validate_kind(
    scenario: &Scenario,
    kind: CheckKind<'_>,
    path: &str,
    location: Option<(usize, usize)>,
    problems: &mut Problems,
) {
    match kind {
        CheckKind::File(file) => {
            check_relative(&file.path, &format!("{path}.file.path"), location, problems);
            let at = format!("{path}.file.expected");
            match (file.compare, &file.expected) {
                (FileCompare::Literal | FileCompare::Pattern, None) => problems.add(
                    &at,
                    location,
                    format!(
                        "compare: {} needs `expected`",
                        if file.compare == FileCompare::Literal { "literal" } else { "pattern" }
                    ),
                ),
                (FileCompare::Pattern, Some(patterns)) => {
                    for (number, line) in patterns.lines().enumerate() {
                        if let Err(error) = graders::text::line_pattern(line) {
                            problems.add(
                                &at,
                                location,
                                format!("line {} is not a regular expression: {error}", number + 1),
                            );
                        }
                    }
                }
                (FileCompare::Literal | FileCompare::Contains, Some(_)) | (_, None) => {}
                (_, Some(_)) => problems.add(
                    &at,
                    location,
                    "`expected` is only used with compare: literal, contains and pattern (the others compare with the reference file)".to_string(),
                ),
            }
        }
        CheckKind::Script(script) => {
            check_relative(
                &script.path,
                &format!("{path}.script.path"),
                location,
                problems,
            );
            for (index, name) in script.inject.iter().enumerate() {
                if !scenario.perturbations.contains_key(name) {
                    let known: Vec<&str> =
                        scenario.perturbations.keys().map(String::as_str).collect();
                    problems.add(
                        &format!("{path}.script.inject[{index}]"),
                        location,
                        format!(
                            "unknown perturbation {name:?} (defined: {})",
                            if known.is_empty() {
                                "none".to_string()
                            } else {
                                known.join(", ")
                            }
                        ),
                    );
                }
            }
            if script.compare.is_empty() {
                problems.add(
                    &format!("{path}.script.compare"),
                    location,
                    "must list at least one of stdout, stderr, exitCode".to_string(),
                );
            }
        }
        CheckKind::Object(object) => {
            let object_path = format!("{path}.object");
            if object.resource.trim().is_empty() {
                problems.add(
                    &format!("{object_path}.resource"),
                    location,
                    "must not be empty".to_string(),
                );
            }
            if object.name.is_some()
                && (object.selector.is_some() || object.field_selector.is_some())
            {
                problems.add(
                    &object_path,
                    location,
                    "use either name or selector/fieldSelector, not both".to_string(),
                );
            }
            if object.absent && (object.expect.is_some() || object.count.is_some()) {
                problems.add(
                    &object_path,
                    location,
                    "absent: true cannot be combined with expect or count".to_string(),
                );
            }
            if !object.absent
                && object.expect.is_none()
                && object.count.is_none()
                && object.name.is_none()
            {
                problems.add(
                    &object_path,
                    location,
                    "needs expect, count, a name or absent: true to assert anything".to_string(),
                );
            }
            check_expect(
                object.expect.as_ref(),
                &format!("{object_path}.expect"),
                location,
                problems,
            );
            if object.stable == Some(0) {
                problems.add(
                    &format!("{object_path}.stable"),
                    location,
                    "must be at least 1".to_string(),
                );
            }
        }
        CheckKind::Manifest(manifest) => {
            check_relative(
                &manifest.path,
                &format!("{path}.manifest.path"),
                location,
                problems,
            );
            if manifest.objects.is_empty() {
                problems.add(
                    &format!("{path}.manifest.objects"),
                    location,
                    "list the objects the manifest must create".to_string(),
                );
            }
            for (index, object) in manifest.objects.iter().enumerate() {
                check_expect(
                    object.expect.as_ref(),
                    &format!("{path}.manifest.objects[{index}].expect"),
                    location,
                    problems,
                );
            }
        }
    }
}

/// An `expect` tree must be one the matcher can read: known operators, valid operands.
fn check_expect(
    expect: Option<&serde_json::Value>,
    path: &str,
    location: Option<(usize, usize)>,
    problems: &mut Problems,
) {
    if let Some(Err(problem)) = expect.map(graders::partial::validate) {
        problems.add(path, location, problem);
    }
}

fn check_relative(
    file: &Path,
    path: &str,
    location: Option<(usize, usize)>,
    problems: &mut Problems,
) {
    if !is_inside(file) {
        problems.add(
            path,
            location,
            format!(
                "{} must be a relative path inside the lab dir",
                file.display()
            ),
        );
    }
}

/// A relative path that cannot climb out of the directory it is joined to.
pub fn is_inside(path: &Path) -> bool {
    !path.as_os_str().is_empty()
        && path
            .components()
            .all(|component| matches!(component, Component::Normal(_) | Component::CurDir))
}

fn is_dns_prefix(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
        && !text.starts_with('-')
}

/// What keeps a perturbation's pod manifest from being created on its node.
fn pod_problem(pod: &serde_json::Value) -> Option<String> {
    if !pod.is_object() {
        return Some("must be a Pod manifest (a mapping)".to_string());
    }
    if pod.get("kind").is_some_and(|kind| kind != "Pod") {
        return Some(format!("must be a Pod, not {}", pod["kind"]));
    }
    if pod["metadata"]["name"].as_str().is_none_or(str::is_empty) {
        return Some("needs metadata.name (the node's name is appended)".to_string());
    }
    if pod["spec"]["containers"]
        .as_array()
        .is_none_or(Vec::is_empty)
    {
        return Some("needs spec.containers".to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::load::parse_yaml;
    use super::*;

    const BASE: &str = "\
apiVersion: proctor/v1
kind: Scenario
name: demo
title: Demo
labDir: /root/demo
perturbations:
  extra:
    namePrefix: gpu-node-
steps:
  - id: 1
    title: One
    checks:
      - id: a
        title: A
        file: {path: out/a.txt}
      - id: a
        title: again
        file: {path: out/b.txt}
  - id: 3
    title: Three
    checks:
      - id: s
        title: script
        script: {path: x.sh, inject: [extra, missing]}
      - id: both
        title: two kinds
        file: {path: f}
        object: {resource: nodes, name: n}
      - id: none
        title: no kind
      - id: lit
        title: literal without expected
        file: {path: ../escape, compare: literal}
      - id: typo
        title: an operator misspelt
        object: {resource: deployments, name: d, expect: {spec: {replicas: {$gtee: 3}}}}
      - id: pat
        title: a pattern that is no regular expression
        file: {path: out/p.txt, compare: pattern, expected: \"ok\\n(unclosed\"}
      - id: nopat
        title: a pattern without expected
        file: {path: out/q.txt, compare: pattern}
  - title: Numbered by its position
cluster:
  usage:
    - cpu: 250x
      memory: -1Mi
    - namespaces: [shop]
";

    fn problems() -> Vec<ScenarioError> {
        let file = Path::new("scenario.yaml");
        let mut scenario: Scenario = parse_yaml(BASE, file).expect("parses");
        scenario.number_steps();
        validate(&scenario, Path::new("."), file, BASE)
    }

    fn find<'a>(problems: &'a [ScenarioError], needle: &str) -> &'a ScenarioError {
        problems
            .iter()
            .find(|problem| problem.to_string().contains(needle))
            .unwrap_or_else(|| panic!("no problem mentions {needle:?}: {problems:#?}"))
    }

    #[test]
    fn step_ids_are_unique_and_default_to_the_position() {
        let problems = problems();
        let problem = find(&problems, "step id 3 is taken by an earlier step");
        assert_eq!(problem.path, "steps[2].id");
        assert_eq!(problem.location, Some((43, 3)));
        assert!(
            !problems.iter().any(|p| p.path == "steps[1].id"),
            "{problems:#?}"
        );
    }

    #[test]
    fn duplicate_check_ids_are_located() {
        let problems = problems();
        let problem = find(&problems, "duplicate check id \"a\" in step 1");
        assert_eq!(problem.location, Some((16, 7)));
    }

    #[test]
    fn declared_usage_is_a_quantity_of_something() {
        let problems = problems();
        let cpu = find(&problems, "\"250x\" is not a quantity");
        assert_eq!(cpu.path, "cluster.usage[0].cpu");
        find(&problems, "\"-1Mi\" is negative");
        let empty = find(&problems, "declares neither cpu nor memory");
        assert_eq!(empty.path, "cluster.usage[1]");
    }

    #[test]
    fn exactly_one_kind() {
        let problems = problems();
        find(&problems, "found file, object");
        find(&problems, "found none");
    }

    #[test]
    fn references_must_exist() {
        let problems = problems();
        let problem = find(
            &problems,
            "unknown perturbation \"missing\" (defined: extra)",
        );
        assert_eq!(problem.path, "steps[1].checks[0].script.inject[1]");
    }

    #[test]
    fn literal_needs_expected_and_paths_stay_inside() {
        let problems = problems();
        find(&problems, "compare: literal needs `expected`");
        find(
            &problems,
            "../escape must be a relative path inside the lab dir",
        );
    }

    #[test]
    fn patterns_are_checked_on_load() {
        let problems = problems();
        let problem = find(&problems, "line 2 is not a regular expression");
        assert_eq!(problem.path, "steps[1].checks[5].file.expected");
        find(&problems, "compare: pattern needs `expected`");
        assert!(
            !problems
                .iter()
                .any(|p| p.to_string().contains("line 1 is not")),
            "{problems:#?}"
        );
    }

    #[test]
    fn expectations_are_checked_on_load() {
        let problems = problems();
        let problem = find(
            &problems,
            "spec.replicas: unknown operator $gtee (known: $exists",
        );
        assert_eq!(problem.path, "steps[1].checks[4].object.expect");
    }

    #[test]
    fn relative_paths() {
        assert!(is_inside(Path::new("out/tags.txt")));
        assert!(!is_inside(Path::new("/etc/passwd")));
        assert!(!is_inside(Path::new("a/../../b")));
        assert!(!is_inside(Path::new("")));
    }

    #[test]
    fn perturbation_pods_need_a_name_and_containers() {
        let text = BASE.replace(
            "    namePrefix: gpu-node-\n",
            "    namePrefix: gpu-node-\n    pods:\n      - metadata: {name: busy}\n        spec: {containers: [{name: c, image: x}]}\n      - metadata: {name: nameless-spec}\n",
        );
        let file = Path::new("scenario.yaml");
        let mut scenario: Scenario = parse_yaml(&text, file).expect("parses");
        scenario.number_steps();
        let problems = validate(&scenario, Path::new("."), file, &text);
        let problem = find(&problems, "needs spec.containers");
        assert_eq!(problem.path, "perturbations.extra.pods[1]");
        assert!(!problems
            .iter()
            .any(|p| p.path == "perturbations.extra.pods[0]"));
    }
}
