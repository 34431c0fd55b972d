//! The class report: one self-contained HTML page a batch writes beside its reports (`index.html`,
//! or `--report-html FILE`) — the score distribution, each step's and each check's pass rate with
//! the checks that fail most first and their most common failure messages, and every learner's
//! row linking to their report, with their failing checks and diffs. What a lecturer asks after a
//! lab: what do I re-teach?
//!
//! Its numbers come from the gradebook's rows (scores, statuses, steps) and from each graded
//! submission's report, kept as report-json in the reports folder's [`RESULTS_DIR`] whatever
//! `--format` the reports have, so that a `--resume`d batch's page still covers every learner.

pub mod html;
mod stats;
mod svg;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::batch::gradebook::Gradebook;
use crate::report::Report;
use crate::scenario::Lab;

pub use stats::{CheckStats, Stats, StepStats};

/// Where each graded submission's report is kept for the class report, in the reports folder.
pub const RESULTS_DIR: &str = ".proctor-results";

/// The default file name of the class report, in the reports folder.
pub const FILE_NAME: &str = "index.html";

/// The kept report of submission `name`.
pub fn result_path(reports: &Path, name: &str) -> PathBuf {
    reports.join(RESULTS_DIR).join(format!("{name}.json"))
}

/// Keeps `report` as submission `name`'s (through a rename: a file cut short by a crash is never
/// read as a whole one).
pub fn save_result(reports: &Path, name: &str, report: &Report) -> anyhow::Result<()> {
    let path = result_path(reports, name);
    let dir = reports.join(RESULTS_DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let text = crate::report::native::render(report);
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, &path))
        .with_context(|| format!("writing {}", path.display()))
}

/// The kept reports of the submissions `names`; one that is missing or unreadable (a batch from
/// an older Proctor, a folder tidied by hand) is left out with a warning: its learner's row is
/// still on the page, without check details.
pub fn load_results<'a>(
    reports: &Path,
    names: impl IntoIterator<Item = &'a str>,
) -> BTreeMap<String, Report> {
    let mut results = BTreeMap::new();
    for name in names {
        let path = result_path(reports, name);
        let read = std::fs::read_to_string(&path)
            .map_err(anyhow::Error::from)
            .and_then(|text| serde_json::from_str::<Report>(&text).map_err(anyhow::Error::from));
        match read {
            Ok(report) => {
                results.insert(name.to_string(), report);
            }
            Err(error) if path.exists() => {
                tracing::warn!("{}: not in the class report: {error:#}", path.display());
            }
            Err(_) => {}
        }
    }
    results
}

/// Writes the class report of `gradebook` (whose reports are in `reports`, in `format`) to
/// `page`, through a rename; returns its size in bytes.
pub fn write(
    lab: &Lab,
    gradebook: &Gradebook,
    reports: &Path,
    format: crate::report::Format,
    page: &Path,
) -> anyhow::Result<usize> {
    let results = load_results(
        reports,
        gradebook.submissions.iter().map(|row| row.name.as_str()),
    );
    let page_dir = super::submissions::resolve(page.parent().unwrap_or(Path::new(".")));
    let reports_dir = super::submissions::resolve(reports);
    let links = gradebook
        .submissions
        .iter()
        .filter_map(|row| {
            let file = super::report_name(&row.name, format);
            reports
                .join(&file)
                .is_file()
                .then(|| (row.name.clone(), link(&page_dir, &reports_dir.join(&file))))
        })
        .collect();
    let html = html::render(&html::Page {
        lab: lab.name(),
        title: &lab.scenario.title,
        gradebook,
        results: &results,
        links: &links,
    });
    if let Some(parent) = page.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let temporary = page.with_extension(format!("html.{}.tmp", std::process::id()));
    std::fs::write(&temporary, &html)
        .and_then(|()| std::fs::rename(&temporary, page))
        .with_context(|| format!("writing the class report {}", page.display()))?;
    Ok(html.len())
}

/// The href from a page in `page_dir` to `file` (both resolved): relative below the page's
/// folder, else the absolute path; each byte a URL would misread percent-encoded.
fn link(page_dir: &Path, file: &Path) -> String {
    let path = file.strip_prefix(page_dir).unwrap_or(file);
    let mut href = String::new();
    if path.is_absolute() {
        href.push_str("file://");
    }
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                href.push(char::from(byte))
            }
            other => href.push_str(&format!("%{other:02X}")),
        }
    }
    href
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_relative_below_the_page_and_encoded() {
        let page = Path::new("/srv/class/reports");
        assert_eq!(
            link(page, Path::new("/srv/class/reports/ada lovelace#1.txt")),
            "ada%20lovelace%231.txt"
        );
        assert_eq!(
            link(page, Path::new("/srv/other/bob.txt")),
            "file:///srv/other/bob.txt"
        );
    }
}
