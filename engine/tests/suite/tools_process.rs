//! The process core and `execute_command`: exact environment, capped output,
//! group kill on timeout, SIGTERM-ignoring children, missing executables and cwds,
//! and a canary secret that reaches neither the child nor any receipt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::time::Duration;

use protoflow_engine::evidence::ReceiptStatus;
use protoflow_engine::policy::{ApprovePreset, HeadlessApprover, Phase, Redactor};
use protoflow_engine::tools::process::{ExecuteCommand, ProcessSpec, run_process};
use protoflow_engine::tools::{ToolError, ToolRegistry, invoke};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::tools_common::{Project, allow_all, call, pid_alive, reason};

fn sh(script: &str, timeout: Duration, grace: Duration) -> ProcessSpec {
    ProcessSpec {
        program: "/bin/sh".into(),
        args: vec!["-c".to_string(), script.to_string()],
        cwd: std::env::temp_dir(),
        env: BTreeMap::from([("PATH".to_string(), "/usr/bin:/bin".to_string())]),
        timeout,
        max_output_bytes: 4096,
        kill_grace: grace,
    }
}

fn first_pid(stdout: &str) -> u32 {
    stdout
        .lines()
        .next()
        .and_then(|l| l.trim().parse().ok())
        .expect("the script prints a pid first")
}

#[tokio::test]
async fn endless_output_is_capped_while_reading_and_the_call_finishes() {
    let p = Project::new();
    let out = call(
        &ExecuteCommand,
        &p.ctx,
        json!({"argv": ["yes"], "timeout_seconds": 1, "max_output_bytes": 1024}),
    )
    .await
    .unwrap();
    assert_eq!(out.value["timed_out"], true);
    assert_eq!(out.value["truncated"], true);
    assert_eq!(out.value["stdout"].as_str().unwrap().len(), 1024);
    assert!(out.value["stdout_bytes"].as_u64().unwrap() > 1024);
    assert!(out.facts.truncated);
}

#[tokio::test]
async fn a_timeout_kills_the_whole_group_including_a_background_child() {
    let spec = sh(
        "sleep 30 & echo $!; wait",
        Duration::from_secs(1),
        Duration::from_secs(1),
    );
    let result = run_process(&spec, &CancellationToken::new()).await.unwrap();
    assert!(result.timed_out);
    let child = first_pid(&result.stdout);
    assert!(!pid_alive(child), "background child {child} survived");
    assert!(!pid_alive(result.pid), "leader survived");
}

#[tokio::test]
async fn a_leader_that_exits_leaves_no_background_child_behind() {
    let spec = sh(
        "sleep 30 & echo $!",
        Duration::from_secs(5),
        Duration::from_secs(1),
    );
    let result = run_process(&spec, &CancellationToken::new()).await.unwrap();
    assert!(!result.timed_out);
    assert_eq!(result.exit_code, Some(0));
    let child = first_pid(&result.stdout);
    assert!(
        !pid_alive(child),
        "background child {child} survived the leader's exit"
    );
}

#[tokio::test]
async fn a_child_ignoring_sigterm_is_killed_after_the_grace_period() {
    let spec = sh(
        "trap '' TERM; echo $$; while :; do sleep 0.1; done",
        Duration::from_secs(1),
        Duration::from_millis(500),
    );
    let result = run_process(&spec, &CancellationToken::new()).await.unwrap();
    assert!(result.timed_out);
    assert_eq!(result.signal, Some(9), "{result:?}");
    assert!(!pid_alive(first_pid(&result.stdout)));
}

#[tokio::test]
async fn cancellation_stops_the_group() {
    let cancel = CancellationToken::new();
    let spec = sh(
        "sleep 30 & echo $!; wait",
        Duration::from_secs(30),
        Duration::from_secs(1),
    );
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let result = run_process(&spec, &cancel).await.unwrap();
    assert!(result.canceled && !result.timed_out);
    assert!(!pid_alive(first_pid(&result.stdout)));
}

#[tokio::test]
async fn a_missing_executable_is_rejected_with_the_search_path() {
    let p = Project::new();
    let r = reason(
        call(
            &ExecuteCommand,
            &p.ctx,
            json!({"argv": ["no-such-program-protoflow"]}),
        )
        .await,
    );
    assert!(r.contains("not found") && r.contains("/usr/bin"), "{r}");
}

#[tokio::test]
async fn a_nonexistent_or_escaping_cwd_is_refused() {
    let p = Project::new();
    let missing = reason(
        call(
            &ExecuteCommand,
            &p.ctx,
            json!({"argv": ["true"], "cwd": "no/such/dir"}),
        )
        .await,
    );
    assert!(missing.contains("does not exist"), "{missing}");
    let escape = call(
        &ExecuteCommand,
        &p.ctx,
        json!({"argv": ["true"], "cwd": ".."}),
    )
    .await;
    assert!(
        matches!(escape, Err(ToolError::PathRefused { .. })),
        "{escape:?}"
    );
}

#[tokio::test]
async fn the_child_gets_exactly_the_base_and_given_environment() {
    let mut p = Project::new();
    p.ctx
        .process_env
        .insert("BASE_VAR".to_string(), "base".to_string());
    p.write("sub/.keep", "");
    let out = call(
        &ExecuteCommand,
        &p.ctx,
        json!({"argv": ["env"], "env": {"GIVEN": "yes"}, "cwd": "sub"}),
    )
    .await
    .unwrap();
    let mut lines: Vec<&str> = out.value["stdout"].as_str().unwrap().lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, vec!["BASE_VAR=base", "GIVEN=yes"]);
    assert_eq!(out.value["exit_code"], 0);
    let pwd = call(
        &ExecuteCommand,
        &p.ctx,
        json!({"argv": ["pwd"], "cwd": "sub"}),
    )
    .await
    .unwrap();
    assert_eq!(
        pwd.value["stdout"].as_str().unwrap().trim(),
        p.path("sub").display().to_string()
    );
}

#[tokio::test]
async fn stdin_is_closed() {
    let p = Project::new();
    let out = call(
        &ExecuteCommand,
        &p.ctx,
        json!({"argv": ["cat"], "timeout_seconds": 5}),
    )
    .await
    .unwrap();
    assert_eq!(out.value["timed_out"], false);
    assert_eq!(out.value["stdout"], "");
}

const CANARY_VAR: &str = "PROTOFLOW_CANARY_TOKEN";
const CANARY: &str = "canary-secret-6f1d2b9e";

/// Runs in this process, and again (by the test below) in a process whose
/// environment holds the canary: the child must not see it, receipts must not hold it.
#[tokio::test]
async fn canary_secret_reaches_neither_child_nor_receipts() {
    let in_env = std::env::var(CANARY_VAR).ok();
    println!("canary in the environment: {}", in_env.is_some());
    let p = Project::new();
    let mut ctx = p.ctx.clone();
    if in_env.is_none() {
        // Without the canary in this process's environment, give the redactor the
        // same secret the environment would have given it.
        ctx.redactor = std::sync::Arc::new(Redactor::from_vars([(CANARY_VAR, CANARY)]));
    }

    // Not inherited: the child's whole environment is empty.
    let env = call(&ExecuteCommand, &ctx, json!({"argv": ["env"]}))
        .await
        .unwrap();
    assert_eq!(env.value["stdout"], "");

    // Not in any receipt or result, even when passed explicitly.
    let registry = ToolRegistry::builtin();
    let approver = HeadlessApprover::from_preset(ApprovePreset::None);
    let echo = invoke(
        &registry,
        &ctx,
        "execute_command",
        json!({"argv": ["echo", CANARY]}),
        &allow_all(Phase::None),
        &approver,
    )
    .await;
    assert_eq!(echo.receipt.status, ReceiptStatus::Executed);
    let by_key = invoke(
        &registry,
        &ctx,
        "execute_command",
        json!({"argv": ["true"], "env": {CANARY_VAR: CANARY}}),
        &allow_all(Phase::None),
        &approver,
    )
    .await;
    for invocation in [&echo, &by_key] {
        let receipt = serde_json::to_string(&invocation.receipt).unwrap();
        assert!(!receipt.contains(CANARY), "{receipt}");
        let result = serde_json::to_string(invocation.result.as_ref().unwrap()).unwrap();
        assert!(!result.contains(CANARY), "{result}");
    }
    assert!(
        echo.result.as_ref().unwrap()["stdout"]
            .as_str()
            .unwrap()
            .contains("[REDACTED:PROTOFLOW_CANARY_TOKEN]")
    );
}

#[test]
fn canary_probe_passes_in_a_process_whose_environment_holds_the_secret() {
    let exe = std::env::current_exe().unwrap();
    let output = std::process::Command::new(exe)
        .args([
            "--exact",
            "suite::tools_process::canary_secret_reaches_neither_child_nor_receipts",
            "--nocapture",
        ])
        .env(CANARY_VAR, CANARY)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("canary in the environment: true"),
        "{stdout}"
    );
    assert!(stdout.contains("1 passed"), "{stdout}");
}
