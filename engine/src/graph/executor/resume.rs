//! Resume: continue a stored run in a new process.
//!
//! Succeeded steps (and fan-out instances) are reused with their stored outputs.
//! Steps recorded as running when the previous process died are marked
//! `interrupted`: when they could have had an effect (a command, a write, an agent,
//! a child recipe) their effects are uncertain, and they are reported, never
//! replayed unless the caller names them in `replay`; effect-free steps (`echo`,
//! reads) simply run again. Everything else (failed, skipped, not run) is evaluated
//! afresh. The run's task state (plan, selected checks, frozen and repair state,
//! worker reports, the ledger) is rebuilt from its stored receipts. The plan is rebuilt from the recipe document stored with the run, never
//! from the file. Budgets start afresh for each execution.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use super::coordinator::{Graph, run_graph};
use super::finish::finish_run;
use super::run::RunCtx;
use super::state::InstanceResult;
use super::{ExecError, ExecutorConfig, ResumeOptions};
use crate::events::Event;
use crate::events::{EventKind, RunStatus, StepStatus};
use crate::graph::recorder::Recorder;
use crate::graph::{Plan, Resource, RunReport};
use crate::recipe::StepKind;
use crate::store::RunRecord;
use crate::tools::{Effect, lookup};

/// Whether a step could have changed the world while it ran.
fn has_effects(kind: &StepKind) -> bool {
    match kind {
        StepKind::Tool { name, .. } => !matches!(
            lookup(name).map(|s| s.effect),
            Some(Effect::Read | Effect::Control)
        ),
        StepKind::Agent { .. } | StepKind::Recipe { .. } => true,
    }
}

pub(crate) async fn resume(
    config: Arc<ExecutorConfig>,
    run_id: &str,
    rebuild: impl FnOnce(&RunRecord) -> Result<Plan, String>,
    options: ResumeOptions,
) -> Result<RunReport, ExecError> {
    let record = config.store.run(run_id)?;
    if record.status == RunStatus::Succeeded {
        return Err(ExecError::AlreadySucceeded(run_id.to_string()));
    }
    if holds_redaction(&record.inputs) {
        return Err(ExecError::Rebuild {
            run_id: run_id.to_string(),
            reason: "an input held a secret, which is never stored; start a new run instead"
                .to_string(),
        });
    }
    let plan = rebuild(&record).map_err(|reason| ExecError::Rebuild {
        run_id: run_id.to_string(),
        reason,
    })?;
    let stored = config.store.steps(run_id)?;
    let events = config.store.events(run_id)?;
    let last_seq = config.store.last_seq(run_id)?;
    let receipts = config.store.receipts(run_id)?;
    config.store.reopen_run(run_id)?;

    let recorder = Recorder::new(
        config.store.clone(),
        run_id.to_string(),
        last_seq,
        options.listeners.clone(),
        Arc::clone(&config.redactor),
    );
    let index_of: HashMap<&str, usize> = plan
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.step.id.as_str(), i))
        .collect();
    let replay: HashSet<String> = options.replay.iter().cloned().collect();

    let mut reuse = HashMap::new();
    let mut interrupted = HashMap::new();
    let mut reused_keys = Vec::new();
    let mut interrupted_keys = Vec::new();
    let mut notices = Vec::new();
    for row in stored.iter().filter(|r| !r.key.contains('/')) {
        let Some(&node) = index_of.get(row.node.as_str()) else {
            continue;
        };
        let step = &plan.nodes[node].step;
        match row.status {
            StepStatus::Succeeded => {
                reused_keys.push(row.key.clone());
                reuse.insert(
                    row.key.clone(),
                    InstanceResult {
                        key: row.key.clone(),
                        item_index: row.item_index,
                        status: StepStatus::Succeeded,
                        output: row.output.clone().unwrap_or_default(),
                        error: None,
                        attempts: row.attempts,
                        duration_ms: row
                            .finished_at_ms
                            .zip(row.started_at_ms)
                            .map(|(f, s)| f.saturating_sub(s)),
                        reused: true,
                        effects_uncertain: false,
                    },
                );
            }
            StepStatus::Running | StepStatus::Interrupted => {
                // A fan-out's own row is bookkeeping; its instances carry the effects.
                if step.foreach.is_some() && row.item_index.is_none() {
                    continue;
                }
                let uncertain = has_effects(&step.kind)
                    && (row.status == StepStatus::Interrupted && row.effects_uncertain
                        || row.status == StepStatus::Running);
                let replayed = !uncertain || replay.contains(&row.key);
                interrupted_keys.push(row.key.clone());
                notices.push(EventKind::StepInterrupted {
                    step: row.key.clone(),
                    effects_uncertain: uncertain,
                    replayed,
                });
                if !replayed {
                    interrupted.insert(row.key.clone(), uncertain);
                }
            }
            _ => {}
        }
    }
    let mut loops_taken = HashMap::new();
    for event in &events {
        if let EventKind::LoopTaken { from, to, .. } = &event.kind
            && let (Some(&f), Some(&t)) = (index_of.get(from.as_str()), index_of.get(to.as_str()))
        {
            *loops_taken.entry((f, t)).or_insert(0u32) += 1;
        }
    }

    recorder.emit(EventKind::RunResumed {
        reused: reused_keys,
        interrupted: interrupted_keys,
    });
    for notice in notices {
        recorder.emit(notice);
    }
    let plan = Arc::new(plan);
    let checkpoints = config.checkpoints.clone();
    let ctx = RunCtx::new(config, recorder, &plan, options.cancel, &record.inputs);
    // The task state continues from the evidence of the earlier executions.
    ctx.task.rebuild(&receipts, checkpoints.as_deref());
    // So does the budget: what earlier executions spent stays spent.
    for (resource, used) in spent_before(&events, receipts.len()) {
        let amount = used.min(ctx.budget.max(resource));
        let _ = ctx.budget.charge(resource, amount);
    }
    let mut graph = Graph::new(
        Arc::clone(&plan),
        String::new(),
        record.inputs.clone(),
        ctx.work.clone(),
    );
    graph.reuse = reuse;
    graph.interrupted = interrupted;
    graph.loops_taken = loops_taken;
    let outcome = run_graph(Arc::clone(&ctx), graph).await;
    Ok(finish_run(&ctx, &plan, outcome))
}

/// Whether a stored value carries a redaction marker (a secret that was not stored).
fn holds_redaction(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains("[REDACTED:"),
        Value::Array(items) => items.iter().any(holds_redaction),
        Value::Object(map) => map.values().any(holds_redaction),
        _ => false,
    }
}

/// What earlier executions of a run spent, from its stored events and receipts:
/// every tool call left a receipt; every model call an event with its attempts
/// and tokens (reported, else estimated). Wall time is per execution.
fn spent_before(events: &[Event], receipts: usize) -> [(Resource, u64); 3] {
    let (mut model_calls, mut tokens) = (0u64, 0u64);
    for event in events {
        if let EventKind::ModelCalled {
            attempts,
            estimated_tokens,
            input_tokens,
            output_tokens,
            ..
        } = &event.kind
        {
            model_calls += u64::from(*attempts);
            tokens += match (input_tokens, output_tokens) {
                (None, None) => *estimated_tokens,
                (input, output) => input.unwrap_or(0) + output.unwrap_or(0),
            };
        }
    }
    [
        (Resource::ToolCalls, receipts as u64),
        (Resource::ModelCalls, model_calls),
        (Resource::Tokens, tokens),
    ]
}
