//! The scripted provider: a TEST AND EVALUATION DOUBLE that replays assistant turns
//! from a file. It is selected only explicitly (`--provider scripted:FILE`), never as a
//! default and never as a fallback.
//!
//! It owns replay only; it must never call a network or pretend to be a model in
//! `describe()` (it says `test_double: true`).
//!
//! # File format (YAML or JSON; shown as JSON)
//!
//! ```json
//! {
//!   "turns": [
//!     {
//!       "expect": ["fix the parser"],
//!       "text": "I will read the file first.",
//!       "tool_calls": [
//!         {"id": "c1", "name": "read_file", "args": {"path": "src/lib.rs"}},
//!         {"name": "write_file", "raw_args": "{not json"}
//!       ],
//!       "usage": {"input_tokens": 120, "output_tokens": 30},
//!       "stop_reason": "tool_use"
//!     },
//!     {"text": "Done: the parser accepts empty input now."}
//!   ]
//! }
//! ```
//!
//! A bare array of turns is accepted too. Every field of a turn is optional:
//! - `expect`: substrings that must all occur in the request (its system prompt,
//!   message texts, tool-call names and arguments, tool results and declared tool
//!   names, one per line); a miss fails the call with `ScriptMismatch`.
//! - `text`: the assistant text.
//! - `tool_calls`: `id` (default `call_{turn}_{n}`), `name`, and either `args` (JSON)
//!   or `raw_args` (text kept verbatim, parsed like a server's arguments: invalid JSON
//!   stays `ToolArguments::Invalid`).
//! - `usage`: reported usage (none when absent).
//! - `stop_reason`: `end_turn`, `tool_use`, `max_tokens`, `content_filter`; default
//!   `tool_use` when there are tool calls, else `end_turn`.
//! - `delay_ms`: wait this long before answering (cancellation ends the wait), to
//!   simulate a slow or stalled model (step timeouts).
//! - `error`: fail the call with this message instead of answering (a provider
//!   failure after retries), after `delay_ms`.
//!
//! Each call consumes the next turn; a call after the last turn fails with
//! `ScriptExhausted`.
//!
//! With `"order": "by_expect"` at the top level (a file with `turns`), each call
//! instead takes the FIRST UNUSED turn, in file order, whose `expect` substrings all
//! occur in the request (a turn without `expect` matches any request). This keeps
//! scripts deterministic when steps run in parallel and their calls interleave in
//! any order: give each step's turns an `expect` only its requests contain (its
//! task text, a claim id), in the order that step makes them. No matching turn fails
//! the call (`Script`); every turn used fails with `ScriptExhausted`.

use std::sync::Mutex;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::config::read_document;
use super::error::LlmError;
use super::http::Wire;
use super::message::{
    Attempt, AttemptNext, ChatRequest, ChatResponse, Message, RequestSize, StopReason,
    ToolArguments, ToolCall, Usage,
};
use super::openai::OpenAiWire;
use super::provider::{AttemptObserver, Provider, ProviderDescription};

/// One scripted assistant turn.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedTurn {
    #[serde(default)]
    pub expect: Vec<String>,
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub tool_calls: Vec<ScriptedCall>,
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default)]
    pub stop_reason: Option<StopReason>,
    #[serde(default)]
    pub delay_ms: Option<u64>,
    #[serde(default)]
    pub error: Option<String>,
}

/// One scripted tool call.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    #[serde(default)]
    pub args: Option<Value>,
    #[serde(default)]
    pub raw_args: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    turns: Vec<ScriptedTurn>,
    #[serde(default)]
    order: ScriptOrder,
}

/// How a call picks its turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScriptOrder {
    /// The next turn in file order; its `expect` must match (the default).
    #[default]
    Sequential,
    /// The first unused turn, in file order, whose `expect` matches the request.
    ByExpect,
}

/// Replays scripted turns. A test and evaluation double, never a default.
#[derive(Debug)]
pub struct ScriptedProvider {
    path: String,
    turns: Vec<ScriptedTurn>,
    order: ScriptOrder,
    taken: Mutex<Vec<bool>>,
}

impl ScriptedProvider {
    /// Reads a script file: JSON when it ends in `.json`, else YAML (format in the
    /// module docs).
    pub fn from_file(path: &std::path::Path) -> Result<Self, LlmError> {
        let label = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| LlmError::Script {
            path: label.clone(),
            message: format!("cannot read the script: {e}"),
        })?;
        let value = read_document(path, &text).map_err(|message| LlmError::Script {
            path: label.clone(),
            message,
        })?;
        Self::from_value(&label, value)
    }

    /// Parses a JSON script; `label` names it in errors.
    pub fn from_json_str(label: &str, text: &str) -> Result<Self, LlmError> {
        let value = serde_json::from_str(text).map_err(|e| LlmError::Script {
            path: label.to_string(),
            message: format!("invalid JSON: {e}"),
        })?;
        Self::from_value(label, value)
    }

    /// Reads a script from a parsed document; `label` names it in errors.
    pub fn from_value(label: &str, value: Value) -> Result<Self, LlmError> {
        let invalid = |e: serde_json::Error| LlmError::Script {
            path: label.to_string(),
            message: format!("invalid script: {e}"),
        };
        let (turns, order) = if value.is_array() {
            (
                serde_json::from_value::<Vec<ScriptedTurn>>(value).map_err(invalid)?,
                ScriptOrder::Sequential,
            )
        } else {
            let file = serde_json::from_value::<ScriptFile>(value).map_err(invalid)?;
            (file.turns, file.order)
        };
        Ok(Self::from_turns(label, turns).with_order(order))
    }

    /// A provider replaying `turns` in file order.
    pub fn from_turns(label: &str, turns: Vec<ScriptedTurn>) -> Self {
        let taken = Mutex::new(vec![false; turns.len()]);
        ScriptedProvider {
            path: label.to_string(),
            turns,
            order: ScriptOrder::Sequential,
            taken,
        }
    }

    /// The same provider, picking turns by `order`.
    pub fn with_order(mut self, order: ScriptOrder) -> Self {
        self.order = order;
        self
    }

    /// How many turns have been replayed.
    pub fn used(&self) -> usize {
        let taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        taken.iter().filter(|t| **t).count()
    }

    /// Takes the turn for a request whose expect-haystack is `haystack`.
    fn take(&self, haystack: &str) -> Result<usize, LlmError> {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        let mut unused = (0..self.turns.len()).filter(|&i| !taken[i]).peekable();
        if unused.peek().is_none() {
            return Err(LlmError::ScriptExhausted {
                path: self.path.clone(),
                turns: self.turns.len(),
            });
        }
        let index = match self.order {
            // The next turn; a mismatch is reported by the caller.
            ScriptOrder::Sequential => unused.next(),
            ScriptOrder::ByExpect => unused.find(|&i| {
                self.turns[i]
                    .expect
                    .iter()
                    .all(|e| haystack.contains(e.as_str()))
            }),
        };
        let Some(index) = index else {
            return Err(LlmError::Script {
                path: self.path.clone(),
                message: "no unused turn's `expect` matches this request (order: by_expect)".into(),
            });
        };
        taken[index] = true;
        Ok(index)
    }
}

/// The text `expect` substrings are searched in.
fn haystack(request: &ChatRequest) -> String {
    let mut lines: Vec<String> = Vec::new();
    lines.extend(request.system.clone());
    for message in &request.messages {
        match message {
            Message::User { text } => lines.push(text.clone()),
            Message::Assistant { text, tool_calls } => {
                lines.push(text.clone());
                for call in tool_calls {
                    lines.push(format!("{} {}", call.name, call.arguments.to_text()));
                }
            }
            Message::ToolResult { content, .. } => lines.push(content.clone()),
        }
    }
    lines.extend(request.tools.iter().map(|t| t.name.clone()));
    lines.join("\n")
}

#[async_trait]
impl Provider for ScriptedProvider {
    fn name(&self) -> &str {
        "scripted"
    }

    fn describe(&self) -> ProviderDescription {
        ProviderDescription {
            name: "scripted".into(),
            kind: "scripted".into(),
            base_url: self.path.clone(),
            model: "scripted".into(),
            fallback_models: Vec::new(),
            native_tools: true,
            has_api_key: false,
            api_key_env: None,
            context_window: None,
            test_double: true,
        }
    }

    fn measure(&self, request: &ChatRequest) -> RequestSize {
        // Measured as the OpenAI-compatible body would be, so sizes compare across runs.
        let model = request.model.as_deref().unwrap_or("scripted");
        let (body, tool_bytes) = OpenAiWire::body(request, model);
        RequestSize::new(
            serde_json::to_vec(&body).map_or(0, |b| b.len() as u64),
            tool_bytes,
        )
    }

    async fn complete_observed(
        &self,
        request: &ChatRequest,
        cancel: CancellationToken,
        observer: &dyn AttemptObserver,
    ) -> Result<ChatResponse, LlmError> {
        if cancel.is_cancelled() {
            return Err(LlmError::Cancelled);
        }
        let haystack = haystack(request);
        let index = self.take(&haystack)?;
        let turn = &self.turns[index];
        if let Some(delay) = turn.delay_ms {
            tokio::select! {
                () = tokio::time::sleep(std::time::Duration::from_millis(delay)) => {}
                () = cancel.cancelled() => return Err(LlmError::Cancelled),
            }
        }
        let size = self.measure(request);
        let model = request.model.clone().unwrap_or_else(|| "scripted".into());
        let mut attempt = Attempt {
            provider: "scripted".into(),
            model: model.clone(),
            number: 1,
            status: None,
            usage: turn.usage,
            request_size: size,
            elapsed_ms: 0,
            error: None,
            next: AttemptNext::Done,
        };
        if let Some(message) = &turn.error {
            let error = LlmError::ScriptedError {
                path: self.path.clone(),
                turn: index + 1,
                message: message.clone(),
            };
            attempt.error = Some(error.to_string());
            attempt.next = AttemptNext::GiveUp;
            observer.attempt(&attempt);
            return Err(error);
        }
        if let Some(expected) = turn.expect.iter().find(|e| !haystack.contains(e.as_str())) {
            let error = LlmError::ScriptMismatch {
                path: self.path.clone(),
                turn: index + 1,
                expected: expected.clone(),
            };
            attempt.error = Some(error.to_string());
            attempt.next = AttemptNext::GiveUp;
            observer.attempt(&attempt);
            return Err(error);
        }
        let tool_calls: Vec<ToolCall> = turn
            .tool_calls
            .iter()
            .enumerate()
            .map(|(n, call)| ToolCall {
                id: call
                    .id
                    .clone()
                    .unwrap_or_else(|| format!("call_{}_{}", index + 1, n + 1)),
                name: call.name.clone(),
                arguments: match (&call.raw_args, &call.args) {
                    (Some(raw), _) => ToolArguments::parse(raw),
                    (None, Some(args)) => ToolArguments::Json(args.clone()),
                    (None, None) => ToolArguments::parse(""),
                },
            })
            .collect();
        let stop_reason = turn
            .stop_reason
            .clone()
            .unwrap_or(if tool_calls.is_empty() {
                StopReason::EndTurn
            } else {
                StopReason::ToolUse
            });
        observer.attempt(&attempt);
        Ok(ChatResponse {
            text: turn.text.clone(),
            tool_calls,
            stop_reason,
            usage: turn.usage,
            model,
            request_size: size,
            attempts: vec![attempt],
            action_error: None,
        })
    }
}
