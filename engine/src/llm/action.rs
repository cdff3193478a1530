//! JSON action mode, for models without native tool calling.
//!
//! The tools are described in the system prompt and the model answers with one JSON
//! action: `{"type":"tool_call","tool":NAME,"args":{...}}` or
//! `{"type":"final","content":...}`. [`parse_action`] reads a reply tolerantly
//! (fenced ```json blocks, surrounding prose, several candidates: the most complete
//! valid action wins) and [`JsonActionProvider`] turns it into the same
//! [`ChatResponse`] tool calls as native tool calling. A reply with no valid action
//! is reported as such in `ChatResponse::action_error`: this module never guesses.
//!
//! It owns the prompt encoding and the parser; it must never decide what a tool does
//! or whether a call is allowed (the agent loop does).

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::error::LlmError;
use super::message::{
    ChatRequest, ChatResponse, Message, RequestSize, StopReason, ToolArguments, ToolCall,
    ToolDeclaration,
};
use super::provider::{AttemptObserver, Provider, ProviderDescription};

/// A parsed action.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Call `tool` with `args` (an object, or invalid arguments kept verbatim).
    ToolCall { tool: String, args: ToolArguments },
    /// The final answer (a JSON string's text, or other JSON serialized).
    Final { content: String },
}

/// Reads one action from a model's reply. `Err` says why none could be read.
pub fn parse_action(reply: &str) -> Result<Action, String> {
    let candidates = candidates(reply);
    if candidates.is_empty() {
        return Err("the reply contains no JSON object".into());
    }
    let mut best: Option<(usize, Action)> = None;
    let mut first_problem = None;
    for candidate in &candidates {
        let value: Value = match serde_json::from_str(candidate) {
            Ok(value) => value,
            Err(error) => {
                first_problem
                    .get_or_insert_with(|| format!("a JSON candidate does not parse: {error}"));
                continue;
            }
        };
        match action_from_value(&value) {
            Ok(action) => {
                // The most complete candidate wins; on a tie, the later one.
                if best.as_ref().is_none_or(|(len, _)| candidate.len() >= *len) {
                    best = Some((candidate.len(), action));
                }
            }
            Err(problem) => {
                first_problem.get_or_insert(problem);
            }
        }
    }
    best.map(|(_, action)| action)
        .ok_or_else(|| first_problem.unwrap_or_else(|| "no valid action".into()))
}

fn action_from_value(value: &Value) -> Result<Action, String> {
    let object = value
        .as_object()
        .ok_or_else(|| "the JSON is not an object".to_string())?;
    let kind = object.get("type").and_then(Value::as_str);
    let tool = object
        .get("tool")
        .or_else(|| object.get("name"))
        .and_then(Value::as_str);
    match (kind, tool) {
        (Some("final"), _) => {
            let content = match object.get("content").or_else(|| object.get("answer")) {
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
                None => return Err("a `final` action without `content`".into()),
            };
            Ok(Action::Final { content })
        }
        (Some("tool_call") | None, Some(tool)) => {
            let args = match object.get("args").or_else(|| object.get("arguments")) {
                None | Some(Value::Null) => ToolArguments::Json(Value::Object(Map::new())),
                Some(value @ Value::Object(_)) => ToolArguments::Json(value.clone()),
                // Arguments written as a JSON string holding an object.
                Some(Value::String(text)) => match ToolArguments::parse(text) {
                    ToolArguments::Json(Value::Object(map)) => {
                        ToolArguments::Json(Value::Object(map))
                    }
                    ToolArguments::Json(_) => ToolArguments::Invalid {
                        raw: text.clone(),
                        error: "`args` must be a JSON object".into(),
                    },
                    invalid => invalid,
                },
                Some(other) => ToolArguments::Invalid {
                    raw: other.to_string(),
                    error: "`args` must be a JSON object".into(),
                },
            };
            Ok(Action::ToolCall {
                tool: tool.to_string(),
                args,
            })
        }
        (Some("tool_call"), None) => Err("a `tool_call` action without `tool`".into()),
        (Some(other), _) => Err(format!("unknown action type `{other}`")),
        (None, None) => Err("a JSON object that is not an action (no `type`)".into()),
    }
}

/// JSON texts worth trying: fenced blocks, then every balanced `{...}` in the text.
fn candidates(reply: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut push = |text: &str| {
        let text = text.trim();
        if !text.is_empty() && !found.iter().any(|f| f == text) {
            found.push(text.to_string());
        }
    };
    for block in fenced_blocks(reply) {
        push(block);
    }
    for object in balanced_objects(reply) {
        push(object);
    }
    found
}

fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let body_start = after.find('\n').map_or(after.len(), |n| n + 1);
        let body = &after[body_start..];
        match body.find("```") {
            Some(end) => {
                blocks.push(&body[..end]);
                rest = &body[end + 3..];
            }
            None => break,
        }
    }
    blocks
}

/// Every top-level balanced `{...}` (strings and escapes respected).
fn balanced_objects(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut objects = Vec::new();
    let mut start = 0;
    while let Some(offset) = text[start..].find('{') {
        let open = start + offset;
        match matching_brace(bytes, open) {
            Some(close) => {
                objects.push(&text[open..=close]);
                start = close + 1;
            }
            None => start = open + 1,
        }
    }
    objects
}

fn matching_brace(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, byte) in bytes.iter().enumerate().skip(open) {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The instructions added to the system prompt in JSON action mode.
pub fn action_instructions(tools: &[ToolDeclaration]) -> String {
    let mut text = String::from(
        "## Tools\nYou can call tools. Answer with exactly one JSON object and nothing else.\n\
         To call a tool: {\"type\":\"tool_call\",\"tool\":\"NAME\",\"args\":{...}}\n\
         When you are done: {\"type\":\"final\",\"content\":\"your answer\"}\n\
         Available tools (args follow the JSON Schema shown):\n",
    );
    for tool in tools {
        text.push_str(&format!(
            "- {}: {}\n  args: {}\n",
            tool.name, tool.description, tool.parameters
        ));
    }
    text
}

/// The action JSON text for a tool call (how an earlier call is shown in the history).
fn action_text(call: &ToolCall) -> String {
    let args = match &call.arguments {
        ToolArguments::Json(value) => value.clone(),
        ToolArguments::Invalid { raw, .. } => Value::String(raw.clone()),
    };
    json!({"type": "tool_call", "tool": call.name, "args": args}).to_string()
}

/// The request a model without native tools receives: tools in the system prompt,
/// earlier tool calls as action JSON, tool results as user messages.
pub fn encode_request(request: &ChatRequest) -> ChatRequest {
    if request.tools.is_empty() {
        return request.clone();
    }
    let instructions = action_instructions(&request.tools);
    let system = match &request.system {
        Some(system) => format!("{system}\n\n{instructions}"),
        None => instructions,
    };
    let messages = request
        .messages
        .iter()
        .map(|message| match message {
            // The action JSON alone represents the turn; prose around it is not replayed.
            Message::Assistant { tool_calls, .. } if !tool_calls.is_empty() => Message::assistant(
                tool_calls
                    .iter()
                    .map(action_text)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            Message::ToolResult {
                call_id,
                name,
                content,
                is_error,
            } => {
                let label = if *is_error { "Error from" } else { "Result of" };
                Message::user(format!(
                    "{label} tool `{name}` (call {call_id}):\n{content}"
                ))
            }
            other => other.clone(),
        })
        .collect();
    ChatRequest {
        system: Some(system),
        messages,
        tools: Vec::new(),
        ..request.clone()
    }
}

/// Reads a plain-text reply as an action, filling tool calls or `action_error`.
/// `turn` numbers the synthesised call id (`act_{turn}`), unique within a history.
pub fn decode_response(mut response: ChatResponse, turn: usize) -> ChatResponse {
    if !response.tool_calls.is_empty() {
        // The server used native tool calls after all: keep them as they are.
        return response;
    }
    match parse_action(&response.text) {
        Ok(Action::ToolCall { tool, args }) => {
            response.tool_calls = vec![ToolCall {
                id: format!("act_{turn}"),
                name: tool,
                arguments: args,
            }];
            response.text = String::new();
            response.stop_reason = StopReason::ToolUse;
        }
        Ok(Action::Final { content }) => response.text = content,
        Err(problem) => response.action_error = Some(problem),
    }
    response
}

/// Wraps a provider whose model has no native tool calling.
#[derive(Debug)]
pub struct JsonActionProvider {
    inner: Box<dyn Provider>,
}

impl JsonActionProvider {
    pub fn new(inner: Box<dyn Provider>) -> Self {
        JsonActionProvider { inner }
    }
}

#[async_trait]
impl Provider for JsonActionProvider {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn describe(&self) -> ProviderDescription {
        ProviderDescription {
            native_tools: false,
            ..self.inner.describe()
        }
    }

    fn measure(&self, request: &ChatRequest) -> RequestSize {
        let mut size = self.inner.measure(&encode_request(request));
        if !request.tools.is_empty() {
            size.tool_declaration_bytes = action_instructions(&request.tools).len() as u64;
        }
        size
    }

    async fn complete_observed(
        &self,
        request: &ChatRequest,
        cancel: CancellationToken,
        observer: &dyn AttemptObserver,
    ) -> Result<ChatResponse, LlmError> {
        if request.tools.is_empty() {
            return self
                .inner
                .complete_observed(request, cancel, observer)
                .await;
        }
        let encoded = encode_request(request);
        let mut response = self
            .inner
            .complete_observed(&encoded, cancel, observer)
            .await?;
        response.request_size.tool_declaration_bytes =
            action_instructions(&request.tools).len() as u64;
        let turn = 1 + request
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        Ok(decode_response(response, turn))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn a_bare_action_parses() {
        let action =
            parse_action(r#"{"type":"tool_call","tool":"read_file","args":{"path":"a.rs"}}"#);
        assert_eq!(
            action.unwrap(),
            Action::ToolCall {
                tool: "read_file".into(),
                args: ToolArguments::Json(json!({"path": "a.rs"}))
            }
        );
    }

    #[test]
    fn braces_inside_strings_do_not_confuse_the_scanner() {
        let reply = r#"Sure: {"type":"final","content":"use {} and \"}\" freely"} done"#;
        assert_eq!(
            parse_action(reply).unwrap(),
            Action::Final {
                content: "use {} and \"}\" freely".into()
            }
        );
    }

    #[test]
    fn prose_without_json_is_reported_not_guessed() {
        let error = parse_action("I will now read the file.").unwrap_err();
        assert!(error.contains("no JSON object"), "{error}");
    }
}
