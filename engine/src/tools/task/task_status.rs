//! `task_status()`: the task record (objective, class, plan, checks, reports).

use async_trait::async_trait;
use serde_json::{Value, json};

use super::{output, prepared, task_of};
use crate::tools::args::builtin_spec;
use crate::tools::{PreparedCall, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "task_status";

/// The `task_status` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskStatus;

#[async_trait]
impl Tool for TaskStatus {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false,
               "description": "No arguments: the current task record."})
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        task_of(NAME, ctx)?;
        Ok(prepared(NAME, args, "show the task record".into(), ()))
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        _call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let record = task_of(NAME, ctx)?.record();
        let value = serde_json::to_value(&record).unwrap_or(Value::Null);
        Ok(output(value, Value::Null))
    }
}
