//! `list_directory(path)`: the entries of one project directory, bounded.
//!
//! Reads only; reports symlinks as such and never follows them.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::confine::{ConfinedPath, check_no_symlinks, confine};
use crate::evidence::ReceiptFacts;
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "list_directory";

/// Entries returned by one call, at most.
pub const MAX_ENTRIES: usize = 500;
/// Entries read from one directory before giving up counting.
const MAX_SCANNED: usize = 20_000;

/// Arguments of `list_directory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirectoryArgs {
    /// Project-relative directory (default: the project root).
    #[serde(default)]
    pub path: Option<String>,
}

/// The `list_directory` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ListDirectory;

fn io(source: std::io::Error) -> ToolError {
    ToolError::Io {
        tool: NAME.to_string(),
        source,
    }
}

#[async_trait]
impl Tool for ListDirectory {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<ListDirectoryArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: ListDirectoryArgs = parse_args(NAME, args.clone())?;
        let path = confine(&ctx.root, parsed.path.as_deref().unwrap_or("."))?;
        Ok(PreparedCall {
            tool: NAME,
            args,
            preview: Preview {
                summary: format!("list `{}`", path.display()),
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
        let path = call.into_payload::<ConfinedPath>()?;
        let display = path.display();
        check_no_symlinks(&ctx.root, &path.rel, &display)?;
        let meta = std::fs::symlink_metadata(&path.abs).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ToolError::Rejected {
                tool: NAME.to_string(),
                reason: format!("`{display}` does not exist"),
            },
            _ => io(e),
        })?;
        if !meta.is_dir() {
            return Err(ToolError::Rejected {
                tool: NAME.to_string(),
                reason: format!("`{display}` is not a directory; use read_file for files"),
            });
        }
        let mut entries = Vec::new();
        let mut scanned_all = true;
        for entry in std::fs::read_dir(&path.abs).map_err(io)? {
            if entries.len() >= MAX_SCANNED {
                scanned_all = false;
                break;
            }
            let entry = entry.map_err(io)?;
            let file_type = entry.file_type().map_err(io)?;
            let kind = if file_type.is_symlink() {
                "symlink"
            } else if file_type.is_dir() {
                "dir"
            } else if file_type.is_file() {
                "file"
            } else {
                "other"
            };
            let size = if file_type.is_file() {
                entry.metadata().ok().map(|m| m.len())
            } else {
                None
            };
            entries.push((entry.file_name().to_string_lossy().into_owned(), kind, size));
        }
        entries.sort();
        let total = entries.len();
        let truncated = total > MAX_ENTRIES || !scanned_all;
        let shown: Vec<Value> = entries
            .into_iter()
            .take(MAX_ENTRIES)
            .map(|(name, kind, size)| match size {
                Some(size) => json!({"name": name, "kind": kind, "size": size}),
                None => json!({"name": name, "kind": kind}),
            })
            .collect();
        let value = json!({
            "path": display,
            "entries": shown,
            "total_entries": total,
            "total_is_lower_bound": !scanned_all,
            "truncated": truncated,
        });
        Ok(ToolOutput {
            facts: ReceiptFacts {
                path: Some(display),
                output_bytes: value.to_string().len() as u64,
                truncated,
                ..ReceiptFacts::default()
            },
            value,
        })
    }
}
