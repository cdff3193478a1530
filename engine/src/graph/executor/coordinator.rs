//! The scheduling loop of one graph (the run's, or a child recipe's).
//!
//! Readiness: a step starts when every step in its `needs` (and, for a step
//! downstream of a loop, the loop's `from` step) is done. Then, in order: the
//! dependents rule (docs/execution.md), the `when` condition, the fan-out list.
//! Instances queue on the run's concurrency semaphore. After a loop's `from` step
//! finishes, its condition decides whether the range runs again.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::instance::{InstanceSpec, run_instance};
use super::run::RunCtx;
use super::state::{InstanceResult, LoopState, NodeState, Phase, aggregate, loops_of, steps_data};
use crate::events::{EventKind, StepStatus};
use crate::graph::Plan;
use crate::graph::template::Data;
use crate::store::StepRecord;

/// One graph to run.
pub(crate) struct Graph {
    pub plan: Arc<Plan>,
    /// Key prefix (`parent/` inside a child recipe).
    pub prefix: String,
    pub inputs: Value,
    pub cancel: CancellationToken,
    /// Stored succeeded results to reuse, by step key (resume).
    pub reuse: HashMap<String, InstanceResult>,
    /// Interrupted step keys not replayed, with whether their effects are uncertain.
    pub interrupted: HashMap<String, bool>,
    /// Loop iterations already taken, by (from, to) node index (resume).
    pub loops_taken: HashMap<(usize, usize), u32>,
}

impl Graph {
    pub fn new(plan: Arc<Plan>, prefix: String, inputs: Value, cancel: CancellationToken) -> Graph {
        Graph {
            plan,
            prefix,
            inputs,
            cancel,
            reuse: HashMap::new(),
            interrupted: HashMap::new(),
            loops_taken: HashMap::new(),
        }
    }
}

/// A finished graph.
pub(crate) struct GraphOutcome {
    pub nodes: Vec<NodeState>,
    pub loops: Vec<LoopState>,
    pub problems: Vec<String>,
    pub inputs: Value,
}

pub(crate) struct Done {
    pub node: usize,
    pub index: Option<usize>,
    pub result: InstanceResult,
}

/// Runs a graph to its end (boxed: recipe steps recurse into it).
pub(crate) fn run_graph(
    ctx: Arc<RunCtx>,
    graph: Graph,
) -> Pin<Box<dyn Future<Output = GraphOutcome> + Send>> {
    Box::pin(async move {
        let mut coordinator = Coordinator::new(ctx, graph);
        coordinator.drive().await;
        coordinator.into_outcome()
    })
}

struct Coordinator {
    ctx: Arc<RunCtx>,
    graph: Graph,
    nodes: Vec<NodeState>,
    loops: Vec<LoopState>,
    extra_needs: Vec<Vec<usize>>,
    problems: Vec<String>,
    tx: mpsc::UnboundedSender<Done>,
    rx: mpsc::UnboundedReceiver<Done>,
    running: usize,
}

impl Coordinator {
    fn new(ctx: Arc<RunCtx>, graph: Graph) -> Coordinator {
        let (mut loops, extra_needs) = loops_of(&graph.plan);
        for l in &mut loops {
            if let Some(taken) = graph.loops_taken.get(&(l.from, l.to)) {
                l.taken = *taken;
            }
        }
        let nodes = graph
            .plan
            .nodes
            .iter()
            .map(|node| NodeState {
                phase: Phase::Pending,
                attempt: 0,
                result: None,
                instances: Vec::new(),
                fanout: node.step.foreach.is_some(),
                outstanding: 0,
            })
            .collect();
        let (tx, rx) = mpsc::unbounded_channel();
        Coordinator {
            ctx,
            graph,
            nodes,
            loops,
            extra_needs,
            problems: Vec::new(),
            tx,
            rx,
            running: 0,
        }
    }

    fn key(&self, node: usize) -> String {
        format!(
            "{}{}",
            self.graph.prefix, self.graph.plan.nodes[node].step.id
        )
    }

    fn stopping(&self) -> Option<String> {
        if self.graph.cancel.is_cancelled() {
            return Some(
                self.ctx
                    .stopping()
                    .unwrap_or_else(|| "the run was canceled before it started".into()),
            );
        }
        self.ctx.stopping()
    }

    fn data(&self) -> Data {
        Data::from_json(&json!({
            "inputs": self.graph.inputs,
            "steps": steps_data(&self.graph.plan, &self.nodes),
        }))
    }

    async fn drive(&mut self) {
        let deadline = tokio::time::Instant::from_std(self.ctx.budget.root_deadline());
        let mut deadline_passed = false;
        loop {
            if self.stopping().is_none() {
                self.schedule();
            }
            if self.running == 0 {
                break;
            }
            tokio::select! {
                done = self.rx.recv() => {
                    let Some(done) = done else { break };
                    self.running -= 1;
                    self.on_done(done);
                }
                () = tokio::time::sleep_until(deadline), if !deadline_passed => {
                    deadline_passed = true;
                    if let Err(exhaustion) = self.ctx.budget.check_wall_time() {
                        self.ctx.report_exhaustion(&exhaustion);
                        self.ctx.work.cancel();
                    }
                }
            }
        }
        let reason = self
            .stopping()
            .unwrap_or_else(|| "the run ended before this step could start".into());
        for node in 0..self.nodes.len() {
            if self.nodes[node].phase == Phase::Pending {
                let key = self.key(node);
                self.skip(node, key, StepStatus::NotRun, reason.clone());
            }
        }
    }

    fn is_ready(&self, node: usize) -> bool {
        self.nodes[node].phase == Phase::Pending
            && self.graph.plan.nodes[node]
                .needs
                .iter()
                .chain(&self.extra_needs[node])
                .all(|&need| self.nodes.get(need).is_some_and(|n| n.phase == Phase::Done))
    }

    /// Starts every ready node, repeating while nodes complete without running.
    fn schedule(&mut self) {
        while self.stopping().is_none() {
            let Some(node) = (0..self.nodes.len()).find(|&n| self.is_ready(n)) else {
                break;
            };
            self.start(node);
        }
    }

    /// The dependents rule: why this node must be skipped, if it must.
    fn blocked_by_needs(&self, node: usize) -> Option<String> {
        let plan = &self.graph.plan;
        let needs = &plan.nodes[node].needs;
        let mut blocking = Vec::new();
        let mut skipped = 0;
        for &need in needs {
            let Some(result) = &self.nodes[need].result else {
                continue;
            };
            if result.status == StepStatus::Skipped {
                skipped += 1;
            } else if result.status.is_problem() && !plan.nodes[need].step.allow_failure {
                blocking.push(format!("`{}` {}", plan.nodes[need].step.id, result.status));
            }
        }
        if !blocking.is_empty() {
            return Some(format!("needs {}", blocking.join(", ")));
        }
        if !needs.is_empty() && skipped == needs.len() {
            return Some("all of its needs were skipped".into());
        }
        None
    }

    fn start(&mut self, node: usize) {
        let key = self.key(node);
        let step = self.graph.plan.nodes[node].step.clone();
        if let Some(uncertain) = self.graph.interrupted.remove(&key) {
            let mut result = InstanceResult::simple(
                key.clone(),
                StepStatus::Interrupted,
                Some(interrupted_reason(&key, uncertain)),
            );
            result.effects_uncertain = uncertain;
            self.put(&step.id, &result);
            self.complete(node, result);
            return;
        }
        if !self.nodes[node].fanout
            && let Some(mut reused) = self.graph.reuse.remove(&key)
        {
            reused.reused = true;
            self.nodes[node].attempt = reused.attempts;
            self.complete(node, reused);
            return;
        }
        if let Some(reason) = self.blocked_by_needs(node) {
            self.skip(node, key, StepStatus::Skipped, reason);
            return;
        }
        let data = self.data();
        if let Some(when) = &step.when {
            match self.ctx.templates.condition(when, &data) {
                Ok(true) => {}
                Ok(false) => {
                    self.skip(
                        node,
                        key,
                        StepStatus::Skipped,
                        format!("`when` is false: {when}"),
                    );
                    return;
                }
                Err(err) => {
                    self.fail_now(node, key, format!("`when` could not be evaluated: {err}"));
                    return;
                }
            }
        }
        self.nodes[node].attempt += 1;
        let attempt = self.nodes[node].attempt;
        let Some(foreach) = &step.foreach else {
            self.spawn(node, key, None, data, attempt);
            return;
        };
        let items = match self.ctx.templates.eval(&foreach.expr, &data) {
            Ok(Value::Array(items)) => items,
            Ok(other) => {
                let kind = match other {
                    Value::Null => "null",
                    Value::Bool(_) => "a boolean",
                    Value::Number(_) => "a number",
                    Value::String(_) => "a string",
                    Value::Object(_) => "an object",
                    Value::Array(_) => "a list",
                };
                self.fail_now(
                    node,
                    key,
                    format!(
                        "`foreach: {}` must produce a list, got {kind}",
                        foreach.expr
                    ),
                );
                return;
            }
            Err(err) => {
                self.fail_now(
                    node,
                    key,
                    format!("`foreach` could not be evaluated: {err}"),
                );
                return;
            }
        };
        self.ctx.recorder.emit(EventKind::FanoutExpanded {
            step: key.clone(),
            items: items.len(),
        });
        self.nodes[node].instances = vec![None; items.len()];
        self.nodes[node].phase = Phase::Running;
        for (index, item) in items.iter().enumerate() {
            let instance_key = format!("{key}[{index}]");
            if let Some(uncertain) = self.graph.interrupted.remove(&instance_key) {
                let mut result = InstanceResult::simple(
                    instance_key.clone(),
                    StepStatus::Interrupted,
                    Some(interrupted_reason(&instance_key, uncertain)),
                );
                result.item_index = Some(index);
                result.effects_uncertain = uncertain;
                self.put(&step.id, &result);
                self.nodes[node].instances[index] = Some(result);
                continue;
            }
            if let Some(mut reused) = self.graph.reuse.remove(&instance_key) {
                reused.reused = true;
                self.nodes[node].instances[index] = Some(reused);
                continue;
            }
            let item_data = data.with_item(&foreach.item_var, item, index);
            self.spawn(node, instance_key, Some(index), item_data, attempt);
        }
        if self.nodes[node].outstanding == 0 {
            self.finish_fanout(node);
        }
    }

    fn spawn(&mut self, node: usize, key: String, index: Option<usize>, data: Data, attempt: u32) {
        self.running += 1;
        self.nodes[node].outstanding += 1;
        self.nodes[node].phase = Phase::Running;
        let spec = InstanceSpec {
            node,
            key,
            item_index: index,
            data,
            attempt,
            cancel: self.graph.cancel.child_token(),
        };
        let ctx = Arc::clone(&self.ctx);
        let plan = Arc::clone(&self.graph.plan);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let result = run_instance(ctx, plan, &spec).await;
            let _ = tx.send(Done {
                node: spec.node,
                index: spec.item_index,
                result,
            });
        });
    }

    fn on_done(&mut self, done: Done) {
        let state = &mut self.nodes[done.node];
        state.outstanding = state.outstanding.saturating_sub(1);
        match done.index {
            Some(index) => {
                if let Some(slot) = state.instances.get_mut(index) {
                    *slot = Some(done.result);
                }
                if state.outstanding == 0 {
                    self.finish_fanout(done.node);
                }
            }
            None => self.complete(done.node, done.result),
        }
    }

    fn finish_fanout(&mut self, node: usize) {
        let key = self.key(node);
        let state = &self.nodes[node];
        let (status, error) = aggregate(&state.instances);
        let output = Value::Array(
            state
                .instances
                .iter()
                .map(|i| i.as_ref().map_or(Value::Null, |i| i.output.clone()))
                .collect(),
        );
        let result = InstanceResult {
            key,
            item_index: None,
            status,
            output,
            error,
            attempts: state.attempt,
            duration_ms: None,
            reused: false,
            effects_uncertain: state
                .instances
                .iter()
                .flatten()
                .any(|i| i.effects_uncertain),
        };
        let id = self.graph.plan.nodes[node].step.id.clone();
        self.put(&id, &result);
        self.complete(node, result);
    }

    fn put(&self, node_id: &str, result: &InstanceResult) {
        self.ctx.recorder.put_step(&StepRecord {
            key: result.key.clone(),
            node: node_id.to_string(),
            item_index: result.item_index,
            status: result.status,
            attempts: result.attempts,
            started_at_ms: None,
            finished_at_ms: Some(crate::events::now_ms()),
            output: (!result.output.is_null()).then(|| result.output.clone()),
            error: result.error.clone(),
            effects_uncertain: result.effects_uncertain,
        });
    }

    fn skip(&mut self, node: usize, key: String, status: StepStatus, reason: String) {
        self.ctx.recorder.emit(EventKind::StepSkipped {
            step: key.clone(),
            reason: reason.clone(),
            status,
        });
        let result = InstanceResult::simple(key, status, Some(reason));
        let id = self.graph.plan.nodes[node].step.id.clone();
        self.put(&id, &result);
        self.complete(node, result);
    }

    /// A step that fails before running anything (a template error in `when` or
    /// `foreach`, a fan-out over a non-list).
    fn fail_now(&mut self, node: usize, key: String, error: String) {
        self.nodes[node].attempt += 1;
        self.ctx.recorder.emit(EventKind::StepStarted {
            step: key.clone(),
            node: self.graph.plan.nodes[node].step.id.clone(),
            item_index: None,
            attempt: self.nodes[node].attempt,
        });
        self.ctx.recorder.emit(EventKind::StepFinished {
            step: key.clone(),
            status: StepStatus::Failed,
            duration_ms: 0,
            error: Some(error.clone()),
        });
        let mut result = InstanceResult::simple(key, StepStatus::Failed, Some(error));
        result.attempts = self.nodes[node].attempt;
        let id = self.graph.plan.nodes[node].step.id.clone();
        self.put(&id, &result);
        self.complete(node, result);
    }

    /// A node is done: record it, then decide its loops.
    fn complete(&mut self, node: usize, result: InstanceResult) {
        let status = result.status;
        self.nodes[node].result = Some(result);
        self.nodes[node].phase = Phase::Done;
        if matches!(
            status,
            StepStatus::Skipped
                | StepStatus::NotRun
                | StepStatus::Canceled
                | StepStatus::Interrupted
        ) || self.stopping().is_some()
        {
            return;
        }
        for index in 0..self.loops.len() {
            if self.loops[index].from != node {
                continue;
            }
            let data = self.data();
            let when = self.loops[index].when.clone();
            let plan = Arc::clone(&self.graph.plan);
            let from_id = &plan.nodes[self.loops[index].from].step.id;
            let to_id = &plan.nodes[self.loops[index].to].step.id;
            match self.ctx.templates.condition(&when, &data) {
                Ok(false) => {}
                Ok(true) => {
                    let l = &mut self.loops[index];
                    if l.taken < l.max {
                        l.taken += 1;
                        self.ctx.recorder.emit(EventKind::LoopTaken {
                            from: format!("{}{from_id}", self.graph.prefix),
                            to: format!("{}{to_id}", self.graph.prefix),
                            iteration: l.taken,
                            max: l.max,
                        });
                        for &member in &l.range {
                            self.nodes[member].phase = Phase::Pending;
                        }
                    } else {
                        l.exhausted = true;
                        self.ctx.recorder.emit(EventKind::LoopExhausted {
                            from: format!("{}{from_id}", self.graph.prefix),
                            to: format!("{}{to_id}", self.graph.prefix),
                            max: l.max,
                        });
                        self.problems.push(format!(
                            "loop `{from_id}` -> `{to_id}` was exhausted: `{when}` still held after {} iteration(s)",
                            l.max
                        ));
                    }
                }
                Err(err) => self.problems.push(format!(
                    "loop `{from_id}` -> `{to_id}`: the condition could not be evaluated: {err}"
                )),
            }
        }
    }

    fn into_outcome(self) -> GraphOutcome {
        GraphOutcome {
            nodes: self.nodes,
            loops: self.loops,
            problems: self.problems,
            inputs: self.graph.inputs,
        }
    }
}

fn interrupted_reason(key: &str, uncertain: bool) -> String {
    if uncertain {
        format!(
            "interrupted when its process died; its effects are uncertain and it was not replayed (resume with --replay {key} to run it again)"
        )
    } else {
        "interrupted when its process died".to_string()
    }
}
