//! Building the plan: a validated recipe's steps in topological order (ties broken
//! by document order, so plans are deterministic), with needs and back edges.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use miette::Diagnostic;
use thiserror::Error;

use super::plan::{Plan, PlanEdge, PlanNode};
use crate::recipe::Recipe;

/// Why a recipe could not become a plan. Validation rules these out; they are
/// reachable only for a `Recipe` built by hand.
#[derive(Debug, Error, Diagnostic, PartialEq, Eq)]
pub enum PlanError {
    /// A `needs` or `loop.to` names no step.
    #[error("step `{step}` refers to `{missing}`, which is not a step")]
    #[diagnostic(
        code(protoflow::graph::unknown_step),
        help("validate the recipe first")
    )]
    UnknownStep {
        /// The referring step.
        step: String,
        /// The missing id.
        missing: String,
    },
    /// Two steps share an id.
    #[error("step id `{0}` is used twice")]
    #[diagnostic(
        code(protoflow::graph::duplicate_step),
        help("validate the recipe first")
    )]
    DuplicateStep(String),
    /// `needs` has a cycle.
    #[error("the steps' needs form a cycle through `{0}`")]
    #[diagnostic(code(protoflow::graph::cycle), help("validate the recipe first"))]
    Cycle(String),
}

/// Builds the plan of a validated recipe.
pub fn build_plan(recipe: Arc<Recipe>) -> Result<Plan, PlanError> {
    let steps = &recipe.steps;
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        if index.insert(s.id.as_str(), i).is_some() {
            return Err(PlanError::DuplicateStep(s.id.clone()));
        }
    }
    let lookup = |step: &str, id: &str| {
        index
            .get(id)
            .copied()
            .ok_or_else(|| PlanError::UnknownStep {
                step: step.to_string(),
                missing: id.to_string(),
            })
    };
    // Document-order needs, deduplicated.
    let mut needs_doc: Vec<Vec<usize>> = Vec::with_capacity(steps.len());
    for s in steps {
        let mut n = Vec::new();
        for id in &s.needs {
            let k = lookup(&s.id, id)?;
            if !n.contains(&k) {
                n.push(k);
            }
        }
        needs_doc.push(n);
    }
    // Kahn's algorithm, smallest document index first.
    let mut indegree: Vec<usize> = needs_doc.iter().map(Vec::len).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); steps.len()];
    for (i, n) in needs_doc.iter().enumerate() {
        for &k in n {
            dependents[k].push(i);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = indegree
        .iter()
        .enumerate()
        .filter(|(_, d)| **d == 0)
        .map(|(i, _)| Reverse(i))
        .collect();
    let mut order = Vec::with_capacity(steps.len());
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &d in &dependents[i] {
            indegree[d] -= 1;
            if indegree[d] == 0 {
                ready.push(Reverse(d));
            }
        }
    }
    if order.len() != steps.len() {
        let stuck = (0..steps.len())
            .find(|i| !order.contains(i))
            .map(|i| steps[i].id.clone())
            .unwrap_or_default();
        return Err(PlanError::Cycle(stuck));
    }
    let mut position = vec![0; steps.len()];
    for (pos, &i) in order.iter().enumerate() {
        position[i] = pos;
    }
    let mut nodes = Vec::with_capacity(steps.len());
    let mut edges = Vec::new();
    for &i in &order {
        let needs: Vec<usize> = needs_doc[i].iter().map(|&k| position[k]).collect();
        for &from in &needs {
            edges.push(PlanEdge::Needs {
                from,
                to: position[i],
            });
        }
        nodes.push(PlanNode {
            step: steps[i].clone(),
            needs,
        });
    }
    for &i in &order {
        if let Some(back) = &steps[i].back_edge {
            let to = lookup(&steps[i].id, &back.to)?;
            edges.push(PlanEdge::Back {
                from: position[i],
                to: position[to],
                when: back.when.clone(),
                max: back.max,
            });
        }
    }
    Ok(Plan {
        recipe,
        nodes,
        edges,
    })
}
