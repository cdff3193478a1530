//! The end of a graph: its status, the recipe's named outputs, the run report.

use serde_json::{Map, Value, json};

use super::coordinator::GraphOutcome;
use super::run::RunCtx;
use super::state::{InstanceResult, steps_data};
use crate::events::{EventKind, RunStatus, StepStatus, now_ms};
use crate::graph::Plan;
use crate::graph::report::{
    BudgetReport, GateReport, LoopReport, RunReport, StepReport, limits_json,
};
use crate::graph::template::Data;
use crate::recipe::document::GateOutcome;

/// The status of a finished graph, adding a sentence per problem.
///
/// Precedence: canceled > budget_exhausted > failed > degraded > succeeded.
pub(crate) fn graph_status(
    ctx: &RunCtx,
    plan: &Plan,
    outcome: &GraphOutcome,
    problems: &mut Vec<String>,
) -> RunStatus {
    let mut failed = !problems.is_empty();
    let mut degraded = false;
    for (node, state) in plan.nodes.iter().zip(&outcome.nodes) {
        let Some(result) = &state.result else {
            continue;
        };
        let id = &node.step.id;
        let why = result.error.as_deref().unwrap_or("");
        match result.status {
            StepStatus::TimedOut => {
                degraded = true;
                problems.push(format!("step `{id}` timed out: {why}"));
            }
            StepStatus::Failed
            | StepStatus::Interrupted
            | StepStatus::NotRun
            | StepStatus::Canceled => {
                if node.step.allow_failure && result.status == StepStatus::Failed {
                    problems.push(format!("step `{id}` failed (allowed): {why}"));
                } else {
                    failed = true;
                    problems.push(format!("step `{id}` {}: {why}", result.status));
                }
            }
            _ => {}
        }
    }
    if ctx.cancel.is_cancelled() {
        RunStatus::Canceled
    } else if ctx.budget.root_exhaustion().is_some() {
        RunStatus::BudgetExhausted
    } else if failed {
        RunStatus::Failed
    } else if degraded {
        RunStatus::Degraded
    } else {
        RunStatus::Succeeded
    }
}

/// The recipe's named outputs, rendered over the final data.
pub(crate) fn render_outputs(
    ctx: &RunCtx,
    plan: &Plan,
    outcome: &GraphOutcome,
    problems: &mut Vec<String>,
) -> Map<String, Value> {
    let data = Data::from_json(&json!({
        "inputs": outcome.inputs,
        "steps": steps_data(plan, &outcome.nodes),
    }));
    let mut outputs = Map::new();
    for (name, expression) in &plan.recipe.outputs {
        match ctx.templates.eval(expression, &data) {
            Ok(value) => {
                outputs.insert(name.clone(), value);
            }
            Err(err) => problems.push(format!("output `{name}` could not be rendered: {err}")),
        }
    }
    outputs
}

/// The recipe's gates over the final data (`inputs`, `steps`, `outputs`). A gate
/// that cannot be evaluated is a problem (the run fails), never a pass.
fn evaluate_gates(
    ctx: &RunCtx,
    plan: &Plan,
    outcome: &GraphOutcome,
    outputs: &Map<String, Value>,
    problems: &mut Vec<String>,
) -> Vec<GateReport> {
    let gates = &plan.recipe.document.gates;
    if gates.is_empty() {
        return Vec::new();
    }
    let data = Data::from_json(&json!({
        "inputs": outcome.inputs,
        "steps": steps_data(plan, &outcome.nodes),
        "outputs": outputs,
    }));
    gates
        .iter()
        .enumerate()
        .map(|(i, gate)| {
            let mut report = GateReport {
                when: gate.when.clone(),
                outcome: gate.outcome,
                tripped: false,
                message: None,
                error: None,
            };
            match ctx.templates.condition(&gate.when, &data) {
                Ok(tripped) => report.tripped = tripped,
                Err(err) => {
                    problems.push(format!("gate {} could not be evaluated: {err}", i + 1));
                    report.error = Some(err.to_string());
                    return report;
                }
            }
            if report.tripped {
                report.message = Some(match &gate.message {
                    Some(template) => ctx
                        .templates
                        .render_string(template, &data)
                        .unwrap_or_else(|err| format!("{} (message: {err})", gate.when)),
                    None => gate.when.clone(),
                });
            }
            report
        })
        .collect()
}

fn step_report(plan: &Plan, node: usize, result: &InstanceResult) -> StepReport {
    let step = &plan.nodes[node].step;
    StepReport {
        key: result.key.clone(),
        node: step.id.clone(),
        item_index: result.item_index,
        status: result.status,
        attempts: result.attempts,
        duration_ms: result.duration_ms,
        reason: result.error.clone(),
        output: result.output.clone(),
        allow_failure: step.allow_failure,
        effects_uncertain: result.effects_uncertain,
        reused: result.reused,
    }
}

/// Ends the run: status, report, `run.finished`, the store's run row.
pub(crate) fn finish_run(ctx: &RunCtx, plan: &Plan, outcome: GraphOutcome) -> RunReport {
    let mut problems = outcome.problems.clone();
    let status_before_outputs = graph_status(ctx, plan, &outcome, &mut problems);
    let problems_before = problems.len();
    let outputs = render_outputs(ctx, plan, &outcome, &mut problems);
    let gates = evaluate_gates(ctx, plan, &outcome, &outputs, &mut problems);
    let mut status = status_before_outputs;
    if problems.len() > problems_before && status == RunStatus::Succeeded {
        status = RunStatus::Failed;
    }
    if status == RunStatus::Succeeded
        && gates
            .iter()
            .any(|g| g.tripped && g.outcome == GateOutcome::Incomplete)
    {
        status = RunStatus::Degraded;
    }
    for gate in gates
        .iter()
        .filter(|g| g.tripped && g.outcome == GateOutcome::Incomplete)
    {
        problems.push(format!(
            "incomplete: {}",
            gate.message.as_deref().unwrap_or(&gate.when)
        ));
    }
    if let Some(exhaustion) = ctx.budget.root_exhaustion() {
        problems.push(format!("budget exhausted: {exhaustion}"));
    }
    if ctx.cancel.is_cancelled() {
        problems.push("the run was canceled".into());
    }
    if let Some(err) = ctx.recorder.store_error() {
        problems.push(format!(
            "the run store failed to record part of this run: {err}"
        ));
    }

    let mut steps = Vec::new();
    for (node, state) in outcome.nodes.iter().enumerate() {
        if let Some(result) = &state.result {
            steps.push(step_report(plan, node, result));
        }
        for instance in state.instances.iter().flatten() {
            steps.push(step_report(plan, node, instance));
        }
    }
    let keys = |wanted: &[StepStatus]| -> Vec<String> {
        steps
            .iter()
            .filter(|s| wanted.contains(&s.status))
            .map(|s| s.key.clone())
            .collect()
    };
    let finished_at_ms = now_ms();
    let duration_ms = finished_at_ms.saturating_sub(ctx.started_at_ms);
    let report = RunReport {
        run_id: ctx.recorder.run_id().to_string(),
        recipe: plan.recipe.name.clone(),
        status,
        started_at_ms: ctx.started_at_ms,
        finished_at_ms,
        duration_ms,
        failed: keys(&[StepStatus::Failed]),
        skipped: keys(&[StepStatus::Skipped, StepStatus::NotRun]),
        timed_out: keys(&[StepStatus::TimedOut]),
        interrupted: keys(&[StepStatus::Interrupted]),
        steps,
        problems,
        outputs,
        budget: BudgetReport {
            used: ctx.budget.used(),
            limits: limits_json(&plan.recipe.limits),
            exhausted: ctx.budget.root_exhaustion(),
        },
        loops: outcome
            .loops
            .iter()
            .map(|l| LoopReport {
                from: plan.nodes[l.from].step.id.clone(),
                to: plan.nodes[l.to].step.id.clone(),
                taken: l.taken,
                max: l.max,
                exhausted: l.exhausted,
            })
            .collect(),
        completion: ctx.task.last_completion(),
        gates,
    };
    let report = ctx.recorder.redacted(report);
    ctx.recorder.emit(EventKind::RunFinished {
        status,
        duration_ms,
    });
    let json = serde_json::to_value(&report).unwrap_or(Value::Null);
    // Recorded last: a run row still `running` means the process died before this.
    let _ = ctx
        .recorder
        .store()
        .finish_run(ctx.recorder.run_id(), status, finished_at_ms, &json);
    report
}
