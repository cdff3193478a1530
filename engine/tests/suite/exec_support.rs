//! Test support for executor tests: plans built from recipe documents (a tiny
//! stand-in for validation + plan building, for tool steps), a project in a temp
//! dir with a real store, and helpers over events.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use indexmap::IndexMap;
use protoflow_engine::events::{Event, EventListener};
use protoflow_engine::graph::{
    Executor, ExecutorConfig, Plan, PlanEdge, PlanNode, RunOptions, RunReport,
};
use protoflow_engine::recipe::document::{LimitsDocument, RecipeDocument, StepDocument};
use protoflow_engine::recipe::{
    BackEdge, Foreach, Limits, Origin, OutputSpec, Recipe, Step, StepKind,
};
use protoflow_engine::store::Store;
use serde_json::{Value, json};

pub fn duration(text: &str) -> Duration {
    let (number, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit()).unwrap());
    let n: u64 = number.parse().unwrap();
    match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n * 60),
        "h" => Duration::from_secs(n * 3600),
        other => panic!("bad unit {other}"),
    }
}

fn limits(base: &Limits, doc: Option<&LimitsDocument>) -> Limits {
    let Some(doc) = doc else { return *base };
    Limits {
        model_calls: doc.model_calls.unwrap_or(base.model_calls),
        tool_calls: doc.tool_calls.unwrap_or(base.tool_calls),
        tokens: doc.tokens.unwrap_or(base.tokens),
        wall_time: doc
            .wall_time
            .as_deref()
            .map(duration)
            .unwrap_or(base.wall_time),
        concurrency: doc.concurrency.unwrap_or(base.concurrency),
        children: doc.children.unwrap_or(base.children),
        repairs: doc.repairs.unwrap_or(base.repairs),
        output_bytes: doc.output_bytes.unwrap_or(base.output_bytes),
    }
}

fn step(doc: &StepDocument, run: &Limits) -> Step {
    let kind = if let Some(tool) = &doc.tool {
        StepKind::Tool {
            name: tool.clone(),
            with: doc.with.clone(),
        }
    } else if let Some(role) = &doc.agent {
        StepKind::Agent {
            role: role.clone(),
            prompt: doc.prompt.clone().unwrap_or_default(),
            tools: doc.tools.clone().unwrap_or_default(),
            delegates: Vec::new(),
        }
    } else {
        panic!("test support builds tool and agent steps only")
    };
    Step {
        id: doc.id.clone(),
        description: doc.description.clone(),
        kind,
        needs: doc.needs.clone(),
        when: doc.when.clone(),
        foreach: doc.foreach.as_ref().map(|expr| Foreach {
            expr: expr.clone(),
            item_var: doc.item_var.clone().unwrap_or_else(|| "item".into()),
        }),
        output: doc.output.as_ref().map(|o| OutputSpec {
            schema: o.schema.clone(),
            corrections: o.corrections.unwrap_or(2),
        }),
        phase: doc.phase.unwrap_or_default(),
        timeout: doc.timeout.as_deref().map(duration),
        limits: run.narrow(&limits(run, doc.limits.as_ref())),
        back_edge: doc.back_edge.as_ref().map(|l| BackEdge {
            to: l.to.clone(),
            when: l.when.clone(),
            max: l.max,
        }),
        allow_failure: doc.allow_failure,
    }
}

/// A plan from a recipe document (JSON), for tool steps.
pub fn plan_from_document(document: RecipeDocument) -> Plan {
    let run_limits = limits(&Limits::default(), document.limits.as_ref());
    let steps: Vec<Step> = document
        .steps
        .iter()
        .map(|s| step(s, &run_limits))
        .collect();
    // Topological order, stable by document order.
    let mut order: Vec<usize> = Vec::new();
    while order.len() < steps.len() {
        let next = (0..steps.len())
            .find(|i| {
                !order.contains(i)
                    && steps[*i]
                        .needs
                        .iter()
                        .all(|n| order.iter().any(|o| &steps[*o].id == n))
            })
            .expect("a cycle in needs");
        order.push(next);
    }
    let index = |id: &str| order.iter().position(|o| steps[*o].id == id).unwrap();
    let nodes: Vec<PlanNode> = order
        .iter()
        .map(|&i| PlanNode {
            step: steps[i].clone(),
            needs: steps[i].needs.iter().map(|n| index(n)).collect(),
        })
        .collect();
    let mut edges = Vec::new();
    for (to, node) in nodes.iter().enumerate() {
        for &from in &node.needs {
            edges.push(PlanEdge::Needs { from, to });
        }
        if let Some(back) = &node.step.back_edge {
            edges.push(PlanEdge::Back {
                from: to,
                to: index(&back.to),
                when: back.when.clone(),
                max: back.max,
            });
        }
    }
    let recipe = Recipe {
        name: document.name.clone(),
        origin: Origin::File("test.yaml".into()),
        inputs: document.inputs.clone(),
        limits: run_limits,
        capabilities: IndexMap::new(),
        checks: Vec::new(),
        roles: IndexMap::new(),
        steps,
        outputs: document.outputs.clone(),
        document,
    };
    Plan {
        recipe: Arc::new(recipe),
        nodes,
        edges,
    }
}

/// A plan from the JSON of a recipe (apiVersion and kind are filled in).
pub fn plan(mut doc: Value) -> Plan {
    doc["apiVersion"] = json!("protoflow/v1");
    doc["kind"] = json!("Recipe");
    if doc.get("name").is_none() {
        doc["name"] = json!("test");
    }
    plan_from_document(serde_json::from_value(doc).unwrap())
}

/// Collects events in memory.
#[derive(Default)]
pub struct Collector(pub Mutex<Vec<Event>>);

impl EventListener for Collector {
    fn on_event(&self, event: &Event) {
        self.0.lock().unwrap().push(event.clone());
    }
}

impl Collector {
    pub fn types(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.kind.type_name().to_string())
            .collect()
    }
    pub fn json(&self) -> Vec<Value> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect()
    }
}

/// A project in a temp dir, its store and an executor with the built-in tools.
pub struct Project {
    pub dir: tempfile::TempDir,
    pub store: Store,
    pub executor: Executor,
}

impl Project {
    pub fn new() -> Project {
        Project::with(|_| {})
    }

    pub fn with(configure: impl FnOnce(&mut ExecutorConfig)) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let store = Store::open_project(&root).unwrap();
        let mut config = ExecutorConfig::new(store.clone(), root);
        configure(&mut config);
        Project {
            dir,
            store,
            executor: Executor::new(config),
        }
    }

    pub fn root(&self) -> std::path::PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    pub async fn run(&self, plan: Plan) -> (RunReport, Arc<Collector>) {
        self.run_with(plan, IndexMap::new(), RunOptions::default())
            .await
    }

    pub async fn run_with(
        &self,
        plan: Plan,
        inputs: IndexMap<String, Value>,
        mut options: RunOptions,
    ) -> (RunReport, Arc<Collector>) {
        let collector = Arc::new(Collector::default());
        options.listeners.push(collector.clone());
        let report = self.executor.run(plan, inputs, options).await.unwrap();
        (report, collector)
    }
}

pub fn step_status(report: &RunReport, key: &str) -> String {
    report
        .steps
        .iter()
        .find(|s| s.key == key)
        .map(|s| s.status.to_string())
        .unwrap_or_else(|| format!("<no step {key}>"))
}

pub fn step_output(report: &RunReport, key: &str) -> Value {
    report
        .steps
        .iter()
        .find(|s| s.key == key)
        .map(|s| s.output.clone())
        .unwrap_or(Value::Null)
}

pub fn step_reason(report: &RunReport, key: &str) -> String {
    report
        .steps
        .iter()
        .find(|s| s.key == key)
        .and_then(|s| s.reason.clone())
        .unwrap_or_default()
}

/// `sh -c SCRIPT` as a command step's argv.
pub fn sh(script: &str) -> Value {
    json!(["sh", "-c", script])
}
