//! Conversation memory: a stateful role remembers its earlier calls within the run
//! (kept in the store); a stateless role starts fresh every time.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use protoflow_engine::llm::Message;
use serde_json::json;

use super::support::{AgentProject, Recording, WRITER_ROLE, scripted, step};

fn recipe(role: &str) -> String {
    format!(
        r#"
apiVersion: protoflow/v1
kind: Recipe
name: memory
roles:
  {role}: {{}}
steps:
  - id: first
    agent: {role}
    prompt: "first task"
  - id: second
    needs: [first]
    agent: {role}
    prompt: "second task"
"#
    )
}

const STATEFUL: &str = r#"
apiVersion: protoflow/v1
kind: llm
name: keeper
memory: stateful
tools: [read_file]
capabilities:
  workspace.read: allow
prompt: You remember.
"#;

#[tokio::test]
async fn a_stateful_role_continues_its_conversation_from_the_store() {
    let project = AgentProject::new();
    project.role("keeper", STATEFUL);
    let provider = Recording::new(scripted(json!([
        {"text": "answer one"},
        {"expect": ["first task", "answer one", "second task"], "text": "answer two"}
    ])));
    let (report, _) = project.run(&recipe("keeper"), provider.clone()).await;
    assert_eq!(step(&report, "second").status.to_string(), "succeeded");
    let second = &provider.requests()[1];
    assert_eq!(
        second.messages,
        vec![
            Message::user("first task"),
            Message::assistant("answer one"),
            Message::user("second task")
        ]
    );
}

#[tokio::test]
async fn a_stateless_role_keeps_nothing_between_calls() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let provider = Recording::new(scripted(json!([{"text": "one"}, {"text": "two"}])));
    let (report, _) = project.run(&recipe("writer"), provider.clone()).await;
    assert_eq!(step(&report, "second").status.to_string(), "succeeded");
    assert_eq!(
        provider.requests()[1].messages,
        vec![Message::user("second task")]
    );
}
