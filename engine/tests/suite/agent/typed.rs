//! Typed final output: a `final_output` tool whose input schema is the step's
//! output schema; invalid values get bounded correction.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::support::{AgentProject, WRITER_ROLE, one_step, scripted, step};

const OUTPUT: &str = r#"    output:
      schema:
        type: object
        required: [count]
        properties:
          count: {type: integer}
      corrections: 1
"#;

#[tokio::test]
async fn a_typed_output_that_fails_validation_then_passes() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let provider = scripted(json!([
        {"expect": ["final_output"], "tool_calls": [{"name": "final_output", "args": {"count": "three"}}]},
        {"expect": ["do not match its schema"], "tool_calls": [{"name": "final_output", "args": {"count": 3}}]}
    ]));
    let (report, _) = project
        .run(&one_step("Count the files", OUTPUT), provider)
        .await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "succeeded", "{:?}", work.reason);
    assert_eq!(work.output, json!({"count": 3}));
}

#[tokio::test]
async fn a_typed_output_that_never_validates_fails_after_its_corrections() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let provider = scripted(json!([
        {"tool_calls": [{"name": "final_output", "args": {"count": "three"}}]},
        {"tool_calls": [{"name": "final_output", "args": {}}]},
        {"text": "never"}
    ]));
    let (report, _) = project
        .run(&one_step("Count the files", OUTPUT), provider)
        .await;
    let work = step(&report, "work");
    assert_eq!(work.status.to_string(), "failed");
    assert!(
        work.reason.as_deref().unwrap().contains("invalid_output"),
        "{:?}",
        work.reason
    );
}

#[tokio::test]
async fn a_typed_answer_in_plain_text_is_accepted_when_it_validates() {
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let provider = scripted(json!([{"text": "Here it is: ```json\n{\"count\": 2}\n```"}]));
    let (report, _) = project
        .run(&one_step("Count the files", OUTPUT), provider)
        .await;
    assert_eq!(step(&report, "work").output, json!({"count": 2}));
}
