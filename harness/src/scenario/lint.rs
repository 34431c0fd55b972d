//! `proctor lint`: what loading a scenario cannot know by itself. Every resource an object check
//! names and every kind a manifest check expects must be served by the cluster (a typo like
//! `deploymnets` would otherwise fail every learner at grading time); every file a check reads
//! must be one the learner is asked for by then (an artifact of the step or an earlier one, or a
//! starter file); every `$SCENARIO_DIR/...` file a reference step uses must exist. For a real
//! control plane (`--cluster kwokctl`), the fault annotations only the embedded cluster acts on
//! are named where the lab uses them (see [`embedded_only`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::check::{Check, CheckKind};
use super::error::ScenarioError;
use super::expect::Expectation;
use super::lab::{BundledSubmission, Lab};
use super::locate::locate_item;

/// One row of `kubectl api-resources`: how kubectl lets a resource be named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedResource {
    /// The plural name (`deployments`).
    pub name: String,
    pub short_names: Vec<String>,
    /// The API group, empty for the core group.
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl ServedResource {
    /// Whether `text` names this resource as `kubectl get` accepts it: plural, singular (the kind
    /// in lower case), kind or short name, each optionally qualified by the group
    /// (`deployments.apps`); kinds compare without case, as kubectl's RESTMapper does.
    fn is_named_by(&self, text: &str) -> bool {
        let text = text.to_ascii_lowercase();
        let (bare, group) = match text.split_once('.') {
            Some((bare, group)) => (bare, Some(group)),
            None => (text.as_str(), None),
        };
        // `deployments.apps`, or with the version: `deployments.v1.apps`.
        let qualified = |group: &str| {
            group == self.group || group == format!("{}.{}", self.version, self.group)
        };
        if group.is_some_and(|group| !qualified(group)) {
            return false;
        }
        bare == self.name
            || bare == self.kind.to_ascii_lowercase()
            || self.short_names.iter().any(|short| short == bare)
    }
}

/// Parses `kubectl api-resources --no-headers` (NAME [SHORTNAMES] APIVERSION NAMESPACED KIND).
pub fn parse_api_resources(text: &str) -> Vec<ServedResource> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (name, short_names, api_version, kind) = match fields.as_slice() {
                [name, short, version, _, kind] => {
                    (name, short.split(',').collect(), version, kind)
                }
                [name, version, _, kind] => (name, Vec::new(), version, kind),
                _ => return None,
            };
            let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
            Some(ServedResource {
                name: name.to_string(),
                short_names: short_names.into_iter().map(str::to_string).collect(),
                group: group.to_string(),
                version: version.to_string(),
                kind: kind.to_string(),
            })
        })
        .collect()
}

/// The problems `lint` finds in `lab`, whose scenario file reads `text`.
pub fn lint(lab: &Lab, text: &str, served: &[ServedResource]) -> Vec<ScenarioError> {
    let file = lab.dir.join("scenario.yaml");
    let scenario = &lab.scenario;
    let mut problems = Vec::new();
    let mut given: BTreeSet<PathBuf> = scenario.starter.iter().map(|s| plain(&s.to)).collect();
    for (index, step) in scenario.steps.iter().enumerate() {
        given.extend(step.artifacts.iter().map(|artifact| plain(artifact)));
        for reader in early_exiting_readers(&step.reference) {
            problems.push(
                ScenarioError::new(
                    &file,
                    format!("steps[{index}].reference"),
                    format!(
                        "pipes into `{reader}`, which can exit before the command it reads has \
                         finished writing; under the reference's pipefail the step then fails \
                         at random (exit 141, SIGPIPE), more often on a loaded machine. Read \
                         the whole output instead: `sed -n 1p`, `awk 'NR == 1'`, \
                         `grep ... >/dev/null`"
                    ),
                )
                .at(locate_item(text, index, None)),
            );
        }
        for used in scenario_files(&step.reference) {
            if !lab.dir.join(&used).exists() {
                problems.push(
                    ScenarioError::new(
                        &file,
                        format!("steps[{index}].reference"),
                        format!(
                            "uses $SCENARIO_DIR/{}, which does not exist",
                            used.display()
                        ),
                    )
                    .at(locate_item(text, index, None)),
                );
            }
        }
        for (k, check) in step.checks.iter().enumerate() {
            let at = locate_item(text, index, Some(k));
            for (field, message) in check_problems(check, step.id, &given, served) {
                let path = format!("steps[{index}].checks[{k}].{field}");
                problems.push(ScenarioError::new(&file, path, message).at(at));
            }
        }
    }
    // Composed submissions: a base that exists, deletions it has, no file the same as its.
    let bundled_root = lab.dir.join("submissions");
    for entry in std::fs::read_dir(&bundled_root)
        .into_iter()
        .flatten()
        .flatten()
    {
        let case = entry.path();
        if case.join("expect.yaml").is_file() {
            for message in super::compose::problems(&case, &bundled_root) {
                problems.push(ScenarioError::new(case.join("expect.yaml"), "", message));
            }
        }
    }
    match lab.bundled_submissions() {
        Ok(bundled) => problems.extend(
            missing_submissions(&bundled)
                .map(|message| ScenarioError::new(lab.dir.join("submissions"), "", message)),
        ),
        Err(error) => problems.push(ScenarioError::new(&file, "", format!("{error:#}"))),
    }
    problems
}

/// How many flawed submissions a lab bundles at least (scenarios/README.md).
const FLAWED_SUBMISSIONS: usize = 2;

/// What the bundled submissions lack that the authoring guide asks for: `perfect`, the reference
/// as a learner would hand it in (`score: full`), and flawed ones (`failingSteps`), without which
/// `selftest` shows neither that a right answer passes nor that a wrong one is caught.
fn missing_submissions(bundled: &[BundledSubmission]) -> Option<String> {
    let perfect = bundled
        .iter()
        .any(|s| s.name == "perfect" && s.expect == Expectation::FullScore);
    let flawed = bundled
        .iter()
        .filter(|s| matches!(s.expect, Expectation::FailingSteps(_)))
        .count();
    let mut wanted = Vec::new();
    if !perfect {
        wanted.push("perfect/ with an expect.yaml of `score: full`".to_string());
    }
    if flawed < FLAWED_SUBMISSIONS {
        wanted.push(format!(
            "{} more flawed submission(s) with `failingSteps: [...]` (has {flawed}; at least \
             {FLAWED_SUBMISSIONS})",
            FLAWED_SUBMISSIONS - flawed
        ));
    }
    (!wanted.is_empty()).then(|| {
        format!(
            "the lab bundles no proof that its checks pass a right answer and catch wrong ones; \
             add {}",
            wanted.join(" and ")
        )
    })
}

/// What is wrong with one check of step `step_id`, as (field, message): a path it reads that no
/// learner is asked for by then (`given`: the starter files and the artifacts so far), a resource
/// or kind the cluster does not serve.
fn check_problems(
    check: &Check,
    step_id: u32,
    given: &BTreeSet<PathBuf>,
    served: &[ServedResource],
) -> Vec<(String, String)> {
    let (kind, path) = match check.kind() {
        Some(CheckKind::File(spec)) => ("file", &spec.path),
        Some(CheckKind::Script(spec)) => ("script", &spec.path),
        Some(CheckKind::Manifest(spec)) => ("manifest", &spec.path),
        Some(CheckKind::Object(spec)) => {
            if served.iter().any(|r| r.is_named_by(&spec.resource)) {
                return Vec::new();
            }
            let names = served.iter().map(|r| r.name.as_str());
            let message = format!(
                "{:?} is not a resource the cluster serves{}",
                spec.resource,
                closest(&spec.resource, names)
            );
            return vec![("object.resource".to_string(), message)];
        }
        None => return Vec::new(),
    };
    let mut problems = Vec::new();
    // An artifact may be a directory of the files checks read.
    if !given
        .iter()
        .any(|artifact| plain(path).starts_with(artifact))
    {
        problems.push((
            format!("{kind}.path"),
            format!(
                "{} is not an artifact of step {step_id} or an earlier one, nor a starter file: no \
                 learner is asked for it",
                path.display()
            ),
        ));
    }
    if let Some(CheckKind::Manifest(spec)) = check.kind() {
        for (n, object) in spec.objects.iter().enumerate() {
            if !served.iter().any(|r| r.kind == object.kind) {
                let kinds = served.iter().map(|r| r.kind.as_str());
                problems.push((
                    format!("manifest.objects[{n}].kind"),
                    format!(
                        "{:?} is not a kind the cluster serves{}",
                        object.kind,
                        closest(&object.kind, kinds)
                    ),
                ));
            }
        }
    }
    problems
}

/// `path` without `.` components (`./drv-tag.sh` is `drv-tag.sh`).
fn plain(path: &Path) -> PathBuf {
    path.components()
        .filter(|component| !matches!(component, std::path::Component::CurDir))
        .collect()
}

/// ` (did you mean deployments?)` for the candidate closest to `text`, when one is close.
fn closest<'a>(text: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    let text = text.to_ascii_lowercase();
    candidates
        .map(|candidate| {
            (
                strsim::levenshtein(&text, &candidate.to_ascii_lowercase()),
                candidate,
            )
        })
        .filter(|(distance, _)| *distance <= 3)
        .min()
        .map(|(_, candidate)| format!(" (did you mean {candidate}?)"))
        .unwrap_or_default()
}

/// The readers a reference shell pipes into that may stop reading early (`head`, `grep -q`,
/// `grep -m N`): the writer then dies of SIGPIPE, which `pipefail` makes the pipeline's status,
/// depending on which of the two got the CPU first.
fn early_exiting_readers(shell: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in shell.lines() {
        // The stages after the first `|` of each pipeline (`||` is not a pipe).
        let stages = line.split("||").flat_map(|list| list.split('|').skip(1));
        for stage in stages {
            let words: Vec<&str> = stage.split_whitespace().collect();
            let early = match words.as_slice() {
                ["head", ..] => true,
                // `-q`, `-m N`, short clusters holding them (`-qv`, `-m1`), or the long forms.
                ["grep", options @ ..] => {
                    options.iter().take_while(|w| w.starts_with('-')).any(|w| {
                        match w.strip_prefix("--") {
                            Some(long) => {
                                matches!(long, "quiet" | "silent" | "max-count")
                                    || long.starts_with("max-count=")
                            }
                            None => w.contains(['q', 'm']),
                        }
                    })
                }
                _ => false,
            };
            if early {
                found.push(words.iter().take(2).copied().collect::<Vec<_>>().join(" "));
            }
        }
    }
    found
}

/// The scenario files a reference shell names literally (`"$SCENARIO_DIR/reference/x.yaml"`);
/// paths built from variables or globs are left alone.
fn scenario_files(shell: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for prefix in ["$SCENARIO_DIR/", "${SCENARIO_DIR}/"] {
        let mut rest = shell;
        while let Some(start) = rest.find(prefix) {
            rest = &rest[start + prefix.len()..];
            let end = rest
                .find(|c: char| c.is_whitespace() || "\"';|&)<>".contains(c))
                .unwrap_or(rest.len());
            let path = &rest[..end];
            if !path.is_empty() && !path.contains(['$', '*', '?', '[']) {
                files.push(Path::new(path).to_path_buf());
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESOURCES: &str = "\
nodes                               no           v1                                false        Node
pods                                po           v1                                true         Pod
daemonsets                          ds           apps/v1                           true         DaemonSet
deployments                         deploy       apps/v1                           true         Deployment
poddisruptionbudgets                pdb          policy/v1                         true         PodDisruptionBudget
leases                                           coordination.k8s.io/v1            true         Lease
";

    #[test]
    fn a_lab_must_bundle_a_perfect_and_two_flawed_submissions() {
        let case = |name: &str, expect: Expectation| {
            BundledSubmission::whole(name, PathBuf::from(name), expect)
        };
        let flawed = |name: &str| case(name, Expectation::FailingSteps(vec![1]));
        let full = case("perfect", Expectation::FullScore);
        assert_eq!(
            missing_submissions(&[full.clone(), flawed("a"), flawed("b")]),
            None
        );
        let missing = missing_submissions(&[flawed("a"), flawed("b")]).unwrap_or_default();
        assert!(
            missing.ends_with("add perfect/ with an expect.yaml of `score: full`"),
            "{missing}"
        );
        // A full score under another name is a second correct style, not `perfect`.
        let other = case("tidy", Expectation::FullScore);
        let missing = missing_submissions(&[other, flawed("a")]).unwrap_or_default();
        assert!(
            missing.contains("perfect/") && missing.contains("1 more flawed submission(s)"),
            "{missing}"
        );
        let missing = missing_submissions(&[full, flawed("a")]).unwrap_or_default();
        assert!(missing.ends_with("(has 1; at least 2)"), "{missing}");
    }

    #[test]
    fn resources_are_named_as_kubectl_names_them() {
        let served = parse_api_resources(RESOURCES);
        assert_eq!(served.len(), 6);
        assert_eq!(served[5].short_names, Vec::<String>::new());
        assert_eq!(served[5].group, "coordination.k8s.io");
        let named = |text: &str| served.iter().any(|r| r.is_named_by(text));
        for ok in [
            "nodes",
            "node",
            "no",
            "Node",
            "ds",
            "daemonsets.apps",
            "DaemonSet",
            "pdb",
            "leases.coordination.k8s.io",
            "deploy",
            "deployments.v1.apps",
        ] {
            assert!(named(ok), "{ok}");
        }
        for wrong in [
            "deploymnets",
            "daemonsets.batch",
            "deployments.v2.apps",
            "nodez",
            "",
        ] {
            assert!(!named(wrong), "{wrong}");
        }
        let names = || served.iter().map(|r| r.name.as_str());
        assert_eq!(
            closest("deploymnets", names()),
            " (did you mean deployments?)"
        );
        assert_eq!(closest("nodez", names()), " (did you mean nodes?)");
        assert_eq!(closest("configmaps", names()), "");
    }

    #[test]
    fn readers_that_stop_early_are_named() {
        let shell = "kubectl get pods --no-headers | head -1 | cut -d' ' -f1 > out/a.txt\n\
                     kubectl get nodes | grep -q gpu && echo yes\n\
                     kubectl get nodes | grep -m1 -e gpu\n\
                     kubectl get pods | sed -n 1p | awk '{print $1}'\n\
                     true || head -1 file\n\
                     kubectl get pods | grep -v Running | sort\n";
        assert_eq!(
            early_exiting_readers(shell),
            vec!["head -1", "grep -q", "grep -m1"]
        );
        assert!(early_exiting_readers("kubectl top pod | awk 'NR == 1 {print $1}'").is_empty());
    }

    #[test]
    fn reference_shells_name_their_scenario_files() {
        let shell = "install -m 0755 \"$SCENARIO_DIR/reference/drv-tag.sh\" drv-tag.sh\n\
                     kubectl apply -f ${SCENARIO_DIR}/reference/k8s/x.yaml;\n\
                     cp \"$SCENARIO_DIR/reference/$name\" .\n";
        assert_eq!(
            scenario_files(shell),
            vec![
                PathBuf::from("reference/drv-tag.sh"),
                PathBuf::from("reference/k8s/x.yaml")
            ]
        );
    }

    #[test]
    fn paths_compare_without_dot_components_and_under_directory_artifacts() {
        assert_eq!(
            plain(Path::new("./drv-tag.sh")),
            PathBuf::from("drv-tag.sh")
        );
        assert!(plain(Path::new("out/./tags.txt")).starts_with(plain(Path::new("./out"))));
    }
}

/// The fault annotations kwok's stages on a real control plane cannot realise: set on a node,
/// for every pod on it (`cluster::kwok_stages`: a pod's stage sees the pod, not its node). On a
/// pod (or a pod template) they mean the same on both runtimes.
pub const NODE_WIDE_FAULTS: [&str; 2] = ["proctor.dev/pod-fault-images", "proctor.dev/pod-fault"];

/// Where the lab (its scenario and the files beside it, bundled submissions aside) sets a
/// [`NODE_WIDE_FAULTS`] annotation on a node: in the scenario's nodes or perturbations, on a
/// `kind: Node` document, or by a shell line naming a node. Each is a problem for a real control
/// plane, where that node's pods would run.
pub fn embedded_only(lab: &Lab) -> Vec<ScenarioError> {
    let mut problems = Vec::new();
    let scenario_file = lab.dir.join("scenario.yaml");
    let scenario = &lab.scenario;
    let on_scenario_nodes = scenario
        .cluster
        .nodes
        .iter()
        .map(|node| &node.annotations)
        .chain(scenario.perturbations.values().map(|p| &p.annotations))
        .any(|annotations| {
            annotations
                .keys()
                .any(|key| NODE_WIDE_FAULTS.contains(&key.as_str()))
        });
    let mut files = Vec::new();
    if on_scenario_nodes {
        files.push(scenario_file.clone());
    }
    let mut dirs = vec![lab.dir.clone()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let extension = path.extension().and_then(|ext| ext.to_str());
            if kind.is_dir() && path != lab.dir.join("submissions") {
                dirs.push(path);
            } else if kind.is_file() && path != scenario_file {
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let on_a_node = match extension {
                    Some("yaml" | "yml") => yaml_sets_node_fault(&text),
                    Some("sh") => true,
                    _ => false,
                };
                if on_a_node {
                    files.push(path);
                }
            }
        }
    }
    files[usize::from(on_scenario_nodes)..].sort();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let shell = file.extension().is_some_and(|ext| ext == "sh");
        for (number, line) in text.lines().enumerate() {
            // The longer key first: pod-fault-images also holds pod-fault.
            let Some((key, column)) = NODE_WIDE_FAULTS
                .iter()
                .find_map(|key| line.find(key).map(|column| (*key, column)))
            else {
                continue;
            };
            if shell && !names_a_node(line) {
                continue;
            }
            let message = format!(
                "{key} on a node (for all its pods) is acted on by the embedded cluster only: on \
                 --cluster kwokctl kwok's stages see a pod, not its node, so the node's pods \
                 would run; set it on the pods (or their template) instead, or declare \
                 `runtimes: [embedded]`"
            );
            problems
                .push(ScenarioError::new(&file, "", message).at(Some((number + 1, column + 1))));
        }
    }
    problems
}

/// Whether a YAML file (any number of documents) holds a `kind: Node` whose annotations set a
/// [`NODE_WIDE_FAULTS`] key.
fn yaml_sets_node_fault(text: &str) -> bool {
    use serde::Deserialize;
    serde_yaml::Deserializer::from_str(text)
        .filter_map(|document| serde_json::Value::deserialize(document).ok())
        .any(|object| {
            object["kind"] == "Node"
                && object["metadata"]["annotations"]
                    .as_object()
                    .is_some_and(|annotations| {
                        NODE_WIDE_FAULTS
                            .iter()
                            .any(|key| annotations.contains_key(*key))
                    })
        })
}

/// Whether a shell line acts on a node (`kubectl annotate node …`, `nodes/…`, `no …`).
fn names_a_node(line: &str) -> bool {
    line.split(|c: char| c.is_whitespace() || c == '/')
        .any(|word| matches!(word, "node" | "nodes" | "no"))
}

#[cfg(all(test, feature = "embedded"))]
mod embedded_only_tests {
    use super::*;

    #[test]
    fn the_node_wide_faults_are_the_kubelets() {
        use kwok::controllers::kubelet::{FAULT, FAULT_IMAGES};
        assert_eq!(NODE_WIDE_FAULTS, [FAULT_IMAGES, FAULT]);
    }

    #[test]
    fn only_a_fault_set_on_a_node_for_its_pods_is_named_for_kwokctl() {
        let dir = tempfile::tempdir().expect("tmp");
        let lab_dir = dir.path().join("faulty");
        std::fs::create_dir_all(lab_dir.join("reference/k8s")).expect("mkdir");
        std::fs::create_dir_all(lab_dir.join("submissions/x")).expect("mkdir");
        // node-ready on a node, and every fault on a pod, mean the same on kwokctl.
        let scenario = "apiVersion: proctor/v1\nkind: Scenario\nname: faulty\ntitle: t\nlabDir: /root/faulty\ncluster:\n  nodes:\n    - name: n\n      annotations: {proctor.dev/node-ready: \"False\"}\nperturbations:\n  sick:\n    namePrefix: sick-\n    annotations: {proctor.dev/pod-fault: CrashLoopBackOff}\nsteps:\n  - title: one\n    checks:\n      - id: a\n        title: a\n        file: {path: out/a.txt}\n";
        std::fs::write(lab_dir.join("scenario.yaml"), scenario).expect("write");
        let write =
            |path: &str, text: &str| std::fs::write(lab_dir.join(path), text).expect("write");
        write(
            "reference/k8s/job.yaml",
            "kind: Job\nspec:\n  template:\n    metadata:\n      annotations:\n        proctor.dev/pod-fault: ErrImagePull\n        proctor.dev/pod-exit-code: \"3\"\n",
        );
        write(
            "reference/k8s/nodes.yaml",
            "kind: ConfigMap\n---\nkind: Node\nmetadata:\n  name: m\n  annotations:\n    proctor.dev/pod-fault-images: \"*dcgm*\"\n",
        );
        write(
            "reference/break.sh",
            "kubectl annotate pod p proctor.dev/pod-fault=CrashLoopBackOff\nkubectl annotate node n proctor.dev/pod-fault=ErrImagePull\n",
        );
        // A learner's file is theirs, not the lab's.
        std::fs::write(
            lab_dir.join("submissions/x/node.yaml"),
            "kind: Node\nmetadata:\n  annotations: {proctor.dev/pod-fault: CrashLoopBackOff}\n",
        )
        .expect("write");
        let lab = Lab::load(&lab_dir.join("scenario.yaml")).expect("lab");
        let found: Vec<String> = embedded_only(&lab)
            .iter()
            .map(ToString::to_string)
            .collect();
        let at: Vec<&str> = found
            .iter()
            .map(|problem| problem.split(": ").next().unwrap_or_default())
            .collect();
        let ends = |path: &str| at.iter().filter(|a| a.ends_with(path)).count();
        assert_eq!(found.len(), 3, "{found:#?}");
        assert_eq!(ends("scenario.yaml:13:19"), 1, "{found:#?}");
        assert_eq!(ends("break.sh:2:25"), 1, "{found:#?}");
        assert_eq!(ends("nodes.yaml:7:5"), 1, "{found:#?}");
        assert!(
            found[0].contains("proctor.dev/pod-fault on a node"),
            "{found:#?}"
        );
    }
}
