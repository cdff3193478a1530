//! The graph: the plan built from a validated recipe, and the executor that runs it.
//!
//! The plan knows steps, edges, fan-out and bounded loops; it never knows what a
//! step's role or tool means.

mod plan;

pub use plan::{Plan, PlanEdge, PlanNode};
