//! Built-in tool steps until the tool registry is wired: `echo`, and every tool
//! of `crate::tools` that implements [`Tool`] (today `execute_command`) run
//! through its own prepare -> execute.
//!
//! STAND-IN for the registry's `invoke` (authority, approvals): no approval layer
//! runs here, so only tools whose effects recipes already bound are offered
//! (`echo`, `execute_command`; the process core's group kill, exact environment
//! and output caps apply). Every call still leaves a receipt. Unknown tools and
//! catalog tools without an executor here are refused with a clear reason, never
//! faked.

use async_trait::async_trait;
use serde_json::Value;

use super::runner::{ToolCall, ToolCallOutcome, ToolInvoker, ToolResult};
use crate::events::now_ms;
use crate::evidence::{Receipt, ReceiptFacts, ReceiptStatus};
use crate::tools::process::ExecuteCommand;
use crate::tools::{Tool, ToolError, lookup};

/// `echo` and `execute_command`, run in-process.
#[derive(Debug, Default, Clone)]
pub struct LocalTools;

fn receipt(
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

fn refused(
    call: &ToolCall,
    started: u64,
    status: ReceiptStatus,
    reason: String,
) -> ToolCallOutcome {
    ToolCallOutcome {
        receipt: Some(receipt(
            call,
            status,
            Some(reason.clone()),
            started,
            ReceiptFacts::default(),
        )),
        result: Err(reason),
    }
}

/// Runs a [`Tool`]: prepare, then execute; maps a process's end to the step.
async fn run_tool(tool: &dyn Tool, call: &ToolCall, started: u64) -> ToolCallOutcome {
    let prepared = match tool.prepare(&call.ctx, call.args.clone()).await {
        Ok(prepared) => prepared,
        Err(err) => return refused(call, started, ReceiptStatus::Rejected, err.to_string()),
    };
    let output = match tool.execute(&call.ctx, prepared).await {
        Ok(output) => output,
        Err(err @ ToolError::Canceled(_)) => {
            return refused(call, started, ReceiptStatus::Canceled, err.to_string());
        }
        Err(err) => return refused(call, started, ReceiptStatus::Failed, err.to_string()),
    };
    let flag = |name: &str| output.value.get(name).and_then(Value::as_bool) == Some(true);
    let (status, failure) = if flag("canceled") {
        (
            ReceiptStatus::Canceled,
            Some(format!(
                "`{}` was canceled; its process group was killed",
                call.tool
            )),
        )
    } else if flag("timed_out") {
        (
            ReceiptStatus::TimedOut,
            Some(format!(
                "`{}` ran past its own timeout; its process group was killed",
                call.tool
            )),
        )
    } else {
        let failed = match output.value.get("exit_code") {
            Some(Value::Number(code)) if code.as_i64() != Some(0) => {
                Some(format!("the command exited with code {code}"))
            }
            Some(Value::Null) => Some("the command was killed by a signal".to_string()),
            _ => None,
        };
        (ReceiptStatus::Executed, failed)
    };
    let text = output
        .value
        .get("stdout")
        .and_then(Value::as_str)
        .map(str::to_string);
    ToolCallOutcome {
        receipt: Some(receipt(
            call,
            status,
            failure.clone(),
            started,
            output.facts,
        )),
        result: match status {
            ReceiptStatus::Canceled => Err(failure.unwrap_or_default()),
            _ => Ok(ToolResult {
                value: output.value,
                text,
                failed: failure,
            }),
        },
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
            "execute_command" => run_tool(&ExecuteCommand, &call, started).await,
            other => {
                let reason = if lookup(other).is_some() {
                    format!(
                        "tool `{other}` is not available to tool steps in this build (no executor is registered for it)"
                    )
                } else {
                    format!("unknown tool `{other}`")
                };
                refused(&call, started, ReceiptStatus::Rejected, reason)
            }
        }
    }
}
