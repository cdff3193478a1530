//! `protoflow runs [--project DIR] [--limit N] [--json]`: the project's past runs,
//! newest first.

use std::path::PathBuf;

use clap::Args;

use crate::outln;
use protoflow_engine::events::RunStatus;
use protoflow_engine::graph::format_ms;
use serde_json::json;

use super::run::project_store;
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

/// `2026-11-30 09:07:11` (UTC) from milliseconds since the epoch.
pub fn utc(ms: u64) -> String {
    let secs = ms / 1_000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rem / 3_600,
        (rem % 3_600) / 60,
        rem % 60
    )
}

/// Runs the command; returns the exit code.
pub fn run(args: &RunsArgs) -> u8 {
    let (root, store) = match project_store(args.project.as_deref()) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let runs = match store.runs(args.limit) {
        Ok(runs) => runs,
        Err(e) => {
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
        let status = if r.status == RunStatus::Running {
            "running?".to_string() // or its process died: `protoflow resume`
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
            utc(r.started_at_ms),
            duration
        );
    }
    exit::SUCCESS
}
