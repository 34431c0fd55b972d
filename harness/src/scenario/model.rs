//! The top level of `scenario.yaml`: the lab, its cluster, limits, perturbations and steps.
//! Every struct denies unknown keys so a typo is an error with a line number, not a silent no-op.

use std::collections::BTreeMap;
use std::path::PathBuf;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::check::Check;
use super::units::{ByteSize, HumanDuration, ResourceQuantity};

pub const API_VERSION: &str = "proctor/v1";
pub const KIND: &str = "Scenario";

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Scenario {
    #[schemars(extend("const" = API_VERSION))]
    pub api_version: String,
    #[schemars(extend("const" = KIND))]
    pub kind: String,
    pub name: String,
    pub title: String,
    /// Absolute path the learner works in; run dirs are mapped there.
    pub lab_dir: PathBuf,
    #[serde(default)]
    pub cluster: ClusterSpec,
    #[serde(default)]
    pub starter: Vec<StarterFile>,
    /// Commands the lab's scripts need besides bash, coreutils and kubectl (`jq`): grading stops
    /// before it starts when one is missing, rather than charge its absence to the learner.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The clusters the lab is written for; every command refuses it on another, before
    /// anything runs. Unset: any. A lab whose lesson needs what only one runtime does (the
    /// embedded cluster's fault annotations, a real controller's timing) says so here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtimes: Option<Vec<Runtime>>,
    #[serde(default)]
    pub limits: LimitsSpec,
    /// Node templates the grader injects; kept in file order for stable reports.
    #[serde(default)]
    pub perturbations: IndexMap<String, Perturbation>,
    pub steps: Vec<Step>,
}

/// Where a lab's cluster comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Runtime {
    /// Proctor's own control plane (the default `--cluster embedded`).
    Embedded,
    /// Upstream's control plane with kwok's fake nodes (`--cluster kwokctl`).
    Kwokctl,
    /// Any cluster a grader names by `--kubeconfig`.
    Kubeconfig,
}

impl Runtime {
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Embedded => "embedded",
            Runtime::Kwokctl => "kwokctl",
            Runtime::Kubeconfig => "kubeconfig",
        }
    }

    /// How a command is pointed at this runtime.
    pub fn flag(self) -> &'static str {
        match self {
            Runtime::Embedded => "--cluster embedded (the default)",
            Runtime::Kwokctl => "--cluster kwokctl",
            Runtime::Kubeconfig => "--kubeconfig FILE",
        }
    }
}

impl Scenario {
    /// Why the lab must not run on `runtime`, if it declares `runtimes:` without it.
    pub fn refuses(&self, runtime: Runtime) -> Option<String> {
        let runtimes = self.runtimes.as_ref()?;
        if runtimes.contains(&runtime) {
            return None;
        }
        let names: Vec<&str> = runtimes.iter().map(|r| r.name()).collect();
        let flags: Vec<&str> = runtimes.iter().map(|r| r.flag()).collect();
        Some(format!(
            "{} is written for {} only (`runtimes: [{}]` in its scenario.yaml), not for {}: run \
             it with {}",
            self.name,
            names.join(" and "),
            names.join(", "),
            runtime.name(),
            flags.join(" or "),
        ))
    }
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClusterSpec {
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    /// Extra YAML applied at start, relative to the scenario dir.
    #[serde(default)]
    pub manifests: Vec<PathBuf>,
    /// Container logs the fake nodes serve (`kubectl logs`), on the embedded cluster and on
    /// kwokctl alike; the first entry that selects a pod and has its container decides.
    #[serde(default)]
    pub logs: Vec<PodLogsSpec>,
    /// Commands the fake nodes' containers have (`kubectl exec`), on the embedded cluster and on
    /// kwokctl alike; the first entry that selects a pod and has its container decides.
    #[serde(default)]
    pub exec: Vec<PodExecSpec>,
    /// What the fake nodes' pods answer on their ports (`kubectl port-forward`), on the embedded
    /// cluster and on kwokctl alike; the first entry that selects a pod and has its port decides.
    #[serde(default)]
    pub port_forward: Vec<PodPortForwardSpec>,
    /// What the fake nodes' containers use (`kubectl top`), on the embedded cluster and on
    /// kwokctl alike (where metrics-server is run to read it); the first entry that selects a
    /// pod and has its container decides. Declaring any serves the metrics API.
    #[serde(default)]
    pub usage: Vec<PodUsageSpec>,
}

/// One declaration of container logs, as kwok's `ClusterLogs` selects pods: by namespace and
/// exact pod name, then by container. Every line is stamped 2025-01-01T00:00:00Z, so a
/// `--timestamps` or `--since` read is the same on every run.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PodLogsSpec {
    /// The pods' namespaces; none means every namespace.
    #[serde(default)]
    pub namespaces: Vec<String>,
    /// Exact pod names; none means every pod of those namespaces (a Job's or a Deployment's pods
    /// have generated names, so select them by namespace and container).
    #[serde(default)]
    pub pods: Vec<String>,
    /// The containers; none means every container of the selected pods.
    #[serde(default)]
    pub containers: Vec<String>,
    /// What `kubectl logs` prints, line by line, on stdout.
    pub text: String,
    /// What `kubectl logs --previous` prints; without it `--previous` is an error.
    #[serde(default)]
    pub previous: Option<String>,
}

/// One declaration of what `kubectl exec` runs in a container, as kwok's `ClusterExec` selects
/// pods: by namespace and exact pod name, then by container. A declared command prints its text
/// whatever its arguments; any other command is a real one, run as the learner would run it (in
/// the sandbox on the embedded cluster; on kwokctl, by kwok on the host, as `nobody` when the
/// grader is root). An undeclared pod answers kwok's `no exec found ...`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PodExecSpec {
    /// The pods' namespaces; none means every namespace.
    #[serde(default)]
    pub namespaces: Vec<String>,
    /// Exact pod names; none means every pod of those namespaces.
    #[serde(default)]
    pub pods: Vec<String>,
    /// The containers; none means every container of the selected pods.
    #[serde(default)]
    pub containers: Vec<String>,
    /// Commands by name (`nvidia-smi`) and what each prints on stdout.
    #[serde(default)]
    pub commands: BTreeMap<String, String>,
    /// Variables the commands see.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// One declaration of what a pod's ports answer through `kubectl port-forward`, as kwok's
/// `ClusterPortForward` selects pods: by namespace and exact pod name, then by port. A connection
/// to a declared port reads `reply` at once (what a server there would send: an HTTP response
/// with its `Content-Length`, a banner) and ends when the client closes its side; what the
/// client sends is not read. A port nothing declares answers kwok's `no forward found ...`, and
/// kubectl's forward ends with `lost connection to pod`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PodPortForwardSpec {
    /// The pods' namespaces; none means every namespace.
    #[serde(default)]
    pub namespaces: Vec<String>,
    /// Exact pod names; none means every pod of those namespaces.
    #[serde(default)]
    pub pods: Vec<String>,
    /// The pod's ports (the remote side of `kubectl port-forward`); none means every port.
    #[serde(default)]
    pub ports: Vec<std::num::NonZeroU16>,
    /// What a connection reads.
    pub reply: String,
}

/// One declaration of what containers use, as kwok's `ClusterResourceUsage` selects pods: by
/// namespace and exact pod name, then by container. `kubectl top pod` shows a running pod once
/// every container of it has both CPU and memory; `kubectl top node` sums the pods on a node.
/// On kwokctl, metrics-server measures CPU as a rate between two scrapes 15 s apart, so it shows
/// a pod about 30 s after the pod starts, and the CPU within a millicore or so of the value.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PodUsageSpec {
    /// The pods' namespaces; none means every namespace.
    #[serde(default)]
    pub namespaces: Vec<String>,
    /// Exact pod names; none means every pod of those namespaces.
    #[serde(default)]
    pub pods: Vec<String>,
    /// The containers; none means every container of the selected pods.
    #[serde(default)]
    pub containers: Vec<String>,
    /// CPU in use, a quantity (`250m`, `1.5`).
    #[serde(default)]
    pub cpu: Option<String>,
    /// Memory in use, a quantity (`64Mi`, `1.5Gi`).
    #[serde(default)]
    pub memory: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NodeSpec {
    pub name: String,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    /// core/v1 Taint objects, passed through as written.
    #[serde(default)]
    pub taints: Vec<Value>,
    /// Cordoned from the start (`spec.unschedulable`, as `kubectl cordon` leaves it).
    #[serde(default)]
    pub unschedulable: bool,
    /// Capacity: cpu, memory, pods, extended resources (`nvidia.com/gpu: 4`); each given one
    /// replaces the fake node's default, the others stay.
    #[serde(default)]
    pub capacity: BTreeMap<String, ResourceQuantity>,
    /// Allocatable; a resource not given here follows capacity.
    #[serde(default)]
    pub allocatable: BTreeMap<String, ResourceQuantity>,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StarterFile {
    /// Relative to the scenario dir.
    pub from: PathBuf,
    /// Relative to the learner's lab dir.
    pub to: PathBuf,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LimitsSpec {
    #[serde(default = "default_timeout")]
    pub timeout: HumanDuration,
    #[serde(default = "default_output")]
    pub output: ByteSize,
    #[serde(default = "default_processes")]
    pub processes: u64,
    #[serde(default = "default_memory")]
    pub memory: ByteSize,
    /// The whole grade of one submission (the reference run aside): checks not started by then
    /// are reported as not graded, so one slow submission cannot hold up a class.
    #[serde(default = "default_grade_budget")]
    pub grade: HumanDuration,
}

fn default_timeout() -> HumanDuration {
    HumanDuration::from_secs(30)
}
fn default_output() -> ByteSize {
    ByteSize(1 << 20)
}
fn default_processes() -> u64 {
    256
}
fn default_memory() -> ByteSize {
    ByteSize(1 << 30)
}
fn default_grade_budget() -> HumanDuration {
    HumanDuration::from_secs(600)
}

impl Default for LimitsSpec {
    fn default() -> Self {
        LimitsSpec {
            timeout: default_timeout(),
            output: default_output(),
            processes: default_processes(),
            memory: default_memory(),
            grade: default_grade_budget(),
        }
    }
}

/// A node template injected before re-running scripts; the final name is `namePrefix` plus a
/// random suffix so a script cannot know it in advance.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Perturbation {
    pub name_prefix: String,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    /// false = no `kwok.x-k8s.io/node: fake` annotation, so no fake kubelet: pods stay Pending.
    #[serde(default = "yes")]
    pub managed: bool,
    #[serde(default)]
    pub taints: Vec<Value>,
    /// Injected cordoned (`spec.unschedulable`).
    #[serde(default)]
    pub unschedulable: bool,
    /// Capacity: cpu, memory, pods, extended resources (`nvidia.com/gpu: 4`); each given one
    /// replaces the fake node's default, the others stay.
    #[serde(default)]
    pub capacity: BTreeMap<String, ResourceQuantity>,
    /// Allocatable; a resource not given here follows capacity.
    #[serde(default)]
    pub allocatable: BTreeMap<String, ResourceQuantity>,
    /// core/v1 Pod manifests bound to the injected node (`spec.nodeName`), each named
    /// `<metadata.name>-<node name>`, in `default` unless they say; removed with the node.
    #[serde(default)]
    pub pods: Vec<Value>,
}

fn yes() -> bool {
    true
}

/// A step id written in the file: 1 or more (0 is what "left out" becomes before numbering).
fn positive<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    match u32::deserialize(deserializer)? {
        0 => Err(serde::de::Error::custom("step ids start at 1")),
        id => Ok(id),
    }
}

/// The schema of a field whose serde default is only a placeholder (a step's id before
/// numbering) states no default.
fn no_default(schema: &mut schemars::Schema) {
    if let Some(object) = schema.as_object_mut() {
        object.remove("default");
    }
}

impl Scenario {
    /// Gives every step without an id its position (from 1).
    pub fn number_steps(&mut self) {
        for (index, step) in self.steps.iter_mut().enumerate() {
            if step.id == 0 {
                step.id = index as u32 + 1;
            }
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Step {
    /// The step's number in reports and `--step`; its position (from 1) when left out.
    #[serde(default, deserialize_with = "positive")]
    #[schemars(range(min = 1), transform = no_default)]
    pub id: u32,
    pub title: String,
    /// Bash run in the reference lab dir to reach this step's state.
    #[serde(default)]
    pub reference: String,
    /// Files of the learner's dir this step owns, in their final form.
    #[serde(default)]
    pub artifacts: Vec<PathBuf>,
    /// Bash run (grade mode only) in a copy of the learner's dir on the state before this step.
    #[serde(default)]
    pub replay: Option<String>,
    #[serde(default)]
    pub checks: Vec<Check>,
}
