//! The gradebook of a batch: one row per submission, written as CSV for a spreadsheet or a
//! learning platform's import (`name,score,max,status,step 1,step 2,…`, each step column its
//! points) and as JSON for programs (`{"submissions": [{"name", "score", "max_score", "status",
//! "steps": {"1": {"score", "max_score"}, …}}]}`). Shards' gradebooks merge into one.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use crate::report::model::points;
use crate::report::Report;
use crate::runner::grade::NOT_GRADED;

/// How a submission's grading ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every check passed.
    Passed,
    /// Graded; a check failed.
    Failed,
    /// Graded in part: the grade's time budget (`limits.grade`) ran out first.
    TimedOut,
    /// Not a lab dir that can be graded (a file, a folder or a file in it that cannot be read).
    Malformed,
    /// Proctor could not grade it (the cluster or the scenario failed); grading it again may work.
    Error,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::TimedOut => "timed-out",
            Status::Malformed => "malformed",
            Status::Error => "error",
        }
    }

    fn parse(text: &str) -> Option<Status> {
        [
            Status::Passed,
            Status::Failed,
            Status::TimedOut,
            Status::Malformed,
            Status::Error,
        ]
        .into_iter()
        .find(|status| status.name() == text)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepScore {
    pub score: f64,
    pub max_score: f64,
}

/// One submission's line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub name: String,
    pub score: f64,
    pub max_score: f64,
    pub status: Status,
    /// By step id; empty when the submission was not graded.
    pub steps: BTreeMap<u32, StepScore>,
    /// Why a submission is malformed or was not graded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The sandbox the learner's scripts ran in (`bubblewrap`, …, `none`); none when not graded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
}

impl Row {
    pub fn from_report(name: &str, report: &Report) -> Row {
        let timed_out = report
            .checks()
            .any(|check| check.message.starts_with(NOT_GRADED));
        let status = if timed_out {
            Status::TimedOut
        } else if report.passed() {
            Status::Passed
        } else {
            Status::Failed
        };
        Row {
            name: name.to_string(),
            score: report.score(),
            max_score: report.max_score(),
            status,
            steps: report
                .steps
                .iter()
                .map(|step| {
                    let score = StepScore {
                        score: step.score(),
                        max_score: step.max_score(),
                    };
                    (step.id, score)
                })
                .collect(),
            message: None,
            isolation: report.isolation.clone(),
        }
    }

    /// A submission that was not graded; `max_score` is the lab's, so a spreadsheet's totals stay
    /// comparable.
    pub fn ungraded(name: &str, status: Status, max_score: f64, message: String) -> Row {
        Row {
            name: name.to_string(),
            score: 0.0,
            max_score,
            status,
            steps: BTreeMap::new(),
            message: Some(message),
            isolation: None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gradebook {
    pub submissions: Vec<Row>,
}

/// The two file formats, chosen by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Json,
}

impl Format {
    pub fn of(path: &Path) -> anyhow::Result<Format> {
        match path.extension().and_then(|ext| ext.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("csv") => Ok(Format::Csv),
            Some(ext) if ext.eq_ignore_ascii_case("json") => Ok(Format::Json),
            _ => bail!(
                "{}: a gradebook is a .csv or a .json file (the extension picks the format)",
                path.display()
            ),
        }
    }
}

impl Gradebook {
    /// Rows in name order, the order every writer uses, so a gradebook does not depend on which
    /// submission finished first.
    pub fn sort(&mut self) {
        self.submissions.sort_by(|a, b| a.name.cmp(&b.name));
    }

    /// Every step id any row has, in order: the CSV's step columns.
    fn step_ids(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = self
            .submissions
            .iter()
            .flat_map(|row| row.steps.keys().copied())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|error| {
            format!("{{\"error\": \"cannot serialise the gradebook: {error}\"}}")
        });
        text.push('\n');
        text
    }

    pub fn to_csv(&self) -> anyhow::Result<String> {
        let steps = self.step_ids();
        let mut writer = csv::Writer::from_writer(Vec::new());
        let mut header = vec![
            "name".to_string(),
            "score".to_string(),
            "max".to_string(),
            "status".to_string(),
            "isolation".to_string(),
        ];
        header.extend(steps.iter().map(|id| format!("step {id}")));
        writer.write_record(&header)?;
        for row in &self.submissions {
            let mut record = vec![
                row.name.clone(),
                points(row.score),
                points(row.max_score),
                row.status.to_string(),
                row.isolation.clone().unwrap_or_default(),
            ];
            // A step a submission has no score for (not graded) is an empty cell, not a zero.
            record.extend(steps.iter().map(|id| {
                row.steps
                    .get(id)
                    .map(|step| points(step.score))
                    .unwrap_or_default()
            }));
            writer.write_record(&record)?;
        }
        let bytes = writer.into_inner().context("writing the CSV gradebook")?;
        String::from_utf8(bytes).context("the CSV gradebook is not UTF-8")
    }

    pub fn render(&self, format: Format) -> anyhow::Result<String> {
        match format {
            Format::Csv => self.to_csv(),
            Format::Json => Ok(self.to_json()),
        }
    }

    /// Writes the gradebook to `path` in the format its extension names.
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        let text = self.render(Format::of(path)?)?;
        crate::commands::common::write_file(path, &text)
    }

    /// Reads a gradebook this module wrote, in either format.
    pub fn read(path: &Path) -> anyhow::Result<Gradebook> {
        let format = Format::of(path)?;
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the gradebook {}", path.display()))?;
        let parsed = match format {
            Format::Json => serde_json::from_str(&text).map_err(anyhow::Error::from),
            Format::Csv => from_csv(&text),
        };
        parsed.with_context(|| format!("{} is not a Proctor gradebook", path.display()))
    }

    /// Joins the gradebooks of several shards. A submission in two of them is an error unless both
    /// rows agree (the same shard read twice), since one of two different grades would be lost.
    pub fn merge(parts: Vec<(String, Gradebook)>) -> anyhow::Result<Gradebook> {
        let mut rows: BTreeMap<String, (String, Row)> = BTreeMap::new();
        for (origin, part) in parts {
            for row in part.submissions {
                match rows.get(&row.name) {
                    Some((first, seen)) if *seen != row => bail!(
                        "submission {:?} is graded differently in {first} and {origin}; \
                         a course's shards must not overlap",
                        row.name
                    ),
                    Some(_) => {}
                    None => {
                        rows.insert(row.name.clone(), (origin.clone(), row));
                    }
                }
            }
        }
        Ok(Gradebook {
            submissions: rows.into_values().map(|(_, row)| row).collect(),
        })
    }
}

/// Reads back [`Gradebook::to_csv`]: step columns are `step N`; an empty cell is a step without
/// a score. A step's maximum is not in the CSV: read back, it is unknown (0).
fn from_csv(text: &str) -> anyhow::Result<Gradebook> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers()?.clone();
    let fixed = ["name", "score", "max", "status"];
    if header.len() < fixed.len() || header.iter().zip(fixed).any(|(got, want)| got != want) {
        bail!(
            "the header must start with {}, not {}",
            fixed.join(","),
            header.iter().collect::<Vec<_>>().join(",")
        );
    }
    // Written since the isolation was recorded; older gradebooks lack it.
    let with_isolation = header.get(fixed.len()) == Some("isolation");
    let first_step = fixed.len() + usize::from(with_isolation);
    let steps: Vec<u32> = header
        .iter()
        .skip(first_step)
        .map(|column| {
            column
                .strip_prefix("step ")
                .and_then(|id| id.parse().ok())
                .with_context(|| format!("column {column:?} is not \"step N\""))
        })
        .collect::<anyhow::Result<_>>()?;
    let mut submissions = Vec::new();
    for (line, record) in reader.records().enumerate() {
        let record = record?;
        let at = || format!("row {}", line + 2);
        let number = |index: usize| -> anyhow::Result<f64> {
            let cell = record.get(index).unwrap_or_default();
            cell.parse()
                .with_context(|| format!("{}: {:?} is not a number", at(), cell))
        };
        let status_cell = record.get(3).unwrap_or_default();
        let status = Status::parse(status_cell)
            .with_context(|| format!("{}: unknown status {status_cell:?}", at()))?;
        let mut row_steps = BTreeMap::new();
        for (offset, id) in steps.iter().enumerate() {
            let cell = record.get(first_step + offset).unwrap_or_default();
            if cell.is_empty() {
                continue;
            }
            let score = cell
                .parse()
                .with_context(|| format!("{}: step {id}: {cell:?} is not a number", at()))?;
            row_steps.insert(
                *id,
                StepScore {
                    score,
                    max_score: 0.0,
                },
            );
        }
        submissions.push(Row {
            name: record.get(0).unwrap_or_default().to_string(),
            score: number(1)?,
            max_score: number(2)?,
            status,
            steps: row_steps,
            message: None,
            isolation: with_isolation
                .then(|| record.get(fixed.len()).unwrap_or_default().to_string())
                .filter(|isolation| !isolation.is_empty()),
        });
    }
    Ok(Gradebook { submissions })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, steps: &[(u32, f64, f64)], status: Status) -> Row {
        Row {
            name: name.to_string(),
            score: steps.iter().map(|s| s.1).sum(),
            max_score: steps.iter().map(|s| s.2).sum(),
            status,
            steps: steps
                .iter()
                .map(|&(id, score, max_score)| (id, StepScore { score, max_score }))
                .collect(),
            message: None,
            isolation: Some("bubblewrap".into()),
        }
    }

    fn book() -> Gradebook {
        Gradebook {
            submissions: vec![
                row("alice", &[(1, 2.0, 2.0), (2, 1.5, 3.0)], Status::Failed),
                row("bob, jr.", &[(1, 2.0, 2.0), (2, 3.0, 3.0)], Status::Passed),
                Row::ungraded("carol", Status::Malformed, 5.0, "not a directory".into()),
            ],
        }
    }

    #[test]
    fn csv_has_the_documented_columns() {
        let csv = book().to_csv().expect("csv");
        let expected = "name,score,max,status,isolation,step 1,step 2\n\
                        alice,3.50,5,failed,bubblewrap,2,1.50\n\
                        \"bob, jr.\",5,5,passed,bubblewrap,2,3\n\
                        carol,0,5,malformed,,,\n";
        assert_eq!(csv, expected);
        // Read back, the isolation stays; a gradebook written before it was recorded still reads.
        let back = from_csv(&csv).expect("read back");
        assert_eq!(back.submissions[0].isolation.as_deref(), Some("bubblewrap"));
        assert_eq!(back.submissions[2].isolation, None);
        let old = from_csv("name,score,max,status,step 1\nalice,1,2,failed,1\n").expect("old");
        assert_eq!(old.submissions[0].steps.len(), 1);
    }

    #[test]
    fn json_has_the_documented_shape() {
        let value: serde_json::Value = serde_json::from_str(&book().to_json()).expect("valid JSON");
        let alice = &value["submissions"][0];
        assert_eq!(alice["name"], "alice");
        assert_eq!(alice["score"], 3.5);
        assert_eq!(alice["max_score"], 5.0);
        assert_eq!(alice["status"], "failed");
        assert_eq!(alice["steps"]["2"]["score"], 1.5);
        assert_eq!(alice["steps"]["2"]["max_score"], 3.0);
        assert!(alice.get("message").is_none());
        assert_eq!(value["submissions"][2]["status"], "malformed");
        assert_eq!(value["submissions"][2]["message"], "not a directory");
    }

    #[test]
    fn both_formats_read_back() {
        let original = book();
        let json: Gradebook = serde_json::from_str(&original.to_json()).expect("json");
        assert_eq!(json, original);
        let csv = from_csv(&original.to_csv().expect("csv")).expect("read csv");
        let names: Vec<_> = csv.submissions.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["alice", "bob, jr.", "carol"]);
        assert_eq!(csv.submissions[0].steps[&2].score, 1.5);
        assert_eq!(csv.submissions[2].status, Status::Malformed);
        assert!(csv.submissions[2].steps.is_empty());
    }

    #[test]
    fn merge_joins_shards_and_refuses_conflicts() {
        let whole = book();
        let (a, b) = whole.submissions.split_at(1);
        let parts = vec![
            (
                "b.json".to_string(),
                Gradebook {
                    submissions: b.to_vec(),
                },
            ),
            (
                "a.json".to_string(),
                Gradebook {
                    submissions: a.to_vec(),
                },
            ),
            // The same shard given twice is harmless.
            (
                "a2.json".to_string(),
                Gradebook {
                    submissions: a.to_vec(),
                },
            ),
        ];
        assert_eq!(Gradebook::merge(parts).expect("merge"), whole);

        let mut other = a.to_vec();
        other[0].score = 0.0;
        let error = Gradebook::merge(vec![
            (
                "a.json".into(),
                Gradebook {
                    submissions: a.to_vec(),
                },
            ),
            ("x.json".into(), Gradebook { submissions: other }),
        ])
        .expect_err("conflict");
        assert!(error.to_string().contains("a.json and x.json"), "{error}");
    }

    #[test]
    fn bad_files_are_named() {
        assert!(Format::of(Path::new("grades.xlsx")).is_err());
        let error = from_csv("who,score\nalice,1\n").expect_err("bad header");
        assert!(
            error.to_string().contains("name,score,max,status"),
            "{error}"
        );
        let error = from_csv("name,score,max,status\nalice,1,2,weird\n").expect_err("status");
        assert!(error.to_string().contains("row 2"), "{error}");
    }
}
