//! `protoflow run RECIPE [--input k=v]... [--project DIR] [--provider NAME] [--model MODEL] [--json | --format OUTPUT] [--fail-on LEVEL] [--events FILE|-] [--quiet]`
//!
//! Runs a recipe to its end: typed inputs, a live view on a terminal, events as
//! JSON lines while the run goes, the final report (`--json`) or one recipe output
//! (`--format`), and an exit code from the run's status and gates. SIGINT/SIGTERM cancel the run (a second one exits at
//! once). Also holds what `resume` shares with it.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use protoflow_engine::agent::ModelAgentRunner;
use protoflow_engine::checks::{resolve_checks, resolve_declared_checks};
use protoflow_engine::events::{EventListener, JsonLinesWriter, RunStatus};
use protoflow_engine::graph::{
    AgentRunner, Executor, ExecutorConfig, RegistryTools, RunReport, format_ms, inputs,
};
use protoflow_engine::llm::{self, Provider};
use protoflow_engine::recipe::load::project_discover_options;
use protoflow_engine::recipe::{Recipe, StepKind};
use protoflow_engine::store::{DB_DIR, Store};
use protoflow_engine::tools::fs::CheckpointStore;
use protoflow_engine::tools::process::base_process_env;
use protoflow_engine::tools::project_registry;
use protoflow_engine::tools::task::AskUser;
use tokio_util::sync::CancellationToken;

use super::run_output;
use crate::approval::ApprovalArgs;
use crate::asker::TerminalAsker;
use crate::exit;
use crate::plan_source::{LoadFailure, load_plan};
use crate::progress::LiveView;
use crate::signals;

/// Run a recipe.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// A recipe file, or the name of a built-in recipe.
    #[arg(value_name = "RECIPE")]
    pub recipe: String,
    /// An input, as name=value (typed per the recipe: numbers, booleans, JSON lists
    /// and objects are parsed). Repeatable.
    #[arg(long = "input", short = 'i', value_name = "NAME=VALUE")]
    pub inputs: Vec<String>,
    /// The project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub approval: ApprovalArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// The threshold of the recipe's `findings` gate: sets the recipe's `fail_on`
    /// input (for the review: blocker, major, minor or never).
    #[arg(long, value_name = "LEVEL")]
    pub fail_on: Option<String>,
}

/// Which model runs agent steps.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// The model provider: a name from the user config file, `openai`, `anthropic`,
    /// `ollama`, or `scripted:FILE` (a test double replaying a script). Default: the
    /// config's `default_provider`, else the one provider the environment configures.
    #[arg(long, value_name = "NAME|scripted:FILE")]
    pub provider: Option<String>,
    /// The model to ask (overrides the provider's configured model; roles may still
    /// set their own in the recipe).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
}

/// Whether a plan (or a recipe it runs as a child) has agent steps.
fn needs_model(recipe: &protoflow_engine::recipe::Recipe) -> bool {
    recipe.steps.iter().any(|step| match &step.kind {
        StepKind::Agent { .. } => true,
        StepKind::Recipe { recipe, .. } => needs_model(recipe),
        StepKind::Tool { .. } => false,
    })
}

/// The model provider for a plan: `None` when it has no agent steps; the provider's
/// error (saying how to configure one) when it needs a model and none resolves.
fn agent_provider(
    recipe: &protoflow_engine::recipe::Recipe,
    model: &ModelArgs,
) -> Result<Option<Arc<dyn Provider>>, String> {
    if !needs_model(recipe) {
        return Ok(None);
    }
    let provider =
        llm::resolve_provider(model.provider.as_deref(), model.model.as_deref(), &|name| {
            std::env::var(name).ok()
        })
        .map_err(|e| {
            use miette::Diagnostic as _;
            match e.help() {
                Some(help) => format!("{e}\nhelp: {help}"),
                None => e.to_string(),
            }
        })?;
    Ok(Some(Arc::from(provider)))
}

/// Output options shared by `run` and `resume`.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Print the final run report as JSON on stdout.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Print the recipe output of this name on stdout (a text output as it is,
    /// anything else as JSON), e.g. `--format sarif` for a review.
    #[arg(long, value_name = "OUTPUT")]
    pub format: Option<String>,
    /// Write events as JSON lines to FILE while the run goes (`-` for stdout).
    #[arg(long, value_name = "FILE|-")]
    pub events: Option<String>,
    /// No live view and no summary (errors are still printed).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// `print!` that ignores a closed stdout (`protoflow runs | head`) instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// `println!` that ignores a closed stdout.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// The exit code of a finished run.
///
/// succeeded → 0; failed or degraded (incomplete) → 1; budget exhausted → 3;
/// canceled → 5; still running (cannot happen at the end of a run) → 70.
pub fn exit_code(status: RunStatus) -> u8 {
    match status {
        RunStatus::Succeeded => exit::SUCCESS,
        RunStatus::Failed | RunStatus::Degraded => exit::INCOMPLETE,
        RunStatus::BudgetExhausted => exit::BUDGET_EXHAUSTED,
        RunStatus::Canceled => exit::CANCELED,
        RunStatus::Running => exit::INTERNAL,
    }
}

/// The project root: `--project` or the current directory, canonicalized.
pub fn project_root(project: Option<&Path>) -> Result<PathBuf, String> {
    let dir = match project {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?,
    };
    dir.canonicalize()
        .map_err(|e| format!("project directory `{}`: {e}", dir.display()))
}

/// Opens the project's store, printing the error.
fn open_store(root: &Path) -> Result<Store, u8> {
    Store::open_project(root).map_err(|e| {
        eprintln!("error: {e}");
        exit::INTERNAL
    })
}

/// The project root (`--project` or the current directory) and its store for the
/// commands that only read the history (`runs`, `report`, `resume`): the store
/// only when the project has one (`None`: no run was ever recorded here), never
/// creating it. An unusable directory is invalid input, a store that cannot be
/// opened an internal error (both printed).
pub fn existing_project_store(project: Option<&Path>) -> Result<(PathBuf, Option<Store>), u8> {
    let root = project_root(project).map_err(|e| {
        eprintln!("error: {e}");
        exit::INVALID
    })?;
    let store = Store::open_existing_project(&root).map_err(|e| {
        eprintln!("error: {e}");
        exit::INTERNAL
    })?;
    Ok((root, store))
}

/// An executor for the project: every tool (the project's checks resolved once
/// and frozen for the run), approvals as the options say, the base process
/// environment, checkpoints for every write, and child recipes planned by
/// `build_plan`. Agent steps run by a [`ModelAgentRunner`] over `provider` (tool
/// schemas from the run's registry); without one they fail with "no model
/// provider configured".
pub fn executor_with_provider(
    store: Store,
    root: PathBuf,
    recipe: &Recipe,
    approval: &ApprovalArgs,
    provider: Option<Arc<dyn Provider>>,
) -> Result<Executor, u8> {
    let options = project_discover_options();
    let discovery = if recipe.checks.is_empty() {
        resolve_checks(&root, &options)
    } else {
        let label = format!("recipe `{}`", recipe.name);
        resolve_declared_checks(&root, &label, recipe.checks.clone(), &options)
    };
    let discovery = discovery.map_err(|e| {
        eprintln!("{:?}", miette::Report::new(e));
        exit::INVALID
    })?;
    let approver = approval.approver().map_err(|e| {
        eprintln!("error: {e}");
        exit::INVALID
    })?;
    let checkpoints = CheckpointStore::open_project(&root).map_err(|e| {
        eprintln!("error: {e}");
        exit::INTERNAL
    })?;
    let discovery = Arc::new(discovery);
    let mut registry = project_registry(&root, Arc::clone(&discovery));
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        registry.register(Arc::new(AskUser::new(Arc::new(TerminalAsker::default()))));
    }
    let registry = Arc::new(registry);
    let mut config = ExecutorConfig::new(store, root);
    config.checks = Some(discovery);
    config.agents = provider.map(|provider| {
        Arc::new(ModelAgentRunner::new(provider, Some(Arc::clone(&registry))))
            as Arc<dyn AgentRunner>
    });
    config.tools = Arc::new(RegistryTools::new(registry, approver));
    config.process_env = base_process_env(|name| std::env::var(name).ok());
    config.checkpoints = Some(Arc::new(checkpoints));
    Ok(Executor::new(config))
}

/// The event listeners of a run, and its live view (also among the listeners).
pub type Listeners = (Vec<Arc<dyn EventListener>>, Arc<LiveView>);

/// The listeners and the live view for a run's output options.
pub fn listeners(output: &OutputArgs) -> Result<Listeners, u8> {
    if (output.json || output.format.is_some()) && output.events.as_deref() == Some("-") {
        eprintln!(
            "error: --json/--format and --events - both write to stdout; give --events a file"
        );
        return Err(exit::INVALID);
    }
    let view = Arc::new(LiveView::new(
        output.quiet || output.events.as_deref() == Some("-"),
    ));
    let mut listeners: Vec<Arc<dyn EventListener>> = vec![view.clone()];
    match output.events.as_deref() {
        None => {}
        Some("-") => listeners.push(Arc::new(JsonLinesWriter::new(std::io::stdout()))),
        Some(path) if events_path_in_store(path) => {
            eprintln!(
                "error: --events `{path}` is inside a `.protoflow/` directory, protoflow's run store; write the events elsewhere"
            );
            return Err(exit::INVALID);
        }
        Some(path) => match File::create(path) {
            Ok(file) => listeners.push(Arc::new(JsonLinesWriter::new(file))),
            Err(e) => {
                eprintln!("error: cannot write events to `{path}`: {e}");
                return Err(exit::INVALID);
            }
        },
    }
    Ok((listeners, view))
}

/// Whether an events file would land inside a `.protoflow/` directory (the run
/// store: creating the file there would truncate the database), following
/// symlinks and `..` to where the file really is.
fn events_path_in_store(path: &str) -> bool {
    let path = Path::new(path);
    let resolved = match std::fs::canonicalize(path) {
        Ok(real) => real,
        Err(_) => {
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            match (std::fs::canonicalize(parent), path.file_name()) {
                (Ok(dir), Some(name)) => dir.join(name),
                _ => path.to_path_buf(),
            }
        }
    };
    resolved
        .components()
        .any(|c| c.as_os_str() == std::ffi::OsStr::new(DB_DIR))
}

/// A multi-threaded runtime, or the internal-error exit code.
pub fn runtime() -> Result<tokio::runtime::Runtime, u8> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("error: cannot start the async runtime: {e}");
            exit::INTERNAL
        })
}

/// A cancellation token wired to SIGINT/SIGTERM (call inside the runtime).
pub fn cancel_on_signals(view: Arc<LiveView>) -> CancellationToken {
    let cancel = CancellationToken::new();
    signals::install(cancel.clone(), move || {
        view.println("canceling: stopping running steps (press Ctrl-C again to exit at once)");
        if !view.enabled() {
            eprintln!("canceling: stopping running steps (press Ctrl-C again to exit at once)");
        }
    });
    cancel
}

/// Prints the report per the output options and returns the exit code.
pub fn finish(report: &RunReport, output: &OutputArgs, view: &LiveView) -> u8 {
    view.finish();
    if output.json {
        let text = serde_json::to_string_pretty(report).unwrap_or_default();
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{text}");
    } else {
        if let Some(name) = &output.format {
            match run_output::format_output(report, name) {
                Some(text) => crate::output::out(&text),
                None => eprintln!("error: the run has no output `{name}` (see the problems below)"),
            }
        }
        if !output.quiet {
            eprint!("{}", crate::output::printable(&summary(report)));
        }
    }
    run_output::exit_code_of(report)
}

/// The human summary of a run.
pub fn summary(report: &RunReport) -> String {
    let mut text = format!(
        "run {} ({}): {} in {}\n",
        report.run_id,
        report.recipe,
        report.status,
        format_ms(report.duration_ms)
    );
    let count = |n: usize, what: &str| (n > 0).then(|| format!("{n} {what}"));
    let succeeded = report
        .steps
        .iter()
        .filter(|s| s.status.to_string() == "succeeded")
        .count();
    let parts: Vec<String> = [
        count(succeeded, "succeeded"),
        count(report.failed.len(), "failed"),
        count(report.timed_out.len(), "timed out"),
        count(report.skipped.len(), "skipped or not run"),
        count(report.interrupted.len(), "interrupted"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !parts.is_empty() {
        text.push_str(&format!("  steps: {}\n", parts.join(", ")));
    }
    text.push_str(&run_output::gate_lines(report));
    // A tripped gate is also one of the run's problems; it is shown once, above.
    let gate_messages: Vec<&str> = report
        .gates
        .iter()
        .filter(|g| g.tripped)
        .filter_map(|g| g.message.as_deref())
        .collect();
    for problem in report
        .problems
        .iter()
        .filter(|p| !gate_messages.iter().any(|m| p.ends_with(m)))
    {
        text.push_str(&format!("  - {problem}\n"));
    }
    if let Some(completion) = &report.completion {
        text.push_str(&crate::completion_view::render(completion));
    }
    text.push_str(&format!(
        "  report: protoflow report {} --markdown\n",
        report.run_id
    ));
    text
}

/// Runs the command; returns the exit code.
pub fn run(args: &RunArgs) -> u8 {
    let root = match project_root(args.project.as_deref()) {
        Ok(root) => root,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID;
        }
    };
    let plan = match load_plan(&args.recipe, &root) {
        Ok(plan) => plan,
        Err(LoadFailure::Invalid(text)) => {
            eprint!("{text}");
            return exit::INVALID;
        }
    };
    if let Some(name) = &args.output.format
        && let Err(e) = run_output::check_format(&plan.recipe, name)
    {
        eprintln!("error: {e}");
        return exit::INVALID;
    }
    let given_inputs =
        match run_output::apply_fail_on(&plan.recipe, &args.inputs, args.fail_on.as_deref()) {
            Ok(inputs) => inputs,
            Err(e) => {
                eprintln!("error: {e}");
                return exit::INVALID;
            }
        };
    let given = match inputs::parse_inputs(&plan.recipe, &given_inputs) {
        Ok(given) => given,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID;
        }
    };
    // Fail fast, before any effect, when agent steps have no model to run them.
    let agents = match agent_provider(&plan.recipe, &args.model) {
        Ok(agents) => agents,
        Err(message) => {
            eprintln!("error: this recipe has agent steps and needs a model: {message}");
            return exit::INVALID;
        }
    };
    let store = match open_store(&root) {
        Ok(store) => store,
        Err(code) => return code,
    };
    let (listeners, view) = match listeners(&args.output) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let runtime = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let executor = match executor_with_provider(store, root, &plan.recipe, &args.approval, agents) {
        Ok(executor) => executor,
        Err(code) => return code,
    };
    let result = runtime.block_on(async {
        let cancel = cancel_on_signals(view.clone());
        let options = protoflow_engine::graph::RunOptions {
            run_id: None,
            cancel,
            listeners,
        };
        executor.run(plan, given, options).await
    });
    match result {
        Ok(report) => finish(&report, &args.output, &view),
        Err(protoflow_engine::graph::ExecError::Inputs(e)) => {
            view.finish();
            eprintln!("error: {e}");
            exit::INVALID
        }
        Err(e) => {
            view.finish();
            eprintln!("error: {e}");
            exit::INTERNAL
        }
    }
}
