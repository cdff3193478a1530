//! The graph: the plan built from a validated recipe, and the executor that runs it.
//!
//! The plan knows steps, edges, fan-out and bounded loops; it never knows what a
//! step's role or tool means. The executor schedules steps, evaluates conditions
//! and templates, enforces budgets, timeouts and cancellation, and records every
//! state change; what a step *does* is behind the [`ToolInvoker`] and
//! [`AgentRunner`] traits.

pub mod budget;
mod plan;

pub use budget::{Budget, BudgetUse, Exhaustion, Resource};
pub use plan::{Plan, PlanEdge, PlanNode};
