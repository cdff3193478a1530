//! What one agent step shares with every inference it runs (its own and its
//! delegates'), and what one inference is asked to do.
//!
//! Plain data: the loop (`inference.rs`) reads it; nothing here performs an effect.

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use super::settings::AgentSettings;
use crate::evidence::{Receipt, ReceiptFacts, ReceiptStatus};
use crate::graph::{Budget, ReceiptSink, ToolInvoker};
use crate::llm::Provider;
use crate::policy::{Authority, Capability, Decision};
use crate::recipe::{Delegate, OutputSpec, ResolvedRole};
use crate::store::MemoryKey;
use crate::tools::{Effect, ToolContext, ToolRegistry, lookup};

/// Shared by the step's inference and its delegated workers.
pub(crate) struct Session {
    pub provider: Arc<dyn Provider>,
    pub registry: Option<Arc<ToolRegistry>>,
    pub settings: AgentSettings,
    /// The step's budget (children charge the same tree: the root is shared).
    pub budget: Budget,
    pub ctx: ToolContext,
    pub invoker: Arc<dyn ToolInvoker>,
    /// The recipe's capability ceiling.
    pub ceiling: IndexMap<Capability, Decision>,
    /// The recipe's roles (for delegates).
    pub roles: IndexMap<String, Arc<ResolvedRole>>,
    /// The run's template data.
    pub data: Value,
}

/// One inference: a role working on one task.
pub(crate) struct Job {
    pub role: Arc<ResolvedRole>,
    /// The task message.
    pub task: String,
    /// What its tool calls may do.
    pub authority: Authority,
    /// Roles it may delegate to (empty for workers).
    pub delegates: Vec<Delegate>,
    pub output: Option<OutputSpec>,
    /// Where its receipts and events go.
    pub sink: ReceiptSink,
    /// Where its conversation is kept (stateful roles only).
    pub memory: Option<MemoryKey>,
    /// 0 for a step's own inference, 1 for a delegated worker.
    pub depth: u32,
}

/// Whether a receipt is an applied write: an executed write tool that left a new
/// file revision.
pub(crate) fn is_applied_write(receipt: &Receipt) -> bool {
    receipt.status == ReceiptStatus::Executed
        && receipt.facts.revision_after.is_some()
        && receipt.facts.revision_after != receipt.facts.revision_before
        && lookup(&receipt.tool).is_some_and(|s| s.effect == Effect::Write)
}

/// A receipt for a call the loop refused itself (never reached a tool).
pub(crate) fn refusal_receipt(
    ctx: &ToolContext,
    tool: &str,
    args: &Value,
    status: ReceiptStatus,
    reason: &str,
) -> Receipt {
    Receipt {
        tool: tool.to_string(),
        args: ctx.redactor.redact_value(args),
        capability: lookup(tool).and_then(|s| s.capability),
        phase: ctx.phase,
        status,
        reason: Some(ctx.redactor.redact_str(reason).into_owned()),
        started_at_ms: crate::events::now_ms(),
        duration_ms: 0,
        facts: ReceiptFacts::default(),
    }
}
