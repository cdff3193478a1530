//! `git_status()`: the working tree's status (porcelain v1 with the branch line).

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::command::{git_spec, run_git};
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::process::{ProcessSpec, describe_spec, result_facts, result_value};
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "git_status";

/// Arguments of `git_status` (none).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitStatusArgs {}

/// The `git_status` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct GitStatus;

#[async_trait]
impl Tool for GitStatus {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<GitStatusArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let _: GitStatusArgs = parse_args(NAME, args.clone())?;
        let spec = git_spec(
            NAME,
            ctx,
            [
                "status",
                "--porcelain=v1",
                "--branch",
                "--untracked-files=all",
            ]
            .map(String::from)
            .to_vec(),
        )?;
        Ok(PreparedCall {
            tool: NAME,
            args,
            preview: Preview {
                summary: "git status".to_string(),
                detail: Some(describe_spec(&spec, &ctx.redactor)),
            },
            payload: Box::new(spec),
        })
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let spec = call.into_payload::<ProcessSpec>()?;
        let result = run_git(NAME, ctx, &spec).await?;
        Ok(ToolOutput {
            value: result_value(&result),
            facts: result_facts(&result, &spec),
        })
    }
}
