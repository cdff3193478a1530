//! `protoflow graph`: the plan with fan-out, loops and phases.

use insta::assert_snapshot;

use crate::suite::harness::Test;

#[test]
fn the_review_graph_shows_the_fan_out_and_the_per_finding_verify() {
    let ran = Test::in_repo()
        .args(["graph", "recipes/code-review.yaml"])
        .status(0)
        .stdout_contains("flowchart TD")
        .stdout_contains("verify[*]")
        .stdout_contains("foreach steps.merge.output.findings")
        .run();
    assert_snapshot!("code-review.mermaid", ran.stdout);
}

#[test]
fn the_coding_graph_shows_the_bounded_repair_loop_and_phases() {
    let ran = Test::new()
        .args(["graph", "coding", "--format", "dot"])
        .status(0)
        .stdout_contains("style=dashed")
        .stdout_contains("max 2")
        .stdout_contains("phase: verify")
        .run();
    assert_snapshot!("coding.dot", ran.stdout);
}

#[test]
fn an_invalid_recipe_has_no_graph() {
    Test::in_repo()
        .args(["graph", "tests/broken/cycle.yaml"])
        .status(2)
        .stderr_contains("recipe::cycle")
        .run();
}
