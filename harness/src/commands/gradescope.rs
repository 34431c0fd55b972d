//! `proctor gradescope <lab> --out FILE.zip`: the lab as a Gradescope autograder.

use anyhow::Context;

use super::{Globals, Verdict};
use crate::autograder::{write, Bundle};
use crate::cli::GradescopeArgs;
use crate::sandbox::on_path;

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
    };
    write(&bundle, &args.out)?;
    eprintln!(
        "wrote {}: upload it as the autograder of {} on Gradescope",
        args.out.display(),
        lab.name()
    );
    Ok(Verdict::Passed)
}
