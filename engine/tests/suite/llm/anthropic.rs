//! The Anthropic Messages provider, over HTTP to a local server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use protoflow_engine::llm::{
    ApiKey, HttpSettings, LlmError, Message, Provider, ProviderKind, StopReason, ToolArguments,
    ToolCall, Usage, build_http_provider,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::openai::conversation;
use super::server::{Reply, TestServer};

fn provider(server: &TestServer) -> Box<dyn Provider> {
    let mut settings = HttpSettings::new("claude", server.base_url.clone(), "claude-test");
    settings.api_key = Some(ApiKey::new("ak-test-1"));
    build_http_provider(ProviderKind::Anthropic, settings, true).unwrap()
}

fn event(data: serde_json::Value) -> (&'static str, String) {
    let kind = match data["type"].as_str().unwrap() {
        "message_start" => "message_start",
        "content_block_start" => "content_block_start",
        "content_block_delta" => "content_block_delta",
        "content_block_stop" => "content_block_stop",
        "message_delta" => "message_delta",
        "message_stop" => "message_stop",
        "ping" => "ping",
        _ => "error",
    };
    (kind, data.to_string())
}

#[tokio::test]
async fn a_request_has_the_exact_messages_shape_and_headers() {
    let server = TestServer::start(vec![Reply::json(json!({
        "id": "msg_1", "type": "message", "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"path": "b.rs"}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 40, "cache_read_input_tokens": 60, "output_tokens": 12}
    }))])
    .await;
    let mut request = conversation(false);
    request.messages.push(Message::user("and b.rs too"));
    let response = provider(&server)
        .complete(&request, CancellationToken::new())
        .await
        .unwrap();

    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some("ak-test-1"));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(
        sent.json(),
        json!({
            "model": "claude-test",
            "max_tokens": 256,
            "system": "You are terse.",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Read a.rs"}]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "call_1", "name": "read_file", "input": {"path": "a.rs"}}
                ]},
                // The tool result and the next user text share one user message.
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": "fn main() {}"},
                    {"type": "text", "text": "and b.rs too"}
                ]}
            ],
            "tools": [{"name": "read_file", "description": "Read a file",
                       "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}],
            "temperature": 0.5
        })
    );
    assert_eq!(response.text, "Let me look.");
    assert_eq!(
        response.tool_calls,
        vec![ToolCall {
            id: "toolu_2".into(),
            name: "read_file".into(),
            arguments: ToolArguments::Json(json!({"path": "b.rs"}))
        }]
    );
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        response.usage,
        Some(Usage {
            input_tokens: 100,
            output_tokens: 12
        }),
        "input counts cache reads"
    );
}

#[tokio::test]
async fn a_streamed_answer_assembles_text_and_input_json_deltas() {
    let stream = Reply::sse(&[
        event(json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": 75, "output_tokens": 1}}})),
        event(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        event(json!({"type": "ping"})),
        event(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Checking "}})),
        event(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "both."}})),
        event(json!({"type": "content_block_stop", "index": 0})),
        event(json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": {}}})),
        event(json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}})),
        event(json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"sr"}})),
        event(json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "c/main.rs\"}"}})),
        event(json!({"type": "content_block_stop", "index": 1})),
        event(json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_b", "name": "list_dir", "input": {}}})),
        event(json!({"type": "content_block_stop", "index": 2})),
        event(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 41}})),
        event(json!({"type": "message_stop"})),
    ])
    .rechunked(11);
    let server = TestServer::start(vec![stream]).await;
    let response = provider(&server)
        .complete(&conversation(true), CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(server.requests()[0].json()["stream"], true);
    assert_eq!(response.text, "Checking both.");
    assert_eq!(
        response.tool_calls,
        vec![
            ToolCall {
                id: "toolu_a".into(),
                name: "read_file".into(),
                arguments: ToolArguments::Json(json!({"path": "src/main.rs"}))
            },
            ToolCall {
                id: "toolu_b".into(),
                name: "list_dir".into(),
                arguments: ToolArguments::Json(json!({}))
            },
        ]
    );
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        response.usage,
        Some(Usage {
            input_tokens: 75,
            output_tokens: 41
        })
    );
}

#[tokio::test]
async fn a_stream_without_message_stop_is_truncated() {
    let server = TestServer::start(vec![Reply::sse(&[
        event(json!({"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}})),
        event(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        event(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Half"}})),
    ])])
    .await;
    let error = provider(&server)
        .complete(&conversation(true), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, LlmError::TruncatedStream { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("message_stop"));
}

#[tokio::test]
async fn an_overloaded_error_event_in_the_stream_is_reported() {
    let server = TestServer::start(vec![Reply::sse(&[
        event(json!({"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}})),
        event(json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
    ])])
    .await;
    let error = provider(&server)
        .complete(&conversation(true), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(error, LlmError::StreamError { .. }), "{error:?}");
    assert!(error.to_string().contains("overloaded_error: Overloaded"));
}

#[tokio::test]
async fn malformed_streamed_tool_input_is_kept_raw() {
    let server = TestServer::start(vec![Reply::sse(&[
        event(json!({"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}})),
        event(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t1", "name": "read_file", "input": {}}})),
        event(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": "}})),
        event(json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 9}})),
        event(json!({"type": "message_stop"})),
    ])])
    .await;
    let response = provider(&server)
        .complete(&conversation(true), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
    assert!(matches!(
        &response.tool_calls[0].arguments,
        ToolArguments::Invalid { raw, .. } if raw == "{\"path\": "
    ));
}
