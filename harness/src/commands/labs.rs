//! `proctor labs`

use super::common::{Globals, Verdict};
use crate::scenario::lookup::list_labs;
use crate::scenario::Lab;

pub fn run(globals: &Globals) -> anyhow::Result<Verdict> {
    let labs = list_labs(globals.scenarios.as_deref());
    if labs.is_empty() {
        anyhow::bail!("no labs found (set $PROCTOR_SCENARIOS or pass --scenarios DIR)");
    }
    for (name, file) in labs {
        match Lab::load(&file) {
            Ok(lab) => println!(
                "{name:<12} {} steps  {}  ({})",
                lab.scenario.steps.len(),
                lab.scenario.title,
                file.display()
            ),
            Err(error) => println!("{name:<12} INVALID: {error:#}"),
        }
    }
    Ok(Verdict::Passed)
}
