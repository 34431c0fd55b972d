//! One module per subcommand.

pub mod batch;
pub mod check;
pub mod common;
pub mod demo;
pub mod grade;
pub mod gradebook;
pub mod gradescope;
pub mod labs;
pub mod lint;
pub mod selftest;
pub mod solve;
pub mod up;

pub use common::{Globals, Verdict};

use crate::cli::{Cli, Command, SchemaKind};

pub async fn dispatch(cli: &Cli) -> anyhow::Result<Verdict> {
    let _ = crate::interrupt::listen_for_interrupts();
    let globals = Globals {
        color: cli.color,
        scenarios: cli.scenarios.clone(),
        cluster: cli.command.cluster(),
        accept_unisolated: cli.command.accept_unisolated(),
    };
    match &cli.command {
        Command::Up(args) => up::run(&globals, args).await,
        Command::Check(args) => check::run(&globals, args).await,
        Command::Grade(args) => grade::run(&globals, args).await,
        Command::Solve(args) => solve::run(&globals, args).await,
        Command::Selftest(args) => selftest::run(&globals, args).await,
        Command::Demo(args) => demo::run(&globals, args).await,
        Command::Labs => labs::run(&globals),
        Command::Gradebook(command) => gradebook::run(command),
        Command::Gradescope(args) => gradescope::run(&globals, args),
        Command::Lint(args) => lint::run(&globals, args).await,
        Command::Schema(args) => {
            match args.kind {
                SchemaKind::Scenario => print!("{}", crate::scenario::schema::scenario_schema()),
                SchemaKind::Report => print!("{}", crate::report::native::report_schema()),
            }
            Ok(Verdict::Passed)
        }
    }
}
