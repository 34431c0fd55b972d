//! Live progress while a lab is graded: one line per finished step on stderr, so the report on
//! stdout stays machine-readable.

use super::model::StepReport;
use super::style::Style;

pub trait Progress: Send {
    /// A step is about to be graded.
    fn step_started(&mut self, _step: u32, _steps: usize, _title: &str) {}
    fn step_finished(&mut self, _step: &StepReport, _steps: usize) {}
    /// Something slow is happening (reference run, cluster start).
    fn phase(&mut self, _text: &str) {}
}

/// No progress output (tests, `--quiet`).
pub struct Silent;

impl Progress for Silent {}

pub struct StderrProgress {
    pub style: Style,
}

impl Progress for StderrProgress {
    fn step_finished(&mut self, step: &StepReport, steps: usize) {
        let passed = step.checks.iter().filter(|check| check.passed).count();
        let mark = if step.passed() {
            self.style.pass_mark()
        } else {
            self.style.fail_mark()
        };
        eprintln!(
            "{mark} step {}/{steps} {} {}",
            step.id,
            step.title,
            self.style
                .dim(&format!("({passed}/{} checks)", step.checks.len()))
        );
    }

    fn phase(&mut self, text: &str) {
        eprintln!("{}", self.style.dim(text));
    }
}
