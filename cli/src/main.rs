//! The `protoflow` command: declarative workflows for AI coding work.
//!
//! Only this crate knows the terminal: argument parsing, rendering and exit codes
//! (see `exit.rs`). Each subcommand lives in `commands/<name>.rs`.

mod commands;
mod diagnostics;
mod exit;
mod output;

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
    };
    ExitCode::from(code)
}
