//! Server-side printing glue: builds `meta.k8s.io/v1` Tables from the printers.

use serde_json::{json, Value};

use super::respond::IncludeObject;
use crate::resource::ResourceDef;

pub fn table(
    res: &ResourceDef,
    objs: &[&Value],
    include: IncludeObject,
    resource_version: &str,
    continue_token: Option<&str>,
    remaining: Option<usize>,
) -> Value {
    let mut t = crate::printers::table(
        res,
        objs,
        chrono::Utc::now(),
        include,
        resource_version,
        continue_token,
    );
    if let Some(r) = remaining {
        t["metadata"]["remainingItemCount"] = json!(r);
    }
    t
}
