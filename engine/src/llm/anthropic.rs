//! The Anthropic Messages wire format (`POST {base}/v1/messages`), streamed and not:
//! top-level `system`, `tool_use` / `tool_result` content blocks, usage.
//!
//! This module owns the JSON shapes only; it must never retry, wait or hold a key
//! beyond building the `x-api-key` header. Consecutive messages of one role are
//! merged into one message (the API expects alternating roles); an assistant turn
//! with no text and no tool call is left out (empty content is rejected). A stream
//! must end with `message_stop`, else it is truncated. Input usage counts cache
//! reads and writes too (they are all input the run paid for).

use std::collections::BTreeMap;

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Map, Value, json};

use super::http::{HttpProvider, Parsed, StreamAssembler, Wire, WireFailure, sensitive};
use super::key::ApiKey;
use super::message::{ChatRequest, Message, StopReason, ToolArguments, ToolCall, Usage};
use super::sse::SseEvent;

/// The API version sent in `anthropic-version`.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// An Anthropic Messages provider.
pub(crate) type AnthropicProvider = HttpProvider<AnthropicWire>;

/// The Messages wire format.
#[derive(Debug)]
pub(crate) struct AnthropicWire;

impl Wire for AnthropicWire {
    type Stream = AnthropicStream;
    const KIND: &'static str = "anthropic";

    fn url(base_url: &str) -> String {
        format!("{}/v1/messages", base_url.trim_end_matches('/'))
    }

    fn body(request: &ChatRequest, model: &str) -> (Value, u64) {
        let mut body = Map::new();
        body.insert("model".into(), json!(model));
        body.insert("max_tokens".into(), json!(request.max_output_tokens));
        if let Some(system) = &request.system {
            body.insert("system".into(), json!(system));
        }
        body.insert(
            "messages".into(),
            Value::Array(encode_messages(&request.messages)),
        );
        let mut tool_bytes = 0;
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|tool| {
                    json!({
                        "name": tool.name,
                        "description": tool.description,
                        "input_schema": tool.parameters,
                    })
                })
                .collect();
            let tools = Value::Array(tools);
            tool_bytes = serde_json::to_vec(&tools).map_or(0, |b| b.len() as u64);
            body.insert("tools".into(), tools);
        }
        if let Some(temperature) = request.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        if request.stream {
            body.insert("stream".into(), json!(true));
        }
        (Value::Object(body), tool_bytes)
    }

    fn headers(key: Option<&ApiKey>) -> Result<HeaderMap, String> {
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            headers.insert("x-api-key", sensitive(key.expose())?);
        }
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        Ok(headers)
    }

    fn parse(body: &[u8]) -> Result<Parsed, WireFailure> {
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| WireFailure::Invalid(format!("the body is not JSON: {e}")))?;
        if value.get("type").and_then(Value::as_str) == Some("error") {
            return Err(WireFailure::Server(error_text(&value)));
        }
        let content = value
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| WireFailure::Invalid("no `content` array in the answer".into()))?;
        let mut text = String::new();
        let mut tool_calls = Vec::new();
        for block in content {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    text.push_str(
                        block
                            .get("text")
                            .and_then(Value::as_str)
                            .unwrap_or_default(),
                    );
                }
                Some("tool_use") => tool_calls.push(ToolCall {
                    id: string(block, "id"),
                    name: string(block, "name"),
                    arguments: ToolArguments::Json(
                        block.get("input").cloned().unwrap_or_else(|| json!({})),
                    ),
                }),
                _ => {}
            }
        }
        let mut usage_value = Usage::default();
        let usage = value.get("usage").map(|u| {
            add_usage(&mut usage_value, u);
            usage_value
        });
        Ok(Parsed {
            text,
            tool_calls,
            stop_reason: value.get("stop_reason").map(stop_reason),
            usage,
        })
    }
}

fn string(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn encode_messages(messages: &[Message]) -> Vec<Value> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in messages {
        let (role, blocks) = match message {
            Message::User { text } => ("user", vec![json!({"type": "text", "text": text})]),
            Message::Assistant { text, tool_calls } => {
                let mut blocks = Vec::new();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for call in tool_calls {
                    let input = match &call.arguments {
                        ToolArguments::Json(value @ Value::Object(_)) => value.clone(),
                        // `input` must be an object: carry what the model sent, visibly.
                        ToolArguments::Json(other) => json!({"value": other}),
                        ToolArguments::Invalid { raw, .. } => json!({"invalid_json": raw}),
                    };
                    blocks.push(json!({
                        "type": "tool_use", "id": call.id, "name": call.name, "input": input,
                    }));
                }
                if blocks.is_empty() {
                    continue;
                }
                ("assistant", blocks)
            }
            Message::ToolResult {
                call_id,
                content,
                is_error,
                ..
            } => {
                let mut block =
                    json!({"type": "tool_result", "tool_use_id": call_id, "content": content});
                if *is_error {
                    block["is_error"] = json!(true);
                }
                ("user", vec![block])
            }
        };
        match out.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            _ => out.push((role, blocks)),
        }
    }
    out.into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

fn stop_reason(value: &Value) -> StopReason {
    match value.as_str() {
        None => StopReason::Unknown,
        Some("end_turn" | "stop_sequence") => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") => StopReason::MaxTokens,
        Some("refusal") => StopReason::ContentFilter,
        Some(other) => StopReason::Other(other.to_string()),
    }
}

/// Adds the usage fields present in `value` (input counts cache reads and writes).
fn add_usage(usage: &mut Usage, value: &Value) {
    let field = |name: &str| value.get(name).and_then(Value::as_u64);
    let input: Option<u64> = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ]
    .iter()
    .filter_map(|name| field(name))
    .reduce(|a, b| a + b);
    if let Some(input) = input {
        usage.input_tokens = input;
    }
    if let Some(output) = field("output_tokens") {
        usage.output_tokens = output;
    }
}

fn error_text(value: &Value) -> String {
    let error = value.get("error").unwrap_or(value);
    let kind = error.get("type").and_then(Value::as_str).unwrap_or("error");
    match error.get("message").and_then(Value::as_str) {
        Some(message) => format!("{kind}: {message}"),
        None => error.to_string(),
    }
}

/// A content block being assembled from stream events.
#[derive(Debug)]
enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        start_input: Value,
        json: String,
    },
    Other,
}

/// Assembles a streamed Messages answer.
#[derive(Debug, Default)]
pub(crate) struct AnthropicStream {
    blocks: BTreeMap<u64, Block>,
    stop_reason: Option<StopReason>,
    usage: Option<Usage>,
    done: bool,
}

impl StreamAssembler for AnthropicStream {
    fn event(&mut self, event: SseEvent) -> Result<bool, WireFailure> {
        if event.data.trim().is_empty() {
            return Ok(false);
        }
        let data: Value = serde_json::from_str(&event.data)
            .map_err(|e| WireFailure::Invalid(format!("a stream event is not JSON: {e}")))?;
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => {
                if let Some(usage) = data.get("message").and_then(|m| m.get("usage")) {
                    add_usage(self.usage.get_or_insert_with(Usage::default), usage);
                }
            }
            "content_block_start" => {
                let block = data.get("content_block").unwrap_or(&Value::Null);
                let block = match block.get("type").and_then(Value::as_str) {
                    Some("text") => Block::Text(string(block, "text")),
                    Some("tool_use") => Block::ToolUse {
                        id: string(block, "id"),
                        name: string(block, "name"),
                        start_input: block.get("input").cloned().unwrap_or_else(|| json!({})),
                        json: String::new(),
                    },
                    _ => Block::Other,
                };
                self.blocks.insert(index, block);
            }
            "content_block_delta" => {
                let delta = data.get("delta").unwrap_or(&Value::Null);
                match (
                    self.blocks.get_mut(&index),
                    delta.get("type").and_then(Value::as_str),
                ) {
                    (Some(Block::Text(text)), Some("text_delta")) => {
                        text.push_str(
                            delta
                                .get("text")
                                .and_then(Value::as_str)
                                .unwrap_or_default(),
                        );
                    }
                    (Some(Block::ToolUse { json, .. }), Some("input_json_delta")) => {
                        json.push_str(
                            delta
                                .get("partial_json")
                                .and_then(Value::as_str)
                                .unwrap_or_default(),
                        );
                    }
                    (None, _) => {
                        return Err(WireFailure::Invalid(format!(
                            "a delta for content block {index}, which was never started"
                        )));
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = data
                    .get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .filter(|r| !r.is_null())
                {
                    self.stop_reason = Some(stop_reason(reason));
                }
                if let Some(usage) = data.get("usage") {
                    add_usage(self.usage.get_or_insert_with(Usage::default), usage);
                }
            }
            "message_stop" => {
                self.done = true;
                return Ok(true);
            }
            "error" => return Err(WireFailure::Server(error_text(&data))),
            _ => {} // ping, content_block_stop, and future event types
        }
        Ok(false)
    }

    fn finish(self) -> Result<Parsed, WireFailure> {
        if !self.done {
            return Err(WireFailure::Truncated(
                "no `message_stop` event was received".into(),
            ));
        }
        let mut text = String::new();
        let mut tool_calls = Vec::new();
        for block in self.blocks.into_values() {
            match block {
                Block::Text(piece) => text.push_str(&piece),
                Block::ToolUse {
                    id,
                    name,
                    start_input,
                    json,
                } => tool_calls.push(ToolCall {
                    id,
                    name,
                    arguments: if json.is_empty() {
                        ToolArguments::Json(start_input)
                    } else {
                        ToolArguments::parse(&json)
                    },
                }),
                Block::Other => {}
            }
        }
        Ok(Parsed {
            text,
            tool_calls,
            stop_reason: self.stop_reason,
            usage: self.usage,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn failed_tool_results_are_flagged_and_invalid_arguments_stay_visible() {
        let messages = vec![
            Message::Assistant {
                text: "Trying.".into(),
                tool_calls: vec![ToolCall {
                    id: "t1".into(),
                    name: "run".into(),
                    arguments: ToolArguments::parse("{oops"),
                }],
            },
            Message::ToolResult {
                call_id: "t1".into(),
                name: "run".into(),
                content: "invalid arguments".into(),
                is_error: true,
            },
            Message::assistant(""),
        ];
        assert_eq!(
            Value::Array(encode_messages(&messages)),
            json!([
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Trying."},
                    {"type": "tool_use", "id": "t1", "name": "run", "input": {"invalid_json": "{oops"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "invalid arguments", "is_error": true}
                ]}
            ])
        );
    }
}
