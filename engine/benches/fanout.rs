//! Scheduling overhead per step for a 1,000-item fan-out of trivial `echo` steps,
//! with the real SQLite store (events, step records and receipts are written for
//! every instance). A benchmark, not a test: it reports, it asserts nothing.
//!
//! `cargo bench -p protoflow-engine --bench fanout`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Instant;

use indexmap::IndexMap;
use protoflow_engine::graph::{
    Executor, ExecutorConfig, Plan, PlanEdge, PlanNode, RegistryTools, RunOptions, ToolCall,
    ToolInvoker,
};
use protoflow_engine::policy::{Authority, Phase};
use protoflow_engine::recipe::document::RecipeDocument;
use protoflow_engine::recipe::{Foreach, Limits, Origin, Recipe, Step, StepKind};
use protoflow_engine::store::Store;
use protoflow_engine::tools::ToolContext;
use serde_json::{Value, json};

const ITEMS: usize = 1_000;

fn tool_step(id: &str, with: Value, needs: &[&str], foreach: Option<&str>) -> Step {
    Step {
        id: id.into(),
        description: None,
        kind: StepKind::Tool {
            name: "echo".into(),
            with: serde_json::from_value(with).unwrap(),
        },
        needs: needs.iter().map(|s| s.to_string()).collect(),
        when: None,
        foreach: foreach.map(|expr| Foreach {
            expr: expr.into(),
            item_var: "item".into(),
        }),
        output: None,
        phase: Default::default(),
        timeout: None,
        limits: Limits::default(),
        back_edge: None,
        allow_failure: false,
    }
}

fn plan(concurrency: u32) -> Plan {
    let limits = Limits {
        concurrency,
        tool_calls: 50_000,
        ..Limits::default()
    };
    let list: Vec<usize> = (0..ITEMS).collect();
    let steps = vec![
        tool_step("list", json!({"value": list}), &[], None),
        tool_step(
            "each",
            json!({"value": "{{ item }}"}),
            &["list"],
            Some("steps.list.output.value"),
        ),
    ];
    let document: RecipeDocument = serde_json::from_value(json!({
        "apiVersion": "protoflow/v1", "kind": "Recipe", "name": "bench-fanout"
    }))
    .unwrap();
    let recipe = Recipe {
        name: "bench-fanout".into(),
        origin: Origin::Builtin("bench-fanout".into()),
        document,
        inputs: IndexMap::new(),
        limits,
        capabilities: IndexMap::new(),
        checks: Vec::new(),
        roles: IndexMap::new(),
        steps: steps.clone(),
        outputs: IndexMap::new(),
    };
    Plan {
        recipe: Arc::new(recipe),
        nodes: vec![
            PlanNode {
                step: steps[0].clone(),
                needs: vec![],
            },
            PlanNode {
                step: steps[1].clone(),
                needs: vec![0],
            },
        ],
        edges: vec![PlanEdge::Needs { from: 0, to: 1 }],
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let executor = Executor::new(ExecutorConfig::new(
        Store::open_project(&root).unwrap(),
        root.clone(),
    ));

    // Baseline: the same 1,000 echo calls, invoked directly (no scheduling, no store).
    let tools = RegistryTools::builtin();
    let baseline = runtime.block_on(async {
        let start = Instant::now();
        for i in 0..ITEMS {
            let call = ToolCall {
                step: format!("each[{i}]"),
                tool: "echo".into(),
                args: json!({"value": i}),
                ctx: ToolContext::new(root.clone()),
                authority: Authority::new(["echo"], [], Phase::None),
            };
            let _ = tools.invoke(call).await;
        }
        start.elapsed()
    });

    println!("fan-out of {ITEMS} trivial echo steps (real store, events, receipts)");
    println!(
        "direct echo calls, no executor: {:>8.2} µs per call",
        baseline.as_secs_f64() * 1e6 / ITEMS as f64
    );
    for concurrency in [1, 4, 16, 64] {
        let mut samples = Vec::new();
        for _ in 0..3 {
            let start = Instant::now();
            let report = runtime
                .block_on(executor.run(plan(concurrency), IndexMap::new(), RunOptions::default()))
                .unwrap();
            let elapsed = start.elapsed();
            assert_eq!(report.steps.len(), ITEMS + 2, "every instance reported");
            samples.push(elapsed);
        }
        samples.sort();
        let median = samples[1];
        let per_step = median.as_secs_f64() * 1e6 / ITEMS as f64;
        println!(
            "concurrency {concurrency:>2}: {:>8.1} ms total, {per_step:>8.2} µs per step (median of 3), {:>6.1}x a direct call",
            median.as_secs_f64() * 1e3,
            median.as_secs_f64() / baseline.as_secs_f64().max(1e-9)
        );
    }
}
