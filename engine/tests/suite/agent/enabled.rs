//! A role switched on or off by a recipe input (`enabled: inputs.NAME`): evaluated
//! when the run starts; a role that is off is simply not offered as a delegate.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use protoflow_engine::recipe::{LoadOptions, load_recipe_str};
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
prompt: You plan and delegate.
"#;

fn recipe(default: bool, enabled: &str) -> String {
    format!(
        r#"
apiVersion: protoflow/v1
kind: Recipe
name: switch
inputs:
  helper: {{type: boolean, default: {default}}}
roles:
  lead: {{}}
  writer: {{enabled: "{enabled}"}}
steps:
  - id: work
    agent: lead
    prompt: "Decide"
    delegates:
      - role: writer
        description: Write files.
"#
    )
}

async fn offered(default: bool) -> Vec<String> {
    let project = AgentProject::new();
    project.role("lead", CONTROLLER);
    project.role("writer", WRITER_ROLE);
    let provider = Recording::new(scripted(json!([{"text": "ok"}])));
    let (report, _) = project
        .run(&recipe(default, "inputs.helper"), provider.clone())
        .await;
    assert_eq!(step(&report, "work").status.to_string(), "succeeded");
    provider.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect()
}

#[tokio::test]
async fn a_role_enabled_by_an_input_is_offered_only_when_the_input_says_so() {
    assert!(offered(true).await.contains(&"writer".to_string()));
    assert!(!offered(false).await.contains(&"writer".to_string()));
}

#[test]
fn an_enabled_expression_may_only_read_declared_inputs() {
    let project = AgentProject::new();
    project.role("lead", CONTROLLER);
    project.role("writer", WRITER_ROLE);
    let options = LoadOptions::for_project(&project.root());
    for (expr, code) in [
        ("steps.work.output", "recipe::enabled-reference"),
        ("inputs.nope", "recipe::enabled-reference"),
        ("inputs.helper ==", "recipe::template-syntax"),
    ] {
        let errors = load_recipe_str(
            "test.yaml",
            &recipe(true, expr),
            Some(&project.root()),
            &options,
        )
        .unwrap_err();
        let codes: Vec<String> = errors.0.iter().map(|d| d.to_record().rule).collect();
        assert!(codes.iter().any(|c| c == code), "{expr}: {codes:?}");
    }
}
