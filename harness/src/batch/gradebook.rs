//! The gradebook of a batch: one row per submission, written as CSV for a spreadsheet or a
//! learning platform's import and as JSON for programs. Shards' gradebooks merge into one.
//!
//! CSV: `[id,full name,email,]name,score,max,status,isolation,graded at,proctor,step 1,…` — the
//! learner's columns when a roster was given, then a column per step of the lab (a step graded
//! for no points is `step N (self-check)`); the line after the header is `Points Possible`, the
//! maximum of each column. A text cell that a spreadsheet would run as a formula (it starts with
//! `= + - @`, a tab or a carriage return) is written with a leading `'`, as OWASP's CSV
//! injection guidance recommends, and read back without it.
//!
//! JSON: `{"steps": [{"id", "max_score"}], "submissions": [{"name", "score", "max_score",
//! "status", "steps": {"1": {"score", "max_score"}, …}, "graded_at", "proctor_version",
//! "learner"}]}`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use crate::report::model::{now, points, total, PROCTOR_VERSION};
use crate::report::Report;
use crate::runner::flows::grade::NOT_GRADED;
use crate::scenario::{Lab, Mode};

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
    /// A folder with no file in it: nothing was handed in, so nothing was graded.
    Empty,
    /// On the roster, with no submission in the folder.
    Missing,
    /// Not a lab dir that can be graded (a file, a folder or a file in it that cannot be read).
    Malformed,
    /// Proctor could not grade it (the cluster or the scenario failed); grading it again may work.
    Error,
}

impl Status {
    const ALL: [Status; 7] = [
        Status::Passed,
        Status::Failed,
        Status::TimedOut,
        Status::Empty,
        Status::Missing,
        Status::Malformed,
        Status::Error,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::TimedOut => "timed-out",
            Status::Empty => "empty",
            Status::Missing => "missing",
            Status::Malformed => "malformed",
            Status::Error => "error",
        }
    }

    /// Its place among the statuses, best first (the order summaries list them in).
    pub fn order(self) -> usize {
        Status::ALL
            .iter()
            .position(|status| *status == self)
            .unwrap_or(Status::ALL.len())
    }

    fn parse(text: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|status| status.name() == text)
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

/// A step of the lab, with the points it holds at grading: 0 for a step only self-checked.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepColumn {
    pub id: u32,
    pub max_score: f64,
}

impl StepColumn {
    /// Every step of `lab`, in order.
    pub fn of(lab: &Lab) -> Vec<StepColumn> {
        lab.scenario
            .steps
            .iter()
            .map(|step| StepColumn {
                id: step.id,
                max_score: total(
                    step.checks
                        .iter()
                        .filter(|check| check.runs_in(Mode::Grade))
                        .map(|check| check.points),
                ),
            })
            .collect()
    }

    fn header(&self) -> String {
        if self.max_score == 0.0 {
            format!("step {} (self-check)", self.id)
        } else {
            format!("step {}", self.id)
        }
    }
}

/// Who a submission is, from the roster (`--roster`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Learner {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub email: String,
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
    /// When the row was made (RFC 3339, UTC): a row kept by `--resume` keeps its time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graded_at: Option<String>,
    /// The Proctor version that made the row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proctor_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learner: Option<Learner>,
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
            graded_at: Some(now()),
            proctor_version: Some(PROCTOR_VERSION.to_string()),
            learner: None,
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
            graded_at: Some(now()),
            proctor_version: Some(PROCTOR_VERSION.to_string()),
            learner: None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gradebook {
    /// The lab's steps; empty in a gradebook written before they were recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepColumn>,
    pub submissions: Vec<Row>,
}

/// The file formats, chosen by the file's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Json,
    /// `*.moodle.csv`: the shape Moodle's grade import takes (see [`Gradebook::to_moodle_csv`]).
    MoodleCsv,
}

impl Format {
    pub fn of(path: &Path) -> anyhow::Result<Format> {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if name.ends_with(".moodle.csv") {
            return Ok(Format::MoodleCsv);
        }
        match path.extension().and_then(|ext| ext.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("csv") => Ok(Format::Csv),
            Some(ext) if ext.eq_ignore_ascii_case("json") => Ok(Format::Json),
            _ => bail!(
                "{}: a gradebook is a .csv, .json or .moodle.csv file (the name picks the format)",
                path.display()
            ),
        }
    }
}

/// The first cell of the CSV's line of maxima.
const POINTS_POSSIBLE: &str = "Points Possible";

/// The learner's columns, led by the roster's.
const LEARNER_COLUMNS: [&str; 3] = ["id", "full name", "email"];

/// A text cell as a spreadsheet shows it rather than runs it (see the module's doc).
fn neutralised(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

/// [`neutralised`] undone.
fn restored(cell: &str) -> String {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) => rest.to_string(),
        _ => cell.to_string(),
    }
}

impl Gradebook {
    /// Rows in name order, the order every writer uses, so a gradebook does not depend on which
    /// submission finished first.
    pub fn sort(&mut self) {
        self.submissions.sort_by(|a, b| a.name.cmp(&b.name));
    }

    /// The step columns: the lab's steps, and any step a row has that they lack (a gradebook
    /// written before the steps were recorded).
    fn step_columns(&self) -> Vec<StepColumn> {
        let mut columns = self.steps.clone();
        let mut extra: Vec<StepColumn> = Vec::new();
        for row in &self.submissions {
            for (id, step) in &row.steps {
                if !columns.iter().chain(&extra).any(|column| column.id == *id) {
                    extra.push(StepColumn {
                        id: *id,
                        max_score: step.max_score,
                    });
                }
            }
        }
        columns.extend(extra);
        columns.sort_by_key(|column| column.id);
        columns
    }

    fn has_learners(&self) -> bool {
        self.submissions.iter().any(|row| row.learner.is_some())
    }

    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|error| {
            format!("{{\"error\": \"cannot serialise the gradebook: {error}\"}}")
        });
        text.push('\n');
        text
    }

    pub fn to_csv(&self) -> anyhow::Result<String> {
        let steps = self.step_columns();
        let learners = self.has_learners();
        let mut writer = csv::Writer::from_writer(Vec::new());
        let mut header: Vec<String> = Vec::new();
        if learners {
            header.extend(LEARNER_COLUMNS.map(String::from));
        }
        header.extend(
            [
                "name",
                "score",
                "max",
                "status",
                "isolation",
                "graded at",
                "proctor",
            ]
            .map(String::from),
        );
        header.extend(steps.iter().map(StepColumn::header));
        writer.write_record(&header)?;

        let max = self
            .submissions
            .iter()
            .map(|row| row.max_score)
            .fold(total(steps.iter().map(|step| step.max_score)), f64::max);
        let mut maxima = vec![String::new(); if learners { LEARNER_COLUMNS.len() } else { 0 }];
        maxima.push(POINTS_POSSIBLE.to_string());
        maxima.extend([points(max), points(max)]);
        maxima.extend(std::iter::repeat_n(String::new(), 4));
        maxima.extend(steps.iter().map(|step| points(step.max_score)));
        writer.write_record(&maxima)?;

        for row in &self.submissions {
            let mut record = Vec::new();
            if learners {
                let learner = row.learner.clone().unwrap_or_default();
                record.extend([learner.id, learner.name, learner.email].map(|t| neutralised(&t)));
            }
            record.extend([
                neutralised(&row.name),
                points(row.score),
                points(row.max_score),
                row.status.to_string(),
                neutralised(row.isolation.as_deref().unwrap_or_default()),
                neutralised(row.graded_at.as_deref().unwrap_or_default()),
                neutralised(row.proctor_version.as_deref().unwrap_or_default()),
            ]);
            // A step a submission has no score for (not graded) is an empty cell, not a zero.
            record.extend(steps.iter().map(|step| {
                row.steps
                    .get(&step.id)
                    .map(|score| points(score.score))
                    .unwrap_or_default()
            }));
            writer.write_record(&record)?;
        }
        let bytes = writer.into_inner().context("writing the CSV gradebook")?;
        String::from_utf8(bytes).context("the CSV gradebook is not UTF-8")
    }

    /// Moodle's grade import (Grades › Import › CSV file): a column per user field the import can
    /// map a learner by (`username`: the folder; `idnumber`, `email`, `fullname` from the roster),
    /// then the total and each graded step, to be mapped onto grade items. A row not graded
    /// through no fault of the learner (`missing`, `error`) has empty grades, which the import
    /// leaves alone, rather than a zero.
    pub fn to_moodle_csv(&self) -> anyhow::Result<String> {
        let steps: Vec<StepColumn> = self
            .step_columns()
            .into_iter()
            .filter(|step| step.max_score > 0.0)
            .collect();
        let mut writer = csv::Writer::from_writer(Vec::new());
        let mut header: Vec<String> = ["username", "idnumber", "email", "fullname", "total"]
            .map(String::from)
            .to_vec();
        header.extend(steps.iter().map(|step| format!("step {}", step.id)));
        header.push("status".to_string());
        writer.write_record(&header)?;
        for row in &self.submissions {
            let learner = row.learner.clone().unwrap_or_default();
            let graded = !matches!(row.status, Status::Missing | Status::Error);
            let mut record: Vec<String> = [
                row.name.as_str(),
                &learner.id,
                &learner.email,
                &learner.name,
            ]
            .map(neutralised)
            .to_vec();
            record.push(if graded {
                points(row.score)
            } else {
                String::new()
            });
            record.extend(steps.iter().map(|step| match row.steps.get(&step.id) {
                Some(score) if graded => points(score.score),
                _ if graded => points(0.0),
                _ => String::new(),
            }));
            record.push(row.status.to_string());
            writer.write_record(&record)?;
        }
        let bytes = writer
            .into_inner()
            .context("writing the Moodle gradebook")?;
        String::from_utf8(bytes).context("the Moodle gradebook is not UTF-8")
    }

    pub fn render(&self, format: Format) -> anyhow::Result<String> {
        match format {
            Format::Csv => self.to_csv(),
            Format::Json => Ok(self.to_json()),
            Format::MoodleCsv => self.to_moodle_csv(),
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
            Format::MoodleCsv => Err(anyhow::anyhow!(
                "a Moodle export is written, not read back: merge the JSON (or CSV) gradebooks"
            )),
        };
        parsed.with_context(|| format!("{} is not a Proctor gradebook", path.display()))
    }

    /// Joins the gradebooks of several shards. A submission in two of them is an error unless both
    /// rows agree (the same shard read twice), since one of two different grades would be lost;
    /// so are shards of labs with different steps.
    pub fn merge(parts: Vec<(String, Gradebook)>) -> anyhow::Result<Gradebook> {
        let mut rows: BTreeMap<String, (String, Row)> = BTreeMap::new();
        let mut steps: Option<(String, Vec<StepColumn>)> = None;
        for (origin, part) in parts {
            if !part.steps.is_empty() {
                match &steps {
                    Some((first, seen)) if *seen != part.steps => bail!(
                        "{first} and {origin} are gradebooks of labs with different steps \
                         (or of two versions of a lab); a course's shards grade the same one"
                    ),
                    Some(_) => {}
                    None => steps = Some((origin.clone(), part.steps.clone())),
                }
            }
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
            steps: steps.map(|(_, steps)| steps).unwrap_or_default(),
            submissions: rows.into_values().map(|(_, row)| row).collect(),
        })
    }
}

/// Reads back [`Gradebook::to_csv`], finding its columns by name (gradebooks written before a
/// column existed lack it): an empty step cell is a step without a score. Without the line of
/// maxima, a step's maximum is unknown (0).
fn from_csv(text: &str) -> anyhow::Result<Gradebook> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers()?.clone();
    let column = |name: &str| header.iter().position(|cell| cell == name);
    let required = ["name", "score", "max", "status"];
    let [Some(name_at), Some(score_at), Some(max_at), Some(status_at)] = required.map(column)
    else {
        bail!(
            "the header must have the columns {}, not {}",
            required.join(","),
            header.iter().collect::<Vec<_>>().join(",")
        );
    };
    let optional = |name: &str| column(name);
    let (isolation_at, graded_at, proctor_at) = (
        optional("isolation"),
        optional("graded at"),
        optional("proctor"),
    );
    let learner_at = LEARNER_COLUMNS.map(optional);
    let mut steps: Vec<(usize, StepColumn)> = Vec::new();
    for (index, cell) in header.iter().enumerate() {
        let Some(rest) = cell.strip_prefix("step ") else {
            continue;
        };
        let id = rest.strip_suffix(" (self-check)").unwrap_or(rest);
        let id: u32 = id
            .parse()
            .with_context(|| format!("column {cell:?} is not \"step N\""))?;
        steps.push((index, StepColumn { id, max_score: 0.0 }));
    }
    let mut submissions = Vec::new();
    let mut maxima_read = false;
    for (line, record) in reader.records().enumerate() {
        let record = record?;
        let at = || format!("row {}", line + 2);
        let cell = |index: usize| record.get(index).unwrap_or_default();
        let text = |index: Option<usize>| index.map(|i| restored(cell(i))).unwrap_or_default();
        let number = |index: usize| -> anyhow::Result<f64> {
            cell(index)
                .parse()
                .with_context(|| format!("{}: {:?} is not a number", at(), cell(index)))
        };
        if line == 0 && cell(name_at) == POINTS_POSSIBLE && cell(status_at).is_empty() {
            for (index, step) in &mut steps {
                step.max_score = number(*index)?;
            }
            maxima_read = true;
            continue;
        }
        let status = Status::parse(cell(status_at))
            .with_context(|| format!("{}: unknown status {:?}", at(), cell(status_at)))?;
        let mut row_steps = BTreeMap::new();
        for (index, step) in &steps {
            if cell(*index).is_empty() {
                continue;
            }
            let score = cell(*index).parse().with_context(|| {
                format!(
                    "{}: step {}: {:?} is not a number",
                    at(),
                    step.id,
                    cell(*index)
                )
            })?;
            row_steps.insert(
                step.id,
                StepScore {
                    score,
                    max_score: step.max_score,
                },
            );
        }
        let present = |value: String| Some(value).filter(|value| !value.is_empty());
        let learner = Learner {
            id: text(learner_at[0]),
            name: text(learner_at[1]),
            email: text(learner_at[2]),
        };
        submissions.push(Row {
            name: restored(cell(name_at)),
            score: number(score_at)?,
            max_score: number(max_at)?,
            status,
            steps: row_steps,
            message: None,
            isolation: present(text(isolation_at)),
            graded_at: present(text(graded_at)),
            proctor_version: present(text(proctor_at)),
            learner: (learner != Learner::default()).then_some(learner),
        });
    }
    Ok(Gradebook {
        steps: if maxima_read {
            steps.into_iter().map(|(_, step)| step).collect()
        } else {
            Vec::new()
        },
        submissions,
    })
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
            graded_at: Some("2026-12-05T09:00:00Z".into()),
            proctor_version: Some("0.1.0".into()),
            learner: None,
        }
    }

    fn ungraded(name: &str, status: Status, message: &str) -> Row {
        Row {
            graded_at: Some("2026-12-05T09:00:00Z".into()),
            proctor_version: Some("0.1.0".into()),
            ..Row::ungraded(name, status, 5.0, message.into())
        }
    }

    /// A lab of three steps, the first self-checked only.
    fn steps() -> Vec<StepColumn> {
        [(1, 0.0), (2, 2.0), (3, 3.0)]
            .map(|(id, max_score)| StepColumn { id, max_score })
            .to_vec()
    }

    fn book() -> Gradebook {
        Gradebook {
            steps: steps(),
            submissions: vec![
                row("alice", &[(2, 2.0, 2.0), (3, 1.5, 3.0)], Status::Failed),
                row("bob, jr.", &[(2, 2.0, 2.0), (3, 3.0, 3.0)], Status::Passed),
                ungraded("carol", Status::Malformed, "not a directory"),
                ungraded("dave", Status::Empty, "nothing handed in"),
            ],
        }
    }

    #[test]
    fn csv_has_every_step_and_a_line_of_maxima() {
        let csv = book().to_csv().expect("csv");
        let expected =
            "name,score,max,status,isolation,graded at,proctor,step 1 (self-check),step 2,step 3\n\
                        Points Possible,5,5,,,,,0,2,3\n\
                        alice,3.50,5,failed,bubblewrap,2026-12-05T09:00:00Z,0.1.0,,2,1.50\n\
                        \"bob, jr.\",5,5,passed,bubblewrap,2026-12-05T09:00:00Z,0.1.0,,2,3\n\
                        carol,0,5,malformed,,2026-12-05T09:00:00Z,0.1.0,,,\n\
                        dave,0,5,empty,,2026-12-05T09:00:00Z,0.1.0,,,\n";
        assert_eq!(csv, expected);
        let back = from_csv(&csv).expect("read back");
        assert_eq!(back.steps, steps());
        assert_eq!(back.submissions[0].steps[&3].max_score, 3.0);
        assert_eq!(back.submissions[0].isolation.as_deref(), Some("bubblewrap"));
        assert_eq!(back.submissions[2].isolation, None);
        assert_eq!(back.submissions[3].status, Status::Empty);
    }

    #[test]
    fn gradebooks_written_before_the_new_columns_still_read() {
        let old = from_csv("name,score,max,status,step 1\nalice,1,2,failed,1\n").expect("old");
        assert_eq!(old.submissions[0].steps.len(), 1);
        assert!(old.steps.is_empty());
        let old =
            from_csv("name,score,max,status,isolation,step 2\nalice,1,2,failed,bubblewrap,1\n")
                .expect("with isolation");
        assert_eq!(old.submissions[0].isolation.as_deref(), Some("bubblewrap"));
        assert_eq!(old.submissions[0].steps[&2].score, 1.0);
    }

    /// A cell that starts like a formula is shown, not run, by a spreadsheet, and reads back as
    /// it was.
    #[test]
    fn formula_like_cells_are_neutralised() {
        let mut book = book();
        book.submissions[0].name = "=1+2".into();
        book.submissions[1].name = "@SUM(A1)".into();
        book.submissions[2].name = "-cmd|' /C calc'!A0".into();
        book.submissions[3].learner = Some(Learner {
            id: "+42".into(),
            name: "\tTab".into(),
            email: "d@example.org".into(),
        });
        let csv = book.to_csv().expect("csv");
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        for record in reader.records() {
            for cell in record.expect("record").iter() {
                assert!(
                    !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                    "a cell a spreadsheet would run: {cell:?}\n{csv}"
                );
            }
        }
        let back = from_csv(&csv).expect("read back");
        let names: Vec<&str> = back.submissions.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["=1+2", "@SUM(A1)", "-cmd|' /C calc'!A0", "dave"]);
        assert_eq!(back.submissions[3].learner, book.submissions[3].learner);
        // A name that merely starts with a quote is left alone.
        assert_eq!(neutralised("'quoted"), "'quoted");
        assert_eq!(restored("'quoted"), "'quoted");
    }

    #[test]
    fn roster_columns_lead_the_csv() {
        let mut book = book();
        book.submissions[0].learner = Some(Learner {
            id: "s001".into(),
            name: "Alice Kim".into(),
            email: "alice@example.org".into(),
        });
        let csv = book.to_csv().expect("csv");
        let mut lines = csv.lines();
        assert!(
            lines
                .next()
                .is_some_and(|header| header.starts_with("id,full name,email,name,score")),
            "{csv}"
        );
        assert_eq!(lines.next(), Some(",,,Points Possible,5,5,,,,,0,2,3"));
        assert!(lines
            .next()
            .is_some_and(|alice| alice.starts_with("s001,Alice Kim,alice@example.org,alice,")));
        let back = from_csv(&csv).expect("read back");
        assert_eq!(back.submissions[0].learner, book.submissions[0].learner);
        assert_eq!(back.submissions[1].learner, None);
    }

    #[test]
    fn the_moodle_export_maps_learners_and_leaves_missing_grades_empty() {
        let mut book = book();
        book.submissions[0].learner = Some(Learner {
            id: "s001".into(),
            name: "Alice Kim".into(),
            email: "alice@example.org".into(),
        });
        book.submissions
            .push(ungraded("erin", Status::Missing, "on the roster"));
        book.submissions
            .push(ungraded("finn", Status::Error, "the cluster failed"));
        let csv = book.to_moodle_csv().expect("csv");
        let expected = "username,idnumber,email,fullname,total,step 2,step 3,status\n\
                        alice,s001,alice@example.org,Alice Kim,3.50,2,1.50,failed\n\
                        \"bob, jr.\",,,,5,2,3,passed\n\
                        carol,,,,0,0,0,malformed\n\
                        dave,,,,0,0,0,empty\n\
                        erin,,,,,,,missing\n\
                        finn,,,,,,,error\n";
        assert_eq!(csv, expected);
        assert_eq!(
            Format::of(Path::new("out/Grades.Moodle.CSV")).expect("format"),
            Format::MoodleCsv
        );
    }

    #[test]
    fn json_has_the_documented_shape() {
        let value: serde_json::Value = serde_json::from_str(&book().to_json()).expect("valid JSON");
        assert_eq!(value["steps"][0]["id"], 1);
        assert_eq!(value["steps"][0]["max_score"], 0.0);
        assert_eq!(value["steps"][2]["max_score"], 3.0);
        let alice = &value["submissions"][0];
        assert_eq!(alice["name"], "alice");
        assert_eq!(alice["score"], 3.5);
        assert_eq!(alice["max_score"], 5.0);
        assert_eq!(alice["status"], "failed");
        assert_eq!(alice["steps"]["3"]["score"], 1.5);
        assert_eq!(alice["steps"]["3"]["max_score"], 3.0);
        assert_eq!(alice["graded_at"], "2026-12-05T09:00:00Z");
        assert_eq!(alice["proctor_version"], "0.1.0");
        assert!(alice.get("message").is_none());
        assert!(alice.get("learner").is_none());
        assert_eq!(value["submissions"][2]["status"], "malformed");
        assert_eq!(value["submissions"][2]["message"], "not a directory");
        assert_eq!(value["submissions"][3]["status"], "empty");
    }

    #[test]
    fn both_formats_read_back() {
        let original = book();
        let json: Gradebook = serde_json::from_str(&original.to_json()).expect("json");
        assert_eq!(json, original);
        let csv = from_csv(&original.to_csv().expect("csv")).expect("read csv");
        let names: Vec<_> = csv.submissions.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["alice", "bob, jr.", "carol", "dave"]);
        assert_eq!(csv.submissions[0].steps[&3].score, 1.5);
        assert_eq!(csv.submissions[2].status, Status::Malformed);
        assert!(csv.submissions[2].steps.is_empty());
        assert_eq!(
            csv.submissions[0].graded_at,
            original.submissions[0].graded_at
        );
    }

    #[test]
    fn merge_joins_shards_and_refuses_conflicts() {
        let whole = book();
        let (a, b) = whole.submissions.split_at(1);
        let part = |rows: &[Row]| Gradebook {
            steps: steps(),
            submissions: rows.to_vec(),
        };
        let parts = vec![
            ("b.json".to_string(), part(b)),
            ("a.json".to_string(), part(a)),
            // The same shard given twice is harmless.
            ("a2.json".to_string(), part(a)),
        ];
        assert_eq!(Gradebook::merge(parts).expect("merge"), whole);

        let mut other = a.to_vec();
        other[0].score = 0.0;
        let error = Gradebook::merge(vec![
            ("a.json".into(), part(a)),
            ("x.json".into(), part(&other)),
        ])
        .expect_err("conflict");
        assert!(error.to_string().contains("a.json and x.json"), "{error}");

        let mut another_lab = part(b);
        another_lab.steps.pop();
        let error = Gradebook::merge(vec![
            ("a.json".into(), part(a)),
            ("y.json".into(), another_lab),
        ])
        .expect_err("different steps");
        assert!(error.to_string().contains("different steps"), "{error}");
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
