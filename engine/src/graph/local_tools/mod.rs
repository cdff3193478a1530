//! Built-in stand-in tools so that tool steps run for real before the tool
//! registry lands: `echo` and `execute_command`.
//!
//! STAND-IN: the tool registry (engine/src/tools/, with authority, approvals and
//! the shared process core) replaces this through [`super::ToolInvoker`]. No
//! authority checks happen here beyond the phase rule that commands are not run
//! in no-effect contexts; every call still leaves a receipt. Unknown tools are
//! refused with a clear reason, never faked.

mod command;

use async_trait::async_trait;
use serde_json::Value;

use super::runner::{ToolCall, ToolCallOutcome, ToolInvoker, ToolResult};
use crate::events::now_ms;
use crate::evidence::{Receipt, ReceiptFacts, ReceiptStatus};
use crate::tools::lookup;

/// `echo` and `execute_command`, run in-process.
#[derive(Debug, Default, Clone)]
pub struct LocalTools;

pub(crate) fn receipt(
    call: &ToolCall,
    status: ReceiptStatus,
    reason: Option<String>,
    started_at_ms: u64,
    facts: ReceiptFacts,
) -> Receipt {
    Receipt {
        tool: call.tool.clone(),
        args: call.args.clone(),
        capability: lookup(&call.tool).and_then(|spec| spec.capability),
        phase: call.ctx.phase,
        status,
        reason,
        started_at_ms,
        duration_ms: now_ms().saturating_sub(started_at_ms),
        facts,
    }
}

#[async_trait]
impl ToolInvoker for LocalTools {
    async fn invoke(&self, call: ToolCall) -> ToolCallOutcome {
        let started = now_ms();
        match call.tool.as_str() {
            "echo" => {
                // `with` is the value; a single `value` argument is unwrapped.
                let value = match &call.args {
                    Value::Object(map) if map.len() == 1 && map.contains_key("value") => {
                        map["value"].clone()
                    }
                    other => other.clone(),
                };
                let facts = ReceiptFacts {
                    output_bytes: value.to_string().len() as u64,
                    ..ReceiptFacts::default()
                };
                ToolCallOutcome {
                    receipt: Some(receipt(
                        &call,
                        ReceiptStatus::Executed,
                        None,
                        started,
                        facts,
                    )),
                    result: Ok(ToolResult {
                        value,
                        text: None,
                        failed: None,
                    }),
                }
            }
            "execute_command" => command::execute(&call, started).await,
            other => {
                let reason = if lookup(other).is_some() {
                    format!(
                        "tool `{other}` is not available in this build of protoflow (no executor is registered for it)"
                    )
                } else {
                    format!("unknown tool `{other}`")
                };
                ToolCallOutcome {
                    receipt: Some(receipt(
                        &call,
                        ReceiptStatus::Rejected,
                        Some(reason.clone()),
                        started,
                        ReceiptFacts::default(),
                    )),
                    result: Err(reason),
                }
            }
        }
    }
}
