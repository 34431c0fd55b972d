//! HorizontalPodAutoscalers (`pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go`):
//! stored as autoscaling/v2 and served as v2 and v1 (what `kubectl autoscale` sends), v1 being
//! a view through `pkg/apis/autoscaling/v1/conversion.go` ([`super::conversion`]). The status is
//! the controller's: reset on create, kept by spec writes.

use chrono::{DateTime, Utc};
use k8s_openapi::api::autoscaling::{v1 as k8s_v1, v2 as k8s_v2};
use serde_json::{json, Map, Value};

use super::conversion::{v1_to_v2, v2_to_v1, DEFAULT_CPU_UTILIZATION};
use crate::decode::walker::walk;
use crate::defaults::fields::{default_nil, existing};
use crate::error::FieldError;
use crate::meta::keep;
use crate::printers::{autoscaling as printer, Column};
use crate::resource::Strategy;
use crate::resource::{status, ResourceDef, SubresourceDef, FULL_VERBS};
use crate::validation::autoscaling as validation;

const SUBRESOURCES: &[SubresourceDef] = &[status("HorizontalPodAutoscaler")];

/// The resource in one version, read through `strategy`.
const fn resource(
    version: &'static str,
    strategy: &'static HorizontalPodAutoscaler,
) -> ResourceDef {
    ResourceDef {
        group: "autoscaling",
        version,
        kind: "HorizontalPodAutoscaler",
        plural: "horizontalpodautoscalers",
        singular: "horizontalpodautoscaler",
        namespaced: true,
        short_names: &["hpa"],
        categories: &["all"],
        verbs: FULL_VERBS,
        subresources: SUBRESOURCES,
        strategy,
    }
}

pub static RESOURCE: ResourceDef = resource("v2", &HorizontalPodAutoscaler { v1: false });

pub static RESOURCE_V1: ResourceDef = resource("v1", &HorizontalPodAutoscaler { v1: true });

/// The strategy of either version; `v1` objects are checked in the stored (internal) shape, as
/// upstream validates the internal type whatever version was sent.
#[derive(Debug)]
pub struct HorizontalPodAutoscaler {
    pub v1: bool,
}

impl HorizontalPodAutoscaler {
    /// The object as the internal type sees it.
    fn internal(&self, obj: &Value) -> Value {
        if self.v1 {
            v1_to_v2(obj)
        } else {
            obj.clone()
        }
    }
}

/// `SetDefaults_HorizontalPodAutoscaler` (v2): one replica at least, the CPU target, and the
/// default scaling rules under any behavior given.
fn default_v2(obj: &mut Map<String, Value>) {
    let Some(spec) = existing(obj, "spec") else {
        return;
    };
    default_nil(spec, "minReplicas", json!(1));
    if spec
        .get("metrics")
        .and_then(Value::as_array)
        .is_none_or(|m| m.is_empty())
    {
        spec.insert(
            "metrics".into(),
            json!([{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}]),
        );
    }
    if let Some(behavior) = existing(spec, "behavior") {
        let up = json!({"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
            {"type": "Pods", "value": 4, "periodSeconds": 15},
            {"type": "Percent", "value": 100, "periodSeconds": 15}]});
        let down = json!({"selectPolicy": "Max", "policies": [
            {"type": "Percent", "value": 100, "periodSeconds": 15}]});
        for (key, defaults) in [("scaleUp", up), ("scaleDown", down)] {
            // copyHPAScalingRules: what was given replaces the default, field by field.
            let mut rules = defaults;
            if let Some(given) = behavior.get(key).and_then(Value::as_object) {
                for (k, v) in given {
                    if !v.is_null() {
                        rules[k] = v.clone();
                    }
                }
            }
            behavior.insert(key.into(), rules);
        }
    }
}

crate::kinds::decodes_as!(HorizontalPodAutoscaler, |this| if this.v1 {
    walk::<k8s_v1::HorizontalPodAutoscaler>
} else {
    walk::<k8s_v2::HorizontalPodAutoscaler>
});

impl Strategy for HorizontalPodAutoscaler {
    fn protobuf(&self) -> Option<&'static crate::protobuf::schema::Message> {
        Some(if self.v1 {
            &crate::protobuf::schema::autoscaling_v1::HORIZONTAL_POD_AUTOSCALER
        } else {
            &crate::protobuf::schema::autoscaling_v2::HORIZONTAL_POD_AUTOSCALER
        })
    }

    /// v1's `SetDefaults_HorizontalPodAutoscaler` only sets `minReplicas`; its CPU default comes
    /// with the conversion.
    fn default(&self, obj: &mut Map<String, Value>) {
        if self.v1 {
            if let Some(spec) = existing(obj, "spec") {
                default_nil(spec, "minReplicas", json!(1));
            }
        } else {
            default_v2(obj);
        }
    }

    /// The status starts empty: v2 writes `desiredReplicas` and a null `currentMetrics` (no
    /// omitempty), v1 both replica counts.
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = if self.v1 {
            json!({"currentReplicas": 0, "desiredReplicas": 0})
        } else {
            json!({"desiredReplicas": 0, "currentMetrics": null})
        };
    }

    /// Both versions are stored as autoscaling/v2.
    fn storage_version(&self) -> Option<(&str, &str)> {
        Some(("autoscaling", "v2"))
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        validation::horizontal_pod_autoscaler(&self.internal(obj))
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        keep(new, old, "status");
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::horizontal_pod_autoscaler_update(&self.internal(new), &self.internal(old))
    }

    fn validate_status_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        validation::horizontal_pod_autoscaler_status_update(
            &self.internal(new),
            &self.internal(old),
        )
    }

    fn returns_deleted_object(&self) -> bool {
        true
    }

    fn columns(&self) -> &'static [Column] {
        printer::HPA_COLUMNS
    }

    fn cells(&self, obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
        printer::hpa_cells(&self.internal(obj), now)
    }

    fn storage(&self) -> Option<&'static ResourceDef> {
        self.v1.then_some(&RESOURCE)
    }

    fn to_storage_shape(&self, value: &Value) -> Value {
        self.internal(value)
    }

    fn to_view_shape(&self, stored: &Value) -> Value {
        if self.v1 {
            v2_to_v1(stored)
        } else {
            stored.clone()
        }
    }
}
