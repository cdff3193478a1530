//! Invocation: one tool call from request to receipt.
//!
//! unknown name -> rejected (with the allowed list); authority -> denied; schema
//! validation -> rejected; prepare -> rejected; approval (when the authority says
//! `ask`) -> denied; execute -> executed / timed_out / canceled / failed. Every path
//! returns a receipt with timing, redacted arguments and the tool's facts.
//! The run's task state (when the context has one) is an authority layer too: the
//! request contract and the plan's write scope, checked after the schema.
//! It never prompts: approvals come from the given [`Approver`].

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::fs::confine::normalize;
use super::{ToolContext, ToolError, ToolRegistry, lookup};
use crate::evidence::{Receipt, ReceiptFacts, ReceiptStatus};
use crate::policy::{Approval, ApprovalRequest, Approver, Authority, Verdict};

/// The outcome of one call: what the caller gets back, and the receipt.
#[derive(Debug)]
pub struct Invocation {
    /// The (redacted) result value, or why there is none.
    pub result: Result<Value, ToolError>,
    /// The record of the call (always present).
    pub receipt: Receipt,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// The receipt status a tool error maps to.
pub fn status_of(error: &ToolError) -> ReceiptStatus {
    match error {
        ToolError::InvalidArguments { .. }
        | ToolError::Rejected { .. }
        | ToolError::PathRefused { .. }
        | ToolError::Unavailable(_) => ReceiptStatus::Rejected,
        ToolError::Canceled(_) => ReceiptStatus::Canceled,
        ToolError::Io { .. } => ReceiptStatus::Failed,
    }
}

struct Recorder<'a> {
    ctx: &'a ToolContext,
    name: &'a str,
    args: Value,
    started_at_ms: u64,
    started: Instant,
}

impl Recorder<'_> {
    fn finish(
        &self,
        status: ReceiptStatus,
        reason: Option<String>,
        facts: ReceiptFacts,
        result: Result<Value, ToolError>,
    ) -> Invocation {
        let redactor = &self.ctx.redactor;
        let mut detail = redactor.redact_value(&facts.detail);
        // The task's repair round the call ran in: a resumed run rebuilds the
        // task state from its receipts alone (`TaskHandle::rebuild`).
        if let Some(round) = self.ctx.task.as_ref().and_then(|t| t.round_stamp()) {
            if detail.is_null() {
                detail = Value::Object(serde_json::Map::new());
            }
            if let Some(map) = detail.as_object_mut() {
                map.insert(crate::task::ROUND_KEY.into(), Value::from(round));
            }
        }
        let facts = ReceiptFacts {
            path: facts.path.map(|p| redactor.redact_str(&p).into_owned()),
            detail,
            ..facts
        };
        Invocation {
            result: result.map(|v| redactor.redact_value(&v)),
            receipt: Receipt {
                tool: self.name.to_string(),
                args: self.args.clone(),
                capability: lookup(self.name).and_then(|s| s.capability),
                phase: self.ctx.phase,
                status,
                reason: reason.map(|r| redactor.redact_str(&r).into_owned()),
                started_at_ms: self.started_at_ms,
                duration_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
                facts,
            },
        }
    }

    fn error(&self, error: ToolError) -> Invocation {
        let status = status_of(&error);
        self.finish(
            status,
            Some(error.to_string()),
            ReceiptFacts::default(),
            Err(error),
        )
    }

    /// A refusal; `by` names the layer (`policy`, `contract`, `task`, `approver`)
    /// and is kept on the receipt (`detail.denied_by`).
    fn denied(&self, by: &str, reason: String) -> Invocation {
        let error = ToolError::Rejected {
            tool: self.name.to_string(),
            reason: format!("denied: {reason}"),
        };
        self.finish(
            ReceiptStatus::Denied,
            Some(reason),
            ReceiptFacts {
                detail: serde_json::json!({ "denied_by": by }),
                ..ReceiptFacts::default()
            },
            Err(error),
        )
    }
}

fn string_arg(args: &Value, key: &str) -> Option<String> {
    args.get(key).and_then(Value::as_str).map(String::from)
}

/// Runs one tool call under `authority`, asking `approver` when the authority says
/// `ask`. Always returns a receipt.
pub async fn invoke(
    registry: &ToolRegistry,
    ctx: &ToolContext,
    name: &str,
    args: Value,
    authority: &Authority,
    approver: &dyn Approver,
) -> Invocation {
    let recorder = Recorder {
        ctx,
        name,
        args: ctx.redactor.redact_value(&args),
        started_at_ms: now_ms(),
        started: Instant::now(),
    };
    let Some(spec) = lookup(name) else {
        let allowed = authority.allowed_tools();
        return recorder.error(ToolError::InvalidArguments {
            tool: name.to_string(),
            reason: format!(
                "there is no tool named `{name}`; the tools allowed here are: {}",
                if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                }
            ),
        });
    };
    let verdict = authority.decide(name);
    if let Verdict::Deny(reason) = &verdict {
        return recorder.denied("policy", reason.clone());
    }
    let Some(tool) = registry.get(name) else {
        return recorder.error(ToolError::Unavailable(spec.name.to_string()));
    };
    if let Err(problems) = registry.validate_args(name, &args) {
        return recorder.error(ToolError::InvalidArguments {
            tool: name.to_string(),
            reason: problems.join("; "),
        });
    }
    if let Some(task) = &ctx.task
        && let Err(refusal) = task.permits(name, &args, ctx.phase)
    {
        return recorder.denied(refusal.by, refusal.reason);
    }
    if ctx.cancel.is_cancelled() {
        return recorder.error(ToolError::Canceled(name.to_string()));
    }
    let prepared = match tool.prepare(ctx, args.clone()).await {
        Ok(prepared) => prepared,
        Err(error) => return recorder.error(error),
    };
    if verdict == Verdict::Ask {
        let request = ApprovalRequest {
            tool: name.to_string(),
            capability: spec.capability,
            effect: spec.effect,
            phase: ctx.phase,
            args: recorder.args.clone(),
            preview: prepared.preview.clone(),
            check_id: string_arg(&args, "check_id"),
            path: string_arg(&args, "path").map(|p| match normalize(&ctx.root, &p) {
                Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
                Ok(_) => ".".to_string(),
                Err(_) => p,
            }),
        };
        if let Approval::Denied { reason } = approver.approve(&request).await {
            return recorder.denied("approver", reason);
        }
    }
    match tool.execute(ctx, prepared).await {
        Ok(output) => {
            let flag =
                |key: &str| output.facts.detail.get(key).and_then(Value::as_bool) == Some(true);
            let (status, reason) = if flag("timed_out") {
                (
                    ReceiptStatus::TimedOut,
                    Some("the time limit was reached; the process group was stopped".to_string()),
                )
            } else if flag("canceled") {
                (
                    ReceiptStatus::Canceled,
                    Some("canceled; the process group was stopped".to_string()),
                )
            } else {
                (ReceiptStatus::Executed, None)
            };
            recorder.finish(status, reason, output.facts, Ok(output.value))
        }
        Err(error) => recorder.error(error),
    }
}
