//! Who owns what after a write (structured-merge-diff `merge.Updater`): an update takes the
//! fields it changed from everyone else; an apply merges its configuration, removes what the
//! applier stopped applying unless someone else owns it, and conflicts where another manager
//! owns a field it changes — unless forced.
//!
//! One served version per kind: the sets of managers that wrote through another version of the
//! kind (autoscaling/v1 and v2) are compared as if they were of this one, where upstream converts.

use std::collections::BTreeMap;

use serde_json::Value;

use super::path::{values_equal, PathElement};
use super::schema::{Ty, Types};
use super::set::Set;
use super::typed::{self, Comparison, MergeError};

/// A manager's fields, the version it wrote through and whether it applied them.
#[derive(Clone, Debug, PartialEq)]
pub struct VersionedSet {
    pub set: Set,
    pub api_version: String,
    pub applied: bool,
}

/// Managers by identifier.
pub type Managers = BTreeMap<String, VersionedSet>;

/// Why an apply stops: fields other managers own, or an object that does not fit its type.
#[derive(Debug)]
pub enum ApplyError {
    Conflicts(Vec<Conflict>),
    Invalid(MergeError),
}

/// A field another manager owns (`merge.Conflict`).
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    pub manager: String,
    pub path: Vec<PathElement>,
}

pub struct Updater<'t, 'a> {
    pub types: &'t Types<'a>,
    pub ty: Ty<'a>,
    /// The fields this write path resets (`IgnoreFilter`): nobody gains or loses them here.
    pub ignored: &'t Set,
}

impl Updater<'_, '_> {
    /// `Updater.update`: take what changed from every manager but `workflow`; without `force`,
    /// the first manager losing a field is a conflict.
    fn take(
        &self,
        old: &Value,
        new: &Value,
        managers: &mut Managers,
        workflow: &str,
        force: bool,
    ) -> Result<Comparison, Vec<Conflict>> {
        let compare = typed::compare(self.types, self.ty, old, new);
        let filtered = compare.without(self.ignored);
        let changed = filtered.modified.union(&filtered.added);
        let lost: Vec<(String, Set)> = managers
            .iter()
            .filter(|(manager, _)| *manager != workflow)
            .map(|(manager, owned)| (manager.clone(), owned.set.intersection(&changed)))
            .collect();
        if !force {
            let conflicts: Vec<Conflict> = lost
                .iter()
                .flat_map(|(manager, set)| {
                    set.paths().into_iter().map(|path| Conflict {
                        manager: manager.clone(),
                        path,
                    })
                })
                .collect();
            if !conflicts.is_empty() {
                return Err(conflicts);
            }
        }
        for (manager, lost) in lost {
            if let Some(owned) = managers.get_mut(&manager) {
                owned.set = owned.set.difference(&lost).difference(&filtered.removed);
            }
        }
        managers.retain(|_, owned| !owned.set.is_empty());
        Ok(compare)
    }

    /// `Updater.Update`: `manager` now owns what it changed.
    pub fn update(
        &self,
        live: &Value,
        new: &Value,
        version: &str,
        managers: &mut Managers,
        manager: &str,
    ) {
        let Ok(compare) = self.take(live, new, managers, manager, true) else {
            return;
        };
        let previous = managers.remove(manager).map(|m| m.set).unwrap_or_default();
        let set = previous
            .difference(&compare.removed)
            .union(&compare.modified)
            .union(&compare.added)
            .recursive_difference(self.ignored);
        if !set.is_empty() {
            managers.insert(
                manager.to_owned(),
                VersionedSet {
                    set,
                    api_version: version.to_owned(),
                    applied: false,
                },
            );
        }
    }

    /// `Updater.Apply`: the object the configuration makes of `live` (`None`: unchanged), or
    /// the conflicts that stop it.
    pub fn apply(
        &self,
        live: &Value,
        config: &Value,
        version: &str,
        managers: &mut Managers,
        manager: &str,
        force: bool,
    ) -> Result<Option<Value>, ApplyError> {
        let refused = typed::config_errors(self.types, self.ty, config);
        if !refused.is_empty() {
            // `ValidationErrors.Error`: one alone, or a list under `errors:`.
            let message = match refused.as_slice() {
                [one] => one.clone(),
                many => format!("errors:\n  {}", many.join("\n  ")),
            };
            return Err(ApplyError::Invalid(MergeError {
                side: typed::Side::Config,
                message,
            }));
        }
        let merged =
            typed::merge(self.types, self.ty, live, config).map_err(ApplyError::Invalid)?;
        let last = managers.get(manager).map(|m| m.set.clone());
        let set =
            typed::to_field_set(self.types, self.ty, config).recursive_difference(self.ignored);
        managers.insert(
            manager.to_owned(),
            VersionedSet {
                set,
                api_version: version.to_owned(),
                applied: true,
            },
        );
        let new = match &last {
            Some(last) if !last.is_empty() => self.prune(&merged, managers, last),
            _ => merged,
        };
        self.take(live, &new, managers, manager, force)
            .map_err(ApplyError::Conflicts)?;
        Ok((!values_equal(live, &new)).then_some(new))
    }

    /// `Updater.prune`: remove what the applier owned before and no longer applies, unless
    /// someone else owns it.
    fn prune(&self, merged: &Value, managers: &Managers, last: &Set) -> Value {
        let (types, ty) = (self.types, self.ty);
        let named = |set: &Set| typed::ensure_named_fields_are_members(types, ty, set);
        let pruned = typed::remove_items(types, ty, merged, &named(last));
        // `addBackOwnedItems`: what anyone owns stays.
        let owned = managers
            .values()
            .fold(Set::default(), |all, m| all.union(&m.set));
        let merged_set = named(&typed::to_field_set(types, ty, merged));
        let pruned_set = named(&typed::to_field_set(types, ty, &pruned));
        let pruned = typed::remove_items(
            types,
            ty,
            merged,
            &merged_set.difference(&pruned_set.union(&named(&owned))),
        );
        // `addBackDanglingItems`: only what the applier owned goes.
        let pruned_set = named(&typed::to_field_set(types, ty, &pruned));
        typed::remove_items(
            types,
            ty,
            merged,
            &merged_set
                .difference(&pruned_set)
                .intersection(&named(last)),
        )
    }
}
