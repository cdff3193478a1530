//! The task's rules through its handle, with receipts as tools would produce them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::{PlanRequest, TaskHandle};
use crate::evidence::completion::{Next, Verification};
use crate::evidence::{Receipt, ReceiptFacts, ReceiptStatus, revision_of};
use crate::policy::{Capability, Phase};

fn receipt(
    tool: &str,
    phase: Phase,
    status: ReceiptStatus,
    args: Value,
    facts: ReceiptFacts,
) -> Receipt {
    Receipt {
        tool: tool.into(),
        args,
        capability: Some(Capability::FilesystemWrite),
        phase,
        status,
        reason: None,
        started_at_ms: 0,
        duration_ms: 0,
        facts,
    }
}

fn write(task: &TaskHandle, root: &std::path::Path, path: &str, content: &str) {
    let before = std::fs::read(root.join(path)).ok().map(|b| revision_of(&b));
    task.permits("replace_file", &json!({"path": path}), Phase::Edit)
        .unwrap();
    std::fs::write(root.join(path), content).unwrap();
    let facts = ReceiptFacts {
        path: Some(path.into()),
        revision_before: before,
        revision_after: Some(revision_of(content.as_bytes())),
        ..ReceiptFacts::default()
    };
    task.observe(
        "edit/worker#1",
        &receipt(
            "replace_file",
            Phase::Edit,
            ReceiptStatus::Executed,
            json!({"path": path}),
            facts,
        ),
        None,
    );
}

fn final_check(task: &TaskHandle, status: ReceiptStatus, outcome: &str) {
    let facts = ReceiptFacts {
        exit_code: Some(if outcome == "passed" { 0 } else { 1 }),
        detail: json!({"check_id": "unit", "phase": "verify", "status": outcome, "tests_executed": 3}),
        ..ReceiptFacts::default()
    };
    task.observe(
        "verify[0]",
        &receipt(
            "run_check",
            Phase::Verify,
            status,
            json!({"check_id": "unit", "phase": "verify"}),
            facts,
        ),
        None,
    );
}

fn unit_check() -> crate::checks::CheckSpec {
    crate::checks::CheckSpec {
        id: "unit".into(),
        argv: vec!["true".into()],
        cwd: ".".into(),
        env: Default::default(),
        paths: crate::checks::DependencyPaths {
            patterns: vec!["**/*.py".into()],
            files: vec![],
            truncated: false,
            limit: 10,
        },
        source: crate::checks::CheckSource::Discovered {
            reason: "test".into(),
        },
        kind: crate::checks::CheckKind::Custom,
        purpose: crate::checks::CheckPurpose::Test,
        description: None,
    }
}

/// A project whose only check is `unit`.
fn with_unit_check(root: &std::path::Path) -> TaskHandle {
    let (checks, _) = crate::checks::CheckSet::from_unique(vec![unit_check()]);
    let discovery = crate::checks::Discovery {
        root: root.to_path_buf(),
        config_file: None,
        checks,
        notes: vec![],
        skipped: vec![],
        walk_truncated: false,
    };
    TaskHandle::new(root.to_path_buf(), Some(std::sync::Arc::new(discovery)), 2)
}

fn planned(dir: &tempfile::TempDir) -> TaskHandle {
    let task = TaskHandle::new(dir.path().to_path_buf(), None, 2);
    task.setup(
        &serde_json::from_value(json!({"request": "{{ inputs.task }}"})).unwrap(),
        &json!({"task": "fix it"}),
    );
    std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
    task.lock().selected = vec!["unit".into()];
    task.lock().plan = Some(super::state::PlanState {
        write_paths: vec!["a.py".into()],
        ..Default::default()
    });
    task
}

#[test]
fn writes_need_a_plan_and_stay_inside_its_paths() {
    let dir = tempfile::tempdir().unwrap();
    let task = TaskHandle::new(dir.path().to_path_buf(), None, 2);
    task.setup(
        &serde_json::from_value(json!({"request": "x"})).unwrap(),
        &json!({}),
    );
    let no_plan = task
        .permits("edit_file", &json!({"path": "a.py"}), Phase::Edit)
        .unwrap_err();
    assert!(no_plan.reason.contains("no plan"), "{no_plan:?}");
    task.plan(PlanRequest {
        paths: Some(vec!["src".into()]),
        ..PlanRequest::default()
    })
    .unwrap();
    assert!(
        task.permits("edit_file", &json!({"path": "src/a.py"}), Phase::Edit)
            .is_ok()
    );
    let outside = task
        .permits("edit_file", &json!({"path": "b.py"}), Phase::Edit)
        .unwrap_err();
    assert!(
        outside.reason.contains("outside the plan's write paths"),
        "{outside:?}"
    );
}

#[test]
fn a_final_check_closes_editing_and_a_completed_failure_opens_one_repair() {
    let dir = tempfile::tempdir().unwrap();
    let task = planned(&dir);
    write(&task, dir.path(), "a.py", "x = 2\n");
    final_check(&task, ReceiptStatus::Executed, "failed");
    let closed = task
        .permits("edit_file", &json!({"path": "a.py"}), Phase::Edit)
        .unwrap_err();
    assert!(closed.reason.contains("editing is closed"), "{closed:?}");
    let verdict = task.completion();
    assert_eq!(verdict.verification, Verification::Failed);
    assert_eq!(verdict.next, Next::Repair);
    assert!(
        task.permits("edit_file", &json!({"path": "a.py"}), Phase::Repair)
            .is_ok()
    );
    assert_eq!(task.record().repairs, (1, 2));
    let frozen = task.plan(PlanRequest {
        check_ids: Some(vec![]),
        ..PlanRequest::default()
    });
    assert!(frozen.is_err(), "checks cannot be dropped after a failure");
}

#[test]
fn a_repair_attempt_counts_even_when_it_writes_nothing_and_the_bound_then_stops() {
    let dir = tempfile::tempdir().unwrap();
    let task = planned(&dir);
    write(&task, dir.path(), "a.py", "x = 2\n");
    final_check(&task, ReceiptStatus::Executed, "failed");
    // Two repair steps start (their models fail, nothing is written), each after a
    // completed failing final check.
    task.enter_repair();
    task.enter_repair(); // the same attempt asking again opens nothing more
    assert_eq!(task.record().repairs, (1, 2));
    final_check(&task, ReceiptStatus::Executed, "failed");
    task.enter_repair();
    assert_eq!(task.record().repairs, (2, 2));
    final_check(&task, ReceiptStatus::Executed, "failed");
    let verdict = task.completion();
    assert_eq!(verdict.next, Next::Stop, "{verdict:#?}");
    assert!(
        verdict.left.iter().any(|l| l.contains("repair")),
        "{:?}",
        verdict.left
    );
}

#[test]
fn a_timed_out_final_check_never_opens_a_repair() {
    let dir = tempfile::tempdir().unwrap();
    let task = planned(&dir);
    write(&task, dir.path(), "a.py", "x = 2\n");
    final_check(&task, ReceiptStatus::TimedOut, "incomplete");
    let verdict = task.completion();
    assert_eq!(verdict.verification, Verification::Unverified);
    assert_eq!(verdict.next, Next::Stop);
    let refused = task
        .permits("edit_file", &json!({"path": "a.py"}), Phase::Repair)
        .unwrap_err();
    assert!(refused.reason.contains("no repair"), "{refused:?}");
}

#[test]
fn a_passing_check_goes_stale_when_a_changed_file_moves_on() {
    let dir = tempfile::tempdir().unwrap();
    let task = planned(&dir);
    write(&task, dir.path(), "a.py", "x = 2\n");
    let snapshot = task.begin_check(&unit_check());
    let facts = ReceiptFacts {
        exit_code: Some(0),
        detail: json!({"check_id": "unit", "phase": "verify", "status": "passed", "tests_executed": 3, "snapshot_id": snapshot}),
        ..ReceiptFacts::default()
    };
    task.observe(
        "verify[0]",
        &receipt(
            "run_check",
            Phase::Verify,
            ReceiptStatus::Executed,
            json!({}),
            facts,
        ),
        None,
    );
    assert_eq!(task.completion().verification, Verification::Passed);
    std::fs::write(dir.path().join("a.py"), "x = 3\n").unwrap();
    let verdict = task.completion();
    assert_eq!(verdict.verification, Verification::Stale);
    assert!(!verdict.applied);
}

#[test]
fn a_rebuild_from_the_stored_receipts_restores_plan_freeze_repairs_and_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let setup = |task: &TaskHandle| {
        task.setup(
            &serde_json::from_value(json!({"request": "{{ inputs.task }}"})).unwrap(),
            &json!({"task": "fix it"}),
        );
    };
    std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
    let live = with_unit_check(dir.path());
    setup(&live);
    let mut stored: Vec<(String, Receipt)> = Vec::new();
    let mut keep = |task: &TaskHandle, step: &str, mut r: Receipt| {
        // What `tools::invoke` stamps on every receipt of an active task.
        let round = task.round_stamp().unwrap();
        if r.facts.detail.is_null() {
            r.facts.detail = json!({});
        }
        r.facts.detail[super::ROUND_KEY] = json!(round);
        task.observe(step, &r, None);
        stored.push((step.to_string(), r));
    };
    let plan_args = json!({"paths": ["a.py"], "criteria": ["x is 3"], "check_ids": ["unit"]});
    live.plan(PlanRequest {
        paths: Some(vec!["a.py".into()]),
        criteria: Some(vec!["x is 3".into()]),
        check_ids: Some(vec!["unit".into()]),
        ..PlanRequest::default()
    })
    .unwrap();
    keep(
        &live,
        "plan",
        receipt(
            "plan_task",
            Phase::Edit,
            ReceiptStatus::Executed,
            plan_args,
            ReceiptFacts::default(),
        ),
    );
    let write_receipt = |phase: Phase, before: &str, after: &str| {
        receipt(
            "replace_file",
            phase,
            ReceiptStatus::Executed,
            json!({"path": "a.py"}),
            ReceiptFacts {
                path: Some("a.py".into()),
                revision_before: Some(revision_of(before.as_bytes())),
                revision_after: Some(revision_of(after.as_bytes())),
                ..ReceiptFacts::default()
            },
        )
    };
    live.permits("replace_file", &json!({"path": "a.py"}), Phase::Edit)
        .unwrap();
    std::fs::write(dir.path().join("a.py"), "x = 2\n").unwrap();
    keep(
        &live,
        "edit/worker#1",
        write_receipt(Phase::Edit, "x = 1\n", "x = 2\n"),
    );
    let failed = receipt(
        "run_check",
        Phase::Verify,
        ReceiptStatus::Executed,
        json!({"check_id": "unit", "phase": "verify"}),
        ReceiptFacts {
            exit_code: Some(1),
            detail: json!({"check_id": "unit", "phase": "verify", "status": "failed",
                           "tests_executed": 3, "output_tail": "AssertionError: 2 != 3"}),
            ..ReceiptFacts::default()
        },
    );
    keep(&live, "verify[0]", failed);
    live.permits("replace_file", &json!({"path": "a.py"}), Phase::Repair)
        .unwrap();
    std::fs::write(dir.path().join("a.py"), "x = 3\n").unwrap();
    keep(
        &live,
        "edit/worker#2",
        write_receipt(Phase::Repair, "x = 2\n", "x = 3\n"),
    );

    let resumed = with_unit_check(dir.path());
    setup(&resumed);
    resumed.rebuild(&stored, None);
    let (a, b) = (live.record(), resumed.record());
    assert_eq!(b.plan, a.plan, "the plan is restored");
    assert_eq!(b.checks.selected, vec!["unit"]);
    assert_eq!(b.frozen_by, a.frozen_by);
    assert_eq!(b.repairs, (1, 2), "the repair round is restored");
    assert_eq!(b.editing, "open", "the repair round reopened editing");
    assert!(
        b.last_failure.as_deref().unwrap().contains("2 != 3"),
        "the measured failure is restored: {b:?}"
    );
    assert!(
        resumed
            .plan(PlanRequest {
                check_ids: Some(vec![]),
                ..PlanRequest::default()
            })
            .is_err(),
        "the plan stays frozen"
    );
    let (va, vb) = (live.completion(), resumed.completion());
    assert_eq!(vb.applied, va.applied);
    assert_eq!(vb.verification, va.verification);
    assert_eq!(vb.repairs, va.repairs);
}
