//! The executor runs a plan as a graph: parallel steps, data-driven fan-out,
//! conditions, bounded loops, typed outputs and runtime templates.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use protoflow_engine::events::{EventKind, RunStatus, StepStatus};
use protoflow_engine::graph::{RegistryTools, ToolCall, ToolCallOutcome, ToolInvoker, ToolResult};
use serde_json::json;

use super::exec_support::{Project, plan, sh, step_output, step_reason, step_status};

/// A tool `probe` that counts how many calls are in flight at once; it waits (up
/// to a bound) until `expect` calls are in flight, so overlap never depends on
/// timing. Other tools go to the built-in ones.
struct Probe {
    in_flight: AtomicUsize,
    max_seen: AtomicUsize,
    expect: usize,
}

#[async_trait]
impl ToolInvoker for Probe {
    async fn invoke(&self, call: ToolCall) -> ToolCallOutcome {
        if call.tool != "probe" {
            return RegistryTools::builtin().invoke(call).await;
        }
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_seen.fetch_max(now, Ordering::SeqCst);
        for _ in 0..200 {
            if self.in_flight.load(Ordering::SeqCst) >= self.expect {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        ToolCallOutcome {
            result: Ok(ToolResult {
                value: json!("probed"),
                text: None,
                failed: None,
            }),
            receipt: None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn independent_steps_run_in_parallel_up_to_the_concurrency_limit() {
    let probe = Arc::new(Probe {
        in_flight: AtomicUsize::new(0),
        max_seen: AtomicUsize::new(0),
        expect: 3,
    });
    let tools = probe.clone();
    let project = Project::with(move |c| c.tools = tools);
    let steps: Vec<_> = (0..8)
        .map(|i| json!({"id": format!("p{i}"), "tool": "probe"}))
        .collect();
    let (report, _) = project
        .run(plan(json!({"limits": {"concurrency": 3}, "steps": steps})))
        .await;
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(
        probe.max_seen.load(Ordering::SeqCst),
        3,
        "never more than the limit, and the limit is used"
    );
}

#[tokio::test]
async fn foreach_over_a_runtime_list_runs_one_instance_per_item_with_results_in_item_order() {
    let project = Project::new();
    let (report, events) = project
        .run(plan(json!({
            "steps": [
                {"id": "find", "tool": "echo", "with": {"value": ["a", "b", "c", "d"]}},
                {"id": "verify", "tool": "execute_command", "needs": ["find"],
                 "foreach": "steps.find.output.value", "as": "finding",
                 // Later items finish first: results must still be in item order.
                 "with": {"argv": ["sh", "-c", "sleep 0.{{ 4 - index }}; printf '%s-%s' {{ finding }} {{ index }}"]}},
                {"id": "summary", "tool": "echo", "needs": ["verify"],
                 "with": {"value": "{{ steps.verify.output | map(attribute='stdout') | list }}"}}
            ]
        })))
        .await;
    assert_eq!(report.status, RunStatus::Succeeded, "{:?}", report.problems);
    for i in 0..4 {
        assert_eq!(step_status(&report, &format!("verify[{i}]")), "succeeded");
    }
    assert_eq!(
        step_output(&report, "summary")["value"],
        json!(["a-0", "b-1", "c-2", "d-3"])
    );
    let expanded: Vec<_> = events
        .json()
        .into_iter()
        .filter(|e| e["type"] == "fanout.expanded")
        .collect();
    assert_eq!(expanded[0]["items"], 4);
}

#[tokio::test]
async fn foreach_over_a_non_list_fails_with_a_clear_error() {
    let project = Project::new();
    let (report, _) = project
        .run(plan(json!({
            "steps": [
                {"id": "find", "tool": "echo", "with": {"value": "not a list"}},
                {"id": "verify", "tool": "echo", "needs": ["find"], "foreach": "steps.find.output.value",
                 "with": {"value": "{{ item }}"}}
            ]
        })))
        .await;
    assert_eq!(report.status, RunStatus::Failed);
    assert_eq!(step_status(&report, "verify"), "failed");
    assert!(
        step_reason(&report, "verify").contains("must produce a list, got a string"),
        "{}",
        step_reason(&report, "verify")
    );
}

#[tokio::test]
async fn foreach_over_an_empty_list_has_no_instances_and_downstream_still_runs() {
    let project = Project::new();
    let (report, _) = project
        .run(plan(json!({
            "steps": [
                {"id": "find", "tool": "echo", "with": {"value": []}},
                {"id": "verify", "tool": "echo", "needs": ["find"], "foreach": "steps.find.output.value",
                 "with": {"value": "{{ item }}"}},
                {"id": "report", "tool": "echo", "needs": ["verify"],
                 "with": {"value": "{{ steps.verify.output | length }} verified"}}
            ]
        })))
        .await;
    assert_eq!(report.status, RunStatus::Succeeded);
    assert!(!report.steps.iter().any(|s| s.key.starts_with("verify[")));
    assert_eq!(step_output(&report, "verify"), json!([]));
    assert_eq!(step_output(&report, "report")["value"], json!("0 verified"));
}

#[tokio::test]
async fn a_false_when_skips_a_step_and_its_dependents_follow_the_rule() {
    let project = Project::new();
    let (report, events) = project
        .run(plan(json!({
            "inputs": {"deep": {"type": "boolean", "default": false}},
            "steps": [
                {"id": "deep", "tool": "echo", "when": "inputs.deep", "with": {"value": 1}},
                {"id": "fast", "tool": "echo", "with": {"value": 2}},
                // every need skipped -> skipped
                {"id": "after_deep", "tool": "echo", "needs": ["deep"], "with": {"value": 3}},
                // mixed -> runs, and sees the skipped step's status and null output
                {"id": "mixed", "tool": "echo", "needs": ["deep", "fast"],
                 "with": {"value": "{{ steps.deep.status }}/{{ steps.deep.output }}/{{ steps.fast.output.value }}"}}
            ]
        })))
        .await;
    assert_eq!(report.status, RunStatus::Succeeded, "{:?}", report.problems);
    assert_eq!(step_status(&report, "deep"), "skipped");
    assert!(step_reason(&report, "deep").contains("`when` is false"));
    assert_eq!(step_status(&report, "after_deep"), "skipped");
    assert_eq!(
        step_reason(&report, "after_deep"),
        "all of its needs were skipped"
    );
    assert_eq!(
        step_output(&report, "mixed")["value"],
        json!("skipped/None/2")
    );
    assert!(events.types().contains(&"step.skipped".to_string()));
}

#[tokio::test]
async fn a_failed_step_skips_its_dependents_but_not_independent_branches() {
    let project = Project::new();
    let (report, _) = project
        .run(plan(json!({
            "steps": [
                {"id": "broken", "tool": "execute_command", "with": {"argv": ["false"]}},
                {"id": "after", "tool": "echo", "needs": ["broken"], "with": {"value": 1}},
                {"id": "tolerated", "tool": "execute_command", "allow_failure": true,
                 "with": {"argv": ["false"]}},
                {"id": "after_tolerated", "tool": "echo", "needs": ["tolerated"],
                 "with": {"value": "{{ steps.tolerated.status }}"}},
                {"id": "independent", "tool": "echo", "with": {"value": 2}}
            ]
        })))
        .await;
    assert_eq!(report.status, RunStatus::Failed);
    assert_eq!(step_status(&report, "broken"), "failed");
    assert!(step_reason(&report, "broken").contains("exited with code 1"));
    assert_eq!(step_status(&report, "after"), "skipped");
    assert_eq!(step_reason(&report, "after"), "needs `broken` failed");
    assert_eq!(
        step_output(&report, "after_tolerated")["value"],
        json!("failed")
    );
    assert_eq!(step_status(&report, "independent"), "succeeded");
    assert_eq!(
        report.failed,
        vec!["broken".to_string(), "tolerated".to_string()]
    );
}

fn repair_loop(passes_after: u32, max: u32) -> serde_json::Value {
    json!({
        "steps": [
            {"id": "edit", "tool": "execute_command",
             "with": {"argv": sh("echo edit >> edits.log")}},
            {"id": "verify", "tool": "execute_command", "needs": ["edit"],
             "with": {"argv": sh(&format!("test $(wc -l < edits.log) -ge {passes_after}"))},
             "loop": {"to": "edit", "when": "steps.verify.status == 'failed'", "max": max}},
            {"id": "report", "tool": "echo", "needs": ["verify"],
             "with": {"value": "{{ steps.verify.status }} after {{ steps.edit.attempt }} edits"}}
        ]
    })
}

#[tokio::test]
async fn a_bounded_back_edge_is_taken_until_its_condition_is_false() {
    let project = Project::new();
    let (report, events) = project.run(plan(repair_loop(2, 3))).await;
    assert_eq!(report.status, RunStatus::Succeeded, "{:?}", report.problems);
    assert_eq!(report.loops[0].taken, 1);
    assert!(!report.loops[0].exhausted);
    assert_eq!(
        step_output(&report, "report")["value"],
        json!("succeeded after 2 edits")
    );
    let log = std::fs::read_to_string(project.root().join("edits.log")).unwrap();
    assert_eq!(log.lines().count(), 2);
    let taken: Vec<_> = events
        .json()
        .into_iter()
        .filter(|e| e["type"] == "loop.taken")
        .collect();
    assert_eq!(taken.len(), 1);
    assert_eq!(taken[0]["from"], "verify");
    assert_eq!(taken[0]["to"], "edit");
}

#[tokio::test]
async fn an_exhausted_back_edge_ends_the_branch_with_a_clear_status() {
    let project = Project::new();
    let (report, events) = project.run(plan(repair_loop(100, 2))).await;
    assert_eq!(report.status, RunStatus::Failed);
    assert_eq!(report.loops[0].taken, 2);
    assert!(report.loops[0].exhausted);
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("loop `verify` -> `edit` was exhausted")),
        "{:?}",
        report.problems
    );
    assert!(events.types().contains(&"loop.exhausted".to_string()));
    let log = std::fs::read_to_string(project.root().join("edits.log")).unwrap();
    assert_eq!(
        log.lines().count(),
        3,
        "the first edit and two repairs, no more"
    );
}

#[tokio::test]
async fn typed_outputs_are_parsed_tolerantly_and_validated() {
    let schema =
        json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}});
    let project = Project::new();
    let (report, _) = project
        .run(plan(json!({
            "steps": [
                {"id": "bare", "tool": "execute_command", "output": {"schema": schema},
                 "with": {"argv": sh("echo '{\"n\": 1}'")}},
                {"id": "prose", "tool": "execute_command", "output": {"schema": schema},
                 "with": {"argv": sh("echo 'Result: {\"n\": 2} and that is all'")}},
                {"id": "fenced", "tool": "execute_command", "output": {"schema": schema},
                 "with": {"argv": sh("printf 'Here:\\n```json\\n{\"n\": 3}\\n```\\n'")}},
                {"id": "wrong_type", "tool": "execute_command", "output": {"schema": schema},
                 "with": {"argv": sh("echo '{\"n\": \"three\"}'")}},
                {"id": "not_json", "tool": "execute_command", "output": {"schema": schema},
                 "with": {"argv": sh("echo 'all fine, nothing to report'")}},
                {"id": "use", "tool": "echo", "needs": ["bare", "prose", "fenced"],
                 "with": {"value": "{{ steps.bare.output.n + steps.prose.output.n + steps.fenced.output.n }}"}}
            ]
        })))
        .await;
    assert_eq!(step_output(&report, "bare"), json!({"n": 1}));
    assert_eq!(step_output(&report, "prose"), json!({"n": 2}));
    assert_eq!(step_output(&report, "fenced"), json!({"n": 3}));
    assert_eq!(step_output(&report, "use")["value"], json!(6));
    assert_eq!(step_status(&report, "wrong_type"), "failed");
    assert!(
        step_reason(&report, "wrong_type").contains("/n"),
        "{}",
        step_reason(&report, "wrong_type")
    );
    assert_eq!(step_status(&report, "not_json"), "failed");
    assert!(step_reason(&report, "not_json").contains("no JSON"));
    assert_eq!(report.status, RunStatus::Failed);
}

#[tokio::test]
async fn a_template_error_at_run_time_fails_that_step_with_the_reason() {
    let project = Project::new();
    let (report, _) = project
        .run(plan(json!({
            "steps": [
                {"id": "a", "tool": "echo", "with": {"x": 1}},
                {"id": "b", "tool": "echo", "needs": ["a"],
                 "with": {"value": "uses {{ steps.a.output.nope.deeper }}"}},
                {"id": "c", "tool": "echo", "needs": ["a"], "with": {"value": "{{ steps.a.output.x }}"}}
            ]
        })))
        .await;
    assert_eq!(report.status, RunStatus::Failed);
    assert_eq!(step_status(&report, "b"), "failed");
    assert!(
        step_reason(&report, "b").contains("template error"),
        "{}",
        step_reason(&report, "b")
    );
    assert!(
        step_reason(&report, "b").contains("undefined"),
        "{}",
        step_reason(&report, "b")
    );
    assert_eq!(step_output(&report, "c")["value"], json!(1));
}

#[tokio::test]
async fn an_agent_step_without_a_model_provider_fails_clearly() {
    let project = Project::new();
    let (report, _) = project
        .run(plan(json!({
            "steps": [{"id": "think", "agent": "architect", "prompt": "plan it"}]
        })))
        .await;
    assert_eq!(report.status, RunStatus::Failed);
    assert_eq!(step_status(&report, "think"), "failed");
    assert!(step_reason(&report, "think").contains("no model provider configured"));
}

#[tokio::test]
async fn every_state_change_is_an_event_in_order_and_in_the_store() {
    let project = Project::new();
    let (report, events) = project
        .run(plan(json!({
            "steps": [{"id": "a", "tool": "echo", "with": {"value": 1}}],
            "outputs": {"result": "steps.a.output.value"}
        })))
        .await;
    assert_eq!(report.outputs["result"], json!(1));
    assert_eq!(
        events.types(),
        vec![
            "run.started",
            "step.started",
            "receipt.recorded",
            "step.finished",
            "run.finished"
        ]
    );
    let stored = project.store.events(&report.run_id).unwrap();
    let seqs: Vec<u64> = stored.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, vec![1, 2, 3, 4, 5]);
    assert!(matches!(
        stored.last().unwrap().kind,
        EventKind::RunFinished {
            status: RunStatus::Succeeded,
            ..
        }
    ));
    let run = project.store.run(&report.run_id).unwrap();
    assert_eq!(run.status, RunStatus::Succeeded);
    assert_eq!(
        project.store.steps(&report.run_id).unwrap()[0].status,
        StepStatus::Succeeded
    );
    assert_eq!(project.store.receipts(&report.run_id).unwrap().len(), 1);
}

#[tokio::test]
async fn a_recipe_step_runs_its_child_through_the_same_executor_and_root_budget() {
    use protoflow_engine::graph::build_plan;
    use protoflow_engine::recipe::{LoadOptions, load_recipe_str};

    let project = Project::new();
    let root = project.root();
    std::fs::write(
        root.join("child.yaml"),
        "apiVersion: protoflow/v1\nkind: Recipe\nname: child\ninputs:\n  n: {type: integer, required: true}\nsteps:\n  - id: double\n    tool: echo\n    with: {value: \"{{ inputs.n * 2 }}\"}\noutputs:\n  result: steps.double.output.value\n",
    )
    .unwrap();
    let parent = "apiVersion: protoflow/v1\nkind: Recipe\nname: parent\nsteps:\n  - id: sub\n    recipe: child.yaml\n    with: {n: 21}\n  - id: use\n    tool: echo\n    needs: [sub]\n    with: {value: \"{{ steps.sub.output.result }}\"}\n";
    let recipe = load_recipe_str(
        "parent.yaml",
        parent,
        Some(&root),
        &LoadOptions::for_project(&root),
    )
    .unwrap();
    let (report, events) = project.run(build_plan(recipe).unwrap()).await;
    assert_eq!(report.status, RunStatus::Succeeded, "{:?}", report.problems);
    assert_eq!(step_output(&report, "sub"), json!({"result": 42}));
    assert_eq!(step_output(&report, "use")["value"], json!(42));
    assert_eq!(report.budget.used.children, 1);
    assert_eq!(
        report.budget.used.tool_calls, 2,
        "the child's calls count at the root"
    );
    assert!(
        events
            .json()
            .iter()
            .any(|e| e["type"] == "step.finished" && e["step"] == "sub/double"),
        "child steps are recorded under the parent's key"
    );
}
