//! The coding recipe against a real HTTP provider: the built-in `openai` provider
//! (configured by `OPENAI_BASE_URL` and `OPENAI_API_KEY`) talking to a local
//! OpenAI-compatible server that serves the first-pass fix as native `tool_calls`.
//! The key is a canary: it must reach the server as a bearer token and nowhere else
//! (output, events, the project's `.protoflow/` store).

use std::path::Path;

use serde_json::{Value, json};

use super::fixtures::*;
use super::server::OpenAiServer;

/// The API key: if these bytes show up anywhere but the server's request headers,
/// the key leaked.
const CANARY: &str = "sk-canary-5b1e9d4c7a02f6e3";

/// Every file under `dir` (recursively) whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read(&path)
                .unwrap()
                .windows(needle.len())
                .any(|w| w == needle)
            {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

/// All files under `dir` (recursively), relative names.
fn file_names(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                names.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    names
}

#[test]
fn a_first_pass_fix_through_an_openai_compatible_server_is_verified_and_the_key_never_leaks() {
    let mut turns = plan_calc();
    turns.extend(delegated_edit(
        "calc.py",
        "return a - b",
        "return a + b",
        &rev(BUGGY_CALC),
    ));
    let server = OpenAiServer::start(turns.clone());
    let recipe = super::super::harness::repo().join("recipes/coding.yaml");
    let ran = python_project(BUGGY_CALC)
        .env("OPENAI_BASE_URL", &server.base_url)
        .env("OPENAI_API_KEY", CANARY)
        .args([
            "run",
            recipe.to_str().unwrap(),
            "--provider",
            "openai",
            "--model",
            "test-model",
            "--approve",
            "writes",
            "--json",
            "--events",
            "events.jsonl",
            "--input",
            "task=Fix add in calc.py so that the tests pass",
        ])
        .status(0)
        .run();
    let report: Value = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("not a JSON report ({e}):\n{}\n{}", ran.stdout, ran.stderr));

    // The verdict: the same as with the scripted provider.
    let c = completion(&report);
    assert_verified_change(c);
    assert_eq!(counted(c), vec!["python:unittest:passed"]);
    assert_eq!(read(&ran, "calc.py"), FIXED_CALC);
    assert_eq!(report["status"], "succeeded");

    // The wire: every turn was asked for, at the chat endpoint, with the key as a
    // bearer token, the model given on the command line, and the tools offered.
    let requests = server.requests();
    assert_eq!(requests.len(), turns.len(), "one request per scripted turn");
    for (n, (request, turn)) in requests.iter().zip(&turns).enumerate() {
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {CANARY}").as_str()),
            "request {n}"
        );
        let body = request.json();
        assert_eq!(body["model"], "test-model", "request {n}");
        let offered: Vec<&str> = body["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("request {n} offers no tools: {body:#}"))
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        for call in turn["tool_calls"].as_array().into_iter().flatten() {
            let name = call["name"].as_str().unwrap();
            assert!(
                offered.contains(&name),
                "request {n} does not offer `{name}`: {offered:?}"
            );
        }
        for needle in turn["expect"].as_array().into_iter().flatten() {
            let needle = needle.as_str().unwrap();
            assert!(
                String::from_utf8_lossy(&request.body).contains(needle),
                "request {n} lacks {needle:?}"
            );
        }
    }
    // A tool result travels back as a `tool` message bound to the call's id.
    let second = requests[1].json();
    let tool_message = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap_or_else(|| panic!("no tool result in {second:#}"));
    assert_eq!(tool_message["tool_call_id"], json!("call_0_0"));

    // The canary is nowhere but in the requests' headers.
    assert!(!ran.stdout.contains(CANARY), "the key is in stdout");
    assert!(!ran.stderr.contains(CANARY), "the key is in stderr");
    let events = std::fs::read_to_string(ran.dir.path().join("events.jsonl")).unwrap();
    assert!(events.lines().count() > 10, "events were written: {events}");
    assert!(!events.contains(CANARY), "the key is in the events");
    let store = ran.dir.path().join(".protoflow");
    assert!(
        file_names(&store).iter().any(|f| f.ends_with(".db")),
        "the run was stored: {:?}",
        file_names(&store)
    );
    assert_eq!(
        files_containing(&store, CANARY.as_bytes()),
        Vec::<String>::new(),
        "the key is in the project's store"
    );
    assert!(
        !files_containing(&store, b"return a + b").is_empty(),
        "the scan reads the store's bytes (the diff is stored)"
    );
    for request in &requests {
        assert!(
            !String::from_utf8_lossy(&request.body).contains(CANARY),
            "the key was sent to the model as content"
        );
    }
}
