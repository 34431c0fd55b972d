//! `proctor gradebook merge`: the shards' gradebooks of a course joined into one.

use std::io::Write;

use anyhow::Context;

use super::Verdict;
use crate::batch::gradebook::{Format, Gradebook};
use crate::cli::GradebookCommand;

pub fn run(command: &GradebookCommand) -> anyhow::Result<Verdict> {
    match command {
        GradebookCommand::Merge(args) => {
            let csv_in = args
                .inputs
                .iter()
                .find(|path| matches!(Format::of(path), Ok(Format::Csv)));
            for output in &args.output {
                if let (Format::Json, Some(csv)) = (Format::of(output)?, csv_in) {
                    anyhow::bail!(
                        "{}: a CSV gradebook does not hold each step's maximum nor a row's \
                         message, so a JSON gradebook cannot be made from it; merge the shards' \
                         JSON gradebooks",
                        csv.display()
                    );
                }
            }
            let parts = args
                .inputs
                .iter()
                .map(|path| Ok((path.display().to_string(), Gradebook::read(path)?)))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let mut merged = Gradebook::merge(parts)?;
            merged.sort();
            if args.output.is_empty() {
                let mut stdout = std::io::stdout().lock();
                stdout
                    .write_all(merged.to_csv()?.as_bytes())
                    .context("writing the gradebook")?;
            }
            for output in &args.output {
                merged.write(output)?;
            }
            eprintln!(
                "{} submission(s) from {} gradebook(s)",
                merged.submissions.len(),
                args.inputs.len()
            );
            Ok(Verdict::Passed)
        }
    }
}
