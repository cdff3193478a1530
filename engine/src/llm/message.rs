//! Provider-neutral conversation types: what the agent loop sends to a model and
//! what it gets back.
//!
//! This module owns the vocabulary only (messages, tool declarations, requests,
//! responses, usage, request sizes). It must never know a wire format, a provider's
//! URL or a key: encoders for OpenAI and Anthropic live in their own modules.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One message of a conversation (the system prompt is held apart, on the request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Text from the user (or from the engine speaking for the user: task, feedback).
    User { text: String },
    /// A model turn: optional text and any tool calls it made.
    Assistant {
        #[serde(default)]
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, tied to the call's id.
    ToolResult {
        call_id: String,
        /// The tool's name (some encodings, e.g. JSON action mode, show it).
        name: String,
        content: String,
        #[serde(default)]
        is_error: bool,
    },
}

impl Message {
    /// A user message.
    pub fn user(text: impl Into<String>) -> Self {
        Message::User { text: text.into() }
    }

    /// An assistant message with text only.
    pub fn assistant(text: impl Into<String>) -> Self {
        Message::Assistant {
            text: text.into(),
            tool_calls: Vec::new(),
        }
    }

    /// The assistant turn a response represents, ready to be appended to the history.
    pub fn from_response(response: &ChatResponse) -> Self {
        Message::Assistant {
            text: response.text.clone(),
            tool_calls: response.tool_calls.clone(),
        }
    }

    /// A successful tool result.
    pub fn tool_result(
        call_id: impl Into<String>,
        name: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Message::ToolResult {
            call_id: call_id.into(),
            name: name.into(),
            content: content.into(),
            is_error: false,
        }
    }
}

/// A tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id (synthesised when a server omits it).
    pub id: String,
    /// The tool name exactly as the model wrote it (it may be an invented name).
    pub name: String,
    /// The arguments, parsed; or the raw text when it was not valid JSON.
    pub arguments: ToolArguments,
}

/// Tool-call arguments as the model produced them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolArguments {
    /// Valid JSON (normally an object).
    Json(Value),
    /// Text that did not parse as JSON: kept verbatim so the loop can send
    /// correction feedback instead of dropping the call.
    Invalid { raw: String, error: String },
}

impl ToolArguments {
    /// Parses raw argument text as a model sent it. Empty text means `{}`.
    pub fn parse(raw: &str) -> Self {
        if raw.trim().is_empty() {
            return ToolArguments::Json(Value::Object(serde_json::Map::new()));
        }
        match serde_json::from_str::<Value>(raw) {
            Ok(value) => ToolArguments::Json(value),
            Err(error) => ToolArguments::Invalid {
                raw: raw.to_string(),
                error: error.to_string(),
            },
        }
    }

    /// The parsed value, when the arguments were valid JSON.
    pub fn json(&self) -> Option<&Value> {
        match self {
            ToolArguments::Json(value) => Some(value),
            ToolArguments::Invalid { .. } => None,
        }
    }

    /// The argument text to send back to a provider in the history.
    pub fn to_text(&self) -> String {
        match self {
            ToolArguments::Json(value) => value.to_string(),
            ToolArguments::Invalid { raw, .. } => raw.clone(),
        }
    }
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDeclaration {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// One model call, provider-neutral.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The model to ask; `None` uses the provider's configured model. Fallback models
    /// configured on the provider are tried after this one.
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub system: Option<String>,
    pub messages: Vec<Message>,
    #[serde(default)]
    pub tools: Vec<ToolDeclaration>,
    pub max_output_tokens: u32,
    #[serde(default)]
    pub temperature: Option<f32>,
    /// Ask the server to stream (SSE); the provider still returns one whole response.
    #[serde(default)]
    pub stream: bool,
}

impl ChatRequest {
    /// A request with the provider's model, no tools and no streaming.
    pub fn new(messages: Vec<Message>, max_output_tokens: u32) -> Self {
        ChatRequest {
            model: None,
            system: None,
            messages,
            tools: Vec::new(),
            max_output_tokens,
            temperature: None,
            stream: false,
        }
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// A natural end of the turn (OpenAI `stop`, Anthropic `end_turn` / `stop_sequence`).
    EndTurn,
    /// The model asked for tools.
    ToolUse,
    /// The output-token limit cut the answer.
    MaxTokens,
    /// The provider filtered or refused the content.
    ContentFilter,
    /// The server gave no reason.
    Unknown,
    /// A reason this crate does not map, verbatim.
    Other(String),
}

/// Token usage as the server reported it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// The size of one request as it went on the wire (for events and budgets).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestSize {
    /// Bytes of the serialized JSON body.
    pub body_bytes: u64,
    /// A conservative token estimate of the body: `ceil(bytes / 4)`.
    pub estimated_tokens: u64,
    /// Bytes of the serialized tool declarations alone (0 without tools; in JSON
    /// action mode, the bytes of the tool description added to the prompt).
    pub tool_declaration_bytes: u64,
}

impl RequestSize {
    /// A size record for a body of `body_bytes` with `tool_declaration_bytes` of tools.
    pub fn new(body_bytes: u64, tool_declaration_bytes: u64) -> Self {
        RequestSize {
            body_bytes,
            estimated_tokens: estimate_tokens(body_bytes),
            tool_declaration_bytes,
        }
    }
}

/// The crate's token estimate for `bytes` bytes of text or JSON: 4 bytes per token,
/// rounded up (conservative for English and code; no tokenizer is bundled).
pub fn estimate_tokens(bytes: u64) -> u64 {
    bytes.div_ceil(4)
}

/// One attempt at a model call (every attempt, failed or not, is charged to the budget).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// The provider's name.
    pub provider: String,
    /// The model asked in this attempt.
    pub model: String,
    /// 1-based number of this attempt within the call (across all models).
    pub number: u32,
    /// HTTP status, when a response arrived.
    pub status: Option<u16>,
    /// Usage reported for this attempt, when it succeeded.
    pub usage: Option<Usage>,
    /// Size of the request sent.
    pub request_size: RequestSize,
    /// Wall time of the attempt in milliseconds.
    pub elapsed_ms: u64,
    /// `None` on success; the error's text otherwise (never contains a key).
    pub error: Option<String>,
    /// What happens next.
    pub next: AttemptNext,
}

/// What the provider did after an attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptNext {
    /// The attempt answered; the call is done.
    Done,
    /// Retry the same model after waiting this many milliseconds.
    Retry { wait_ms: u64 },
    /// Retries for this model are exhausted; try this fallback model next.
    Fallback { model: String },
    /// The call fails with this attempt's error.
    GiveUp,
}

/// A model's answer, provider-neutral.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// Assistant text (may be empty when the model only called tools).
    pub text: String,
    /// Tool calls in the order the model made them.
    pub tool_calls: Vec<ToolCall>,
    pub stop_reason: StopReason,
    /// Usage as reported by the server; `None` when it reported none.
    pub usage: Option<Usage>,
    /// The model that answered (a fallback model when the primary failed).
    pub model: String,
    /// Size of the request that produced this answer.
    pub request_size: RequestSize,
    /// Every attempt this call made, the successful one last.
    pub attempts: Vec<Attempt>,
    /// JSON action mode only: why the reply could not be read as an action. The raw
    /// reply is then in `text`, and `tool_calls` is empty. Never guessed around.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_error: Option<String>,
}
