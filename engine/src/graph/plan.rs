//! The plan: a validated recipe as a graph, ready to execute or render.

use std::sync::Arc;

use crate::recipe::{Recipe, Step};

/// A validated recipe as an acyclic graph of steps plus bounded back-edges.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The recipe it was built from.
    pub recipe: Arc<Recipe>,
    /// Steps in a topological order of the forward edges (`needs`).
    pub nodes: Vec<PlanNode>,
    /// Every edge, forward and back.
    pub edges: Vec<PlanEdge>,
}

/// One step in the plan.
#[derive(Debug, Clone)]
pub struct PlanNode {
    /// The step, as validated.
    pub step: Step,
    /// Indexes (into `Plan::nodes`) of the steps it needs.
    pub needs: Vec<usize>,
}

/// An edge of the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanEdge {
    /// `to` needs `from`.
    Needs {
        /// Index of the step that must finish first.
        from: usize,
        /// Index of the step that waits.
        to: usize,
    },
    /// After `from`, run again from `to` while the condition holds, at most `max` times.
    Back {
        /// Index of the step the loop is declared on.
        from: usize,
        /// Index of the step to run again from.
        to: usize,
        /// The loop condition.
        when: String,
        /// The bound.
        max: u32,
    },
}
