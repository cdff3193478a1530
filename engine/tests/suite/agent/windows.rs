//! Inference windows: another window only after new applied writes; a window
//! without progress ends `blocked / no_progress`; running out of windows ends
//! `needs_context / turn_limit`. Neither counts as completion; edits are kept.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::support::{AgentProject, one_step, scripted, step};

const SHORT_WINDOWS: &str = r#"
apiVersion: protoflow/v1
kind: llm
name: writer
tools: [read_file, create_file, list_directory]
capabilities:
  workspace.read: allow
  filesystem.write: allow
prompt: You change files as asked.
limits:
  turns_per_window: 2
  windows: 2
"#;

fn create(path: &str) -> serde_json::Value {
    json!({"tool_calls": [{"name": "create_file", "args": {"path": path, "content": path}}]})
}

fn list() -> serde_json::Value {
    json!({"tool_calls": [{"name": "list_directory", "args": {}}]})
}

#[tokio::test]
async fn a_window_with_progress_is_followed_by_another() {
    let project = AgentProject::new();
    project.role("writer", SHORT_WINDOWS);
    let provider = scripted(json!([
        create("a.txt"),
        list(),
        {"expect": ["Window 1 of 2 has ended"], "text": "All done."}
    ]));
    let (report, events) = project.run(&one_step("Write files", ""), provider).await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "succeeded", "{:?}", work.reason);
    let windows: Vec<u64> = events
        .of_type("model.called")
        .iter()
        .map(|e| e["window"].as_u64().unwrap())
        .collect();
    assert_eq!(windows, vec![1, 1, 2]);
}

#[tokio::test]
async fn a_window_without_new_writes_ends_blocked_no_progress() {
    let project = AgentProject::new();
    project.role("writer", SHORT_WINDOWS);
    let provider = scripted(json!([create("a.txt"), list(), list(), list(), {"text": "never"}]));
    let (report, events) = project.run(&one_step("Write files", ""), provider).await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "failed");
    let reason = work.reason.as_deref().unwrap();
    assert!(
        reason.contains("agent ended blocked / no_progress"),
        "{reason}"
    );
    assert_eq!(work.output["status"], "blocked");
    // The first window's edit is kept.
    assert_eq!(project.read("a.txt").as_deref(), Some("a.txt"));
    assert_eq!(events.of_type("model.called").len(), 4);
}

#[tokio::test]
async fn running_out_of_windows_with_progress_ends_needs_context_turn_limit() {
    let project = AgentProject::new();
    project.role("writer", SHORT_WINDOWS);
    let provider = scripted(json!([
        create("a.txt"),
        create("b.txt"),
        create("c.txt"),
        create("d.txt"),
        {"text": "never"}
    ]));
    let (report, _) = project.run(&one_step("Write files", ""), provider).await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "failed");
    let reason = work.reason.as_deref().unwrap();
    assert!(
        reason.contains("agent ended needs_context / turn_limit"),
        "{reason}"
    );
    for f in ["a.txt", "b.txt", "c.txt", "d.txt"] {
        assert!(project.read(f).is_some(), "{f}");
    }
}

#[tokio::test]
async fn a_read_only_window_without_writes_is_blocked_even_in_the_first_window() {
    let project = AgentProject::new();
    project.role("writer", SHORT_WINDOWS);
    let provider = scripted(json!([list(), list(), {"text": "never"}]));
    let (report, _) = project.run(&one_step("Look around", ""), provider).await;
    let reason = step(&report, "work").reason.clone().unwrap();
    assert!(reason.contains("blocked / no_progress"), "{reason}");
}
