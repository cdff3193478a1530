//! The run store: a real SQLite file under the project, secured, migrated, shared.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;

use protoflow_engine::events::{Event, EventKind, RunStatus, StepStatus};
use protoflow_engine::store::{NewRun, StepRecord, Store};
use serde_json::json;

fn new_run(id: &str) -> NewRun {
    NewRun {
        id: id.into(),
        recipe_name: "demo".into(),
        recipe_origin: "recipes/demo.yaml".into(),
        recipe_document: json!({"name": "demo"}),
        inputs: json!({"n": 1}),
        project_root: "/tmp/p".into(),
        started_at_ms: 1,
    }
}

#[test]
fn the_store_lives_in_a_private_directory_of_the_project() {
    let project = tempfile::tempdir().unwrap();
    let store = Store::open_project(project.path()).unwrap();
    let dir = project.path().join(".protoflow");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("protoflow.db")), 0o600);
    store.create_run(&new_run("r1")).unwrap();
    let wal = dir.join("protoflow.db-wal");
    assert!(wal.exists(), "the store runs in WAL mode");
    assert_eq!(mode(&wal), 0o600);
}

#[test]
fn runs_steps_events_and_receipts_round_trip() {
    let project = tempfile::tempdir().unwrap();
    let store = Store::open_project(project.path()).unwrap();
    store.create_run(&new_run("r1")).unwrap();
    let step = StepRecord {
        key: "verify[0]".into(),
        node: "verify".into(),
        item_index: Some(0),
        status: StepStatus::Succeeded,
        attempts: 1,
        started_at_ms: Some(2),
        finished_at_ms: Some(3),
        output: Some(json!({"ok": true})),
        error: None,
        effects_uncertain: false,
    };
    store.put_step("r1", &step).unwrap();
    store
        .append_event(&Event {
            seq: 1,
            run_id: "r1".into(),
            at_ms: 2,
            kind: EventKind::StepSkipped {
                step: "x".into(),
                reason: "when was false".into(),
                status: StepStatus::Skipped,
            },
        })
        .unwrap();
    store
        .finish_run("r1", RunStatus::Degraded, 9, &json!({"status": "degraded"}))
        .unwrap();

    // A second handle (as another process would open it) sees everything.
    let again = Store::open_project(project.path()).unwrap();
    let run = again.run("r1").unwrap();
    assert_eq!(run.status, RunStatus::Degraded);
    assert_eq!(run.inputs, json!({"n": 1}));
    assert_eq!(run.report, Some(json!({"status": "degraded"})));
    assert_eq!(again.steps("r1").unwrap(), vec![step]);
    assert_eq!(again.events("r1").unwrap().len(), 1);
    assert_eq!(again.last_seq("r1").unwrap(), 1);
    assert_eq!(again.runs(10).unwrap().len(), 1);
    assert!(matches!(
        again.run("nope"),
        Err(protoflow_engine::store::StoreError::UnknownRun(_))
    ));
}

#[test]
fn many_writers_on_one_store_file_wait_for_each_other_instead_of_failing() {
    let project = tempfile::tempdir().unwrap();
    Store::open_project(project.path()).unwrap();
    std::thread::scope(|scope| {
        for writer in 0..4 {
            let root = project.path().to_path_buf();
            scope.spawn(move || {
                // Each thread has its own connection, like separate processes.
                let store = Store::open_project(&root).unwrap();
                let run = format!("run{writer}");
                store.create_run(&new_run(&run)).unwrap();
                for seq in 1..=50 {
                    store
                        .append_event(&Event {
                            seq,
                            run_id: run.clone(),
                            at_ms: seq,
                            kind: EventKind::RunCanceling {
                                reason: "test".into(),
                            },
                        })
                        .unwrap();
                }
            });
        }
    });
    let store = Store::open_project(project.path()).unwrap();
    assert_eq!(store.runs(10).unwrap().len(), 4);
    for writer in 0..4 {
        assert_eq!(store.last_seq(&format!("run{writer}")).unwrap(), 50);
    }
    assert_eq!(store.integrity_check().unwrap(), "ok");
}
