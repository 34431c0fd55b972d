//! One progress bar for a batch, with an ETA, and a line per graded submission: drawn above the
//! bar on a terminal, printed plainly elsewhere (a Job's log, CI), where a bar would be noise.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::gradebook::{Row, Status};
use crate::report::model::points;
use crate::report::Style;

pub struct BatchProgress {
    bar: Option<ProgressBar>,
    style: Style,
    quiet: bool,
    total: u64,
    done: std::sync::atomic::AtomicU64,
    /// When grading started, and how many rows were done by then (known without grading):
    /// the ETA is the pace of the grading alone.
    started: std::sync::Mutex<(Instant, u64)>,
}

impl BatchProgress {
    pub fn new(total: usize, quiet: bool, style: Style) -> BatchProgress {
        let total = total as u64;
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let template = "{elapsed_precise} [{bar:30}] {pos}/{len} graded, ETA {eta} {msg}";
            if let Ok(bar_style) = ProgressStyle::with_template(template) {
                bar.set_style(bar_style.progress_chars("=> "));
            }
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        BatchProgress {
            bar,
            style,
            quiet,
            total,
            done: std::sync::atomic::AtomicU64::new(0),
            started: std::sync::Mutex::new((Instant::now(), 0)),
        }
    }

    /// The clusters and the reference are ready: the ETA counts from here.
    pub fn grading_starts(&self) {
        let done = self.done.load(std::sync::atomic::Ordering::SeqCst);
        *self
            .started
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = (Instant::now(), done);
        if let Some(bar) = &self.bar {
            bar.reset_eta();
        }
    }

    /// Something slow before the grading starts (the reference, the clusters).
    pub fn phase(&self, text: &str) {
        self.line(&self.style.dim(text));
    }

    /// A submission is done: its line, and the bar moves on.
    pub fn finished(&self, row: &Row, took: Option<Duration>) {
        let done = self.done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let mark = match row.status {
            Status::Passed => self.style.pass_mark(),
            _ => self.style.fail_mark(),
        };
        let how = match took {
            Some(took) => format!("{:.1} s", took.as_secs_f64()),
            None if matches!(row.status, Status::Malformed | Status::Empty) => {
                "not graded".to_string()
            }
            None => "already graded".to_string(),
        };
        let mut text = format!(
            "{mark} {} {} / {} {} {}",
            row.name,
            points(row.score),
            points(row.max_score),
            row.status,
            self.style.dim(&format!("({how})"))
        );
        if let Some(message) = &row.message {
            text.push_str(&format!(": {}", first_line(message)));
        }
        match &self.bar {
            Some(bar) => {
                bar.println(text);
                bar.inc(1);
            }
            None => {
                if !self.quiet {
                    let eta = self.eta(done);
                    eprintln!("[{done}/{}{eta}] {text}", self.total);
                }
            }
        }
    }

    /// ", ETA 3m12s" from the pace so far, once something has been graded.
    fn eta(&self, done: u64) -> String {
        let (started, before) = *self
            .started
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let left = self.total.saturating_sub(done);
        let graded = done.saturating_sub(before);
        if graded == 0 || left == 0 {
            return String::new();
        }
        let per = started.elapsed().as_secs_f64() / graded as f64;
        let seconds = (per * left as f64).round() as u64;
        format!(", ETA {}m{:02}s", seconds / 60, seconds % 60)
    }

    fn line(&self, text: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}
