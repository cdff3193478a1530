//! One inference: a role works on one task in bounded windows of model turns.
//!
//! Per turn: admit the conversation into the context window, charge the model call
//! (before it is made), call the provider, record a `model.called` event, then
//! either accept the answer or dispatch the tool calls and feed their results back.
//! Per window (at most `limits.turns_per_window`, default 10 turns): a window that
//! produced new applied writes (its own or its workers') may be followed by another,
//! up to `limits.windows` (default 3); a window without new writes ends
//! `blocked / no_progress`; running out of windows ends `needs_context /
//! turn_limit`. Corrections (`limits.corrections`, default 2), typed-output
//! corrections (`output.corrections`) and unparseable replies
//! (`settings.max_unparseable`) each have their own allowance; exhausting one ends
//! the inference `failed` with the reason. Earlier edits are never undone here.
//! When the run has an active task, its record is pinned to every request's
//! system prompt (re-rendered each turn, so it survives eviction).

use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use serde_json::Value;

use super::AgentError;
use super::admission::{AdmissionInput, DEFAULT_CONTEXT_WINDOW, DEFAULT_OUTPUT_TOKENS, admit};
use super::artifacts::Artifacts;
use super::charge::BudgetObserver;
use super::delegate;
use super::dispatch::dispatch;
use super::memory;
use super::offer::{FINAL_OUTPUT, OfferBuilder};
use super::profile::Profile;
use super::prompt::render_system_prompt;
use super::session::{Job, Session, is_applied_write};
use crate::events::EventKind;
use crate::evidence::Receipt;
use crate::graph::output::typed_output;
use crate::graph::{AgentResult, AgentStatus};
use crate::llm::{ChatRequest, ChatResponse, Message};

/// Default model turns per window.
pub const DEFAULT_TURNS_PER_WINDOW: u32 = 10;
/// Default windows per inference.
pub const DEFAULT_WINDOWS: u32 = 3;
/// Default correction allowance per inference.
pub const DEFAULT_CORRECTIONS: u32 = 2;
/// Default continuations of a worker that ran out of turns, per controller attempt.
pub const DEFAULT_CONTINUATIONS: u32 = 2;
/// The hard ceiling on a role's `limits.continuations`.
pub const MAX_CONTINUATIONS: u32 = 8;

/// What the loop tracks besides the conversation.
#[derive(Debug, Default)]
pub(crate) struct LoopState {
    pub artifacts: Artifacts,
    /// Receipts of this inference's calls and its workers'.
    pub receipts: Vec<Receipt>,
    /// Calls per delegate (by offer index).
    pub delegate_calls: Vec<u32>,
    /// Delegations started (numbers the workers' receipt scopes).
    pub delegations: u32,
    /// Per delegate (by offer index): whether its last call ended
    /// `needs_context`, and how many times it was continued after one.
    pub continuations: Vec<(bool, u32)>,
    corrections: u32,
    output_corrections: u32,
    unparseable: u32,
    last_text: String,
}

impl LoopState {
    fn applied_writes(&self) -> usize {
        self.receipts.iter().filter(|r| is_applied_write(r)).count()
    }

    fn result(
        &mut self,
        status: AgentStatus,
        reason: Option<String>,
        value: Option<Value>,
    ) -> AgentResult {
        AgentResult {
            text: self.last_text.clone(),
            value,
            status,
            reason,
            receipts: std::mem::take(&mut self.receipts),
        }
    }
}

/// How a turn ended.
enum Turn {
    Continue,
    Done(AgentResult),
}

/// Runs one inference (boxed: delegation recurses into it).
pub(crate) fn run_job<'a>(
    session: &'a Session,
    job: Job,
) -> Pin<Box<dyn Future<Output = Result<AgentResult, AgentError>> + Send + 'a>> {
    Box::pin(async move {
        let mut messages = match &job.memory {
            Some(key) => memory::load(job.sink.store(), key)?,
            None => Vec::new(),
        };
        let result = run_turns(session, &job, &mut messages).await;
        if let Some(key) = &job.memory {
            memory::save(job.sink.store(), key, &messages)?;
        }
        result
    })
}

async fn run_turns(
    session: &Session,
    job: &Job,
    messages: &mut Vec<Message>,
) -> Result<AgentResult, AgentError> {
    let description = session.provider.describe();
    let model = job
        .role
        .model
        .clone()
        .unwrap_or_else(|| description.model.clone());
    let profile = session
        .settings
        .profile
        .unwrap_or_else(|| Profile::auto(&model));
    let role = &job.role.role;
    let mut system = render_system_prompt(
        &job.role.key,
        role,
        profile,
        &model,
        &job.task,
        &session.data,
    )?;
    if job.output.is_some() {
        system.push_str(&format!(
            "\n\nWhen you are done, call `{FINAL_OUTPUT}`: its arguments are your answer and must match its schema."
        ));
    }
    let delegates = if job.depth < session.settings.max_depth {
        delegate::resolve(session, &job.delegates)
    } else {
        Vec::new()
    };
    let offer = OfferBuilder::new(session.registry.clone(), profile).build(
        &job.authority,
        delegates,
        job.output.as_ref().map(|o| &o.schema),
    );
    let limits = role.limits.clone().unwrap_or_default();
    let turns_per_window = limits
        .turns_per_window
        .unwrap_or(DEFAULT_TURNS_PER_WINDOW)
        .max(1);
    let windows = limits.windows.unwrap_or(DEFAULT_WINDOWS).max(1);
    let corrections = limits.corrections.unwrap_or(DEFAULT_CORRECTIONS);
    let output_corrections = job.output.as_ref().map_or(0, |o| o.corrections);
    let output_reserve = limits
        .output_tokens
        .map_or(DEFAULT_OUTPUT_TOKENS, u64::from);
    let context_window = session
        .settings
        .context_window
        .or(description.context_window.map(u64::from))
        .unwrap_or(DEFAULT_CONTEXT_WINDOW);

    let task_index = messages.len();
    messages.push(Message::user(job.task.clone()));
    let mut state = LoopState::default();
    for window in 1..=windows {
        let writes_before = state.applied_writes();
        for turn in 1..=turns_per_window {
            if session.ctx.cancel.is_cancelled() {
                return Err(AgentError::Canceled);
            }
            // Pinned context (the run's task record) is re-rendered for every
            // request: it survives eviction because it is never a message.
            let system = match session.ctx.task.as_ref().and_then(|t| t.pinned()) {
                Some(pinned) if system.is_empty() => pinned,
                Some(pinned) => format!("{system}\n\n{pinned}"),
                None => system.clone(),
            };
            let mut request = ChatRequest {
                model: job.role.model.clone(),
                system: (!system.is_empty()).then(|| system.clone()),
                messages: Vec::new(),
                tools: offer.declarations(&state.artifacts),
                max_output_tokens: u32::try_from(output_reserve).unwrap_or(u32::MAX),
                temperature: session.settings.temperature,
                stream: session.settings.stream,
            };
            let fixed_tokens = session.provider.measure(&request).estimated_tokens;
            let admitted = admit(AdmissionInput {
                fixed_tokens,
                messages,
                task_index,
                context_window,
                output_reserve,
            })?;
            request.messages = admitted.messages;
            let response = call_model(
                session,
                job,
                &request,
                window,
                turn,
                admitted.evicted_exchanges,
            )
            .await?;
            match take_turn(
                session,
                job,
                &offer,
                &mut state,
                messages,
                response,
                Allowances {
                    corrections,
                    output_corrections,
                },
            )
            .await?
            {
                Turn::Continue => {}
                Turn::Done(result) => return Ok(result),
            }
        }
        if state.applied_writes() == writes_before {
            return Ok(state.result(
                AgentStatus::Blocked,
                Some(format!(
                    "no_progress: window {window} ({turns_per_window} turns) ended without new applied writes"
                )),
                None,
            ));
        }
        if window == windows {
            break;
        }
        messages.push(Message::user(format!(
            "Window {window} of {windows} has ended ({turns_per_window} turns). Your edits so far are kept. Continue the task, or finish now."
        )));
    }
    Ok(state.result(
        AgentStatus::NeedsContext,
        Some(format!(
            "turn_limit: all {windows} windows of {turns_per_window} turns were used"
        )),
        None,
    ))
}

/// Makes one model call: charged first, every attempt charged, one event.
async fn call_model(
    session: &Session,
    job: &Job,
    request: &ChatRequest,
    window: u32,
    turn: u32,
    evicted: u32,
) -> Result<ChatResponse, AgentError> {
    let cancel = session.ctx.cancel.child_token();
    let observer = BudgetObserver::start(&session.budget, cancel.clone())
        .map_err(|e| delegate::exhausted(session, job, &e))?;
    let size = session.provider.measure(request);
    let started = Instant::now();
    let result = session
        .provider
        .complete_observed(request, cancel, &observer)
        .await;
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let event = |model: String,
                 size: crate::llm::RequestSize,
                 usage: Option<crate::llm::Usage>,
                 error: Option<String>| {
        EventKind::ModelCalled {
            step: job.sink.step().to_string(),
            provider: session.provider.name().to_string(),
            model,
            window,
            turn,
            attempts: observer.attempts().max(1),
            request_bytes: size.body_bytes,
            estimated_tokens: size.estimated_tokens,
            tool_declaration_bytes: size.tool_declaration_bytes,
            input_tokens: usage.map(|u| u.input_tokens),
            output_tokens: usage.map(|u| u.output_tokens),
            duration_ms,
            evicted_exchanges: evicted,
            error,
        }
    };
    let asked = request
        .model
        .clone()
        .unwrap_or_else(|| session.provider.describe().model);
    match result {
        Ok(response) => {
            job.sink.emit(event(
                response.model.clone(),
                response.request_size,
                response.usage,
                None,
            ));
            if let Some(exhaustion) = observer.refused() {
                return Err(delegate::exhausted(session, job, &exhaustion));
            }
            Ok(response)
        }
        Err(error) => {
            job.sink
                .emit(event(asked, size, None, Some(error.to_string())));
            if let Some(exhaustion) = observer.refused() {
                return Err(delegate::exhausted(session, job, &exhaustion));
            }
            if session.ctx.cancel.is_cancelled() {
                return Err(AgentError::Canceled);
            }
            Err(AgentError::Model(error.to_string()))
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Allowances {
    corrections: u32,
    output_corrections: u32,
}

/// Handles one answer: accept it, or dispatch its calls and feed the results back.
async fn take_turn(
    session: &Session,
    job: &Job,
    offer: &super::offer::Offer,
    state: &mut LoopState,
    messages: &mut Vec<Message>,
    response: ChatResponse,
    allow: Allowances,
) -> Result<Turn, AgentError> {
    if !response.text.trim().is_empty() {
        state.last_text = response.text.clone();
    }
    let unreadable = response.action_error.clone().or_else(|| {
        (response.text.trim().is_empty() && response.tool_calls.is_empty())
            .then(|| "the reply was empty".to_string())
    });
    if let Some(problem) = unreadable {
        state.unparseable += 1;
        if state.unparseable > session.settings.max_unparseable {
            return Ok(Turn::Done(state.result(
                AgentStatus::Failed,
                Some(format!(
                    "unparseable_replies: {} replies in a row could not be read ({problem})",
                    state.unparseable
                )),
                None,
            )));
        }
        messages.push(Message::assistant(response.text));
        messages.push(Message::user(format!(
            "Your reply could not be used: {problem}. Answer with a tool call or your final answer."
        )));
        return Ok(Turn::Continue);
    }
    state.unparseable = 0;
    messages.push(Message::from_response(&response));
    if response.tool_calls.is_empty() {
        let Some(output) = &job.output else {
            return Ok(Turn::Done(state.result(AgentStatus::Completed, None, None)));
        };
        return Ok(
            match typed_output(&output.schema, &Value::String(response.text.clone())) {
                Ok(value) => Turn::Done(state.result(AgentStatus::Completed, None, Some(value))),
                Err(err) => {
                    state.output_corrections += 1;
                    if state.output_corrections > allow.output_corrections {
                        Turn::Done(state.result(
                            AgentStatus::Failed,
                            Some(format!(
                                "invalid_output: no valid typed output after {} correction(s): {err}",
                                allow.output_corrections
                            )),
                            None,
                        ))
                    } else {
                        messages.push(Message::user(format!(
                            "Your answer is not a valid final output ({err}). Call `{FINAL_OUTPUT}` with a value that matches its schema."
                        )));
                        Turn::Continue
                    }
                }
            },
        );
    }
    let calls = response.tool_calls.clone();
    for (position, call) in calls.iter().enumerate() {
        let outcome = dispatch(session, job, offer, state, call).await?;
        let content = if outcome.content.len() > session.settings.offload_bytes {
            state.artifacts.offload(&call.name, outcome.content)
        } else {
            outcome.content
        };
        messages.push(Message::ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content,
            is_error: outcome.is_error,
        });
        let mut end = None;
        if let Some(value) = outcome.final_value {
            state.last_text = value.to_string();
            end = Some(state.result(AgentStatus::Completed, None, Some(value)));
        } else if let Some(problem) = outcome.correction {
            state.corrections += 1;
            if state.corrections > allow.corrections {
                end = Some(state.result(
                    AgentStatus::Failed,
                    Some(format!(
                        "corrections_exhausted: {} correction(s) allowed, and the model kept making invalid calls; last: {problem}",
                        allow.corrections
                    )),
                    None,
                ));
            }
        } else if let Some(problem) = outcome.output_correction {
            state.output_corrections += 1;
            if state.output_corrections > allow.output_corrections {
                end = Some(state.result(
                    AgentStatus::Failed,
                    Some(format!(
                        "invalid_output: no valid typed output after {} correction(s): {problem}",
                        allow.output_corrections
                    )),
                    None,
                ));
            }
        }
        if let Some(result) = end {
            // Every call keeps its result, so the conversation stays well formed.
            for skipped in &calls[position + 1..] {
                messages.push(Message::ToolResult {
                    call_id: skipped.id.clone(),
                    name: skipped.name.clone(),
                    content: "not run: the inference ended".into(),
                    is_error: true,
                });
            }
            return Ok(Turn::Done(result));
        }
    }
    Ok(Turn::Continue)
}
