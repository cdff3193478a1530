//! The OpenAI-compatible Chat Completions wire format (`POST {base}/chat/completions`),
//! streamed and not, with native `tools` / `tool_calls`.
//!
//! One path serves OpenAI, Ollama (`/v1`), vLLM, llama.cpp server, LM Studio and
//! OpenRouter. This module owns the JSON shapes only; it must never retry, wait or
//! hold a key beyond building the `Authorization` header (sent only with a key).
//!
//! Notes on compatibility: the output limit is sent as `max_tokens` (accepted by every
//! server above); a tool call without an `id` gets `call_{index}`; arguments sent as
//! a JSON object instead of a string are accepted; streamed tool-call deltas are
//! assembled by `index`, their `arguments` concatenated; a stream must end with
//! `data: [DONE]`, else it is truncated.

use std::collections::BTreeMap;

use reqwest::header::{AUTHORIZATION, HeaderMap};
use serde_json::{Map, Value, json};

use super::http::{HttpProvider, Parsed, StreamAssembler, Wire, WireFailure, sensitive};
use super::key::ApiKey;
use super::message::{ChatRequest, Message, StopReason, ToolArguments, ToolCall, Usage};
use super::sse::SseEvent;

/// An OpenAI-compatible provider.
pub(crate) type OpenAiProvider = HttpProvider<OpenAiWire>;

/// The Chat Completions wire format.
#[derive(Debug)]
pub(crate) struct OpenAiWire;

impl Wire for OpenAiWire {
    type Stream = OpenAiStream;
    const KIND: &'static str = "openai";

    fn url(base_url: &str) -> String {
        format!("{}/chat/completions", base_url.trim_end_matches('/'))
    }

    fn body(request: &ChatRequest, model: &str) -> (Value, u64) {
        let mut messages = Vec::new();
        if let Some(system) = &request.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        for message in &request.messages {
            messages.push(encode_message(message));
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(model));
        body.insert("messages".into(), Value::Array(messages));
        let mut tool_bytes = 0;
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|tool| {
                    json!({
                        "type": "function",
                        "function": {
                            "name": tool.name,
                            "description": tool.description,
                            "parameters": tool.parameters,
                        }
                    })
                })
                .collect();
            let tools = Value::Array(tools);
            tool_bytes = serde_json::to_vec(&tools).map_or(0, |b| b.len() as u64);
            body.insert("tools".into(), tools);
        }
        body.insert("max_tokens".into(), json!(request.max_output_tokens));
        if let Some(temperature) = request.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        if request.stream {
            body.insert("stream".into(), json!(true));
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        (Value::Object(body), tool_bytes)
    }

    fn headers(key: Option<&ApiKey>) -> Result<HeaderMap, String> {
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            headers.insert(
                AUTHORIZATION,
                sensitive(&format!("Bearer {}", key.expose()))?,
            );
        }
        Ok(headers)
    }

    fn parse(body: &[u8]) -> Result<Parsed, WireFailure> {
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| WireFailure::Invalid(format!("the body is not JSON: {e}")))?;
        if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
            return Err(WireFailure::Server(error_text(error)));
        }
        let choice = value
            .get("choices")
            .and_then(|c| c.get(0))
            .ok_or_else(|| WireFailure::Invalid("no `choices[0]` in the answer".into()))?;
        let message = choice
            .get("message")
            .ok_or_else(|| WireFailure::Invalid("no `choices[0].message` in the answer".into()))?;
        let text = message
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut tool_calls = Vec::new();
        if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
            for (index, call) in calls.iter().enumerate() {
                let function = call.get("function").unwrap_or(&Value::Null);
                tool_calls.push(ToolCall {
                    id: call_id(call.get("id"), index),
                    name: function
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    arguments: arguments(function.get("arguments")),
                });
            }
        }
        Ok(Parsed {
            text,
            tool_calls,
            stop_reason: choice.get("finish_reason").map(stop_reason),
            usage: value.get("usage").and_then(usage),
        })
    }
}

fn encode_message(message: &Message) -> Value {
    match message {
        Message::User { text } => json!({"role": "user", "content": text}),
        Message::Assistant { text, tool_calls } => {
            let mut object = Map::new();
            object.insert("role".into(), json!("assistant"));
            if tool_calls.is_empty() {
                object.insert("content".into(), json!(text));
            } else {
                let content = if text.is_empty() {
                    Value::Null
                } else {
                    json!(text)
                };
                object.insert("content".into(), content);
                let calls: Vec<Value> = tool_calls
                    .iter()
                    .map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments.to_text()},
                        })
                    })
                    .collect();
                object.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(object)
        }
        Message::ToolResult {
            call_id, content, ..
        } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
    }
}

fn call_id(id: Option<&Value>, index: usize) -> String {
    match id.and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => format!("call_{index}"),
    }
}

fn arguments(value: Option<&Value>) -> ToolArguments {
    match value {
        None | Some(Value::Null) => ToolArguments::parse(""),
        Some(Value::String(raw)) => ToolArguments::parse(raw),
        Some(other) => ToolArguments::Json(other.clone()),
    }
}

fn stop_reason(value: &Value) -> StopReason {
    match value.as_str() {
        None => StopReason::Unknown,
        Some("stop") => StopReason::EndTurn,
        Some("length") => StopReason::MaxTokens,
        Some("tool_calls" | "function_call") => StopReason::ToolUse,
        Some("content_filter") => StopReason::ContentFilter,
        Some(other) => StopReason::Other(other.to_string()),
    }
}

fn usage(value: &Value) -> Option<Usage> {
    let input = value.get("prompt_tokens")?.as_u64()?;
    let output = value
        .get("completion_tokens")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
    })
}

fn error_text(error: &Value) -> String {
    error
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| error.to_string(), str::to_string)
}

/// A tool call being assembled from stream deltas.
#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Assembles a streamed Chat Completions answer.
#[derive(Debug, Default)]
pub(crate) struct OpenAiStream {
    text: String,
    calls: BTreeMap<u64, PartialCall>,
    finish_reason: Option<StopReason>,
    usage: Option<Usage>,
    done: bool,
}

impl StreamAssembler for OpenAiStream {
    fn event(&mut self, event: SseEvent) -> Result<bool, WireFailure> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(true);
        }
        if data.is_empty() {
            return Ok(false);
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| WireFailure::Invalid(format!("a stream chunk is not JSON: {e}")))?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(WireFailure::Server(error_text(error)));
        }
        if let Some(usage) = chunk.get("usage").and_then(usage) {
            self.usage = Some(usage);
        }
        let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else {
            return Ok(false);
        };
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            self.finish_reason = Some(stop_reason(reason));
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(false);
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.text.push_str(text);
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                self.tool_call_delta(call, position);
            }
        }
        Ok(false)
    }

    fn finish(self) -> Result<Parsed, WireFailure> {
        if !self.done {
            return Err(WireFailure::Truncated(
                "no `data: [DONE]` was received".into(),
            ));
        }
        let tool_calls = self
            .calls
            .into_iter()
            .map(|(index, call)| ToolCall {
                id: if call.id.is_empty() {
                    format!("call_{index}")
                } else {
                    call.id
                },
                name: call.name,
                arguments: ToolArguments::parse(&call.arguments),
            })
            .collect();
        Ok(Parsed {
            text: self.text,
            tool_calls,
            stop_reason: self.finish_reason,
            usage: self.usage,
        })
    }
}

impl OpenAiStream {
    fn tool_call_delta(&mut self, call: &Value, position: usize) {
        let index = match call.get("index").and_then(Value::as_u64) {
            Some(index) => index,
            // No index (non-conforming server): match by id, else a new call.
            None => {
                let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
                self.calls
                    .iter()
                    .find(|(_, c)| !id.is_empty() && c.id == id)
                    .map(|(index, _)| *index)
                    .unwrap_or_else(|| {
                        self.calls
                            .keys()
                            .next_back()
                            .map_or(position as u64, |k| k + 1)
                    })
            }
        };
        let partial = self.calls.entry(index).or_default();
        if let Some(id) = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
        {
            partial.id = id.to_string();
        }
        let function = call.get("function").unwrap_or(&Value::Null);
        if let Some(name) = function.get("name").and_then(Value::as_str) {
            // Most servers send the name once; some repeat it whole, a few split it.
            if partial.name.is_empty() {
                partial.name = name.to_string();
            } else if partial.name != name {
                partial.name.push_str(name);
            }
        }
        match function.get("arguments") {
            Some(Value::String(piece)) => partial.arguments.push_str(piece),
            Some(Value::Null) | None => {}
            Some(other) => partial.arguments.push_str(&other.to_string()),
        }
    }
}
