//! A run whose process dies mid-run is resumed from the store: completed steps are
//! kept and not re-run; a step interrupted mid-effect is reported and not replayed
//! unless asked; the store is not corrupted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use indexmap::IndexMap;
use protoflow_engine::events::{Event, EventListener, RunStatus};
use protoflow_engine::graph::{Executor, ExecutorConfig, ResumeOptions, RunOptions};
use protoflow_engine::store::{RunRecord, Store};
use serde_json::json;

use super::exec_support::{plan, plan_from_document, sh, step_status};

struct Notify(Mutex<Option<std::sync::mpsc::Sender<String>>>);

impl EventListener for Notify {
    fn on_event(&self, event: &Event) {
        let value = serde_json::to_value(event).unwrap();
        if value["type"] == "step.started"
            && value["step"] == "second"
            && let Some(tx) = self.0.lock().unwrap().take()
        {
            tx.send(event.run_id.clone()).unwrap();
        }
    }
}

fn rebuild(record: &RunRecord) -> Result<protoflow_engine::graph::Plan, String> {
    let document =
        serde_json::from_value(record.recipe_document.clone()).map_err(|e| e.to_string())?;
    Ok(plan_from_document(document))
}

fn lines(path: std::path::PathBuf) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn a_run_killed_mid_run_resumes_keeping_completed_steps_and_never_replaying_uncertain_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let recipe = plan(json!({
        "steps": [
            {"id": "first", "tool": "execute_command", "with": {"argv": sh("echo ran >> first.log")}},
            {"id": "side", "tool": "echo", "with": {"value": "side"}},
            {"id": "second", "tool": "execute_command", "needs": ["first"],
             "with": {"argv": sh("echo ran >> second.log; test -f release || sleep 60")}},
            {"id": "third", "tool": "echo", "needs": ["second", "side"],
             "with": {"value": "{{ steps.side.output.value }} after second"}}
        ]
    }));

    // The first process: runs until `second` has started, then dies abruptly (its
    // runtime is torn down mid-step; nothing gets to record an ending).
    let (tx, rx) = std::sync::mpsc::channel();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    {
        let root = root.clone();
        let executor = Executor::new(ExecutorConfig::new(
            Store::open_project(&root).unwrap(),
            root,
        ));
        let options = RunOptions {
            listeners: vec![Arc::new(Notify(Mutex::new(Some(tx))))],
            ..RunOptions::default()
        };
        runtime.spawn(async move {
            let _ = executor.run(recipe, IndexMap::new(), options).await;
        });
    }
    let run_id = rx.recv_timeout(Duration::from_secs(30)).unwrap();
    for _ in 0..500 {
        if lines(root.join("second.log")) == 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    runtime.shutdown_timeout(Duration::from_millis(0));

    // The store is intact and says the run was running.
    let store = Store::open_project(&root).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    assert_eq!(store.run(&run_id).unwrap().status, RunStatus::Running);
    assert_eq!(lines(root.join("first.log")), 1);

    // Resume in a "new process": first is reused; second was running a command,
    // so its effects are uncertain and it is not replayed.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let executor = Executor::new(ExecutorConfig::new(store.clone(), root.clone()));
    let report = runtime
        .block_on(executor.resume(&run_id, rebuild, ResumeOptions::default()))
        .unwrap();
    assert_eq!(report.status, RunStatus::Failed);
    assert_eq!(step_status(&report, "first"), "succeeded");
    assert!(
        report
            .steps
            .iter()
            .find(|s| s.key == "first")
            .unwrap()
            .reused
    );
    assert_eq!(step_status(&report, "second"), "interrupted");
    let second = report.steps.iter().find(|s| s.key == "second").unwrap();
    assert!(second.effects_uncertain);
    assert!(
        second
            .reason
            .as_deref()
            .unwrap()
            .contains("--replay second")
    );
    assert_eq!(step_status(&report, "third"), "skipped");
    assert_eq!(report.interrupted, vec!["second".to_string()]);
    assert_eq!(
        lines(root.join("first.log")),
        1,
        "completed steps are not re-run"
    );
    assert_eq!(
        lines(root.join("second.log")),
        1,
        "uncertain steps are not replayed"
    );
    let types: Vec<String> = store
        .events(&run_id)
        .unwrap()
        .iter()
        .map(|e| e.kind.type_name().to_string())
        .collect();
    assert!(types.contains(&"run.resumed".to_string()));
    assert!(types.contains(&"step.interrupted".to_string()));

    // Asked explicitly, the interrupted step runs again and the run completes,
    // still without re-running what had completed.
    std::fs::write(root.join("release"), "").unwrap();
    let options = ResumeOptions {
        replay: vec!["second".into()],
        ..ResumeOptions::default()
    };
    let report = runtime
        .block_on(executor.resume(&run_id, rebuild, options))
        .unwrap();
    assert_eq!(report.status, RunStatus::Succeeded, "{:?}", report.problems);
    assert_eq!(lines(root.join("first.log")), 1);
    assert_eq!(lines(root.join("second.log")), 2);
    assert_eq!(
        report
            .steps
            .iter()
            .find(|s| s.key == "third")
            .unwrap()
            .output,
        json!({"value": "side after second"})
    );
    let run = store.run(&run_id).unwrap();
    assert_eq!(run.status, RunStatus::Succeeded);
    assert_eq!(run.executions, 3);
    let seqs: Vec<u64> = store
        .events(&run_id)
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "one gapless log"
    );
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

#[test]
fn a_resumed_run_keeps_what_earlier_executions_spent_of_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // Three tool calls are allowed in all: the first execution spends two (one
    // echo, one failing command), so the resumed execution may make only one more.
    let recipe = plan(json!({
        "limits": {"tool_calls": 3},
        "steps": [
            {"id": "a", "tool": "echo", "with": {"value": 1}},
            {"id": "gate", "tool": "execute_command", "needs": ["a"],
             "with": {"argv": sh("test -f release")}},
            {"id": "b", "tool": "echo", "needs": ["gate"], "with": {"value": 2}},
            {"id": "c", "tool": "echo", "needs": ["b"], "with": {"value": 3}}
        ]
    }));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let store = Store::open_project(&root).unwrap();
    let executor = Executor::new(ExecutorConfig::new(store, root.clone()));
    let first = runtime
        .block_on(executor.run(recipe, IndexMap::new(), RunOptions::default()))
        .unwrap();
    assert_eq!(first.status, RunStatus::Failed);
    assert_eq!(first.budget.used.tool_calls, 2);

    std::fs::write(root.join("release"), "").unwrap();
    let resumed = runtime
        .block_on(executor.resume(&first.run_id, rebuild, ResumeOptions::default()))
        .unwrap();
    // gate (again) is the third call; b would be the fourth: refused.
    assert_eq!(resumed.status, RunStatus::BudgetExhausted, "{resumed:#?}");
    assert_eq!(resumed.budget.used.tool_calls, 3);
}
