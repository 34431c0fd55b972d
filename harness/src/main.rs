//! The `proctor` binary: parse the command line, set up logging, run, map the result to the
//! exit status (0 passed, 1 a check failed, 2 proctor could not run, 130 interrupted).

use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::EnvFilter;

use proctor::cli::Cli;
use proctor::commands::{dispatch, Verdict};
use proctor::report::style::Stream;
use proctor::report::{ColorChoice, Style};

/// `-v` and `-vv` raise Proctor's own crates only: its dependencies (HTTP/2, TLS, the kube
/// client) log every frame at debug, thousands of lines per grading that hide its decisions.
/// `-vvv` shows everything; `RUST_LOG` replaces the filter.
fn log_filter(verbose: u8) -> &'static str {
    match verbose {
        0 => "warn",
        1 => "warn,proctor=info,kwok=info,graders=info",
        2 => "warn,proctor=debug,kwok=debug,graders=debug",
        _ => "debug",
    }
}

fn init_logging(verbose: u8, color: ColorChoice) {
    let default = log_filter(verbose);
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(Style::resolve(color, Stream::Stderr).color)
        .with_target(false)
        .try_init();
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose, cli.color);
    // Before anything is written: a learner's code must not read what the grader writes.
    proctor::sandbox::harden_grader_files();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(dispatch(&cli));
    // Blocking sandbox runs may still be winding down; don't wait for them forever.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    match result {
        Ok(Verdict::Passed) => ExitCode::SUCCESS,
        Ok(Verdict::Failed) => ExitCode::from(1),
        Ok(Verdict::Interrupted) => ExitCode::from(130),
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}
