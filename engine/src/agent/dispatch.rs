//! Dispatching one tool call the model made: check the name against the offer,
//! the arguments against the declared schema, then run it (through the run's tool
//! invoker under the inference's authority, as a delegation, or as one of the
//! loop's own tools), and turn the outcome into what the model sees next.
//!
//! Every call that names a tool leaves a receipt, refused ones too. A call the
//! model could have got right (an invented name, invalid JSON, arguments failing
//! the schema, a rejected precondition, a tool not allowed here) costs one
//! correction; a typed output that does not validate costs one output correction.
//! This file never decides when the loop ends.

use serde_json::Value;

use super::AgentError;
use super::delegate;
use super::inference::LoopState;
use super::offer::{Offer, Target};
use super::session::{Job, Session, refusal_receipt};
use crate::evidence::{Receipt, ReceiptStatus};
use crate::graph::{Resource, ToolCall as InvokerCall};
use crate::llm::{ToolArguments, ToolCall};
use crate::policy::{Authority, Verdict};
use crate::tools::lookup;

/// What one call produced for the conversation and the loop.
#[derive(Debug, Default)]
pub(crate) struct CallOutcome {
    /// The tool result the model sees.
    pub content: String,
    /// Whether it is an error result.
    pub is_error: bool,
    /// A correctable mistake (costs one correction).
    pub correction: Option<String>,
    /// An invalid typed output (costs one output correction).
    pub output_correction: Option<String>,
    /// The validated typed output, when this call delivered it.
    pub final_value: Option<Value>,
}

impl CallOutcome {
    fn ok(content: String) -> CallOutcome {
        CallOutcome {
            content,
            ..CallOutcome::default()
        }
    }

    fn error(content: String) -> CallOutcome {
        CallOutcome {
            content,
            is_error: true,
            ..CallOutcome::default()
        }
    }

    fn correction(content: String) -> CallOutcome {
        CallOutcome {
            correction: Some(content.clone()),
            content,
            is_error: true,
            ..CallOutcome::default()
        }
    }
}

/// Records a receipt (store + event) and keeps it in the loop's list.
pub(crate) fn keep_receipt(job: &Job, state: &mut LoopState, receipt: Receipt) {
    job.sink.record(&receipt);
    state.receipts.push(receipt);
}

/// Shows a call the loop refused itself to the run's task state (its ledger).
fn observe_refusal(session: &Session, job: &Job, receipt: &Receipt) {
    if let Some(task) = &session.ctx.task {
        task.observe(job.sink.step(), receipt, None);
    }
}

fn charge_tool_call(session: &Session, job: &Job) -> Result<(), AgentError> {
    session
        .budget
        .charge(Resource::ToolCalls, 1)
        .map_err(|e| delegate::exhausted(session, job, &e))
}

/// A tool result's text: strings as they are, other values as compact JSON.
pub(crate) fn content_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Runs a catalog tool through the invoker under `authority`; records the receipt.
pub(crate) async fn invoke_tool(
    session: &Session,
    job: &Job,
    state: &mut LoopState,
    tool: &str,
    args: Value,
    authority: &Authority,
) -> Result<CallOutcome, AgentError> {
    if let Verdict::Deny(reason) = authority.decide(tool) {
        let mut receipt =
            refusal_receipt(&session.ctx, tool, &args, ReceiptStatus::Denied, &reason);
        receipt.facts.detail = serde_json::json!({ "denied_by": "policy" });
        observe_refusal(session, job, &receipt);
        keep_receipt(job, state, receipt);
        return Ok(CallOutcome::correction(format!(
            "`{tool}` is denied here: {reason}"
        )));
    }
    charge_tool_call(session, job)?;
    let call = InvokerCall {
        step: job.sink.step().to_string(),
        tool: tool.to_string(),
        args,
        ctx: session.ctx.clone(),
        authority: authority.clone(),
    };
    let outcome = session.invoker.invoke(call).await;
    let status = outcome.receipt.as_ref().map(|r| r.status);
    if let Some(receipt) = outcome.receipt {
        keep_receipt(job, state, receipt);
    }
    if session.ctx.cancel.is_cancelled() {
        return Err(AgentError::Canceled);
    }
    Ok(match outcome.result {
        Ok(result) => {
            let content = content_of(&result.value);
            match result.failed {
                Some(reason) => CallOutcome::error(format!("{reason}\n{content}")),
                None => CallOutcome::ok(content),
            }
        }
        Err(reason) if status == Some(ReceiptStatus::Rejected) => {
            // A precondition or argument check refused it: the model can fix that.
            CallOutcome::correction(format!("`{tool}` was rejected: {reason}"))
        }
        Err(reason) => CallOutcome::error(format!("`{tool}` failed: {reason}")),
    })
}

/// Dispatches one call (see the module docs).
pub(crate) async fn dispatch(
    session: &Session,
    job: &Job,
    offer: &Offer,
    state: &mut LoopState,
    call: &ToolCall,
) -> Result<CallOutcome, AgentError> {
    let name = call.name.as_str();
    let raw_args = || match &call.arguments {
        ToolArguments::Json(value) => value.clone(),
        ToolArguments::Invalid { raw, .. } => Value::String(raw.clone()),
    };
    let Some(target) = offer.target(name, &state.artifacts) else {
        let allowed = offer.names(&state.artifacts).join(", ");
        let contract = session
            .ctx
            .task
            .as_ref()
            .and_then(|t| t.contract_denial(name));
        let (status, reason) = match (lookup(name), &contract) {
            (Some(_), Some(why)) => (
                ReceiptStatus::Denied,
                format!("`{name}` is not allowed: {why}"),
            ),
            (Some(_), None) => (
                ReceiptStatus::Denied,
                format!("`{name}` is not among the tools allowed here"),
            ),
            (None, _) => (
                ReceiptStatus::Rejected,
                format!("there is no tool named `{name}`"),
            ),
        };
        let mut receipt = refusal_receipt(&session.ctx, name, &raw_args(), status, &reason);
        if status == ReceiptStatus::Denied {
            let by = if contract.is_some() {
                "contract"
            } else {
                "policy"
            };
            receipt.facts.detail = serde_json::json!({ "denied_by": by });
        }
        observe_refusal(session, job, &receipt);
        keep_receipt(job, state, receipt);
        return Ok(CallOutcome::correction(format!(
            "{reason}. The tools you may call are: {}. Use one of these names exactly.",
            if allowed.is_empty() {
                "none".into()
            } else {
                allowed
            }
        )));
    };
    let args = match &call.arguments {
        ToolArguments::Json(value) => value.clone(),
        ToolArguments::Invalid { error, .. } => {
            let reason = format!("the arguments of `{name}` are not valid JSON ({error})");
            let receipt = refusal_receipt(
                &session.ctx,
                name,
                &raw_args(),
                ReceiptStatus::Rejected,
                &reason,
            );
            keep_receipt(job, state, receipt);
            return Ok(CallOutcome::correction(format!(
                "{reason}. Send the arguments as one JSON object."
            )));
        }
    };
    let problems = offer.check_args(name, &args);
    if !problems.is_empty() {
        let reason = format!(
            "the arguments of `{name}` do not match its schema: {}",
            problems.join("; ")
        );
        if target == Target::FinalOutput {
            return Ok(CallOutcome {
                output_correction: Some(reason.clone()),
                content: format!(
                    "{reason}. Call `final_output` again with a value that matches the schema."
                ),
                is_error: true,
                ..CallOutcome::default()
            });
        }
        let receipt = refusal_receipt(&session.ctx, name, &args, ReceiptStatus::Rejected, &reason);
        keep_receipt(job, state, receipt);
        return Ok(CallOutcome::correction(reason));
    }
    match target {
        Target::Tool(tool) => invoke_tool(session, job, state, &tool, args, &job.authority).await,
        Target::DelegatedTool { delegate, tool } => {
            if let Some(refusal) = delegate::count_call(offer, state, delegate) {
                return Ok(CallOutcome::error(refusal));
            }
            let authority = offer.delegates[delegate].authority.clone();
            invoke_tool(session, job, state, &tool, args, &authority).await
        }
        Target::Delegate(index) => {
            if let Some(refusal) = delegate::count_continuation(offer, state, index) {
                return Ok(CallOutcome::error(refusal));
            }
            if let Some(refusal) = delegate::count_call(offer, state, index) {
                return Ok(CallOutcome::error(refusal));
            }
            let content = delegate::run_worker(session, job, offer, state, index, &args).await?;
            Ok(CallOutcome::ok(content))
        }
        Target::FinalOutput => Ok(CallOutcome {
            content: "accepted".into(),
            final_value: Some(args),
            ..CallOutcome::default()
        }),
        Target::ReadArtifact => Ok(match state.artifacts.read(&args) {
            Ok(page) => CallOutcome::ok(page.to_string()),
            Err(reason) => CallOutcome::error(reason),
        }),
    }
}
