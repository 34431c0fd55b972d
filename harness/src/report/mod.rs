//! Reports: the result model and its renderings (text, Gradescope JSON, JUnit XML, Markdown,
//! the model's own JSON).

pub mod gradescope;
pub mod junit;
pub mod markdown;
pub mod model;
pub mod native;
pub mod progress;
pub mod style;
pub mod text;
pub mod visible;

#[cfg(test)]
pub(crate) mod tests;

use clap::ValueEnum;

pub use model::{CheckReport, Report, StepReport};
pub use progress::{Progress, Silent, StderrProgress};
pub use style::{ColorChoice, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Format {
    /// Human-readable, with ✓/✗ and diffs.
    #[default]
    Text,
    /// results.json as Gradescope reads it, with the maximum score at the top and plain-text
    /// outputs, for scripts.
    Json,
    /// Gradescope's results.json exactly: only the fields its specification defines, Markdown
    /// outputs (what `proctor gradescope` bundles use).
    Gradescope,
    /// JUnit XML (one testsuite per step).
    Junit,
    /// Markdown summary.
    Markdown,
    /// The report itself as JSON: every check with its message and diff, learner, time,
    /// version, submission digest, isolation, duration (`proctor schema report` for its schema).
    ReportJson,
}

pub fn render(report: &Report, format: Format, style: Style) -> String {
    match format {
        Format::Text => text::render(report, style),
        Format::Json => gradescope::render(report, gradescope::Flavor::Scripts),
        Format::Gradescope => gradescope::render(report, gradescope::Flavor::Gradescope),
        Format::Junit => junit::render(report),
        Format::Markdown => markdown::render(report),
        Format::ReportJson => native::render(report),
    }
}
