//! A pod's aggregate requests and limits (component-helpers `resource/helpers.go`,
//! `AggregateContainerRequests` and `AggregateContainerLimits`): the regular containers summed,
//! raised to the largest init container, where a restartable ("sidecar") init container counts in
//! the sum and in every init container that starts after it.
//!
//! The scheduler sums exact nano-unit amounts; the quota system sums `resource.Quantity` values
//! and keeps their formats. Both go through [`aggregate`] with their own value type.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, PodSpec};

use crate::quantity::Quantity;

/// A value a resource list holds: added (`addResourceList`) and compared (`maxResourceList`).
pub trait Sum: Clone {
    fn plus(&self, other: &Self) -> Self;
    fn exceeds(&self, other: &Self) -> bool;
}

pub type List<T> = BTreeMap<String, T>;

/// `addResourceList`.
pub fn add_into<T: Sum>(into: &mut List<T>, from: &List<T>) {
    for (k, v) in from {
        let sum = match into.get(k) {
            Some(have) => have.plus(v),
            None => v.clone(),
        };
        into.insert(k.clone(), sum);
    }
}

/// `maxResourceList`.
fn max_into<T: Sum>(into: &mut List<T>, from: &List<T>) {
    for (k, v) in from {
        if into.get(k).is_none_or(|have| v.exceeds(have)) {
            into.insert(k.clone(), v.clone());
        }
    }
}

impl Sum for Quantity {
    fn plus(&self, other: &Self) -> Self {
        self.add(other)
    }

    fn exceeds(&self, other: &Self) -> bool {
        self.compare(other) == std::cmp::Ordering::Greater
    }
}

/// A container's requests (or, with `limits`, its limits) as quantities.
pub fn container_quantities(c: &Container, limits: bool) -> List<Quantity> {
    let r = c.resources.as_ref();
    let list = if limits {
        r.and_then(|r| r.limits.as_ref())
    } else {
        r.and_then(|r| r.requests.as_ref())
    };
    list.into_iter()
        .flatten()
        .filter_map(|(k, q)| Some((k.clone(), Quantity::parse(q.0.trim()).ok()?)))
        .collect()
}

/// The pod's containers aggregated by `of` (one container's requests or limits), without overhead.
pub fn aggregate<T: Sum>(spec: &PodSpec, of: impl Fn(&Container) -> List<T>) -> List<T> {
    let mut total = List::new();
    for c in &spec.containers {
        add_into(&mut total, &of(c));
    }
    let mut sidecars = List::new();
    let mut init_max = List::new();
    for c in spec.init_containers.iter().flatten() {
        let own = of(c);
        let effective = if c.restart_policy.as_deref() == Some("Always") {
            add_into(&mut total, &own);
            add_into(&mut sidecars, &own);
            sidecars.clone()
        } else {
            let mut with_sidecars = own;
            add_into(&mut with_sidecars, &sidecars);
            with_sidecars
        };
        max_into(&mut init_max, &effective);
    }
    max_into(&mut total, &init_max);
    total
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    impl Sum for i64 {
        fn plus(&self, other: &Self) -> Self {
            self + other
        }
        fn exceeds(&self, other: &Self) -> bool {
            self > other
        }
    }

    fn cpu(c: &Container) -> List<i64> {
        c.resources
            .as_ref()
            .and_then(|r| r.requests.as_ref())
            .into_iter()
            .flatten()
            .map(|(k, q)| (k.clone(), q.0.parse().unwrap_or(0)))
            .collect()
    }

    #[test]
    fn init_containers_raise_the_sum_and_sidecars_add_to_it() {
        // The example of the PodRequests doc comment: IC1 2, IC2 2 (memory 3), C1 2, C2 1.
        let c = |name: &str, n: i64| json!({"name": name, "resources": {"requests": {"cpu": n.to_string()}}});
        let spec: PodSpec = serde_json::from_value(json!({
            "initContainers": [c("ic1", 2), c("ic2", 4)],
            "containers": [c("c1", 2), c("c2", 1)]}))
        .expect("spec");
        assert_eq!(aggregate(&spec, cpu)["cpu"], 4);
        let mut sidecar = c("sc", 1);
        sidecar["restartPolicy"] = json!("Always");
        let spec: PodSpec = serde_json::from_value(json!({
            "initContainers": [sidecar, c("ic", 3)],
            "containers": [c("c", 2)]}))
        .expect("spec");
        // The sidecar runs beside the containers (2 + 1) and beside the later init one (3 + 1).
        assert_eq!(aggregate(&spec, cpu)["cpu"], 4);
    }
}
