//! `replace_file(path, content)`: replace the whole content of an existing file,
//! keeping its permission bits. The write itself is [`super::write`]'s.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::confine::{MAX_FILE_BYTES, confine, ensure_writable, read_regular, too_large};
use super::text::decode_text;
use super::write::{WritePlan, execute_write};
use crate::evidence::revision_of;
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

fn rejected(reason: String) -> ToolError {
    ToolError::Rejected {
        tool: NAME.to_string(),
        reason,
    }
}

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
        let path = confine(&ctx.root, &parsed.path)?;
        ensure_writable(ctx, &path)?;
        let display = path.display();
        let before = read_regular(NAME, &path)?.ok_or_else(|| {
            rejected(format!(
                "`{display}` does not exist; use create_file for new files"
            ))
        })?;
        let revision = revision_of(&before.bytes);
        if let Some(expected) = &parsed.expected_revision
            && *expected != revision
        {
            return Err(rejected(format!(
                "stale revision: expected {expected} but `{display}` is at {revision}; read it again and retry"
            )));
        }
        if parsed.content.len() as u64 > MAX_FILE_BYTES {
            return Err(too_large(NAME, &display, parsed.content.len() as u64));
        }
        decode_text(NAME, &display, parsed.content.as_bytes())?;
        if parsed.content.as_bytes() == before.bytes.as_slice() {
            return Err(rejected(format!(
                "`{display}` already has exactly this content; there is nothing to change"
            )));
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
