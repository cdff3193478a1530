//! Faults: hung steps, cancellation in the middle of a fan-out, two runs at once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use indexmap::IndexMap;
use protoflow_engine::events::{Event, EventListener, RunStatus};
use protoflow_engine::graph::{Executor, ExecutorConfig, RunOptions};
use protoflow_engine::store::Store;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::exec_support::{Project, plan, sh, step_reason, step_status};

/// Whether a process is gone (or a zombie waiting for its parent).
fn is_dead(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

fn read_pid(path: std::path::PathBuf) -> i32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn a_step_hanging_past_its_timeout_is_killed_with_its_group_and_the_run_is_degraded() {
    let project = Project::new();
    let (report, _) = project
        .run(plan(json!({
            "steps": [
                {"id": "hang", "tool": "execute_command", "timeout": "500ms",
                 "with": {"argv": sh("echo $$ > leader.pid; sleep 60 & echo $! > child.pid; wait")}},
                {"id": "after_hang", "tool": "echo", "needs": ["hang"], "with": {"value": 1}},
                {"id": "other", "tool": "execute_command", "with": {"argv": ["true"]}}
            ]
        })))
        .await;
    assert_eq!(report.status, RunStatus::Degraded, "{:?}", report.problems);
    assert_eq!(step_status(&report, "hang"), "timed_out");
    assert!(step_reason(&report, "hang").contains("timed out after 500ms"));
    assert_eq!(step_status(&report, "other"), "succeeded");
    assert_eq!(step_status(&report, "after_hang"), "skipped");
    assert_eq!(report.timed_out, vec!["hang".to_string()]);
    // The whole process group is gone: the shell and the background sleep.
    assert!(is_dead(read_pid(project.root().join("leader.pid"))));
    assert!(is_dead(read_pid(project.root().join("child.pid"))));
}

/// Cancels the run once `count` instances of a step have started.
struct CancelAfter {
    prefix: String,
    count: usize,
    seen: AtomicUsize,
    token: CancellationToken,
}

impl EventListener for CancelAfter {
    fn on_event(&self, event: &Event) {
        let value = serde_json::to_value(event).unwrap();
        if value["type"] == "step.started"
            && value["step"].as_str().unwrap().starts_with(&self.prefix)
            && self.seen.fetch_add(1, Ordering::SeqCst) + 1 == self.count
        {
            self.token.cancel();
        }
    }
}

#[tokio::test]
async fn cancellation_in_the_middle_of_a_fan_out_stops_instances_and_records_canceled() {
    let project = Project::new();
    let token = CancellationToken::new();
    let canceler = Arc::new(CancelAfter {
        prefix: "verify[".into(),
        count: 2,
        seen: AtomicUsize::new(0),
        token: token.clone(),
    });
    let options = RunOptions {
        cancel: token,
        listeners: vec![canceler],
        ..RunOptions::default()
    };
    let (report, events) = project
        .run_with(
            plan(json!({
                "limits": {"concurrency": 2},
                "steps": [
                    {"id": "find", "tool": "echo", "with": {"value": [1, 2, 3, 4, 5, 6]}},
                    {"id": "verify", "tool": "execute_command", "needs": ["find"],
                     "foreach": "steps.find.output.value",
                     "with": {"argv": sh("echo $$ > pid{{ index }}; sleep 60")}},
                    {"id": "after", "tool": "echo", "needs": ["verify"], "with": {"value": 1}}
                ]
            })),
            IndexMap::new(),
            options,
        )
        .await;
    assert_eq!(report.status, RunStatus::Canceled);
    assert_eq!(
        step_status(&report, "find"),
        "succeeded",
        "completed work is kept"
    );
    let canceled = report
        .steps
        .iter()
        .filter(|s| s.status.to_string() == "canceled")
        .count();
    let not_run = report
        .steps
        .iter()
        .filter(|s| s.status.to_string() == "not_run")
        .count();
    assert!(canceled >= 2, "the running instances were stopped");
    assert!(
        not_run >= 1,
        "queued instances and later steps never started"
    );
    assert_eq!(step_status(&report, "after"), "not_run");
    assert!(events.types().contains(&"run.finished".to_string()));
    assert_eq!(
        project.store.run(&report.run_id).unwrap().status,
        RunStatus::Canceled
    );
    for entry in std::fs::read_dir(project.root()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        // A shell canceled between creating its pid file and writing it leaves it empty.
        let text = std::fs::read_to_string(project.root().join(&name)).unwrap_or_default();
        if name.starts_with("pid") && !text.trim().is_empty() {
            assert!(is_dead(text.trim().parse().unwrap()), "{name} still runs");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_runs_at_once_on_the_same_store_both_complete_intact() {
    let project = Project::new();
    let root = project.root();
    let recipe = json!({
        "limits": {"concurrency": 8},
        "steps": [
            {"id": "list", "tool": "echo", "with": {"value": (0..40).collect::<Vec<_>>()}},
            {"id": "each", "tool": "echo", "needs": ["list"], "foreach": "steps.list.output.value",
             "with": {"value": "{{ item * 2 }}"}}
        ]
    });
    // A second executor with its own connection, as a second process would have.
    let other = Executor::new(ExecutorConfig::new(
        Store::open_project(&root).unwrap(),
        root.clone(),
    ));
    let (first, second) = tokio::join!(
        project
            .executor
            .run(plan(recipe.clone()), IndexMap::new(), RunOptions::default()),
        other.run(plan(recipe), IndexMap::new(), RunOptions::default()),
    );
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(first.status, RunStatus::Succeeded);
    assert_eq!(second.status, RunStatus::Succeeded);
    assert_ne!(first.run_id, second.run_id);
    for report in [&first, &second] {
        let events = project.store.events(&report.run_id).unwrap();
        let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=events.len() as u64).collect::<Vec<_>>());
        assert_eq!(project.store.steps(&report.run_id).unwrap().len(), 42);
    }
    assert_eq!(project.store.integrity_check().unwrap(), "ok");
}
