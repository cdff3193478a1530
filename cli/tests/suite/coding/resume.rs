//! A coding run killed mid-edit and resumed: the task state (the frozen plan, its
//! selected checks, the files' originals, the ledger) is rebuilt from the run's
//! stored receipts, so the resumed run works within the same plan and its verdict
//! counts the evidence of both executions.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use protoflow_engine::evidence::ReceiptStatus;
use protoflow_engine::store::Store;
use serde_json::{Value, json};

use super::fixtures::*;

/// The binary in `dir`, isolated like the harness does it.
fn protoflow(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_protoflow"));
    cmd.current_dir(dir)
        .stdin(Stdio::null())
        .env("XDG_CONFIG_HOME", dir.join(".xdg-config"))
        .env("HOME", dir)
        .env("NO_COLOR", "1");
    for var in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "OLLAMA_HOST",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

fn script(dir: &Path, name: &str, turns: Vec<Value>) {
    let text = serde_json::to_string_pretty(&json!({ "turns": turns })).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn a_run_killed_after_the_plan_and_the_first_write_resumes_within_the_frozen_plan() {
    let test = python_project(BUGGY_CALC);
    let dir = test.path().to_path_buf();
    // First execution: plan, then the coder writes a wrong fix and stalls.
    let mut first = plan_calc();
    first.extend(vec![
        expecting(
            call(
                "coder",
                json!({"task": "In calc.py, make add return the sum."}),
            ),
            "Task record",
        ),
        call(
            "edit_file",
            json!({"path": "calc.py", "old": "return a - b", "new": "return a + b + 1",
                   "expected_revision": rev(BUGGY_CALC)}),
        ),
        json!({"delay_ms": 120_000, "text": "still thinking"}),
    ]);
    script(&dir, "first.json", first);
    let mut child = protoflow(&dir)
        .args([
            "run",
            "coding",
            "--provider",
            "scripted:first.json",
            "--approve",
            "writes",
            "--events",
            "events.jsonl",
            "-q",
            "--input",
            "task=Fix add in calc.py",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let written = || {
        std::fs::read_to_string(dir.join("events.jsonl"))
            .is_ok_and(|t| t.contains(r#""tool":"edit_file""#))
    };
    while !written() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(written(), "the first write never happened");
    child.kill().unwrap(); // SIGKILL: the process dies mid-edit
    child.wait().unwrap();
    assert_eq!(read_at(&dir, "calc.py"), WRONG_CALC);
    let store = Store::open_project(&dir.canonicalize().unwrap()).unwrap();
    let run_id = store.runs(1).unwrap()[0].id.clone();

    // Second execution: the edit step is replayed in a new process. The task
    // record it sees is the frozen plan; dropping the checks is refused.
    let second = vec![
        expecting(
            call("plan_task", json!({"check_ids": []})),
            "frozen since the first write (`calc.py`)",
        ),
        expecting(
            call("coder", json!({"task": "In calc.py, remove the `+ 1`."})),
            "the plan is frozen",
        ),
        expecting(
            call(
                "edit_file",
                json!({"path": "calc.py", "old": "return a + b + 1", "new": "return a + b",
                       "expected_revision": rev(WRONG_CALC)}),
            ),
            "Write paths: calc.py",
        ),
        call(
            "report_task",
            json!({"status": "done", "summary": "add returns the sum"}),
        ),
        say("Edited."),
        say("The coder fixed add."),
    ];
    script(&dir, "second.json", second);
    let out = protoflow(&dir)
        .args([
            "resume",
            &run_id,
            "--replay",
            "edit",
            "--provider",
            "scripted:second.json",
            "--approve",
            "writes",
            "--json",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a JSON report ({e}): {stderr}"));
    assert_eq!(out.status.code(), Some(0), "{report:#}\n{stderr}");
    let c = completion(&report);
    assert_eq!(c["status"], "satisfied", "{c:#}");
    assert_eq!(c["verification"], "passed");
    assert_eq!(
        c["selected_checks"],
        json!([PY_CHECK]),
        "the checks were kept"
    );
    assert_eq!(counted(c), vec!["python:unittest:passed"]);
    // Evidence of the first execution counts: its baseline and its first write.
    // (The baseline step, failed-but-allowed, is evaluated again on resume: the
    // rebuilt task refuses it, the project having changed since.)
    let baseline: Vec<&Value> = c["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["phase"] == "baseline")
        .collect();
    assert_eq!(baseline[0]["status"], "failed", "{c:#}");
    assert_eq!(baseline[0]["counted"], false);
    assert!(
        baseline[1..].iter().all(|k| k["status"] == "denied"),
        "{c:#}"
    );
    assert!(
        c["denied"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["tool"] == "run_check" && d["by"] == "task"),
        "{c:#}"
    );
    let file = &c["files"][0];
    assert_eq!(file["path"], "calc.py");
    assert_eq!(file["revision_before"], json!(rev(BUGGY_CALC)));
    let diff = file["diff"].as_str().unwrap();
    assert!(
        diff.contains("-    return a - b") && diff.contains("+    return a + b"),
        "the diff is against the file before the run: {diff}"
    );
    assert_eq!(read_at(&dir, "calc.py"), FIXED_CALC);
    let refused = store
        .receipts(&run_id)
        .unwrap()
        .into_iter()
        .find(|(_, r)| r.tool == "plan_task" && r.status == ReceiptStatus::Rejected)
        .expect("the attempt to drop the checks was refused");
    assert!(
        refused.1.reason.unwrap_or_default().contains("frozen"),
        "refused because the plan is frozen"
    );
}

fn read_at(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).unwrap()
}
