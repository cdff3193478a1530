//! The `protoflow` command: declarative workflows for AI coding work.
//!
//! Only this crate knows the terminal: argument parsing, rendering and exit codes
//! (see `exit.rs`). Each subcommand lives in `commands/<name>.rs`.

mod approval;
mod asker;
mod commands;
mod completion_view;
mod diagnostics;
mod exit;
mod output;
mod plan_source;
mod progress;
mod signals;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// protoflow: run declarative AI coding workflows (recipes) with bounded authority.
#[derive(Debug, Parser)]
#[command(name = "protoflow", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check recipes and roles (files or built-in names) without running anything.
    Validate(commands::validate::ValidateArgs),
    /// Print or write the JSON Schemas of recipes and roles.
    Schema(commands::schema::SchemaArgs),
    /// Show a recipe's plan as a Mermaid or DOT diagram.
    Graph(commands::graph::GraphArgs),
    /// List the built-in recipes.
    Recipes(commands::recipes::RecipesArgs),
    /// List the roles available here and where each comes from.
    Roles(commands::roles::RolesArgs),
    /// Check the configured model providers (reachability, model, tool calling; never keys).
    Doctor(commands::doctor::DoctorArgs),
    /// MCP servers: list the configured ones, trust or untrust a project's config.
    Mcp(commands::mcp::McpArgs),
    /// Run a recipe (a file or a built-in name) to its end.
    Run(commands::run::RunArgs),
    /// List past runs of this project.
    Runs(commands::runs::RunsArgs),
    /// Print a run's report.
    Report(commands::report::ReportArgs),
    /// Continue an interrupted run without replaying uncertain effects.
    Resume(commands::resume::ResumeArgs),
    /// Evaluate a recipe and a model on cases with an oracle (solved, false completions).
    Eval(commands::eval::EvalArgs),
    /// List the project's checks: configured or discovered, and why.
    Checks(commands::checks::ChecksArgs),
    /// List the latest file changes protoflow made (checkpoints).
    Checkpoints(commands::checkpoints::CheckpointsArgs),
    /// Restore a file to before a change, after showing the reverse diff.
    Undo(commands::undo::UndoArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit::INVALID
            } else {
                exit::SUCCESS
            });
        }
    };
    let code = match &cli.command {
        Command::Validate(args) => commands::validate::run(args),
        Command::Schema(args) => commands::schema::run(args),
        Command::Graph(args) => commands::graph::run(args),
        Command::Recipes(args) => commands::recipes::run(args),
        Command::Roles(args) => commands::roles::run(args),
        Command::Doctor(args) => commands::doctor::run(args),
        Command::Mcp(args) => diagnostics::report_result(commands::mcp::run(args.clone())),
        Command::Run(args) => commands::run::run(args),
        Command::Runs(args) => commands::runs::run(args),
        Command::Report(args) => commands::report::run(args),
        Command::Resume(args) => commands::resume::run(args),
        Command::Eval(args) => commands::eval::run(args),
        Command::Checks(args) => diagnostics::report_result(commands::checks::run_args(args)),
        Command::Checkpoints(args) => {
            diagnostics::report_result(commands::checkpoints::run(args.clone()))
        }
        Command::Undo(args) => diagnostics::report_result(commands::undo::run(args.clone())),
    };
    ExitCode::from(code)
}
