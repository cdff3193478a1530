//! Continuations: a worker that runs out of turns while making progress hands back
//! (`needs_context`); its controller may call it again for the rest at most the
//! role's `limits.continuations` times (default 2) per attempt, then is told to
//! finish with what was done.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::support::{AgentProject, scripted, step};

const CONTROLLER: &str = r#"
apiVersion: protoflow/v1
kind: llm
name: lead
memory: stateful
tools: [read_file]
capabilities:
  workspace.read: allow
  role.delegate: allow
prompt: You plan and delegate.
"#;

/// A writer with one turn per call: every call that writes uses all its turns.
const SHORT_WRITER: &str = r#"
apiVersion: protoflow/v1
kind: llm
name: writer
memory: stateless
tools: [create_file]
capabilities:
  filesystem.write: allow
prompt: You change files as asked.
limits:
  turns_per_window: 1
  windows: 1
"#;

fn recipe(writer_override: &str) -> String {
    format!(
        r#"
apiVersion: protoflow/v1
kind: Recipe
name: continuations
roles:
  lead: {{}}
  writer: {writer_override}
steps:
  - id: work
    agent: lead
    phase: edit
    prompt: "Write the four parts"
    delegates:
      - role: writer
        description: Write files.
        max_calls: 8
"#
    )
}

fn project() -> AgentProject {
    let project = AgentProject::new();
    project.role("lead", CONTROLLER);
    project.role("writer", SHORT_WRITER);
    project
}

fn delegate(task: &str) -> Value {
    json!({"tool_calls": [{"name": "writer", "args": {"task": task}}]})
}

fn create(path: &str) -> Value {
    json!({"tool_calls": [{"name": "create_file", "args": {"path": path, "content": "x\n"}}]})
}

#[tokio::test]
async fn a_worker_that_ran_out_of_turns_is_continued_at_most_twice() {
    let project = project();
    let provider = scripted(json!([
        delegate("write a.txt, b.txt, c.txt and d.txt"),
        create("a.txt"),
        {"expect": ["\"status\":\"needs_context\"", "turn_limit"],
         "tool_calls": [{"name": "writer", "args": {"task": "continue: b.txt, c.txt, d.txt"}}]},
        create("b.txt"),
        delegate("continue: c.txt, d.txt"),
        create("c.txt"),
        delegate("continue: d.txt"),
        {"expect": ["already continued 2 time(s)", "limits.continuations"],
         "text": "Stopping: d.txt is left."}
    ]));
    let (report, _) = project.run(&recipe("{}"), provider).await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "succeeded", "{:?}", work.reason);
    assert_eq!(
        report.budget.used.children, 3,
        "one call and two continuations"
    );
    for f in ["a.txt", "b.txt", "c.txt"] {
        assert!(project.read(f).is_some(), "{f}");
    }
    assert!(project.read("d.txt").is_none());
}

#[tokio::test]
async fn the_bound_is_data_and_a_completed_call_is_no_continuation() {
    let project = project();
    let provider = scripted(json!([
        // A call that completes (text, no write) resets nothing to continue.
        delegate("say hello"),
        {"text": "hello"},
        delegate("write a.txt"),
        create("a.txt"),
        delegate("continue"),
        {"expect": ["already continued 0 time(s) in this attempt (at most 0"],
         "text": "Stopping."}
    ]));
    let (report, _) = project
        .run(&recipe("{limits: {continuations: 0}}"), provider)
        .await;
    assert_eq!(step(&report, "work").status.to_string(), "succeeded");
    assert_eq!(report.budget.used.children, 2);
}
