//! JSON action mode: the tolerant parser and the provider wrapper over HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use protoflow_engine::llm::{
    Action, HttpSettings, Message, ProviderKind, StopReason, ToolArguments, ToolCall,
    build_http_provider, parse_action,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::openai::conversation;
use super::server::{Reply, TestServer};

#[test]
fn a_fenced_action_inside_prose_is_read() {
    let reply = "I'll look at the file first.\n\n```json\n{\"type\": \"tool_call\", \"tool\": \"read_file\", \"args\": {\"path\": \"src/lib.rs\"}}\n```\nThen I will fix it.";
    assert_eq!(
        parse_action(reply).unwrap(),
        Action::ToolCall {
            tool: "read_file".into(),
            args: ToolArguments::Json(json!({"path": "src/lib.rs"}))
        }
    );
}

#[test]
fn an_unfenced_action_after_prose_is_read() {
    let reply = "Done. {\"type\":\"final\",\"content\":\"The parser now accepts empty input.\"}";
    assert_eq!(
        parse_action(reply).unwrap(),
        Action::Final {
            content: "The parser now accepts empty input.".into()
        }
    );
}

#[test]
fn of_two_candidates_the_most_complete_action_wins() {
    let reply = "The format is {\"type\":\"final\",\"content\":\"x\"}. My action:\n{\"type\": \"tool_call\", \"tool\": \"write_file\", \"args\": {\"path\": \"a.rs\", \"content\": \"fn a() {}\"}}";
    assert_eq!(
        parse_action(reply).unwrap(),
        Action::ToolCall {
            tool: "write_file".into(),
            args: ToolArguments::Json(json!({"path": "a.rs", "content": "fn a() {}"}))
        }
    );
}

#[test]
fn a_truncated_candidate_loses_to_a_complete_one() {
    let reply = "{\"type\":\"tool_call\",\"tool\":\"read_file\",\"args\":{\"path\":\"a.rs\"}}\nand {\"type\":\"tool_call\",\"tool\":\"read";
    assert!(matches!(
        parse_action(reply).unwrap(),
        Action::ToolCall { tool, .. } if tool == "read_file"
    ));
}

#[test]
fn args_written_as_a_json_string_are_unwrapped_and_non_objects_are_invalid() {
    let stringly = r#"{"type":"tool_call","tool":"grep","args":"{\"pattern\":\"fn\"}"}"#;
    assert_eq!(
        parse_action(stringly).unwrap(),
        Action::ToolCall {
            tool: "grep".into(),
            args: ToolArguments::Json(json!({"pattern": "fn"}))
        }
    );
    let listy = r#"{"type":"tool_call","tool":"grep","args":[1,2]}"#;
    assert!(matches!(
        parse_action(listy).unwrap(),
        Action::ToolCall { args: ToolArguments::Invalid { raw, .. }, .. } if raw == "[1,2]"
    ));
}

#[test]
fn replies_without_a_valid_action_are_reported_never_guessed() {
    assert!(parse_action("Let me think about this.").is_err());
    let not_action = parse_action("```json\n{\"path\": \"a.rs\"}\n```").unwrap_err();
    assert!(not_action.contains("not an action"), "{not_action}");
    let unknown = parse_action("{\"type\": \"dance\"}").unwrap_err();
    assert!(unknown.contains("dance"), "{unknown}");
    let broken = parse_action("```json\n{\"type\": \"final\", \"content\": \n```").unwrap_err();
    assert!(!broken.is_empty());
}

fn json_mode(server: &TestServer) -> Box<dyn protoflow_engine::llm::Provider> {
    let settings = HttpSettings::new("small", format!("{}/v1", server.base_url), "tiny");
    build_http_provider(ProviderKind::Openai, settings, false).unwrap()
}

fn answer(text: &str) -> Reply {
    Reply::json(json!({"choices": [{"message": {"content": text}, "finish_reason": "stop"}]}))
}

#[tokio::test]
async fn json_mode_describes_tools_in_the_prompt_and_turns_the_reply_into_a_tool_call() {
    let server = TestServer::start(vec![answer(
        "Sure.\n```json\n{\"type\":\"tool_call\",\"tool\":\"read_file\",\"args\":{\"path\":\"b.rs\"}}\n```",
    )])
    .await;
    let provider = json_mode(&server);
    assert!(!provider.describe().native_tools);
    let response = provider
        .complete(&conversation(false), CancellationToken::new())
        .await
        .unwrap();

    let body = server.requests()[0].json();
    assert!(body.get("tools").is_none(), "no native tools are sent");
    let messages = body["messages"].as_array().unwrap();
    let system = messages[0]["content"].as_str().unwrap();
    assert!(system.starts_with("You are terse.\n\n## Tools"));
    assert!(system.contains("- read_file: Read a file"));
    assert!(system.contains(r#"{"type":"tool_call","tool":"NAME","args":{...}}"#));
    // The earlier tool call is replayed as action JSON, its result as a user message.
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "content": "{\"type\":\"tool_call\",\"tool\":\"read_file\",\"args\":{\"path\":\"a.rs\"}}"})
    );
    assert_eq!(
        messages[3],
        json!({"role": "user", "content": "Result of tool `read_file` (call call_1):\nfn main() {}"})
    );

    assert_eq!(
        response.tool_calls,
        vec![ToolCall {
            id: "act_2".into(),
            name: "read_file".into(),
            arguments: ToolArguments::Json(json!({"path": "b.rs"}))
        }]
    );
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(response.action_error, None);
    assert!(response.request_size.tool_declaration_bytes > 0);
}

#[tokio::test]
async fn json_mode_reports_an_unparseable_reply_and_reads_a_final_answer() {
    let server = TestServer::start(vec![
        answer("I would like to read the file please."),
        answer("{\"type\":\"final\",\"content\":{\"findings\":[]}}"),
    ])
    .await;
    let provider = json_mode(&server);
    let mut request = conversation(false);

    let unparseable = provider
        .complete(&request, CancellationToken::new())
        .await
        .unwrap();
    assert!(unparseable.tool_calls.is_empty());
    assert_eq!(unparseable.text, "I would like to read the file please.");
    assert!(unparseable.action_error.unwrap().contains("no JSON"));

    request
        .messages
        .push(Message::user("Answer with one JSON action."));
    let final_answer = provider
        .complete(&request, CancellationToken::new())
        .await
        .unwrap();
    assert!(final_answer.tool_calls.is_empty());
    assert_eq!(final_answer.text, "{\"findings\":[]}");
    assert_eq!(final_answer.action_error, None);
}
