//! Checkpoints and undo: every write stores its preimage; undo restores it after
//! showing the reverse diff, and refuses (without effect) when the file changed since.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;

use protoflow_engine::evidence::revision_of;
use protoflow_engine::tools::fs::{
    ChangeStatus, CheckpointError, CreateFile, EditFile, apply_undo, plan_undo,
};
use serde_json::json;

use super::tools_common::{Project, call};

#[tokio::test]
async fn edit_then_checkpoint_then_undo_restores_content_and_mode() {
    let p = Project::with_checkpoints();
    p.write("src/main.rs", "fn main() {\n    println!(\"one\");\n}\n");
    std::fs::set_permissions(
        p.path("src/main.rs"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    let before = p.read("src/main.rs");
    let out = call(
        &EditFile,
        &p.ctx,
        json!({"path": "src/main.rs", "old": "one", "new": "two", "expected_revision": revision_of(&before)}),
    )
    .await
    .unwrap();
    let change_id = out.value["change_id"].as_i64().unwrap();
    assert_eq!(out.facts.detail["change_id"], change_id);

    let store = p.ctx.checkpoints.clone().unwrap();
    let listed = store.list(10).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, change_id);
    assert_eq!(listed[0].path, "src/main.rs");
    assert_eq!(listed[0].tool, "edit_file");
    assert_eq!(listed[0].status, ChangeStatus::Applied);
    assert_eq!(
        listed[0].revision_before.as_deref(),
        Some(revision_of(&before).as_str())
    );
    assert_eq!(
        listed[0].revision_after.as_deref(),
        Some(revision_of(&p.read("src/main.rs")).as_str())
    );

    let plan = plan_undo(&store, p.root(), None).unwrap();
    assert_eq!(plan.change.id, change_id);
    assert!(
        plan.reverse_diff
            .contains("-    println!(\"two\");\n+    println!(\"one\");"),
        "{}",
        plan.reverse_diff
    );
    apply_undo(&store, p.root(), &plan).unwrap();
    assert_eq!(p.read("src/main.rs"), before);
    let mode = std::fs::metadata(p.path("src/main.rs"))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777;
    assert_eq!(mode, 0o640);
    assert_eq!(store.get(change_id).unwrap().status, ChangeStatus::Undone);

    let again = plan_undo(&store, p.root(), Some(change_id));
    assert!(
        matches!(again, Err(CheckpointError::NotUndoable { .. })),
        "{again:?}"
    );
}

#[tokio::test]
async fn undoing_a_creation_removes_the_file() {
    let p = Project::with_checkpoints();
    let out = call(
        &CreateFile,
        &p.ctx,
        json!({"path": "new.txt", "content": "fresh\n"}),
    )
    .await
    .unwrap();
    let id = out.value["change_id"].as_i64().unwrap();
    let store = p.ctx.checkpoints.clone().unwrap();
    let plan = plan_undo(&store, p.root(), Some(id)).unwrap();
    assert!(plan.deletes);
    apply_undo(&store, p.root(), &plan).unwrap();
    assert!(!p.path("new.txt").exists());
}

#[tokio::test]
async fn undo_after_someone_else_changed_the_file_is_a_conflict_without_effect() {
    let p = Project::with_checkpoints();
    p.write("a.txt", "one\n");
    let out = call(&EditFile, &p.ctx, json!({"path": "a.txt", "old": "one", "new": "two", "expected_revision": revision_of(b"one\n")}))
        .await
        .unwrap();
    let id = out.value["change_id"].as_i64().unwrap();
    let store = p.ctx.checkpoints.clone().unwrap();

    // Changed between the write and the undo plan.
    p.write("a.txt", "two, then edited by hand\n");
    let planned = plan_undo(&store, p.root(), Some(id));
    assert!(
        matches!(planned, Err(CheckpointError::Conflict { .. })),
        "{planned:?}"
    );
    assert_eq!(p.read("a.txt"), b"two, then edited by hand\n");

    // Changed between the plan (shown to the user) and applying it.
    p.write("a.txt", "two\n");
    let plan = plan_undo(&store, p.root(), Some(id)).unwrap();
    p.write("a.txt", "two, edited again\n");
    let applied = apply_undo(&store, p.root(), &plan);
    assert!(
        matches!(applied, Err(CheckpointError::Conflict { .. })),
        "{applied:?}"
    );
    assert_eq!(p.read("a.txt"), b"two, edited again\n");
    assert_eq!(store.get(id).unwrap().status, ChangeStatus::Applied);
}

#[tokio::test]
async fn a_rejected_write_records_no_checkpoint() {
    let p = Project::with_checkpoints();
    p.write("a.txt", "x\nx\n");
    let result = call(&EditFile, &p.ctx, json!({"path": "a.txt", "old": "x", "new": "y", "expected_revision": revision_of(b"x\nx\n")})).await;
    assert!(result.is_err());
    assert!(
        p.ctx
            .checkpoints
            .clone()
            .unwrap()
            .list(10)
            .unwrap()
            .is_empty()
    );
}
