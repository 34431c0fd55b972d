//! Field ownership on the write paths (`scope.FieldManager` of each endpoint): the kind's shape
//! and the fields its write path resets, and who writes.

use serde_json::Value;

use crate::error::ApiResult;
use crate::fieldmanager::{self, Endpoint, Kind};
use crate::options::{WriteOptions, CONTROLLER_MANAGER};
use crate::resource::ResourceDef;
use crate::resource_names::ResourceNames;

/// The endpoint of `res` a write goes through (`subresource` `""` for the main resource).
fn endpoint<'a>(res: &'a ResourceDef, subresource: &'a str) -> Endpoint<'a> {
    let defs = &crate::definitions::definitions().schemas;
    let kind = match res.strategy.structural_schema() {
        Some(schema) => Kind::custom(defs, schema),
        None => Kind::BuiltIn {
            defs,
            name: crate::definitions::definitions()
                .of_kind(res.group, res.version, res.kind)
                .unwrap_or_default(),
        },
    };
    Endpoint {
        kind,
        api_version: res.api_version(),
        kind_name: res.kind,
        subresource,
        reset: fieldmanager::reset_fields(res.strategy.reset_fields(subresource)),
        now: crate::meta::now(),
    }
}

/// Who a write is by: the request's field manager (or its user agent's), else the cluster's
/// own controllers.
fn manager(opts: &WriteOptions) -> &str {
    opts.field_manager.as_deref().unwrap_or(CONTROLLER_MANAGER)
}

/// `UpdateNoErrors` on a create (`live` is `None`), an update or a patch.
pub(super) fn track(
    res: &ResourceDef,
    subresource: Option<&str>,
    live: Option<&Value>,
    new: Value,
    opts: &WriteOptions,
) -> Value {
    if opts.ownership_recorded {
        return new;
    }
    endpoint(res, subresource.unwrap_or_default()).update(live, new, manager(opts))
}

/// A server-side apply of `config` to `live` (`None`: it creates the object).
pub(super) fn apply(
    res: &ResourceDef,
    subresource: Option<&str>,
    live: Option<&Value>,
    config: &Value,
    opts: &WriteOptions,
) -> ApiResult<Value> {
    endpoint(res, subresource.unwrap_or_default()).apply(
        live,
        config,
        manager(opts),
        opts.force.unwrap_or(false),
    )
}
