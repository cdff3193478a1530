//! `read_diff(path)`: a unified diff (patch) file from the project, whole.
//!
//! The path is confined to the project root (no `..`, no absolute path outside it,
//! no symlink on any component); the file must be UTF-8 text of at most
//! [`MAX_PATCH_BYTES`] and look like a unified diff. Unlike `read_file` it is never
//! cut to a span: findings grounded in half a diff would be wrong, so a larger
//! file is refused with the reason.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::evidence::{ReceiptFacts, revision_of};
use crate::tools::args::{builtin_spec, parse_args, schema_of};
use crate::tools::{PreparedCall, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

use super::whole_file;

const NAME: &str = "read_diff";

/// The largest patch file read (1 MiB).
pub const MAX_PATCH_BYTES: usize = 1024 * 1024;

/// Arguments of `read_diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadDiffArgs {
    /// Project-relative path of a unified diff (`git diff` / `git format-patch` output).
    pub path: String,
}

/// The `read_diff` tool.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReadDiff;

/// Whether `text` looks like a unified diff: a `diff --git` header, or a `--- `
/// line followed by a `+++ ` line, and at least one `@@` hunk header (or a
/// header-only change such as a rename or mode change under `diff --git`).
pub fn looks_like_diff(text: &str) -> bool {
    let mut git_header = false;
    let mut minus = false;
    let mut file_header = false;
    let mut hunk = false;
    for line in text.lines() {
        if line.starts_with("diff --git ") {
            git_header = true;
        } else if line.starts_with("--- ") {
            minus = true;
        } else if line.starts_with("+++ ") && minus {
            file_header = true;
        } else if line.starts_with("@@ ") {
            hunk = true;
        }
    }
    (file_header && hunk) || git_header
}

/// The files a diff touches (new-side paths, `b/` prefix removed; deleted files by
/// their old path), in order of appearance.
pub fn diff_files(text: &str) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    let mut old: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("--- ") {
            old = Some(strip_side(rest, "a/"));
        } else if let Some(rest) = line.strip_prefix("+++ ") {
            let new = strip_side(rest, "b/");
            let file = if new == "/dev/null" {
                old.take().unwrap_or(new)
            } else {
                new
            };
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    files
}

fn strip_side(raw: &str, prefix: &str) -> String {
    let path = raw.split('\t').next().unwrap_or(raw).trim_end();
    path.strip_prefix(prefix).unwrap_or(path).to_owned()
}

#[async_trait]
impl Tool for ReadDiff {
    fn spec(&self) -> &'static ToolSpec {
        builtin_spec(NAME)
    }

    fn args_schema(&self) -> Value {
        schema_of::<ReadDiffArgs>()
    }

    async fn prepare(&self, ctx: &ToolContext, args: Value) -> Result<PreparedCall, ToolError> {
        let parsed: ReadDiffArgs = parse_args(NAME, args.clone())?;
        whole_file::prepare(NAME, ctx, args, &parsed.path, "the diff")
    }

    async fn execute(
        &self,
        ctx: &ToolContext,
        call: PreparedCall,
    ) -> Result<ToolOutput, ToolError> {
        let file = whole_file::read(
            NAME,
            ctx,
            call,
            MAX_PATCH_BYTES,
            "a diff",
            " (use a smaller change)",
        )?;
        let display = file.display;
        let rejected = |reason: String| whole_file::rejected(NAME, reason);
        if file.bytes.contains(&0) {
            return Err(rejected(format!("`{display}` is binary, not a diff")));
        }
        let text = std::str::from_utf8(&file.bytes)
            .map_err(|_| rejected(format!("`{display}` is not UTF-8 text")))?;
        if !looks_like_diff(text) {
            return Err(rejected(format!(
                "`{display}` does not look like a unified diff (no `diff --git` header, or no `---`/`+++` file header with a `@@` hunk)"
            )));
        }
        let revision = revision_of(&file.bytes);
        Ok(ToolOutput {
            value: json!({
                "path": display,
                "revision": revision,
                "bytes": text.len(),
                "files": diff_files(text),
                "diff": text,
            }),
            facts: ReceiptFacts {
                path: Some(display),
                revision_before: Some(revision),
                output_bytes: text.len() as u64,
                ..ReceiptFacts::default()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_diffs_are_recognized_and_prose_is_not() {
        assert!(looks_like_diff(
            "--- a/x.rs\n+++ b/x.rs\n@@ -1 +1 @@\n-a\n+b\n"
        ));
        assert!(looks_like_diff(
            "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n"
        ));
        assert!(!looks_like_diff("please review my change\n+++ b/x\n"));
    }

    #[test]
    fn the_files_of_a_diff_are_listed_once_with_deleted_ones_by_their_old_path() {
        let diff = "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-a\n+b\n--- a/gone.rs\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n--- /dev/null\n+++ b/new.rs\t\n@@ -0,0 +1 @@\n+y\n";
        assert_eq!(diff_files(diff), vec!["src/a.rs", "gone.rs", "new.rs"]);
    }
}
