//! The executor's bookkeeping for one graph: node and instance results, loops,
//! the readiness rule and the data templates see.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::events::StepStatus;
use crate::graph::{Plan, PlanEdge};

/// How one step instance (or a whole non-fan-out step) ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InstanceResult {
    pub key: String,
    pub item_index: Option<usize>,
    pub status: StepStatus,
    pub output: Value,
    pub error: Option<String>,
    pub attempts: u32,
    pub duration_ms: Option<u64>,
    pub reused: bool,
    pub effects_uncertain: bool,
}

impl InstanceResult {
    pub fn simple(key: String, status: StepStatus, error: Option<String>) -> InstanceResult {
        InstanceResult {
            key,
            item_index: None,
            status,
            output: Value::Null,
            error,
            attempts: 0,
            duration_ms: None,
            reused: false,
            effects_uncertain: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Pending,
    Running,
    Done,
}

/// One node of the plan while the graph runs.
#[derive(Debug, Clone)]
pub(crate) struct NodeState {
    pub phase: Phase,
    /// Times it started (loop iterations).
    pub attempt: u32,
    /// The node's own result (for a fan-out: the aggregate).
    pub result: Option<InstanceResult>,
    /// Fan-out instances (empty for plain steps).
    pub instances: Vec<Option<InstanceResult>>,
    pub fanout: bool,
    /// Instances still running.
    pub outstanding: usize,
}

/// A bounded back-edge while the graph runs.
#[derive(Debug, Clone)]
pub(crate) struct LoopState {
    pub from: usize,
    pub to: usize,
    pub when: String,
    pub max: u32,
    pub taken: u32,
    pub exhausted: bool,
    /// Nodes that run again when it is taken (from `to` through `from`).
    pub range: Vec<usize>,
}

/// Loops of the plan, and for every node the extra needs loops impose: a step
/// outside a loop that needs a step inside it waits for the loop to settle (for its
/// `from` step), so it never sees a result a later iteration replaces.
pub(crate) fn loops_of(plan: &Plan) -> (Vec<LoopState>, Vec<Vec<usize>>) {
    let n = plan.nodes.len();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, node) in plan.nodes.iter().enumerate() {
        for &need in &node.needs {
            if need < n {
                dependents[need].push(i);
            }
        }
    }
    let closure = |start: usize, next: &dyn Fn(usize) -> Vec<usize>| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        while let Some(i) = stack.pop() {
            if seen.insert(i) {
                stack.extend(next(i));
            }
        }
        seen
    };
    let mut loops = Vec::new();
    let mut extra: Vec<Vec<usize>> = vec![Vec::new(); n];
    for edge in &plan.edges {
        let PlanEdge::Back {
            from,
            to,
            when,
            max,
        } = edge
        else {
            continue;
        };
        let (from, to) = (*from, *to);
        if from >= n || to >= n {
            continue;
        }
        let after_to = closure(to, &|i| dependents[i].clone());
        let before_from = closure(from, &|i| plan.nodes[i].needs.clone());
        let range: Vec<usize> = after_to.intersection(&before_from).copied().collect();
        for (m, node) in plan.nodes.iter().enumerate() {
            if !range.contains(&m) && node.needs.iter().any(|need| range.contains(need)) {
                extra[m].push(from);
            }
        }
        loops.push(LoopState {
            from,
            to,
            when: when.clone(),
            max: *max,
            taken: 0,
            exhausted: false,
            range,
        });
    }
    (loops, extra)
}

/// The `steps` object templates see: every node that has a result.
pub(crate) fn steps_data(plan: &Plan, nodes: &[NodeState]) -> Value {
    let mut steps = Map::new();
    for (node, state) in plan.nodes.iter().zip(nodes) {
        let Some(result) = &state.result else {
            continue;
        };
        let mut entry = json!({
            "status": result.status.as_str(),
            "output": result.output,
            "error": result.error,
            "attempt": state.attempt,
        });
        if state.fanout {
            entry["instances"] = Value::Array(
                state
                    .instances
                    .iter()
                    .flatten()
                    .map(|i| json!({"status": i.status.as_str(), "output": i.output, "error": i.error}))
                    .collect(),
            );
        }
        steps.insert(node.step.id.clone(), entry);
    }
    Value::Object(steps)
}

/// Aggregates fan-out instances into the node's status (item order kept).
pub(crate) fn aggregate(instances: &[Option<InstanceResult>]) -> (StepStatus, Option<String>) {
    let statuses: Vec<StepStatus> = instances.iter().flatten().map(|i| i.status).collect();
    let order = [
        StepStatus::Interrupted,
        StepStatus::Failed,
        StepStatus::TimedOut,
        StepStatus::Canceled,
        StepStatus::NotRun,
    ];
    for status in order {
        let count = statuses.iter().filter(|s| **s == status).count();
        if count > 0 {
            return (
                status,
                Some(format!("{count} of {} instances {status}", statuses.len())),
            );
        }
    }
    (StepStatus::Succeeded, None)
}
