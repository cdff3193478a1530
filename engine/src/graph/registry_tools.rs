//! The tool registry as the executor's [`ToolInvoker`]: every tool-step call goes
//! through `tools::invoke` (authority, argument schema, prepare, approval,
//! execute, receipt).
//!
//! Every receipt is shown to the run's task state (the ledger the completion
//! guard judges). This adapter otherwise only maps the registry's `Invocation` to the step's terms: the
//! value, the text a typed output is parsed from (a command's stdout), and
//! whether the call counts as the step failing (a non-zero exit, a signal, the
//! command's own timeout). It never decides authority: the call's [`Authority`]
//! comes with it (for tool steps: the tool named by the step, under the recipe's
//! capability ceiling and the step's phase).
//!
//! [`Authority`]: crate::policy::Authority

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::runner::{ToolCall, ToolCallOutcome, ToolInvoker, ToolResult};
use crate::evidence::ReceiptStatus;
use crate::policy::{ApprovePreset, Approver, HeadlessApprover};
use crate::tools::{ToolRegistry, invoke};

/// Runs tool calls through a [`ToolRegistry`] with an [`Approver`] for `ask`.
#[derive(Debug, Clone)]
pub struct RegistryTools {
    registry: Arc<ToolRegistry>,
    approver: Arc<dyn Approver>,
}

impl RegistryTools {
    /// Over `registry`, with `approver` deciding calls whose authority is `ask`.
    pub fn new(registry: Arc<ToolRegistry>, approver: Arc<dyn Approver>) -> RegistryTools {
        RegistryTools { registry, approver }
    }

    /// The built-in tools; `ask` is never approved (headless, approve nothing).
    pub fn builtin() -> RegistryTools {
        RegistryTools::new(
            Arc::new(ToolRegistry::builtin()),
            Arc::new(HeadlessApprover::from_preset(ApprovePreset::None)),
        )
    }
}

/// Whether a command-like result means the step failed, and why.
fn failure(tool: &str, value: &Value) -> Option<String> {
    let flag = |name: &str| value.get(name).and_then(Value::as_bool) == Some(true);
    if flag("timed_out") {
        return Some(format!(
            "`{tool}` ran past its own `timeout_seconds`; its process group was killed"
        ));
    }
    // A tool that judges its own result (a check: exit 0 with no tests executed is
    // not a pass) says so with `passed`; its judgement wins over the exit code.
    if value.get("passed").and_then(Value::as_bool) == Some(false) {
        let status = value
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("not passed");
        return Some(format!("`{tool}` did not pass: {status}"));
    }
    match value.get("exit_code") {
        Some(Value::Number(code)) if code.as_i64() != Some(0) => {
            Some(format!("the command exited with code {code}"))
        }
        Some(Value::Null) => Some("the command was killed by a signal".to_string()),
        _ => None,
    }
}

#[async_trait]
impl ToolInvoker for RegistryTools {
    async fn invoke(&self, call: ToolCall) -> ToolCallOutcome {
        let invocation = invoke(
            &self.registry,
            &call.ctx,
            &call.tool,
            call.args.clone(),
            &call.authority,
            self.approver.as_ref(),
        )
        .await;
        if let Some(task) = &call.ctx.task {
            task.observe(
                &call.step,
                &invocation.receipt,
                invocation.result.as_ref().ok(),
            );
        }
        let canceled = invocation.receipt.status == ReceiptStatus::Canceled
            || invocation
                .result
                .as_ref()
                .is_ok_and(|v| v.get("canceled").and_then(Value::as_bool) == Some(true));
        let result = match invocation.result {
            Err(err) => Err(err.to_string()),
            Ok(_) if canceled => Err(format!(
                "`{}` was canceled; its process group was killed",
                call.tool
            )),
            Ok(value) => Ok(ToolResult {
                text: value
                    .get("stdout")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                failed: failure(&call.tool, &value),
                value,
            }),
        };
        ToolCallOutcome {
            result,
            receipt: Some(invocation.receipt),
        }
    }
}
