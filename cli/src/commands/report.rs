//! `protoflow report RUN_ID [--json|--markdown] [--project DIR]`: a run's report
//! from the store. A run whose process died has no final report: its recorded
//! steps are listed instead, with how to resume it.

use std::path::PathBuf;

use clap::Args;

use crate::{out, outln};
use protoflow_engine::graph::RunReport;

use super::run::{existing_project_store, summary};
use crate::exit;

/// Print a run's report.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run's id (see `protoflow runs`).
    #[arg(value_name = "RUN_ID")]
    pub run_id: String,
    /// As JSON.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// As Markdown (for a pull-request comment).
    #[arg(long)]
    pub markdown: bool,
    /// The project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// Runs the command; returns the exit code.
pub fn run(args: &ReportArgs) -> u8 {
    let (_root, store) = match existing_project_store(args.project.as_deref()) {
        Ok((root, Some(store))) => (root, store),
        Ok((root, None)) => {
            eprintln!(
                "error: no run `{}` in this project's store (there are no runs in {})",
                args.run_id,
                root.display()
            );
            return exit::INVALID;
        }
        Err(code) => return code,
    };
    let record = match store.run(&args.run_id) {
        Ok(record) => record,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::INVALID;
        }
    };
    let Some(report) = record
        .report
        .clone()
        .and_then(|r| serde_json::from_value::<RunReport>(r).ok())
    else {
        let steps = store.steps(&args.run_id).unwrap_or_default();
        if args.json {
            let doc = serde_json::json!({"run_id": record.id, "status": record.status, "final": false, "steps": steps});
            outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        } else {
            outln!(
                "run {} ({}) has no final report: it is {} (if its process died, `protoflow resume {}` continues it)",
                record.id,
                record.recipe_name,
                record.status,
                record.id
            );
            for step in steps {
                outln!(
                    "  {} {}{}",
                    step.key,
                    step.status,
                    step.error.map(|e| format!(": {e}")).unwrap_or_default()
                );
            }
        }
        return exit::SUCCESS;
    };
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else if args.markdown {
        out!("{}", report.to_markdown());
    } else {
        out!("{}", crate::output::printable(&summary(&report)));
    }
    exit::SUCCESS
}
