//! The OpenAI-compatible Chat Completions provider, over HTTP to a local server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use protoflow_engine::llm::{
    ApiKey, ChatRequest, HttpSettings, LlmError, Message, Provider, ProviderKind, StopReason,
    ToolArguments, ToolCall, ToolDeclaration, Usage, build_http_provider,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::server::{Reply, TestServer};

pub(super) fn provider(server: &TestServer, key: Option<&str>) -> Box<dyn Provider> {
    let mut settings = HttpSettings::new("local", format!("{}/v1", server.base_url), "m-primary");
    settings.api_key = key.map(ApiKey::new);
    build_http_provider(ProviderKind::Openai, settings, true).unwrap()
}

pub(super) fn tools() -> Vec<ToolDeclaration> {
    vec![ToolDeclaration {
        name: "read_file".into(),
        description: "Read a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    }]
}

/// A conversation with every message kind: user, assistant tool call, tool result.
pub(super) fn conversation(stream: bool) -> ChatRequest {
    ChatRequest {
        model: None,
        system: Some("You are terse.".into()),
        messages: vec![
            Message::user("Read a.rs"),
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "read_file".into(),
                    arguments: ToolArguments::Json(json!({"path": "a.rs"})),
                }],
            },
            Message::tool_result("call_1", "read_file", "fn main() {}"),
        ],
        tools: tools(),
        max_output_tokens: 256,
        temperature: Some(0.5),
        stream,
    }
}

fn chunk(delta: serde_json::Value, finish: Option<&str>) -> String {
    json!({"id": "x", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string()
}

#[tokio::test]
async fn a_non_streamed_request_has_the_exact_chat_completions_shape() {
    let server = TestServer::start(vec![Reply::json(json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "It is empty.", "tool_calls": null}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 4, "total_tokens": 54}
    }))])
    .await;
    let response = provider(&server, None)
        .complete(&conversation(false), CancellationToken::new())
        .await
        .unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].header("content-type"), Some("application/json"));
    assert_eq!(
        requests[0].header("authorization"),
        None,
        "no key, no Authorization"
    );
    assert_eq!(
        requests[0].json(),
        json!({
            "model": "m-primary",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Read a.rs"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a.rs\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "fn main() {}"}
            ],
            "tools": [{"type": "function", "function": {
                "name": "read_file", "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
            }}],
            "max_tokens": 256,
            "temperature": 0.5
        })
    );
    assert_eq!(response.text, "It is empty.");
    assert!(response.tool_calls.is_empty());
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(
        response.usage,
        Some(Usage {
            input_tokens: 50,
            output_tokens: 4
        })
    );
    assert_eq!(response.model, "m-primary");
    assert_eq!(
        response.request_size.body_bytes,
        requests[0].body.len() as u64
    );
    assert!(response.request_size.tool_declaration_bytes > 0);
    assert_eq!(
        response.request_size.estimated_tokens,
        (requests[0].body.len() as u64).div_ceil(4)
    );
}

#[tokio::test]
async fn the_bearer_key_is_sent_only_when_one_is_configured() {
    let answer = json!({"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]});
    let server = TestServer::start(vec![Reply::json(answer)]).await;
    provider(&server, Some("sk-test-1"))
        .complete(&conversation(false), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-test-1")
    );
}

#[tokio::test]
async fn a_non_streamed_tool_call_is_parsed_and_a_request_model_overrides_the_default() {
    let server = TestServer::start(vec![Reply::json(json!({
        "choices": [{"message": {"content": null, "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"b.rs\"}"}},
            {"type": "function", "function": {"name": "list", "arguments": {"dir": "."}}}
        ]}, "finish_reason": "tool_calls"}]
    }))])
    .await;
    let mut request = conversation(false);
    request.model = Some("m-role".into());
    let response = provider(&server, None)
        .complete(&request, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(server.requests()[0].json()["model"], "m-role");
    assert_eq!(response.model, "m-role");
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(response.usage, None, "the server reported no usage");
    assert_eq!(
        response.tool_calls,
        vec![
            ToolCall {
                id: "call_9".into(),
                name: "read_file".into(),
                arguments: ToolArguments::Json(json!({"path": "b.rs"}))
            },
            // No id from the server: one is synthesised; object arguments accepted.
            ToolCall {
                id: "call_1".into(),
                name: "list".into(),
                arguments: ToolArguments::Json(json!({"dir": "."}))
            },
        ]
    );
}

/// Two tool calls interleaved by index, arguments split mid-string, the whole stream
/// re-cut into 7-byte pieces (lines, JSON and UTF-8 cut anywhere).
fn interleaved_stream() -> Reply {
    Reply::sse(&[
        ("", chunk(json!({"role": "assistant", "content": "Reading ü"}), None)),
        ("", chunk(json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "read_file", "arguments": ""}}]}), None)),
        ("", chunk(json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "read_file", "arguments": "{\"pa"}}]}), None)),
        ("", chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"path\": \"sr"}}]}), None)),
        ("", chunk(json!({"tool_calls": [{"index": 1, "function": {"arguments": "th\": \"b.rs\"}"}}]}), None)),
        ("", chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "c/ä.rs\"}"}}]}), None)),
        ("", chunk(json!({}), Some("tool_calls"))),
        ("", json!({"id": "x", "choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 33}}).to_string()),
        ("", "[DONE]".to_string()),
    ])
    .rechunked(7)
}

#[tokio::test]
async fn a_streamed_answer_assembles_interleaved_tool_call_deltas_by_index() {
    let server = TestServer::start(vec![interleaved_stream()]).await;
    let response = provider(&server, None)
        .complete(&conversation(true), CancellationToken::new())
        .await
        .unwrap();

    let body = server.requests()[0].json();
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(response.text, "Reading ü");
    assert_eq!(
        response.tool_calls,
        vec![
            ToolCall {
                id: "call_a".into(),
                name: "read_file".into(),
                arguments: ToolArguments::Json(json!({"path": "src/ä.rs"}))
            },
            ToolCall {
                id: "call_b".into(),
                name: "read_file".into(),
                arguments: ToolArguments::Json(json!({"path": "b.rs"}))
            },
        ]
    );
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        response.usage,
        Some(Usage {
            input_tokens: 120,
            output_tokens: 33
        })
    );
    assert_eq!(response.attempts.len(), 1);
}

#[tokio::test]
async fn a_stream_without_done_is_a_truncation_error_not_a_partial_answer() {
    let server = TestServer::start(vec![
        Reply::sse(&[
            ("", chunk(json!({"content": "Half an ans"}), None)),
            ("", chunk(json!({"content": "wer"}), None)),
        ]),
        Reply::json(json!({"choices": [{"message": {"content": "must not be asked"}}]})),
    ])
    .await;
    let error = provider(&server, None)
        .complete(&conversation(true), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, LlmError::TruncatedStream { .. }),
        "got {error:?}"
    );
    assert!(error.to_string().contains("[DONE]"), "{error}");
    assert_eq!(
        server.requests().len(),
        1,
        "a received answer is never replayed"
    );
}

#[tokio::test]
async fn malformed_tool_arguments_are_surfaced_with_their_raw_text() {
    let server = TestServer::start(vec![
        Reply::sse(&[
            ("", chunk(json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "read_file", "arguments": "{\"path\": \"a.rs\""}}]}), None)),
            ("", chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": ", oops}"}}]}), Some("tool_calls"))),
            ("", "[DONE]".to_string()),
        ]),
        Reply::json(json!({"choices": [{"message": {"tool_calls": [
            {"id": "c2", "function": {"name": "read_file", "arguments": "path=a.rs"}}
        ]}, "finish_reason": "tool_calls"}]})),
    ])
    .await;
    let provider = provider(&server, None);

    let streamed = provider
        .complete(&conversation(true), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        streamed.tool_calls.len(),
        1,
        "the call is kept, not dropped"
    );
    match &streamed.tool_calls[0].arguments {
        ToolArguments::Invalid { raw, error } => {
            assert_eq!(raw, "{\"path\": \"a.rs\", oops}");
            assert!(!error.is_empty());
        }
        other => panic!("expected invalid arguments, got {other:?}"),
    }

    let whole = provider
        .complete(&conversation(false), CancellationToken::new())
        .await
        .unwrap();
    assert!(
        matches!(&whole.tool_calls[0].arguments, ToolArguments::Invalid { raw, .. } if raw == "path=a.rs")
    );
    // Sent back in the history, the raw text goes out verbatim.
    assert_eq!(whole.tool_calls[0].arguments.to_text(), "path=a.rs");
}

#[tokio::test]
async fn an_error_inside_a_stream_is_reported() {
    let server = TestServer::start(vec![Reply::sse(&[
        ("", chunk(json!({"content": "Hel"}), None)),
        (
            "",
            json!({"error": {"message": "model crashed", "type": "server_error"}}).to_string(),
        ),
    ])])
    .await;
    let error = provider(&server, None)
        .complete(&conversation(true), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(error, LlmError::StreamError { .. }), "{error:?}");
    assert!(error.to_string().contains("model crashed"));
}

#[tokio::test]
async fn a_server_that_ignores_stream_and_answers_json_is_read_whole() {
    let server = TestServer::start(vec![Reply::json(
        json!({"choices": [{"message": {"content": "whole"}, "finish_reason": "stop"}]}),
    )])
    .await;
    let response = provider(&server, None)
        .complete(&conversation(true), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(response.text, "whole");
}
