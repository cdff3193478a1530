//! Corrections: invented tool names, invalid arguments and unreadable replies get
//! feedback within bounded allowances; exhausting one ends the step with a reason.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use protoflow_engine::evidence::ReceiptStatus;
use protoflow_engine::llm::{JsonActionProvider, ScriptedProvider};
use serde_json::json;

use super::support::{AgentProject, WRITER_ROLE, one_step, scripted, step};

#[tokio::test]
async fn an_invented_tool_name_is_corrected_once_then_accepted() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let provider = scripted(json!([
        {"tool_calls": [{"id": "c1", "name": "write_file", "args": {"path": "a.txt", "content": "x"}}]},
        // The feedback names the tools that exist.
        {"expect": ["there is no tool named `write_file`", "create_file, list_directory, read_file"],
         "tool_calls": [{"id": "c2", "name": "create_file", "args": {"path": "a.txt", "content": "x"}}]},
        {"text": "Done."}
    ]));
    let (report, _) = project.run(&one_step("Write a.txt", ""), provider).await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "succeeded", "{:?}", work.reason);
    assert_eq!(project.read("a.txt").as_deref(), Some("x"));
    let receipts: Vec<_> = project
        .receipts(&report)
        .into_iter()
        .map(|(_, r)| (r.tool, r.status))
        .collect();
    assert_eq!(
        receipts,
        vec![
            ("write_file".to_string(), ReceiptStatus::Rejected),
            ("create_file".to_string(), ReceiptStatus::Executed)
        ]
    );
}

#[tokio::test]
async fn the_correction_allowance_exhausted_ends_the_step_with_a_clear_reason() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    // Default allowance: 2 corrections. Invented name, invalid JSON, schema failure.
    let provider = scripted(json!([
        {"tool_calls": [{"name": "make_file", "args": {}}]},
        {"expect": ["make_file"], "tool_calls": [{"name": "create_file", "raw_args": "{\"path\": \"a.txt\", "}]},
        {"expect": ["not valid JSON"], "tool_calls": [{"name": "create_file", "args": {"path": "a.txt"}}]},
        {"text": "never reached"}
    ]));
    let (report, _) = project.run(&one_step("Write a.txt", ""), provider).await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "failed");
    let reason = work.reason.as_deref().unwrap();
    assert!(
        reason.contains("agent ended failed / corrections_exhausted"),
        "{reason}"
    );
    assert!(reason.contains("do not match its schema"), "{reason}");
    assert_eq!(work.output["status"], "failed");
    assert!(project.read("a.txt").is_none());
    assert_eq!(project.receipts(&report).len(), 3);
}

#[tokio::test]
async fn a_rejected_precondition_is_fed_back_and_costs_a_correction() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    project.write("exists.txt", "old");
    let provider = scripted(json!([
        {"tool_calls": [{"name": "create_file", "args": {"path": "exists.txt", "content": "new"}}]},
        {"expect": ["was rejected"], "text": "The file exists already; nothing to do."}
    ]));
    let (report, _) = project
        .run(&one_step("Create exists.txt", ""), provider)
        .await;
    assert_eq!(step(&report, "work").status.to_string(), "succeeded");
    assert_eq!(project.read("exists.txt").as_deref(), Some("old"));
    let receipts = project.receipts(&report);
    assert_eq!(receipts[0].1.status, ReceiptStatus::Rejected);
}

#[tokio::test]
async fn repeated_unparseable_replies_are_stopped_by_their_own_bound() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    // JSON action mode over a script: replies that are not JSON actions.
    let inner = ScriptedProvider::from_value(
        "script",
        json!({"turns": [
            {"text": "I am thinking about it."},
            {"expect": ["could not be used"], "text": "Still thinking."},
            {"text": "Hmm."},
            {"text": "never reached"}
        ]}),
    )
    .unwrap();
    let provider = Arc::new(JsonActionProvider::new(Box::new(inner)));
    let (report, _) = project.run(&one_step("Write a.txt", ""), provider).await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "failed");
    assert!(
        work.reason
            .as_deref()
            .unwrap()
            .contains("unparseable_replies"),
        "{:?}",
        work.reason
    );
}
