//! The graph: the plan built from a validated recipe, and the executor that runs it.
//!
//! The plan knows steps, edges, fan-out and bounded loops; it never knows what a
//! step's role or tool means. The executor schedules steps, evaluates conditions
//! and templates, enforces budgets, timeouts and cancellation, and records every
//! state change; what a step *does* is behind the [`ToolInvoker`] and
//! [`AgentRunner`] traits.

pub mod budget;
mod build;
mod executor;
pub mod inputs;
pub mod output;
mod plan;
mod recorder;
mod registry_tools;
mod render;
mod report;
mod runner;
pub mod template;

pub use budget::{Budget, BudgetUse, Exhaustion, Resource};
pub use build::{PlanError, build_plan};
pub use executor::{
    ChildPlanner, ExecError, Executor, ExecutorConfig, ResumeOptions, RunOptions, new_run_id,
};
pub use plan::{Plan, PlanEdge, PlanNode};
pub use recorder::ReceiptSink;
pub use registry_tools::RegistryTools;
pub use render::{to_dot, to_mermaid};
pub use report::{
    BudgetReport, GateReport, LoopReport, RunReport, StepReport, format_ms, limits_json,
};
pub use runner::{
    AgentRequest, AgentResult, AgentRunner, AgentStatus, ToolCall, ToolCallOutcome, ToolInvoker,
    ToolResult,
};
