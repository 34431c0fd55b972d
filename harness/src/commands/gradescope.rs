//! `proctor gradescope <lab> --output FILE.zip`: the lab as a Gradescope autograder.

use anyhow::Context;

use super::{Globals, Verdict};
use crate::autograder::{write, Bundle, HiddenChecks};
use crate::cli::GradescopeArgs;
use crate::sandbox::on_path;
use crate::scenario::Visibility;

pub fn run(globals: &Globals, args: &GradescopeArgs) -> anyhow::Result<Verdict> {
    let lab = globals.lab(&args.lab)?;
    let proctor = match &args.binary {
        Some(binary) => binary.clone(),
        None => std::env::current_exe().context("finding this proctor binary")?,
    };
    let kubectl = match &args.kubectl {
        Some(kubectl) => kubectl.clone(),
        None => on_path("kubectl")
            .context("kubectl is not on PATH: give the one to ship with --kubectl FILE")?,
    };
    let bundle = Bundle {
        lab: &lab,
        proctor,
        kubectl,
        hidden: args.hidden_checks,
    };
    write(&bundle, &args.out)?;
    let size = std::fs::metadata(&args.out).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "wrote {} ({:.1} MB): upload it as the autograder of {} on Gradescope",
        args.out.display(),
        size as f64 / 1e6,
        lab.name()
    );
    let hidden = lab
        .scenario
        .steps
        .iter()
        .flat_map(|step| step.checks.iter())
        .filter(|check| check.visibility == Visibility::Hidden)
        .count();
    if hidden > 0 {
        eprintln!(
            "note: the lab's {hidden} hidden checks are shown {} (--hidden-checks); until grades are published Gradescope shows learners no total score",
            match args.hidden_checks {
                HiddenChecks::AfterPublished => "to learners once grades are published",
                HiddenChecks::AfterDueDate => "to learners after the due date",
                HiddenChecks::Hidden => "to the course staff only",
            }
        );
    }
    Ok(Verdict::Passed)
}
