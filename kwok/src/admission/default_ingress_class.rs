//! DefaultIngressClass (plugin/pkg/admission/network/defaultingressclass): an Ingress created
//! without a class (no `ingressClassName`, no `kubernetes.io/ingress.class` annotation) gets the
//! default IngressClass's name. Of several defaults the newest wins, the lower name on a tie.

use serde_json::{json, Value};

use super::Client;
use crate::kinds::networking::ingressclass::DEFAULT_CLASS_ANNOTATION;
use crate::registry;

/// `getDefaultClass`.
fn default_class(api: &dyn Client) -> Option<String> {
    let (classes, _) = api.store().list(&registry::INGRESSCLASSES, None);
    super::newest_default(classes.iter().map(|c| &c.value), |c| {
        c["metadata"]["annotations"][DEFAULT_CLASS_ANNOTATION] == "true"
    })
}

/// `Admit` on an Ingress's create.
pub(super) fn admit(api: &dyn Client, ingress: &mut Value) {
    let spec = &ingress["spec"];
    let classed = spec.get("ingressClassName").is_some_and(|c| !c.is_null())
        || ingress["metadata"]["annotations"]
            .get("kubernetes.io/ingress.class")
            .is_some();
    if classed {
        return;
    }
    if let Some(class) = default_class(api) {
        if !ingress["spec"].is_object() {
            ingress["spec"] = json!({});
        }
        ingress["spec"]["ingressClassName"] = json!(class);
    }
}
