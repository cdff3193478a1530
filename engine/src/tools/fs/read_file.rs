//! `read_file(path, start_line, end_line)`: one span of a text file, with the
//! full-file revision and pagination metadata, under a per-call character cap.
//!
//! Reads only; never follows a symlink; refuses binary files and files over 8 MiB.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::confine::{confine, read_regular};
use super::text::decode_text;
use crate::evidence::{ReceiptFacts, revision_of};
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Preview, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "read_file";

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// Project-relative path of a text file.
    pub path: String,
    /// First line to return (1-based, default 1).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub start_line: Option<u64>,
    /// Last line to return, inclusive (default: the end of the file, within the cap).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub end_line: Option<u64>,
}

/// The `read_file` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReadFile;

/// A span cut from a text under a character budget.
#[derive(Debug, PartialEq, Eq)]
struct Span {
    content: String,
    last_line: u64,
    truncated: bool,
    partial_line: Option<Value>,
}

fn cut_span(lines: &[&str], start: u64, end: u64, budget: usize) -> Span {
    let mut content = String::new();
    let mut used = 0usize;
    let mut last_line = start.saturating_sub(1);
    let mut truncated = false;
    let mut partial_line = None;
    for number in start..=end {
        let Some(line) = usize::try_from(number - 1).ok().and_then(|i| lines.get(i)) else {
            break;
        };
        let chars = line.chars().count();
        if used + chars <= budget {
            content.push_str(line);
            used += chars;
            last_line = number;
            continue;
        }
        truncated = true;
        if content.is_empty() {
            // A single line longer than the whole budget: return its start, marked.
            let shown: String = line.chars().take(budget).collect();
            partial_line = Some(json!({
                "line": number,
                "chars_shown": budget,
                "line_chars": chars,
            }));
            content = shown;
            last_line = number;
        }
        break;
    }
    Span {
        content,
        last_line,
        truncated,
        partial_line,
    }
}

#[async_trait]
impl Tool for ReadFile {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<ReadFileArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: ReadFileArgs = parse_args(NAME, args.clone())?;
        let path = confine(&ctx.root, &parsed.path)?;
        if let (Some(s), Some(e)) = (parsed.start_line, parsed.end_line)
            && e < s
        {
            return Err(ToolError::InvalidArguments {
                tool: NAME.to_string(),
                reason: format!("end_line {e} is before start_line {s}"),
            });
        }
        Ok(PreparedCall {
            tool: NAME,
            args,
            preview: Preview {
                summary: format!("read `{}`", path.display()),
                detail: None,
            },
            payload: Box::new((path, parsed)),
        })
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let (path, args) = call.into_payload::<(super::confine::ConfinedPath, ReadFileArgs)>()?;
        let display = path.display();
        super::confine::check_no_symlinks(&ctx.root, &path.rel, &display)?;
        let file = read_regular(NAME, &path)?.ok_or_else(|| ToolError::Rejected {
            tool: NAME.to_string(),
            reason: format!(
                "`{display}` does not exist; use list_directory or search_regex to find the file"
            ),
        })?;
        let revision = revision_of(&file.bytes);
        let text = decode_text(NAME, &display, &file.bytes)?;
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let total = lines.len() as u64;
        let start = args.start_line.unwrap_or(1).max(1);
        if total > 0 && start > total {
            return Err(ToolError::Rejected {
                tool: NAME.to_string(),
                reason: format!(
                    "start_line {start} is past the end of `{display}` ({total} lines)"
                ),
            });
        }
        let end = args.end_line.unwrap_or(total).min(total);
        let span = cut_span(&lines, start, end, ctx.read_chars);
        let next_start_line = (span.last_line < total).then_some(span.last_line + 1);
        let output_bytes = span.content.len() as u64;
        Ok(ToolOutput {
            value: json!({
                "path": display,
                "revision": revision,
                "total_lines": total,
                "start_line": start,
                "end_line": span.last_line,
                "next_start_line": next_start_line,
                "truncated": span.truncated,
                "partial_line": span.partial_line,
                "content": span.content,
            }),
            facts: ReceiptFacts {
                path: Some(display),
                revision_before: Some(revision),
                output_bytes,
                truncated: span.truncated,
                ..ReceiptFacts::default()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_stops_at_the_budget_on_a_line_boundary() {
        let lines = ["aaa\n", "bbb\n", "ccc\n"];
        let span = cut_span(&lines, 1, 3, 9);
        assert_eq!(span.content, "aaa\nbbb\n");
        assert_eq!(span.last_line, 2);
        assert!(span.truncated);
        assert_eq!(span.partial_line, None);
    }

    #[test]
    fn a_long_first_line_is_returned_partially_and_marked() {
        let lines = ["0123456789\n", "x\n"];
        let span = cut_span(&lines, 1, 2, 4);
        assert_eq!(span.content, "0123");
        assert_eq!(span.last_line, 1);
        assert_eq!(
            span.partial_line,
            Some(json!({"line": 1, "chars_shown": 4, "line_chars": 11}))
        );
    }
}
