//! `protoflow runs [--project DIR] [--limit N] [--json]`: the project's past runs,
//! newest first.

use std::path::PathBuf;

use clap::Args;

use crate::outln;
use protoflow_engine::events::RunStatus;
use protoflow_engine::graph::format_ms;
use serde_json::json;

use super::checkpoints::format_utc;
use super::run::existing_project_store;
use crate::exit;

/// List past runs.
#[derive(Debug, Args)]
pub struct RunsArgs {
    /// The project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// At most this many runs.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command; returns the exit code.
pub fn run(args: &RunsArgs) -> u8 {
    let (root, store) = match existing_project_store(args.project.as_deref()) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let runs = match store.map(|store| store.runs(args.limit)) {
        Some(Ok(runs)) => runs,
        // No store: no runs, and nothing is created.
        None => Vec::new(),
        Some(Err(e)) => {
            eprintln!("error: {e}");
            return exit::INTERNAL;
        }
    };
    if args.json {
        let rows: Vec<_> = runs
            .iter()
            .map(|r| {
                json!({
                    "id": r.id, "recipe": r.recipe_name, "status": r.status,
                    "started_at_ms": r.started_at_ms, "finished_at_ms": r.finished_at_ms,
                    "executions": r.executions,
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        );
        return exit::SUCCESS;
    }
    if runs.is_empty() {
        outln!("no runs yet in {}", root.display());
        return exit::SUCCESS;
    }
    outln!(
        "{:<24} {:<24} {:<17} {:<20} {}",
        "RUN",
        "RECIPE",
        "STATUS",
        "STARTED (UTC)",
        "DURATION"
    );
    for r in &runs {
        let status = if r.status == RunStatus::Running && r.process_alive() {
            "running".to_string()
        } else if r.status == RunStatus::Running {
            "interrupted".to_string() // its process died: `protoflow resume` continues it
        } else {
            r.status.to_string()
        };
        let duration = r
            .finished_at_ms
            .map(|f| format_ms(f.saturating_sub(r.started_at_ms)))
            .unwrap_or_default();
        outln!(
            "{:<24} {:<24} {:<17} {:<20} {}",
            r.id,
            r.recipe_name,
            status,
            format_utc(r.started_at_ms),
            duration
        );
    }
    exit::SUCCESS
}
