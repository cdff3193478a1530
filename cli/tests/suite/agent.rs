//! `protoflow run` with agent steps (`--provider`, fail-fast without one) and
//! `protoflow doctor`, through the real binary.

use std::io::{Read, Write};
use std::net::TcpListener;

use super::harness::Test;

const ROLE: &str = "apiVersion: protoflow/v1
kind: llm
name: writer
tools: [read_file, create_file]
capabilities:
  workspace.read: allow
  filesystem.write: allow
prompt: You write files.
";

const RECIPE: &str = "apiVersion: protoflow/v1
kind: Recipe
name: agentic
roles:
  writer: {}
steps:
  - id: work
    agent: writer
    phase: edit
    prompt: Create a.txt
";

const SCRIPT: &str = r#"{"turns": [
  {"tool_calls": [{"name": "create_file", "args": {"path": "a.txt", "content": "A"}}]},
  {"expect": ["a.txt"], "text": "created a.txt"}
]}"#;

/// No provider from the machine running the tests leaks in.
fn no_providers(test: Test) -> Test {
    [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "OLLAMA_HOST",
    ]
    .iter()
    .fold(test, |t, var| t.env(var, ""))
}

#[test]
fn a_recipe_with_agent_steps_and_no_provider_fails_fast_with_how_to_configure_one() {
    let ran = no_providers(Test::new())
        .file(".protoflow/roles/writer.yaml", ROLE)
        .file("r.yaml", RECIPE)
        .args(["run", "r.yaml"])
        .status(2)
        .stderr_contains("needs a model")
        .stderr_contains("OPENAI_API_KEY")
        .stderr_contains("--provider")
        .run();
    assert!(!ran.dir.path().join("a.txt").exists());
}

#[test]
fn an_agent_step_runs_with_the_scripted_provider_through_the_real_tools() {
    let ran = no_providers(Test::new())
        .file(".protoflow/roles/writer.yaml", ROLE)
        .file("r.yaml", RECIPE)
        .file("script.json", SCRIPT)
        .args([
            "run",
            "r.yaml",
            "--provider",
            "scripted:script.json",
            "--json",
        ])
        .status(0)
        .stdout_contains("created a.txt")
        .run();
    assert_eq!(
        std::fs::read_to_string(ran.dir.path().join("a.txt")).unwrap(),
        "A"
    );
}

#[test]
fn doctor_without_providers_says_how_to_configure_one() {
    no_providers(Test::new())
        .args(["doctor"])
        .status(1)
        .stdout_contains("no model provider is configured")
        .run();
}

#[test]
fn doctor_probes_a_local_server_and_never_prints_the_key() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        let mut buffer = [0u8; 4096];
        let n = socket.read(&mut buffer).unwrap();
        let request = String::from_utf8_lossy(&buffer[..n]).to_string();
        let body = r#"{"object": "list", "data": [{"id": "m1"}]}"#;
        let _ = write!(
            socket,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        request
    });
    let canary = "sk-canary-doctor-91f2";
    no_providers(Test::new())
        .env("OPENAI_BASE_URL", &format!("http://127.0.0.1:{port}/v1"))
        .env("OPENAI_API_KEY", canary)
        .args(["doctor", "--model", "m1", "--timeout", "5"])
        .status(0)
        .stdout_contains("model `m1` is listed")
        .stdout_contains("key from OPENAI_API_KEY")
        .stdout_lacks(canary)
        .run();
    let request = server.join().unwrap();
    assert!(request.starts_with("GET /v1/models "), "{request}");
    assert!(
        !request.contains(canary),
        "the probe sent the key: {request}"
    );
}
