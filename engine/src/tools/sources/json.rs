//! `read_json(path)`: a JSON file from the project, parsed (a previous run's report,
//! a data file a recipe consumes).
//!
//! Confined like every file read; at most [`MAX_JSON_FILE_BYTES`]; never cut (a
//! partial JSON document is no document): a larger or invalid file is refused with
//! the reason.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::evidence::{ReceiptFacts, revision_of};
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::fs::confine::{ConfinedPath, check_no_symlinks, confine, read_regular};
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "read_json";

/// The largest JSON file read (4 MiB).
pub const MAX_JSON_FILE_BYTES: usize = 4 * 1024 * 1024;

/// Arguments of `read_json`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadJsonArgs {
    /// Project-relative path of a JSON file.
    pub path: String,
}

/// The `read_json` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReadJson;

#[async_trait]
impl Tool for ReadJson {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<ReadJsonArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: ReadJsonArgs = parse_args(NAME, args.clone())?;
        let path = confine(&ctx.root, &parsed.path)?;
        Ok(PreparedCall {
            tool: NAME,
            args,
            preview: Preview {
                summary: format!("read the JSON file `{}`", path.display()),
                detail: None,
            },
            payload: Box::new(path),
        })
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let path =
            *call
                .payload
                .downcast::<ConfinedPath>()
                .map_err(|_| ToolError::InvalidArguments {
                    tool: NAME.to_string(),
                    reason: "the prepared call was not prepared by this tool".to_string(),
                })?;
        let display = path.display();
        check_no_symlinks(&ctx.root, &path.rel, &display)?;
        let rejected = |reason: String| ToolError::Rejected {
            tool: NAME.to_string(),
            reason,
        };
        let file = read_regular(NAME, &path)?
            .ok_or_else(|| rejected(format!("`{display}` does not exist")))?;
        if file.bytes.len() > MAX_JSON_FILE_BYTES {
            return Err(rejected(format!(
                "`{display}` is {} bytes; a JSON file may be at most {MAX_JSON_FILE_BYTES} bytes",
                file.bytes.len()
            )));
        }
        let value: Value = serde_json::from_slice(&file.bytes)
            .map_err(|e| rejected(format!("`{display}` is not valid JSON: {e}")))?;
        let revision = revision_of(&file.bytes);
        Ok(ToolOutput {
            value: json!({
                "path": display,
                "revision": revision,
                "bytes": file.bytes.len(),
                "value": value,
            }),
            facts: ReceiptFacts {
                path: Some(display),
                revision_before: Some(revision),
                output_bytes: file.bytes.len() as u64,
                ..ReceiptFacts::default()
            },
        })
    }
}
