//! Sets of field paths (structured-merge-diff `fieldpath.Set`): the members at this level and a
//! child set per path element below it. A child set is never empty, so that two sets holding the
//! same paths are equal and serialize alike.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::path::PathElement;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Set {
    members: BTreeSet<PathElement>,
    children: BTreeMap<PathElement, Set>,
}

impl Set {
    pub fn is_empty(&self) -> bool {
        self.members.is_empty() && self.children.is_empty()
    }

    pub fn insert(&mut self, path: &[PathElement]) {
        match path {
            [] => {}
            [last] => {
                self.members.insert(last.clone());
            }
            [first, rest @ ..] => self.children.entry(first.clone()).or_default().insert(rest),
        }
    }

    pub fn has(&self, path: &[PathElement]) -> bool {
        match path {
            [] => false,
            [last] => self.members.contains(last),
            [first, rest @ ..] => self.children.get(first).is_some_and(|c| c.has(rest)),
        }
    }

    pub fn has_member(&self, pe: &PathElement) -> bool {
        self.members.contains(pe)
    }

    /// The paths below `pe`, without it (`WithPrefix`).
    pub fn with_prefix(&self, pe: &PathElement) -> Option<&Set> {
        self.children.get(pe)
    }

    pub fn children(&self) -> impl Iterator<Item = (&PathElement, &Set)> {
        self.children.iter()
    }

    pub fn union(&self, other: &Set) -> Set {
        let mut out = self.clone();
        out.members.extend(other.members.iter().cloned());
        for (pe, child) in &other.children {
            let merged = match out.children.get(pe) {
                Some(mine) => mine.union(child),
                None => child.clone(),
            };
            out.children.insert(pe.clone(), merged);
        }
        out
    }

    pub fn difference(&self, other: &Set) -> Set {
        let members = self.members.difference(&other.members).cloned().collect();
        let children = self
            .children
            .iter()
            .filter_map(|(pe, child)| {
                let left = match other.children.get(pe) {
                    Some(theirs) => child.difference(theirs),
                    None => child.clone(),
                };
                (!left.is_empty()).then(|| (pe.clone(), left))
            })
            .collect();
        Set { members, children }
    }

    pub fn intersection(&self, other: &Set) -> Set {
        let members = self.members.intersection(&other.members).cloned().collect();
        let children = self
            .children
            .iter()
            .filter_map(|(pe, child)| {
                let both = child.intersection(other.children.get(pe)?);
                (!both.is_empty()).then(|| (pe.clone(), both))
            })
            .collect();
        Set { members, children }
    }

    /// The paths of `self` neither in `other` nor below a member of `other`
    /// (`RecursiveDifference`: how reset fields are left out).
    pub fn recursive_difference(&self, other: &Set) -> Set {
        let members = self.members.difference(&other.members).cloned().collect();
        let children = self
            .children
            .iter()
            .filter_map(|(pe, child)| {
                if other.members.contains(pe) {
                    return None;
                }
                let left = match other.children.get(pe) {
                    Some(theirs) => child.recursive_difference(theirs),
                    None => child.clone(),
                };
                (!left.is_empty()).then(|| (pe.clone(), left))
            })
            .collect();
        Set { members, children }
    }

    /// Every path, members before the paths below them (`Iterate`).
    pub fn paths(&self) -> Vec<Vec<PathElement>> {
        let mut out = Vec::new();
        self.collect_paths(&mut Vec::new(), &mut out);
        out
    }

    fn collect_paths(&self, prefix: &mut Vec<PathElement>, out: &mut Vec<Vec<PathElement>>) {
        for pe in &self.members {
            let mut path = prefix.clone();
            path.push(pe.clone());
            out.push(path);
        }
        for (pe, child) in &self.children {
            prefix.push(pe.clone());
            child.collect_paths(prefix, out);
            prefix.pop();
        }
    }

    /// A set built from parts, for `EnsureNamedFieldsAreMembers`.
    pub fn from_parts(members: BTreeSet<PathElement>, children: BTreeMap<PathElement, Set>) -> Set {
        let children = children
            .into_iter()
            .filter(|(_, c)| !c.is_empty())
            .collect();
        Set { members, children }
    }

    pub fn members(&self) -> &BTreeSet<PathElement> {
        &self.members
    }

    /// The `FieldsV1` form (`SetToFields`): an object per level, `"."` first when the path to
    /// it is itself a member, then members and children in path element order.
    pub fn to_fields_v1(&self) -> Value {
        Value::Object(self.emit(false))
    }

    fn emit(&self, include_self: bool) -> Map<String, Value> {
        let mut out = Map::new();
        if include_self {
            out.insert(".".into(), Value::Object(Map::new()));
        }
        let mut keys: BTreeSet<&PathElement> = self.members.iter().collect();
        keys.extend(self.children.keys());
        for pe in keys {
            let body = match self.children.get(pe) {
                Some(child) => child.emit(self.members.contains(pe)),
                None => Map::new(),
            };
            out.insert(pe.serialize(), Value::Object(body));
        }
        out
    }

    /// `FieldsToSet`: the inverse of [`Set::to_fields_v1`].
    pub fn from_fields_v1(fields: &Value) -> Result<Set, String> {
        let Value::Object(map) = fields else {
            return Err("expected an object".into());
        };
        let mut set = Set::default();
        for (key, body) in map {
            if key == "." {
                continue;
            }
            let pe = PathElement::deserialize(key)?;
            let Value::Object(inner) = body else {
                return Err(format!("expected an object at {key}"));
            };
            if inner.is_empty() || inner.contains_key(".") {
                set.members.insert(pe.clone());
            }
            let child = Set::from_fields_v1(body)?;
            if !child.is_empty() {
                set.children.insert(pe, child);
            }
        }
        Ok(set)
    }
}

/// A set of the paths given as dotted field names (`fieldpath.MakePathOrDie`), for reset and
/// stripped fields.
pub fn of_fields(paths: &[&[&str]]) -> Set {
    let mut set = Set::default();
    for path in paths {
        let path: Vec<PathElement> = path
            .iter()
            .map(|f| PathElement::Field((*f).to_owned()))
            .collect();
        set.insert(&path);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn f(name: &str) -> PathElement {
        PathElement::Field(name.into())
    }

    #[test]
    fn fieldsv1_round_trips_with_self_markers() {
        let fields = json!({
            "f:data": {".": {}, "f:a": {}},
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:image": {}}}}
        });
        let set = Set::from_fields_v1(&fields).unwrap();
        assert!(set.has(&[f("data")]));
        assert!(set.has(&[f("data"), f("a")]));
        assert!(!set.has(&[f("metadata")]));
        assert!(set.has(&[f("metadata"), f("labels"), f("app")]));
        assert_eq!(
            serde_json::to_string(&set.to_fields_v1()).unwrap(),
            serde_json::to_string(&fields).unwrap()
        );
    }

    #[test]
    fn set_algebra_keeps_no_empty_children() {
        let a = of_fields(&[&["spec", "replicas"], &["spec", "paused"], &["status"]]);
        let b = of_fields(&[&["spec", "replicas"], &["spec", "paused"]]);
        assert_eq!(a.difference(&b), of_fields(&[&["status"]]));
        assert_eq!(a.intersection(&b), b);
        assert_eq!(b.union(&of_fields(&[&["status"]])), a);
        // Below a member of the other set, everything goes.
        let reset = of_fields(&[&["spec"]]);
        assert_eq!(a.recursive_difference(&reset), of_fields(&[&["status"]]));
        assert!(a.difference(&a).is_empty());
        assert_eq!(
            a.paths()
                .iter()
                .map(|p| super::super::path::path_string(p))
                .collect::<Vec<_>>(),
            [".status", ".spec.paused", ".spec.replicas"]
        );
    }
}
