//! The scripted provider: a test and evaluation double that replays turns.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use protoflow_engine::llm::{
    ChatRequest, LlmError, Message, Provider, ScriptedProvider, StopReason, ToolArguments,
    resolve_provider,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const SCRIPT: &str = r#"{
  "turns": [
    {"expect": ["fix the parser"], "text": "Reading.",
     "tool_calls": [{"id": "c1", "name": "read_file", "args": {"path": "src/parser.rs"}},
                    {"name": "write_file", "raw_args": "{broken"}],
     "usage": {"input_tokens": 10, "output_tokens": 5}},
    {"expect": ["fn parse"], "text": "Fixed."}
  ]
}"#;

fn request(text: &str) -> ChatRequest {
    ChatRequest::new(vec![Message::user(text)], 100)
}

#[tokio::test]
async fn turns_are_replayed_in_order_and_running_out_is_a_clear_error() {
    let provider = ScriptedProvider::from_json_str("script.json", SCRIPT).unwrap();
    assert!(provider.describe().test_double);

    let first = provider
        .complete(&request("please fix the parser"), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(first.text, "Reading.");
    assert_eq!(first.stop_reason, StopReason::ToolUse);
    assert_eq!(first.tool_calls[0].id, "c1");
    assert_eq!(
        first.tool_calls[0].arguments,
        ToolArguments::Json(json!({"path": "src/parser.rs"}))
    );
    assert_eq!(first.tool_calls[1].id, "call_1_2");
    assert!(matches!(
        first.tool_calls[1].arguments,
        ToolArguments::Invalid { .. }
    ));
    assert_eq!(first.usage.unwrap().output_tokens, 5);
    assert_eq!(first.attempts.len(), 1);

    let mut history = request("please fix the parser");
    history.messages.push(Message::from_response(&first));
    history
        .messages
        .push(Message::tool_result("c1", "read_file", "fn parse() {}"));
    let second = provider
        .complete(&history, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(second.text, "Fixed.");
    assert_eq!(second.stop_reason, StopReason::EndTurn);

    let error = provider
        .complete(&history, CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, LlmError::ScriptExhausted { turns: 2, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("all 2 scripted turns are used"));
}

#[tokio::test]
async fn an_expectation_the_request_does_not_meet_fails_the_call() {
    let provider = ScriptedProvider::from_json_str("script.json", SCRIPT).unwrap();
    let error = provider
        .complete(&request("write a poem"), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, LlmError::ScriptMismatch { turn: 1, expected, .. } if expected == "fix the parser"),
        "{error:?}"
    );
}

#[tokio::test]
async fn scripted_file_is_selected_only_by_an_explicit_provider_spec() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("turns.json");
    std::fs::write(&path, r#"[{"text": "hello from the script"}]"#).unwrap();
    let env = |_: &str| None;
    let provider =
        resolve_provider(Some(&format!("scripted:{}", path.display())), None, &env).unwrap();
    assert_eq!(provider.describe().kind, "scripted");
    let response = provider
        .complete(&request("hi"), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(response.text, "hello from the script");

    let missing =
        resolve_provider(Some("scripted:/nonexistent/turns.json"), None, &env).unwrap_err();
    assert!(matches!(missing, LlmError::Script { .. }), "{missing:?}");
    let invalid = ScriptedProvider::from_json_str("bad.json", r#"{"turns": [{"txet": "typo"}]}"#)
        .unwrap_err();
    assert!(invalid.to_string().contains("bad.json"), "{invalid}");
}

#[tokio::test]
async fn by_expect_order_serves_interleaved_callers_the_turn_their_request_matches() {
    let provider = ScriptedProvider::from_json_str(
        "script.json",
        r#"{"order": "by_expect", "turns": [
          {"expect": ["task A"], "text": "A1"},
          {"expect": ["task A"], "text": "A2"},
          {"expect": ["task B"], "text": "B1"}
        ]}"#,
    )
    .unwrap();
    let ask = |text: &'static str| {
        let provider = &provider;
        async move {
            provider
                .complete(&request(text), CancellationToken::new())
                .await
        }
    };
    // B comes first although its turn is last in the file; A's turns stay in order.
    assert_eq!(ask("do task B").await.unwrap().text, "B1");
    assert_eq!(ask("do task A").await.unwrap().text, "A1");
    let error = ask("do task C").await.unwrap_err();
    assert!(error.to_string().contains("no unused turn"), "{error:?}");
    assert_eq!(ask("do task A").await.unwrap().text, "A2");
    assert_eq!(provider.used(), 3);
    assert!(matches!(
        ask("do task A").await.unwrap_err(),
        LlmError::ScriptExhausted { turns: 3, .. }
    ));
}

#[tokio::test]
async fn an_error_turn_fails_the_call_and_a_delayed_turn_stops_on_cancellation() {
    let script = r#"{"turns": [
      {"error": "upstream overloaded"},
      {"delay_ms": 600000, "text": "too late"}
    ]}"#;
    let provider = ScriptedProvider::from_json_str("s.json", script).unwrap();
    let err = provider
        .complete(&request("x"), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("upstream overloaded"), "{err}");

    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        stopper.cancel();
    });
    let err = provider.complete(&request("x"), cancel).await.unwrap_err();
    assert!(matches!(err, LlmError::Cancelled), "{err}");
}
