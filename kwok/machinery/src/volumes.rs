//! How claims and volumes meet (`k8s.io/component-helpers/storage/volume`): their classes, whether
//! a volume is bound to a claim, and which available volume best fits a claim. The volume
//! controllers and the scheduler's VolumeBinding both decide with these.

use std::cmp::Ordering;

use serde_json::{json, Value};

use crate::meta;
use crate::quantity::Quantity;
use crate::selectors::LabelSelector;

pub const ANN_BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
pub const ANN_BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
pub const ANN_SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
pub const ANN_STORAGE_PROVISIONER: &str = "volume.kubernetes.io/storage-provisioner";
pub const ANN_BETA_STORAGE_PROVISIONER: &str = "volume.beta.kubernetes.io/storage-provisioner";
const ANN_BETA_STORAGE_CLASS: &str = "volume.beta.kubernetes.io/storage-class";
/// The provisioner of classes whose volumes an administrator creates by hand.
pub const NO_PROVISIONER: &str = "kubernetes.io/no-provisioner";

/// `GetPersistentVolumeClaimClass`: the beta annotation wins over the field.
pub fn claim_class(claim: &Value) -> &str {
    meta::annotation(claim, ANN_BETA_STORAGE_CLASS)
        .or_else(|| claim["spec"]["storageClassName"].as_str())
        .unwrap_or("")
}

/// `PersistentVolumeClaimHasClass`: a class was asked for, even the empty one.
pub fn claim_has_class(claim: &Value) -> bool {
    meta::annotation(claim, ANN_BETA_STORAGE_CLASS).is_some()
        || claim["spec"]
            .get("storageClassName")
            .is_some_and(|c| !c.is_null())
}

/// `GetPersistentVolumeClass`.
pub fn volume_class(volume: &Value) -> &str {
    meta::annotation(volume, ANN_BETA_STORAGE_CLASS)
        .or_else(|| volume["spec"]["storageClassName"].as_str())
        .unwrap_or("")
}

/// `IsVolumeBoundToClaim`: the claim reference names the claim, and its uid (when set) is the
/// claim's.
pub fn is_bound_to_claim(volume: &Value, claim: &Value) -> bool {
    let r = &volume["spec"]["claimRef"];
    if !r.is_object() {
        return false;
    }
    let field = |k: &str| r[k].as_str().unwrap_or("");
    if field("name") != meta::name(claim) || field("namespace") != meta::namespace(claim) {
        return false;
    }
    field("uid").is_empty() || field("uid") == meta::uid(claim)
}

/// `reference.GetReference` of a claim, as a volume's `spec.claimRef`.
pub fn claim_reference(claim: &Value) -> Value {
    json!({
        "kind": "PersistentVolumeClaim",
        "namespace": meta::namespace(claim),
        "name": meta::name(claim),
        "uid": meta::uid(claim),
        "apiVersion": "v1",
        "resourceVersion": meta::resource_version(claim),
    })
}

/// `IsDelayBindingMode`: the claim's class binds on the first consumer. A missing class binds
/// at once.
pub fn is_delay_binding(claim: &Value, class: Option<&Value>) -> bool {
    !claim_class(claim).is_empty()
        && class.is_some_and(|c| c["volumeBindingMode"] == "WaitForFirstConsumer")
}

fn storage(v: &Value) -> Quantity {
    v["storage"]
        .as_str()
        .and_then(|s| Quantity::parse(s).ok())
        .unwrap_or_else(Quantity::zero)
}

/// The storage a claim requests.
pub fn requested(claim: &Value) -> Quantity {
    storage(&claim["spec"]["resources"]["requests"])
}

/// The storage a volume offers.
pub fn capacity(volume: &Value) -> Quantity {
    storage(&volume["spec"]["capacity"])
}

/// `CheckVolumeModeMismatches`: an unset mode is a filesystem.
pub fn volume_mode_mismatch(claim: &Value, volume: &Value) -> bool {
    let mode = |v: &Value| {
        v["spec"]["volumeMode"]
            .as_str()
            .unwrap_or("Filesystem")
            .to_string()
    };
    mode(claim) != mode(volume)
}

fn modes(v: &Value) -> Vec<&str> {
    v["spec"]["accessModes"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `CheckAccessModes`: the volume offers every mode the claim asks for.
pub fn access_modes_satisfied(claim: &Value, volume: &Value) -> bool {
    let offered = modes(volume);
    modes(claim).iter().all(|m| offered.contains(m))
}

/// `FindMatchingVolume`: the volume pre-bound to the claim if there is one, else the smallest
/// available volume of the claim's class, mode and selector that is big enough. `on_node` is the
/// scheduler's node check (a volume's node affinity); without it (the controller's path) a
/// claim that waits for its first consumer only takes a pre-bound volume, and access modes are
/// the caller's grouping.
pub fn find_matching_volume<'a>(
    claim: &Value,
    volumes: &[&'a Value],
    on_node: Option<&dyn Fn(&Value) -> bool>,
    excluded: &[&str],
    delay_binding: bool,
) -> Option<&'a Value> {
    let wanted = requested(claim);
    let class = claim_class(claim);
    let selector = claim["spec"]
        .get("selector")
        .filter(|s| !s.is_null())
        .map(|s| LabelSelector::from_api(s).unwrap_or_else(|_| LabelSelector::nothing()));
    let mut smallest: Option<(&Value, Quantity)> = None;
    for &volume in volumes {
        if excluded.contains(&meta::name(volume)) {
            continue;
        }
        let pre_bound = is_bound_to_claim(volume, claim);
        if volume["spec"]["claimRef"].is_object() && !pre_bound {
            continue;
        }
        let size = capacity(volume);
        if size.compare(&wanted) == Ordering::Less || volume_mode_mismatch(claim, volume) {
            continue;
        }
        if !volume["spec"]["volumeAttributesClassName"]
            .as_str()
            .unwrap_or("")
            .is_empty()
            || meta::is_deleting(volume)
        {
            continue;
        }
        let fits_node = on_node.is_none_or(|f| f(volume));
        if pre_bound {
            return fits_node.then_some(volume);
        }
        if on_node.is_none() && delay_binding {
            continue;
        }
        if volume["status"]["phase"] != "Available" {
            continue;
        }
        if selector
            .as_ref()
            .is_some_and(|s| !s.matches(meta::labels(volume)))
        {
            continue;
        }
        if volume_class(volume) != class || !fits_node {
            continue;
        }
        if on_node.is_some() && !access_modes_satisfied(claim, volume) {
            continue;
        }
        if smallest
            .as_ref()
            .is_none_or(|(_, q)| q.compare(&size) == Ordering::Greater)
        {
            smallest = Some((volume, size));
        }
    }
    smallest.map(|(v, _)| v)
}

/// `persistentVolumeOrderedIndex.findByClaim`: volumes are grouped by their exact set of access
/// modes; the groups that offer every mode the claim asks for are searched from the fewest
/// modes up, so a claim takes the least capable volume that serves it.
pub fn find_best_match<'a>(
    claim: &Value,
    volumes: &[&'a Value],
    delay_binding: bool,
) -> Option<&'a Value> {
    let key = |v: &Value| {
        let mut m = modes(v);
        m.sort_unstable();
        m.dedup();
        m.join(",")
    };
    let mut groups: Vec<(String, Vec<&'a Value>)> = Vec::new();
    for &v in volumes {
        if !access_modes_satisfied(claim, v) {
            continue;
        }
        let k = key(v);
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, members)) => members.push(v),
            None => groups.push((k, vec![v])),
        }
    }
    groups.sort_by_key(|(k, _)| (k.split(',').count(), k.clone()));
    groups
        .iter()
        .find_map(|(_, members)| find_matching_volume(claim, members, None, &[], delay_binding))
}

/// The claims a pod's volumes name (`persistentVolumeClaim.claimName`, and the claim an ephemeral
/// volume gets: `<pod>-<volume>`), in volume order, each with whether it is ephemeral.
pub fn pod_claims(pod: &Value) -> Vec<(String, bool)> {
    pod["spec"]["volumes"]
        .as_array()
        .map(|vols| {
            vols.iter()
                .filter_map(|v| {
                    if let Some(name) = v["persistentVolumeClaim"]["claimName"].as_str() {
                        Some((name.to_string(), false))
                    } else if v["ephemeral"].is_object() {
                        let vol = v["name"].as_str().unwrap_or("");
                        Some((format!("{}-{vol}", meta::name(pod)), true))
                    } else {
                        None
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pv(name: &str, size: &str, modes: &[&str], class: &str) -> Value {
        json!({"metadata": {"name": name}, "spec": {"capacity": {"storage": size},
            "accessModes": modes, "storageClassName": class, "volumeMode": "Filesystem"},
            "status": {"phase": "Available"}})
    }

    fn claim(size: &str, modes: &[&str], class: &str) -> Value {
        json!({"metadata": {"name": "c", "namespace": "default", "uid": "u1"},
            "spec": {"resources": {"requests": {"storage": size}}, "accessModes": modes,
                "storageClassName": class}})
    }

    #[test]
    fn the_smallest_volume_of_the_fewest_modes_wins() {
        let big = pv("big", "10Gi", &["ReadWriteOnce"], "");
        let small = pv("small", "2Gi", &["ReadWriteOnce"], "");
        let tiny = pv("tiny", "500Mi", &["ReadWriteOnce"], "");
        let rwx = pv("rwx", "1Gi", &["ReadWriteOnce", "ReadWriteMany"], "");
        let volumes = [&big, &rwx, &small, &tiny];
        let c = claim("1Gi", &["ReadWriteOnce"], "");
        let got = find_best_match(&c, &volumes, false).map(meta::name);
        assert_eq!(got, Some("small"));
        let many = claim("1Gi", &["ReadWriteMany"], "");
        let got = find_best_match(&many, &volumes, false).map(meta::name);
        assert_eq!(got, Some("rwx"));
    }

    #[test]
    fn class_phase_and_waiting_for_a_consumer_exclude_volumes() {
        let fast = pv("fast", "1Gi", &["ReadWriteOnce"], "fast");
        let mut bound = pv("bound", "1Gi", &["ReadWriteOnce"], "");
        bound["status"]["phase"] = json!("Bound");
        let c = claim("1Gi", &["ReadWriteOnce"], "");
        assert!(find_best_match(&c, &[&fast, &bound], false).is_none());
        let f = claim("1Gi", &["ReadWriteOnce"], "fast");
        assert!(find_best_match(&f, &[&fast], true).is_none());
        assert!(find_best_match(&f, &[&fast], false).is_some());
        // A volume reserved for the claim is taken even before it is available.
        let mut reserved = pv("reserved", "1Gi", &["ReadWriteOnce"], "fast");
        reserved["spec"]["claimRef"] = json!({"name": "c", "namespace": "default"});
        reserved["status"]["phase"] = json!("Pending");
        let got = find_best_match(&f, &[&fast, &reserved], true).map(meta::name);
        assert_eq!(got, Some("reserved"));
    }
}
