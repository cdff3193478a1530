//! The loop against local HTTP servers speaking the OpenAI Chat Completions and
//! Anthropic Messages wire formats: the same agent step, end to end.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use protoflow_engine::llm::{HttpSettings, Provider, ProviderKind, build_http_provider};
use serde_json::{Value, json};

use super::server::{Reply, TestServer};
use super::support::{AgentProject, WRITER_ROLE, one_step, step};

pub fn openai(server: &TestServer, key: Option<&str>) -> Arc<dyn Provider> {
    let mut settings = HttpSettings::new("local", format!("{}/v1", server.base_url), "m-test");
    settings.api_key = key.map(protoflow_engine::llm::ApiKey::new);
    Arc::from(build_http_provider(ProviderKind::Openai, settings, true).unwrap())
}

pub fn openai_tool_call() -> Reply {
    Reply::json(json!({
        "id": "cmpl-1", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {
                "name": "create_file", "arguments": "{\"path\": \"hello.txt\", \"content\": \"hi\\n\"}"
            }}]
        }}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 20, "total_tokens": 140}
    }))
}

pub fn openai_text(text: &str) -> Reply {
    Reply::json(json!({
        "id": "cmpl-2", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 160, "completion_tokens": 5, "total_tokens": 165}
    }))
}

fn tool_names(body: &Value, key: &str) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            if key == "openai" {
                t["function"]["name"].as_str().unwrap().to_string()
            } else {
                t["name"].as_str().unwrap().to_string()
            }
        })
        .collect()
}

#[tokio::test]
async fn an_agent_step_runs_against_an_openai_compatible_server() {
    let server =
        TestServer::start(vec![openai_tool_call(), openai_text("Created hello.txt.")]).await;
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let (report, events) = project
        .run(&one_step("Create hello.txt", ""), openai(&server, None))
        .await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "succeeded", "{:?}", work.reason);
    assert_eq!(work.output, json!("Created hello.txt."));
    assert_eq!(project.read("hello.txt").as_deref(), Some("hi\n"));

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    let first = requests[0].json();
    assert_eq!(first["model"], "m-test");
    assert_eq!(first["messages"][0]["role"], "system");
    assert_eq!(
        first["messages"][0]["content"],
        "You change files as asked. Be brief."
    );
    assert_eq!(
        first["messages"][1],
        json!({"role": "user", "content": "Create hello.txt"})
    );
    assert_eq!(
        tool_names(&first, "openai"),
        vec!["create_file", "list_directory", "read_file"]
    );
    // The declared schema is the registry's own argument schema.
    let create = &first["tools"][0]["function"]["parameters"];
    assert!(
        create["required"]
            .as_array()
            .unwrap()
            .contains(&json!("content")),
        "{create}"
    );
    let second = requests[1].json();
    let tool_message = &second["messages"][3];
    assert_eq!(tool_message["role"], "tool");
    assert_eq!(tool_message["tool_call_id"], "call_1");
    // The recorded request size is the real body's.
    let calls = events.of_type("model.called");
    assert_eq!(calls[0]["request_bytes"], requests[0].body.len() as u64);
    assert_eq!(calls[1]["input_tokens"], 160);
    assert_eq!(calls[0]["model"], "m-test");
}

#[tokio::test]
async fn an_agent_step_runs_against_an_anthropic_server() {
    let server = TestServer::start(vec![
        Reply::json(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "create_file",
                         "input": {"path": "hello.txt", "content": "hi\n"}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 90, "output_tokens": 12}
        })),
        Reply::json(json!({
            "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{"type": "text", "text": "Created hello.txt."}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 130, "output_tokens": 4}
        })),
    ])
    .await;
    let settings = HttpSettings::new("claude", server.base_url.clone(), "claude-test");
    let provider: Arc<dyn Provider> =
        Arc::from(build_http_provider(ProviderKind::Anthropic, settings, true).unwrap());
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let (report, _) = project
        .run(&one_step("Create hello.txt", ""), provider)
        .await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "succeeded", "{:?}", work.reason);
    assert_eq!(project.read("hello.txt").as_deref(), Some("hi\n"));
    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/messages");
    let first = requests[0].json();
    assert_eq!(first["system"], "You change files as asked. Be brief.");
    assert_eq!(
        tool_names(&first, "anthropic"),
        vec!["create_file", "list_directory", "read_file"]
    );
    let second = requests[1].json();
    let result = &second["messages"][2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "toolu_1");
}

#[tokio::test]
async fn a_retried_call_is_charged_as_two_model_calls() {
    let server = TestServer::start(vec![
        Reply::status(429, "{\"error\": {\"message\": \"slow down\"}}")
            .with_header("retry-after", "0"),
        openai_text("Nothing to do."),
    ])
    .await;
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let (report, events) = project
        .run(&one_step("Nothing", ""), openai(&server, None))
        .await;
    assert_eq!(step(&report, "work").status.to_string(), "succeeded");
    assert_eq!(report.budget.used.model_calls, 2);
    assert_eq!(events.of_type("model.called")[0]["attempts"], 2);
}
