//! A class roster (`grade --submissions DIR --roster FILE.csv`): who each submission folder
//! belongs to, so that a gradebook can be imported by a learning platform keyed on a student id
//! or e-mail. A CSV with a header naming `folder` and any of `id`, `name`, `email` (other columns
//! are ignored); a learner on the roster without a folder gets a `missing` row.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context};

use super::gradebook::{Learner, Row, Status};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Roster {
    /// By submission folder name.
    pub learners: BTreeMap<String, Learner>,
}

impl Roster {
    pub fn read(path: &Path) -> anyhow::Result<Roster> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the roster {}", path.display()))?;
        Roster::parse(&text).with_context(|| format!("{} is not a usable roster", path.display()))
    }

    fn parse(text: &str) -> anyhow::Result<Roster> {
        // A spreadsheet's "CSV UTF-8" starts with a byte order mark.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .flexible(true)
            .from_reader(text.as_bytes());
        let header = reader.headers().context("reading the header")?.clone();
        let column = |name: &str| {
            header
                .iter()
                .position(|cell| cell.eq_ignore_ascii_case(name))
        };
        let Some(folder_at) = column("folder") else {
            bail!(
                "the header must name a \"folder\" column (and any of id, name, email), not {}",
                header.iter().collect::<Vec<_>>().join(",")
            );
        };
        let (id_at, name_at, email_at) = (column("id"), column("name"), column("email"));
        let mut learners = BTreeMap::new();
        for (line, record) in reader.records().enumerate() {
            let line = line + 2;
            let record = record.with_context(|| format!("line {line}"))?;
            let cell = |at: Option<usize>| {
                at.and_then(|at| record.get(at))
                    .unwrap_or_default()
                    .to_string()
            };
            let folder = cell(Some(folder_at));
            if folder.is_empty() {
                bail!("line {line}: no folder");
            }
            let learner = Learner {
                id: cell(id_at),
                name: cell(name_at),
                email: cell(email_at),
            };
            if learners.insert(folder.clone(), learner).is_some() {
                bail!("line {line}: the folder {folder:?} is on the roster twice");
            }
        }
        Ok(Roster { learners })
    }

    /// Puts each row's learner in, and a `missing` row (of `max_score` points) for each learner
    /// whose folder is not among the rows. Returns the rows' names that are not on the roster.
    pub fn apply(&self, rows: &mut Vec<Row>, max_score: f64) -> Vec<String> {
        let mut unknown = Vec::new();
        for row in rows.iter_mut() {
            match self.learners.get(&row.name) {
                Some(learner) => row.learner = Some(learner.clone()),
                None => unknown.push(row.name.clone()),
            }
        }
        for (folder, learner) in &self.learners {
            if !rows.iter().any(|row| row.name == *folder) {
                let mut row = Row::ungraded(
                    folder,
                    Status::Missing,
                    max_score,
                    "on the roster, with no submission folder".to_string(),
                );
                row.learner = Some(learner.clone());
                rows.push(row);
            }
        }
        unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_roster_names_its_learners_by_folder() {
        let roster = Roster::parse(
            "\u{feff}Email, Folder ,ID,Name,Section\n\
             alice@example.org,alice,s001,Alice Kim,A\n\
             bob@example.org,bob,s002,\"Park, Bob\",B\n",
        )
        .expect("roster");
        assert_eq!(
            roster.learners["bob"],
            Learner {
                id: "s002".into(),
                name: "Park, Bob".into(),
                email: "bob@example.org".into()
            }
        );
        let mut rows = vec![
            Row::ungraded("alice", Status::Empty, 5.0, String::new()),
            Row::ungraded("zed", Status::Empty, 5.0, String::new()),
        ];
        let unknown = roster.apply(&mut rows, 5.0);
        assert_eq!(unknown, ["zed"]);
        assert_eq!(
            rows[0].learner.as_ref().map(|l| l.id.as_str()),
            Some("s001")
        );
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[2].name, "bob");
        assert_eq!(rows[2].status, Status::Missing);
        assert_eq!(rows[2].max_score, 5.0);
    }

    #[test]
    fn a_bad_roster_is_refused_with_the_line() {
        let error = Roster::parse("id,email\ns1,a@x\n").expect_err("no folder column");
        assert!(error.to_string().contains("\"folder\" column"), "{error}");
        let error = Roster::parse("folder,id\nalice,1\nalice,2\n").expect_err("twice");
        assert!(error.to_string().contains("line 3"), "{error}");
        let error = Roster::parse("folder,id\n,1\n").expect_err("empty folder");
        assert!(error.to_string().contains("line 2"), "{error}");
    }
}
