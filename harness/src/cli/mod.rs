//! Command-line interface (clap derive).

use std::path::PathBuf;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

use crate::cluster::ClusterKind;
use crate::report::{ColorChoice, Format};

const EXAMPLES: &str = "\
Examples:
  proctor demo                                  grade every bundled submission of every lab
  proctor labs                                  list the labs and where they were found
  proctor up gpudrv --dir /root/gpudrv          start a lab cluster; prints `export KUBECONFIG=...`
                                                (keep it running; paste that line in another shell)
  proctor check gpudrv --step 2                 self-check step 2 in /root/gpudrv on $KUBECONFIG
  proctor grade gpudrv --submission ./alice --format json --output results.json
  proctor solve gpuops --dir /tmp/gpuops        write the reference solution into a directory
  proctor selftest gpudrv                       prove the scenario tells done from not done
  proctor grade gpudrv --cluster kwokctl --submission ./alice
                                                grade on a real control plane (upstream/build.sh)

Exit status: 0 all checks passed, 1 a check failed, 2 proctor itself could not run
(bad scenario, cluster would not start), 130 interrupted (Ctrl-C / SIGTERM; an external
cluster is restored first).

Scenarios are looked up in: LAB as a path; --scenarios/$PROCTOR_SCENARIOS; scenarios/ in the
current directory or an ancestor; scenarios/ next to the binary or an ancestor of it.";

#[derive(Debug, Parser)]
#[command(
    name = "proctor",
    version,
    about = "Grade hands-on Kubernetes labs against a reference solution",
    long_about = "Proctor grades hands-on Kubernetes labs. It runs a lab's reference solution on an \
embedded Kubernetes-compatible cluster (or a cluster you give it), then judges a learner's files, \
scripts and cluster objects step by step against the reference: scripts by behaviour (same output \
and exit code in the same cluster state, on nodes the learner has never seen), manifests by the \
objects they create, and outputs by their meaning.",
    after_help = EXAMPLES
)]
pub struct Cli {
    /// More log output on stderr: -v Proctor's decisions (checks, runs, restores), -vv its
    /// details, -vvv every dependency's too; RUST_LOG overrides.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,

    /// Colour the output: auto = only on a terminal and without NO_COLOR.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,

    /// Directory holding <lab>/scenario.yaml (overrides the default lookup).
    #[arg(long, env = "PROCTOR_SCENARIOS", value_name = "DIR", global = true)]
    pub scenarios: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

/// Which private cluster a command starts (for the commands that start one).
#[derive(Debug, Clone, Copy, Args)]
#[command(next_help_heading = "Cluster and sandbox")]
pub struct ClusterArg {
    /// The private cluster to start: Proctor's embedded one, or a real control plane with kwok
    /// fake nodes run by kwokctl from the binaries `upstream/build.sh` builds.
    #[arg(
        long,
        value_enum,
        env = "PROCTOR_CLUSTER",
        default_value_t = ClusterKind::Embedded
    )]
    pub cluster: ClusterKind,
}

/// Whether learners' scripts may run unconfined (for the commands that run them).
#[derive(Debug, Clone, Copy, Args)]
#[command(next_help_heading = "Cluster and sandbox")]
pub struct SandboxArg {
    /// Grade even where learners' scripts would run as this user, unconfined (no root, no
    /// namespaces): every report then says so. Without it such a machine refuses to grade.
    #[arg(
        long,
        env = "PROCTOR_ACCEPT_UNISOLATED",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub accept_unisolated: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start an embedded cluster in the foreground and print `export KUBECONFIG=...`.
    Up(UpArgs),
    /// Self-check the learner's live lab dir and cluster (visible checks only).
    Check(CheckArgs),
    /// Grade a submitted lab dir against the reference solution.
    Grade(GradeArgs),
    /// Run the reference solution into a directory (and cluster).
    Solve(SolveArgs),
    /// Prove that a scenario's checks tell done from not done.
    Selftest(SelftestArgs),
    /// Grade every bundled submission of every lab on the embedded cluster.
    Demo(DemoArgs),
    /// List the labs.
    #[command(after_help = "Example:\n  proctor labs\n  proctor labs --scenarios ./my-labs")]
    Labs,
    /// Write a Gradescope autograder (zip) that grades the lab's submissions.
    Gradescope(GradescopeArgs),
    /// Work with gradebooks (`grade --submissions --gradebook FILE`).
    #[command(
        subcommand,
        after_help = "Example:\n  proctor gradebook merge reports/shard-*.json --output grades.csv --output grades.json"
    )]
    Gradebook(GradebookCommand),
    /// Check a lab's scenario without running it: the format, every resource against the kinds
    /// the cluster serves, every path against the lab's files, the bundled expect.yaml files.
    Lint(LintArgs),
    /// Print a JSON Schema: of scenario.yaml (kept as scenarios/scenario.schema.json, which
    /// editors read through each scenario's yaml-language-server modeline), or of the reports
    /// `--format report-json` writes (kept as docs/report.schema.json).
    Schema(SchemaArgs),
}

impl Command {
    /// The private cluster kind the command starts; the embedded one for a command that starts
    /// none.
    pub fn cluster(&self) -> ClusterKind {
        match self {
            Command::Up(args) => args.cluster.cluster,
            Command::Check(args) => args.cluster.cluster,
            Command::Grade(args) => args.cluster.cluster,
            Command::Solve(args) => args.cluster.cluster,
            Command::Selftest(args) => match args.cluster {
                SelftestCluster::Kwokctl => ClusterKind::Kwokctl,
                SelftestCluster::Embedded | SelftestCluster::Both => ClusterKind::Embedded,
            },
            Command::Demo(args) => args.cluster.cluster,
            Command::Lint(args) => args.cluster.cluster,
            Command::Labs | Command::Gradescope(_) | Command::Gradebook(_) | Command::Schema(_) => {
                ClusterKind::Embedded
            }
        }
    }

    /// Whether the command may run learners' scripts unconfined (`--accept-unisolated`).
    pub fn accept_unisolated(&self) -> bool {
        match self {
            Command::Check(args) => args.sandbox.accept_unisolated,
            Command::Grade(args) => args.sandbox.accept_unisolated,
            Command::Selftest(args) => args.sandbox.accept_unisolated,
            Command::Demo(args) => args.sandbox.accept_unisolated,
            _ => false,
        }
    }
}

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  proctor schema > scenarios/scenario.schema.json\n  proctor schema report > docs/report.schema.json"
)]
pub struct SchemaArgs {
    /// Which document's schema.
    #[arg(value_enum, default_value_t = SchemaKind::Scenario)]
    pub kind: SchemaKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaKind {
    /// scenario.yaml, what a lab's author writes.
    Scenario,
    /// A report as `--format report-json` writes it.
    Report,
}

#[derive(Debug, Args)]
#[command(after_help = "Example:\n  proctor lint gpudrv\n  proctor lint --all")]
pub struct LintArgs {
    /// The labs: folders of the scenarios dir (`proctor labs` lists them), e.g. gpudrv.
    #[arg(value_name = "LAB", required_unless_present = "all")]
    pub labs: Vec<String>,
    /// Every lab of the scenarios dir.
    #[arg(long, conflicts_with = "labs")]
    pub all: bool,
    #[command(flatten)]
    pub cluster: ClusterArg,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  proctor up gpudrv --dir ~/gpudrv             # in the foreground; Ctrl-C keeps its state\n  export KUBECONFIG=$PWD/.proctor/kubeconfig  # in another terminal: the line it printed\n  proctor up gpudrv                            # later, in the same folder: as it was left\n  proctor up gpudrv --fresh                    # or from the lab's starting state"
)]
pub struct UpArgs {
    /// Lab whose starting nodes and manifests to create; without it, plain nodes.
    pub lab: Option<String>,
    /// Number of plain nodes lab-node-0..N-1 when no lab is given.
    #[arg(long, default_value_t = 3, conflicts_with = "lab")]
    pub nodes: usize,
    /// Where to write the kubeconfig.
    #[arg(long, value_name = "FILE", default_value = ".proctor/kubeconfig")]
    pub kubeconfig: PathBuf,
    /// The lab folder to work in: the lab's starter files are copied into it (existing files
    /// are kept). `--lab-dir` is the older spelling.
    #[arg(long = "dir", alias = "lab-dir", value_name = "DIR", requires = "lab")]
    pub lab_dir: Option<PathBuf>,
    /// Start from the lab's starting state, not from the state the last `up` here kept
    /// (<kubeconfig folder>/<lab>.state.json, replaced once this cluster changes).
    #[arg(long)]
    pub fresh: bool,
    /// Port to listen on (127.0.0.1); 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    #[command(flatten)]
    pub cluster: ClusterArg,
}

#[derive(Debug, Args)]
#[command(after_help = "Example:\n  proctor check gpudrv --step 3")]
pub struct CheckArgs {
    /// The lab: a folder of the scenarios dir (`proctor labs` lists them), e.g. gpudrv
    pub lab: String,
    /// Only this step (default: all steps).
    #[arg(long, value_name = "N")]
    pub step: Option<u32>,
    /// The learner's lab dir (default: the scenario's labDir, e.g. /root/<lab>).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The learner's cluster (what `proctor up <lab>` printed to export).
    #[arg(long, env = "KUBECONFIG", value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub cluster: ClusterArg,
    #[command(flatten)]
    pub sandbox: SandboxArg,
}

const GRADE_EXAMPLES: &str = "\
Examples:
  proctor grade gpudrv --submission ./alice --format json --output results.json
  proctor grade gpudrv --submissions ./class --gradebook grades.csv --gradebook grades.json
  proctor grade gpudrv --submissions ./class --resume          grade only what changed
  proctor grade gpudrv --submissions /class --shard-count 8 --gradebook '/out/shard-{shard}.json'
                                        one pod of an Indexed Job (reads JOB_COMPLETION_INDEX)
  proctor gradebook merge /out/shard-*.json --output grades.csv

With --submissions the exit status is 0 once every submission is graded, whatever the scores
(they are in the gradebook), and 2 if some could not be graded (status error).";

#[derive(Debug, Args)]
#[command(after_help = GRADE_EXAMPLES)]
#[command(group = clap::ArgGroup::new("subject").required(true).args(["submission", "submissions"]))]
pub struct GradeArgs {
    /// The lab: a folder of the scenarios dir (`proctor labs` lists them), e.g. gpudrv
    pub lab: String,
    /// The submitted lab dir (what the learner's /root/<lab> looked like at the end).
    #[arg(long, value_name = "DIR")]
    pub submission: Option<PathBuf>,
    /// Grade every submission in DIR: each folder in it is one learner's lab dir, named for the
    /// learner (files in it are reported as malformed; names starting with a dot are skipped).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["submission", "output"])]
    pub submissions: Option<PathBuf>,
    #[command(flatten)]
    pub batch: BatchArgs,
    /// Grade on this cluster instead of a private embedded one (its state is restored after).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// Run the reference solution even when a cached run of it exists (cached runs are keyed by
    /// the scenario's files, kubectl, jq and this build; location: $PROCTOR_CACHE, else
    /// ~/.cache/proctor).
    #[arg(long)]
    pub no_cache: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub cluster: ClusterArg,
    #[command(flatten)]
    pub sandbox: SandboxArg,
}

/// Options of `grade --submissions` (a batch); `{shard}` in a path is the shard's index.
#[derive(Debug, Args)]
#[command(next_help_heading = "Batch grading (--submissions)")]
pub struct BatchArgs {
    /// Submissions graded at once, each on its own embedded cluster [default: twice the number
    /// of cores: a grading mostly waits]. A --kubeconfig or kwokctl cluster grades one at a time.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Where each submission's report is written, as <name>.<txt|json|xml|md|report.json> by
    /// --format.
    /// [default: proctor-reports]
    #[arg(long, value_name = "DIR")]
    pub reports: Option<PathBuf>,
    /// Write the gradebook to FILE: .csv (name, score, max, status, isolation, graded at,
    /// version, a column per step, and a "Points Possible" line of maxima), .json, or
    /// .moodle.csv (Moodle's grade import); may be given more than once.
    #[arg(long, value_name = "FILE")]
    pub gradebook: Vec<PathBuf>,
    /// A class roster (CSV with a header naming folder, and any of id, name, email): each
    /// learner's columns lead their gradebook row; one without a folder gets a "missing" row.
    #[arg(long, value_name = "FILE.csv")]
    pub roster: Option<PathBuf>,
    /// Skip submissions already graded into --reports with the same inputs (the same files,
    /// scenario, tools, Proctor build, cluster kind and format).
    #[arg(long)]
    pub resume: bool,
    /// Grade only shard I of N (0-based, e.g. 0/4): a stable share of the submissions, by a hash
    /// of each one's name, so N machines grade each submission exactly once.
    #[arg(long, value_name = "I/N", conflicts_with = "shard_count")]
    pub shard: Option<crate::batch::shard::Shard>,
    /// Grade shard $JOB_COMPLETION_INDEX of N (a Kubernetes Indexed Job's pod).
    #[arg(long, value_name = "N")]
    pub shard_count: Option<u64>,
    /// Grade only these submissions (folder names) again, keeping every other row the reports
    /// folder holds from before: to regrade a learner after a fix without regrading the class.
    #[arg(long, value_name = "NAME", num_args = 1.., conflicts_with_all = ["shard", "shard_count"])]
    pub only: Vec<String>,
    /// Where to write the class report, one HTML page (score distribution, pass rates of steps
    /// and checks, common failures, each learner's row with a link to their report)
    /// [default: index.html in --reports].
    #[arg(long, value_name = "FILE", conflicts_with = "no_report_html")]
    pub report_html: Option<PathBuf>,
    /// Write no class report.
    #[arg(long)]
    pub no_report_html: bool,
}

impl BatchArgs {
    /// The first batch-only option given, if any (for a clear refusal without --submissions).
    pub fn given(&self) -> Option<&'static str> {
        [
            (self.jobs.is_some(), "--jobs"),
            (self.reports.is_some(), "--reports"),
            (!self.gradebook.is_empty(), "--gradebook"),
            (self.roster.is_some(), "--roster"),
            (self.resume, "--resume"),
            (self.shard.is_some(), "--shard"),
            (self.shard_count.is_some(), "--shard-count"),
            (!self.only.is_empty(), "--only"),
            (self.report_html.is_some(), "--report-html"),
            (self.no_report_html, "--no-report-html"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}

/// Where a batch writes its reports when --reports is not given.
pub const DEFAULT_REPORTS: &str = "proctor-reports";

#[derive(Debug, Args)]
#[command(next_help_heading = "Report")]
pub struct OutputArgs {
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the report to FILE instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// No progress lines on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  proctor solve gpudrv --dir /tmp/solved && proctor grade gpudrv --submission /tmp/solved\n  proctor solve gpudrv --dir ~/gpudrv --until 3            # catch up: your folder and cluster at the end of step 3\n  proctor solve gpudrv --dir ~/gpudrv --from 3 --until 3   # step 3 alone, on top of your steps 1 and 2"
)]
pub struct SolveArgs {
    /// The lab: a folder of the scenarios dir (`proctor labs` lists them), e.g. gpudrv
    pub lab: String,
    /// Directory to write the solution into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Apply the solution to this cluster too (default: $KUBECONFIG; a private cluster when unset).
    #[arg(long, env = "KUBECONFIG", value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// Run the reference's steps only up to step N (included): the folder and the cluster end
    /// as the reference leaves them after step N. Its files replace yours of the same name.
    #[arg(long, value_name = "N")]
    pub until: Option<u32>,
    /// Start at step N (default: the first), for steps already done your own way.
    #[arg(long, value_name = "N")]
    pub from: Option<u32>,
    #[command(flatten)]
    pub cluster: ClusterArg,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  proctor selftest gpudrv                    # the reference, steps done and not done, the bundled submissions\n  proctor selftest gpudrv --no-submissions   # the scenario alone, while writing it\n  proctor selftest gpudrv --cluster kwokctl  # the same on a real control plane\n  proctor selftest gpudrv --cluster both     # on both, and the same grades on each"
)]
pub struct SelftestArgs {
    /// The lab: a folder of the scenarios dir (`proctor labs` lists them), e.g. gpudrv
    pub lab: String,
    /// Run the reference solution even when a cached run of it exists (cached runs are keyed by
    /// the scenario's files, kubectl, jq and this build; location: $PROCTOR_CACHE, else
    /// ~/.cache/proctor).
    #[arg(long)]
    pub no_cache: bool,
    /// Leave out the bundled submissions (scenarios/<lab>/submissions/): prove the scenario
    /// alone; `proctor demo` grades them against their expect.yaml on its own.
    #[arg(long)]
    pub no_submissions: bool,
    /// The private cluster to start: Proctor's embedded one, a real control plane with kwok fake
    /// nodes run by kwokctl (from the binaries `upstream/build.sh` builds), or both one after the
    /// other, requiring the reference, the empty and every bundled submission to get the same
    /// verdict on every check on each.
    #[arg(
        long,
        value_enum,
        env = "PROCTOR_CLUSTER",
        default_value_t = SelftestCluster::Embedded,
        help_heading = "Cluster and sandbox"
    )]
    pub cluster: SelftestCluster,
    #[command(flatten)]
    pub sandbox: SandboxArg,
}

/// Where `selftest` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SelftestCluster {
    Embedded,
    Kwokctl,
    /// Embedded, then kwokctl, and the grades compared.
    Both,
}

impl SelftestCluster {
    /// The private clusters it starts, in order.
    pub fn kinds(self) -> &'static [ClusterKind] {
        match self {
            SelftestCluster::Embedded => &[ClusterKind::Embedded],
            SelftestCluster::Kwokctl => &[ClusterKind::Kwokctl],
            SelftestCluster::Both => &[ClusterKind::Embedded, ClusterKind::Kwokctl],
        }
    }
}

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  proctor demo                                      # every lab's bundled submissions\n  proctor demo gpudrv --cases tests/fixtures/submissions"
)]
pub struct DemoArgs {
    /// Only these labs (default: all).
    pub labs: Vec<String>,
    /// Grade the cases in DIR/<lab>/<case>/ (each with an expect.yaml) instead of the bundled
    /// submissions, e.g. tests/fixtures/submissions.
    #[arg(long, value_name = "DIR")]
    pub cases: Option<PathBuf>,
    /// Run the reference solution even when a cached run of it exists (cached runs are keyed by
    /// the scenario's files, kubectl, jq and this build; location: $PROCTOR_CACHE, else
    /// ~/.cache/proctor).
    #[arg(long)]
    pub no_cache: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub cluster: ClusterArg,
    #[command(flatten)]
    pub sandbox: SandboxArg,
}

#[derive(Debug, Subcommand)]
pub enum GradebookCommand {
    /// Join the gradebooks of several shards into one (each submission must appear once, or
    /// identically).
    #[command(
        after_help = "Example:\n  proctor gradebook merge out/shard-*.json --output grades.csv --output grades.json"
    )]
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' gradebooks (.json, or .csv as Proctor writes it).
    #[arg(value_name = "FILE", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Where to write the merged gradebook (.csv or .json; more than once for both); without
    /// it, CSV on stdout.
    #[arg(long, short, value_name = "FILE")]
    pub output: Vec<PathBuf>,
}

#[derive(Debug, Args)]
#[command(after_help = "\
Example:
  proctor gradescope gpudrv --output gpudrv-autograder.zip

Upload the zip as the assignment's autograder (a base image whose glibc is at least as new as
the one proctor was built with, e.g. Ubuntu 24.04). Learners upload their lab folder's contents,
or the folder itself. Hidden checks are shown once grades are published.")]
pub struct GradescopeArgs {
    /// The lab: a folder of the scenarios dir (`proctor labs` lists them), e.g. gpudrv
    pub lab: String,
    /// Where to write the autograder zip (`--out` is the older spelling).
    #[arg(long = "output", short, alias = "out", value_name = "FILE")]
    pub out: PathBuf,
    /// The proctor binary to ship [default: this one].
    #[arg(long, value_name = "FILE")]
    pub binary: Option<PathBuf>,
    /// The kubectl binary to ship [default: the kubectl on PATH].
    #[arg(long, value_name = "FILE")]
    pub kubectl: Option<PathBuf>,
    /// When learners see the hidden checks' results (any choice keeps the total score from
    /// them until grades are published, as Gradescope does whenever a test is not visible).
    #[arg(long, value_enum, default_value_t = crate::autograder::HiddenChecks::AfterPublished)]
    pub hidden_checks: crate::autograder::HiddenChecks,
}
