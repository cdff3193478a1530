//! `invoke`: every call leaves a receipt, whatever stops it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use protoflow_engine::evidence::{ReceiptStatus, revision_of};
use protoflow_engine::policy::{
    ApprovePreset, Authority, Capability, Decision, HeadlessApprover, Phase,
};
use protoflow_engine::tools::{ToolError, ToolRegistry, invoke};
use serde_json::json;

use super::tools_common::{Project, allow_all};

fn reads_and_ask_writes(phase: Phase) -> Authority {
    Authority::new(
        ["read_file", "edit_file", "list_directory"],
        [
            (Capability::WorkspaceRead, Decision::Allow),
            (Capability::FilesystemWrite, Decision::Ask),
        ],
        phase,
    )
}

#[tokio::test]
async fn an_unknown_tool_is_rejected_with_the_allowed_list() {
    let p = Project::new();
    let approver = HeadlessApprover::from_preset(ApprovePreset::All);
    let out = invoke(
        &ToolRegistry::builtin(),
        &p.ctx,
        "delete_everything",
        json!({}),
        &reads_and_ask_writes(Phase::Edit),
        &approver,
    )
    .await;
    assert_eq!(out.receipt.status, ReceiptStatus::Rejected);
    assert_eq!(out.receipt.tool, "delete_everything");
    let reason = out.receipt.reason.unwrap();
    assert!(
        reason.contains("no tool named `delete_everything`"),
        "{reason}"
    );
    assert!(
        reason.contains("edit_file, list_directory, read_file"),
        "{reason}"
    );
    assert!(out.result.is_err());
}

#[tokio::test]
async fn headless_denial_produces_a_denied_receipt_and_no_effect() {
    let p = Project::new();
    p.write("a.txt", "one\n");
    let args = json!({"path": "a.txt", "old": "one", "new": "two", "expected_revision": revision_of(b"one\n")});
    let registry = ToolRegistry::builtin();
    let reads_only = HeadlessApprover::from_preset(ApprovePreset::ReadsOnly);
    let out = invoke(
        &registry,
        &p.ctx,
        "edit_file",
        args.clone(),
        &reads_and_ask_writes(Phase::Edit),
        &reads_only,
    )
    .await;
    assert_eq!(out.receipt.status, ReceiptStatus::Denied);
    assert!(out.receipt.reason.unwrap().contains("reads-only"));
    assert_eq!(out.receipt.capability, Some(Capability::FilesystemWrite));
    assert_eq!(p.read("a.txt"), b"one\n");

    let writes = HeadlessApprover::from_preset(ApprovePreset::Writes);
    let out = invoke(
        &registry,
        &p.ctx,
        "edit_file",
        args,
        &reads_and_ask_writes(Phase::Edit),
        &writes,
    )
    .await;
    assert_eq!(out.receipt.status, ReceiptStatus::Executed);
    assert_eq!(
        out.receipt.facts.revision_after.as_deref(),
        Some(revision_of(b"two\n").as_str())
    );
    assert_eq!(p.read("a.txt"), b"two\n");
}

#[tokio::test]
async fn writes_in_the_verify_phase_are_denied_even_when_allowed() {
    let p = Project::new();
    p.write("a.txt", "one\n");
    let approver = HeadlessApprover::from_preset(ApprovePreset::All);
    let out = invoke(
        &ToolRegistry::builtin(),
        &p.ctx,
        "replace_file",
        json!({"path": "a.txt", "content": "two\n"}),
        &allow_all(Phase::Verify),
        &approver,
    )
    .await;
    assert_eq!(out.receipt.status, ReceiptStatus::Denied);
    assert!(out.receipt.reason.unwrap().contains("verify phase"));
    assert_eq!(p.read("a.txt"), b"one\n");
}

#[tokio::test]
async fn schema_violations_and_unavailable_tools_are_rejected_with_receipts() {
    let p = Project::new();
    let approver = HeadlessApprover::from_preset(ApprovePreset::None);
    let registry = ToolRegistry::builtin();
    let bad = invoke(
        &registry,
        &p.ctx,
        "read_file",
        json!({"path": 3}),
        &allow_all(Phase::None),
        &approver,
    )
    .await;
    assert_eq!(bad.receipt.status, ReceiptStatus::Rejected);
    assert!(matches!(
        bad.result,
        Err(ToolError::InvalidArguments { .. })
    ));
    let web = invoke(
        &registry,
        &p.ctx,
        "fetch_url",
        json!({"url": "https://example.com"}),
        &allow_all(Phase::None),
        &approver,
    )
    .await;
    assert_eq!(web.receipt.status, ReceiptStatus::Rejected);
    assert!(matches!(web.result, Err(ToolError::Unavailable(_))));
}

#[tokio::test]
async fn a_timed_out_command_has_a_timed_out_receipt() {
    let p = Project::new();
    let approver = HeadlessApprover::from_preset(ApprovePreset::None);
    let out = invoke(
        &ToolRegistry::builtin(),
        &p.ctx,
        "execute_command",
        json!({"argv": ["sleep", "30"], "timeout_seconds": 1}),
        &allow_all(Phase::None),
        &approver,
    )
    .await;
    assert_eq!(out.receipt.status, ReceiptStatus::TimedOut);
    assert_eq!(out.result.unwrap()["timed_out"], true);
}

#[tokio::test]
async fn echo_returns_its_arguments() {
    let p = Project::new();
    let approver = HeadlessApprover::from_preset(ApprovePreset::None);
    let out = invoke(
        &ToolRegistry::builtin(),
        &p.ctx,
        "echo",
        json!({"a": [1, 2]}),
        &allow_all(Phase::None),
        &approver,
    )
    .await;
    assert_eq!(out.receipt.status, ReceiptStatus::Executed);
    assert_eq!(out.result.unwrap(), json!({"a": [1, 2]}));
}
