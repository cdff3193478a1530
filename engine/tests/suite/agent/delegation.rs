//! Delegation: a controller exposes worker roles as tools; each call is a fresh
//! conversation under the worker's policy ∩ the controller's ceiling, sharing the
//! run's budget; tool-only workers run their tool directly.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use protoflow_engine::evidence::ReceiptStatus;
use protoflow_engine::llm::Message;
use serde_json::json;

use super::support::{AgentProject, Recording, WRITER_ROLE, scripted, step};

const CONTROLLER: &str = r#"
apiVersion: protoflow/v1
kind: llm
name: lead
memory: stateful
tools: [read_file]
capabilities:
  workspace.read: allow
  role.delegate: allow
prompt: You plan and delegate; you never edit files yourself.
"#;

const LISTER: &str = r#"
apiVersion: protoflow/v1
kind: tool-only
name: lister
tools: [list_directory]
capabilities:
  workspace.read: allow
"#;

fn recipe(ceiling: &str) -> String {
    format!(
        r#"
apiVersion: protoflow/v1
kind: Recipe
name: delegation
{ceiling}
roles:
  lead: {{}}
  writer: {{}}
  lister: {{}}
steps:
  - id: work
    agent: lead
    phase: edit
    prompt: "Add a notes file"
    delegates:
      - role: writer
        description: Make one file change.
        max_calls: 2
      - role: lister
        tool: look
        description: List a directory.
"#
    )
}

#[tokio::test]
async fn a_controller_delegates_to_a_worker_in_a_fresh_conversation() {
    let project = AgentProject::new();
    project.role("lead", CONTROLLER);
    project.role("writer", WRITER_ROLE);
    project.role("lister", LISTER);
    let provider = Recording::new(scripted(json!([
        // controller
        {"expect": ["You plan and delegate", "writer", "look"],
         "tool_calls": [{"id": "d1", "name": "writer", "args": {"task": "Create notes.md saying hello", "paths": ["notes.md"]}}]},
        // worker, fresh
        {"expect": ["You change files as asked", "Create notes.md saying hello", "Files: notes.md"],
         "tool_calls": [{"id": "w1", "name": "create_file", "args": {"path": "notes.md", "content": "hello\n"}}]},
        {"text": "Created notes.md."},
        // controller again: sees the worker's status, answer and receipts
        {"expect": ["\"status\":\"completed\"", "Created notes.md.", "revision_after"],
         "tool_calls": [{"id": "d2", "name": "look", "args": {"path": "."}}]},
        {"expect": ["notes.md"], "text": "notes.md was added by the writer."}
    ])));
    let (report, _) = project.run(&recipe(""), provider.clone()).await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "succeeded", "{:?}", work.reason);
    assert_eq!(project.read("notes.md").as_deref(), Some("hello\n"));

    // The worker's conversation started fresh: its own system prompt, one message.
    let requests = provider.requests();
    assert_eq!(requests.len(), 5);
    let worker = &requests[1];
    assert!(
        worker
            .system
            .as_deref()
            .unwrap()
            .starts_with("You change files as asked")
    );
    assert_eq!(worker.messages.len(), 1);
    assert!(
        matches!(&worker.messages[0], Message::User { text } if text.starts_with("Create notes.md"))
    );
    // The worker cannot delegate (depth 1) and gets only its own tools.
    let names: Vec<&str> = worker.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["create_file", "list_directory", "read_file"]);
    // The controller never got write tools.
    let names: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["read_file", "writer", "look"]);

    // Receipts: the worker's under its own scope, the tool-only delegate's under the step.
    let receipts: Vec<(String, String, ReceiptStatus)> = project
        .receipts(&report)
        .into_iter()
        .map(|(k, r)| (k, r.tool, r.status))
        .collect();
    assert_eq!(
        receipts,
        vec![
            (
                "work/writer#1".into(),
                "create_file".into(),
                ReceiptStatus::Executed
            ),
            (
                "work".into(),
                "list_directory".into(),
                ReceiptStatus::Executed
            ),
        ]
    );
    assert_eq!(report.budget.used.children, 1);
    assert_eq!(report.budget.used.model_calls, 5);
}

#[tokio::test]
async fn a_worker_cannot_exceed_the_controllers_ceiling() {
    let project = AgentProject::new();
    project.role("lead", CONTROLLER);
    project.role("writer", WRITER_ROLE);
    project.role("lister", LISTER);
    // The recipe's ceiling denies writes: the writer's own `allow` cannot widen it.
    let provider = Recording::new(scripted(json!([
        {"tool_calls": [{"name": "writer", "args": {"task": "Create notes.md"}}]},
        {"tool_calls": [{"name": "create_file", "args": {"path": "notes.md", "content": "x"}}]},
        {"expect": ["is not among the tools allowed here"], "text": "I may not write files here."},
        {"expect": ["I may not write files here."], "text": "The writer could not write."}
    ])));
    let (report, _) = project
        .run(
            &recipe("capabilities:\n  filesystem.write: deny"),
            provider.clone(),
        )
        .await;
    assert_eq!(step(&report, "work").status.to_string(), "succeeded");
    assert!(project.read("notes.md").is_none());
    // The worker was never offered the write tool.
    let names: Vec<String> = provider.requests()[1]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert!(!names.contains(&"create_file".to_string()), "{names:?}");
    let receipts = project.receipts(&report);
    assert_eq!(receipts.len(), 1);
    assert_eq!(receipts[0].0, "work/writer#1");
    assert_eq!(receipts[0].1.tool, "create_file");
    assert_eq!(receipts[0].1.status, ReceiptStatus::Denied);
}

#[tokio::test]
async fn delegation_is_bounded_by_max_calls() {
    let project = AgentProject::new();
    project.role("lead", CONTROLLER);
    project.role("writer", WRITER_ROLE);
    project.role("lister", LISTER);
    let provider = scripted(json!([
        {"tool_calls": [{"name": "writer", "args": {"task": "one"}}]},
        {"text": "did one"},
        {"tool_calls": [{"name": "writer", "args": {"task": "two"}}]},
        {"text": "did two"},
        {"tool_calls": [{"name": "writer", "args": {"task": "three"}}]},
        {"expect": ["at most 2 times"], "text": "Stopping."}
    ]));
    let (report, _) = project.run(&recipe(""), provider).await;
    assert_eq!(step(&report, "work").status.to_string(), "succeeded");
    assert_eq!(report.budget.used.children, 2);
}
