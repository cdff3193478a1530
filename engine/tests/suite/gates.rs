//! Recipe gates: conditions over a finished run that decide its outcome for a
//! pipeline (`findings` over a threshold, `incomplete` coverage), validated before
//! the run and evaluated after its outputs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use protoflow_engine::events::RunStatus;
use protoflow_engine::recipe::document::GateOutcome;
use serde_json::json;

use super::exec_support::{Project, plan};
use super::lang::helpers::{recipe, rules};

fn gated(value: i64, gates: serde_json::Value) -> protoflow_engine::graph::Plan {
    plan(json!({
        "steps": [{"id": "count", "tool": "echo", "with": {"n": value}}],
        "outputs": {"n": "steps.count.output.n"},
        "gates": gates,
    }))
}

#[tokio::test]
async fn a_findings_gate_trips_over_the_threshold_and_leaves_the_status_alone() {
    let gates = json!([{
        "when": "outputs.n > 2", "outcome": "findings",
        "message": "{{ outputs.n }} findings remain"
    }]);
    let (report, _) = Project::new().run(gated(3, gates.clone())).await;
    assert_eq!(report.status, RunStatus::Succeeded);
    assert!(report.tripped(GateOutcome::Findings));
    assert_eq!(
        report.gates[0].message.as_deref(),
        Some("3 findings remain")
    );

    let (report, _) = Project::new().run(gated(1, gates)).await;
    assert!(!report.tripped(GateOutcome::Findings));
    assert_eq!(report.gates[0].message, None);
}

#[tokio::test]
async fn an_incomplete_gate_degrades_a_succeeded_run_and_says_why() {
    let gates = json!([{
        "when": "steps.count.output.n == 0", "outcome": "incomplete",
        "message": "nothing was counted"
    }]);
    let (report, _) = Project::new().run(gated(0, gates)).await;
    assert_eq!(report.status, RunStatus::Degraded);
    assert!(report.tripped(GateOutcome::Incomplete));
    assert!(
        report
            .problems
            .iter()
            .any(|p| p == "incomplete: nothing was counted"),
        "{:?}",
        report.problems
    );
}

#[tokio::test]
async fn a_gate_that_cannot_be_evaluated_fails_the_run_rather_than_passing() {
    let gates = json!([{"when": "steps.count.output.missing.deeper", "outcome": "findings"}]);
    let (report, _) = Project::new().run(gated(1, gates)).await;
    assert_eq!(report.status, RunStatus::Failed);
    assert!(report.gates[0].error.is_some());
    assert!(!report.gates[0].tripped);
}

#[test]
fn gates_are_validated_before_the_run() {
    let body = |gate: &str| {
        recipe(&format!(
            "steps:\n  - id: a\n    tool: echo\n    with: {{n: 1}}\noutputs:\n  n: steps.a.output.n\ngates:\n{gate}"
        ))
    };
    assert_eq!(
        rules(&body("  - {when: outputs.n > 1, outcome: findings}\n")),
        Vec::<&str>::new()
    );
    assert_eq!(
        rules(&body("  - {when: outputs.count > 1, outcome: findings}\n")),
        vec!["recipe::undefined-output"]
    );
    assert_eq!(
        rules(&body("  - {when: steps.b.output, outcome: incomplete}\n")),
        vec!["recipe::undefined-step"]
    );
    assert_eq!(
        rules(&body("  - {when: 'outputs.n >', outcome: findings}\n")),
        vec!["recipe::template-syntax"]
    );
    assert_eq!(
        rules(&body("  - {when: outputs.n, outcome: exploded}\n")),
        vec!["schema::invalid-value"]
    );
}
