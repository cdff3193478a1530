//! `edit_file(path, old, new, expected_revision)`: replace exactly one occurrence
//! of a text in a file at an expected revision.
//!
//! Ambiguous `old`, no match, a stale revision or identical old/new are refused with
//! feedback and no effect. The file's line endings are preserved (a CRLF file stays
//! CRLF even when `old`/`new` use LF). The write itself is [`super::write`]'s.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::target::existing_file;
use super::text::{LineEnding, decode_text};
use super::write::{WritePlan, execute_write, rejected};
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

const NAME: &str = "edit_file";

/// Arguments of `edit_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileArgs {
    /// Project-relative path of an existing text file.
    pub path: String,
    /// The exact text to replace; it must occur exactly once.
    pub old: String,
    /// The replacement text.
    pub new: String,
    /// The revision `read_file` returned (`sha256:...`); the edit is refused if the
    /// file changed since.
    pub expected_revision: String,
}

/// The `edit_file` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct EditFile;

/// Byte offsets of every (possibly overlapping) occurrence of `needle`.
fn occurrences(haystack: &str, needle: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(i) = haystack.get(from..).and_then(|rest| rest.find(needle)) {
        found.push(from + i);
        // Advance by one character so overlapping occurrences count too.
        from += i + haystack[from + i..]
            .chars()
            .next()
            .map_or(1, char::len_utf8);
    }
    found
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// The new text, or the reason the edit is refused.
fn apply_edit(text: &str, old: &str, new: &str) -> Result<(String, usize), String> {
    if old.is_empty() {
        return Err("`old` is empty; give the exact text to replace".to_string());
    }
    if old == new {
        return Err("`old` and `new` are identical; there is nothing to change".to_string());
    }
    // Try the text as given, then in the file's own line-ending style.
    let style = LineEnding::detect(text);
    let mut candidates = vec![(old.to_string(), new.to_string())];
    let (old_styled, new_styled) = (style.apply(old), style.apply(new));
    if old_styled != old {
        candidates.push((old_styled, new_styled));
    }
    for (old_c, new_c) in &candidates {
        let found = occurrences(text, old_c);
        match found.as_slice() {
            [] => continue,
            [at] => {
                let new_c = style.apply(new_c);
                let mut out = String::with_capacity(text.len() + new_c.len());
                out.push_str(&text[..*at]);
                out.push_str(&new_c);
                out.push_str(&text[at + old_c.len()..]);
                if out == text {
                    return Err(
                        "the edit changes nothing (old and new differ only in line endings)"
                            .to_string(),
                    );
                }
                return Ok((out, line_of(text, *at)));
            }
            many => {
                let lines: Vec<String> = many
                    .iter()
                    .take(10)
                    .map(|at| line_of(text, *at).to_string())
                    .collect();
                return Err(format!(
                    "`old` occurs {} times (at lines {}); include more surrounding lines so that it occurs exactly once",
                    many.len(),
                    lines.join(", ")
                ));
            }
        }
    }
    Err("`old` was not found; read the file again and copy the exact text, including whitespace and indentation".to_string())
}

#[async_trait]
impl Tool for EditFile {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<EditFileArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: EditFileArgs = parse_args(NAME, args.clone())?;
        let (path, before) =
            existing_file(NAME, ctx, &parsed.path, Some(&parsed.expected_revision))?;
        let display = path.display();
        let text = decode_text(NAME, &display, &before.bytes)?;
        let (new_text, line) = apply_edit(text, &parsed.old, &parsed.new)
            .map_err(|reason| rejected(NAME, format!("`{display}`: {reason}")))?;
        let plan = WritePlan::new(path, Some(before), new_text.into_bytes());
        Ok(plan.into_prepared(NAME, args, format!("edit `{display}` at line {line}")))
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn exactly_one_occurrence_is_replaced() {
        assert_eq!(apply_edit("a b c", "b", "x"), Ok(("a x c".to_string(), 1)));
    }

    #[test]
    fn overlapping_occurrences_are_ambiguous() {
        assert!(apply_edit("aaa", "aa", "b").is_err());
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let (out, line) = apply_edit("one\r\ntwo\r\nthree\r\n", "two\nthree", "2\n3").unwrap();
        assert_eq!(out, "one\r\n2\r\n3\r\n");
        assert_eq!(line, 2);
    }
}
