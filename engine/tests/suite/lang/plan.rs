//! Plans: topological order, needs and back edges, and their renderings.

use protoflow_engine::builtins;
use protoflow_engine::graph::{PlanEdge, build_plan, to_dot, to_mermaid};
use protoflow_engine::recipe::{LoadOptions, RecipeRef, load_recipe};

use super::helpers::{load, recipe};

fn builtin(name: &str) -> std::sync::Arc<protoflow_engine::recipe::Recipe> {
    load_recipe(
        &RecipeRef::Builtin(builtins::recipe(name).unwrap()),
        &LoadOptions::default(),
    )
    .unwrap()
}

#[test]
fn nodes_are_in_topological_order_with_document_order_for_ties() {
    let r = load(&recipe(
        "steps:\n  - id: last\n    tool: echo\n    needs: [b, a]\n  - id: b\n    tool: echo\n  - id: a\n    tool: echo\n",
    ))
    .unwrap();
    let plan = build_plan(r).unwrap();
    let ids: Vec<&str> = plan.nodes.iter().map(|n| n.step.id.as_str()).collect();
    assert_eq!(ids, ["b", "a", "last"]);
    assert_eq!(plan.nodes[2].needs, [0, 1]);
    assert_eq!(
        plan.edges,
        [
            PlanEdge::Needs { from: 0, to: 2 },
            PlanEdge::Needs { from: 1, to: 2 }
        ]
    );
}

#[test]
fn the_coding_loop_has_a_bounded_back_edge_from_the_completion_guard_to_edit() {
    let plan = build_plan(builtin("coding")).unwrap();
    let idx = |id: &str| plan.nodes.iter().position(|n| n.step.id == id).unwrap();
    assert!(plan.edges.iter().any(|e| matches!(e,
        PlanEdge::Back { from, to, max: 2, .. } if *from == idx("assess") && *to == idx("edit"))));
    let dot = to_dot(&plan);
    assert!(dot.contains("style=dashed"), "{dot}");
    assert!(dot.contains("max 2"), "{dot}");
    assert!(dot.contains("phase: baseline"), "{dot}");
}

#[test]
fn the_review_graph_shows_the_fan_out_per_angle_and_per_finding() {
    let plan = build_plan(builtin("code-review")).unwrap();
    let mermaid = to_mermaid(&plan);
    assert!(mermaid.contains("find[*]"), "{mermaid}");
    assert!(mermaid.contains("foreach inputs.angles"), "{mermaid}");
    assert!(mermaid.contains("verify[*]"), "{mermaid}");
    assert!(
        mermaid.contains("foreach steps.merge.output.findings"),
        "{mermaid}"
    );
    // The diff step waits for all three sources (two of them skipped by `when`).
    let diff = plan.nodes.iter().position(|n| n.step.id == "diff").unwrap();
    assert_eq!(plan.nodes[diff].needs.len(), 3);
}

#[test]
fn a_hand_built_recipe_with_a_cycle_is_refused_by_the_planner() {
    let r = load(&recipe(
        "steps:\n  - id: a\n    tool: echo\n  - id: b\n    tool: echo\n    needs: [a]\n",
    ))
    .unwrap();
    let mut broken = (*r).clone();
    broken.steps[0].needs = vec!["b".to_string()];
    let err = build_plan(std::sync::Arc::new(broken)).unwrap_err();
    assert!(matches!(err, protoflow_engine::graph::PlanError::Cycle(_)));
}
