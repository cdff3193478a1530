//! An API key canary: the key reaches the server, and nowhere else — not in any
//! event, the report, or the run store.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::http::{openai, openai_text, openai_tool_call};
use super::server::TestServer;
use super::support::{AgentProject, WRITER_ROLE, one_step, step};

const CANARY: &str = "sk-canary-7f3e9b2d41c84a6e";

#[tokio::test]
async fn the_api_key_never_appears_in_events_reports_or_the_store() {
    let server = TestServer::start(vec![openai_tool_call(), openai_text("Done.")]).await;
    let project = AgentProject::new();
    project.role("writer", WRITER_ROLE);
    let (report, events) = project
        .run(
            &one_step("Create hello.txt", ""),
            openai(&server, Some(CANARY)),
        )
        .await;
    assert_eq!(step(&report, "work").status.to_string(), "succeeded");
    // The key was really in play.
    let auth = server.requests()[0]
        .header("authorization")
        .unwrap()
        .to_string();
    assert_eq!(auth, format!("Bearer {CANARY}"));

    let events_text = serde_json::to_string(&events.json()).unwrap();
    assert!(events_text.contains("model.called"));
    assert!(!events_text.contains(CANARY));
    assert!(!events_text.to_lowercase().contains("authorization"));
    let report_text = serde_json::to_string(&report).unwrap();
    assert!(!report_text.contains(CANARY));
    let stored_events =
        serde_json::to_string(&project.store.events(&report.run_id).unwrap()).unwrap();
    assert!(stored_events.contains("model.called"));
    assert!(!stored_events.contains(CANARY));
    // Every byte of the store's files (database and write-ahead log).
    for entry in std::fs::read_dir(project.root().join(".protoflow")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !bytes.windows(CANARY.len()).any(|w| w == CANARY.as_bytes()),
                "{} contains the key",
                path.display()
            );
        }
    }
}
