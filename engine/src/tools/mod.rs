//! Tools: every effect protoflow has on the world goes through here.
//!
//! This module owns the catalog of tool names (what recipe validation checks
//! against), the `Tool` trait (prepare -> execute, leaving a receipt) and the tool
//! families. Tools never reach back into the executor, and never decide authority:
//! the policy layer approves a prepared call before it executes.

pub mod args;
mod catalog;
pub mod checks;
mod context;
mod echo;
mod error;
pub mod findings;
pub mod fs;
pub mod git;
mod invoke;
pub mod mcp;
pub mod process;
mod project;
mod registry;
pub mod sources;
pub mod task;
mod tool;
pub mod web;

pub use catalog::{Effect, ToolSpec, catalog, lookup};
pub use context::ToolContext;
pub use echo::Echo;
pub use error::ToolError;
pub use invoke::{Invocation, invoke, status_of};
pub use project::project_registry;
pub use registry::ToolRegistry;
pub use tool::{PreparedCall, Preview, Tool, ToolOutput};
