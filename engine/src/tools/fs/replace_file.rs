//! `replace_file(path, content)`: replace the whole content of an existing file,
//! keeping its permission bits. The write itself is [`super::write`]'s.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::target::{check_new_text, existing_file};
use super::write::{WritePlan, execute_write, rejected};
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "replace_file";

/// Arguments of `replace_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaceFileArgs {
    /// Project-relative path of an existing text file.
    pub path: String,
    /// The full new text content.
    pub content: String,
    /// When given, the replacement is refused unless the file is at this revision.
    #[serde(default)]
    pub expected_revision: Option<String>,
}

/// The `replace_file` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReplaceFile;

#[async_trait]
impl Tool for ReplaceFile {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<ReplaceFileArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: ReplaceFileArgs = parse_args(NAME, args.clone())?;
        let (path, before) =
            existing_file(NAME, ctx, &parsed.path, parsed.expected_revision.as_deref())?;
        let display = path.display();
        check_new_text(NAME, &display, &parsed.content)?;
        if parsed.content.as_bytes() == before.bytes.as_slice() {
            return Err(rejected(
                NAME,
                format!("`{display}` already has exactly this content; there is nothing to change"),
            ));
        }
        let plan = WritePlan::new(path, Some(before), parsed.content.into_bytes());
        Ok(plan.into_prepared(NAME, args, format!("replace the content of `{display}`")))
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
