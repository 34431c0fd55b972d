//! ResourceQuota (apiserver pkg/admission/plugin/resourcequota): a validating plugin. A write
//! to a namespaced object is measured against the namespace's quotas; one that would exceed a
//! quota is refused, and an admitted one is charged to the quotas' `status.used` before it is
//! stored (a dry run is measured, not charged). The controller recalculates usage later.

use serde_json::Value;

use super::Client;
use super::{forbidden, Operation};
use crate::error::ApiResult;
use crate::meta;
use crate::options::WriteOptions;
use crate::quota::{self, Check, Evaluator};
use crate::registry;
use crate::resource::ResourceDef;

/// `checkQuotas`' retries when a quota changed under the charge.
const ATTEMPTS: usize = 3;

pub(super) fn validate(
    api: &dyn Client,
    res: &'static ResourceDef,
    ns: &str,
    op: Operation,
    obj: &Value,
    dry_run: bool,
) -> ApiResult<()> {
    if ns.is_empty() || !res.namespaced {
        return Ok(());
    }
    let Some(evaluator) = Evaluator::of(res) else {
        return Ok(());
    };
    let old = match op {
        Operation::Create => None,
        Operation::Update { old } if evaluator.handles_update() => Some(old),
        Operation::Update { .. } => return Ok(()),
    };
    let mut last = Ok(());
    for _ in 0..ATTEMPTS {
        let quotas: Vec<Value> = api
            .store()
            .list(&registry::RESOURCEQUOTAS, Some(ns))
            .0
            .into_iter()
            .map(|q| q.value.clone())
            .collect();
        if quotas.is_empty() {
            return Ok(());
        }
        let charges = match quota::check_request(&quotas, &evaluator, obj, old, chrono::Utc::now())
        {
            Check::Refuse(why) => return Err(forbidden(res, obj, &why)),
            Check::Charge(_) if dry_run => return Ok(()),
            Check::Charge(charges) => charges,
        };
        last = charge(api, charges);
        match &last {
            Err(e) if e.code == 409 => continue,
            _ => return last,
        }
    }
    last
}

/// `UpdateQuotaStatus` for each quota whose usage rose.
fn charge(api: &dyn Client, charges: Vec<(Value, crate::quantity::ResourceList)>) -> ApiResult<()> {
    for (mut q, used) in charges {
        q["status"]["used"] = crate::quantity::list_value(&used);
        let (ns, name) = (meta::namespace(&q).to_string(), meta::name(&q).to_string());
        api.update(
            &registry::RESOURCEQUOTAS,
            &ns,
            &name,
            q,
            Some("status"),
            &WriteOptions::default(),
        )?;
    }
    Ok(())
}
