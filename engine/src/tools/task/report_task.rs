//! `report_task(status, summary, missing_paths)`: a worker's outcome. Recorded as
//! advice from the call's receipt; it never proves anything. An unresolved
//! `needs_context` or `blocked` report prevents completion.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{output, prepared, task_of};
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "report_task";

/// A worker's outcome.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReportStatus {
    /// The assignment is done.
    Done,
    /// Something is missing (name it in the summary and `missing_paths`).
    NeedsContext,
    /// It cannot be done (say why).
    Blocked,
}

/// Arguments of `report_task`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportTaskArgs {
    /// `done`, `needs_context` or `blocked`.
    pub status: ReportStatus,
    /// What was done, or what is missing and why.
    pub summary: String,
    /// Files needed that are not available or not writable.
    #[serde(default)]
    pub missing_paths: Vec<String>,
}

/// The `report_task` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReportTask;

#[async_trait]
impl Tool for ReportTask {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<ReportTaskArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        task_of(NAME, ctx)?;
        let parsed: ReportTaskArgs = parse_args(NAME, args.clone())?;
        Ok(prepared(
            NAME,
            args,
            "report the outcome".into(),
            parsed.status,
        ))
    }

    async fn execute(
        &self,
        _ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let status = call.args.get("status").cloned().unwrap_or(Value::Null);
        Ok(output(
            json!({
                "recorded": true,
                "status": status,
                "note": "reports are advice: completion is judged from receipts and checks, never from a report"
            }),
            json!({"status": status}),
        ))
    }
}
