//! The class report's plots, drawn as inline SVG: no script, no library, nothing fetched, and
//! they print.

use maud::{html, Markup};

use super::stats::{Stats, StepStats};
use crate::report::model::points;

const BAR: &str = "#3b6ea8";
const FULL: &str = "#2e8540";
const TRACK: &str = "#e4e8ee";
const INK: &str = "#222";

/// The score distribution: a column per tenth of the maximum.
pub fn histogram(stats: &Stats) -> Markup {
    let (width, height, base, left) = (560.0, 200.0, 170.0, 30.0);
    let column = (width - left) / 10.0;
    let tallest = stats.histogram.iter().copied().max().unwrap_or(0).max(1) as f64;
    let label = |bin: usize| -> String {
        if bin == 9 {
            "90–100%".to_string()
        } else {
            format!("{}–{}%", bin * 10, bin * 10 + 10)
        }
    };
    html! {
        svg class="plot" role="img" width=(width) height=(height) viewBox={"0 0 " (width) " " (height)} {
            title { "Score distribution: submissions per tenth of the maximum score" }
            line x1=(left) y1=(base) x2=(width) y2=(base) stroke=(INK) stroke-width="1" {}
            @for (bin, count) in stats.histogram.iter().enumerate() {
                @let tall = (base - 20.0) * (*count as f64) / tallest;
                @let x = left + column * bin as f64 + 4.0;
                rect data-bin=(bin) data-count=(count) x=(x) y=(base - tall) width=(column - 8.0) height=(tall)
                    fill=(if bin == 9 { FULL } else { BAR }) {
                    title { (label(bin)) ": " (count) " submission(s)" }
                }
                @if *count > 0 {
                    text x=(x + (column - 8.0) / 2.0) y=(base - tall - 4.0) text-anchor="middle" font-size="12" fill=(INK) { (count) }
                }
                text x=(x + (column - 8.0) / 2.0) y=(base + 16.0) text-anchor="middle" font-size="10" fill=(INK) { (label(bin)) }
            }
        }
    }
}

/// Each graded step's mean score as a share of its points, with how many got full marks.
pub fn steps(steps: &[StepStats]) -> Markup {
    let (width, row, left, track) = (640.0, 26.0, 70.0, 300.0);
    let height = row * steps.len() as f64 + 8.0;
    html! {
        svg class="plot" role="img" width=(width) height=(height) viewBox={"0 0 " (width) " " (height)} {
            title { "Mean score of each step, as a share of its points" }
            @for (k, step) in steps.iter().enumerate() {
                @let y = 4.0 + row * k as f64;
                @let share = if step.max_score > 0.0 { step.mean / step.max_score } else { 0.0 };
                text x="0" y=(y + 15.0) font-size="13" fill=(INK) { "step " (step.id) }
                rect x=(left) y=(y) width=(track) height="18" fill=(TRACK) {}
                rect x=(left) y=(y) width=(track * share) height="18" fill=(if share >= 1.0 { FULL } else { BAR }) {
                    title { "step " (step.id) ": mean " (points(round2(step.mean))) " of " (points(step.max_score)) }
                }
                text x=(left + track + 8.0) y=(y + 14.0) font-size="12" fill=(INK) {
                    (percent(share)) " of points · " (step.full_marks) "/" (step.scored) " full marks"
                }
            }
        }
    }
}

/// A small bar for a share (a check's failure rate in its table row).
pub fn share_bar(share: f64, colour: &str) -> Markup {
    let width = 120.0;
    html! {
        svg class="bar" width=(width) height="12" viewBox={"0 0 " (width) " 12"} aria-hidden="true" {
            rect x="0" y="0" width=(width) height="12" fill=(TRACK) {}
            rect x="0" y="0" width=(width * share.clamp(0.0, 1.0)) height="12" fill=(colour) {}
        }
    }
}

pub fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

pub fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}
