//! The task tools: the run's own task state, exposed to models and tool steps —
//! `task_status`, `plan_task`, `report_task`, `completion` — and `ask_user`.
//!
//! They read and update the [`crate::task::TaskHandle`] in the call's context;
//! they never touch the project, and a worker's report is recorded as advice (from
//! its receipt), never as evidence.

mod ask_user;
mod completion;
mod plan_task;
mod report_task;
mod task_status;

pub use ask_user::{AskUser, Asker, HeadlessAsker, Question};
pub use completion::CompletionTool;
pub use plan_task::{PlanTask, PlanTaskArgs};
pub use report_task::{ReportTask, ReportTaskArgs};
pub use task_status::TaskStatus;

use std::sync::Arc;

use serde_json::Value;

use crate::evidence::ReceiptFacts;
use crate::task::TaskHandle;
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput};

/// The task of the call's run, or a refusal saying there is none.
pub(crate) fn task_of<'a>(tool: &str, ctx: &'a ToolContext) -> Result<&'a TaskHandle, ToolError> {
    ctx.task.as_ref().ok_or_else(|| ToolError::Rejected {
        tool: tool.to_string(),
        reason: "this call has no run task state (it runs outside a run)".into(),
    })
}

/// A prepared call that carries its parsed arguments.
pub(crate) fn prepared<T: Send + Sync + 'static>(
    tool: &'static str,
    args: Value,
    summary: String,
    payload: T,
) -> PreparedCall {
    PreparedCall {
        tool,
        args,
        preview: Preview {
            summary,
            detail: None,
        },
        payload: Box::new(payload),
    }
}

/// Takes the parsed arguments back out of a prepared call.
pub(crate) fn payload<T: 'static>(tool: &str, call: PreparedCall) -> Result<T, ToolError> {
    call.payload
        .downcast::<T>()
        .map(|b| *b)
        .map_err(|_| ToolError::InvalidArguments {
            tool: tool.to_string(),
            reason: "the prepared call was not prepared by this tool".into(),
        })
}

/// A value as a tool output with a small detail for the receipt.
pub(crate) fn output(value: Value, detail: Value) -> ToolOutput {
    ToolOutput {
        facts: ReceiptFacts {
            output_bytes: value.to_string().len() as u64,
            detail,
            ..ReceiptFacts::default()
        },
        value,
    }
}

/// Every task tool, for a registry (`ask_user` with a headless asker).
pub fn task_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(TaskStatus),
        Arc::new(PlanTask),
        Arc::new(ReportTask),
        Arc::new(CompletionTool),
        Arc::new(AskUser::new(Arc::new(HeadlessAsker))),
    ]
}
