//! What the executor needs from the outside: something to run tools and something
//! to run agents. The tool registry and the model loop implement these traits; the
//! executor never knows a tool's or a role's meaning.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Budget;
use super::recorder::ReceiptSink;
use crate::evidence::Receipt;
use crate::policy::{Authority, Capability, Decision};
use crate::recipe::{Delegate, OutputSpec, ResolvedRole};
use crate::tools::ToolContext;

/// One tool call from a tool step (or from an agent, through the same invoker).
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// The step key making the call.
    pub step: String,
    /// The tool's name.
    pub tool: String,
    /// Rendered arguments.
    pub args: Value,
    /// The context: root, phase, cancellation, output cap, environment.
    pub ctx: ToolContext,
    /// What the call may do (tools allowed, capability decisions, phase).
    pub authority: Authority,
}

/// A tool call's result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The value later steps read as `steps.<id>.output` (for a command: exit code,
    /// stdout, stderr).
    pub value: Value,
    /// The main text a typed output is parsed from (a command's stdout), when the
    /// value is not itself the output.
    pub text: Option<String>,
    /// Whether the call counts as a failure of the step (a command's non-zero
    /// exit); the value is still kept for later steps and loops to read.
    pub failed: Option<String>,
}

/// A tool call's result and its receipt (every call has one, refused calls too).
#[derive(Debug)]
pub struct ToolCallOutcome {
    /// The result, or why there is none.
    pub result: Result<ToolResult, String>,
    /// The receipt, when the call reached a tool.
    pub receipt: Option<Receipt>,
}

/// Runs tools by name. The tool registry implements this (authority, approvals,
/// receipts); [`super::RegistryTools`] adapts the tool registry.
#[async_trait]
pub trait ToolInvoker: Send + Sync {
    /// Performs one call. Must stop promptly (killing its processes) when
    /// `call.ctx.cancel` is canceled.
    async fn invoke(&self, call: ToolCall) -> ToolCallOutcome;
}

/// One attempt of an agent step.
#[derive(Clone)]
pub struct AgentRequest {
    /// The step key.
    pub step: String,
    /// The role, resolved with the recipe's overrides.
    pub role: Arc<ResolvedRole>,
    /// The rendered task.
    pub prompt: String,
    /// The tools the step may use (already intersected).
    pub tools: Vec<String>,
    /// Roles exposed as tools.
    pub delegates: Vec<Delegate>,
    /// The typed output, when declared.
    pub output: Option<OutputSpec>,
    /// The step's budget (charges count up to the run's root). Charge model calls,
    /// tokens and children here before spending them.
    pub budget: Budget,
    /// Tool context (phase, cancellation, root).
    pub ctx: ToolContext,
    /// The run's tool invoker, for the agent's tool calls.
    pub tools_invoker: Arc<dyn ToolInvoker>,
    /// Where the agent records the receipts of calls it makes itself.
    pub receipts: ReceiptSink,
    /// 1 for the first attempt; higher for corrections.
    pub attempt: u32,
    /// For a correction: why the previous answer was not accepted.
    pub correction: Option<String>,
    /// The recipe's capability ceiling (delegated workers run under it too).
    pub ceiling: IndexMap<Capability, Decision>,
    /// The recipe's resolved roles, for the roles `delegates` name.
    pub roles: IndexMap<String, Arc<ResolvedRole>>,
    /// The run's template data (`inputs`, `steps`, a fan-out item) as JSON, for
    /// rendering the role's system prompt.
    pub data: Value,
}

impl std::fmt::Debug for AgentRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentRequest")
            .field("step", &self.step)
            .field("role", &self.role.key)
            .field("attempt", &self.attempt)
            .finish_non_exhaustive()
    }
}

/// How an agent attempt ended. Only `Completed` counts as completion: the executor
/// fails the step for every other status (with the status and reason in the error,
/// and the partial result as the step's output), so `allow_failure` and `when:` on
/// later steps decide what happens next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AgentStatus {
    /// A final answer (or a valid typed value) was delivered.
    Completed,
    /// A window ended without new applied writes (`no_progress`); earlier edits stay.
    Blocked,
    /// Every window was used, each with progress (`turn_limit`).
    NeedsContext,
    /// The loop gave up: correction allowance exhausted, repeated unparseable
    /// replies, a typed output that never validated.
    Failed,
}

impl AgentStatus {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentStatus::Completed => "completed",
            AgentStatus::Blocked => "blocked",
            AgentStatus::NeedsContext => "needs_context",
            AgentStatus::Failed => "failed",
        }
    }
}

impl std::fmt::Display for AgentStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an agent attempt produced.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentResult {
    /// The final answer text (parsed for a typed output).
    pub text: String,
    /// A structured value, when the agent produced one directly.
    pub value: Option<Value>,
    /// How the attempt ended; anything but `Completed` fails the step.
    pub status: AgentStatus,
    /// Why it ended that way (`no_progress`, `turn_limit`, `corrections_exhausted: ...`).
    pub reason: Option<String>,
    /// Receipts of the calls this attempt made (its own and its delegates'), in order.
    pub receipts: Vec<Receipt>,
}

impl AgentResult {
    /// A completed attempt with this answer.
    pub fn completed(text: impl Into<String>, value: Option<Value>) -> AgentResult {
        AgentResult {
            text: text.into(),
            value,
            status: AgentStatus::Completed,
            reason: None,
            receipts: Vec::new(),
        }
    }
}

/// Runs an agent step's inference loop. The model loop implements this.
#[async_trait]
pub trait AgentRunner: Send + Sync {
    /// One attempt. Must stop promptly when `request.ctx.cancel` is canceled.
    async fn run(&self, request: AgentRequest) -> Result<AgentResult, String>;
}
