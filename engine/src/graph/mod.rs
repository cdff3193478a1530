//! The graph: the plan built from a validated recipe, and the executor that runs it.
//!
//! The plan knows steps, edges, fan-out and bounded loops; it never knows what a
//! step's role or tool means.

mod build;
mod plan;
mod render;

pub use build::{PlanError, build_plan};
pub use plan::{Plan, PlanEdge, PlanNode};
pub use render::{to_dot, to_mermaid};
