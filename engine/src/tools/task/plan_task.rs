//! `plan_task(paths, criteria, check_ids)`: set the task's write paths,
//! acceptance criteria and selected checks. Unknown check ids are refused with
//! the available ones; omitted fields keep their value; a frozen plan is refused.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{output, payload, prepared, task_of};
use crate::task::PlanRequest;
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "plan_task";

/// Arguments of `plan_task`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanTaskArgs {
    /// One line: the approach.
    #[serde(default)]
    pub summary: Option<String>,
    /// Project-relative files, directories or globs that may be written (omit: keep).
    #[serde(default)]
    pub paths: Option<Vec<String>>,
    /// Observable acceptance criteria (omit: keep).
    #[serde(default)]
    pub criteria: Option<Vec<String>>,
    /// Ids of the checks that prove the criteria (omit: keep the selection; a
    /// documentation-only plan may select none).
    #[serde(default)]
    pub check_ids: Option<Vec<String>>,
    /// Files the plan is based on.
    #[serde(default)]
    pub sources: Option<Vec<String>>,
}

/// The `plan_task` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct PlanTask;

#[async_trait]
impl Tool for PlanTask {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<PlanTaskArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        task_of(NAME, ctx)?;
        let parsed: PlanTaskArgs = parse_args(NAME, args.clone())?;
        Ok(prepared(NAME, args, "set the task's plan".into(), parsed))
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let task = task_of(NAME, ctx)?;
        let args: PlanTaskArgs = payload(NAME, call)?;
        let record = task
            .plan(PlanRequest {
                summary: args.summary,
                paths: args.paths,
                criteria: args.criteria,
                check_ids: args.check_ids,
                sources: args.sources,
            })
            .map_err(|e| ToolError::Rejected {
                tool: NAME.to_string(),
                reason: e.to_string(),
            })?;
        let value = serde_json::to_value(&record).unwrap_or(Value::Null);
        Ok(output(
            value,
            json!({"selected": record.checks.selected, "write_paths": record.plan.map(|p| p.write_paths)}),
        ))
    }
}
