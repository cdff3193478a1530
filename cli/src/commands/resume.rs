//! `protoflow resume RUN_ID [--replay STEP]... [--project DIR] [--json] [--events FILE|-] [--quiet]`
//!
//! Continues an interrupted (or failed, canceled, budget-exhausted) run from the
//! store: succeeded steps are reused; steps interrupted mid-effect are reported
//! and not run again unless named with `--replay`.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use protoflow_engine::graph::{ExecError, ResumeOptions};
use protoflow_engine::llm;

use super::run::{
    ModelArgs, OutputArgs, cancel_on_signals, executor_with_provider, existing_project_store,
    finish, listeners, runtime,
};
use crate::approval::ApprovalArgs;
use crate::exit;
use crate::plan_source::rebuild_plan;

/// Continue a stored run.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The run's id (see `protoflow runs`).
    #[arg(value_name = "RUN_ID")]
    pub run_id: String,
    /// Run this interrupted step again although its effects are uncertain.
    /// Repeatable; use the key shown by the report (`verify[3]`).
    #[arg(long, value_name = "STEP")]
    pub replay: Vec<String>,
    /// The project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub approval: ApprovalArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Runs the command; returns the exit code.
pub fn run(args: &ResumeArgs) -> u8 {
    let (root, store) = match existing_project_store(args.project.as_deref()) {
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
    let (listeners, view) = match listeners(&args.output) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let runtime = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    // The stored recipe is only rebuilt inside the resume, so the provider is
    // resolved up front: an explicit --provider must resolve; without one, a
    // configured provider is used when there is one, and agent steps that still
    // have to run fail with "no model provider configured" when there is none.
    let provider = match llm::resolve_provider(
        args.model.provider.as_deref(),
        args.model.model.as_deref(),
        &|name| std::env::var(name).ok(),
    ) {
        Ok(provider) => Some(Arc::from(provider)),
        Err(e) if args.model.provider.is_some() => {
            eprintln!("error: {e}");
            return exit::INVALID;
        }
        Err(_) => None,
    };
    // The run's own recipe (as stored) decides its checks, not today's file.
    let plan = match store
        .run(&args.run_id)
        .map_err(|e| e.to_string())
        .and_then(|record| rebuild_plan(&record, &root))
    {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("error: cannot resume run `{}`: {e}", args.run_id);
            return exit::INVALID;
        }
    };
    let recipe = std::sync::Arc::clone(&plan.recipe);
    let executor =
        match executor_with_provider(store, root.clone(), &recipe, &args.approval, provider) {
            Ok(executor) => executor,
            Err(code) => return code,
        };
    let result = runtime.block_on(async {
        let options = ResumeOptions {
            replay: args.replay.clone(),
            cancel: cancel_on_signals(view.clone()),
            listeners,
        };
        executor
            // The stored recipe was validated and planned above; it is not done twice.
            .resume(&args.run_id, move |_| Ok(plan), options)
            .await
    });
    match result {
        Ok(report) => finish(&report, &args.output, &view),
        Err(e) => {
            view.finish();
            eprintln!("error: {e}");
            match e {
                ExecError::Store(protoflow_engine::store::StoreError::UnknownRun(_))
                | ExecError::AlreadySucceeded(_)
                | ExecError::Rebuild { .. }
                | ExecError::Inputs(_) => exit::INVALID,
                ExecError::Store(_) => exit::INTERNAL,
            }
        }
    }
}
