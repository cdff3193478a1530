//! The file half shared by the file sources (`read_diff`, `read_json`): a project
//! file confined at prepare and read whole at execute under the source's own bound.
//!
//! It never cuts a file to a span (a larger file is refused with the reason) and
//! never interprets the content: each source checks its own format.

use serde_json::Value;

use crate::tools::fs::confine::{ConfinedPath, check_no_symlinks, confine, read_regular};
use crate::tools::{PreparedCall, Preview, ToolContext, ToolError};

/// A file read whole: its path as shown to callers and its bytes.
pub(super) struct WholeFile {
    /// The project-relative path with `/` separators.
    pub display: String,
    /// The whole content.
    pub bytes: Vec<u8>,
}

/// A refusal of `tool` with `reason`; nothing was read past the check that failed.
pub(super) fn rejected(tool: &str, reason: String) -> ToolError {
    ToolError::Rejected {
        tool: tool.to_string(),
        reason,
    }
}

/// Prepares a read of the project file `raw` (confined now, read at execute); the
/// preview says "read {what} `path`".
pub(super) fn prepare(
    tool: &'static str,
    ctx: &ToolContext,
    args: Value,
    raw: &str,
    what: &str,
) -> Result<PreparedCall, ToolError> {
    let path = confine(&ctx.root, raw)?;
    Ok(PreparedCall {
        tool,
        args,
        preview: Preview {
            summary: format!("read {what} `{}`", path.display()),
            detail: None,
        },
        payload: Box::new(path),
    })
}

/// Reads the prepared file whole, re-checking symlinks; refused when it is absent
/// or larger than `max` bytes ("{what} may be at most {max} bytes{hint}").
pub(super) fn read(
    tool: &str,
    ctx: &ToolContext,
    call: PreparedCall,
    max: usize,
    what: &str,
    hint: &str,
) -> Result<WholeFile, ToolError> {
    let path = call.into_payload::<ConfinedPath>()?;
    let display = path.display();
    check_no_symlinks(&ctx.root, &path.rel, &display)?;
    let file = read_regular(tool, &path)?
        .ok_or_else(|| rejected(tool, format!("`{display}` does not exist")))?;
    if file.bytes.len() > max {
        return Err(rejected(
            tool,
            format!(
                "`{display}` is {} bytes; {what} may be at most {max} bytes{hint}",
                file.bytes.len()
            ),
        ));
    }
    Ok(WholeFile {
        display,
        bytes: file.bytes,
    })
}
