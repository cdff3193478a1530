//! The shared first half of the write tools' `prepare`: the file a change starts
//! from (confined, writable, present, at the expected revision) and the checks on
//! text about to be written (size, UTF-8 text).
//!
//! It never writes and never computes new content: the plan and the write are
//! [`super::write`]'s.

use super::confine::{
    ConfinedPath, FileBytes, MAX_FILE_BYTES, confine, ensure_writable, read_regular, too_large,
};
use super::text::decode_text;
use super::write::rejected;
use crate::evidence::revision_of;
use crate::tools::{ToolContext, ToolError};

/// The existing file `raw` a change of `tool` writes over: confined, writable,
/// present, and at `expected` when a revision is given.
pub(super) fn existing_file(
    tool: &str,
    ctx: &ToolContext,
    raw: &str,
    expected: Option<&str>,
) -> Result<(ConfinedPath, FileBytes), ToolError> {
    let path = confine(&ctx.root, raw)?;
    ensure_writable(ctx, &path)?;
    let display = path.display();
    let before = read_regular(tool, &path)?.ok_or_else(|| {
        rejected(
            tool,
            format!("`{display}` does not exist; use create_file for new files"),
        )
    })?;
    let revision = revision_of(&before.bytes);
    if let Some(expected) = expected
        && expected != revision
    {
        return Err(rejected(
            tool,
            format!(
                "stale revision: expected {expected} but `{display}` is at {revision}; read it again and retry"
            ),
        ));
    }
    Ok((path, before))
}

/// Checks the full text `content` that `tool` will write to `display`: at most
/// [`MAX_FILE_BYTES`], and text (no NUL byte).
pub(super) fn check_new_text(tool: &str, display: &str, content: &str) -> Result<(), ToolError> {
    if content.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(tool, display, content.len() as u64));
    }
    decode_text(tool, display, content.as_bytes())?;
    Ok(())
}
