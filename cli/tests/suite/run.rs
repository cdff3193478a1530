//! End to end through the real binary: `protoflow run`, `runs`, `report`, `resume`,
//! with real processes, a real store, signals and exit codes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use protoflow_engine::events::RunStatus;
use protoflow_engine::store::Store;
use serde_json::{Value, json};

const DEMO: &str = r#"apiVersion: protoflow/v1
kind: Recipe
name: demo
inputs:
  items:
    type: array
    default: ["a", "b", "c"]
  deep:
    type: boolean
    default: false
limits:
  concurrency: 2
steps:
  - id: find
    tool: echo
    with:
      value: "{{ inputs.items }}"
    output:
      schema:
        type: object
        required: [value]
        properties: {value: {type: array, items: {type: string}}}
  - id: verify
    tool: execute_command
    needs: [find]
    foreach: steps.find.output.value
    as: finding
    with:
      argv: ["sh", "-c", "echo 'checked {{ finding }}: {\"item\": \"{{ finding }}\", \"ok\": true}'"]
    output:
      schema: {type: object, required: [item, ok]}
  - id: deep_check
    tool: echo
    needs: [verify]
    when: inputs.deep
    with:
      value: deep
  - id: edit
    tool: execute_command
    needs: [verify]
    with:
      argv: ["sh", "-c", "echo edit >> edits.log"]
  - id: check
    tool: execute_command
    needs: [edit]
    with:
      argv: ["sh", "-c", "test $(wc -l < edits.log) -ge 2"]
    loop:
      to: edit
      when: "steps.check.status == 'failed'"
      max: 2
outputs:
  verified: "steps.verify.output | map(attribute='item') | list"
"#;

fn protoflow(project: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_protoflow"));
    cmd.current_dir(project).stdin(Stdio::null());
    cmd
}

fn last_run(project: &Path) -> String {
    let out = protoflow(project)
        .args(["runs", "--json"])
        .output()
        .unwrap();
    let runs: Value = serde_json::from_slice(&out.stdout).unwrap();
    runs[0]["id"].as_str().unwrap().to_string()
}

#[test]
fn a_recipe_with_fan_out_a_condition_a_loop_and_a_typed_output_runs_end_to_end() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("demo.yaml"), DEMO).unwrap();
    let out = protoflow(project.path())
        .args([
            "run",
            "demo.yaml",
            "--input",
            r#"items=["x","y","z","w"]"#,
            "--json",
            "--events",
            "events.jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "succeeded");
    assert_eq!(report["outputs"]["verified"], json!(["x", "y", "z", "w"]));
    assert_eq!(report["loops"][0]["taken"], 1);
    assert_eq!(report["skipped"], json!(["deep_check"]));
    let events: Vec<Value> = std::fs::read_to_string(project.path().join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.first().unwrap()["type"], "run.started");
    assert_eq!(events.last().unwrap()["type"], "run.finished");
    assert!(events.iter().any(|e| e["type"] == "loop.taken"));
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "fanout.expanded" && e["items"] == 4)
    );
    let run_id = report["run_id"].as_str().unwrap();
    let store = Store::open_project(&project.path().canonicalize().unwrap()).unwrap();
    assert_eq!(store.run(run_id).unwrap().status, RunStatus::Succeeded);
    assert_eq!(store.events(run_id).unwrap().len(), events.len());

    let md = protoflow(project.path())
        .args(["report", run_id, "--markdown"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&md.stdout).contains("| `verify[3]` | succeeded"));
    let runs = protoflow(project.path()).arg("runs").output().unwrap();
    assert!(String::from_utf8_lossy(&runs.stdout).contains(run_id));
}

#[test]
fn exit_codes_say_how_the_run_ended() {
    let project = tempfile::tempdir().unwrap();
    let write = |name: &str, steps: &str, limits: &str| {
        std::fs::write(
            project.path().join(name),
            format!("apiVersion: protoflow/v1\nkind: Recipe\nname: x\n{limits}steps:\n{steps}"),
        )
        .unwrap();
    };
    write(
        "fail.yaml",
        "  - id: a\n    tool: execute_command\n    with: {argv: [\"false\"]}\n",
        "",
    );
    write(
        "budget.yaml",
        "  - id: a\n    tool: echo\n    with: {value: 1}\n  - id: b\n    tool: echo\n    needs: [a]\n    with: {value: 2}\n",
        "limits: {tool_calls: 1}\n",
    );
    let code = |args: &[&str]| {
        protoflow(project.path())
            .args(args)
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(code(&["run", "fail.yaml", "-q"]), Some(1));
    assert_eq!(code(&["run", "budget.yaml", "-q"]), Some(3));
    assert_eq!(code(&["run", "missing.yaml"]), Some(2));
    assert_eq!(code(&["run", "fail.yaml", "--input", "nope=1"]), Some(2));
    assert_eq!(code(&["report", "no-such-run"]), Some(2));
}

#[test]
fn sigint_in_the_middle_of_a_fan_out_cancels_the_run_and_kills_its_processes() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("hang.yaml"),
        "apiVersion: protoflow/v1\nkind: Recipe\nname: hang\nsteps:\n  - id: list\n    tool: echo\n    with: {value: [1, 2, 3, 4, 5, 6]}\n    output: {schema: {type: object, properties: {value: {type: array}}}}\n  - id: work\n    tool: execute_command\n    needs: [list]\n    foreach: steps.list.output.value\n    with: {argv: [\"sh\", \"-c\", \"echo $$ > pid{{ index }}; sleep 60\"], timeout_seconds: 300}\n",
    )
    .unwrap();
    let child = protoflow(project.path())
        .args(["run", "hang.yaml", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !project.path().join("pid0").exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(5));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "canceled");
    assert_eq!(report["steps"][0]["status"], "succeeded");
    for entry in std::fs::read_dir(project.path()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(index) = name.strip_prefix("pid") {
            let pid = std::fs::read_to_string(project.path().join(&name)).unwrap();
            let stat =
                std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
            let state = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .chars()
                .next();
            assert!(
                stat.is_empty() || state == Some('Z'),
                "work[{index}] still runs"
            );
        }
    }
}

#[test]
fn a_run_killed_with_sigkill_is_resumed_without_re_running_completed_steps() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("kill.yaml"),
        "apiVersion: protoflow/v1\nkind: Recipe\nname: kill\nsteps:\n  - id: first\n    tool: execute_command\n    with: {argv: [\"sh\", \"-c\", \"echo ran >> first.log\"]}\n  - id: second\n    tool: execute_command\n    needs: [first]\n    with: {argv: [\"sh\", \"-c\", \"echo $$ > second.pid; echo ran >> second.log; test -f release || sleep 60\"], timeout_seconds: 300}\n  - id: third\n    tool: echo\n    needs: [second]\n    with: {value: done}\n",
    )
    .unwrap();
    let mut child = protoflow(project.path())
        .args(["run", "kill.yaml", "-q"])
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !project.path().join("second.log").exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: nothing gets to clean up
    child.wait().unwrap();
    let lines = |f: &str| {
        std::fs::read_to_string(project.path().join(f))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    // SIGKILL leaves the step's own process group running (nothing could stop it);
    // stop it here so the test leaves nothing behind.
    let pgid = std::fs::read_to_string(project.path().join("second.pid")).unwrap();
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", pgid.trim())])
        .status();
    let run_id = last_run(project.path());
    let listed = protoflow(project.path()).args(["runs"]).output().unwrap();
    let listing = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with(&run_id) && l.contains("interrupted")),
        "a run whose process died is listed as interrupted:\n{listing}"
    );

    let out = protoflow(project.path())
        .args(["resume", &run_id, "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "interrupted mid-effect: incomplete"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["interrupted"], json!(["second"]));
    assert_eq!((lines("first.log"), lines("second.log")), (1, 1));

    std::fs::write(project.path().join("release"), "").unwrap();
    let out = protoflow(project.path())
        .args(["resume", &run_id, "--replay", "second", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!((lines("first.log"), lines("second.log")), (1, 2));
    let store = Store::open_project(&project.path().canonicalize().unwrap()).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    assert_eq!(store.run(&run_id).unwrap().status, RunStatus::Succeeded);
}
