//! `discover_checks` and `run_check`: frozen checks run by id, with the phase, the
//! tests executed and an honest status on the result and the receipt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use protoflow_engine::checks::{DiscoverOptions, resolve_checks};
use protoflow_engine::evidence::ReceiptStatus;
use protoflow_engine::policy::{HeadlessApprover, Phase};
use protoflow_engine::tools::process::base_process_env;
use protoflow_engine::tools::{invoke, project_registry};
use serde_json::json;

use super::tools_common::{Project, allow_all};

/// A Python project whose unittest suite has `tests` test methods.
fn python_project(tests: usize, failing: bool) -> Project {
    let mut project = Project::new();
    project.write("calc.py", "def add(a, b):\n    return a + b\n");
    let mut body =
        String::from("import unittest\nimport calc\n\nclass CalcTest(unittest.TestCase):\n");
    for i in 0..tests {
        let expected = if failing && i == 0 { 5 } else { 4 };
        body.push_str(&format!(
            "    def test_{i}(self):\n        self.assertEqual(calc.add(2, 2), {expected})\n"
        ));
    }
    if tests == 0 {
        body.push_str("    pass\n");
    }
    project.write("test_calc.py", body);
    project.ctx.process_env = base_process_env(|name| std::env::var(name).ok());
    project
}

async fn run(project: &Project, args: serde_json::Value) -> protoflow_engine::tools::Invocation {
    let discovery = resolve_checks(project.root(), &DiscoverOptions::default()).unwrap();
    let registry = project_registry(project.root(), Arc::new(discovery));
    let approver = HeadlessApprover::from_preset("all".parse().unwrap());
    invoke(
        &registry,
        &project.ctx,
        "run_check",
        args,
        &allow_all(Phase::Verify),
        &approver,
    )
    .await
}

fn unittest_id(project: &Project) -> String {
    let discovery = resolve_checks(project.root(), &DiscoverOptions::default()).unwrap();
    discovery
        .checks
        .ids()
        .next()
        .expect("a unittest check is discovered")
        .to_string()
}

#[tokio::test]
async fn a_passing_suite_passes_with_its_tests_counted_and_the_phase_on_the_receipt() {
    let project = python_project(3, false);
    let id = unittest_id(&project);
    let invocation = run(&project, json!({"check_id": id, "phase": "verify"})).await;
    let value = invocation.result.unwrap();
    assert_eq!(value["status"], "passed", "{value:#}");
    assert_eq!(value["passed"], true);
    assert_eq!(value["tests_executed"], 3);
    assert_eq!(invocation.receipt.status, ReceiptStatus::Executed);
    assert_eq!(invocation.receipt.facts.detail["phase"], "verify");
    assert_eq!(invocation.receipt.facts.detail["check_id"], json!(id));
    assert_eq!(invocation.receipt.facts.exit_code, Some(0));
}

#[tokio::test]
async fn a_failing_suite_fails_with_its_exit_code() {
    let project = python_project(2, true);
    let id = unittest_id(&project);
    let value = run(&project, json!({"check_id": id, "phase": "baseline"}))
        .await
        .result
        .unwrap();
    assert_eq!(value["status"], "failed");
    assert_eq!(value["passed"], false);
    assert_ne!(value["exit_code"], 0);
    assert_eq!(value["phase"], "baseline");
}

#[tokio::test]
async fn an_empty_suite_that_exits_zero_is_not_a_pass() {
    let project = python_project(0, false);
    let id = unittest_id(&project);
    let value = run(&project, json!({"check_id": id, "phase": "verify"}))
        .await
        .result
        .unwrap();
    assert_eq!(value["tests_executed"], 0, "{value:#}");
    assert_eq!(value["passed"], false);
    assert!(
        value["status"] == "no_tests" || value["status"] == "failed",
        "{value:#}"
    );
}

#[tokio::test]
async fn an_unknown_check_id_is_rejected_with_the_available_ids() {
    let project = python_project(1, false);
    let id = unittest_id(&project);
    let invocation = run(
        &project,
        json!({"check_id": "make:test", "phase": "verify"}),
    )
    .await;
    let error = invocation.result.unwrap_err().to_string();
    assert!(error.contains(&id), "{error}");
    assert_eq!(invocation.receipt.status, ReceiptStatus::Rejected);
}

#[tokio::test]
async fn the_model_cannot_supply_a_command() {
    let project = python_project(1, false);
    let invocation = run(
        &project,
        json!({"check_id": "x", "phase": "verify", "argv": ["rm", "-rf", "/"]}),
    )
    .await;
    assert!(invocation.result.is_err());
    assert_eq!(invocation.receipt.status, ReceiptStatus::Rejected);
}

#[tokio::test]
async fn discover_checks_lists_ids_and_reasons() {
    let project = python_project(1, false);
    let discovery = resolve_checks(project.root(), &DiscoverOptions::default()).unwrap();
    let registry = project_registry(project.root(), Arc::new(discovery));
    let approver = HeadlessApprover::from_preset("reads-only".parse().unwrap());
    let invocation = invoke(
        &registry,
        &project.ctx,
        "discover_checks",
        json!({}),
        &allow_all(Phase::Baseline),
        &approver,
    )
    .await;
    let value = invocation.result.unwrap();
    assert_eq!(value["checks"].as_array().unwrap().len(), 1, "{value:#}");
    assert_eq!(value["checks"][0]["kind"], "unittest");
    assert!(
        value["checks"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("discovered")
    );
}
