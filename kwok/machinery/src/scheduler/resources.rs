//! Resource requests and the NodeResourcesFit filter.
//!
//! Pod requests follow `resource.PodRequests` (component-helpers `resource/helpers.go`): the sum of
//! the regular containers, raised to the largest init container (restartable "sidecar" init
//! containers are added to everything that starts after them), plus `spec.overhead`. The filter is
//! `fitsRequest` in `k/k pkg/scheduler/framework/plugins/noderesources/fit.go`: the pod count is always
//! checked, each other resource only when the pod requests a non-zero amount of it.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Node, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::podresources;
use crate::quantity::{parse_text, Amount};

/// Requests counted for a container that requests no cpu when scoring (`DefaultMilliCPURequest`).
const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// Requests counted for a container that requests no memory when scoring (`DefaultMemoryRequest`).
const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

const CPU: &str = "cpu";
const MEMORY: &str = "memory";
const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
const PODS: &str = "pods";

type ResourceList = BTreeMap<String, Amount>;

/// `framework.Resource`: cpu in millicores, everything else in whole units.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resource {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    pub allowed_pods: i64,
    /// Extended, hugepages, prefixed-native and attachable-volume resources, sorted by name.
    pub scalars: BTreeMap<String, i64>,
}

/// `schedutil.IsScalarResourceName`: extended resources (a domain other than kubernetes.io),
/// prefixed native resources (`kubernetes.io/...`), `hugepages-*` and `attachable-volumes-*`.
fn is_scalar_resource(name: &str) -> bool {
    (name.contains('/') && !name.starts_with("requests."))
        || name.starts_with("hugepages-")
        || name.starts_with("attachable-volumes-")
}

impl Resource {
    /// `Resource.Add` of a whole resource list.
    fn add_list(&mut self, list: &ResourceList) {
        for (name, amount) in list {
            match name.as_str() {
                CPU => self.milli_cpu = self.milli_cpu.saturating_add(amount.milli_value()),
                MEMORY => self.memory = self.memory.saturating_add(amount.value()),
                PODS => self.allowed_pods = self.allowed_pods.saturating_add(amount.value()),
                EPHEMERAL_STORAGE => {
                    self.ephemeral_storage = self.ephemeral_storage.saturating_add(amount.value())
                }
                other if is_scalar_resource(other) => {
                    let slot = self.scalars.entry(other.to_string()).or_insert(0);
                    *slot = slot.saturating_add(amount.value());
                }
                _ => {}
            }
        }
    }

    fn from_list(list: &ResourceList) -> Self {
        let mut r = Resource::default();
        r.add_list(list);
        r
    }

    fn add(&mut self, other: &Resource) {
        self.milli_cpu = self.milli_cpu.saturating_add(other.milli_cpu);
        self.memory = self.memory.saturating_add(other.memory);
        self.ephemeral_storage = self
            .ephemeral_storage
            .saturating_add(other.ephemeral_storage);
        for (k, v) in &other.scalars {
            let slot = self.scalars.entry(k.clone()).or_insert(0);
            *slot = slot.saturating_add(*v);
        }
    }

    fn is_zero_request(&self) -> bool {
        self.milli_cpu == 0
            && self.memory == 0
            && self.ephemeral_storage == 0
            && self.scalars.is_empty()
    }
}

fn to_list(map: Option<&BTreeMap<String, Quantity>>) -> ResourceList {
    map.into_iter()
        .flatten()
        .map(|(k, q)| (k.clone(), parse_text(&q.0).unwrap_or(Amount::ZERO)))
        .collect()
}

impl crate::podresources::Sum for Amount {
    fn plus(&self, other: &Self) -> Self {
        self.saturating_add(*other)
    }

    fn exceeds(&self, other: &Self) -> bool {
        self > other
    }
}

/// A container's requests; with `defaults`, the cpu/memory a container leaves out are filled in
/// (`applyNonMissing`, used only for scoring).
fn container_requests(c: &Container, defaults: bool) -> ResourceList {
    let mut reqs = to_list(c.resources.as_ref().and_then(|r| r.requests.as_ref()));
    if defaults {
        reqs.entry(CPU.to_string())
            .or_insert_with(|| Amount::from_millis(DEFAULT_MILLI_CPU_REQUEST));
        reqs.entry(MEMORY.to_string())
            .or_insert_with(|| Amount::from_units(DEFAULT_MEMORY_REQUEST));
    }
    reqs
}

/// `resource.PodRequests`: the containers aggregated, overhead added.
fn pod_request_list(spec: &PodSpec, defaults: bool) -> ResourceList {
    let mut reqs = podresources::aggregate(spec, |c| container_requests(c, defaults));
    podresources::add_into(&mut reqs, &to_list(spec.overhead.as_ref()));
    reqs
}

fn spec_of(pod: &Pod) -> Option<&PodSpec> {
    pod.spec.as_ref()
}

/// What the filter compares against free capacity (`computePodResourceRequest`).
pub fn pod_requests(pod: &Pod) -> Resource {
    spec_of(pod)
        .map(|s| Resource::from_list(&pod_request_list(s, false)))
        .unwrap_or_default()
}

/// cpu (millicores) and memory (bytes) counted for scoring, with the per-container defaults.
pub fn pod_non_zero_requests(pod: &Pod) -> (i64, i64) {
    let Some(spec) = spec_of(pod) else {
        return (0, 0);
    };
    let list = pod_request_list(spec, true);
    let cpu = list.get(CPU).copied().unwrap_or_default().milli_value();
    let mem = list.get(MEMORY).copied().unwrap_or_default().value();
    (cpu, mem)
}

/// The resource view of one node (`NodeInfo.Allocatable`, `Requested`, `NonZeroRequested`, pod count).
#[derive(Debug, Clone, Default)]
pub struct NodeResources {
    pub allocatable: Resource,
    pub requested: Resource,
    pub non_zero_cpu: i64,
    pub non_zero_memory: i64,
    pub pod_count: usize,
}

impl NodeResources {
    pub fn new(node: &Node, pods: &[&Pod]) -> Self {
        let allocatable = Resource::from_list(&to_list(
            node.status.as_ref().and_then(|s| s.allocatable.as_ref()),
        ));
        let mut me = Self {
            allocatable,
            ..Default::default()
        };
        for p in pods {
            me.add_pod(p);
        }
        me
    }

    fn add_pod(&mut self, pod: &Pod) {
        self.requested.add(&pod_requests(pod));
        let (cpu, mem) = pod_non_zero_requests(pod);
        self.non_zero_cpu = self.non_zero_cpu.saturating_add(cpu);
        self.non_zero_memory = self.non_zero_memory.saturating_add(mem);
        self.pod_count += 1;
    }
}

/// `fitsRequest`: one reason per resource that does not fit, in the order pods, cpu, memory,
/// ephemeral-storage, then scalar resources (sorted by name here; Go iterates its map randomly).
pub fn insufficient_resources(request: &Resource, node: &NodeResources) -> Vec<String> {
    let mut reasons = Vec::new();
    let pods_after = i64::try_from(node.pod_count)
        .unwrap_or(i64::MAX)
        .saturating_add(1);
    if pods_after > node.allocatable.allowed_pods {
        reasons.push("Too many pods".to_string());
    }
    if request.is_zero_request() {
        return reasons;
    }
    let alloc = &node.allocatable;
    let used = &node.requested;
    if request.milli_cpu > 0 && request.milli_cpu > alloc.milli_cpu.saturating_sub(used.milli_cpu) {
        reasons.push("Insufficient cpu".to_string());
    }
    if request.memory > 0 && request.memory > alloc.memory.saturating_sub(used.memory) {
        reasons.push("Insufficient memory".to_string());
    }
    if request.ephemeral_storage > 0
        && request.ephemeral_storage
            > alloc
                .ephemeral_storage
                .saturating_sub(used.ephemeral_storage)
    {
        reasons.push("Insufficient ephemeral-storage".to_string());
    }
    for (name, want) in &request.scalars {
        if *want == 0 {
            continue;
        }
        let have = alloc.scalars.get(name).copied().unwrap_or(0);
        let taken = used.scalars.get(name).copied().unwrap_or(0);
        if *want > have.saturating_sub(taken) {
            reasons.push(format!("Insufficient {name}"));
        }
    }
    reasons
}

const MAX_NODE_SCORE: i64 = 100;

/// NodeResourcesFit's default score, `LeastAllocated` over cpu and memory with weight 1 each
/// (`least_allocated.go`), using the non-zero requests.
pub fn least_allocated_score(pod_non_zero: (i64, i64), node: &NodeResources) -> i64 {
    let pairs = [
        (
            node.non_zero_cpu.saturating_add(pod_non_zero.0),
            node.allocatable.milli_cpu,
        ),
        (
            node.non_zero_memory.saturating_add(pod_non_zero.1),
            node.allocatable.memory,
        ),
    ];
    let mut score = 0i64;
    let mut weights = 0i64;
    for (requested, capacity) in pairs {
        if capacity == 0 {
            continue;
        }
        let s = if requested > capacity {
            0
        } else {
            (capacity - requested).saturating_mul(MAX_NODE_SCORE) / capacity
        };
        score += s;
        weights += 1;
    }
    if weights == 0 {
        0
    } else {
        score / weights
    }
}

/// NodeResourcesBalancedAllocation over cpu and memory (`balanced_allocation.go`): 100 × (1 − std)
/// of the requested fractions, with the pod's real requests added to the node's.
pub fn balanced_allocation_score(pod: &Resource, node: &NodeResources) -> i64 {
    let pairs = [
        (
            node.requested.milli_cpu.saturating_add(pod.milli_cpu),
            node.allocatable.milli_cpu,
        ),
        (
            node.requested.memory.saturating_add(pod.memory),
            node.allocatable.memory,
        ),
    ];
    let fractions: Vec<f64> = pairs
        .iter()
        .filter(|(_, alloc)| *alloc != 0)
        .map(|(req, alloc)| (*req as f64 / *alloc as f64).min(1.0))
        .collect();
    let std = if fractions.len() == 2 {
        ((fractions[0] - fractions[1]) / 2.0).abs()
    } else {
        0.0
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{NodeStatus, ResourceRequirements};

    fn q(pairs: &[(&str, &str)]) -> BTreeMap<String, Quantity> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
            .collect()
    }

    fn container(requests: &[(&str, &str)], sidecar: bool) -> Container {
        Container {
            name: "c".into(),
            resources: Some(ResourceRequirements {
                requests: Some(q(requests)),
                ..Default::default()
            }),
            restart_policy: sidecar.then(|| "Always".to_string()),
            ..Default::default()
        }
    }

    fn pod(containers: Vec<Container>, init: Vec<Container>) -> Pod {
        Pod {
            spec: Some(PodSpec {
                containers,
                init_containers: Some(init),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn node(alloc: &[(&str, &str)]) -> Node {
        Node {
            status: Some(NodeStatus {
                allocatable: Some(q(alloc)),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn init_containers_raise_to_their_maximum() {
        // The worked example of computePodResourceRequest's doc comment: result CPU 3, memory 3G.
        let p = pod(
            vec![
                container(&[("cpu", "2"), ("memory", "1G")], false),
                container(&[("cpu", "1"), ("memory", "1G")], false),
            ],
            vec![
                container(&[("cpu", "2"), ("memory", "1G")], false),
                container(&[("cpu", "2"), ("memory", "3G")], false),
            ],
        );
        let r = pod_requests(&p);
        assert_eq!(r.milli_cpu, 3000);
        assert_eq!(r.memory, 3_000_000_000);
    }

    #[test]
    fn sidecars_add_to_later_init_containers_and_to_the_pod() {
        let p = pod(
            vec![container(&[("cpu", "1")], false)],
            vec![
                container(&[("cpu", "500m")], true),
                container(&[("cpu", "2")], false),
            ],
        );
        // containers 1 + sidecar 0.5 = 1.5; init max = 2 + 0.5 = 2.5
        assert_eq!(pod_requests(&p).milli_cpu, 2500);
    }

    #[test]
    fn overhead_is_added() {
        let mut p = pod(vec![container(&[("memory", "100Mi")], false)], vec![]);
        if let Some(s) = p.spec.as_mut() {
            s.overhead = Some(q(&[("memory", "20Mi")]));
        }
        assert_eq!(pod_requests(&p).memory, 120 * 1024 * 1024);
    }

    #[test]
    fn non_zero_requests_default_missing_cpu_and_memory() {
        let p = pod(
            vec![container(&[], false), container(&[("cpu", "0")], false)],
            vec![],
        );
        assert_eq!(pod_non_zero_requests(&p), (100, 2 * DEFAULT_MEMORY_REQUEST));
    }

    #[test]
    fn reasons_come_in_upstream_order() {
        let n = node(&[
            ("cpu", "1"),
            ("memory", "1Gi"),
            ("pods", "1"),
            ("ephemeral-storage", "1Gi"),
        ]);
        let existing = pod(vec![container(&[("cpu", "500m")], false)], vec![]);
        let nr = NodeResources::new(&n, &[&existing]);
        let p = pod(
            vec![container(
                &[
                    ("cpu", "600m"),
                    ("memory", "2Gi"),
                    ("ephemeral-storage", "2Gi"),
                    ("nvidia.com/gpu", "1"),
                    ("example.com/foo", "1"),
                ],
                false,
            )],
            vec![],
        );
        assert_eq!(
            insufficient_resources(&pod_requests(&p), &nr),
            vec![
                "Too many pods",
                "Insufficient cpu",
                "Insufficient memory",
                "Insufficient ephemeral-storage",
                "Insufficient example.com/foo",
                "Insufficient nvidia.com/gpu",
            ]
        );
    }

    #[test]
    fn pods_that_request_nothing_only_check_the_pod_count() {
        let n = node(&[("pods", "110")]);
        let nr = NodeResources::new(&n, &[]);
        let p = pod(vec![container(&[], false)], vec![]);
        assert!(insufficient_resources(&pod_requests(&p), &nr).is_empty());
        // A node without allocatable pods takes no pod at all.
        let bare = NodeResources::new(&node(&[]), &[]);
        assert_eq!(
            insufficient_resources(&pod_requests(&p), &bare),
            vec!["Too many pods"]
        );
    }

    #[test]
    fn exact_fit_is_allowed() {
        let n = node(&[("pods", "10"), ("nvidia.com/gpu", "2")]);
        let existing = pod(vec![container(&[("nvidia.com/gpu", "1")], false)], vec![]);
        let nr = NodeResources::new(&n, &[&existing]);
        let one = pod(vec![container(&[("nvidia.com/gpu", "1")], false)], vec![]);
        let two = pod(vec![container(&[("nvidia.com/gpu", "2")], false)], vec![]);
        assert!(insufficient_resources(&pod_requests(&one), &nr).is_empty());
        assert_eq!(
            insufficient_resources(&pod_requests(&two), &nr),
            vec!["Insufficient nvidia.com/gpu"]
        );
    }

    #[test]
    fn least_allocated_prefers_emptier_nodes() {
        let n = node(&[("cpu", "4"), ("memory", "8Gi"), ("pods", "110")]);
        let busy = pod(
            vec![container(&[("cpu", "2"), ("memory", "4Gi")], false)],
            vec![],
        );
        let empty = NodeResources::new(&n, &[]);
        let half = NodeResources::new(&n, &[&busy]);
        let incoming = (100, DEFAULT_MEMORY_REQUEST);
        assert!(least_allocated_score(incoming, &empty) > least_allocated_score(incoming, &half));
        // ((4000-100)*100/4000 + (8Gi-200Mi)*100/8Gi) / 2 = (97 + 97) / 2
        assert_eq!(least_allocated_score(incoming, &empty), 97);
    }
}
