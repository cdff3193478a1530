//! Adversarial use of the real binary: inputs, paths and recipes the authors never
//! saw. Each test is a bug found by a QA pass and fixed; it must keep failing if the
//! fix is undone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::harness::Test;

/// Runs the binary in `dir`, killing it (and failing the test) if it is still
/// running after `limit`: a hang must fail the test, never stall the suite.
fn run_with_deadline(dir: &Path, args: &[&str], limit: Duration) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_protoflow"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", dir.join(".xdg-config"))
        .env("HOME", dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("protoflow {args:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_template_that_never_ends_fails_its_step_instead_of_hanging_the_run() {
    let test = Test::new().file(
        "bomb.yaml",
        r#"apiVersion: protoflow/v1
kind: Recipe
name: bomb
steps:
  - id: spin
    tool: echo
    timeout: 1s
    with:
      message: "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
  - id: other
    tool: echo
    with: {message: still runs}
"#,
    );
    let (status, stdout, stderr) = run_with_deadline(
        test.path(),
        &["run", "bomb.yaml", "--json"],
        Duration::from_secs(120),
    );
    assert_eq!(status, 1, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["status"], "failed", "{report}");
    let step = |id: &str| {
        report["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(step("spin")["status"], "failed");
    assert!(
        step("spin")["reason"]
            .as_str()
            .unwrap()
            .contains("steps of work"),
        "{report}"
    );
    assert_eq!(step("other")["status"], "succeeded");
}

const ECHO: &str = r#"apiVersion: protoflow/v1
kind: Recipe
name: hello
inputs:
  p: {type: string, default: "."}
steps:
  - id: greet
    tool: echo
    with: {message: "hello"}
  - id: look
    tool: list_directory
    with: {path: "{{ inputs.p }}"}
"#;

#[test]
fn an_events_file_is_never_written_over_the_run_store() {
    let test = Test::new().file("r.yaml", ECHO);
    let dir = test.path();
    let deadline = Duration::from_secs(60);
    let (status, _, stderr) = run_with_deadline(dir, &["run", "r.yaml"], deadline);
    assert_eq!(status, 0, "{stderr}");
    for target in [
        ".protoflow/protoflow.db",
        ".protoflow/events.jsonl",
        "./.protoflow/../.protoflow/protoflow.db",
    ] {
        let (status, _, stderr) =
            run_with_deadline(dir, &["run", "r.yaml", "--events", target], deadline);
        assert_eq!(status, 2, "--events {target}: {stderr}");
        assert!(stderr.contains(".protoflow"), "{stderr}");
    }
    // A symlink that points into the store is refused too.
    std::os::unix::fs::symlink(dir.join(".protoflow/protoflow.db"), dir.join("ev.jsonl")).unwrap();
    let (status, _, stderr) =
        run_with_deadline(dir, &["run", "r.yaml", "--events", "ev.jsonl"], deadline);
    assert_eq!(status, 2, "{stderr}");
    // The first run is still in the store.
    let (status, stdout, stderr) = run_with_deadline(dir, &["runs", "--json"], deadline);
    assert_eq!(status, 0, "{stderr}");
    let runs: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 1, "{runs}");
    // An ordinary events file still works.
    let (status, _, stderr) = run_with_deadline(
        dir,
        &["run", "r.yaml", "--events", "events.jsonl"],
        deadline,
    );
    assert_eq!(status, 0, "{stderr}");
    assert!(
        std::fs::read_to_string(dir.join("events.jsonl"))
            .unwrap()
            .contains("run.finished")
    );
}

#[test]
fn control_characters_from_run_data_never_reach_the_terminal_raw() {
    // A path (as a model or an input could give it) carrying terminal escapes:
    // set the window title, clear the screen, ring the bell.
    let evil = "../x\u{1b}]0;pwned\u{7}\u{1b}[2J\rSPOOF";
    let ran = Test::new()
        .file("r.yaml", ECHO)
        .args(["run", "r.yaml", "--input", &format!("p={evil}")])
        .status(1)
        .stderr_contains("step `look` failed")
        .run();
    for c in ['\u{1b}', '\u{7}', '\r'] {
        assert!(
            !ran.stderr.contains(c),
            "raw {c:?} in the summary: {:?}",
            ran.stderr
        );
    }
    assert!(ran.stderr.contains("SPOOF"), "{}", ran.stderr);
    // The stored report keeps the data as it was (JSON escapes it); the human
    // rendering of `report` is escaped like the run's summary.
    let dir = ran.dir.path();
    let (_, stdout, _) = run_with_deadline(dir, &["runs", "--json"], Duration::from_secs(30));
    let runs: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let id = runs[0]["id"].as_str().unwrap().to_string();
    let (status, stdout, stderr) =
        run_with_deadline(dir, &["report", &id], Duration::from_secs(30));
    assert_eq!(status, 0, "{stderr}");
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    let (_, stdout, _) =
        run_with_deadline(dir, &["report", &id, "--markdown"], Duration::from_secs(30));
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
}

#[test]
fn read_only_commands_on_a_project_without_a_store_create_nothing() {
    let test = Test::new().file("r.yaml", ECHO);
    let dir = test.path();
    let deadline = Duration::from_secs(30);
    for (args, expected) in [
        (vec!["runs"], 0),
        (vec!["runs", "--json"], 0),
        (vec!["report", "20260101-000000-abcdef"], 2),
        (vec!["resume", "20260101-000000-abcdef"], 2),
        (vec!["checkpoints"], 0),
        (vec!["checkpoints", "--json"], 0),
    ] {
        let (status, stdout, stderr) = run_with_deadline(dir, &args, deadline);
        assert_eq!(status, expected, "{args:?}: {stdout}{stderr}");
        assert!(
            !dir.join(".protoflow").exists(),
            "`protoflow {}` created .protoflow/",
            args.join(" ")
        );
    }
    let (_, stdout, _) = run_with_deadline(dir, &["runs", "--json"], deadline);
    assert_eq!(stdout.trim(), "[]");
}

#[test]
fn role_limits_and_output_corrections_have_ceilings() {
    // In a recipe's role override and a step's typed output.
    let ran = Test::new()
        .file(
            "r.yaml",
            r#"apiVersion: protoflow/v1
kind: Recipe
name: greedy
roles:
  explorer:
    limits: {turns_per_window: 100000, windows: 100000, read_chars: 999999999, corrections: 100000, output_tokens: 999999999}
steps:
  - id: ask
    agent: explorer
    prompt: look around
    output: {schema: {type: object}, corrections: 1000000}
"#,
        )
        .args(["validate", "r.yaml"])
        .status(2)
        .stderr_contains("recipe::limit-over-ceiling")
        .stderr_contains("`turns_per_window` of 100000 is over the engine ceiling of 100")
        .stderr_contains("`windows` of 100000")
        .stderr_contains("`read_chars` of 999999999")
        .stderr_contains("`output_tokens` of 999999999")
        .stderr_contains("`corrections` of 1000000 is over the engine ceiling of 10")
        .stderr_contains("(6 problems)")
        .run();
    assert!(ran.stderr.contains("r.yaml:6:32"), "{}", ran.stderr);
    // In a role file of the project.
    Test::new()
        .file(
            ".protoflow/roles/greedy.yaml",
            r#"apiVersion: protoflow/v1
kind: llm
name: greedy
prompt: hi
limits:
  windows: 21
"#,
        )
        .args(["validate", ".protoflow/roles/greedy.yaml"])
        .status(2)
        .stderr_contains("role::limit-over-ceiling")
        .stderr_contains("`windows` of 21 is over the engine ceiling of 20")
        .stderr_contains("greedy.yaml:6:12")
        .run();
    // At the ceiling is fine.
    Test::new()
        .file(
            "r.yaml",
            r#"apiVersion: protoflow/v1
kind: Recipe
name: fine
roles:
  explorer: {limits: {windows: 20, corrections: 10}}
steps:
  - id: ask
    agent: explorer
    prompt: look around
    output: {schema: {type: object}, corrections: 10}
"#,
        )
        .args(["validate", "r.yaml"])
        .status(0)
        .run();
}

#[test]
fn dot_labels_escape_backslashes_like_every_other_dot_string() {
    let ran = Test::new()
        .file(
            "r.yaml",
            r#"apiVersion: protoflow/v1
kind: Recipe
name: slashes
inputs:
  path: {type: string, default: 'a\b'}
steps:
  - id: a
    tool: echo
    when: 'inputs.path == "a\\N" or inputs.path.endswith("\\")'
    with: {message: hi}
"#,
        )
        .args(["graph", "r.yaml", "--format", "dot"])
        .status(0)
        .run();
    // Graphviz reads `\N` in a label as "the node's name" and `\"` as a quote: a
    // backslash from the recipe must reach the label doubled.
    assert!(
        ran.stdout
            .contains(r#"when inputs.path == \"a\\\\N\" or inputs.path.endswith(\"\\\\\")"#),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains(r#"[label="a\ntool: echo\nwhen "#),
        "{}",
        ran.stdout
    );
}
