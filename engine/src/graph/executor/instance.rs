//! Running one step instance: a permit, the timeout, cancellation, and the step
//! kinds (tool, agent, child recipe).

use std::sync::Arc;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use serde_json::Value;
use tokio::sync::OwnedSemaphorePermit;
use tokio_util::sync::CancellationToken;

use super::coordinator::{Graph, run_graph};
use super::finish::{graph_status, render_outputs};
use super::run::RunCtx;
use super::state::InstanceResult;
use crate::events::{EventKind, RunStatus, StepStatus, now_ms};
use crate::graph::output::typed_output;
use crate::graph::recorder::ReceiptSink;
use crate::graph::runner::{AgentRequest, AgentStatus, ToolCall};
use crate::graph::template::Data;
use crate::graph::{Budget, Plan, Resource, inputs};
use crate::policy::{Authority, Decision, Phase};
use crate::recipe::{Recipe, Step, StepKind, bounds};
use crate::store::StepRecord;
use crate::tools::{ToolContext, lookup};

/// How long a canceled or timed-out step gets to stop before it is dropped (and
/// its process groups killed by their guards).
const STOP_GRACE: Duration = Duration::from_secs(3);

pub(crate) struct InstanceSpec {
    pub node: usize,
    pub key: String,
    pub item_index: Option<usize>,
    pub data: Data,
    pub attempt: u32,
    pub cancel: CancellationToken,
}

/// What a step's work produced.
struct Outcome {
    status: StepStatus,
    output: Value,
    error: Option<String>,
}

impl Outcome {
    fn ok(output: Value) -> Outcome {
        Outcome {
            status: StepStatus::Succeeded,
            output,
            error: None,
        }
    }
    fn failed(error: impl Into<String>) -> Outcome {
        Outcome {
            status: StepStatus::Failed,
            output: Value::Null,
            error: Some(error.into()),
        }
    }
    fn with_output(mut self, output: Value) -> Outcome {
        self.output = output;
        self
    }
}

/// The step's timeout: its own (or the engine default), narrowed by its own wall
/// time when the step sets one below the run's (the run's wall time is the root
/// budget's deadline, reported as budget exhaustion, not as a timeout).
pub(crate) fn step_timeout(step: &Step, run_wall_time: Duration) -> Duration {
    let timeout = step
        .timeout
        .unwrap_or(Duration::from_secs(bounds::STEP_TIMEOUT_SECS.default));
    if step.limits.wall_time < run_wall_time {
        timeout.min(step.limits.wall_time)
    } else {
        timeout
    }
}

pub(crate) async fn run_instance(
    ctx: Arc<RunCtx>,
    plan: Arc<Plan>,
    spec: &InstanceSpec,
) -> InstanceResult {
    let step = &plan.nodes[spec.node].step;
    let not_run = |reason: String| {
        ctx.recorder.emit(EventKind::StepSkipped {
            step: spec.key.clone(),
            reason: reason.clone(),
            status: StepStatus::NotRun,
        });
        let mut result = InstanceResult::simple(spec.key.clone(), StepStatus::NotRun, Some(reason));
        result.item_index = spec.item_index;
        put(&ctx, step, &result, None);
        result
    };
    let permit = tokio::select! {
        biased;
        () = spec.cancel.cancelled() => None,
        permit = Arc::clone(&ctx.semaphore).acquire_owned() => permit.ok(),
    };
    let Some(permit) = permit else {
        return not_run(
            ctx.stopping()
                .unwrap_or_else(|| "canceled before it started".into()),
        );
    };
    if let Some(reason) = ctx.stopping() {
        return not_run(reason);
    }
    let started_at = now_ms();
    let clock = Instant::now();
    ctx.recorder.emit(EventKind::StepStarted {
        step: spec.key.clone(),
        node: step.id.clone(),
        item_index: spec.item_index,
        attempt: spec.attempt,
    });
    let mut running = InstanceResult::simple(spec.key.clone(), StepStatus::Running, None);
    running.item_index = spec.item_index;
    running.attempts = spec.attempt;
    put(&ctx, step, &running, Some(started_at));

    let timeout = step_timeout(step, plan.recipe.limits.wall_time);
    let budget = ctx.budget.narrow(&spec.key, &step.limits);
    let work = execute(&ctx, &plan, step, spec, budget, permit);
    tokio::pin!(work);
    let outcome = tokio::select! {
        outcome = &mut work => outcome,
        () = tokio::time::sleep(timeout) => {
            spec.cancel.cancel();
            let _ = tokio::time::timeout(STOP_GRACE, &mut work).await;
            Outcome {
                status: StepStatus::TimedOut,
                output: Value::Null,
                error: Some(format!("timed out after {}; its processes were killed", humantime(timeout))),
            }
        }
        () = spec.cancel.cancelled() => {
            let stopped = tokio::time::timeout(STOP_GRACE, &mut work).await.ok();
            let reason = ctx.stopping().unwrap_or_else(|| "canceled".into());
            Outcome {
                status: StepStatus::Canceled,
                output: stopped.map(|o| o.output).unwrap_or(Value::Null),
                error: Some(reason.replace(" before it started", "")),
            }
        }
    };
    let duration_ms = u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX);
    ctx.recorder.emit(EventKind::StepFinished {
        step: spec.key.clone(),
        status: outcome.status,
        duration_ms,
        error: outcome.error.clone(),
    });
    let result = InstanceResult {
        key: spec.key.clone(),
        item_index: spec.item_index,
        status: outcome.status,
        output: outcome.output,
        error: outcome.error,
        attempts: spec.attempt,
        duration_ms: Some(duration_ms),
        reused: false,
        effects_uncertain: false,
    };
    put(&ctx, step, &result, Some(started_at));
    result
}

fn put(ctx: &RunCtx, step: &Step, result: &InstanceResult, started_at: Option<u64>) {
    let terminal = result.status.is_terminal();
    ctx.recorder.put_step(&StepRecord {
        key: result.key.clone(),
        node: step.id.clone(),
        item_index: result.item_index,
        status: result.status,
        attempts: result.attempts,
        started_at_ms: started_at,
        finished_at_ms: terminal.then(now_ms),
        output: (!result.output.is_null()).then(|| result.output.clone()),
        error: result.error.clone(),
        effects_uncertain: result.effects_uncertain,
    });
}

fn humantime(d: Duration) -> String {
    if d.as_millis() < 1_000 {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}s", d.as_secs_f64())
    }
}

fn charge(ctx: &RunCtx, budget: &Budget, resource: Resource) -> Result<(), Outcome> {
    budget.charge(resource, 1).map_err(|exhaustion| {
        ctx.report_exhaustion(&exhaustion);
        Outcome {
            status: if exhaustion.is_root() {
                StepStatus::NotRun
            } else {
                StepStatus::Failed
            },
            output: Value::Null,
            error: Some(exhaustion.to_string()),
        }
    })
}

/// The phase a step instance runs in: a step of phase `edit` run again by a
/// back-edge is a repair round (the task state opens it only through its gate).
fn instance_phase(step: &Step, spec: &InstanceSpec) -> Phase {
    if step.phase == Phase::Edit && spec.attempt > 1 {
        Phase::Repair
    } else {
        step.phase
    }
}

fn tool_context(ctx: &RunCtx, step: &Step, spec: &InstanceSpec) -> ToolContext {
    let phase = instance_phase(step, spec);
    if phase == Phase::Repair {
        ctx.task.enter_repair();
    }
    let cancel = &spec.cancel;
    let mut tool_ctx = ToolContext::new(ctx.config.project_root.clone());
    tool_ctx.phase = phase;
    tool_ctx.task = Some(ctx.task.clone());
    tool_ctx.cancel = cancel.clone();
    tool_ctx.output_bytes = usize::try_from(step.limits.output_bytes).unwrap_or(usize::MAX);
    tool_ctx.process_env = ctx.config.process_env.clone();
    tool_ctx.checkpoints = ctx.config.checkpoints.clone();
    tool_ctx
}

fn render_with(
    ctx: &RunCtx,
    with: &IndexMap<String, Value>,
    data: &Data,
) -> Result<Value, Outcome> {
    let object: serde_json::Map<String, Value> =
        with.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    ctx.templates
        .render_value(&Value::Object(object), data)
        .map_err(|err| Outcome::failed(format!("template error: {err}")))
}

async fn execute(
    ctx: &Arc<RunCtx>,
    plan: &Plan,
    step: &Step,
    spec: &InstanceSpec,
    budget: Budget,
    permit: OwnedSemaphorePermit,
) -> Outcome {
    let result = match &step.kind {
        StepKind::Tool { name, with } => run_tool(ctx, plan, step, spec, budget, name, with).await,
        StepKind::Agent { .. } => run_agent(ctx, plan, step, spec, budget).await,
        StepKind::Recipe { recipe, with } => {
            // A child's steps take their own permits; holding ours could deadlock.
            drop(permit);
            return run_child(ctx, spec, budget, recipe, with)
                .await
                .unwrap_or_else(|o| o);
        }
    };
    drop(permit);
    result.unwrap_or_else(|o| o)
}

/// A tool step's authority: exactly the tool it names, its capability as the
/// recipe's ceiling (narrowed by the request contract) decides (`allow` when
/// neither narrows it), in the step's phase (so phase rules still apply).
fn tool_step_authority(
    ctx: &RunCtx,
    plan: &Plan,
    step: &Step,
    spec: &InstanceSpec,
    tool: &str,
) -> Authority {
    let ceiling = ctx.task.narrow_ceiling(&plan.recipe.capabilities);
    let capabilities = lookup(tool)
        .and_then(|spec| spec.capability)
        .map(|capability| {
            let decision = ceiling.get(&capability).copied().unwrap_or(Decision::Allow);
            (capability, decision)
        });
    Authority::new([tool], capabilities, instance_phase(step, spec))
}

async fn run_tool(
    ctx: &Arc<RunCtx>,
    plan: &Plan,
    step: &Step,
    spec: &InstanceSpec,
    budget: Budget,
    name: &str,
    with: &IndexMap<String, Value>,
) -> Result<Outcome, Outcome> {
    let args = render_with(ctx, with, &spec.data)?;
    charge(ctx, &budget, Resource::ToolCalls)?;
    let call = ToolCall {
        step: spec.key.clone(),
        tool: name.to_string(),
        args,
        ctx: tool_context(ctx, step, spec),
        authority: tool_step_authority(ctx, plan, step, spec, name),
    };
    let outcome = ctx.config.tools.invoke(call).await;
    if let Some(receipt) = &outcome.receipt {
        ctx.recorder.receipt(&spec.key, receipt);
    }
    let result = match outcome.result {
        Ok(result) => result,
        Err(reason) if spec.cancel.is_cancelled() => {
            return Ok(Outcome {
                status: StepStatus::Canceled,
                output: Value::Null,
                error: Some(reason),
            });
        }
        Err(reason) => return Err(Outcome::failed(reason)),
    };
    if let Some(reason) = result.failed {
        return Ok(Outcome::failed(reason).with_output(result.value));
    }
    let Some(declared) = &step.output else {
        return Ok(Outcome::ok(result.value));
    };
    let source = result
        .text
        .map(Value::String)
        .unwrap_or(result.value.clone());
    Ok(match typed_output(&declared.schema, &source) {
        Ok(value) => Outcome::ok(value),
        Err(err) => {
            Outcome::failed(format!("invalid typed output: {err}")).with_output(result.value)
        }
    })
}

async fn run_agent(
    ctx: &Arc<RunCtx>,
    plan: &Plan,
    step: &Step,
    spec: &InstanceSpec,
    budget: Budget,
) -> Result<Outcome, Outcome> {
    let StepKind::Agent {
        role,
        prompt,
        tools,
        delegates,
    } = &step.kind
    else {
        return Err(Outcome::failed("not an agent step"));
    };
    let Some(runner) = ctx.config.agents.clone() else {
        return Err(Outcome::failed(format!(
            "no model provider configured: agent step `{}` (role `{role}`) needs a model; configure a provider to run agent steps",
            step.id
        )));
    };
    let Some(resolved) = plan.recipe.roles.get(role).cloned() else {
        return Err(Outcome::failed(format!(
            "role `{role}` is not resolved in this recipe"
        )));
    };
    let prompt = ctx
        .templates
        .render_string(prompt, &spec.data)
        .map_err(|err| Outcome::failed(format!("template error: {err}")))?;
    let corrections = step.output.as_ref().map_or(0, |o| o.corrections);
    let mut correction = None;
    let mut attempt = 1;
    loop {
        let request = AgentRequest {
            step: spec.key.clone(),
            role: Arc::clone(&resolved),
            prompt: prompt.clone(),
            tools: tools.clone(),
            delegates: delegates.clone(),
            output: step.output.clone(),
            budget: budget.clone(),
            ctx: tool_context(ctx, step, spec),
            tools_invoker: Arc::clone(&ctx.config.tools),
            receipts: ReceiptSink::new(ctx.recorder.clone(), spec.key.clone()),
            attempt,
            correction: correction.clone(),
            ceiling: ctx.task.narrow_ceiling(&plan.recipe.capabilities),
            roles: plan.recipe.roles.clone(),
            data: spec.data.to_json(),
        };
        let answer = runner.run(request).await.map_err(Outcome::failed)?;
        if answer.status != AgentStatus::Completed {
            // Blocked / needs_context / failed never count as completion: the step
            // fails, and keeps what the agent had as its output.
            let reason = answer.reason.clone().unwrap_or_default();
            return Err(
                Outcome::failed(format!("agent ended {} / {reason}", answer.status)).with_output(
                    serde_json::json!({
                        "status": answer.status.as_str(),
                        "reason": reason,
                        "text": answer.text,
                    }),
                ),
            );
        }
        let Some(declared) = &step.output else {
            return Ok(Outcome::ok(
                answer.value.unwrap_or(Value::String(answer.text)),
            ));
        };
        let source = answer
            .value
            .clone()
            .unwrap_or(Value::String(answer.text.clone()));
        match typed_output(&declared.schema, &source) {
            Ok(value) => return Ok(Outcome::ok(value)),
            Err(err) if attempt <= corrections => {
                attempt += 1;
                let reason = err.to_string();
                ctx.recorder.emit(EventKind::StepRetried {
                    step: spec.key.clone(),
                    attempt,
                    reason: reason.clone(),
                });
                correction = Some(reason);
            }
            Err(err) => {
                return Err(Outcome::failed(format!(
                    "invalid typed output after {} correction(s): {err}",
                    corrections
                ))
                .with_output(Value::String(answer.text)));
            }
        }
    }
}

async fn run_child(
    ctx: &Arc<RunCtx>,
    spec: &InstanceSpec,
    budget: Budget,
    recipe: &Arc<Recipe>,
    with: &IndexMap<String, Value>,
) -> Result<Outcome, Outcome> {
    let args = render_with(ctx, with, &spec.data)?;
    charge(ctx, &budget, Resource::Children)?;
    let Some(planner) = ctx.config.child_planner.clone() else {
        return Err(Outcome::failed(
            "recipe steps need a plan builder and none is configured in this executor",
        ));
    };
    let plan = planner(recipe).map_err(|e| {
        Outcome::failed(format!(
            "child recipe `{}` has no valid plan: {e}",
            recipe.name
        ))
    })?;
    let given: IndexMap<String, Value> = match args {
        Value::Object(map) => map.into_iter().collect(),
        _ => IndexMap::new(),
    };
    let child_inputs = inputs::resolve_inputs(recipe, &given)
        .map_err(|e| Outcome::failed(format!("child recipe `{}`: {e}", recipe.name)))?;
    let plan = Arc::new(plan);
    let graph = Graph::new(
        Arc::clone(&plan),
        format!("{}/", spec.key),
        child_inputs,
        spec.cancel.clone(),
    );
    let outcome = run_graph(Arc::clone(ctx), graph).await;
    let mut problems = outcome.problems.clone();
    let status = graph_status(ctx, &plan, &outcome, &mut problems);
    let outputs = render_outputs(ctx, &plan, &outcome, &mut problems);
    let output = Value::Object(outputs);
    Ok(match status {
        RunStatus::Succeeded | RunStatus::Degraded => Outcome::ok(output),
        RunStatus::Canceled => Outcome {
            status: StepStatus::Canceled,
            output,
            error: Some("the child recipe was canceled".into()),
        },
        other => Outcome::failed(format!(
            "child recipe `{}` ended {other}: {}",
            recipe.name,
            problems.join("; ")
        ))
        .with_output(output),
    })
}
