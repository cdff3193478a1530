//! Known secrets (values of credential-named variables in protoflow's environment)
//! never reach the report, the events file or the store, wherever they enter run
//! data: a command's output, an input, a step's error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use super::harness::Test;

const CANARY: &str = "canary-secret-4b1d9e77";

const RECIPE: &str = r#"apiVersion: protoflow/v1
kind: Recipe
name: leak
inputs:
  p: {type: string}
steps:
  - id: show
    tool: echo
    with:
      given: "{{ inputs.p }}"
  - id: print
    tool: execute_command
    with:
      argv: [cat, secret.txt]
  - id: fail
    tool: execute_command
    with:
      argv: [sh, -c, "echo {{ inputs.p }} >&2; exit 3"]
"#;

fn store_bytes(dir: &std::path::Path) -> Vec<u8> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir.join(".protoflow")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            all.extend(std::fs::read(path).unwrap());
        }
    }
    all
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn a_secret_in_inputs_output_or_errors_is_redacted_everywhere() {
    let ran = Test::new()
        .file("leak.yaml", RECIPE)
        .file("secret.txt", format!("{CANARY}\n"))
        .env("FOO_TOKEN", CANARY)
        .args([
            "run",
            "leak.yaml",
            "--input",
            &format!("p={CANARY}"),
            "--json",
            "--events",
            "events.jsonl",
        ])
        .status(1)
        .stdout_lacks(CANARY)
        .run();
    assert!(
        ran.stdout.contains("[REDACTED:FOO_TOKEN]"),
        "{}",
        ran.stdout
    );
    assert!(!ran.stderr.contains(CANARY), "{}", ran.stderr);
    let dir = ran.dir.path();
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    assert!(!events.contains(CANARY), "{events}");
    assert!(
        !contains(&store_bytes(dir), CANARY),
        "the store holds the secret"
    );

    let run_id = serde_json::from_str::<serde_json::Value>(&ran.stdout).unwrap()["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    let report = Command::new(env!("CARGO_BIN_EXE_protoflow"))
        .args(["report", &run_id, "--json"])
        .current_dir(dir)
        .env("FOO_TOKEN", CANARY)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&report.stdout).contains(CANARY));

    // A run whose input was a secret cannot be resumed with a marker in its place.
    let resumed = Command::new(env!("CARGO_BIN_EXE_protoflow"))
        .args(["resume", &run_id, "--quiet"])
        .current_dir(dir)
        .env("FOO_TOKEN", CANARY)
        .output()
        .unwrap();
    assert_ne!(resumed.status.code(), Some(0));
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(err.contains("secret"), "{err}");
}
