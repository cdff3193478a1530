//! Budgets at run level: exhaustion stops new work, is recorded with its limit, and
//! ends the run with a distinct status.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use protoflow_engine::events::RunStatus;
use serde_json::json;

use super::exec_support::{Project, plan, sh, step_reason, step_status};

#[tokio::test]
async fn running_out_of_tool_calls_stops_new_work_and_records_the_limit() {
    let project = Project::new();
    let (report, events) = project
        .run(plan(json!({
            "limits": {"tool_calls": 2},
            "steps": [
                {"id": "a", "tool": "echo", "with": {"value": 1}},
                {"id": "b", "tool": "echo", "needs": ["a"], "with": {"value": 2}},
                {"id": "c", "tool": "echo", "needs": ["b"], "with": {"value": 3}},
                {"id": "d", "tool": "echo", "needs": ["c"], "with": {"value": 4}}
            ]
        })))
        .await;
    assert_eq!(report.status, RunStatus::BudgetExhausted);
    assert_eq!(step_status(&report, "b"), "succeeded");
    assert_eq!(step_status(&report, "c"), "not_run");
    assert!(step_reason(&report, "c").contains("tool_calls"));
    assert_eq!(step_status(&report, "d"), "not_run");
    assert_eq!(
        report.budget.used.tool_calls, 2,
        "the limit is never exceeded"
    );
    let exhausted: Vec<_> = events
        .json()
        .into_iter()
        .filter(|e| e["type"] == "budget.exhausted")
        .collect();
    assert_eq!(exhausted.len(), 1);
    assert_eq!(exhausted[0]["scope"], "run");
    assert_eq!(exhausted[0]["limit"], "tool_calls");
    assert_eq!(exhausted[0]["max"], 2);
    assert_eq!(
        project.store.run(&report.run_id).unwrap().status,
        RunStatus::BudgetExhausted
    );
}

#[tokio::test]
async fn a_steps_own_narrower_limit_fails_only_that_step() {
    let project = Project::new();
    let (report, events) = project
        .run(plan(json!({
            "steps": [
                {"id": "a", "tool": "echo", "limits": {"tool_calls": 0}, "with": {"value": 1}},
                {"id": "b", "tool": "echo", "with": {"value": 2}}
            ]
        })))
        .await;
    assert_eq!(report.status, RunStatus::Failed);
    assert_eq!(step_status(&report, "a"), "failed");
    assert!(step_reason(&report, "a").contains("step limit tool_calls"));
    assert_eq!(step_status(&report, "b"), "succeeded");
    assert!(
        events
            .json()
            .iter()
            .any(|e| e["type"] == "budget.exhausted" && e["scope"] == "a")
    );
}

#[tokio::test]
async fn running_out_of_wall_time_stops_running_steps_and_their_processes() {
    let project = Project::new();
    let (report, events) = project
        .run(plan(json!({
            "limits": {"wall_time": "400ms"},
            "steps": [
                {"id": "slow", "tool": "execute_command", "with": {"argv": sh("sleep 60")}},
                {"id": "after", "tool": "echo", "needs": ["slow"], "with": {"value": 1}}
            ]
        })))
        .await;
    assert_eq!(report.status, RunStatus::BudgetExhausted);
    assert_eq!(step_status(&report, "slow"), "canceled");
    assert_eq!(step_status(&report, "after"), "not_run");
    assert!(
        events
            .json()
            .iter()
            .any(|e| e["type"] == "budget.exhausted" && e["limit"] == "wall_time")
    );
}
