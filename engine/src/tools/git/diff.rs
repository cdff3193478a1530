//! `git_diff(base, head, paths)`: the diff between two revisions, or between a
//! revision (default `HEAD`) and the working tree. Read-only; refs are validated
//! so that none can be read as an option; paths are confined and passed after `--`.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::command::{git_spec, run_git, validate_ref};
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::fs::confine::normalize;
use crate::tools::process::{ProcessSpec, describe_spec, result_facts, result_value};
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "git_diff";

/// Arguments of `git_diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitDiffArgs {
    /// The base revision (default `HEAD`).
    #[serde(default)]
    pub base: Option<String>,
    /// The head revision (default: the working tree).
    #[serde(default)]
    pub head: Option<String>,
    /// Limit the diff to these project-relative paths.
    #[serde(default)]
    pub paths: Vec<String>,
}

/// The `git_diff` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct GitDiff;

#[async_trait]
impl Tool for GitDiff {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<GitDiffArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: GitDiffArgs = parse_args(NAME, args.clone())?;
        let base = parsed.base.unwrap_or_else(|| "HEAD".to_string());
        validate_ref(NAME, "base", &base)?;
        let mut git_args: Vec<String> = ["diff", "--no-ext-diff", "--no-textconv", "--no-color"]
            .map(String::from)
            .to_vec();
        git_args.push(base.clone());
        if let Some(head) = &parsed.head {
            validate_ref(NAME, "head", head)?;
            git_args.push(head.clone());
        }
        git_args.push("--".to_string());
        for path in &parsed.paths {
            let rel = normalize(&ctx.root, path)?;
            git_args.push(if rel.as_os_str().is_empty() {
                ".".to_string()
            } else {
                rel.to_string_lossy().into_owned()
            });
        }
        let spec = git_spec(NAME, ctx, git_args)?;
        Ok(PreparedCall {
            tool: NAME,
            args,
            preview: Preview {
                summary: format!(
                    "git diff {base}{}",
                    parsed.head.map(|h| format!(" {h}")).unwrap_or_default()
                ),
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
