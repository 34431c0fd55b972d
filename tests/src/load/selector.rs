//! The label selectors the load run's watches use, matched on the test side so that the expected
//! watch stream is computed independently of the server's own selector code.
//!
//! Only the forms the run uses are understood: `k=v`, `k==v`, `k!=v`, `k` and `!k`, joined by
//! commas (all must hold), with the meaning of apimachinery's `labels.Parse` (`!=` also matches an
//! object without the label: staging/src/k8s.io/apimachinery/pkg/labels/selector.go,
//! `Requirement.Matches`).

use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    Exists(String),
    DoesNotExist(String),
}

/// A parsed selector; the empty selector matches everything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LabelSelector {
    text: String,
    requirements: Vec<Requirement>,
}

impl LabelSelector {
    /// Parse one of the forms above; anything else is a bug in the run's own table.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let mut requirements = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let req = if let Some((k, v)) = part.split_once("!=") {
                Requirement::NotEquals(k.trim().into(), v.trim().into())
            } else if let Some((k, v)) = part.split_once("==") {
                Requirement::Equals(k.trim().into(), v.trim().into())
            } else if let Some((k, v)) = part.split_once('=') {
                Requirement::Equals(k.trim().into(), v.trim().into())
            } else if let Some(k) = part.strip_prefix('!') {
                Requirement::DoesNotExist(k.trim().into())
            } else {
                Requirement::Exists(part.into())
            };
            let key = match &req {
                Requirement::Equals(k, _)
                | Requirement::NotEquals(k, _)
                | Requirement::Exists(k)
                | Requirement::DoesNotExist(k) => k,
            };
            anyhow::ensure!(
                !key.is_empty() && !key.contains(' '),
                "unsupported selector {text:?}"
            );
            requirements.push(req);
        }
        Ok(Self {
            text: text.to_string(),
            requirements,
        })
    }

    /// The selector as sent in `labelSelector=`.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Do these labels match?
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let get = |k: &str| labels.get(k).map(String::as_str);
        self.requirements.iter().all(|r| match r {
            Requirement::Equals(k, v) => get(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => get(k) != Some(v.as_str()),
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::DoesNotExist(k) => get(k).is_none(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn equality_inequality_and_existence() {
        let red = labels(&[("load/color", "red")]);
        let blue = labels(&[("load/color", "blue")]);
        let bare = labels(&[]);
        let eq = LabelSelector::parse("load/color=red").unwrap();
        assert!(eq.matches(&red) && !eq.matches(&blue) && !eq.matches(&bare));
        let ne = LabelSelector::parse("load/color!=red").unwrap();
        assert!(!ne.matches(&red) && ne.matches(&blue) && ne.matches(&bare));
        let ex = LabelSelector::parse("load/color").unwrap();
        assert!(ex.matches(&red) && !ex.matches(&bare));
        let nex = LabelSelector::parse("!load/color").unwrap();
        assert!(!nex.matches(&red) && nex.matches(&bare));
        let both = LabelSelector::parse("load/color,load/color!=blue").unwrap();
        assert!(both.matches(&red) && !both.matches(&blue));
        assert!(LabelSelector::parse("").unwrap().matches(&bare));
    }
}
