//! Delegation: a controller's call of a worker role.
//!
//! Each call of a model-driven worker is a FRESH conversation (the worker sees its
//! task and nothing of the controller's conversation, and keeps nothing afterwards)
//! running through the same loop, under the worker's authority: the worker role's
//! tools and capabilities ∩ the recipe's ceiling ∩ the controller step's phase
//! (never wider than either). It shares the run's budget (each call is charged as a
//! child), cannot delegate further (depth 1), runs one at a time (the loop
//! dispatches calls in order: concurrency 1), and is bounded per attempt by the
//! delegate's `max_calls`. A worker whose call ended `needs_context` (it ran out
//! of turns while making progress) may be called again — a continuation — at most
//! its role's `limits.continuations` times (default 2) per controller attempt,
//! within the same task record and budget. The worker's answer, status and receipts come back to
//! the controller as the tool result; its receipts are recorded under
//! `<step>/<tool>#<n>`. Tool-only workers have no conversation: their tools are
//! offered directly (see `offer.rs`) and only counted here.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::AgentError;
use super::inference::{DEFAULT_CONTINUATIONS, LoopState, MAX_CONTINUATIONS, run_job};
use super::offer::{Offer, OfferedDelegate};
use super::session::{Job, Session};
use crate::events::EventKind;
use crate::graph::{AgentStatus, Exhaustion, Resource};
use crate::policy::{Authority, AuthorityLayers};
use crate::recipe::Delegate;
use crate::role::RoleKind;

/// Reports a refused budget charge as an event and turns it into the error.
pub(crate) fn exhausted(_session: &Session, job: &Job, exhaustion: &Exhaustion) -> AgentError {
    if !exhaustion.is_root() {
        job.sink.emit(EventKind::BudgetExhausted {
            scope: exhaustion.scope.clone(),
            limit: exhaustion.limit.clone(),
            max: exhaustion.max,
            used: exhaustion.used,
        });
    }
    AgentError::Budget(exhaustion.to_string())
}

/// The delegates of a controller, resolved against the recipe's roles, each with
/// its worker authority. Disabled or unknown roles are not offered.
pub(crate) fn resolve(session: &Session, delegates: &[Delegate]) -> Vec<OfferedDelegate> {
    // A ceiling that denies delegation (a recipe's, or a request contract's)
    // offers no delegate at all.
    if session
        .ceiling
        .get(&crate::policy::Capability::RoleDelegate)
        == Some(&crate::policy::Decision::Deny)
    {
        return Vec::new();
    }
    delegates
        .iter()
        .filter_map(|d| {
            let role = session.roles.get(&d.role)?.clone();
            if !role_enabled(&role, &session.data).ok()? {
                return None;
            }
            let authority = worker_authority(
                &session.ceiling,
                &role.role.tools,
                &role.role.capabilities,
                session.ctx.phase,
            );
            Some(OfferedDelegate {
                delegate: d.clone(),
                role,
                authority,
            })
        })
        .collect()
}

/// Whether a role is on for this run: fixed in the recipe, or its `enabled`
/// expression evaluated over the run's inputs; why not, when it cannot be told.
pub(crate) fn role_enabled(
    role: &crate::recipe::ResolvedRole,
    data: &Value,
) -> Result<bool, String> {
    if !role.enabled {
        return Ok(false);
    }
    let Some(expr) = &role.enabled_when else {
        return Ok(true);
    };
    let inputs = json!({ "inputs": data.get("inputs").cloned().unwrap_or(Value::Null) });
    crate::graph::template::Templates::new()
        .condition(expr, &crate::graph::template::Data::from_json(&inputs))
        .map_err(|e| {
            format!(
                "`enabled: {expr}` of role `{}` could not be evaluated: {e}",
                role.key
            )
        })
}

/// A worker's authority: its own tools and capabilities, narrowed by the recipe's
/// ceiling and the controller's phase.
pub fn worker_authority(
    ceiling: &IndexMap<crate::policy::Capability, crate::policy::Decision>,
    tools: &[String],
    capabilities: &IndexMap<crate::policy::Capability, crate::policy::Decision>,
    phase: crate::policy::Phase,
) -> Authority {
    Authority::from_layers(AuthorityLayers {
        ceiling,
        role_tools: tools,
        role_capabilities: capabilities,
        step_tools: None,
        phase,
    })
}

/// Counts one call of delegate `index`; the refusal text when its bound is reached.
pub(crate) fn count_call(offer: &Offer, state: &mut LoopState, index: usize) -> Option<String> {
    let d = &offer.delegates[index].delegate;
    if state.delegate_calls.len() <= index {
        state.delegate_calls.resize(index + 1, 0);
    }
    if state.delegate_calls[index] >= d.max_calls {
        return Some(format!(
            "`{}` may be called at most {} times in this attempt; the limit is reached, so finish with what you have",
            d.tool, d.max_calls
        ));
    }
    state.delegate_calls[index] += 1;
    None
}

/// Counts a continuation when delegate `index`'s last call ended `needs_context`
/// (it ran out of turns while making progress); the refusal text when the worker
/// was already continued `limits.continuations` times in this attempt.
pub(crate) fn count_continuation(
    offer: &Offer,
    state: &mut LoopState,
    index: usize,
) -> Option<String> {
    let offered = &offer.delegates[index];
    let bound = offered
        .role
        .role
        .limits
        .as_ref()
        .and_then(|l| l.continuations)
        .unwrap_or(DEFAULT_CONTINUATIONS)
        .min(MAX_CONTINUATIONS);
    if state.continuations.len() <= index {
        state.continuations.resize(index + 1, (false, 0));
    }
    let (last_needs_context, used) = &mut state.continuations[index];
    if !*last_needs_context {
        return None;
    }
    if *used >= bound {
        return Some(format!(
            "`{}` ran out of turns again and was already continued {used} time(s) in this attempt (at most {bound}: the role's `limits.continuations`); do not delegate the rest again: finish with what was done and report what is left",
            offered.delegate.tool
        ));
    }
    *used += 1;
    None
}

/// Runs a model-driven worker on the task in `args`; the tool result's text.
pub(crate) async fn run_worker(
    session: &Session,
    job: &Job,
    offer: &Offer,
    state: &mut LoopState,
    index: usize,
    args: &Value,
) -> Result<String, AgentError> {
    let offered = &offer.delegates[index];
    if offered.role.role.kind == RoleKind::ToolOnly {
        return Err(AgentError::Unsupported(format!(
            "delegate `{}` is tool-only and has no conversation",
            offered.delegate.tool
        )));
    }
    session
        .budget
        .charge(Resource::Children, 1)
        .map_err(|e| exhausted(session, job, &e))?;
    state.delegations += 1;
    let mut task = args
        .get("task")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if let Some(paths) = args.get("paths").and_then(Value::as_array) {
        let paths: Vec<&str> = paths.iter().filter_map(Value::as_str).collect();
        if !paths.is_empty() {
            task.push_str(&format!("\n\nFiles: {}", paths.join(", ")));
        }
    }
    let worker = Job {
        role: offered.role.clone(),
        task,
        authority: offered.authority.clone(),
        delegates: Vec::new(),
        output: None,
        sink: job
            .sink
            .child(&format!("{}#{}", offered.delegate.tool, state.delegations)),
        memory: None,
        depth: job.depth + 1,
    };
    let result = run_job(session, worker).await;
    if state.continuations.len() <= index {
        state.continuations.resize(index + 1, (false, 0));
    }
    state.continuations[index].0 =
        matches!(&result, Ok(r) if r.status == AgentStatus::NeedsContext);
    let result = match result {
        Ok(result) => result,
        Err(e @ (AgentError::Budget(_) | AgentError::Canceled)) => return Err(e),
        Err(e) => {
            return Ok(json!({"status": "failed", "reason": e.to_string()}).to_string());
        }
    };
    let receipts: Vec<Value> = result
        .receipts
        .iter()
        .map(|r| {
            let mut entry = json!({"tool": r.tool, "status": r.status});
            for (key, value) in [
                ("path", r.facts.path.clone().map(Value::String)),
                (
                    "revision_after",
                    r.facts.revision_after.clone().map(Value::String),
                ),
                ("exit_code", r.facts.exit_code.map(Value::from)),
                ("reason", r.reason.clone().map(Value::String)),
            ] {
                if let Some(value) = value {
                    entry[key] = value;
                }
            }
            entry
        })
        .collect();
    state.receipts.extend(result.receipts.iter().cloned());
    let answer = result
        .value
        .clone()
        .unwrap_or(Value::String(result.text.clone()));
    let mut out = json!({
        "status": result.status.as_str(),
        "answer": answer,
        "receipts": receipts,
    });
    if let Some(reason) = &result.reason {
        out["reason"] = Value::String(reason.clone());
    }
    Ok(out.to_string())
}
