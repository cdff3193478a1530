//! The executor: runs a plan on tokio, records every state change, reports.
//!
//! It owns scheduling (needs, the concurrency limit, fan-out, `when`, bounded
//! back-edges), per-step timeouts, cancellation (a token tree: run -> step ->
//! tool), the root budget and resume. It never knows what a tool or a role means:
//! steps run through [`crate::graph::ToolInvoker`] and [`crate::graph::AgentRunner`].

mod coordinator;
mod finish;
mod instance;
mod resume;
mod run;
mod state;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use miette::Diagnostic;
use thiserror::Error;
use tokio_util::sync::CancellationToken;

use super::{AgentRunner, Plan, ToolInvoker};
use crate::checks::Discovery;
use crate::events::EventListener;
use crate::policy::Redactor;
use crate::recipe::Recipe;
use crate::store::{RunRecord, Store, StoreError};
use crate::tools::fs::CheckpointStore;

pub use run::new_run_id;

/// Builds the plan of a child recipe (a `recipe:` step). The plan builder of
/// `graph::plan` is the one to give.
pub type ChildPlanner = Arc<dyn Fn(&Arc<Recipe>) -> Result<Plan, String> + Send + Sync>;

/// What the executor runs against. Shared by every run it starts.
#[derive(Clone)]
pub struct ExecutorConfig {
    /// The run store.
    pub store: Store,
    /// The project root, canonicalized: tools run inside it.
    pub project_root: PathBuf,
    /// Runs tool steps ([`crate::graph::RegistryTools`] over the built-in registry).
    pub tools: Arc<dyn ToolInvoker>,
    /// Runs agent steps; `None` makes every agent step fail with "no model provider
    /// configured".
    pub agents: Option<Arc<dyn AgentRunner>>,
    /// Builds child plans for recipe steps (default: [`crate::graph::build_plan`]);
    /// `None` makes recipe steps fail clearly.
    pub child_planner: Option<ChildPlanner>,
    /// The base environment of child processes (nothing else is inherited).
    pub process_env: BTreeMap<String, String>,
    /// Where file tools store the preimage of every write (for `protoflow undo`).
    pub checkpoints: Option<Arc<CheckpointStore>>,
    /// Known secrets, replaced by markers in every event, step record, stored
    /// input and report of a run.
    pub redactor: Arc<Redactor>,
    /// The project's checks, frozen for the run (the task state selects among
    /// them and reads their declared dependencies).
    pub checks: Option<Arc<Discovery>>,
}

impl std::fmt::Debug for ExecutorConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecutorConfig")
            .field("store", &self.store)
            .field("project_root", &self.project_root)
            .field("agents", &self.agents.is_some())
            .finish_non_exhaustive()
    }
}

impl ExecutorConfig {
    /// A config with the built-in tool registry (headless: `ask` is never
    /// approved), no agent runner, and `build_plan` for child recipes.
    pub fn new(store: Store, project_root: PathBuf) -> ExecutorConfig {
        ExecutorConfig {
            store,
            project_root,
            tools: Arc::new(super::RegistryTools::builtin()),
            agents: None,
            child_planner: Some(Arc::new(|recipe: &Arc<Recipe>| {
                super::build_plan(Arc::clone(recipe)).map_err(|e| e.to_string())
            })),
            process_env: BTreeMap::new(),
            checkpoints: None,
            checks: None,
            redactor: Arc::new(Redactor::from_process_env()),
        }
    }
}

/// Options of one run.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Use this id instead of a generated one.
    pub run_id: Option<String>,
    /// Cancel this to cancel the run (Ctrl-C).
    pub cancel: CancellationToken,
    /// Live consumers of events (an events file, a terminal view).
    pub listeners: Vec<Arc<dyn EventListener>>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("run_id", &self.run_id)
            .field("listeners", &self.listeners.len())
            .finish_non_exhaustive()
    }
}

/// Options of a resume.
#[derive(Clone, Default)]
pub struct ResumeOptions {
    /// Step keys interrupted mid-effect that may run again (explicitly asked for).
    pub replay: Vec<String>,
    /// Cancel this to cancel the run.
    pub cancel: CancellationToken,
    /// Live consumers of events.
    pub listeners: Vec<Arc<dyn EventListener>>,
}

impl std::fmt::Debug for ResumeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResumeOptions")
            .field("replay", &self.replay)
            .finish_non_exhaustive()
    }
}

/// Why a run could not be started or resumed (a run that started always ends with
/// a report, whatever happened inside it).
#[derive(Debug, Error, Diagnostic)]
pub enum ExecError {
    /// The store failed before the run could start.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Store(#[from] StoreError),
    /// The inputs do not fit the recipe.
    #[error("{0}")]
    #[diagnostic(
        code(protoflow::exec::inputs),
        help("pass inputs as --input name=value with the types the recipe declares")
    )]
    Inputs(String),
    /// The stored recipe could not be turned into a plan again.
    #[error("cannot resume run `{run_id}`: {reason}")]
    #[diagnostic(
        code(protoflow::exec::rebuild),
        help("the stored recipe no longer validates with this protoflow")
    )]
    Rebuild {
        /// The run.
        run_id: String,
        /// Why.
        reason: String,
    },
    /// The run finished successfully; there is nothing to resume.
    #[error("run `{0}` already succeeded; there is nothing to resume")]
    #[diagnostic(code(protoflow::exec::finished))]
    AlreadySucceeded(String),
}

/// Runs plans. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Executor {
    config: Arc<ExecutorConfig>,
}

impl Executor {
    /// An executor over this config.
    pub fn new(config: ExecutorConfig) -> Executor {
        Executor {
            config: Arc::new(config),
        }
    }

    /// The config.
    pub fn config(&self) -> &ExecutorConfig {
        &self.config
    }

    /// Runs `plan` with `inputs` (typed, before defaults) to its end.
    pub async fn run(
        &self,
        plan: Plan,
        inputs: indexmap::IndexMap<String, serde_json::Value>,
        options: RunOptions,
    ) -> Result<super::RunReport, ExecError> {
        run::start(Arc::clone(&self.config), plan, inputs, options).await
    }

    /// Continues a stored run: succeeded steps are reused, steps interrupted
    /// mid-effect are reported and not replayed unless listed in `replay`.
    /// `rebuild` turns the stored run (its recipe document) into a plan again.
    pub async fn resume(
        &self,
        run_id: &str,
        rebuild: impl FnOnce(&RunRecord) -> Result<Plan, String>,
        options: ResumeOptions,
    ) -> Result<super::RunReport, ExecError> {
        resume::resume(Arc::clone(&self.config), run_id, rebuild, options).await
    }
}
