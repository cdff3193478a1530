//! `completion()`: the completion guard's verdict over the run so far (applied,
//! verified, verification status, checks per phase, files with diffs, what is
//! left, and whether a repair may open). `passed` is false unless satisfied, so a
//! tool step running it fails — and the run ends incomplete — when the evidence
//! does not support completion.

use async_trait::async_trait;
use serde_json::{Value, json};

use super::{output, prepared, task_of};
use crate::tools::args::builtin_spec;
use crate::tools::{PreparedCall, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "completion";

/// The `completion` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct CompletionTool;

#[async_trait]
impl Tool for CompletionTool {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false,
               "description": "No arguments: judge the run from its receipts and the files' revisions."})
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        task_of(NAME, ctx)?;
        Ok(prepared(
            NAME,
            args,
            "judge completion from the evidence".into(),
            (),
        ))
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        _call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let completion = task_of(NAME, ctx)?.completion();
        let value = serde_json::to_value(&completion).unwrap_or(Value::Null);
        Ok(output(
            value,
            json!({
                "status": completion.status,
                "verification": completion.verification,
                "applied": completion.applied,
                "next": completion.next,
            }),
        ))
    }
}
