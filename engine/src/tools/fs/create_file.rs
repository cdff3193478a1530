//! `create_file(path, content)`: create a file that does not exist yet.
//!
//! Missing parent directories are created at execute time (they are not removed
//! by undo). The file is linked into place without clobbering: a file that
//! appears between prepare and execute is never overwritten.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::confine::{confine, ensure_writable};
use super::target::check_new_text;
use super::write::{WritePlan, execute_write, rejected};
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "create_file";

/// Arguments of `create_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateFileArgs {
    /// Project-relative path of a file that does not exist yet.
    pub path: String,
    /// The full text content.
    pub content: String,
}

/// The `create_file` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct CreateFile;

#[async_trait]
impl Tool for CreateFile {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<CreateFileArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: CreateFileArgs = parse_args(NAME, args.clone())?;
        let path = confine(&ctx.root, &parsed.path)?;
        ensure_writable(ctx, &path)?;
        let display = path.display();
        match std::fs::symlink_metadata(&path.abs) {
            Ok(_) => {
                return Err(rejected(
                    NAME,
                    format!(
                        "`{display}` already exists; use edit_file or replace_file to change it"
                    ),
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(ToolError::Io {
                    tool: NAME.to_string(),
                    source,
                });
            }
        }
        check_new_text(NAME, &display, &parsed.content)?;
        let plan = WritePlan::new(path, None, parsed.content.into_bytes());
        Ok(plan.into_prepared(NAME, args, format!("create `{display}`")))
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let plan = call.into_payload::<WritePlan>()?;
        execute_write(NAME, ctx, plan).await
    }
}
