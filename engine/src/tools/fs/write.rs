//! The shared second half of every write tool: re-check, checkpoint, write atomically.
//!
//! A write tool's `prepare` computes a [`WritePlan`] (the exact new bytes and the
//! state they were computed from) and a diff preview from it; `execute` calls
//! [`execute_write`], which writes exactly those bytes after re-checking that the
//! path is still symlink-free and the file is still at the prepared revision.
//! It never computes content itself.

use serde_json::json;

use super::atomic::{Target, write_atomic};
use super::checkpoint::NewChange;
use super::confine::{ConfinedPath, FileBytes, check_no_symlinks, ensure_writable, read_regular};
use super::text::unified_diff;
use crate::evidence::{ReceiptFacts, Revision, revision_of};
use crate::tools::{PreparedCall, Preview, ToolContext, ToolError, ToolOutput};

/// Exactly what a write will do, computed at prepare time.
#[derive(Debug)]
pub struct WritePlan {
    /// The confined target.
    pub path: ConfinedPath,
    /// The file as it was at prepare (`None`: absent).
    pub before: Option<FileBytes>,
    /// Its revision (`None`: absent).
    pub revision_before: Option<Revision>,
    /// The bytes that will be written.
    pub content: Vec<u8>,
    /// Their revision.
    pub revision_after: Revision,
}

impl WritePlan {
    /// A plan writing `content` over `before`.
    pub fn new(path: ConfinedPath, before: Option<FileBytes>, content: Vec<u8>) -> WritePlan {
        WritePlan {
            revision_before: before.as_ref().map(|b| revision_of(&b.bytes)),
            revision_after: revision_of(&content),
            path,
            before,
            content,
        }
    }

    /// The prepared call: the preview is the unified diff of exactly these bytes.
    pub fn into_prepared(
        self,
        tool: &'static str,
        args: serde_json::Value,
        summary: String,
    ) -> PreparedCall {
        let old = self
            .before
            .as_ref()
            .map(|b| String::from_utf8_lossy(&b.bytes).into_owned())
            .unwrap_or_default();
        let new = String::from_utf8_lossy(&self.content);
        let detail = unified_diff(&self.path.display(), &old, &new);
        PreparedCall {
            tool,
            args,
            preview: Preview {
                summary,
                detail: Some(detail),
            },
            payload: Box::new(self),
        }
    }
}

/// A refusal of `tool` with `reason`; nothing was written.
pub(super) fn rejected(tool: &str, reason: String) -> ToolError {
    ToolError::Rejected {
        tool: tool.to_string(),
        reason,
    }
}

/// Performs a planned write: re-checks, records the preimage, writes atomically.
pub async fn execute_write(
    tool: &'static str,
    ctx: &ToolContext,
    plan: WritePlan,
) -> Result<ToolOutput, ToolError> {
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::Canceled(tool.to_string()));
    }
    let display = plan.path.display();
    // A symlink swapped in after prepare, or a protection added since, is refused.
    check_no_symlinks(&ctx.root, &plan.path.rel, &display)?;
    ensure_writable(ctx, &plan.path)?;
    let current = read_regular(tool, &plan.path)?;
    let current_revision = current.as_ref().map(|c| revision_of(&c.bytes));
    if current_revision != plan.revision_before {
        let reason = match (&plan.revision_before, &current_revision) {
            (None, Some(_)) => format!(
                "`{display}` was created by someone else since the call was prepared; nothing was written"
            ),
            (Some(_), None) => {
                format!("`{display}` was deleted since the call was prepared; nothing was written")
            }
            (Some(a), Some(b)) => format!(
                "`{display}` changed since the call was prepared (expected {a}, found {b}); nothing was written; read it again"
            ),
            (None, None) => {
                format!("`{display}` changed since the call was prepared; nothing was written")
            }
        };
        return Err(rejected(tool, reason));
    }
    let target = if plan.before.is_some() {
        Target::Replace
    } else {
        Target::Create
    };
    if target == Target::Create
        && let Some(parent) = plan.path.abs.parent()
    {
        std::fs::create_dir_all(parent).map_err(|source| ToolError::Io {
            tool: tool.to_string(),
            source,
        })?;
        check_no_symlinks(&ctx.root, &plan.path.rel, &display)?;
    }
    let change_id = match &ctx.checkpoints {
        Some(store) => Some(
            store
                .record(&NewChange {
                    path: &display,
                    tool,
                    preimage: plan.before.as_ref().map(|b| (b.bytes.as_slice(), b.mode)),
                    revision_before: plan.revision_before.as_deref(),
                })
                .map_err(|e| ToolError::Io {
                    tool: tool.to_string(),
                    source: std::io::Error::other(format!("could not record the checkpoint: {e}")),
                })?,
        ),
        None => None,
    };
    let mode = plan.before.as_ref().map(|b| b.mode);
    if let Err(source) = write_atomic(&plan.path.abs, &plan.content, mode, target) {
        if let (Some(store), Some(id)) = (&ctx.checkpoints, change_id) {
            let _ = store.mark_failed(id);
        }
        if source.kind() == std::io::ErrorKind::AlreadyExists {
            return Err(rejected(
                tool,
                format!(
                    "`{display}` was created by someone else since the call was prepared; nothing was written"
                ),
            ));
        }
        return Err(ToolError::Io {
            tool: tool.to_string(),
            source,
        });
    }
    if let (Some(store), Some(id)) = (&ctx.checkpoints, change_id) {
        store
            .mark_applied(id, &plan.revision_after)
            .map_err(|e| ToolError::Io {
                tool: tool.to_string(),
                source: std::io::Error::other(format!(
                    "the file was written but the checkpoint could not be completed: {e}"
                )),
            })?;
    }
    Ok(ToolOutput {
        value: json!({
            "path": display,
            "revision_before": plan.revision_before,
            "revision": plan.revision_after,
            "bytes_written": plan.content.len(),
            "change_id": change_id,
        }),
        facts: ReceiptFacts {
            path: Some(display),
            revision_before: plan.revision_before,
            revision_after: Some(plan.revision_after),
            output_bytes: plan.content.len() as u64,
            detail: match change_id {
                Some(id) => json!({ "change_id": id }),
                None => serde_json::Value::Null,
            },
            ..ReceiptFacts::default()
        },
    })
}
