//! An agent step end to end with the scripted provider: a tool call, its result
//! fed back, a final answer; receipts and model-call events recorded.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use protoflow_engine::evidence::ReceiptStatus;
use serde_json::json;

use super::support::{AgentProject, WRITER_ROLE, one_step, scripted, step};

#[tokio::test]
async fn a_tool_call_its_result_and_a_final_answer() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let provider = scripted(json!([
        {"expect": ["You change files as asked", "Create hello.txt", "create_file"],
         "tool_calls": [{"id": "c1", "name": "create_file", "args": {"path": "hello.txt", "content": "hi\n"}}],
         "usage": {"input_tokens": 100, "output_tokens": 10}},
        {"expect": ["hello.txt"], "text": "Created hello.txt.", "usage": {"input_tokens": 150, "output_tokens": 5}}
    ]));
    let (report, events) = project
        .run(&one_step("Create hello.txt", ""), provider)
        .await;

    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "succeeded", "{:?}", work.reason);
    assert_eq!(work.output, json!("Created hello.txt."));
    assert_eq!(project.read("hello.txt").as_deref(), Some("hi\n"));

    let receipts = project.receipts(&report);
    assert_eq!(receipts.len(), 1);
    assert_eq!(receipts[0].0, "work");
    assert_eq!(receipts[0].1.tool, "create_file");
    assert_eq!(receipts[0].1.status, ReceiptStatus::Executed);
    assert!(receipts[0].1.facts.revision_after.is_some());

    let calls = events.of_type("model.called");
    assert_eq!(calls.len(), 2);
    for (i, call) in calls.iter().enumerate() {
        assert_eq!(call["step"], "work");
        assert_eq!(call["turn"], i as u64 + 1);
        assert_eq!(call["window"], 1);
        assert!(call["request_bytes"].as_u64().unwrap() > 0);
        assert!(call["estimated_tokens"].as_u64().unwrap() > 0);
        assert!(call["tool_declaration_bytes"].as_u64().unwrap() > 0);
    }
    assert_eq!(calls[0]["input_tokens"], 100);
    // Tokens and model calls were charged to the run's budget.
    assert_eq!(report.budget.used.model_calls, 2);
    assert_eq!(report.budget.used.tokens, 265);
    assert_eq!(report.budget.used.tool_calls, 1);
}

#[tokio::test]
async fn an_agent_step_without_a_provider_answer_left_fails_with_the_provider_error() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let provider = scripted(json!([]));
    let (report, _) = project.run(&one_step("Do it", ""), provider).await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "failed");
    assert!(
        work.reason
            .as_deref()
            .unwrap()
            .contains("model call failed"),
        "{:?}",
        work.reason
    );
}

#[tokio::test]
async fn a_large_tool_result_is_offloaded_to_an_artifact_the_model_can_page() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let big: String = (0..300)
        .map(|i| format!("line number {i:04} of the big file\n"))
        .collect();
    project.write("big.txt", &big);
    let provider = super::support::Recording::new(scripted(json!([
        {"tool_calls": [{"id": "r1", "name": "read_file", "args": {"path": "big.txt"}}]},
        {"expect": ["artifact-1", "read_context_artifact"],
         "tool_calls": [{"id": "r2", "name": "read_context_artifact", "args": {"artifact_id": "artifact-1", "offset": 2000, "limit": 200}}]},
        {"expect": ["\"next_offset\":2200"], "text": "Read it."}
    ])));
    let (report, _) = project
        .run(&one_step("Read big.txt", ""), provider.clone())
        .await;
    assert_eq!(step(&report, "work").status.to_string(), "succeeded");
    let second = &provider.requests()[1];
    let protoflow_engine::llm::Message::ToolResult { content, .. } = &second.messages[2] else {
        panic!("expected the tool result, got {:?}", second.messages[2]);
    };
    assert!(
        content.len() < 1_000,
        "the result was not offloaded: {} bytes",
        content.len()
    );
    assert!(
        second
            .tools
            .iter()
            .any(|t| t.name == "read_context_artifact")
    );
    // The paging tool is not offered before there is anything to page.
    assert!(
        !provider.requests()[0]
            .tools
            .iter()
            .any(|t| t.name == "read_context_artifact")
    );
}

#[tokio::test]
async fn a_task_that_cannot_fit_the_context_window_fails_explicitly_before_any_call() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let provider = super::support::Recording::new(scripted(json!([{"text": "never"}])));
    let settings = protoflow_engine::agent::AgentSettings {
        context_window: Some(1_200),
        ..Default::default()
    };
    let task = "x".repeat(2_000);
    let (report, _) = project
        .run_with(&one_step(&task, ""), provider.clone(), settings)
        .await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "failed");
    assert!(
        work.reason
            .as_deref()
            .unwrap()
            .contains("does not fit the context window"),
        "{:?}",
        work.reason
    );
    assert!(provider.requests().is_empty());
}
