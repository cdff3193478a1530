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
use crate::tools::{PreparedCall, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

use super::whole_file;

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
        whole_file::prepare(NAME, ctx, args, &parsed.path, "the JSON file")
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let file = whole_file::read(NAME, ctx, call, MAX_JSON_FILE_BYTES, "a JSON file", "")?;
        let display = file.display;
        let value: Value = serde_json::from_slice(&file.bytes).map_err(|e| {
            whole_file::rejected(NAME, format!("`{display}` is not valid JSON: {e}"))
        })?;
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
