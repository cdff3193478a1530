//! One run's shared context, and starting a fresh run.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use indexmap::IndexMap;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::coordinator::{Graph, run_graph};
use super::finish::finish_run;
use super::{ExecError, ExecutorConfig, RunOptions};
use crate::events::{EventKind, now_ms};
use crate::graph::recorder::Recorder;
use crate::graph::report::limits_json;
use crate::graph::template::Templates;
use crate::graph::{Budget, Exhaustion, Plan, RunReport, inputs};
use crate::recipe::Origin;
use crate::store::NewRun;
use crate::task::TaskHandle;

/// Everything the tasks of one run share.
pub(crate) struct RunCtx {
    pub config: Arc<ExecutorConfig>,
    pub recorder: Recorder,
    pub budget: Budget,
    pub semaphore: Arc<Semaphore>,
    pub templates: Templates,
    /// Canceled by the embedder (Ctrl-C).
    pub cancel: CancellationToken,
    /// Child of `cancel`; also canceled when the run's wall time is spent.
    pub work: CancellationToken,
    budget_reported: AtomicBool,
    pub started_at_ms: u64,
    /// The run's task state (inert unless the recipe declares `task:`).
    pub task: TaskHandle,
}

impl RunCtx {
    pub fn new(
        config: Arc<ExecutorConfig>,
        recorder: Recorder,
        plan: &Plan,
        cancel: CancellationToken,
        inputs: &Value,
    ) -> Arc<RunCtx> {
        let limits = plan.recipe.limits;
        let task = TaskHandle::new(
            config.project_root.clone(),
            config.checks.clone(),
            limits.repairs,
        );
        if let Some(doc) = &plan.recipe.document.task {
            task.setup(doc, inputs);
        }
        Arc::new(RunCtx {
            config,
            recorder,
            budget: Budget::root(&limits),
            semaphore: Arc::new(Semaphore::new(limits.concurrency.max(1) as usize)),
            templates: Templates::new(),
            work: cancel.child_token(),
            cancel,
            budget_reported: AtomicBool::new(false),
            started_at_ms: now_ms(),
            task,
        })
    }

    /// Why no new work may start, if so.
    pub fn stopping(&self) -> Option<String> {
        if self.cancel.is_cancelled() {
            return Some("the run was canceled before it started".into());
        }
        if let Some(e) = self.budget.root_exhaustion() {
            return Some(format!("the run's budget is exhausted: {e}"));
        }
        if self.work.is_cancelled() {
            return Some("the run stopped before it started".into());
        }
        None
    }

    /// Records a refused charge: `budget.exhausted` once for the root, each time for
    /// a step's own limit.
    pub fn report_exhaustion(&self, exhaustion: &Exhaustion) {
        if exhaustion.is_root() && self.budget_reported.swap(true, Ordering::AcqRel) {
            return;
        }
        self.recorder.emit(EventKind::BudgetExhausted {
            scope: exhaustion.scope.clone(),
            limit: exhaustion.limit.clone(),
            max: exhaustion.max,
            used: exhaustion.used,
        });
    }
}

/// A new run id: UTC date and time plus 6 hex digits (`20261130-090711-3fa2c1`).
pub fn new_run_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mut hasher = Sha256::new();
    hasher.update(now.as_nanos().to_le_bytes());
    hasher.update(std::process::id().to_le_bytes());
    hasher.update(COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    let suffix = hex::encode(&hasher.finalize()[..3]);
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}-{suffix}",
        rem / 3_600,
        (rem % 3_600) / 60,
        rem % 60
    )
}

pub(crate) fn origin_text(origin: &Origin) -> String {
    match origin {
        Origin::File(path) | Origin::Project(path) | Origin::User(path) => {
            path.display().to_string()
        }
        Origin::Builtin(name) => format!("builtin:{name}"),
    }
}

/// Starts a fresh run and drives it to its end.
pub(crate) async fn start(
    config: Arc<ExecutorConfig>,
    plan: Plan,
    given: IndexMap<String, Value>,
    options: RunOptions,
) -> Result<RunReport, ExecError> {
    let inputs = inputs::resolve_inputs(&plan.recipe, &given).map_err(ExecError::Inputs)?;
    let run_id = options.run_id.clone().unwrap_or_else(new_run_id);
    let document = serde_json::to_value(&plan.recipe.document).unwrap_or(Value::Null);
    let started_at_ms = now_ms();
    config.store.create_run(&NewRun {
        id: run_id.clone(),
        recipe_name: plan.recipe.name.clone(),
        recipe_origin: origin_text(&plan.recipe.origin),
        recipe_document: document,
        // A secret given as an input is never stored; resume refuses such a run.
        inputs: config.redactor.redact_value(&inputs),
        project_root: config.project_root.display().to_string(),
        started_at_ms,
    })?;
    let recorder = Recorder::new(
        config.store.clone(),
        run_id,
        0,
        options.listeners.clone(),
        Arc::clone(&config.redactor),
    );
    recorder.emit(EventKind::RunStarted {
        recipe: plan.recipe.name.clone(),
        inputs: inputs.clone(),
        limits: limits_json(&plan.recipe.limits),
    });
    let plan = Arc::new(plan);
    let ctx = RunCtx::new(config, recorder, &plan, options.cancel, &inputs);
    let graph = Graph::new(Arc::clone(&plan), String::new(), inputs, ctx.work.clone());
    let outcome = run_graph(Arc::clone(&ctx), graph).await;
    Ok(finish_run(&ctx, &plan, outcome))
}
